#include "measure/gpu_timing.h"

#include <algorithm>

#include <cuda_runtime_api.h>

#include "kernels/cuda_check.h"
#include "measure/cupti_tracer.h"
#include "measure/sm_clock.h"

namespace lcab::measure {

namespace {
size_t flush_bytes() {
  int device = 0;
  LCAB_CUDA_CHECK(cudaGetDevice(&device));
  int l2_bytes = 0;
  LCAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return std::max<size_t>(2 * static_cast<size_t>(l2_bytes), size_t{32} << 20);
}

// CUDA events created once per call and destroyed however the call ends.
class EventPairs {
 public:
  explicit EventPairs(int count) : events_(2 * static_cast<size_t>(count), nullptr) {
    for (cudaEvent_t& e : events_) LCAB_CUDA_CHECK(cudaEventCreate(&e));
  }
  ~EventPairs() {
    for (cudaEvent_t e : events_) {
      if (e) cudaEventDestroy(e);
    }
  }
  cudaEvent_t start(int n) const { return events_[2 * n]; }
  cudaEvent_t stop(int n) const { return events_[2 * n + 1]; }

 private:
  std::vector<cudaEvent_t> events_;
};
}  // namespace

L2Flusher::L2Flusher() : buffer_(flush_bytes()) {}

void L2Flusher::flush(cudaStream_t stream) const {
  LCAB_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0x5a, buffer_.bytes(), stream));
}

TimedRegion time_region(const std::function<void(cudaStream_t)>& region, const TimingOptions& options,
                        const L2Flusher& flusher, cudaStream_t stream, CuptiActivityTracer* tracer) {
  LCAB_CHECK(options.reps > 0, "--reps must be positive, got " << options.reps);
  LCAB_CHECK(options.warmup >= 0, "--warmup must not be negative, got " << options.warmup);
  for (int n = 0; n < options.warmup; ++n) {
    flusher.flush(stream);
    region(stream);
  }
  LCAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  LCAB_CUDA_CHECK(cudaGetLastError());

  EventPairs events(options.reps);
  SmClockProbe clock(2 * options.reps);
  TimedRegion timed;
  if (tracer) tracer->start();
  try {
    for (int n = 0; n < options.reps; ++n) {
      flusher.flush(stream);
      clock.mark(stream);  // marker 2n
      LCAB_CUDA_CHECK(cudaEventRecord(events.start(n), stream));
      region(stream);
      LCAB_CUDA_CHECK(cudaEventRecord(events.stop(n), stream));
      clock.mark(stream);  // marker 2n + 1
    }
    LCAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    LCAB_CUDA_CHECK(cudaGetLastError());
  } catch (...) {
    if (tracer && tracer->running()) {
      cudaDeviceSynchronize();
      try {
        tracer->stop();
      } catch (const Error&) {
        // the region's own error is the one to report
      }
    }
    throw;
  }
  if (tracer) {
    timed.activities = tracer->stop();
    std::erase_if(timed.activities, [](const TraceActivity& a) { return is_sm_clock_marker(a.name); });
  }
  for (int n = 0; n < options.reps; ++n) {
    float ms = 0;
    LCAB_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start(n), events.stop(n)));
    timed.region_ms.push_back(ms);
    if (const std::optional<double> mhz = clock.clock_mhz(2 * n, 2 * n + 1)) timed.sm_clock_mhz.push_back(*mhz);
  }
  return timed;
}

int64_t device_memory_used_bytes() {
  size_t free_bytes = 0, total_bytes = 0;
  LCAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<int64_t>(total_bytes - free_bytes);
}

Stream::Stream() { LCAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

Stream::~Stream() {
  if (stream_) cudaStreamDestroy(stream_);
}

}  // namespace lcab::measure
