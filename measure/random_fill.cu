#include "measure/random_fill.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "kernels/cuda_check.h"

namespace lcab::measure {

namespace {

// SplitMix64: a counter-based generator, so that every element is independent of launch shape.
__device__ inline float uniform_pm1(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;  // 24 random bits -> [-1, 1)
}

template <typename T>
__device__ inline T from_float(float x);
template <>
__device__ inline __nv_bfloat16 from_float(float x) { return __float2bfloat16(x); }
template <>
__device__ inline __half from_float(float x) { return __float2half(x); }
template <>
__device__ inline float from_float(float x) { return x; }

template <typename T>
__global__ void fill_kernel(T* data, int64_t count, uint64_t seed, float scale) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = from_float<T>(scale * uniform_pm1(seed, static_cast<uint64_t>(i)));
  }
}

template <typename T>
void launch_fill(T* data, int64_t count, uint64_t seed, float scale, cudaStream_t stream) {
  if (count <= 0) return;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((count + threads - 1) / threads, 65536);
  fill_kernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(data, count, seed, scale);
  LCAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void fill_random(void* data, int64_t count, FillType type, uint64_t seed, float scale, cudaStream_t stream) {
  if (type == FillType::kBf16) launch_fill(static_cast<__nv_bfloat16*>(data), count, seed, scale, stream);
  else launch_fill(static_cast<__half*>(data), count, seed, scale, stream);
}

void fill_random_f32(float* data, int64_t count, uint64_t seed, float scale, cudaStream_t stream) {
  launch_fill(data, count, seed, scale, stream);
}

}  // namespace lcab::measure
