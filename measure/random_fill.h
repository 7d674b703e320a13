// Random inputs for measurements: never zeros (zeros hide unwritten outputs and can run faster than real data).
#pragma once

#include <cstdint>

typedef struct CUstream_st* cudaStream_t;

namespace lcab::measure {

/// Element types of the buffers filled (a CUDA-only header cannot use kernels::DType, whose header needs C++20).
enum class FillType { kBf16, kFp16 };

/// Fills `count` elements of `type` at `data` with values uniform in [-scale, scale), a deterministic
/// function of (seed, index). Asynchronous on `stream`.
void fill_random(void* data, int64_t count, FillType type, uint64_t seed, float scale, cudaStream_t stream);

/// The same for fp32 buffers.
void fill_random_f32(float* data, int64_t count, uint64_t seed, float scale, cudaStream_t stream);

}  // namespace lcab::measure
