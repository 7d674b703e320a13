// Tile-level occupancy of a tile-aligned mask: for a tile shape Bq x Bk, one bit per tile and head mask saying
// whether the tile holds unmasked cells. A mask is tile-aligned for a shape when every slice of every head mask is
// FULL, every q bound of a slice is a multiple of Bq, every k bound a multiple of Bk, and S a multiple of both:
// then every tile lies inside one slice or outside all of them, so a touched tile is full (MaskTiling's meaning)
// and the tiling of any part of the mask cut along tile bounds is read off the bits (block-sparse masks with
// blocks of a multiple of the tile size are; so is `full`).
//
// Bits are kept per line: a line is one q-tile row (positions: its k tiles) or one k-tile column (positions: its q
// tiles), so that the tiles of a row or of a column over any range of positions are counted with a few popcounts.
// Memory: S^2 / (Bq Bk) bits per head mask (64 MiB for 8 heads at S = 1M and 128 x 128 tiles).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "model/mask.h"
#include "model/mask_tiling.h"

namespace lcab {

class TileGrid {
 public:
  enum class Lines : uint8_t {
    kRows,     ///< line = q-tile row, positions = k tiles
    kColumns,  ///< line = k-tile column, positions = q tiles
  };

  /// True when `mask` is tile-aligned for `shape` (see above). O(slices).
  static bool aligned(const Mask& mask, TileShape shape);
  /// The grid of `mask` for `shape` with lines of the given kind; nullptr when the mask is not tile-aligned.
  /// O(slices + bits / 64), one pass over the slices (each checked as it is set; the first few thousand of each
  /// head mask are checked before the bits are allocated, so most masks off the tiles allocate nothing).
  static std::shared_ptr<const TileGrid> make(const Mask& mask, TileShape shape, Lines lines);
  /// The kColumns grid of `shape` of the mask a kRows grid `rows` was made of, read off its bits (a blocked bit
  /// transpose: O(bits / 64), no pass over the slices): equal to make(mask, shape, Lines::kColumns) bit for bit
  /// when shape.k == rows.shape().k and rows.shape().q is shape.q or 2 shape.q (the mask's slices are then on the
  /// columns' tiles too, and a columns tile is touched exactly when the rows tile holding it is); nullptr for
  /// other shapes.
  static std::shared_ptr<const TileGrid> columns_of(const TileGrid& rows, TileShape shape);

  TileShape shape() const { return shape_; }
  Lines lines() const { return lines_; }
  int heads() const { return heads_; }
  int64_t num_lines() const { return num_lines_; }
  int64_t line_length() const { return line_length_; }  ///< positions per line

  /// Touched tiles of line `line` of head mask `head` at positions [begin, end) (clamped to the line).
  int64_t count(int head, int64_t line, int64_t begin, int64_t end) const;
  /// The first touched position in [begin, end), or -1.
  int64_t first(int head, int64_t line, int64_t begin, int64_t end) const;
  /// One past the last touched position in [begin, end), or -1.
  int64_t last_end(int head, int64_t line, int64_t begin, int64_t end) const;
  /// The bits of line `line` of head mask `head` at positions [begin, begin + n) as one word, bit i for position
  /// begin + i; 1 <= n <= 64 and the positions within the line. O(1): one or two words read, no popcount.
  uint64_t bits(int head, int64_t line, int64_t begin, int64_t n) const {
    const uint64_t* words = line_words(head, line);
    const int64_t w = begin >> 6, b = begin & 63;
    uint64_t x = words[w] >> b;
    if (b != 0 && b + n > 64) x |= words[w + 1] << (64 - b);
    return n == 64 ? x : x & ((uint64_t{1} << n) - 1);
  }

 private:
  TileGrid() = default;
  const uint64_t* line_words(int head, int64_t line) const {
    return bits_.data() + (static_cast<size_t>(head) * num_lines_ + line) * words_per_line_;
  }
  TileShape shape_;
  Lines lines_ = Lines::kRows;
  int heads_ = 0;
  int64_t num_lines_ = 0;
  int64_t line_length_ = 0;
  int64_t words_per_line_ = 0;
  std::vector<uint64_t> bits_;  ///< [head][line][word]
};

/// counts[g] = set bits of words[g * per_group, (g + 1) * per_group), for g < groups: the tile counts of lines
/// gathered with TileGrid::bits, many lines in one call. Uses POPCNT where the CPU has it (see count_bits).
void count_word_groups(const uint64_t* words, size_t groups, size_t per_group, int64_t* counts);

}  // namespace lcab
