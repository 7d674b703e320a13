#include "measure/device_info.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include <cuda_runtime_api.h>

#include "kernels/cuda_check.h"

namespace lcab::measure {

namespace {
// The kernel module's version line: "NVRM version: NVIDIA UNIX [Open ]Kernel Module [for x86_64]  580.159.04  ...";
// the version is the first word after "Kernel Module" that starts with a digit and holds a dot.
std::string kernel_module_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  const size_t at = line.find("Kernel Module");
  if (at == std::string::npos) return "";
  std::istringstream words(line.substr(at + 13));
  std::string word;
  while (words >> word) {
    if (std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos) return word;
  }
  return "";
}
}  // namespace

DeviceInfo query_device_info(int device) {
  cudaDeviceProp props{};
  LCAB_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
  DeviceInfo info;
  info.name = props.name;
  info.sms = props.multiProcessorCount;
  info.driver = kernel_module_driver_version();
  if (info.driver.empty()) {
    int version = 0;
    LCAB_CUDA_CHECK(cudaDriverGetVersion(&version));
    info.driver = "CUDA " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
  }
  return info;
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

std::string device_folder_name(const std::string& device_name) {
  std::string name = device_name;
  if (name.rfind("NVIDIA ", 0) == 0) name = name.substr(7);
  std::string folder;
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) folder += static_cast<char>(std::tolower(u));
    else if (!folder.empty() && folder.back() != '_') folder += '_';
  }
  while (!folder.empty() && folder.back() == '_') folder.pop_back();
  return folder.empty() ? "unknown_device" : folder;
}

}  // namespace lcab::measure
