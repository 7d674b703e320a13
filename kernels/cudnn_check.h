// Checked cuDNN calls (kernels/cudnn_*): a failure throws lcab::Error naming the call, cuDNN's status name, its last
// error message, file and line; a device allocation failure inside cuDNN throws kernels::OutOfMemory.
// CudnnNotSupported marks the statuses that mean "cuDNN has no engine for this graph" (NOT_SUPPORTED_*), which the
// cudnn implementation reports as status "unsupported" rather than as an error.
#pragma once

#include <cudnn.h>

#include "kernels/attention.h"
#include "model/error.h"

namespace lcab::kernels {

/// A cuDNN call answered CUDNN_STATUS_NOT_SUPPORTED (or one of its specific codes).
class CudnnNotSupported : public Error {
 public:
  using Error::Error;
};

}  // namespace lcab::kernels

namespace lcab::kernels::detail {

[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line);

inline void check_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) throw_cudnn_error(status, call, file, line);
}

}  // namespace lcab::kernels::detail

#define LCAB_CUDNN_CHECK(call) ::lcab::kernels::detail::check_cudnn((call), #call, __FILE__, __LINE__)
