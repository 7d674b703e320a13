// Division of non-negative token bounds by a tile side, by a shift and a mask when the side is a power of two (every
// profile's tiles are), by the divide instruction otherwise. For the loops that divide every slice's bounds: a
// 64-bit divide by a value known only at run time takes tens of cycles.
#pragma once

#include <bit>
#include <cstdint>

namespace lcab {

class TileDivider {
 public:
  /// `tile` > 0.
  explicit TileDivider(int64_t tile)
      : tile_(tile),
        shift_(std::has_single_bit(static_cast<uint64_t>(tile)) ? std::countr_zero(static_cast<uint64_t>(tile)) : -1) {}
  /// floor(x / tile), x >= 0.
  int64_t quotient(int64_t x) const { return shift_ >= 0 ? x >> shift_ : x / tile_; }
  /// ceil(x / tile), x >= 0.
  int64_t ceil_quotient(int64_t x) const { return quotient(x + tile_ - 1); }
  /// True when tile divides x, x >= 0.
  bool divides(int64_t x) const { return shift_ >= 0 ? (x & (tile_ - 1)) == 0 : x % tile_ == 0; }

 private:
  int64_t tile_;
  int shift_;
};

}  // namespace lcab
