// Layout conversions between cuDNN's ragged softmax stats and lcab's lse (kernels/cudnn_attention.cpp).
#pragma once

#include <cstdint>

typedef struct CUstream_st* cudaStream_t;

namespace lcab::kernels {

/// out[b][c][r] = in[b][r][c] for `batch` row-major rows x cols matrices of floats (stream-ordered, no sync).
void transpose_batched_f32(const float* in, float* out, int64_t batch, int64_t rows, int64_t cols,
                           cudaStream_t stream);

}  // namespace lcab::kernels
