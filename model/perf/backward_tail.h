// The dQ conversion in the Hopper lcab_flash backward's own grid (kernels/hopper/flash_backward_sm90.cu), as the
// kernel cuts it and the kernel cost model schedules it.
//
// The backward adds dQ into an fp32 accumulator; converting it to the element type reads 4 and writes 2 bytes per q
// element, a memory-bound pass that used to follow the dK/dV kernel as a launch of its own (0.58 ms at 32K with 64 q
// heads of 128 on an H100: 8% of a window mask's backward). Instead, CTAs past the dK/dV ones in the grid convert
// it, a chunk of rows of one (batch, kv head)'s q heads each, once every dK/dV CTA of that kv head has finished: they
// start as the last wave's SMs run out of dK/dV work, so the conversion fills the grid's tail instead of following
// it. They also write zeros back over what they read (4 more bytes per q element), so that the accumulator, zeroed
// once when allocated, needs no zeroing pass in front of the next call's grid. Where the GPU grants compressible
// memory for the accumulator (kernels/compressible_buffer.h), those zero lines reach DRAM compressed, so the pass
// moves about 6 bytes per q element, the datasheet layer's charge (model/perf/derive_datasheet_profiles.py).
#pragma once

#include <algorithm>
#include <cstdint>

namespace lcab::perf {

/// fp32 accumulator bytes of one conversion CTA's rows (it writes half as many): at most kBackwardTailMaxChunkBytes,
/// so that the conversion spreads over the tail's SMs; at least kBackwardTailMinChunkBytes, long against a CTA's
/// start (a few microseconds); in between, small enough for kBackwardTailChunksPerSlot chunks per SM over the call,
/// so that where the conversion follows the last items (short calls, whose items all end together) every SM takes
/// part. (Chunks of 2 MiB whatever the call measured 12-15% slower at 1K with 64 / 8 heads on an H200: 16 CTAs
/// converted 32 MiB.)
constexpr int64_t kBackwardTailMaxChunkBytes = int64_t{2} << 20;
constexpr int64_t kBackwardTailMinChunkBytes = int64_t{256} << 10;
constexpr int64_t kBackwardTailChunksPerSlot = 2;
/// Query rows (of all `group_heads` q heads of one kv head) per conversion CTA, for a call of `head_units` (batch x
/// kv heads) on `slots` SMs; at least 1.
constexpr int64_t backward_tail_chunk_rows(int64_t seqlen_q, int64_t head_units, int64_t group_heads, int64_t head_dim,
                                           int64_t slots) {
  const int64_t row_bytes = group_heads * head_dim * 4;
  const int64_t fewest = std::max<int64_t>(1, kBackwardTailMinChunkBytes / row_bytes);
  const int64_t most = std::max<int64_t>(1, kBackwardTailMaxChunkBytes / row_bytes);
  const int64_t chunks = std::max<int64_t>(1, kBackwardTailChunksPerSlot * slots);
  const int64_t for_count = (seqlen_q * head_units + chunks - 1) / chunks;
  return std::clamp(for_count, fewest, std::max(fewest, most));
}
/// Conversion CTAs per (batch element, kv head) with `chunk_rows` rows each.
constexpr int64_t backward_tail_chunks_per_head(int64_t seqlen_q, int64_t chunk_rows) {
  return (seqlen_q + chunk_rows - 1) / chunk_rows;
}

}  // namespace lcab::perf
