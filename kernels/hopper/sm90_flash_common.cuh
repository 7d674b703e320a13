// Pieces both Hopper lcab_flash kernels (forward and backward) use on top of sm90_primitives.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/flash_common.cuh"

namespace lcab::kernels::flash {

/// The dynamic shared memory one CTA may take on sm_90 (227 KiB): each kernel's configuration asserts it fits.
constexpr size_t kSm90MaxSharedBytes = 227 * 1024;

/// A value every lane of the warp holds alike, made visibly warp-uniform: ptxas serializes wgmma issued under
/// control flow it cannot prove uniform (warning C7520), and values loaded from memory are not provably uniform.
__device__ __forceinline__ int warp_uniform(int value) { return __shfl_sync(0xffffffffu, value, 0); }

/// A wgmma accumulator fragment (fp32, m64 x 8 * kSFloats / 4 per warpgroup) -> the register A fragments of the
/// next product (16-bit), one per k16 step: the accumulator layout is the A layout, so no data moves between lanes.
template <typename T, int kSFloats>
__device__ __forceinline__ void to_a_fragments(const float (&s)[kSFloats], uint32_t (&a)[kSFloats / 8][4]) {
#pragma unroll
  for (int kk = 0; kk < kSFloats / 8; ++kk) {
#pragma unroll
    for (int r = 0; r < 4; ++r) a[kk][r] = MmaType<T>::pack(s[8 * kk + 2 * r], s[8 * kk + 2 * r + 1]);
  }
}

/// Masks a wgmma accumulator fragment (fp32, m64 x 8 * kSFloats / 4) of a partial tile: element e of column block
/// j in the thread's row half h (rows g and g + 8) becomes -inf unless bit 2 j + e of bits[h] is set (the bits of
/// visible_keys / visible_rows, kernels/mask_bits.h, for the thread's two rows).
template <int kSFloats>
__device__ __forceinline__ void mask_accumulator(float (&s)[kSFloats], const uint32_t (&bits)[2]) {
#pragma unroll
  for (int half = 0; half < 2; ++half) {
#pragma unroll
    for (int j = 0; j < kSFloats / 4; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if (!((bits[half] >> (2 * j + e)) & 1u)) s[4 * j + 2 * half + e] = -INFINITY;
      }
    }
  }
}

}  // namespace lcab::kernels::flash
