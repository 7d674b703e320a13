#include "tests/measure/busy_kernel.h"

#include <cuda_runtime.h>

namespace lcab::measure::testing {

namespace {
__device__ inline uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void busy_kernel(uint64_t duration_ns, int* sink) {
  const uint64_t start = global_timer_ns();
  int spins = 0;
  while (global_timer_ns() - start < duration_ns) ++spins;
  if (threadIdx.x == 0) atomicAdd(sink, spins);
}
__global__ void cycle_counting_kernel(uint64_t duration_ns, unsigned long long* cycles) {
  const uint64_t start = global_timer_ns();
  const long long first = clock64();
  while (global_timer_ns() - start < duration_ns) {
  }
  const long long last = clock64();
  if (threadIdx.x == 0) *cycles = static_cast<unsigned long long>(last - first);
}
}  // namespace

int launch_cycle_counting_kernel(uint64_t duration_ns, unsigned long long* cycles, cudaStream_t stream) {
  cycle_counting_kernel<<<1, 32, 0, stream>>>(duration_ns, cycles);
  return static_cast<int>(cudaGetLastError());
}

int launch_busy_kernel(uint64_t duration_ns, int* sink, cudaStream_t stream) {
  busy_kernel<<<1, 32, 0, stream>>>(duration_ns, sink);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace lcab::measure::testing
