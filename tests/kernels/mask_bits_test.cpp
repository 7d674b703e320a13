// Host tests of the flash kernels' in-tile mask bits (kernels/mask_bits.h): the interval arithmetic against the
// per-position definition of the accumulator layout, for the word sizes the kernels use.
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/mask_bits.h"

namespace lcab::kernels::flash {
namespace {

// The definition: bit j is set when position base + 8 (j / 2) + (j % 2) lies in [lo, hi).
template <int kBits>
uint32_t bits_by_position(int base, int lo, int hi) {
  uint32_t bits = 0;
  for (int j = 0; j < kBits; ++j) {
    const int position = base + 8 * (j / 2) + (j % 2);
    if (position >= lo && position < hi) bits |= 1u << j;
  }
  return bits;
}

template <int kBits>
void expect_every_interval_matches(int base) {
  // Every interval with ends from well before the first position to well after the last (tile of 4 kBits keys).
  const int span = 4 * kBits;
  for (int lo = base - span; lo <= base + 2 * span; ++lo) {
    for (int hi = lo - 3; hi <= base + 2 * span; ++hi) {
      ASSERT_EQ(interval_bits<kBits>(base, lo, hi), bits_by_position<kBits>(base, lo, hi))
          << "kBits " << kBits << " base " << base << " [" << lo << ", " << hi << ")";
    }
  }
}

TEST(MaskBits, IntervalsGiveTheBitsOfThePositionsInside) {
  for (int base : {0, 2, 4, 6, 128, 4096 + 6, -64}) {
    expect_every_interval_matches<32>(base);  // Hopper forward: 128 keys
    expect_every_interval_matches<16>(base);  // Hopper backward (64 rows), mma.sync forward and backward
    expect_every_interval_matches<2>(base);
  }
}

TEST(MaskBits, PositionsBelowCountsEachPairOnce) {
  // Positions 0, 1, 8, 9, 16, 17, ...: offsets 1 and 2 reach the first pair, 9 and 10 the second.
  EXPECT_EQ(positions_below<32>(0), 0);
  EXPECT_EQ(positions_below<32>(1), 1);
  EXPECT_EQ(positions_below<32>(2), 2);
  EXPECT_EQ(positions_below<32>(8), 2);
  EXPECT_EQ(positions_below<32>(9), 3);
  EXPECT_EQ(positions_below<32>(10), 4);
  EXPECT_EQ(positions_below<32>(122), 32);
  EXPECT_EQ(positions_below<32>(1 << 30), 32);
  EXPECT_EQ(positions_below<32>(-(1 << 30)), 0);
  EXPECT_EQ(low_bits(32), 0xffffffffu);
  EXPECT_EQ(low_bits(0), 0u);
}

}  // namespace
}  // namespace lcab::kernels::flash
