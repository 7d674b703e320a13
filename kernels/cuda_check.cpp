#include "kernels/cuda_check.h"

#include <cstring>
#include <sstream>

namespace lcab::kernels {

bool is_sticky_cuda_error(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

}  // namespace lcab::kernels

namespace lcab::kernels::detail {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  std::ostringstream message;
  message << call << " failed: " << cudaGetErrorName(status) << " (" << cudaGetErrorString(status) << ")";
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free allocation error so that later calls work
    throw OutOfMemory(message.str());
  }
  if (is_sticky_cuda_error(status)) {
    const char* base = std::strrchr(file, '/');
    message << " (" << (base ? base + 1 : file) << ":" << line << ")";
    throw CudaContextPoisoned(message.str());
  }
  ::lcab::detail::throw_error(message.str(), file, line, "cuda");
}

}  // namespace lcab::kernels::detail
