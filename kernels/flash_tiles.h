// Tile shapes of lcab_flash: one small host function of (head dim, dtype, pass, code path), header-only and free
// of CUDA types so that the compute model can charge exactly the tiles the kernels visit (count_tiles with this
// shape).
//
// mma.sync path (sm_80 and up):
//   Forward: a CTA of 4 warps owns Bq = 128 query rows (32 per warp, two m16 tiles, so that every K/V fragment
//   read from shared memory feeds two tensor-core ops) and streams Bk = 64 keys per step.
//   Backward (dK/dV): a CTA of 8 warps owns Bk = 128 keys (16 per warp) and streams Bq = 64 queries per step.
// Hopper path (sm_90a): the forward's two consumer warpgroups own 64 query rows each of a Bq = 128 tile and
//   stream Bk = 128 keys per step (one m64n128 wgmma per k16 step); the backward's own 64 keys each of a Bk = 128
//   tile and stream Bq = 64 queries per step (the mma.sync backward's shape).
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

/// The tile shape lcab_flash uses for a pass on a code path (the same for bf16 and fp16 at present).
inline TileShape flash_tile_shape(int64_t head_dim, DType /*dtype*/, Pass pass, FlashArch arch = FlashArch::kMmaSync) {
  if (arch == FlashArch::kSm90 && head_dim == 256) {
    return pass == Pass::kForward ? TileShape{128, 64} : TileShape{64, 64};
  }
  if (pass == Pass::kForward) return arch == FlashArch::kSm90 ? TileShape{128, 128} : TileShape{128, 64};
  return TileShape{64, 128};
}

}  // namespace lcab::kernels
