// Tile shapes of lcab_flash: one small host function of (head dim, dtype, pass, code path), header-only and free
// of CUDA types so that the compute model can charge exactly the tiles the kernels visit (count_tiles with this
// shape).
//
// mma.sync path (sm_80 and up):
//   Forward: a CTA of 4 warps owns Bq = 128 query rows (32 per warp, two m16 tiles, so that every K/V fragment
//   read from shared memory feeds two tensor-core ops) and streams Bk = 64 keys per step.
//   Backward (dK/dV): a CTA of 8 warps owns Bk = 128 keys (4 pairs of warps, 32 keys per pair) and streams
//   Bq = 64 queries per step at head dim 128. At head dim 64 it streams Bq = 128 (162 KiB of shared memory per CTA,
//   which A100s, H100s and H200s grant), or 64 on GPUs that grant less (sm_86, sm_89: 99 KiB per block;
//   mma_sync_backward_tile in kernels/mma_sync_fit.h chooses).
// Hopper path (sm_90a): the forward's two consumer warpgroups own 64 query rows each of a Bq = 128 tile and
//   stream Bk = 128 keys per step (one m64n128 wgmma per k16 step); the backward's own 64 keys each of a Bk = 128
//   tile and stream Bq = 64 queries per step (the mma.sync backward's shape at head dim 128).
//   Head dim 256 (Hopper only): the forward streams Bk = 64 keys per step (O is 64 x 256 per warpgroup: 128
//   accumulator registers per thread), the backward's CTA owns Bk = 64 keys, its two warpgroups splitting the head
//   dim of dK, dV and dQ and the queries of S^T and dP^T (64 x 256 of dK and dV per warpgroup would need 256).
#pragma once

#include <cstdint>

#include "kernels/attention.h"
#include "model/mask_tiling.h"

namespace lcab::kernels {

/// Which code path of lcab_flash runs a pass.
enum class FlashArch {
  kMmaSync,  ///< mma.sync m16n8k16, cp.async (sm_80 and up)
  kSm90,     ///< wgmma, TMA, warp-specialized persistent CTAs (sm_90a)
};

/// Head dims lcab_flash compiles kernels for on a code path: 64 and 128 on both, 256 on the Hopper path.
inline bool flash_supports_head_dim(int64_t head_dim, FlashArch arch) {
  return head_dim == 64 || head_dim == 128 || (head_dim == 256 && arch == FlashArch::kSm90);
}

/// Queries per step of the mma.sync backward: narrow at head dim 128, and at head dim 64 wide where the GPU grants
/// the CTA's shared memory, narrow where it does not.
inline constexpr int kNarrowBackwardQueries = 64;
inline constexpr int kWideBackwardQueries = 128;

/// The tile shape lcab_flash uses for a pass on a code path (the same for bf16 and fp16 at present). For the
/// mma.sync backward at head dim 64 this is the wide shape, which GPUs granting less than 162 KiB of shared memory
/// per block replace by the narrow one (mma_sync_backward_tile).
inline TileShape flash_tile_shape(int64_t head_dim, DType /*dtype*/, Pass pass, FlashArch arch = FlashArch::kMmaSync) {
  if (arch == FlashArch::kSm90 && head_dim == 256) {
    return pass == Pass::kForward ? TileShape{128, 64} : TileShape{64, 64};
  }
  if (pass == Pass::kForward) return arch == FlashArch::kSm90 ? TileShape{128, 128} : TileShape{128, 64};
  if (arch == FlashArch::kMmaSync && head_dim == 64) return TileShape{kWideBackwardQueries, 128};
  return TileShape{kNarrowBackwardQueries, 128};
}

}  // namespace lcab::kernels
