// perf::grid_launch_order: the launch order shared by lcab_flash's Hopper backward and the kernel cost model.
#include <gtest/gtest.h>

#include <vector>

#include "model/error.h"
#include "model/perf/grid_launch_order.h"

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

}  // namespace
}  // namespace lcab::perf
