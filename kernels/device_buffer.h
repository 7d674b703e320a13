// An owning device allocation (cudaMalloc / cudaFree); allocation failure throws kernels::OutOfMemory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cuda_check.h"

namespace lcab::kernels {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes > 0) LCAB_CUDA_CHECK(cudaMalloc(&data_, bytes));
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : data_(other.data_), bytes_(other.bytes_) {
    other.data_ = nullptr;
    other.bytes_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      if (data_ != nullptr) cudaFree(data_);
      data_ = other.data_;
      bytes_ = other.bytes_;
      other.data_ = nullptr;
      other.bytes_ = 0;
    }
    return *this;
  }

  template <typename T>
  T* as() const { return static_cast<T*>(data_); }
  size_t bytes() const { return bytes_; }

  /// A buffer holding a copy of host data (synchronous upload; plans are built outside timed regions).
  template <typename T>
  static DeviceBuffer upload(const std::vector<T>& host) {
    DeviceBuffer buffer(host.size() * sizeof(T));
    if (!host.empty()) LCAB_CUDA_CHECK(cudaMemcpy(buffer.data_, host.data(), buffer.bytes_, cudaMemcpyHostToDevice));
    return buffer;
  }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace lcab::kernels
