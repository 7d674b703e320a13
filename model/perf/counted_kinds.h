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

/// Whether looking item contents up still pays: after kProbeLookups lookups, lookups stop for good when fewer than
/// one in kMinHitShare found a kept content, and every later content is costed as a new one (the same results:
/// equal contents cost the same). Tables whose items rarely repeat (random block patterns at large ring degrees:
/// every one of the million items of variable_block_sparse 1M at R = 1024 is new) then skip keying, hashing and
/// keeping them.
class LookupGate {
 public:
  static constexpr int64_t kProbeLookups = 4096;
  static constexpr int64_t kMinHitShare = 64;
  bool open() const { return lookups_ < kProbeLookups || hits_ * kMinHitShare >= lookups_; }
  void record(bool hit) {
    ++lookups_;
    hits_ += hit ? 1 : 0;
  }

 private:
  int64_t lookups_ = 0;
  int64_t hits_ = 0;
};

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
