// The dQ conversion in the Hopper lcab_flash backward's own grid (kernels/hopper/flash_backward_sm90.cu), as the
// kernel cuts it and the kernel cost model schedules it.
//
// The backward adds dQ into an fp32 accumulator; converting it to the element type reads 4 and writes 2 bytes per q
// element, a memory-bound pass that used to follow the dK/dV kernel as a launch of its own (0.58 ms at 32K with 64 q
// heads of 128 on an H100: 8% of a window mask's backward). Instead, CTAs past the dK/dV ones in the grid convert
// it, a chunk of rows of one (batch, kv head)'s q heads each, once every dK/dV CTA of that kv head has finished: they
// start as the last wave's SMs run out of dK/dV work, so the conversion fills the grid's tail instead of following
// it.
#pragma once

#include <algorithm>
#include <cstdint>

namespace lcab::perf {

/// fp32 accumulator bytes one conversion CTA reads (it writes half as many): long enough against a CTA's start
/// (a few microseconds) and short against a dK/dV CTA, so that the conversion spreads over the tail's SMs.
constexpr int64_t kBackwardTailChunkBytes = int64_t{2} << 20;
/// Bytes per q element the conversion moves: reads fp32, writes the 2-byte element type.
constexpr double kBackwardTailBytesPerElement = 6;

/// Query rows (of all `group_heads` q heads of one kv head) per conversion CTA; at least 1.
constexpr int64_t backward_tail_chunk_rows(int64_t group_heads, int64_t head_dim) {
  return std::max<int64_t>(1, kBackwardTailChunkBytes / (group_heads * head_dim * 4));
}
/// Conversion CTAs per (batch element, kv head).
constexpr int64_t backward_tail_chunks_per_head(int64_t seqlen_q, int64_t group_heads, int64_t head_dim) {
  const int64_t rows = backward_tail_chunk_rows(group_heads, head_dim);
  return (seqlen_q + rows - 1) / rows;
}

}  // namespace lcab::perf
