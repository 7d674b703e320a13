// Item-cost tables of ulysses/ring programs (ring_item_costs.h) shared by many predictions: every candidate of a
// plan with the same sharding and heads per Ulysses member (usp and loongtrain, both placements, every window
// count, forward and backward) uses one table, whichever worker thread predicts it.
#pragma once

#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/perf/ring_item_costs.h"

namespace lcab::perf {

class RingItemCostCache {
 public:
  /// The table of `program`'s items costed with `forward` and/or `backward` (kernel models of the implementation
  /// and dtype named by `kernel`; null for a pass not needed) and the executor's pass bandwidth. Made once per
  /// content key by the first thread that asks; others asking meanwhile wait for it. Thread-safe. Keeps the
  /// workload's mask alive while cached. costed: the positions to cost (RingItemCosts' `costed`; empty: all): a
  /// sample is a table of its own, kept beside the whole one.
  std::shared_ptr<const RingItemCosts> get(const cp::UlyssesRingProgram& program, const std::string& kernel,
                                           const KernelCostModel* forward, const KernelCostModel* backward,
                                           double pass_bytes_per_s, const std::vector<int64_t>& costed = {});
  /// Tables kept at most (the oldest is dropped first).
  static constexpr size_t kMaxTables = 64;
  /// The tile grid of `mask` for a kernel model's tile shape and work item (lines kRows for q-row items, else
  /// kColumns), made once per mask and shape (null when the mask is not tile-aligned for it). Thread-safe; kept
  /// while the cache lives (the masks of kMaxGridMasks at most, the oldest dropped first). Sharing one cache over
  /// the plans of a sweep makes each mask's grids once for every GPU count.
  std::shared_ptr<const TileGrid> grid(const std::shared_ptr<const Mask>& mask, const KernelCostModel& model);
  static constexpr size_t kMaxGridMasks = 2;

 private:
  struct Entry {
    std::shared_ptr<const Mask> mask;  // the key holds its address
    std::shared_future<std::shared_ptr<const RingItemCosts>> table;
  };
  struct GridEntry {
    std::shared_ptr<const Mask> mask;
    std::shared_future<std::shared_ptr<const TileGrid>> grid;
  };
  std::mutex mutex_;
  std::map<std::string, GridEntry> grids_;
  std::deque<const Mask*> grid_masks_;  // masks with grids, oldest first
  std::map<std::string, Entry> tables_;
  std::deque<std::string> order_;  // keys, oldest first
};

}  // namespace lcab::perf
