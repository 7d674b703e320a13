// TMA tensor maps for the token-major attention tensors of kernels/attention.h ([batch, seqlen, heads, head_dim],
// 16-bit elements): a 4-D map (head_dim innermost, then heads, tokens, batch) whose box is 64 head-dim columns x
// 1 head x `box_rows` tokens x 1 batch element, 128-byte swizzled (kernels/hopper/sm90_primitives.cuh describes the
// shared-memory layout this produces). Rows past the sequence end are read as zeros.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace lcab::kernels::sm90 {

/// Encodes the map (cuTensorMapEncodeTiled through the runtime's driver entry point; no link to libcuda).
/// Throws lcab::Error naming the failing call and the shape when the driver rejects it.
CUtensorMap make_token_major_map(const void* base, int64_t batch, int64_t seqlen, int64_t heads, int64_t head_dim,
                                 int box_rows);

}  // namespace lcab::kernels::sm90
