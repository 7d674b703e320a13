// Checked CUDA runtime calls for every CUDA layer (kernels/, cp/, measure/): a failure throws lcab::Error naming
// the call, the error string, file and line; cudaErrorMemoryAllocation throws kernels::OutOfMemory (callers
// record "oom"); an error that leaves the context unusable throws kernels::CudaContextPoisoned (sweeps record the
// point and continue in a fresh process).
#pragma once

#include <cuda_runtime.h>

#include "kernels/attention.h"
#include "model/error.h"

namespace lcab::kernels {

/// A sticky CUDA error: every later call in this process fails.
class CudaContextPoisoned : public Error {
 public:
  using Error::Error;
};

/// Whether an error leaves the CUDA context unusable (illegal address, launch failure, device-side assert, ...).
bool is_sticky_cuda_error(cudaError_t error);

}  // namespace lcab::kernels

namespace lcab::kernels::detail {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}

}  // namespace lcab::kernels::detail

#define LCAB_CUDA_CHECK(call) ::lcab::kernels::detail::check_cuda((call), #call, __FILE__, __LINE__)
/// After a kernel launch: catches launch-configuration errors without synchronizing.
#define LCAB_CUDA_CHECK_LAUNCH() LCAB_CUDA_CHECK(cudaGetLastError())
