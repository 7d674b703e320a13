// CPU tests of the context-parallel schedules (model/cp): slice clipping, sharding, and for every method, GPU
// count and registered mask pattern, forward and backward: every unmasked (q, k) pair computed exactly once
// (exact areas at 16K tokens for P up to 64; cell by cell against Mask::dense() at 2K tokens), pads never work,
// communication volumes equal their closed forms, ops well formed; invalid configs rejected helpfully.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/cp/cp_method.h"
#include "model/cp/method_common.h"
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

// A FULL slice of 1-14 x 1-14 cells near the origin (the type is the caller's to change).
Slice random_full_slice(Rng& rng) {
  Slice s;
  s.q_begin = rng.uniform_int(0, 10);
  s.q_end = s.q_begin + rng.uniform_int(1, 14);
  s.k_begin = rng.uniform_int(0, 10);
  s.k_end = s.k_begin + rng.uniform_int(1, 14);
  return s;
}

// A window of 1-12 x 1-12 cells that overlaps such slices or not, shifted to a small local origin.
ClipWindow random_clip_window(Rng& rng) {
  ClipWindow w;
  w.q_begin = rng.uniform_int(0, 20);
  w.q_end = w.q_begin + rng.uniform_int(1, 12);
  w.k_begin = rng.uniform_int(0, 20);
  w.k_end = w.k_begin + rng.uniform_int(1, 12);
  w.q_shift = rng.uniform_int(-3, 4) - w.q_begin + 2;
  w.k_shift = rng.uniform_int(-3, 4) - w.k_begin + 2;
  return w;
}

TEST(SliceClip, ExactCellsForEveryTypeAndWindow) {
  Rng rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    Slice s = random_full_slice(rng);
    s.type = static_cast<SliceType>(rng.uniform_int(0, 4));
    const ClipWindow w = random_clip_window(rng);
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

// A FULL slice clips to one FULL slice, its intersection with the window (shifted), or to nothing: the form the
// CP items of block-sparse masks are costed and deduplicated in.
TEST(SliceClip, FullSlicesClipToTheirIntersection) {
  Rng rng(8);
  for (int trial = 0; trial < 3000; ++trial) {
    Slice s = random_full_slice(rng);
    const ClipWindow w = random_clip_window(rng);
    std::vector<Slice> out;
    clip_slice(s, w, out);
    const int64_t qa = std::max(s.q_begin, w.q_begin), qb = std::min(s.q_end, w.q_end);
    const int64_t ka = std::max(s.k_begin, w.k_begin), kb = std::min(s.k_end, w.k_end);
    if (qa >= qb || ka >= kb) {
      EXPECT_TRUE(out.empty()) << trial;
      continue;
    }
    ASSERT_EQ(out.size(), 1u) << trial;
    EXPECT_EQ(out[0], (Slice{qa + w.q_shift, qb + w.q_shift, ka + w.k_shift, kb + w.k_shift, SliceType::kFull}))
        << trial;
  }
}

TEST(SliceCut, BothPartsHoldExactlyTheCellsOfTheirSideAndTheShareIsClosest) {
  Rng rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<std::vector<Slice>> lists(2);
    for (auto& list : lists)
      for (int n = rng.uniform_int(0, 3); n > 0; --n) {
        Slice s;
        s.q_begin = rng.uniform_int(0, 30);
        s.q_end = s.q_begin + rng.uniform_int(1, 30);
        s.k_begin = rng.uniform_int(0, 30);
        s.k_end = s.k_begin + rng.uniform_int(1, 30);
        s.type = static_cast<SliceType>(rng.uniform_int(0, 4));
        list.push_back(s);
      }
    for (CutAxis axis : {CutAxis::kQueries, CutAxis::kKeys}) {
      const int64_t align = rng.uniform_int(1, 8);
      const double share = rng.uniform_int(0, 10) / 10.0;
      const int64_t at = cut_for_tail_share(lists, axis, share, align);
      const CutSlices cut = cut_slices(lists, axis, at);
      int64_t total = 0, after = 0;
      for (size_t h = 0; h < lists.size(); ++h)
        for (int64_t q = 0; q < 64; ++q)
          for (int64_t k = 0; k < 64; ++k) {
            int in = 0, before_n = 0, after_n = 0;
            for (const Slice& s : lists[h]) in += s.contains(q, k);
            for (const Slice& s : cut.before[h]) before_n += s.contains(q, k);
            for (const Slice& s : cut.after[h]) after_n += s.contains(q, k);
            const bool past = (axis == CutAxis::kQueries ? q : k) >= at;
            ASSERT_EQ(before_n, past ? 0 : in) << "trial " << trial << " cell " << q << "," << k;
            ASSERT_EQ(after_n, past ? in : 0) << "trial " << trial << " cell " << q << "," << k;
            total += in;
            after += past ? in : 0;
          }
      if (total == 0) continue;
      // no other candidate cut on the grid comes closer to the share
      int64_t first = 1 << 20;
      for (const auto& list : lists)
        for (const Slice& s : list) first = std::min(first, axis == CutAxis::kQueries ? s.q_begin : s.k_begin);
      EXPECT_EQ((at - first) % align, 0);
      const double error = std::abs(static_cast<double>(after) - share * static_cast<double>(total));
      for (int64_t c = first; c <= first + 64; c += align) {
        int64_t other = 0;
        for (const auto& list : lists)
          for (const Slice& s : list)
            for (int64_t q = 0; q < 64; ++q)
              for (int64_t k = 0; k < 64; ++k)
                if (s.contains(q, k) && (axis == CutAxis::kQueries ? q : k) >= c) ++other;
        EXPECT_LE(error, std::abs(static_cast<double>(other) - share * static_cast<double>(total)) + 1e-9)
            << "trial " << trial << " cut " << at << " vs " << c;
      }
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

// Index of the last op of `kind` carrying `what` on a rank, -1 if none.
int last_comm_op(const RankSchedule& r, OpKind kind, const std::string& what) {
  int last = -1;
  for (size_t k = 0; k < r.ops.size(); ++k)
    if (r.ops[k].kind == kind && r.comms[r.ops[k].index].what == what) last = static_cast<int>(k);
  return last;
}

TEST(CpSchedules, RingBackwardBringsDkvHomeAfterPHops) {
  const int64_t P = 4;
  for (bool overlap : {true, false}) {
    CpConfig config = make_config({"ring", P}, std::make_shared<const Mask>(make_mask("full", 4096, kKvHeads)));
    config.overlap_dkv_home_hop = overlap;
    const Schedule s = build_schedule(config, Pass::kBackward);
    for (const RankSchedule& r : s.ranks) {
      int dkv_sends = 0, kv_sends = 0;
      for (const Op& op : r.ops)
        if (op.kind == OpKind::kSend) (r.comms[op.index].what == "dkv" ? dkv_sends : kv_sends)++;
      EXPECT_EQ(kv_sends, P - 1);
      EXPECT_EQ(dkv_sends, P);
      const int last_recv = last_comm_op(r, OpKind::kRecv, "dkv");
      ASSERT_GE(last_recv, 0);
      const std::string& landing = s.buffers[r.comms[r.ops[last_recv].index].dst.buffer].name;
      if (!overlap) {
        EXPECT_EQ(landing, "dkv") << "the last hop lands home";
        continue;
      }
      // the last hop lands in the inner buffer the step before sent, then is added into dkv
      EXPECT_EQ(landing, "dkv_inner[0]");
      const Op& add = r.ops.back();
      ASSERT_EQ(add.kind, OpKind::kAdd);
      const MemoryOp& m = r.memory_ops[add.index];
      EXPECT_EQ(s.buffers[m.dst.buffer].name, "dkv");
      EXPECT_EQ(s.buffers[m.src.buffer].name, "dkv_inner[0]");
      auto deps = r.deps(static_cast<int>(r.ops.size()) - 1);
      EXPECT_NE(std::find(deps.begin(), deps.end(), last_recv), deps.end());
    }
  }
}

// For each op of a rank, the ops that must finish before it (stream order and deps, transitively).
std::vector<std::vector<bool>> happens_before(const RankSchedule& r) {
  const size_t n = r.ops.size();
  std::vector<std::vector<bool>> before(n, std::vector<bool>(n, false));
  std::array<int, kNumStreams> last_on{};
  last_on.fill(-1);
  for (size_t k = 0; k < n; ++k) {
    std::vector<int> direct(r.deps(static_cast<int>(k)).begin(), r.deps(static_cast<int>(k)).end());
    int& previous = last_on[static_cast<int>(r.ops[k].stream)];
    if (previous >= 0) direct.push_back(previous);
    previous = static_cast<int>(k);
    for (int d : direct) {
      before[k][d] = true;
      for (size_t j = 0; j < n; ++j)
        if (before[d][j]) before[k][j] = true;
    }
  }
  return before;
}

struct Access {
  int buffer;
  int64_t begin, end;  // rows
  bool write;
};

// The rows each op really touches (compute items: their q rows, k rows and dK/dV rows).
std::vector<Access> accesses_of(const Schedule& s, const RankSchedule& r, const Op& op) {
  auto region = [](const BufferRegion& b, bool write) {
    return Access{b.buffer, b.row_begin, b.row_begin + b.rows, write};
  };
  switch (op.kind) {
    case OpKind::kCompute: {
      const ComputeItem& item = r.items[op.index];
      const QSide& side = s.q_sides[item.q_side];
      const bool fwd = s.pass == Pass::kForward;
      std::vector<Access> a{{item.q_buffer, item.q_rows.begin, item.q_rows.end, false},
                            {item.k_buffer, item.k_rows.begin, item.k_rows.end, false},
                            {side.out, item.q_rows.begin, item.q_rows.end, fwd},
                            {side.lse, item.q_rows.begin, item.q_rows.end, fwd}};
      if (!fwd) {
        a.push_back({side.dout, item.q_rows.begin, item.q_rows.end, false});
        a.push_back({side.dq, item.q_rows.begin, item.q_rows.end, true});
        a.push_back({item.grad_buffer, item.grad_row_begin, item.grad_row_begin + item.k_rows.length(), true});
      }
      return a;
    }
    case OpKind::kZero: return {region(r.memory_ops[op.index].dst, true)};
    case OpKind::kAdd: return {region(r.memory_ops[op.index].src, false), region(r.memory_ops[op.index].dst, true)};
    case OpKind::kSend: return {region(r.comms[op.index].src, false)};
    case OpKind::kRecv: return {region(r.comms[op.index].dst, true)};
    default: return {region(r.comms[op.index].src, false), region(r.comms[op.index].dst, true)};
  }
}

bool is_p2p(OpKind kind) { return kind == OpKind::kSend || kind == OpKind::kRecv; }
bool outer_channel(Stream stream) { return stream == Stream::kOuterSend || stream == Stream::kOuterRecv; }

// The executor issues consecutive send/recv ops of one step on one channel as one NCCL group, which starts once
// all of them may: none of them may wait for another.
void expect_groups_never_wait_inside(const RankSchedule& r) {
  for (size_t first = 0; first < r.ops.size();) {
    size_t last = first;
    if (is_p2p(r.ops[first].kind))
      while (last + 1 < r.ops.size() && is_p2p(r.ops[last + 1].kind) && r.ops[last + 1].step == r.ops[first].step &&
             outer_channel(r.ops[last + 1].stream) == outer_channel(r.ops[first].stream))
        ++last;
    for (size_t k = first; k <= last; ++k)
      for (int32_t d : r.deps(static_cast<int>(k)))
        EXPECT_FALSE(d >= static_cast<int32_t>(first)) << "rank " << r.rank << ": op " << k << " waits for op " << d
                                                       << " of its own NCCL group";
    first = last + 1;
  }
}

// Two ops on different streams that touch the same rows of a buffer, one of them writing, must be ordered by
// the rank's own stream order and deps (then every executor order computes the same).
void expect_no_races(const Schedule& s) {
  for (const RankSchedule& r : s.ranks) {
    expect_groups_never_wait_inside(r);
    const std::vector<std::vector<bool>> before = happens_before(r);
    std::vector<std::vector<Access>> touched;
    for (const Op& op : r.ops) touched.push_back(accesses_of(s, r, op));
    for (size_t j = 0; j < r.ops.size(); ++j)
      for (size_t i = 0; i < j; ++i) {
        if (r.ops[i].stream == r.ops[j].stream || before[j][i]) continue;
        for (const Access& x : touched[i])
          for (const Access& y : touched[j])
            if (x.buffer == y.buffer && (x.write || y.write) && x.begin < y.end && y.begin < x.end) {
              ADD_FAILURE() << "rank " << r.rank << ": ops " << i << " (" << to_string(r.ops[i].kind) << ") and " << j
                            << " (" << to_string(r.ops[j].kind) << ") race on buffer " << s.buffers[x.buffer].name;
              return;
            }
      }
  }
}

// ---- dK, dV data flow ---------------------------------------------------------------------------------------------

// What a row of a dK/dV buffer holds: gradient contributions for one global key token, counted in (q row,
// q head) pairs.
struct GradCell {
  int64_t token = -1;  // -1: nothing yet; -2: contributions of two different tokens were mixed
  int64_t pairs = 0;
  void add(const GradCell& other) {
    if (other.pairs == 0) return;
    if (pairs == 0) {
      *this = other;
      return;
    }
    if (token != other.token) token = -2;
    pairs += other.pairs;
  }
};
using GradRows = std::vector<GradCell>;

// Per local key of an item: the pairs that see it (summed over its head lists, times the q heads each serves).
std::vector<int64_t> key_pairs(const ComputeItem& item, bool per_kv_head) {
  std::vector<int64_t> pairs(item.k_rows.length() + 1, 0);
  const int64_t group = kHeads / kKvHeads;
  for (size_t h = 0; h < item.slices.size(); ++h) {
    int64_t q_count = item.q_heads.count();
    if (per_kv_head) {
      const int64_t kv = item.kv_heads.begin + static_cast<int64_t>(h);
      q_count = std::max<int64_t>(0, std::min(item.q_heads.end, (kv + 1) * group) - std::max(item.q_heads.begin, kv * group));
    }
    for (const Slice& sl : item.slices[h])
      for (int64_t i = sl.q_begin; i < sl.q_end; ++i) {
        const TokenRange keys = sl.keys_of_row(i);
        if (keys.empty()) continue;
        pairs[keys.begin] += q_count;
        pairs[keys.end] -= q_count;
      }
  }
  for (size_t k = 1; k < pairs.size(); ++k) pairs[k] += pairs[k - 1];
  pairs.pop_back();
  return pairs;
}

// Plays the backward schedule's dK/dV buffers symbolically, in an order that respects stream order, deps and
// messages (collectives are skipped: only Ulysses' final all-to-all reads dK/dV, after the ring), and returns
// every rank's dK/dV buffers at the end. Fails when the schedule cannot finish.
std::vector<std::map<int, GradRows>> play_grads(const Schedule& s) {
  const bool per_kv_head = s.config.workload.mask->is_per_kv_head();
  std::vector<std::map<int, GradRows>> state(s.gpus());
  for (int r = 0; r < s.gpus(); ++r)
    for (const Buffer& b : s.buffers)
      if (b.role == BufferRole::kDKV) state[r][b.id].assign(b.tokens, GradCell{});
  std::vector<std::vector<bool>> done(s.gpus());
  std::map<std::pair<int, int>, GradRows> mailbox;  // (rank, send op) -> rows sent
  for (int r = 0; r < s.gpus(); ++r) done[r].assign(s.ranks[r].ops.size(), false);
  auto rows_of = [&](int r, const BufferRegion& b) -> GradRows* {
    auto it = state[r].find(b.buffer);
    return it == state[r].end() ? nullptr : &it->second;
  };
  auto can_run = [&](int r, int k) -> bool {
    const RankSchedule& rs = s.ranks[r];
    for (int j = k - 1; j >= 0; --j)
      if (rs.ops[j].stream == rs.ops[k].stream) {
        if (!done[r][j]) return false;
        break;
      }
    for (int32_t d : rs.deps(k))
      if (!done[r][d]) return false;
    if (rs.ops[k].kind == OpKind::kRecv) {
      const CommOp& c = rs.comms[rs.ops[k].index];
      return done[c.peer][c.peer_op];
    }
    return true;
  };
  auto run = [&](int r, int k) {
    const RankSchedule& rs = s.ranks[r];
    const Op& op = rs.ops[k];
    if (op.kind == OpKind::kCompute) {
      const ComputeItem& item = rs.items[op.index];
      GradRows& grads = state[r].at(item.grad_buffer);
      const std::vector<int64_t> pairs = key_pairs(item, per_kv_head);
      for (int64_t key = 0; key < item.k_rows.length(); ++key)
        grads.at(item.grad_row_begin + key)
            .add({s.token_maps[item.k_map].global_of(item.k_rows.begin + key), pairs[key]});
    } else if (op.kind == OpKind::kZero || op.kind == OpKind::kAdd) {
      const MemoryOp& m = rs.memory_ops[op.index];
      if (GradRows* dst = rows_of(r, m.dst)) {
        for (int64_t i = 0; i < m.dst.rows; ++i) {
          GradCell& cell = dst->at(m.dst.row_begin + i);
          if (op.kind == OpKind::kZero) cell = GradCell{};
          else cell.add(rows_of(r, m.src)->at(m.src.row_begin + i));
        }
      }
    } else if (op.kind == OpKind::kSend) {
      const CommOp& c = rs.comms[op.index];
      if (const GradRows* src = rows_of(r, c.src))
        mailbox[{r, k}] = GradRows(src->begin() + c.src.row_begin, src->begin() + c.src.row_begin + c.src.rows);
    } else if (op.kind == OpKind::kRecv) {
      const CommOp& c = rs.comms[op.index];
      auto sent = mailbox.find({c.peer, c.peer_op});
      if (GradRows* dst = rows_of(r, c.dst); dst && sent != mailbox.end())
        std::copy(sent->second.begin(), sent->second.end(), dst->begin() + c.dst.row_begin);
    }
    done[r][k] = true;
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (int r = 0; r < s.gpus(); ++r)
      for (int k = 0; k < static_cast<int>(s.ranks[r].ops.size()); ++k)
        if (!done[r][k] && can_run(r, k)) {
          run(r, k);
          progress = true;
        }
  }
  for (int r = 0; r < s.gpus(); ++r)
    for (size_t k = 0; k < done[r].size(); ++k)
      EXPECT_TRUE(done[r][k]) << "rank " << r << " op " << k << " never runs";
  return state;
}

// Every rank's dK/dV (in the ring's layout: dkv, or dkv_heads with Ulysses) ends up holding, for every one of its
// key tokens, every (q row, q head) pair of the mask that sees that key among the rank's q heads: exactly once,
// and nothing of other tokens.
void expect_grads_reach_home_once(const Schedule& s) {
  const Mask& mask = *s.config.workload.mask;
  const int64_t S = mask.seqlen(), group = kHeads / kKvHeads;
  std::vector<std::vector<int64_t>> column(mask.num_head_masks(), std::vector<int64_t>(S + 1, 0));
  for (int h = 0; h < mask.num_head_masks(); ++h) {
    for (const Slice& sl : mask.slices(h))
      for (int64_t q = sl.q_begin; q < sl.q_end; ++q) {
        const TokenRange keys = sl.keys_of_row(q);
        if (keys.empty()) continue;
        ++column[h][keys.begin];
        --column[h][keys.end];
      }
    for (int64_t k = 1; k <= S; ++k) column[h][k] += column[h][k - 1];
  }
  const std::vector<std::map<int, GradRows>> state = play_grads(s);
  const bool heads_layout = s.layout.ulysses > 1;
  int home = -1;
  for (const Buffer& b : s.buffers)
    if (b.name == (heads_layout ? "dkv_heads" : "dkv")) home = b.id;
  ASSERT_GE(home, 0);
  for (int r = 0; r < s.gpus(); ++r) {
    const RankSchedule& rs = s.ranks[r];
    ASSERT_FALSE(rs.items.empty());
    const HeadRange q_heads = rs.items[0].q_heads, kv_heads = rs.items[0].kv_heads;
    const TokenMap& map = s.token_maps[heads_layout ? s.gpus() + s.layout.ring_position(r) : r];
    const GradRows& rows = state[r].at(home);
    for (int64_t row = 0; row < map.rows(); ++row) {
      const int64_t g = map.global_of(row);
      int64_t want = 0;
      if (g >= 0) {
        if (!mask.is_per_kv_head()) {
          want = column[0][g] * q_heads.count();
        } else {
          for (int64_t kv = kv_heads.begin; kv < kv_heads.end; ++kv)
            want += column[kv][g] * std::max<int64_t>(0, std::min(q_heads.end, (kv + 1) * group) -
                                                             std::max(q_heads.begin, kv * group));
        }
      }
      const GradCell& cell = rows[row];
      if (cell.pairs != want || (want > 0 && cell.token != g)) {
        FAIL() << "rank " << r << " row " << row << " (token " << g << "): holds " << cell.pairs
               << " pairs of token " << cell.token << ", want " << want;
      }
    }
  }
}

TEST(CpSchedules, NoRacesAndEveryGradientReachesItsHomeOnce) {
  for (const auto& [pattern, mask] : masks_at(kDenseSeqlen))
    for (const Case& c : cases_up_to(8))
      for (bool overlap : {true, false}) {
        CpConfig config = make_config(c, mask);
        config.overlap_dkv_home_hop = overlap;
        SCOPED_TRACE(c.label() + " mask " + pattern + (overlap ? "" : " no dkv home overlap"));
        for (Pass pass : {Pass::kForward, Pass::kBackward}) {
          const Schedule s = build_schedule(config, pass);
          expect_no_races(s);
          if (pass == Pass::kBackward && c.method != "allgather") expect_grads_reach_home_once(s);
        }
        if (::testing::Test::HasFailure()) return;
      }
}

// With the own-block tail, every rank of a ring-engine backward computes the tail of its own block after the
// last ring step, with nothing in its way that waits for the final hop, and adds the final hop into its dK/dV
// after both; head and tail together are the own block, the tail holding about g / (e + g) of it.
TEST(CpSchedules, OwnBlockTailOverlapsTheFinalDkvHop) {
  auto mask = std::make_shared<const Mask>(make_mask("causal", 4096, kKvHeads));
  for (const Case& c : {Case{"ring", 2}, Case{"ring", 3}, Case{"ring", 8}, Case{"usp", 4, 2, 2},
                        Case{"loongtrain", 2, 1, 2, 2}, Case{"loongtrain", 8, 1, 8, 2, Placement::kRingIntra},
                        Case{"loongtrain", 8, 2, 4, 2}}) {
    SCOPED_TRACE(c.label());
    CpConfig config = make_config(c, mask);
    const Schedule s = build_schedule(config, Pass::kBackward);
    config.overlap_dkv_home_hop = false;
    const Schedule plain = build_schedule(config, Pass::kBackward);
    const Stream final_hop = s.layout.windows > 1 ? Stream::kOuterRecv : Stream::kRecv;
    for (const RankSchedule& r : s.ranks) {
      std::vector<int> own;  // compute ops of the own block
      for (size_t k = 0; k < r.ops.size(); ++k) {
        if (r.ops[k].kind != OpKind::kCompute) continue;
        const ComputeItem& item = r.items[r.ops[k].index];
        if (item.k_map == item.q_map) own.push_back(static_cast<int>(k));
      }
      ASSERT_EQ(own.size(), 2u) << "rank " << r.rank << ": head and tail";
      int final_recv = -1;
      for (size_t k = 0; k < r.ops.size(); ++k)
        if (r.ops[k].kind == OpKind::kRecv && r.ops[k].stream == final_hop) final_recv = static_cast<int>(k);
      ASSERT_GE(final_recv, 0);
      const std::vector<std::vector<bool>> before = happens_before(r);
      const int tail = own[1], add = static_cast<int>(r.ops.size()) - 1 - (s.layout.ulysses > 1 ? 1 : 0);
      EXPECT_EQ(r.ops[tail].step, s.num_steps - 1 - (s.layout.ulysses > 1 ? 1 : 0));
      EXPECT_FALSE(before[tail][final_recv]) << "rank " << r.rank << ": the tail must not wait for the final hop";
      ASSERT_EQ(r.ops[add].kind, OpKind::kAdd);
      EXPECT_TRUE(before[add][final_recv] && before[add][tail]);
      const int64_t head_pairs = r.items[r.ops[own[0]].index].pairs, tail_pairs = r.items[r.ops[tail].index].pairs;
      int64_t own_pairs = 0;
      for (const ComputeItem& item : plain.ranks[r.rank].items)
        if (item.k_map == item.q_map) own_pairs += item.pairs;
      EXPECT_EQ(head_pairs + tail_pairs, own_pairs);
      const double share = static_cast<double>(tail_pairs) / static_cast<double>(own_pairs);
      EXPECT_NEAR(share, 4.0 / 6.0, 0.1) << "rank " << r.rank;
    }
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
