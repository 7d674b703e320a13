// Item contents known by their tile counts, for costing each content once: two items with equal rows, heads and
// tile counts (OuterTileCounts of every head list and pass) cost the same under KernelCostModel::cost_from_tiles.
// Used by the item tables of ring_item_costs.h, whose millions of items at large ring degrees repeat a few count
// patterns. Contents are kept within a budget of values; past it, new contents are costed without being kept (the
// same results, more work).
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/perf/kernel_cost.h"

namespace lcab::perf {

class CountedKinds {
 public:
  static constexpr size_t kMaxKeptValues = size_t{1} << 23;
  /// The key of an item: its q and k rows, its heads, then every head list's counts of every pass (in order).
  static void make_key(std::vector<int64_t>& key, int64_t q_rows, int64_t k_rows, const AttentionShape& shape,
                       const std::array<std::vector<OuterTileCounts>, 2>& counts);
  /// The kind kept for `key`, or -1.
  int32_t find(const std::vector<int64_t>& key) const;
  /// Keeps `key` as `kind` (unless the budget is spent).
  void keep(const std::vector<int64_t>& key, int32_t kind);

 private:
  static uint64_t hash(const std::vector<int64_t>& key);
  std::unordered_map<uint64_t, std::vector<std::pair<std::vector<int64_t>, int32_t>>> by_hash_;
  size_t kept_values_ = 0;
};

}  // namespace lcab::perf
