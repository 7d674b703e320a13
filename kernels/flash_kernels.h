// Launch interface of the lcab_flash kernels (implemented in flash_forward.cu and flash_backward.cu).
// Host-visible: plain pointers and sizes; flash_attention.cpp builds these from an AttentionProblem and its plan.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/attention.h"
#include "kernels/flash_work.h"

namespace lcab::kernels::flash {

/// One pass's work list in device memory (see FlashPassWork for the meaning of each array).
struct DeviceWork {
  TileShape shape;  ///< the tile shape the list was built for (checked against the kernel's)
  const int32_t* outer_order = nullptr;
  const int32_t* run_offsets = nullptr;
  /// Backward: the grid's blocks in launch order: the mma.sync path's FlashPassWork::cta_items; the Hopper path's
  /// FlashPassWork::grid_items (dK/dV items, and dQ conversion units as -1 - unit).
  const int32_t* cta_items = nullptr;
  const int8_t* cta_walks = nullptr;  ///< backward: kWalk* bits of each block (cta_walks, or grid_walks)
  int64_t grid_blocks = 0;            ///< backward: the entries of cta_items (the Hopper grid's size)
  const int32_t* tail_heads = nullptr;  ///< backward: the dQ conversion's head order (FlashPassWork::tail_heads)
  /// Backward (the Hopper grid): per conversion counter, the dK/dV CTAs it waits for (FlashPassWork::tail_needs).
  const int32_t* tail_needs = nullptr;
  int32_t tail_counters = 0;  ///< backward (the Hopper grid): entries of tail_needs and of BackwardParams::counters
  const DeviceRun* runs = nullptr;
  const DeviceRunMask* run_masks = nullptr;  ///< forward: per run (FlashPassWork::run_masks); backward: none
  const int32_t* slice_offsets = nullptr;
  const DeviceSlice* slices = nullptr;
  int32_t num_masks = 1;
  int32_t outer_tiles = 0;
  int32_t q_tile_rows = 0;
  int32_t section_heads = 1;  ///< forward: q heads per section of the item order (FlashPassWork::section_heads)
  int32_t tail_chunk_rows = 1;  ///< backward: rows per conversion CTA of the Hopper grid's tail
  /// Backward, Hopper hd 64: 1 where the consumer warpgroups do not meet each step (backward_warpgroups_decoupled).
  int32_t decoupled_warpgroups = 0;
};

struct Shape {
  int32_t batch = 1;
  int32_t heads = 1;
  int32_t kv_heads = 1;
  int32_t seqlen_q = 0;
  int32_t seqlen_k = 0;
  float scale = 1;  ///< softmax scale (natural units)
};

struct ForwardParams {
  Shape shape;
  DeviceWork work;
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* out = nullptr;
  float* lse = nullptr;
};

struct BackwardParams {
  Shape shape;
  DeviceWork work;
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* out = nullptr;
  const void* dout = nullptr;
  const float* lse = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  float* dq_accum = nullptr;  ///< workspace [batch, seqlen_q, heads, head_dim] fp32 (compressible memory where granted:
                              ///< kernels/compressible_buffer.h)
  /// The accumulator is zero already, so the preprocess leaves it: the Hopper path's, zeroed once when allocated,
  /// to which its grid's tail writes zeros back over every row it converts, for the next call.
  bool dq_accum_zeroed = false;
  float* delta = nullptr;     ///< workspace [batch, heads, seqlen_q] fp32: rowsum(dout * out)
  /// Hopper path: workspace of DeviceWork::tail_counters ints, per (batch, kv head) and chunk of its conversion the
  /// dK/dV CTAs meeting those rows that have finished, two counts each (the preprocess zeroes them).
  int* counters = nullptr;
};

/// Raises the kernels' dynamic shared-memory limits, and sets the carveout LCAB_FLASH_SMEM_CARVEOUT asks
/// (kernels/mma_sync_fit.h); once per process is enough, cheap to repeat. The backward's is for its dK/dV kernel of
/// `block_q` queries per step (kNarrowBackwardQueries, or at head dim 64 kWideBackwardQueries: flash_tiles.h);
/// anything else throws.
void configure_forward(DType dtype, int head_dim);
void configure_backward(DType dtype, int head_dim, int block_q);
/// Dynamic shared memory of one CTA of the forward / the dK/dV kernel of `block_q` queries per step, in bytes
/// (head_dim 64 or 128).
size_t forward_shared_bytes(int head_dim);
size_t backward_shared_bytes(int head_dim, int block_q);
/// Enqueue on `stream`; head_dim must satisfy flash_supports_head_dim(head_dim, FlashArch::kMmaSync).
void launch_forward(const ForwardParams& params, DType dtype, int head_dim, cudaStream_t stream);
/// The backward runs the dK/dV kernel whose queries per step are params.work.shape.q (configured before).
void launch_backward(const BackwardParams& params, DType dtype, int head_dim, cudaStream_t stream);
/// The backward's steps around the dK/dV kernel, shared by both code paths: zero dq_accum (unless
/// BackwardParams::dq_accum_zeroed) and compute delta = rowsum(dout * out) (before; it also zeroes
/// BackwardParams::counters where given), convert dq_accum to dq in the
/// element type (after: the mma.sync path's; the Hopper path converts in its dK/dV grid's tail, and launches this
/// only for a call without keys); every head dim of either path.
void launch_backward_preprocess(const BackwardParams& params, DType dtype, int head_dim, cudaStream_t stream);
void launch_backward_postprocess(const BackwardParams& params, DType dtype, int head_dim, cudaStream_t stream);

}  // namespace lcab::kernels::flash
