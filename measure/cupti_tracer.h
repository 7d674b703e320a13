// CUPTI activity tracing: every kernel (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, which keeps kernels concurrent),
// copy (MEMCPY) and memset (MEMSET) that runs on any GPU of this process between start() and stop().
//
// CUPTI's activity API is process-wide, so at most one tracer may be active at a time (a second start() while
// one is running is an error). Timestamps are CUPTI's (ns); kernel names are demangled.
#pragma once

#include <cstdint>
#include <vector>

#include "measure/trace_activity.h"

namespace lcab::measure {

class CuptiActivityTracer {
 public:
  CuptiActivityTracer() = default;
  ~CuptiActivityTracer();
  CuptiActivityTracer(const CuptiActivityTracer&) = delete;
  CuptiActivityTracer& operator=(const CuptiActivityTracer&) = delete;

  /// Enables the activity kinds; activities of work launched from now on are recorded.
  void start();
  /// Disables the kinds, flushes CUPTI's buffers and returns what was recorded since start(). The caller
  /// synchronizes the devices first, so that every activity is complete. Throws lcab::Error when CUPTI
  /// dropped records (its buffers overflowed).
  std::vector<TraceActivity> stop();
  bool running() const { return running_; }

 private:
  bool running_ = false;
};

}  // namespace lcab::measure
