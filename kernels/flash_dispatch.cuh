// Maps the run-time (dtype, head dim) of a problem to the kernels' template instantiations.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "kernels/flash_tiles.h"
#include "model/error.h"

namespace lcab::kernels::flash {

/// Calls Op<T, kHeadDim>::run(args...) for the element type and head dim of a code path's kernels (instantiating
/// only that path's head dims); throws for head dims the path has no kernel for.
template <template <typename, int> class Op, FlashArch kArch = FlashArch::kMmaSync, typename... Args>
void dispatch(DType dtype, int head_dim, Args&&... args) {
  LCAB_CHECK(flash_supports_head_dim(head_dim, kArch),
             "lcab_flash has no " << (kArch == FlashArch::kSm90 ? "sm_90a" : "mma.sync") << " kernel for head_dim "
                                  << head_dim << "; valid: 64, 128" << (kArch == FlashArch::kSm90 ? ", 256" : ""));
  auto run = [&]<typename T>() {
    if (head_dim == 64) Op<T, 64>::run(args...);
    else if constexpr (kArch == FlashArch::kSm90) {
      if (head_dim == 256) Op<T, 256>::run(args...);
      else Op<T, 128>::run(args...);
    } else {
      Op<T, 128>::run(args...);
    }
  };
  if (dtype == DType::kBf16) run.template operator()<__nv_bfloat16>();
  else run.template operator()<__half>();
}

/// The DType of a kernel element type.
template <typename T>
constexpr DType mma_dtype() {
  return std::is_same_v<T, __nv_bfloat16> ? DType::kBf16 : DType::kFp16;
}

/// Checks that a work list was built for the tile shape a kernel was compiled with.
inline void check_work_shape(const TileShape& built, int kernel_q, int kernel_k, const char* pass) {
  LCAB_CHECK(built.q == kernel_q && built.k == kernel_k,
             "lcab_flash " << pass << " work list built for tiles " << built.q << "x" << built.k
                           << " but the kernel uses " << kernel_q << "x" << kernel_k);
}

}  // namespace lcab::kernels::flash
