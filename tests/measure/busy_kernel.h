// Kernels that keep one block busy for a given time (spinning on the GPU's global timer), for checks of the
// timing machinery.
#pragma once

#include <cstdint>

typedef struct CUstream_st* cudaStream_t;

namespace lcab::measure::testing {

/// Launches one block of 32 threads that spins for `duration_ns` and writes to `sink` (one int) so that the
/// loop is not optimized away. Returns cudaGetLastError() as an int (0 on success).
int launch_busy_kernel(uint64_t duration_ns, int* sink, cudaStream_t stream);

/// Launches one block of 32 threads that spins for `duration_ns` and writes to `cycles` how many cycles its SM's
/// counter (clock64) advanced meanwhile. Returns cudaGetLastError() as an int.
int launch_cycle_counting_kernel(uint64_t duration_ns, unsigned long long* cycles, cudaStream_t stream);

}  // namespace lcab::measure::testing
