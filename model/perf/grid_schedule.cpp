#include "model/perf/grid_schedule.h"

#include "model/perf/cp_op_cost.h"
#include "model/perf/cp_simulator.h"
#include "model/perf/full_slice_tiles.h"
#include "model/perf/grid_item_tiles.h"

namespace lcab::perf {

std::optional<GridSchedule> build_on_grid(const cp::CpMethod& method, const cp::CpConfig& config, cp::Pass pass,
                                          const KernelCostModel& model, const std::shared_ptr<const TileGrid>& grid,
                                          const std::vector<uint8_t>* sample) {
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
  std::array<bool, 2> spans{false, false};
  spans[index] = columns && p.scheduler == KernelScheduler::kGridPairedDocuments;
  const GridItemTiler tiler(grids, column_items, spans);
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
    if (sample && !(*sample)[static_cast<size_t>(rank)]) return std::nullopt;
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

std::array<std::vector<std::vector<KernelCost>>, 2> item_costs_of(const cp::Schedule& schedule,
                                                                  const std::array<const KernelCostModel*, 2>& models) {
  std::array<std::vector<std::vector<KernelCost>>, 2> out;
  for (int pass = 0; pass < 2; ++pass)
    if (models[pass]) out[pass].resize(schedule.ranks.size());
  FullSliceTiler tiler;
  std::array<std::vector<OuterTileCounts>, 2> counts;
  for (size_t r = 0; r < schedule.ranks.size(); ++r) {
    for (const cp::ComputeItem& item : schedule.ranks[r].items) {
      const AttentionShape shape = item_shape(item, schedule.config.workload);
      const int64_t q_rows = item.q_rows.length(), k_rows = item.k_rows.length();
      bool counted = true;
      for (int pass = 0; pass < 2; ++pass)
        counted = counted && (!models[pass] || FullSliceTiler::applies(*models[pass], item.slices));
      if (counted) tiler.count(item.slices, q_rows, k_rows, models, counts);
      for (int pass = 0; pass < 2; ++pass) {
        if (!models[pass]) continue;
        out[pass][r].push_back(counted ? models[pass]->cost_from_tiles(counts[pass], q_rows, k_rows, shape)
                                       : item_kernel_cost(*models[pass], item, shape, tiler));
      }
    }
  }
  return out;
}

}  // namespace lcab::perf
