#include "measure/sm_clock.h"

#include <cuda_runtime_api.h>

#include "kernels/cuda_check.h"
#include "model/error.h"

namespace lcab::measure {

namespace {

// One thread per block reads its SM's id, the global timer and the SM's cycle counter (in that order, back to back).
__global__ void sm_clock_marker_kernel(SmClockSample* samples) {
  if (threadIdx.x != 0) return;
  uint32_t sm;
  uint64_t ns;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  const uint64_t cycles = static_cast<uint64_t>(clock64());
  samples[blockIdx.x] = SmClockSample{sm, ns, cycles};
}

}  // namespace

bool is_sm_clock_marker(const std::string& kernel_name) {
  return kernel_name.find("sm_clock_marker_kernel") != std::string::npos;
}

SmClockProbe::SmClockProbe(int max_marks) : max_marks_(max_marks) {
  LCAB_CHECK(max_marks > 0, "an SM clock probe needs room for at least one marker, got " << max_marks);
  int device = 0;
  LCAB_CUDA_CHECK(cudaGetDevice(&device));
  LCAB_CUDA_CHECK(cudaDeviceGetAttribute(&blocks_, cudaDevAttrMultiProcessorCount, device));
  samples_ = DeviceBuffer(static_cast<size_t>(max_marks) * blocks_ * sizeof(SmClockSample));
  LCAB_CUDA_CHECK(cudaMemset(samples_.get(), 0, samples_.bytes()));
}

int SmClockProbe::mark(cudaStream_t stream) {
  LCAB_CHECK(marks_ < max_marks_, "the SM clock probe has room for " << max_marks_ << " markers");
  SmClockSample* samples = samples_.as<SmClockSample>() + static_cast<size_t>(marks_) * blocks_;
  sm_clock_marker_kernel<<<blocks_, 32, 0, stream>>>(samples);
  LCAB_CUDA_CHECK(cudaGetLastError());
  return marks_++;
}

std::vector<SmClockSample> SmClockProbe::download(int mark) const {
  LCAB_CHECK(mark >= 0 && mark < marks_, "SM clock marker " << mark << " was not recorded (" << marks_ << " were)");
  std::vector<SmClockSample> host(static_cast<size_t>(blocks_));
  LCAB_CUDA_CHECK(cudaMemcpy(host.data(), samples_.as<SmClockSample>() + static_cast<size_t>(mark) * blocks_,
                             host.size() * sizeof(SmClockSample), cudaMemcpyDeviceToHost));
  return host;
}

std::optional<double> SmClockProbe::clock_mhz(int from, int to) const {
  return sm_clock_mhz_between(download(from), download(to));
}

}  // namespace lcab::measure
