#include "model/perf/grid_schedule.h"

#include "model/perf/cp_op_cost.h"
#include "model/perf/grid_item_tiles.h"

namespace lcab::perf {

std::optional<GridSchedule> build_on_grid(const cp::CpMethod& method, const cp::CpConfig& config, cp::Pass pass,
                                          const KernelCostModel& model, const std::shared_ptr<const TileGrid>& grid) {
  if (!method.build_with_items || !grid || !model.tile_counts_determine_cost()) return std::nullopt;
  const KernelParams& p = model.params();
  const bool columns = p.work_item != KernelWorkItem::kQRowPerHead;
  if (grid->shape().q != p.tile.q || grid->shape().k != p.tile.k ||
      grid->lines() != (columns ? TileGrid::Lines::kColumns : TileGrid::Lines::kRows))
    return std::nullopt;
  const int index = static_cast<int>(pass);
  std::array<const TileGrid*, 2> grids{nullptr, nullptr};
  std::array<bool, 2> column_items{false, false};
  grids[index] = grid.get();
  column_items[index] = columns;
  const GridItemTiler tiler(grids, column_items);
  const cp::Workload& wl = config.workload;
  std::vector<int> heads;
  for (int h = 0; h < wl.mask->num_head_masks(); ++h) heads.push_back(h);

  GridSchedule out;
  out.item_costs.resize(static_cast<size_t>(config.gpus));
  bool off_tiles = false;
  const cp::ComputeItemMaker make = [&](int rank, int, const cp::TokenMap& q_map,
                                        const cp::TokenMap& k_map) -> std::optional<cp::ComputeItem> {
    if (off_tiles || !tiler.aligned(q_map, false) || !tiler.aligned(k_map, true)) {
      off_tiles = true;
      return std::nullopt;
    }
    const std::optional<GridItem> counted = tiler.item(q_map, 0, q_map.rows(), k_map, heads);
    if (!counted) return std::nullopt;
    cp::ComputeItem item;
    item.q_rows = counted->q_rows;
    item.k_rows = counted->k_rows;
    item.q_heads = {0, wl.heads};
    item.kv_heads = {0, wl.kv_heads};
    const KernelCost cost = model.cost_from_tiles(counted->counts[static_cast<size_t>(index)], item.q_rows.length(),
                                                  item.k_rows.length(), item_shape(item, wl));
    item.pairs = static_cast<int64_t>(cost.pairs) / wl.batch;  // every head: pairs over q heads, per batch element
    out.item_costs[static_cast<size_t>(rank)].push_back(cost);
    return item;
  };
  out.schedule = method.build_with_items(config, pass, make);
  if (off_tiles) return std::nullopt;
  return out;
}

}  // namespace lcab::perf
