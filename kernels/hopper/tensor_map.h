// TMA tensor maps for the token-major attention tensors of kernels/attention.h ([batch, seqlen, heads, head_dim]):
// a 4-D map (head_dim innermost, then heads, tokens, batch) whose box is 128 bytes of head-dim columns (64 16-bit
// or 32 fp32 elements) x 1 head x `box_rows` tokens x 1 batch element, 128-byte swizzled
// (kernels/hopper/sm90_primitives.cuh describes the shared-memory layout this produces). Loads read rows past the
// sequence end as zeros; stores and reductions skip them.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace lcab::kernels::sm90 {

enum class MapElement { k16Bit, kFp32 };

/// Encodes the map (cuTensorMapEncodeTiled through the runtime's driver entry point; no link to libcuda).
/// Throws lcab::Error naming the failing call and the shape when the driver rejects it.
CUtensorMap make_token_major_map(const void* base, int64_t batch, int64_t seqlen, int64_t heads, int64_t head_dim,
                                 int box_rows, MapElement element = MapElement::k16Bit);

}  // namespace lcab::kernels::sm90
