// A kernel that keeps one block busy for a given time (spinning on the GPU's global timer), for checks of the
// timing machinery.
#pragma once

#include <cstdint>

typedef struct CUstream_st* cudaStream_t;

namespace lcab::measure::testing {

/// Launches one block of 32 threads that spins for `duration_ns` and writes to `sink` (one int) so that the
/// loop is not optimized away. Returns cudaGetLastError() as an int (0 on success).
int launch_busy_kernel(uint64_t duration_ns, int* sink, cudaStream_t stream);

}  // namespace lcab::measure::testing
