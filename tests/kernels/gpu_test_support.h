// Shared helpers of the GPU kernel tests (attention_gpu_test.cpp, cudnn_attention_test.cpp): 16-bit element
// conversions, poisonable device buffers, random inputs exact in the element type, the relative-error measure and
// small problem builders.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/attention.h"

namespace lcab::kernels::testing {

bool gpu_available();
/// A gtest failure naming `what` when a CUDA call failed.
void check(cudaError_t status, const char* what);

/// The bits of `value` rounded to the element type, and back.
uint16_t to_bits(double value, DType dtype);
double from_bits(uint16_t bits, DType dtype);

/// A device buffer poisoned or filled from the host.
class Buffer {
 public:
  explicit Buffer(size_t bytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* get() const { return data_; }
  size_t bytes() const { return bytes_; }
  /// All bytes 0xff: NaN in bf16, fp16 and fp32, so an element a kernel does not write fails the comparison.
  void poison();
  void upload(const void* host);
  void download(void* host) const;

 private:
  void* data_ = nullptr;
  size_t bytes_;
};

/// Random normal values rounded to the element type: the bits for the device and the doubles for the reference.
std::vector<uint16_t> random_tensor(size_t count, DType dtype, std::mt19937_64& rng, std::vector<double>& values);
/// A 16-bit device tensor as doubles.
std::vector<double> download_tensor(const Buffer& buffer, size_t count, DType dtype);

/// ||x - ref|| / ||ref|| (Frobenius); NaN when x holds NaN, infinity when ref is zero and x is not.
double relative_error(const std::vector<double>& x, const std::vector<double>& ref);

/// A problem of the given shape with the given slice lists (one shared, or one per kv head).
AttentionProblem shaped(std::vector<std::vector<Slice>> slices, int64_t seqlen_q, int64_t seqlen_k, int64_t heads,
                        int64_t kv_heads, int64_t head_dim, DType dtype, int64_t batch = 1);
/// Documents of the given lengths, one slice of `type` each, along the diagonal.
std::vector<Slice> documents(const std::vector<int64_t>& lengths, SliceType type);

}  // namespace lcab::kernels::testing
