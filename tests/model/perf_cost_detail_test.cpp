// KernelCostModel::cost_from_tiles with CostDetail::kTimeAndFlops (what the CP item tables ask for) against the
// full cost, and calls that reuse the model's per-thread buffers against fresh ones: random tile counts of the
// built-in lcab_flash forward (q-row items, longest first) and backward (k-column items, grid of long items first),
// from calls whose items all fit on the slots to calls of many items with a few long ones (where the launch order
// sets the makespan).
#include <random>

#include <gtest/gtest.h>

#include "model/perf/kernel_cost.h"

namespace lcab::perf {
namespace {

const HardwareProfile& h100() { return builtin_profile("h100_sxm"); }
KernelParams params_of(const std::string& pass) { return h100().kernel("lcab_flash", pass, 128, "bf16"); }

// Counts of one call: `masks` head masks of `outer` outer tiles each, mostly short, a few `long_tiles` long.
std::vector<OuterTileCounts> random_counts(std::mt19937_64& rng, int64_t masks, int64_t outer, int64_t inner,
                                           int64_t long_tiles, bool partial) {
  std::vector<OuterTileCounts> out(static_cast<size_t>(masks));
  for (OuterTileCounts& c : out) {
    int64_t touched = 0;
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t t = rng() % 16 == 0 ? long_tiles : static_cast<int64_t>(rng() % static_cast<uint64_t>(inner + 1));
      c.tiles.push_back(t);
      if (partial) {
        const int64_t p = t > 0 ? static_cast<int64_t>(rng() % static_cast<uint64_t>(t + 1)) : 0;
        c.partial.push_back(p);
        c.partial_slices.push_back(static_cast<double>(p * static_cast<int64_t>(1 + rng() % 3)));
        c.idle_half.push_back(p > 0 ? static_cast<int64_t>(rng() % static_cast<uint64_t>(p + 1)) : 0);
      }
      touched += t;
    }
    c.area = static_cast<double>(touched) * 128 * 128 - static_cast<double>(rng() % 100);
  }
  return out;
}

void expect_same_time_and_flops(const KernelCost& a, const KernelCost& b, const std::string& what) {
  EXPECT_EQ(a.time_us, b.time_us) << what;
  EXPECT_EQ(a.flops, b.flops) << what;
  EXPECT_EQ(a.pairs, b.pairs) << what;
  EXPECT_EQ(a.full_tiles, b.full_tiles) << what;
  EXPECT_EQ(a.partial_tiles, b.partial_tiles) << what;
  EXPECT_EQ(a.idle_half_tiles, b.idle_half_tiles) << what;
  EXPECT_EQ(a.work_items, b.work_items) << what;
  EXPECT_EQ(a.slots.makespan_us, b.slots.makespan_us) << what;
  EXPECT_EQ(a.launch_us, b.launch_us) << what;
  EXPECT_EQ(a.q_pass_us, b.q_pass_us) << what;
  EXPECT_EQ(a.sustained_us, b.sustained_us) << what;
}

// Time and FLOPs asked for alone are those of the whole cost, for calls with few items (every one on a slot of its
// own: the launch order is skipped) and with many (the order is worked out as for the whole cost).
TEST(PerfCostDetail, TimeAndFlopsEqualTheWholeCost) {
  std::mt19937_64 rng(7);
  int few = 0, many = 0;
  for (const std::string pass : {"fwd", "bwd"}) {
    const KernelCostModel model(h100(), params_of(pass));
    const int64_t tile_q = model.params().tile.q, tile_k = model.params().tile.k;
    const bool columns = model.params().work_item != KernelWorkItem::kQRowPerHead;
    for (int trial = 0; trial < 400; ++trial) {
      const int64_t kv_heads = trial % 3 == 0 ? 1 : 8;
      const int64_t outer = 1 + static_cast<int64_t>(rng() % (trial % 2 == 0 ? 16 : 300));
      const int64_t inner = 1 + static_cast<int64_t>(rng() % 64);
      const std::vector<OuterTileCounts> counts =
          random_counts(rng, kv_heads, outer, inner, inner * 8, trial % 4 == 1);
      const int64_t sq = columns ? inner * 8 * tile_q : outer * tile_q;
      const int64_t sk = columns ? outer * tile_k : inner * 8 * tile_k;
      const AttentionShape shape{1, 8 * kv_heads, kv_heads, 128, 2};
      const KernelCost all = model.cost_from_tiles(counts, sq, sk, shape);
      const KernelCost time = model.cost_from_tiles(counts, sq, sk, shape, CostDetail::kTimeAndFlops);
      expect_same_time_and_flops(all, time, pass + " trial " + std::to_string(trial));
      (all.work_items <= model.slots() ? few : many) += 1;
    }
  }
  EXPECT_GT(few, 100);
  EXPECT_GT(many, 100);
}

// A call made between two equal calls (another model, more items, other buffers' sizes) leaves the second equal to
// the first in every field: the buffers kept between calls carry nothing over.
TEST(PerfCostDetail, ReusedBuffersCarryNothingOver) {
  std::mt19937_64 rng(9);
  const KernelCostModel fwd(h100(), params_of("fwd")), bwd(h100(), params_of("bwd"));
  for (int trial = 0; trial < 100; ++trial) {
    const KernelCostModel& a = trial % 2 ? fwd : bwd;
    const KernelCostModel& b = trial % 2 ? bwd : fwd;
    const AttentionShape shape{1, 64, 8, 128, 2};
    const int64_t outer_a = 1 + static_cast<int64_t>(rng() % 40), outer_b = 1 + static_cast<int64_t>(rng() % 400);
    const std::vector<OuterTileCounts> ca = random_counts(rng, 8, outer_a, 16, 200, trial % 3 == 0);
    const std::vector<OuterTileCounts> cb = random_counts(rng, 8, outer_b, 16, 200, trial % 3 == 1);
    const auto lengths = [](const KernelCostModel& m, int64_t outer) {
      const bool columns = m.params().work_item != KernelWorkItem::kQRowPerHead;
      return columns ? std::pair<int64_t, int64_t>{200 * 128, outer * m.params().tile.k}
                     : std::pair<int64_t, int64_t>{outer * m.params().tile.q, 200 * 128};
    };
    const auto [aq, ak] = lengths(a, outer_a);
    const auto [bq, bk] = lengths(b, outer_b);
    const KernelCost first = a.cost_from_tiles(ca, aq, ak, shape);
    b.cost_from_tiles(cb, bq, bk, shape);
    const KernelCost again = a.cost_from_tiles(ca, aq, ak, shape);
    expect_same_time_and_flops(first, again, "trial " + std::to_string(trial));
    EXPECT_EQ(first.slots.busy_total_us, again.slots.busy_total_us) << trial;
    EXPECT_EQ(first.slots.items, again.slots.items) << trial;
  }
}

}  // namespace
}  // namespace lcab::perf
