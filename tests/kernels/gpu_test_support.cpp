#include "gpu_test_support.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace lcab::kernels::testing {

bool gpu_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

void check(cudaError_t status, const char* what) {
  ASSERT_EQ(status, cudaSuccess) << what << ": " << cudaGetErrorString(status);
}

uint16_t to_bits(double value, DType dtype) {
  if (dtype == DType::kBf16) {
    const __nv_bfloat16_raw raw = __float2bfloat16_rn(static_cast<float>(value));
    return raw.x;
  }
  const __half_raw raw = __float2half_rn(static_cast<float>(value));
  return raw.x;
}

double from_bits(uint16_t bits, DType dtype) {
  if (dtype == DType::kBf16) {
    __nv_bfloat16_raw raw;
    raw.x = bits;
    return static_cast<double>(__bfloat162float(__nv_bfloat16(raw)));
  }
  __half_raw raw;
  raw.x = bits;
  return static_cast<double>(__half2float(__half(raw)));
}

Buffer::Buffer(size_t bytes) : bytes_(bytes) { check(cudaMalloc(&data_, bytes), "cudaMalloc"); }
Buffer::~Buffer() { cudaFree(data_); }
void Buffer::poison() { check(cudaMemset(data_, 0xff, bytes_), "cudaMemset"); }
void Buffer::upload(const void* host) { check(cudaMemcpy(data_, host, bytes_, cudaMemcpyHostToDevice), "upload"); }
void Buffer::download(void* host) const {
  check(cudaMemcpy(host, data_, bytes_, cudaMemcpyDeviceToHost), "download");
}

std::vector<uint16_t> random_tensor(size_t count, DType dtype, std::mt19937_64& rng, std::vector<double>& values) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<uint16_t> bits(count);
  values.resize(count);
  for (size_t n = 0; n < count; ++n) {
    bits[n] = to_bits(normal(rng), dtype);
    values[n] = from_bits(bits[n], dtype);
  }
  return bits;
}

std::vector<double> download_tensor(const Buffer& buffer, size_t count, DType dtype) {
  std::vector<uint16_t> bits(count);
  buffer.download(bits.data());
  std::vector<double> out(count);
  for (size_t n = 0; n < count; ++n) out[n] = from_bits(bits[n], dtype);
  return out;
}

double relative_error(const std::vector<double>& x, const std::vector<double>& ref) {
  double diff = 0;
  double norm = 0;
  for (size_t n = 0; n < ref.size(); ++n) {
    const double d = x[n] - ref[n];
    diff += d * d;
    norm += ref[n] * ref[n];
  }
  if (norm == 0) return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff / norm);
}

AttentionProblem shaped(std::vector<std::vector<Slice>> slices, int64_t seqlen_q, int64_t seqlen_k, int64_t heads,
                        int64_t kv_heads, int64_t head_dim, DType dtype, int64_t batch) {
  AttentionProblem p;
  p.batch = batch;
  p.heads = heads;
  p.kv_heads = kv_heads;
  p.head_dim = head_dim;
  p.dtype = dtype;
  p.seqlen_q = seqlen_q;
  p.seqlen_k = seqlen_k;
  p.slices = std::move(slices);
  return p;
}

std::vector<Slice> documents(const std::vector<int64_t>& lengths, SliceType type) {
  std::vector<Slice> slices;
  int64_t begin = 0;
  for (int64_t length : lengths) {
    slices.push_back({begin, begin + length, begin, begin + length, type});
    begin += length;
  }
  return slices;
}

}  // namespace lcab::kernels::testing
