#include "kernels/cuda_check.h"

#include <sstream>

namespace lcab::kernels::detail {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  std::ostringstream message;
  message << call << " failed: " << cudaGetErrorName(status) << " (" << cudaGetErrorString(status) << ")";
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free allocation error so that later calls work
    throw OutOfMemory(message.str());
  }
  ::lcab::detail::throw_error(message.str(), file, line, "cuda");
}

}  // namespace lcab::kernels::detail
