#include "model/perf/grid_launch_order.h"

#include <algorithm>
#include <numeric>

#include "model/error.h"

namespace lcab::perf {
namespace {

// An item is long when kLongFactor x slots x key >= the sum of keys, i.e. its key reaches 1/kLongFactor of the mean
// load per slot. Measured on an H100 (README, "The backward's launch order"): 2 moves too few items (a causal mask
// at 8K keeps most of its imbalance), 16 and more interleave the kv heads of document masks at 16K-32K, whose CTAs
// then no longer share rows in L2 (8-17% slower); 4 keeps the gains at 4K-16K without those losses.
constexpr double kLongFactor = 4.0;

bool is_long(int64_t key, int64_t total_key, int64_t slots) {
  return key > 0 && static_cast<double>(key) * kLongFactor * static_cast<double>(slots) >= static_cast<double>(total_key);
}

}  // namespace

bool grid_launch_promotes(int64_t max_key, int64_t total_key, int64_t slots) {
  return is_long(max_key, total_key, slots);
}

std::vector<int32_t> grid_launch_order(std::span<const int64_t> keys, int64_t slots) {
  LCAB_CHECK(slots > 0, "grid launch order: slots must be positive, got " << slots);
  LCAB_CHECK(keys.size() < (size_t(1) << 31), "grid launch order: " << keys.size() << " items do not fit 32 bits");
  std::vector<int32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  int64_t total = 0;
  for (int64_t k : keys) total += k;
  const auto long_item = [&](int32_t i) { return is_long(keys[static_cast<size_t>(i)], total, slots); };
  const auto first_short = std::stable_partition(order.begin(), order.end(), long_item);
  std::stable_sort(order.begin(), first_short,
                   [&](int32_t a, int32_t b) { return keys[static_cast<size_t>(a)] > keys[static_cast<size_t>(b)]; });
  return order;
}

}  // namespace lcab::perf
