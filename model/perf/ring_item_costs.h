// The compute items of a ulysses/ring program, costed once: for every ring position and every source KV block,
// the item's key rows and its compute op's time, FLOPs and workspace in each pass asked for; when the backward
// cuts the own KV block (UlyssesRingProgram::cuts_own_block), also the head and tail of each position's own block.
//
// Items are the program's own (UlyssesRingProgram::item), so they are exactly the items the materialized schedule
// holds; Ulysses members whose items are identical (every member for a shared mask, the members reading the same
// kv heads for a per-kv-head mask) share one group. Equal contents are costed once (by content, within a memory
// budget). A table depends only on the sharding (R, U, sharding kind), the heads and the kernel models, so one
// table serves forward and backward and every usp / loongtrain candidate with the same degrees (both placements,
// every window count): at 1M tokens and R = 1024 it is the R^2 = 1M items that the planner would otherwise resolve
// and cost again for every candidate and pass.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "model/cp/ulysses_ring_program.h"
#include "model/mask_tile_grid.h"
#include "model/perf/kernel_cost.h"

namespace lcab::perf {

class RingItemCosts {
 public:
  /// What one item costs in one pass.
  struct Cost {
    double time_us = 0;           ///< the compute op's time: kernel plus the executor's passes (compute_op_us)
    double flops = 0;
    int64_t workspace_bytes = 0;  ///< attention_workspace_bytes of the call
  };

  /// Costs every item of `program` (either pass's program of a config: items do not depend on the pass) with the
  /// kernel model of each pass asked for; a null model leaves that pass out. pass_bytes_per_s: the executor's
  /// pass bandwidth (CpCostModels::hbm_bytes_per_s).
  /// grids: tile grids of the workload's mask for each pass's model (TileGridCache::grids_for); when every one
  /// asked for exists, every ring position's rows are aligned to their tiles and the models' costs depend on tile
  /// counts only, items are counted on the grids (grid_item_tiles.h) instead of resolved into slices: the same
  /// key rows and costs, without touching every slice of the mask.
  ///
  /// costed: the ring positions whose rows (every group's items at that position, own-block parts included) are
  /// costed, ascending and distinct; empty: every position. A table of some positions is a sample for a lower
  /// bound of the pass (sampled_bound_lockstep): its other positions read as if they had no item, so it must never
  /// be played (complete() is false; simulate_lockstep and bound_lockstep refuse it).
  RingItemCosts(const cp::UlyssesRingProgram& program, const KernelCostModel* forward,
                const KernelCostModel* backward, double pass_bytes_per_s,
                std::array<std::shared_ptr<const TileGrid>, 2> grids = {}, std::vector<int64_t> costed = {});

  int64_t positions() const { return positions_; }
  int groups() const { return static_cast<int>(group_members_.size()); }
  /// The group of Ulysses member u.
  int group_of(int64_t u) const { return group_of_member_.at(static_cast<size_t>(u)); }
  /// True when the table was costed for `pass`.
  bool has_pass(cp::Pass pass) const { return has_pass_[static_cast<int>(pass)]; }
  /// True when every position's rows were costed (the table may be played).
  bool complete() const { return static_cast<int64_t>(costed_.size()) == positions_; }
  /// True when the rows of `position` were costed.
  bool costs_position(int64_t position) const;
  /// The ring positions whose rows were costed, ascending.
  const std::vector<int64_t>& costed_positions() const { return costed_; }
  /// The largest workspace any item of the program can have in `pass` (the pass must have been asked for): that of
  /// an item of the group with the most heads whose q rows span the most rows of a position's q buffer from its
  /// first row that is not a pad to its last (an item's rows, and an own-block part's, lie within its position's
  /// buffer and have cells, which pads never have; attention_workspace_bytes grows with them). A sample whose items
  /// reach it has found the whole table's largest workspace.
  int64_t workspace_limit(cp::Pass pass) const;

  /// The item (or its `part`: kOwnHead / kOwnTail with source == position, when the program cuts the own block)
  /// of group g at ring position `position` against the KV block of `source`: its key rows in that block, or
  /// std::nullopt when it has no cell.
  std::optional<TokenRange> key_rows(int group, int64_t position, int64_t source,
                                     cp::RingItemPart part = cp::RingItemPart::kWhole) const;
  /// Its cost in `pass`; the item must exist and the pass must have been asked for.
  const Cost& cost(cp::Pass pass, int group, int64_t position, int64_t source,
                   cp::RingItemPart part = cp::RingItemPart::kWhole) const;

  /// A position's items against every source block, as the bound of a pass reads them (bound_lockstep): the sum
  /// of their times in `pass`, added in source order (the own block as its head then its tail when `cut_own` and
  /// the table holds a tail for it, as UlyssesRingProgram's backward plays it; items without a cell left out), and
  /// the largest workspace among them. Summed once when the table is made, in the order the bound would sum them,
  /// so equal to that sum bit for bit without reading R entries R apart.
  struct RowTotal {
    double attention_us = 0;
    int64_t workspace_bytes = 0;
  };
  const RowTotal& row_total(cp::Pass pass, int group, int64_t position, bool cut_own) const;

  size_t distinct_items() const { return kinds_; }
  /// True when the items were counted on tile grids.
  bool counted_on_grids() const { return on_grids_; }
  /// Slices kept for deduplication; past this, new contents are costed without being kept (same results).
  static constexpr size_t kMaxKeptSlices = size_t{1} << 20;

 private:
  struct Entry {
    int32_t kind = -1;  ///< index into costs_; -1: fully masked
    int32_t k_begin = 0;
    int32_t k_end = 0;
  };
  size_t index(int group, int64_t position, int64_t source) const;
  /// The grid path of the constructor (false, having done nothing, when it does not apply).
  bool cost_on_grids(const cp::UlyssesRingProgram& program, const std::array<const KernelCostModel*, 2>& models,
                     double pass_bytes_per_s, const std::array<std::shared_ptr<const TileGrid>, 2>& grids);
  const Entry& entry(int group, int64_t position, int64_t source, cp::RingItemPart part) const;
  /// Fills costed_ with every position when it was given empty; checks a given list.
  void set_costed_positions();
  /// Sets workspace_limit_ for the passes of `models`.
  void set_workspace_limits(const cp::UlyssesRingProgram& program, const std::array<const KernelCostModel*, 2>& models);
  /// Sets row_totals_ of (group, position) from the kinds of its items by source (own parts already set).
  void total_row(int group, int64_t position, const std::vector<int32_t>& kind_by_source);

  int64_t positions_ = 0;
  std::vector<int> group_of_member_;
  std::vector<int64_t> group_members_;  ///< a representative Ulysses member per group
  std::vector<Entry> entries_;          ///< [group][(position - source) mod R][position]
  std::vector<Entry> own_parts_;        ///< [group][position][head, tail] when the own block is cut
  std::array<std::vector<Cost>, 2> costs_;  ///< [pass][kind]
  std::array<std::vector<RowTotal>, 2> row_totals_;  ///< [pass][group][position][cut_own]
  std::array<bool, 2> has_pass_{false, false};
  std::vector<int64_t> costed_;               ///< positions whose rows are costed, ascending
  std::array<int64_t, 2> workspace_limit_{0, 0};  ///< [pass]
  size_t kinds_ = 0;
  bool on_grids_ = false;
};

}  // namespace lcab::perf
