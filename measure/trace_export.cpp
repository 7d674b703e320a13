#include "measure/trace_export.h"

#include <algorithm>

namespace lcab::measure {

perf::Timeline timeline_from_activities(const std::vector<TraceActivity>& activities,
                                        const std::function<int(uint32_t device)>& rank_of_device,
                                        uint64_t origin_ns) {
  perf::Timeline timeline;
  if (activities.empty()) return timeline;
  if (origin_ns == 0) {
    origin_ns = std::min_element(activities.begin(), activities.end(), [](const auto& a, const auto& b) {
                  return a.start_ns < b.start_ns;
                })->start_ns;
  }
  // Ranks that own several devices (none in lcab's launch modes, but CUPTI may see one) get the device in the
  // stream name.
  std::vector<std::pair<int, uint32_t>> rank_devices;
  for (const TraceActivity& a : activities) {
    const std::pair<int, uint32_t> rd{rank_of_device(a.device), a.device};
    if (std::find(rank_devices.begin(), rank_devices.end(), rd) == rank_devices.end()) rank_devices.push_back(rd);
  }
  auto shares_rank = [&](int rank) {
    return std::count_if(rank_devices.begin(), rank_devices.end(), [&](const auto& rd) { return rd.first == rank; }) > 1;
  };
  for (const TraceActivity& a : activities) {
    perf::TimelineEvent e;
    e.rank = rank_of_device(a.device);
    e.stream = (shares_rank(e.rank) ? "dev " + std::to_string(a.device) + " " : std::string()) + "stream " +
               std::to_string(a.stream);
    e.name = a.name;
    e.start_us = a.start_ns >= origin_ns ? static_cast<double>(a.start_ns - origin_ns) * 1e-3 : 0.0;
    e.duration_us = static_cast<double>(a.end_ns - a.start_ns) * 1e-3;
    e.args = {{"kind", to_string(a.kind)}, {"device", a.device}, {"correlation", a.correlation}};
    if (a.bytes) e.args["bytes"] = a.bytes;
    timeline.events.push_back(std::move(e));
  }
  return timeline;
}

}  // namespace lcab::measure
