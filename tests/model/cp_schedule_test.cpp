// CPU tests of the context-parallel schedules (model/cp): slice clipping, sharding, and for every method, GPU
// count and registered mask pattern, forward and backward: every unmasked (q, k) pair computed exactly once
// (exact areas at 16K tokens for P up to 64; cell by cell against Mask::dense() at 2K tokens), pads never work,
// communication volumes equal their closed forms, ops well formed; invalid configs rejected helpfully.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/cp/cp_method.h"
#include "model/cp/schedule.h"
#include "model/cp/sharding.h"
#include "model/cp/slice_clip.h"
#include "model/error.h"
#include "model/mask_spec.h"
#include "model/rng.h"

namespace lcab::cp {
namespace {

constexpr int64_t kHeads = 64;
constexpr int64_t kKvHeads = 8;
constexpr int64_t kHeadDim = 128;
constexpr int64_t kAreaSeqlen = 16384;
constexpr int64_t kDenseSeqlen = 2048;

// ---- clipping ---------------------------------------------------------------------------------------------------

TEST(SliceClip, ExactCellsForEveryTypeAndWindow) {
  Rng rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    Slice s;
    s.q_begin = rng.uniform_int(0, 10);
    s.q_end = s.q_begin + rng.uniform_int(1, 14);
    s.k_begin = rng.uniform_int(0, 10);
    s.k_end = s.k_begin + rng.uniform_int(1, 14);
    s.type = static_cast<SliceType>(rng.uniform_int(0, 4));
    ClipWindow w;
    w.q_begin = rng.uniform_int(0, 20);
    w.q_end = w.q_begin + rng.uniform_int(1, 12);
    w.k_begin = rng.uniform_int(0, 20);
    w.k_end = w.k_begin + rng.uniform_int(1, 12);
    w.q_shift = rng.uniform_int(-3, 4) - w.q_begin + 2;
    w.k_shift = rng.uniform_int(-3, 4) - w.k_begin + 2;
    std::vector<Slice> out;
    clip_slice(s, w, out);
    ASSERT_LE(out.size(), 3u);
    for (int64_t q = w.q_begin; q < w.q_end; ++q) {
      for (int64_t k = w.k_begin; k < w.k_end; ++k) {
        int covered = 0;
        for (const Slice& o : out) covered += o.contains(q + w.q_shift, k + w.k_shift);
        ASSERT_EQ(covered, s.contains(q, k) ? 1 : 0)
            << "trial " << trial << " " << to_string(s.type) << " cell " << q << "," << k;
      }
    }
    int64_t area = 0;
    for (const Slice& o : out) {
      EXPECT_GT(o.area(), 0);
      EXPECT_GE(o.q_begin, w.q_begin + w.q_shift);
      EXPECT_LE(o.q_end, w.q_end + w.q_shift);
      EXPECT_GE(o.k_begin, w.k_begin + w.k_shift);
      EXPECT_LE(o.k_end, w.k_end + w.k_shift);
      area += o.area();
    }
    const KeySpan span = key_span_of_rows(s, w.q_begin, w.q_end);
    for (int64_t q = w.q_begin; q < w.q_end; ++q) {
      const TokenRange keys = s.keys_of_row(q);
      if (keys.empty()) continue;
      EXPECT_GE(keys.begin, span.first);
      EXPECT_LE(keys.end - 1, span.last);
    }
  }
}

// ---- sharding ---------------------------------------------------------------------------------------------------

void expect_covers_each_token_once(const PositionSharding& sh, int64_t s) {
  std::vector<int> seen(s, 0);
  for (const TokenMap& m : sh.positions) {
    EXPECT_EQ(m.rows(), sh.rows_per_position);
    for (const Segment& seg : m.segments)
      if (!seg.pad)
        for (int64_t g = seg.global_begin; g < seg.global_begin + seg.length; ++g) ++seen.at(g);
  }
  for (int64_t g = 0; g < s; ++g) ASSERT_EQ(seen[g], 1) << "token " << g;
  EXPECT_EQ(sh.pad_tokens, sh.rows_per_position * static_cast<int64_t>(sh.positions.size()) - s);
}

TEST(Sharding, ZigzagGivesChunksRAnd2RMinus1MinusR) {
  const Mask mask = make_mask("causal", 64);
  const PositionSharding sh = shard_sequence(mask, 4, 1, ShardingKind::kZigzag, 256);
  ASSERT_EQ(sh.positions.size(), 4u);
  EXPECT_EQ(sh.rows_per_position, 16);
  const TokenMap& p1 = sh.positions[1];
  ASSERT_EQ(p1.segments.size(), 2u);
  EXPECT_EQ(p1.segments[0], (Segment{8, 8, false}));
  EXPECT_EQ(p1.segments[1], (Segment{48, 8, false}));
  expect_covers_each_token_once(sh, 64);
}

TEST(Sharding, PadsUnevenLengthsAndEveryKindCoversTheSequence) {
  for (int64_t s : {61, 64, 1000, 4099}) {
    for (int64_t positions : {1, 3, 4, 7}) {
      for (int64_t split : {1, 2, 3}) {
        const Mask mask = make_mask("causal_document:seed=3", s);
        for (ShardingKind kind : {ShardingKind::kContiguous, ShardingKind::kZigzag, ShardingKind::kZigzagDocuments}) {
          if (kind == ShardingKind::kContiguous && s < positions * split) continue;
          const PositionSharding sh = shard_sequence(mask, positions, split, kind, 16);
          EXPECT_EQ(sh.rows_per_position % split, 0);
          expect_covers_each_token_once(sh, s);
        }
      }
    }
  }
}

TEST(Sharding, DocumentZigzagSplitsEveryUnitEvenlyAndGroupsTinyDocuments) {
  std::vector<int64_t> docs{3000, 100, 120, 90, 800, 30, 4000};
  std::vector<Slice> slices;
  int64_t s = 0;
  for (int64_t len : docs) {
    slices.push_back({s, s + len, s, s + len, SliceType::kCausal});
    s += len;
  }
  const Mask mask(s, slices, {"test", docs});
  const int64_t positions = 4, min_chunk = 32;  // units of >= 256 tokens
  const PositionSharding sh = shard_sequence(mask, positions, 1, ShardingKind::kAuto, min_chunk);
  EXPECT_EQ(sh.kind, ShardingKind::kZigzagDocuments);
  // units: [3000], [100+120+90 = 310], [800], [30 + 4000] (a unit closes once it reaches 256 tokens)
  EXPECT_EQ(sh.units, 4);
  expect_covers_each_token_once(sh, s);
  // document 0 is a unit of its own: every position holds the same causal work of it (chunks r and 7-r)
  std::vector<int64_t> work(positions, 0);
  for (int64_t p = 0; p < positions; ++p)
    for (const Segment& seg : sh.positions[p].segments)
      if (!seg.pad)
        for (int64_t g = seg.global_begin; g < seg.global_begin + seg.length && g < docs[0]; ++g) work[p] += g + 1;
  for (int64_t p = 1; p < positions; ++p) EXPECT_EQ(work[p], work[0]);
  // a plain zigzag is used when all documents fall into one unit
  const PositionSharding one = shard_sequence(mask, positions, 1, ShardingKind::kAuto, 100000);
  EXPECT_EQ(one.kind, ShardingKind::kZigzag);
  EXPECT_EQ(one.units, 1);
}

TEST(Sharding, TooShortSequenceIsRejectedWithTheNeededLength) {
  const Mask mask = make_mask("causal", 7);
  try {
    shard_sequence(mask, 4, 1, ShardingKind::kZigzag, 16);
    FAIL() << "expected lcab::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("S >= 8"), std::string::npos) << e.what();
  }
}

// ---- schedules: configurations ------------------------------------------------------------------------------------

struct Case {
  std::string method;
  int64_t gpus;
  int64_t ulysses = 0;
  int64_t ring = 0;
  int64_t windows = 1;
  Placement placement = Placement::kUlyssesIntra;
  std::string label() const {
    return method + " P=" + std::to_string(gpus) + " U=" + std::to_string(ulysses) + " R=" + std::to_string(ring) +
           " W=" + std::to_string(windows) + " " + std::string(to_string(placement));
  }
};

std::vector<Case> cases_up_to(int64_t max_gpus) {
  std::vector<Case> out;
  for (int64_t p : {1, 2, 3, 4, 8, 16, 64}) {
    if (p > max_gpus) continue;
    out.push_back({"ring", p});
    out.push_back({"allgather", p});
    if (kHeads % p == 0 && (kKvHeads % p == 0 || p % kKvHeads == 0)) out.push_back({"ulysses", p});
  }
  const std::vector<Case> grid{
      {"usp", 4, 2, 2, 1, Placement::kUlyssesIntra},  {"usp", 4, 2, 2, 1, Placement::kRingIntra},
      {"usp", 8, 4, 2, 1, Placement::kRingIntra},     {"usp", 16, 2, 8, 1, Placement::kUlyssesIntra},
      {"usp", 64, 8, 8, 1, Placement::kUlyssesIntra}, {"usp", 64, 16, 4, 1, Placement::kRingIntra},
      {"usp", 3, 1, 3, 1, Placement::kRingIntra},     {"loongtrain", 4, 1, 4, 2, Placement::kRingIntra},
      {"loongtrain", 4, 2, 2, 2, Placement::kUlyssesIntra}, {"loongtrain", 8, 2, 4, 2, Placement::kRingIntra},
      {"loongtrain", 8, 1, 8, 4, Placement::kUlyssesIntra}, {"loongtrain", 16, 2, 8, 4, Placement::kRingIntra},
      {"loongtrain", 64, 4, 16, 4, Placement::kUlyssesIntra}, {"loongtrain", 64, 8, 8, 8, Placement::kRingIntra},
  };
  for (const Case& c : grid)
    if (c.gpus <= max_gpus) out.push_back(c);
  return out;
}

CpConfig make_config(const Case& c, std::shared_ptr<const Mask> mask) {
  CpConfig config;
  config.method = c.method;
  config.gpus = c.gpus;
  config.gpus_per_node = 8;
  config.ulysses_degree = c.ulysses;
  config.ring_degree = c.ring;
  config.windows = c.windows;
  config.placement = c.placement;
  config.min_document_chunk_tokens = 32;
  config.workload.mask = std::move(mask);
  config.workload.heads = kHeads;
  config.workload.kv_heads = kKvHeads;
  config.workload.head_dim = kHeadDim;
  return config;
}

// Masks of every registered pattern at seqlen S, made once.
const std::vector<std::pair<std::string, std::shared_ptr<const Mask>>>& masks_at(int64_t s) {
  static std::map<int64_t, std::vector<std::pair<std::string, std::shared_ptr<const Mask>>>> cache;
  auto& list = cache[s];
  if (list.empty())
    for (const std::string& name : builtin_mask_patterns().names())
      if (name != "file")  // slices from a JSON file: needs a path, not a generator
        list.emplace_back(name, std::make_shared<const Mask>(make_mask(name, s, kKvHeads)));
  return list;
}

// ---- schedules: checks ----------------------------------------------------------------------------------------------

int64_t expected_pairs(const Mask& mask) {
  if (!mask.is_per_kv_head()) return mask.area() * kHeads;
  int64_t n = 0;
  for (int h = 0; h < mask.num_head_masks(); ++h) n += mask.area(h) * (kHeads / kKvHeads);
  return n;
}

// The segment of `map` holding rows [begin, end) entirely, or nullptr when they cross a boundary.
const Segment* segment_of(const TokenMap& map, int64_t begin, int64_t end, int64_t* offset) {
  int64_t row = 0;
  for (const Segment& seg : map.segments) {
    if (begin >= row && end <= row + seg.length) {
      *offset = begin - row;
      return &seg;
    }
    row += seg.length;
  }
  return nullptr;
}

// Global (q, k) origin of a slice of an item; fails when the slice touches pads or crosses segments.
struct Origin {
  int64_t q, k;
};
Origin global_origin(const Schedule& s, const ComputeItem& item, const Slice& sl) {
  int64_t q_off = 0, k_off = 0;
  const Segment* qs = segment_of(s.token_maps.at(item.q_map), item.q_rows.begin + sl.q_begin,
                                 item.q_rows.begin + sl.q_end, &q_off);
  const Segment* ks = segment_of(s.token_maps.at(item.k_map), item.k_rows.begin + sl.k_begin,
                                 item.k_rows.begin + sl.k_end, &k_off);
  EXPECT_TRUE(qs && !qs->pad) << "slice rows touch pads or cross segments";
  EXPECT_TRUE(ks && !ks->pad) << "slice keys touch pads or cross segments";
  if (!qs || qs->pad || !ks || ks->pad) return {-1, -1};
  return {qs->global_begin + q_off, ks->global_begin + k_off};
}

void expect_well_formed(const Schedule& s) {
  const int P = s.gpus();
  // collectives: the same sequence of (what, chunk bytes) on every member of a group
  std::map<std::pair<int, int>, std::pair<std::string, int64_t>> collective;
  for (const RankSchedule& r : s.ranks) {
    for (size_t k = 0; k < r.ops.size(); ++k) {
      const Op& op = r.ops[k];
      for (int32_t d : r.deps(static_cast<int>(k))) {
        ASSERT_LT(d, static_cast<int32_t>(k));
        ASSERT_NE(r.ops[d].stream, op.stream);
      }
      ASSERT_GE(op.step, 0);
      ASSERT_LT(op.step, s.num_steps);
      if (!is_communication(op.kind)) continue;
      const CommOp& c = r.comms.at(op.index);
      if (op.kind == OpKind::kSend || op.kind == OpKind::kRecv) {
        ASSERT_GE(c.peer, 0);
        ASSERT_LT(c.peer, P);
        const Op& other = s.ranks[c.peer].ops.at(c.peer_op);
        EXPECT_EQ(other.kind, op.kind == OpKind::kSend ? OpKind::kRecv : OpKind::kSend);
        EXPECT_EQ(s.ranks[c.peer].comms[other.index].peer, r.rank);
      } else {
        const Group& g = s.groups.at(c.group);
        ASSERT_NE(std::find(g.ranks.begin(), g.ranks.end(), r.rank), g.ranks.end());
        auto [it, fresh] = collective.emplace(std::make_pair(c.group, c.collective_seq),
                                              std::make_pair(c.what, c.chunk_bytes));
        if (!fresh) {
          EXPECT_EQ(it->second, std::make_pair(c.what, c.chunk_bytes));
        }
      }
    }
    for (const ComputeItem& item : r.items) {
      EXPECT_EQ(item.slices.size(), s.config.workload.mask->is_per_kv_head() ? item.kv_heads.count() : 1);
      EXPECT_GE(item.q_rows.begin, 0);
      EXPECT_LE(item.q_rows.end, s.buffers.at(item.q_buffer).tokens);
      EXPECT_LE(item.k_rows.end, s.buffers.at(item.k_buffer).tokens);
      EXPECT_EQ(s.buffers[item.q_buffer].heads, item.q_heads.count());
      EXPECT_EQ(s.buffers[item.k_buffer].heads, item.kv_heads.count());
      if (s.pass == Pass::kBackward) {
        ASSERT_GE(item.grad_buffer, 0);
        EXPECT_LE(item.grad_row_begin + item.k_rows.length(), s.buffers[item.grad_buffer].tokens);
      }
    }
  }
}

// Every unmasked pair exactly once, by exact areas; slices never on pads.
void expect_exact_area(const Schedule& s) {
  EXPECT_EQ(s.total_pairs(), expected_pairs(*s.config.workload.mask));
  for (const RankSchedule& r : s.ranks)
    for (const ComputeItem& item : r.items) {
      int64_t pairs = 0;
      for (size_t h = 0; h < item.slices.size(); ++h)
        for (const Slice& sl : item.slices[h]) {
          global_origin(s, item, sl);
          pairs += sl.area() * (item.slices.size() == 1 ? item.q_heads.count() : kHeads / kKvHeads);
        }
      ASSERT_EQ(pairs, item.pairs);
    }
}

// Mask::dense(kv_head) of the last mask asked for, computed once per head.
// Holds the mask alive, so that the cache can never confuse it with a later mask at the same address.
const std::vector<uint8_t>& dense_of(const std::shared_ptr<const Mask>& mask, int kv_head) {
  static std::shared_ptr<const Mask> cached_mask;
  static std::map<int, std::vector<uint8_t>> cached;
  if (cached_mask != mask) {
    cached.clear();
    cached_mask = mask;
  }
  auto it = cached.find(kv_head);
  if (it == cached.end()) it = cached.emplace(kv_head, mask->dense(kv_head)).first;
  return it->second;
}

// Cell by cell against Mask::dense(): items are grouped by their q head range; the ranges must partition the q
// heads, and within each range every unmasked cell of every kv head it reads is covered exactly once.
void expect_dense_cells_once(const Schedule& s) {
  const Mask& mask = *s.config.workload.mask;
  const int64_t S = mask.seqlen();
  std::map<std::pair<int64_t, int64_t>, std::vector<const ComputeItem*>> by_range;
  for (const RankSchedule& r : s.ranks)
    for (const ComputeItem& item : r.items) by_range[{item.q_heads.begin, item.q_heads.end}].push_back(&item);
  int64_t next_head = 0;
  std::vector<uint8_t> cover(S * S);
  for (const auto& [range, items] : by_range) {
    ASSERT_EQ(range.first, next_head) << "q head ranges must partition [0, heads)";
    next_head = range.second;
    const HeadRange kv = items.front()->kv_heads;
    const int lists = mask.is_per_kv_head() ? static_cast<int>(kv.count()) : 1;
    for (int list = 0; list < lists; ++list) {
      std::fill(cover.begin(), cover.end(), 0);
      for (const ComputeItem* item : items) {
        ASSERT_EQ(item->kv_heads, kv);
        for (const Slice& sl : item->slices[list]) {
          const Origin o = global_origin(s, *item, sl);
          if (o.q < 0) return;
          for (int64_t i = sl.q_begin; i < sl.q_end; ++i) {
            const TokenRange keys = sl.keys_of_row(i);
            uint8_t* row = cover.data() + (o.q + i - sl.q_begin) * S + o.k - sl.k_begin;
            for (int64_t j = keys.begin; j < keys.end; ++j) ++row[j];
          }
        }
      }
      const std::vector<uint8_t>& dense =
          dense_of(s.config.workload.mask, mask.is_per_kv_head() ? static_cast<int>(kv.begin) + list : 0);
      const auto mismatch = std::mismatch(cover.begin(), cover.end(), dense.begin());
      if (mismatch.first != cover.end()) {
        const int64_t c = mismatch.first - cover.begin();
        FAIL() << "cell q=" << c / S << " k=" << c % S << " kv list " << list << " covered " << int{*mismatch.first}
               << " times, mask says " << int{*mismatch.second};
      }
    }
  }
  EXPECT_EQ(next_head, kHeads);
}

// Closed forms of the bytes each rank sends (batch 1).
void expect_volumes(const Schedule& s) {
  const CpConfig& c = s.config;
  const int64_t U = s.layout.ulysses, R = s.layout.ring, W = s.layout.windows, w = R / W;
  const int64_t t = s.local_tokens, T = U * t, D = kHeadDim, dt = c.workload.dtype_bytes,
                gab = c.workload.grad_accum_bytes;
  const int64_t hk = kKvHeads >= U ? kKvHeads / U : 1;
  const bool fwd = s.pass == Pass::kForward;
  int64_t expected = 0;
  if (c.method == "allgather") {
    const int64_t P = c.gpus;
    expected = (P - 1) * 2 * t * kKvHeads * D * dt;
    if (!fwd) expected += (P - 1) * 2 * t * kKvHeads * D * gab;
  } else {
    const int64_t q_chunk = t * (kHeads / U) * D * dt, kv_chunk = 2 * t * hk * D * dt;
    const int64_t a2a = fwd ? 2 * q_chunk + kv_chunk : 2 * q_chunk + kv_chunk;  // (q, kv, out) | (dout, dq, dkv)
    expected += (U - 1) * a2a;
    expected += (R - 1) * 2 * T * hk * D * dt;  // KV: W (w - 1) inner + W - 1 outer hops
    if (!fwd) {
      const int64_t dkv_hops = (w > 1 ? R : 0) + (W > 1 ? W : 0);  // inner hops incl. home, outer hops
      expected += dkv_hops * 2 * T * hk * D * gab;
    }
  }
  int64_t sent = 0, received = 0;
  for (const RankSchedule& r : s.ranks) {
    EXPECT_EQ(r.bytes_sent(), expected) << "rank " << r.rank;
    sent += r.bytes_sent();
    for (const CommOp& op : r.comms) received += op.bytes_received;
  }
  EXPECT_EQ(sent, received);
}

void check_schedule(const Case& c, const std::string& pattern, std::shared_ptr<const Mask> mask, bool dense) {
  for (Pass pass : {Pass::kForward, Pass::kBackward}) {
    SCOPED_TRACE(c.label() + " mask " + pattern + " " + std::string(to_string(pass)));
    const Schedule s = build_schedule(make_config(c, mask), pass);
    ASSERT_EQ(s.gpus(), c.gpus);
    expect_well_formed(s);
    expect_exact_area(s);
    expect_volumes(s);
    if (dense) expect_dense_cells_once(s);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(CpSchedules, EveryPairOnceByAreaAndVolumesForEveryMethodGpuCountAndMask) {
  for (const auto& [pattern, mask] : masks_at(kAreaSeqlen))
    for (const Case& c : cases_up_to(64)) {
      check_schedule(c, pattern, mask, false);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(CpSchedules, EveryCellOnceAgainstDenseMasks) {
  for (const auto& [pattern, mask] : masks_at(kDenseSeqlen))
    for (const Case& c : cases_up_to(8)) {
      check_schedule(c, pattern, mask, true);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// ---- schedules: structure ------------------------------------------------------------------------------------------

Schedule ring_schedule(int64_t p, Pass pass, const std::string& spec = "causal", int64_t s = 4096) {
  return build_schedule(make_config({"ring", p}, std::make_shared<const Mask>(make_mask(spec, s, kKvHeads))), pass);
}

TEST(CpSchedules, RingDoubleBuffersKvAndWaitsForTheReceiveOfThePreviousStep) {
  const Schedule s = ring_schedule(4, Pass::kForward, "full");
  const RankSchedule& r = s.ranks[1];
  EXPECT_EQ(s.num_steps, 4);
  std::vector<int> compute_of_step(4, -1), recv_of_step(4, -1);
  for (size_t k = 0; k < r.ops.size(); ++k) {
    if (r.ops[k].kind == OpKind::kCompute) compute_of_step[r.ops[k].step] = static_cast<int>(k);
    if (r.ops[k].kind == OpKind::kRecv) recv_of_step[r.ops[k].step] = static_cast<int>(k);
  }
  EXPECT_EQ(recv_of_step[3], -1) << "no transfer after the last step";
  for (int step = 0; step < 4; ++step) {
    ASSERT_GE(compute_of_step[step], 0);
    const ComputeItem& item = r.items[r.ops[compute_of_step[step]].index];
    const std::string& kv = s.buffers[item.k_buffer].name;
    EXPECT_EQ(kv, step == 0 ? "kv" : "kv_inner[" + std::to_string(step % 2) + "]");
    // full mask, zigzag: the block of rank (1 - step) mod 4, all of it
    EXPECT_EQ(item.k_map, (1 - step + 4) % 4);
    EXPECT_EQ(item.pairs, s.local_tokens * s.local_tokens * kHeads);
    if (step > 0) {
      auto deps = r.deps(compute_of_step[step]);
      EXPECT_NE(std::find(deps.begin(), deps.end(), recv_of_step[step - 1]), deps.end())
          << "step " << step << " must wait for the KV received during step " << step - 1;
    }
    if (step >= 2 && step + 1 < 4) {  // a receive into a buffer waits for the compute that last read it
      auto deps = r.deps(recv_of_step[step]);
      EXPECT_NE(std::find(deps.begin(), deps.end(), compute_of_step[step - 1]), deps.end());
    }
  }
  // the peer of a send is the next rank, of a receive the previous one
  for (const Op& op : r.ops) {
    if (op.kind == OpKind::kSend) {
      EXPECT_EQ(r.comms[op.index].peer, 2);
    }
    if (op.kind == OpKind::kRecv) {
      EXPECT_EQ(r.comms[op.index].peer, 0);
    }
  }
}

TEST(CpSchedules, ZigzagRingStepsComputeHalfBlocksOnCausal) {
  const Schedule s = ring_schedule(4, Pass::kForward, "causal");
  const int64_t t = s.local_tokens, c = t / 2;
  const RankSchedule& r = s.ranks[2];
  for (const ComputeItem& item : r.items) {
    if (item.k_map < 2) {  // earlier ranks: all queries, first half of their KV, full
      EXPECT_EQ(item.q_rows, (TokenRange{0, t}));
      EXPECT_EQ(item.k_rows, (TokenRange{0, c}));
    } else if (item.k_map > 2) {  // later ranks: second half of the queries, all KV
      EXPECT_EQ(item.q_rows, (TokenRange{c, t}));
      EXPECT_EQ(item.k_rows, (TokenRange{0, t}));
    }
    if (item.k_map != 2) {
      EXPECT_EQ(item.pairs, c * t * kHeads);
    }
  }
}

TEST(CpSchedules, RingBackwardBringsDkvHomeAfterPHops) {
  const int64_t P = 4;
  const Schedule s = ring_schedule(P, Pass::kBackward, "full");
  for (const RankSchedule& r : s.ranks) {
    int dkv_sends = 0, kv_sends = 0;
    int last_dkv_recv = -1;
    for (size_t k = 0; k < r.ops.size(); ++k) {
      if (!is_communication(r.ops[k].kind)) continue;
      const CommOp& c = r.comms[r.ops[k].index];
      if (r.ops[k].kind == OpKind::kSend) (c.what == "dkv" ? dkv_sends : kv_sends)++;
      if (r.ops[k].kind == OpKind::kRecv && c.what == "dkv") last_dkv_recv = static_cast<int>(k);
    }
    EXPECT_EQ(kv_sends, P - 1);
    EXPECT_EQ(dkv_sends, P);
    ASSERT_GE(last_dkv_recv, 0);
    EXPECT_EQ(s.buffers[r.comms[r.ops[last_dkv_recv].index].dst.buffer].name, "dkv") << "the last hop lands home";
  }
}

TEST(CpSchedules, UlyssesSendsOnlyTheKvHeadsEachRankNeeds) {
  auto mask = std::make_shared<const Mask>(make_mask("causal", 4096, kKvHeads));
  for (int64_t p : {4, 16}) {  // Hk >= U: Hk/U heads each; Hk < U: one kv head each
    const Schedule s = build_schedule(make_config({"ulysses", p}, mask), Pass::kForward);
    const int64_t hk = p <= kKvHeads ? kKvHeads / p : 1;
    for (const CommOp& c : s.ranks[0].comms)
      if (c.what == "kv") {
        EXPECT_EQ(c.chunk_bytes, 2 * s.local_tokens * hk * kHeadDim * 2);
      }
    std::vector<HeadRange> kv_of_rank;
    for (const RankSchedule& r : s.ranks) kv_of_rank.push_back(r.items.at(0).kv_heads);
    EXPECT_EQ(kv_of_rank[p - 1], (HeadRange{kKvHeads - hk, kKvHeads}));
    EXPECT_EQ(s.sharding, ShardingKind::kContiguous);
  }
}

TEST(CpSchedules, PlacementLaysOutGroups) {
  auto mask = std::make_shared<const Mask>(make_mask("causal", 4096, kKvHeads));
  const Schedule intra = build_schedule(make_config({"usp", 8, 2, 4, 1, Placement::kUlyssesIntra}, mask), Pass::kForward);
  const Schedule ring = build_schedule(make_config({"usp", 8, 2, 4, 1, Placement::kRingIntra}, mask), Pass::kForward);
  auto first = [](const Schedule& s, GroupKind kind) {
    for (const Group& g : s.groups)
      if (g.kind == kind) return g.ranks;
    return std::vector<int>{};
  };
  EXPECT_EQ(first(intra, GroupKind::kUlysses), (std::vector<int>{0, 1}));
  EXPECT_EQ(first(intra, GroupKind::kRing), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(first(ring, GroupKind::kUlysses), (std::vector<int>{0, 4}));
  EXPECT_EQ(first(ring, GroupKind::kRing), (std::vector<int>{0, 1, 2, 3}));
}

TEST(CpSchedules, LoongTrainSendsBetweenWindowsOnOuterStreams) {
  auto mask = std::make_shared<const Mask>(make_mask("causal", 4096, kKvHeads));
  const Schedule s =
      build_schedule(make_config({"loongtrain", 8, 1, 8, 2, Placement::kRingIntra}, mask), Pass::kForward);
  // windows {0..3}, {4..7}: inner hops stay in the window, outer hops go to the same index of the next window
  const RankSchedule& r = s.ranks[1];
  int inner = 0, outer = 0;
  for (const Op& op : r.ops) {
    if (op.kind != OpKind::kSend) continue;
    const int peer = r.comms[op.index].peer;
    if (op.stream == Stream::kOuterSend) {
      EXPECT_EQ(peer, 5);
      ++outer;
    } else {
      EXPECT_EQ(peer, 2);
      ++inner;
    }
  }
  EXPECT_EQ(outer, 1);      // W - 1
  EXPECT_EQ(inner, 2 * 3);  // W (w - 1)
}

TEST(CpSchedules, PadsAreNeverWork) {
  // 4099 tokens over 4 ranks: every rank carries pads
  auto mask = std::make_shared<const Mask>(make_mask("causal_document:seed=5", 4099, kKvHeads));
  for (const Case& c : {Case{"ring", 4}, Case{"ulysses", 4}, Case{"allgather", 4}, Case{"usp", 4, 2, 2}}) {
    const Schedule s = build_schedule(make_config(c, mask), Pass::kForward);
    EXPECT_GT(s.pad_tokens, 0) << c.label();
    expect_exact_area(s);
    expect_dense_cells_once(s);
  }
}

// ---- invalid configurations -----------------------------------------------------------------------------------------

void expect_error(const CpConfig& config, const std::string& needle) {
  try {
    build_schedule(config, Pass::kForward);
    ADD_FAILURE() << "expected lcab::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(CpConfigValidation, RejectsImpossibleConfigsSayingWhatIsValid) {
  auto mask = std::make_shared<const Mask>(make_mask("causal", 4096, kKvHeads));
  expect_error(make_config({"rung", 4}, mask), "valid: ring, allgather, ulysses, usp, loongtrain");
  expect_error(make_config({"usp", 8, 3, 0}, mask), "valid UxR: 1x8, 2x4, 4x2, 8x1");
  expect_error(make_config({"usp", 8, 2, 2}, mask), "must equal 8 GPUs");
  expect_error(make_config({"usp", 8}, mask), "needs a Ulysses degree U or a ring degree R");
  expect_error(make_config({"ulysses", 3}, mask), "does not divide 64 q heads");
  expect_error(make_config({"loongtrain", 8, 2, 4, 3}, mask), "windows 3 must divide the ring degree 4; valid: 1, 2, 4");
  expect_error(make_config({"usp", 8, 2, 4, 2}, mask), "windows are for loongtrain");
  expect_error(make_config({"ring", 8, 2, 0}, mask), "use usp or loongtrain");
  CpConfig nodes = make_config({"ring", 12}, mask);
  nodes.gpus_per_node = 8;
  expect_error(nodes, "valid gpus_per_node for P=12: 1, 2, 3, 4, 6, 12 or any value >= 12");
  auto tiny = std::make_shared<const Mask>(make_mask("causal", 100, kKvHeads));
  expect_error(make_config({"ring", 64}, tiny), "too short for zigzag sharding over ring degree 64");
  CpConfig heads = make_config({"ulysses", 16}, mask);
  heads.workload.heads = 40;
  expect_error(heads, "does not divide 40 q heads");
  CpConfig odd = make_config({"ulysses", 4}, mask);
  odd.workload.heads = 24;
  odd.workload.kv_heads = 6;
  expect_error(odd, "one must divide the other");
}

}  // namespace
}  // namespace lcab::cp
