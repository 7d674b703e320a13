#include "model/perf/grid_launch_order.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "model/error.h"

namespace lcab::perf {
namespace {

// EXPERIMENT: LCAB_GRID_PROMOTE_FACTOR overrides 2 (items with factor x slots x key >= total go first).
double promote_factor() {
  static const double factor = [] {
    const char* text = std::getenv("LCAB_GRID_PROMOTE_FACTOR");
    return text ? std::atof(text) : 2.0;
  }();
  return factor;
}

}  // namespace

bool grid_launch_promotes(int64_t max_key, int64_t total_key, int64_t slots) {
  return max_key > 0 && static_cast<double>(max_key) * promote_factor() * static_cast<double>(slots) >= static_cast<double>(total_key);
}

std::vector<int32_t> grid_launch_order(std::span<const int64_t> keys, int64_t slots) {
  LCAB_CHECK(slots > 0, "grid launch order: slots must be positive, got " << slots);
  LCAB_CHECK(keys.size() < (size_t(1) << 31), "grid launch order: " << keys.size() << " items do not fit 32 bits");
  std::vector<int32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  int64_t total = 0;
  for (int64_t k : keys) total += k;
  const auto is_long = [&](int32_t i) {
    return static_cast<double>(keys[static_cast<size_t>(i)]) * promote_factor() * static_cast<double>(slots) >=
           static_cast<double>(total) && keys[static_cast<size_t>(i)] > 0;
  };
  const auto first_short = std::stable_partition(order.begin(), order.end(), is_long);
  std::stable_sort(order.begin(), first_short,
                   [&](int32_t a, int32_t b) { return keys[static_cast<size_t>(a)] > keys[static_cast<size_t>(b)]; });
  return order;
}

}  // namespace lcab::perf
