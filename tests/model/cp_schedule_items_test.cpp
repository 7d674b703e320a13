// cp::items_of (model/cp/schedule_items.h): an allgather schedule built from the items of the other pass's
// schedule equals the one resolved from the mask, op for op and item for item (slices included), for shared and
// per-kv-head masks, in both directions (forward items into the backward and back).
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include "model/cp/cp_method.h"
#include "model/cp/method_common.h"
#include "model/cp/schedule.h"
#include "model/cp/schedule_items.h"
#include "model/error.h"
#include "model/mask_spec.h"
#include "model/rng.h"

namespace lcab::cp {
namespace {

// Every field of two schedules that a builder fills, rank by rank; empty when the same.
std::string differences(const Schedule& a, const Schedule& b) {
  std::ostringstream out;
  if (a.token_maps.size() != b.token_maps.size() || a.buffers.size() != b.buffers.size() ||
      a.groups.size() != b.groups.size() || a.ranks.size() != b.ranks.size() || a.num_steps != b.num_steps)
    return "different shapes";
  for (size_t m = 0; m < a.token_maps.size(); ++m)
    if (a.token_maps[m].segments != b.token_maps[m].segments) out << " token map " << m;
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    const RankSchedule& x = a.ranks[r];
    const RankSchedule& y = b.ranks[r];
    if (x.ops.size() != y.ops.size() || x.items.size() != y.items.size() || x.comms.size() != y.comms.size() ||
        x.memory_ops.size() != y.memory_ops.size() || x.dep_pool != y.dep_pool) {
      out << " rank " << r << " shape";
      continue;
    }
    for (size_t n = 0; n < x.ops.size(); ++n) {
      const Op& o = x.ops[n];
      const Op& p = y.ops[n];
      if (o.kind != p.kind || o.stream != p.stream || o.step != p.step || o.index != p.index ||
          o.deps_begin != p.deps_begin || o.deps_count != p.deps_count)
        out << " rank " << r << " op " << n;
    }
    for (size_t n = 0; n < x.items.size(); ++n) {
      const ComputeItem& i = x.items[n];
      const ComputeItem& j = y.items[n];
      if (i.q_buffer != j.q_buffer || i.q_rows != j.q_rows || i.k_buffer != j.k_buffer || i.k_rows != j.k_rows ||
          i.q_heads != j.q_heads || i.kv_heads != j.kv_heads || i.q_side != j.q_side || i.slices != j.slices ||
          i.pairs != j.pairs || i.q_map != j.q_map || i.k_map != j.k_map || i.grad_buffer != j.grad_buffer ||
          i.grad_row_begin != j.grad_row_begin)
        out << " rank " << r << " item " << n;
    }
    for (size_t n = 0; n < x.comms.size(); ++n) {
      const CommOp& c = x.comms[n];
      const CommOp& d = y.comms[n];
      if (c.group != d.group || c.chunk_bytes != d.chunk_bytes || c.bytes_sent != d.bytes_sent ||
          c.bytes_received != d.bytes_received)
        out << " rank " << r << " comm " << n;
    }
  }
  return out.str();
}

// An allgather of `gpus` ranks (8 per node) on `mask`, 16 q / 4 kv heads, normalized.
CpConfig allgather_config(const std::shared_ptr<const Mask>& mask, int gpus) {
  CpConfig c;
  c.method = "allgather";
  c.gpus = gpus;
  c.gpus_per_node = 8;
  c.workload.mask = mask;
  c.workload.heads = 16;
  c.workload.kv_heads = 4;
  return normalize_config(c);
}

TEST(CpScheduleItems, AllgatherFromTheOtherPassItemsEqualsResolved) {
  const CpMethod& method = builtin_cp_methods().find("allgather");
  int compared = 0, items = 0;
  for (const char* spec : {"causal_document", "full", "sliding_window:window=512", "block_sparse",
                           "variable_block_sparse:avg_block=256"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    for (int gpus : {2, 8, 32}) {
      const CpConfig config = allgather_config(mask, gpus);
      for (Pass from : {Pass::kForward, Pass::kBackward}) {
        const Pass to = from == Pass::kForward ? Pass::kBackward : Pass::kForward;
        const Schedule source = build_schedule(config, from);
        const Schedule resolved = build_schedule(config, to);
        const Schedule reused = method.build_with_items(config, to, items_of(source));
        EXPECT_EQ(differences(resolved, reused), "") << spec << " P=" << gpus << " " << to_string(to);
        for (const RankSchedule& r : reused.ranks) items += static_cast<int>(r.items.size());
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 30);
  EXPECT_GT(items, 500);
}

// The allgather's resolving maker (CpMethod::resolving_items) gives the items the resolving build makes, item for
// item, and a maker calling it for some ranks only gives those ranks their items and the others none (the rest of
// the schedule unchanged): what a sampled bound builds.
TEST(CpScheduleItems, AllgatherResolvingMakerGivesTheResolvedItems) {
  const CpMethod& method = builtin_cp_methods().find("allgather");
  ASSERT_TRUE(method.resolving_items);
  int compared = 0, items = 0;
  for (const char* spec : {"causal_document", "sliding_window:window=512", "variable_block_sparse:avg_block=256"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    for (int gpus : {2, 8, 32}) {
      const CpConfig config = allgather_config(mask, gpus);
      for (Pass pass : {Pass::kForward, Pass::kBackward}) {
        const Schedule resolved = build_schedule(config, pass);
        const Schedule made = method.build_with_items(config, pass, method.resolving_items(config));
        EXPECT_EQ(differences(resolved, made), "") << spec << " P=" << gpus << " " << to_string(pass);
        const ComputeItemMaker resolving = method.resolving_items(config);
        const auto sampled = [&](int rank) { return rank % 3 == 1; };
        const Schedule some = method.build_with_items(
            config, pass,
            [&](int rank, int step, const TokenMap& q_map, const TokenMap& k_map) -> std::optional<ComputeItem> {
              if (!sampled(rank)) return std::nullopt;
              return resolving(rank, step, q_map, k_map);
            });
        ASSERT_EQ(some.ranks.size(), resolved.ranks.size());
        for (size_t r = 0; r < some.ranks.size(); ++r) {
          const std::vector<ComputeItem>& got = some.ranks[r].items;
          const std::vector<ComputeItem>& want = resolved.ranks[r].items;
          if (!sampled(static_cast<int>(r))) {
            EXPECT_TRUE(got.empty()) << spec << " rank " << r;
            continue;
          }
          ASSERT_EQ(got.size(), want.size()) << spec << " rank " << r;
          for (size_t n = 0; n < got.size(); ++n) {
            EXPECT_EQ(got[n].slices, want[n].slices) << spec << " rank " << r;
            EXPECT_EQ(got[n].q_rows, want[n].q_rows);
            EXPECT_EQ(got[n].k_rows, want[n].k_rows);
            EXPECT_EQ(got[n].pairs, want[n].pairs);
            ++items;
          }
        }
        EXPECT_EQ(some.peak_buffer_bytes(), resolved.peak_buffer_bytes());
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 18);
  EXPECT_GT(items, 50);
}

// The key map an allgather's maker gets at step 1 is every block of the gathered buffer in rank order with the
// rank's own as one pad of t rows, as appending their segments one by one makes it (segment for segment), for every
// sharding the method takes, masks with and without documents.
TEST(CpScheduleItems, AllgatherMakerKeysAreTheOtherBlocksWithTheOwnAsAPad) {
  const CpMethod& method = builtin_cp_methods().find("allgather");
  int compared = 0;
  for (const char* spec : {"causal", "causal_document", "full_document_long"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    for (ShardingKind sharding :
         {ShardingKind::kAuto, ShardingKind::kContiguous, ShardingKind::kZigzag, ShardingKind::kZigzagDocuments}) {
      for (int gpus : {2, 8, 32}) {
        CpConfig c;
        c.method = "allgather";
        c.gpus = gpus;
        c.gpus_per_node = 8;
        c.sharding = sharding;
        c.min_document_chunk_tokens = 16;
        c.workload.mask = mask;
        c.workload.heads = 16;
        c.workload.kv_heads = 4;
        CpConfig config;
        try {
          config = normalize_config(c);
        } catch (const Error&) {
          continue;  // a sharding the method or mask does not take
        }
        const Schedule s = build_schedule(config, Pass::kForward);
        const int64_t t = s.local_tokens;
        method.build_with_items(config, Pass::kForward,
                                [&](int rank, int step, const TokenMap&, const TokenMap& k_map) -> std::optional<ComputeItem> {
                                  if (step != 1) return std::nullopt;
                                  TokenMap expected;
                                  for (int j = 0; j < gpus; ++j) {
                                    if (j == rank) {
                                      expected.append(Segment{-1, t, true});
                                      continue;
                                    }
                                    for (const Segment& seg : s.token_maps[static_cast<size_t>(j)].segments)
                                      expected.append(seg);
                                  }
                                  EXPECT_EQ(k_map.segments, expected.segments)
                                      << spec << " " << to_string(sharding) << " P=" << gpus << " rank " << rank;
                                  ++compared;
                                  return std::nullopt;
                                });
      }
    }
  }
  EXPECT_GT(compared, 300);
}

// sort_by_position orders as std::sort by (q_begin, k_begin) does: lists of distinct positions in runs (as an
// allgather's gathered blocks give them) and shuffled, short and long, rows few and many, and lists with a shared
// position (std::sort's own order of equal elements, taken on the list as given).
TEST(CpScheduleItems, SortByPositionEqualsStdSort) {
  Rng rng(31);
  const auto by_position = [](const Slice& a, const Slice& b) {
    return a.q_begin != b.q_begin ? a.q_begin < b.q_begin : a.k_begin < b.k_begin;
  };
  int counted = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t rows = rng.uniform_int(1, 3000);
    const int64_t blocks = rng.uniform_int(1, 40);
    std::vector<Slice> list;
    for (int64_t b = 0; b < blocks; ++b) {  // block b: keys [1000 b, 1000 b + 1000), a run sorted by position
      std::vector<Slice> run;
      for (int64_t q = 0; q < rows; q += rng.uniform_int(1, 40))
        for (int64_t k = 1000 * b; k < 1000 * (b + 1); k += rng.uniform_int(100, 600)) {
          Slice s;
          s.q_begin = q;
          s.q_end = q + 1;
          s.k_begin = k;
          s.k_end = k + 1;
          s.type = rng.uniform_int(0, 2) == 0 ? SliceType::kFull : SliceType::kCausal;
          run.push_back(s);
        }
      list.insert(list.end(), run.begin(), run.end());
    }
    if (trial % 3 == 1)
      for (size_t i = list.size(); i > 1; --i) std::swap(list[i - 1], list[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(i)))]);
    if (trial % 5 == 2 && list.size() > 2) {  // a shared position: a copy of one slice, another type
      Slice twin = list[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(list.size())))];
      twin.type = twin.type == SliceType::kFull ? SliceType::kCausal : SliceType::kFull;
      list.insert(list.begin() + rng.uniform_int(0, static_cast<int64_t>(list.size())), twin);
    }
    std::vector<Slice> expected = list;
    std::sort(expected.begin(), expected.end(), by_position);
    sort_by_position(list, rows);
    ASSERT_EQ(list.size(), expected.size());
    for (size_t i = 0; i < list.size(); ++i) {
      ASSERT_EQ(list[i].q_begin, expected[i].q_begin) << trial << " " << i;
      ASSERT_EQ(list[i].k_begin, expected[i].k_begin) << trial << " " << i;
      ASSERT_EQ(list[i].type, expected[i].type) << trial << " " << i;
    }
    counted += list.size() >= 64 && static_cast<uint64_t>(rows) <= 4 * list.size() + 1024;
  }
  EXPECT_GT(counted, 100);
}

}  // namespace
}  // namespace lcab::cp
