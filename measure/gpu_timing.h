// The timing loop every GPU measurement of lcab uses: warm-up, then N repetitions, each preceded by an L2 flush
// (a memset of a buffer twice the L2 size) and timed with CUDA events around the region alone. CUPTI, when
// given, traces the timed repetitions; its flush memsets separate the repetitions in the trace. Each repetition
// also measures the SM clock it ran at (sm_clock.h: markers just outside the event pair).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "measure/device_buffer.h"
#include "measure/trace_activity.h"

typedef struct CUstream_st* cudaStream_t;

namespace lcab::measure {

class CuptiActivityTracer;

/// Evicts the L2 cache of one device by writing a buffer larger than it.
class L2Flusher {
 public:
  /// Allocates max(2 x L2 size, 32 MiB) bytes on the current device.
  L2Flusher();
  void flush(cudaStream_t stream) const;
  uint64_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer buffer_;
};

struct TimingOptions {
  int warmup = 3;   ///< untimed runs first (module load, handle creation, clocks ramping up)
  int reps = 20;    ///< timed repetitions
};

struct TimedRegion {
  std::vector<double> region_ms;             ///< CUDA-event time of each repetition
  std::vector<double> sm_clock_mhz;          ///< the mean SM clock of each repetition (those the markers measured)
  std::vector<TraceActivity> activities;     ///< CUPTI activities of the timed repetitions (empty without tracer)
};

/// Runs `region(stream)` warmup + reps times on `stream` as described above and synchronizes. With a tracer,
/// tracing covers exactly the timed repetitions (flushes included); the SM clock markers are left out of the
/// activities. Errors of the region propagate.
TimedRegion time_region(const std::function<void(cudaStream_t)>& region, const TimingOptions& options,
                        const L2Flusher& flusher, cudaStream_t stream, CuptiActivityTracer* tracer);

/// Device memory in use on the current device (total - free, cudaMemGetInfo), in bytes.
int64_t device_memory_used_bytes();

/// Creates and owns a non-blocking CUDA stream.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace lcab::measure
