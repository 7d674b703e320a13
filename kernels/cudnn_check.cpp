#include "kernels/cudnn_check.h"

#include <cstring>
#include <sstream>

namespace lcab::kernels::detail {

void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
  char last[512] = {0};
  cudnnGetLastErrorString(last, sizeof(last));
  std::ostringstream message;
  message << call << " failed: " << cudnnGetErrorString(status) << " (" << static_cast<int>(status) << ")";
  if (last[0] != '\0') message << ": " << last;
  const char* base = std::strrchr(file, '/');
  const int category = CUDNN_STATUS_CATEGORY(status);
  if (status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) throw OutOfMemory(message.str());
  if (category == CUDNN_STATUS_NOT_SUPPORTED) {
    message << " (" << (base ? base + 1 : file) << ":" << line << ")";
    throw CudnnNotSupported(message.str());
  }
  ::lcab::detail::throw_error(message.str(), file, line, "cudnn");
}

}  // namespace lcab::kernels::detail
