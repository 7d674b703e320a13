// An owning device allocation that the GPU may keep compressed between L2 and DRAM (Compute Data Compression,
// sm_80 and up): CUDA's virtual memory management with CU_MEM_ALLOCATION_COMP_GENERIC, reached through the runtime's
// driver entry points (no link to libcuda). Lines that compress, runs of zeros above all, then cost fewer DRAM bytes
// to write and to read back, and less L2. The use it is made for: the Hopper backward's fp32 dQ accumulator, zero
// before every call and written zero again by its grid's tail (kernels/hopper/flash_backward_sm90.cu).
//
// Where the device or driver grants no compressible memory (the attribute is 0, cuMemCreate fails, or the allocation
// comes back without the compression attribute), the buffer is plain device memory (cudaMalloc) and compressed() says
// so. Running out of memory throws kernels::OutOfMemory; any other failed driver call throws lcab::Error naming it,
// with file and line.
#pragma once

#include <cstddef>

#include "kernels/device_buffer.h"

namespace lcab::kernels {

class CompressibleBuffer {
 public:
  /// kPlain: cudaMalloc, as DeviceBuffer (the control of an A/B, and where compression is turned off).
  enum class Request { kCompressible, kPlain };

  CompressibleBuffer() = default;
  /// `bytes` on the current device; rounded up to the allocation granularity (2 MiB) where compressible.
  explicit CompressibleBuffer(size_t bytes, Request request = Request::kCompressible);
  ~CompressibleBuffer();
  CompressibleBuffer(const CompressibleBuffer&) = delete;
  CompressibleBuffer& operator=(const CompressibleBuffer&) = delete;
  CompressibleBuffer(CompressibleBuffer&& other) noexcept;
  CompressibleBuffer& operator=(CompressibleBuffer&& other) noexcept;

  template <typename T>
  T* as() const { return static_cast<T*>(data_); }
  /// The bytes asked for (the mapping may be larger: reserved_bytes()).
  size_t bytes() const { return bytes_; }
  /// Device bytes the buffer holds: the mapping where compressible, else bytes().
  size_t reserved_bytes() const { return mapped_bytes_ > 0 ? mapped_bytes_ : bytes_; }
  /// Whether the driver granted compressible memory.
  bool compressed() const { return mapped_bytes_ > 0; }

  /// Whether the current device supports Compute Data Compression (CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED).
  static bool device_supports_compression();

 private:
  void allocate_plain();  ///< bytes_ of cudaMalloc memory (kPlain, or compression not supported or not granted)
  void release() noexcept;

  void* data_ = nullptr;
  size_t bytes_ = 0;
  size_t mapped_bytes_ = 0;          ///< the compressible mapping's range (0: plain memory in plain_)
  unsigned long long handle_ = 0;    ///< CUmemGenericAllocationHandle of the mapping
  int device_ = 0;                   ///< the mapping's device
  DeviceBuffer plain_;
};

}  // namespace lcab::kernels
