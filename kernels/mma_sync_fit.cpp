#include "kernels/mma_sync_fit.h"

#include <cuda_runtime.h>

#include <cstdlib>

#include "kernels/cuda_check.h"
#include "kernels/flash_kernels.h"
#include "model/error.h"

namespace lcab::kernels::flash {

std::string mma_sync_shortfall(const MmaSyncDevice& device, size_t cta_shared_bytes, int head_dim, Pass pass) {
  const std::string cc = "sm_" + std::to_string(device.cc_major) + std::to_string(device.cc_minor);
  if (device.cc_major < 8) {
    return "lcab_flash's mma.sync kernels need sm_80 or newer (bf16 mma.sync and cp.async); this GPU is " + cc;
  }
  if (cta_shared_bytes > device.shared_bytes_per_block) {
    return "lcab_flash's mma.sync " + std::string(pass == Pass::kForward ? "forward" : "backward") + " at head dim " +
           std::to_string(head_dim) + " asks " + std::to_string(cta_shared_bytes) +
           " bytes of shared memory per CTA; this GPU (" + cc + ") grants " +
           std::to_string(device.shared_bytes_per_block);
  }
  return "";
}

TileShape mma_sync_backward_tile(const MmaSyncDevice& device, int head_dim, int forced_queries) {
  const TileShape preferred = flash_tile_shape(head_dim, DType::kBf16, Pass::kBackward, FlashArch::kMmaSync);
  if (forced_queries != 0) {
    backward_shared_bytes(head_dim, forced_queries);  // throws where no kernel has that many queries per step
    return TileShape{forced_queries, preferred.k};
  }
  const bool fits = backward_shared_bytes(head_dim, preferred.q) <= device.shared_bytes_per_block;
  return fits ? preferred : TileShape{kNarrowBackwardQueries, preferred.k};
}

int forced_smem_carveout_percent() {
  const char* value = std::getenv("LCAB_FLASH_SMEM_CARVEOUT");
  if (value == nullptr || *value == '\0') return -1;
  char* end = nullptr;
  const long percent = std::strtol(value, &end, 10);
  if (*end != '\0' || percent < 0 || percent > 100) {
    throw Error("LCAB_FLASH_SMEM_CARVEOUT='" + std::string(value) + "'; valid: an integer from 0 to 100 (or unset)");
  }
  return static_cast<int>(percent);
}

void apply_forced_smem_carveout(const void* kernel) {
  if (const int percent = forced_smem_carveout_percent(); percent >= 0) {
    LCAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
  }
}

}  // namespace lcab::kernels::flash
