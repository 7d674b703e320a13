// Checked CUDA and cuBLAS calls for kernels/: a failure throws lcab::Error naming the call, the error string,
// file and line; cudaErrorMemoryAllocation throws kernels::OutOfMemory so that callers can record "oom".
#pragma once

#include <cuda_runtime.h>

#include "kernels/attention.h"
#include "model/error.h"

namespace lcab::kernels::detail {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}

}  // namespace lcab::kernels::detail

#define LCAB_CUDA_CHECK(call) ::lcab::kernels::detail::check_cuda((call), #call, __FILE__, __LINE__)
/// After a kernel launch: catches launch-configuration errors without synchronizing.
#define LCAB_CUDA_CHECK_LAUNCH() LCAB_CUDA_CHECK(cudaGetLastError())
