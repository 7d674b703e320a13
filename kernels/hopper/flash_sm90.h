// Launch interface of lcab_flash's Hopper path (sm_90a: TMA, wgmma, warp specialization, persistent CTAs).
// Host-visible; the kernels are compiled only when the build targets sm_90a (LCAB_HAVE_SM90_KERNELS).
// The work lists are the same as the mma.sync path's, built for flash_tile_shape(..., FlashArch::kSm90).
#pragma once

#include "kernels/attention.h"
#include "kernels/flash_kernels.h"

namespace lcab::kernels::flash {

/// Whether this build carries the sm_90a kernels (the CMake architecture list contains 90a).
bool sm90_kernels_built();

/// Raises the forward kernel's dynamic shared-memory limit.
void configure_forward_sm90(DType dtype, int head_dim);
/// Enqueue on `stream`. `item_counter` is one device int of workspace (zeroed on the stream before the kernel);
/// the launch uses min(items, sm_count) persistent CTAs.
void launch_forward_sm90(const ForwardParams& params, DType dtype, int head_dim, int* item_counter, int sm_count,
                         cudaStream_t stream);

/// Raises the backward dK/dV kernel's dynamic shared-memory limit.
void configure_backward_sm90(DType dtype, int head_dim);
/// The whole backward (preprocess, the sm_90a dK/dV kernel with dQ atomics, dQ conversion), enqueued on `stream`.
void launch_backward_sm90(const BackwardParams& params, DType dtype, int head_dim, cudaStream_t stream);

}  // namespace lcab::kernels::flash
