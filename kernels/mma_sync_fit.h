// Whether a GPU can run lcab_flash's mma.sync kernels, and a diagnostic shared-memory carveout for them. Host code,
// so that the rule is tested without a GPU; the kernels' own sizes come from flash_kernels.h.
#pragma once

#include <cstddef>
#include <string>

#include "kernels/attention.h"
#include "kernels/flash_tiles.h"

namespace lcab::kernels::flash {

/// What a GPU offers the mma.sync kernels.
struct MmaSyncDevice {
  int cc_major = 0;                    ///< compute capability major
  int cc_minor = 0;
  size_t shared_bytes_per_block = 0;   ///< cudaDevAttrMaxSharedMemoryPerBlockOptin
};

/// Why `device` cannot run a pass of the mma.sync kernels whose CTA asks `cta_shared_bytes` of dynamic shared
/// memory; "" when it can. Needs sm_80 or newer (mma.sync m16n8k16 in bf16, cp.async), and the CTA within the
/// per-block opt-in limit (sm_86 and sm_89 grant 99 KiB, against the hd 128 backward's 161 KiB).
std::string mma_sync_shortfall(const MmaSyncDevice& device, size_t cta_shared_bytes, int head_dim, Pass pass);

/// The tile the mma.sync backward runs at `head_dim` (64 or 128) on `device`: flash_tile_shape's, whose rows are
/// kWideBackwardQueries at head dim 64, where that CTA fits, else kNarrowBackwardQueries x 128 (sm_86 and sm_89 at
/// head dim 64). `forced_queries` (0: none) asks for the tile of that many queries per step whether it fits or not
/// (mma_sync_shortfall then says why it does not); at head dim 128 it must be kNarrowBackwardQueries. Throws
/// lcab::Error on a head dim or a forced count without a kernel.
TileShape mma_sync_backward_tile(const MmaSyncDevice& device, int head_dim, int forced_queries = 0);

/// The shared-memory carveout (percent of the SM's unified L1 and shared capacity, 0 to 100) that the environment
/// variable LCAB_FLASH_SMEM_CARVEOUT asks of the mma.sync kernels, or -1 when it is unset (the driver's choice).
/// A diagnostic: on an H200 (228 KiB of shared memory per SM) 71 leaves about 164 KiB, an A100's, so that the CTAs
/// per SM an A100 would run can be timed there. Throws lcab::Error on anything but an integer from 0 to 100.
int forced_smem_carveout_percent();

/// Sets `kernel`'s preferred shared-memory carveout to forced_smem_carveout_percent() where the variable is set
/// (the mma.sync kernels' configure_forward and configure_backward call it); nothing otherwise.
void apply_forced_smem_carveout(const void* kernel);

}  // namespace lcab::kernels::flash
