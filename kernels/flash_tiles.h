// Tile shapes of lcab_flash: one small host function of (head dim, dtype, pass), header-only and free of CUDA
// types so that the compute model can charge exactly the tiles the kernels visit (count_tiles with this shape).
//
// Forward: a CTA of 4 warps owns Bq = 128 query rows (32 per warp, two m16 tiles, so that every K/V fragment
// read from shared memory feeds two tensor-core ops) and streams Bk = 64 keys per step.
// Backward (dK/dV): a CTA of 8 warps owns Bk = 128 keys (16 per warp) and streams Bq = 64 queries per step.
#pragma once

#include <cstdint>

#include "kernels/attention.h"
#include "model/mask_tiling.h"

namespace lcab::kernels {

/// Head dims lcab_flash compiles kernels for.
inline bool flash_supports_head_dim(int64_t head_dim) { return head_dim == 64 || head_dim == 128; }

/// The tile shape lcab_flash uses for a pass (the same for bf16 and fp16 at present).
inline TileShape flash_tile_shape(int64_t /*head_dim*/, DType /*dtype*/, Pass pass) {
  return pass == Pass::kForward ? TileShape{128, 64} : TileShape{64, 128};
}

}  // namespace lcab::kernels
