// Paints every position of [0, n) once, with the value of the first range given that covers it. The ranges come in
// the order that decides (q-tile rows ascending for each k-tile column's first row, descending for its last); the
// next unpainted position is found by path halving, so painting costs O(ranges + n) whatever the ranges' lengths.
// Used for the first and last q-tile row of every k-tile column, from a tiling's runs (kernel_cost.cpp) and from
// the bands of FULL slices (full_slice_tiles.cpp).
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

namespace lcab::perf {

class FirstPainter {
 public:
  /// Starts over for positions [0, n), none painted (value -1).
  void reset(int64_t n) {
    values_.assign(static_cast<size_t>(n), -1);
    next_.resize(static_cast<size_t>(n + 1));
    std::iota(next_.begin(), next_.end(), int64_t{0});
  }
  /// Paints the positions of [begin, end) not painted yet with `value`.
  void paint(int64_t begin, int64_t end, int32_t value) {
    for (int64_t p = unpainted(begin); p < end; p = unpainted(p + 1)) {
      values_[static_cast<size_t>(p)] = value;
      next_[static_cast<size_t>(p)] = p + 1;
    }
  }
  /// Every position's value (-1: never painted); may be moved from.
  std::vector<int32_t>& values() { return values_; }

 private:
  // The first unpainted position at or after p (n: none).
  int64_t unpainted(int64_t p) {
    while (next_[static_cast<size_t>(p)] != p) {
      next_[static_cast<size_t>(p)] = next_[static_cast<size_t>(next_[static_cast<size_t>(p)])];
      p = next_[static_cast<size_t>(p)];
    }
    return p;
  }
  std::vector<int64_t> next_;  ///< per position: itself when unpainted, else a later position (n: the end)
  std::vector<int32_t> values_;
};

}  // namespace lcab::perf
