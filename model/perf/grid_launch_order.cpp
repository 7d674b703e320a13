#include "model/perf/grid_launch_order.h"

#include <algorithm>

#include "model/error.h"
#include "model/perf/stable_sort_small.h"

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
  std::vector<int32_t> order, short_items;
  grid_launch_order_into(keys, slots, order, short_items);
  return order;
}

void grid_launch_order_into(std::span<const int64_t> keys, int64_t slots, std::vector<int32_t>& order,
                            std::vector<int32_t>& short_items) {
  LCAB_CHECK(slots > 0, "grid launch order: slots must be positive, got " << slots);
  LCAB_CHECK(keys.size() < (size_t(1) << 31), "grid launch order: " << keys.size() << " items do not fit 32 bits");
  int64_t total = 0;
  for (int64_t k : keys) total += k;
  // The long items in their order, then the short ones in theirs (a stable partition); the long ones then sorted
  // by decreasing key, ties in order (a stable sort: by counting where the keys span few values).
  order.clear();
  short_items.clear();
  order.reserve(keys.size());
  for (int32_t i = 0; i < static_cast<int32_t>(keys.size()); ++i)
    (is_long(keys[static_cast<size_t>(i)], total, slots) ? order : short_items).push_back(i);
  stable_sort_by_key_descending(order, [&](int32_t i) { return keys[static_cast<size_t>(i)]; });
  order.insert(order.end(), short_items.begin(), short_items.end());
}

}  // namespace lcab::perf
