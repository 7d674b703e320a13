// RingItemCosts counted on tile grids (the grid path of its constructor; ring_item_costs.h).
#include "model/error.h"
#include "model/perf/counted_kinds.h"
#include "model/perf/cp_op_cost.h"
#include "model/perf/grid_item_tiles.h"
#include "model/perf/ring_item_costs.h"

namespace lcab::perf {

bool RingItemCosts::cost_on_grids(const cp::UlyssesRingProgram& program,
                                  const std::array<const KernelCostModel*, 2>& models, double pass_bytes_per_s,
                                  const std::array<std::shared_ptr<const TileGrid>, 2>& grids) {
  std::array<const TileGrid*, 2> used{nullptr, nullptr};
  std::array<bool, 2> column_items{false, false};
  for (int pass = 0; pass < 2; ++pass) {
    if (!models[pass]) continue;
    const KernelParams& p = models[pass]->params();
    column_items[pass] = p.work_item != KernelWorkItem::kQRowPerHead;
    const TileGrid* g = grids[pass].get();
    if (!g || !models[pass]->tile_counts_determine_cost() || g->shape().q != p.tile.q || g->shape().k != p.tile.k ||
        g->lines() != (column_items[pass] ? TileGrid::Lines::kColumns : TileGrid::Lines::kRows))
      return false;
    if (program.cuts_own_block() && cp::UlyssesRingProgram::kOwnCutRowAlign % p.tile.q != 0) return false;
    used[pass] = g;
  }
  std::array<bool, 2> spans{false, false};
  for (int pass = 0; pass < 2; ++pass)
    spans[pass] = used[pass] && column_items[pass] &&
                  models[pass]->params().scheduler == KernelScheduler::kGridPairedDocuments;
  const GridItemTiler tiler(used, column_items, spans);
  const std::vector<cp::TokenMap>& positions = program.sharding().positions;
  for (const cp::TokenMap& map : positions)
    if (!tiler.aligned(map, false) || !tiler.aligned(map, true)) return false;
  on_grids_ = true;

  const cp::Workload& wl = program.skeleton().config.workload;
  const bool per_head = wl.mask->is_per_kv_head();
  std::vector<std::vector<int>> lists(static_cast<size_t>(groups()));
  for (int g = 0; g < groups(); ++g) {
    const cp::HeadRange kv = program.kv_heads(group_members_[static_cast<size_t>(g)]);
    if (!per_head) lists[static_cast<size_t>(g)] = {0};
    else
      for (int64_t h = kv.begin; h < kv.end; ++h) lists[static_cast<size_t>(g)].push_back(static_cast<int>(h));
  }
  CountedKinds kinds;
  LookupGate gate;
  std::vector<int64_t> key;
  const auto entry_of = [&](const GridItem* item, int g) {
    if (!item) return Entry{};
    const int64_t u = group_members_[static_cast<size_t>(g)];
    cp::ComputeItem ci;  // what the executor's passes and the shape read: rows and heads
    ci.q_rows = item->q_rows;
    ci.k_rows = item->k_rows;
    ci.q_heads = program.q_heads(u);
    ci.kv_heads = program.kv_heads(u);
    const AttentionShape shape = item_shape(ci, wl);
    const int64_t q_rows = ci.q_rows.length(), k_rows = ci.k_rows.length();
    const bool look_up = gate.open();
    int32_t kind = -1;
    if (look_up) {
      CountedKinds::make_key(key, q_rows, k_rows, shape, item->counts);
      kind = kinds.find(key);
      gate.record(kind >= 0);
    }
    if (kind < 0) {
      kind = static_cast<int32_t>(kinds_++);
      for (int pass = 0; pass < 2; ++pass) {
        if (!models[pass]) continue;
        const KernelCost c =
            models[pass]->cost_from_tiles(item->counts[pass], q_rows, k_rows, shape, CostDetail::kTimeAndFlops);
        const double us = compute_op_us(c.time_us, ci, static_cast<cp::Pass>(pass), wl, pass_bytes_per_s);
        costs_[pass].push_back({us, c.flops, attention_workspace_bytes(shape, q_rows, k_rows, models[pass]->pass())});
      }
      if (look_up) kinds.keep(key, kind);
    }
    return Entry{kind, static_cast<int32_t>(ci.k_rows.begin), static_cast<int32_t>(ci.k_rows.end)};
  };

  const int64_t R = positions_;
  const int64_t rows = program.sharding().rows_per_position;
  GridItemScratch scratch;
  GridItem counted, own_head;  // reused by every item: nothing allocated once their buffers have grown
  const auto item_of = [&](const cp::TokenMap& q_map, int64_t q_begin, int64_t q_end, const cp::TokenMap& k_map,
                           const std::vector<int>& heads, GridItem& out) -> const GridItem* {
    return tiler.item_into(q_map, q_begin, q_end, k_map, heads, out, scratch) ? &out : nullptr;
  };
  // The own block of position pos (q_map) cut by q rows as UlyssesRingProgram::item cuts it (no cut when a part
  // would have no cell), when the program cuts it.
  const auto own_parts_of = [&](int64_t pos, const cp::TokenMap& q_map, int g, const std::vector<int>& heads) {
    if (own_parts_.empty()) return;
    Entry* parts = &own_parts_[(static_cast<size_t>(g) * R + pos) * 2];
    parts[0] = entries_[index(g, pos, pos)];
    parts[1] = Entry{};
    const GridItem* whole = item_of(q_map, 0, rows, q_map, heads, counted);
    if (!whole) return;
    const TokenRange whole_q = whole->q_rows;
    const int64_t at = cp::cut_for_tail_share(
        whole_q.begin, whole_q.end, program.own_tail_share(), cp::UlyssesRingProgram::kOwnCutRowAlign,
        [&](int64_t row) { return tiler.cells_from_row(q_map, row, rows, q_map, heads); });
    const GridItem* head = item_of(q_map, 0, at, q_map, heads, own_head);
    const GridItem* tail = head ? item_of(q_map, at, rows, q_map, heads, counted) : nullptr;
    if (!head || !tail) return;
    parts[0] = entry_of(head, g);
    parts[1] = entry_of(tail, g);
  };
  std::vector<int32_t> row_kinds(static_cast<size_t>(R));
  for (const int64_t pos : costed_) {
    const cp::TokenMap& q_map = positions[static_cast<size_t>(pos)];
    for (int g = 0; g < groups(); ++g) {
      const std::vector<int>& heads = lists[static_cast<size_t>(g)];
      for (int64_t source = 0; source < R; ++source) {
        const Entry e = entry_of(item_of(q_map, 0, rows, positions[static_cast<size_t>(source)], heads, counted), g);
        entries_[index(g, pos, source)] = e;
        row_kinds[static_cast<size_t>(source)] = e.kind;
      }
      own_parts_of(pos, q_map, g, heads);
      total_row(g, pos, row_kinds);
    }
  }
  return true;
}

}  // namespace lcab::perf
