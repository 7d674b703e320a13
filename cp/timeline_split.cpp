#include <algorithm>
#include <utility>

#include "cp/executor.h"

namespace lcab::cp {
namespace {

using Intervals = std::vector<std::pair<double, double>>;

// Sorted, merged intervals.
Intervals merged(Intervals in) {
  std::sort(in.begin(), in.end());
  Intervals out;
  for (const auto& iv : in) {
    if (iv.second <= iv.first) continue;
    if (!out.empty() && iv.first <= out.back().second) out.back().second = std::max(out.back().second, iv.second);
    else out.push_back(iv);
  }
  return out;
}

double measure(const Intervals& in) {
  double total = 0;
  for (const auto& iv : in) total += iv.second - iv.first;
  return total;
}

}  // namespace

TimelineSplit split_timeline(const std::vector<OpInterval>& timeline) {
  Intervals compute, comm;
  for (const OpInterval& op : timeline)
    (is_communication(op.kind) ? comm : compute).emplace_back(op.start_ms, op.end_ms);
  const Intervals compute_union = merged(compute);
  const Intervals comm_union = merged(comm);
  Intervals both = compute_union;
  both.insert(both.end(), comm_union.begin(), comm_union.end());
  TimelineSplit split;
  split.compute_ms = measure(compute_union);
  split.comm_ms = measure(comm_union);
  split.exposed_comm_ms = measure(merged(both)) - split.compute_ms;
  return split;
}

}  // namespace lcab::cp
