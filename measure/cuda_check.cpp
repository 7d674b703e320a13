#include "measure/cuda_check.h"

#include <cstring>
#include <sstream>

#include "kernels/attention.h"

namespace lcab::measure {

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

void check_cuda(cudaError_t error, const char* call, const char* file, int line) {
  if (error == cudaSuccess) return;
  const char* base = std::strrchr(file, '/');
  std::ostringstream message;
  message << call << " failed: " << cudaGetErrorName(error) << ": " << cudaGetErrorString(error) << " ("
          << (base ? base + 1 : file) << ":" << line << ")";
  if (error == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // allocation failures are not sticky; clear them
    throw kernels::OutOfMemory(message.str());
  }
  if (is_sticky_cuda_error(error)) throw CudaContextPoisoned(message.str());
  throw Error(message.str());
}

}  // namespace lcab::measure
