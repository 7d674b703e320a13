// CUPTI activities as a timeline (model/perf/timeline.h), written as Chrome-trace JSON by --trace: one process
// per rank, one thread per CUDA stream ("stream 13", or "dev 1 stream 13" when a rank spans devices), times in
// microseconds from the earliest activity.
#pragma once

#include <functional>
#include <vector>

#include "measure/trace_activity.h"
#include "model/perf/timeline.h"

namespace lcab::measure {

/// rank_of_device maps a CUPTI device id to the rank that drives it (thread-per-GPU runs: the device's index in
/// the device list; one process per GPU: the process's rank). origin_ns: the time that becomes 0 (0 means the
/// earliest activity).
perf::Timeline timeline_from_activities(const std::vector<TraceActivity>& activities,
                                        const std::function<int(uint32_t device)>& rank_of_device,
                                        uint64_t origin_ns = 0);

}  // namespace lcab::measure
