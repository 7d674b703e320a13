// Maps the run-time (dtype, head dim) of a problem to the kernels' template instantiations.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "kernels/flash_tiles.h"
#include "model/error.h"

namespace lcab::kernels::flash {

/// Calls Op<T, kHeadDim>::run(args...) for the element type and head dim; throws for unsupported head dims.
template <template <typename, int> class Op, typename... Args>
void dispatch(DType dtype, int head_dim, Args&&... args) {
  LCAB_CHECK(flash_supports_head_dim(head_dim), "lcab_flash has no kernel for head_dim " << head_dim
                                                                                        << "; valid: 64, 128");
  if (dtype == DType::kBf16) {
    if (head_dim == 64) Op<__nv_bfloat16, 64>::run(args...);
    else Op<__nv_bfloat16, 128>::run(args...);
  } else {
    if (head_dim == 64) Op<__half, 64>::run(args...);
    else Op<__half, 128>::run(args...);
  }
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
