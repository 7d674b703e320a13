#include "model/cp/schedule_items.h"

#include <memory>

#include "model/error.h"

namespace lcab::cp {

std::vector<std::vector<int>> item_index_by_step(const Schedule& schedule) {
  // item_at[rank][step]: index into the rank's items, -1 when the step computes nothing.
  std::vector<std::vector<int>> item_at(schedule.ranks.size());
  for (size_t r = 0; r < schedule.ranks.size(); ++r) {
    std::vector<int>& at = item_at[r];
    for (const Op& op : schedule.ranks[r].ops) {
      if (op.kind != OpKind::kCompute) continue;
      if (static_cast<size_t>(op.step) >= at.size()) at.resize(static_cast<size_t>(op.step) + 1, -1);
      LCAB_CHECK(at[static_cast<size_t>(op.step)] < 0,
                 "rank " << r << " computes more than one item at step " << op.step);
      at[static_cast<size_t>(op.step)] = op.index;
    }
  }
  return item_at;
}

ComputeItemMaker items_of(const Schedule& schedule) {
  auto item_at = std::make_shared<std::vector<std::vector<int>>>(item_index_by_step(schedule));
  return [&schedule, item_at](int rank, int step, const TokenMap&, const TokenMap&) -> std::optional<ComputeItem> {
    const std::vector<int>& at = item_at->at(static_cast<size_t>(rank));
    const size_t s = static_cast<size_t>(step);
    if (step < 0 || s >= at.size() || at[s] < 0) return std::nullopt;
    ComputeItem item = schedule.ranks[static_cast<size_t>(rank)].items[static_cast<size_t>(at[s])];
    const ComputeItem defaults;
    item.q_buffer = defaults.q_buffer;
    item.k_buffer = defaults.k_buffer;
    item.q_side = defaults.q_side;
    item.q_map = defaults.q_map;
    item.k_map = defaults.k_map;
    item.grad_buffer = defaults.grad_buffer;
    item.grad_row_begin = defaults.grad_row_begin;
    return item;
  };
}

}  // namespace lcab::cp
