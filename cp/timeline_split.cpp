#include <vector>

#include "cp/executor.h"
#include "model/error.h"
#include "model/perf/comm_overlap.h"

namespace lcab::cp {

TimelineSplit split_timeline(const Schedule& schedule, const std::vector<std::vector<OpInterval>>& timelines,
                             int rank) {
  LCAB_CHECK(static_cast<int>(timelines.size()) == schedule.gpus(),
             "timelines of " << timelines.size() << " ranks for a schedule of " << schedule.gpus());
  std::vector<std::vector<perf::TimeInterval>> ops(timelines.size());
  for (size_t r = 0; r < timelines.size(); ++r)
    for (const OpInterval& op : timelines[r]) ops[r].push_back({op.start_ms, op.end_ms});
  std::vector<perf::TimeInterval> compute;
  for (const OpInterval& op : timelines.at(rank))
    if (!is_communication(op.kind)) compute.push_back({op.start_ms, op.end_ms});
  const perf::CommOverlap split =
      perf::comm_overlap(std::move(compute), perf::transfer_intervals(schedule, ops, rank));
  return {split.compute, split.comm, split.exposed};
}

}  // namespace lcab::cp
