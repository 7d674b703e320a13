// perf::grid_launch_order: the launch order shared by lcab_flash's Hopper backward and the kernel cost model.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "model/error.h"
#include "model/perf/grid_launch_order.h"
#include "model/rng.h"

namespace lcab::perf {
namespace {

TEST(PerfGridLaunchOrder, KeepsTheGivenOrderWhenNoItemIsLong) {
  // Total 25 on one slot: an item would need a key of 25 / 4 to move.
  const std::vector<int64_t> keys = {5, 4, 6, 5, 5};
  EXPECT_EQ(grid_launch_order(keys, 1), (std::vector<int32_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(grid_launch_promotes(6, 25, 1));
  // Items without work never move, however many slots there are.
  EXPECT_EQ(grid_launch_order(std::vector<int64_t>{0, 0}, 100), (std::vector<int32_t>{0, 1}));
  EXPECT_FALSE(grid_launch_promotes(0, 0, 100));
}

TEST(PerfGridLaunchOrder, LongItemsOfEveryHeadGoFirstCostliestFirst) {
  // Two heads, head-major, 3 slots: total 88, so keys of at least 88 / 12 move (both heads' 17s, 13s and 9s),
  // costliest first, ahead of the rest.
  const std::vector<int64_t> keys = {17, 13, 9, 5, 17, 13, 9, 5};
  EXPECT_EQ(grid_launch_order(keys, 3), (std::vector<int32_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_TRUE(grid_launch_promotes(17, 88, 3));
  // The moved items are sorted by key (equal keys in the given order); the others keep theirs.
  EXPECT_EQ(grid_launch_order(std::vector<int64_t>{3, 8, 1, 8}, 4), (std::vector<int32_t>{1, 3, 0, 2}));
  EXPECT_THROW(grid_launch_order(keys, 0), Error);
}

// The order as first written (std::stable_partition of the long items, then std::stable_sort of them by key) on
// random keys: lists of a few to thousands of items, keys spanning few values (sorted by counting) or many.
TEST(PerfGridLaunchOrder, EqualsStablePartitionThenStableSort) {
  Rng rng(21);
  std::vector<int32_t> reused_order, reused_short;
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t n = rng.uniform_int(1, 3000);
    const int64_t width = trial % 4 == 0 ? int64_t{1} << 30 : rng.uniform_int(1, 50);
    std::vector<int64_t> keys;
    for (int64_t i = 0; i < n; ++i) keys.push_back(rng.uniform_int(0, width));
    if (trial % 2 == 0) keys[static_cast<size_t>(rng.uniform_int(0, n))] += 5000 * width;  // one long item at least
    const int64_t slots = rng.uniform_int(1, 300);
    int64_t total = 0;
    for (int64_t k : keys) total += k;
    std::vector<int32_t> expected(keys.size());
    std::iota(expected.begin(), expected.end(), 0);
    const auto first_short = std::stable_partition(expected.begin(), expected.end(), [&](int32_t i) {
      const int64_t k = keys[static_cast<size_t>(i)];
      return k > 0 && static_cast<double>(k) * 4.0 * static_cast<double>(slots) >= static_cast<double>(total);
    });
    std::stable_sort(expected.begin(), first_short, [&](int32_t a, int32_t b) {
      return keys[static_cast<size_t>(a)] > keys[static_cast<size_t>(b)];
    });
    EXPECT_EQ(grid_launch_order(keys, slots), expected) << trial;
    // The same into buffers that still hold an earlier call's order (the kernel cost model reuses them).
    grid_launch_order_into(keys, slots, reused_order, reused_short);
    EXPECT_EQ(reused_order, expected) << trial;
  }
}

}  // namespace
}  // namespace lcab::perf
