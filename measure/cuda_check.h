// Checked CUDA runtime calls for measure/: a failed call throws lcab::Error naming the call and CUDA's message,
// or kernels::OutOfMemory for an allocation failure (so that sweeps record status "oom"), or
// CudaContextPoisoned for errors that leave the context unusable (so that sweeps continue in a fresh process).
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "model/error.h"

namespace lcab::measure {

/// A sticky CUDA error: every later call in this process fails. The sweep records the point and re-executes.
class CudaContextPoisoned : public Error {
 public:
  using Error::Error;
};

/// Whether an error leaves the CUDA context unusable (illegal address, launch failure, device-side assert, ...).
bool is_sticky_cuda_error(cudaError_t error);

/// Throws for a failed call (see above); `call` is the source text of the call.
void check_cuda(cudaError_t error, const char* call, const char* file, int line);

}  // namespace lcab::measure

#define LCAB_MEASURE_CUDA(call) ::lcab::measure::check_cuda((call), #call, __FILE__, __LINE__)
