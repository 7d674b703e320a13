// Schedules of methods with an item maker (cp::CpMethod::build_with_items: allgather) whose compute items are
// counted on a tile grid (grid_item_tiles.h) instead of resolved from the mask: the same schedule without slices
// in its items, and the kernel cost of every item for CpCostModels::item_kernel_costs. An allgather rank's step-1
// item holds every other rank's slices, so resolving it for every candidate and pass copies the whole mask (86M
// slices for block_sparse at 1M tokens); counted on the grid it costs O(rows x segments x words).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "model/cp/cp_method.h"
#include "model/mask_tile_grid.h"
#include "model/perf/kernel_cost.h"

namespace lcab::perf {

struct GridSchedule {
  cp::Schedule schedule;                               ///< items with rows, heads and pairs; no slices
  std::vector<std::vector<KernelCost>> item_costs;     ///< [rank][item index]: `model`'s cost of each item
};

/// The schedule of a normalized config of `method` for the pass of `model`, with items counted on `grid` (the
/// workload mask's grid for the model's tile shape and work item). std::nullopt when the path does not apply: the
/// method has no item maker, there is no grid, the model's costs are not a function of tile counts, or a rank's
/// rows are off the tiles. sample: when given, only the ranks r with sample[r] set get their items (the others
/// none: a schedule for a lower bound of the pass), though every rank's rows are checked to be on the tiles.
std::optional<GridSchedule> build_on_grid(const cp::CpMethod& method, const cp::CpConfig& config, cp::Pass pass,
                                          const KernelCostModel& model, const std::shared_ptr<const TileGrid>& grid,
                                          const std::vector<uint8_t>* sample = nullptr);

/// The kernel cost of every compute item of `schedule` (items with their slices) under each model given (indexed by
/// pass; a null one left out): [pass][rank][index into the rank's items], each what simulate() takes from the
/// item's slices (item_kernel_cost). An item whose slices are all FULL for every model given is counted for all of
/// them in one FullSliceTiler call (its bands made once). Lets a method whose items do not depend on the pass
/// (allgather) cost them once for both passes and drop their slices.
std::array<std::vector<std::vector<KernelCost>>, 2> item_costs_of(const cp::Schedule& schedule,
                                                                  const std::array<const KernelCostModel*, 2>& models);

}  // namespace lcab::perf
