// The compute items of a built schedule handed back as a ComputeItemMaker (cp_method.h): a method whose items do
// not depend on the pass (allgather: per rank, its rows against its own block and against the gathered buffer, in
// both passes) builds its other pass's schedule from the first one's items instead of resolving the mask again.
#pragma once

#include "model/cp/cp_method.h"
#include "model/cp/schedule.h"

namespace lcab::cp {

/// A maker that returns, for (rank, step), a copy of the item of `schedule`'s compute op of that rank and step
/// (std::nullopt when there is none), slices, rows, heads and pairs included, with the fields a builder sets for
/// its pass (buffers, q side, token maps, gradient rows) back at their defaults; the maps it is given are not
/// read. `schedule` must outlive the maker and hold at most one compute op per rank and step (checked).
ComputeItemMaker items_of(const Schedule& schedule);

/// For every rank of `schedule`, the index into its items of the compute op of each step (-1 where the step
/// computes nothing; steps past the rank's last compute op are absent). Throws when a rank computes more than one
/// item at a step.
std::vector<std::vector<int>> item_index_by_step(const Schedule& schedule);

}  // namespace lcab::cp
