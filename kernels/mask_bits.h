// In-tile mask bits of the flash kernels, by interval arithmetic.
//
// Every kernel holds a score tile in the accumulator layout of the tensor cores (mma.sync m16n8 and wgmma alike): a
// thread owns, along the masked dimension, the positions
//     position(j) = base + 8 * (j / 2) + (j % 2),   j = 0 .. kBits - 1,   base = tile start + 2 * (lane % 4),
// two neighbours in every block of 8. A slice makes one interval [lo, hi) of positions visible to a row (forward:
// keys of a query row) or to a key (backward: query rows of a key column). Since position(j) increases with j, the
// j inside [lo, hi) are one run of bits, found with a handful of integer operations instead of kBits compares.
// Host and device share the functions, so the host tests check them against the per-position definition.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define LCAB_MASK_BITS_FN __host__ __device__ __forceinline__
#else
#define LCAB_MASK_BITS_FN inline
#endif

namespace lcab::kernels::flash {

/// How many of the thread's kBits positions lie below base + offset: #{j < kBits : 8 (j / 2) + (j % 2) < offset}.
template <int kBits>
LCAB_MASK_BITS_FN int positions_below(int offset) {
  static_assert(kBits % 2 == 0 && kBits <= 32, "pairs of positions, one 32-bit word");
  // offset - 1 = 8 m + r (floor division, so offsets <= 0 give counts <= 0): pairs 0 .. m - 1 lie below entirely,
  // pair m's first position (8 m <= offset - 1) too, its second (8 m + 1) when r >= 1.
  const int before = offset - 1;
  const int m = before >> 3;  // arithmetic shift: floor
  const int count = 2 * m + 1 + ((before & 7) != 0 ? 1 : 0);
  return count < 0 ? 0 : (count > kBits ? kBits : count);
}

/// Bits 0 .. n - 1 set (n in [0, 32]).
LCAB_MASK_BITS_FN uint32_t low_bits(int n) { return n >= 32 ? 0xffffffffu : ((1u << n) - 1u); }

/// Bit j set when position(j) = base + 8 (j / 2) + (j % 2) lies in [lo, hi) (empty when lo >= hi).
template <int kBits>
LCAB_MASK_BITS_FN uint32_t interval_bits(int base, int lo, int hi) {
  return low_bits(positions_below<kBits>(hi - base)) & ~low_bits(positions_below<kBits>(lo - base));
}

}  // namespace lcab::kernels::flash

#undef LCAB_MASK_BITS_FN
