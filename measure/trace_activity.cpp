#include "measure/trace_activity.h"

#include <algorithm>
#include <map>

#include "measure/time_stats.h"
#include "model/error.h"

namespace lcab::measure {

const char* to_string(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::kKernel: return "kernel";
    case ActivityKind::kMemcpy: return "memcpy";
    case ActivityKind::kMemset: return "memset";
  }
  return "unknown";
}

RegionKernels summarize_region(std::vector<TraceActivity> activities, int repetitions, uint64_t separator_bytes) {
  LCAB_CHECK(repetitions > 0, "repetitions must be positive, got " << repetitions);
  std::stable_sort(activities.begin(), activities.end(),
                   [](const TraceActivity& a, const TraceActivity& b) { return a.start_ns < b.start_ns; });
  // Per repetition: name -> (calls, summed ms).
  std::vector<std::map<std::string, std::pair<int, double>>> per_rep;
  std::vector<std::string> order;
  RegionKernels region;
  std::vector<uint64_t> first_start, last_end;
  for (const TraceActivity& a : activities) {
    if (a.kind == ActivityKind::kMemset && a.bytes == separator_bytes) {
      per_rep.emplace_back();
      region.kernel_sum_ms.push_back(0);
      first_start.push_back(UINT64_MAX);
      last_end.push_back(0);
      continue;
    }
    if (a.kind != ActivityKind::kKernel || per_rep.empty()) continue;
    auto& entry = per_rep.back()[a.name];
    if (entry.first == 0 && std::find(order.begin(), order.end(), a.name) == order.end()) order.push_back(a.name);
    entry.first += 1;
    entry.second += a.duration_ms();
    region.kernel_sum_ms.back() += a.duration_ms();
    first_start.back() = std::min(first_start.back(), a.start_ns);
    last_end.back() = std::max(last_end.back(), a.end_ns);
  }
  LCAB_CHECK(static_cast<int>(per_rep.size()) == repetitions,
             "CUPTI saw " << per_rep.size() << " L2 flushes for " << repetitions
                          << " repetitions: activity records were lost or the region was not traced");
  for (size_t r = 0; r < per_rep.size(); ++r) {
    region.gpu_span_ms.push_back(last_end[r] > first_start[r] ? static_cast<double>(last_end[r] - first_start[r]) * 1e-6
                                                              : 0.0);
  }
  for (const std::string& name : order) {
    std::vector<double> calls, ms;
    for (const auto& rep : per_rep) {
      auto it = rep.find(name);
      calls.push_back(it == rep.end() ? 0 : it->second.first);
      ms.push_back(it == rep.end() ? 0 : it->second.second);
    }
    region.kernels.push_back({name, percentile(calls, 50), percentile(ms, 50)});
  }
  return region;
}

}  // namespace lcab::measure
