#include "model/mask_tile_grid.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "model/error.h"
#include "model/tile_divider.h"

namespace lcab {
namespace {

// Sets bits [begin, end) of a line.
void set_range(uint64_t* words, int64_t begin, int64_t end) {
  while (begin < end) {
    const int64_t w = begin >> 6;
    const int64_t b = begin & 63;
    const int64_t n = std::min<int64_t>(64 - b, end - begin);
    const uint64_t ones = n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1) << b;
    words[w] |= ones;
    begin += n;
  }
}

// Word w of a line masked to bits [begin, end).
uint64_t masked_word(const uint64_t* words, int64_t w, int64_t begin, int64_t end) {
  uint64_t x = words[w];
  const int64_t lo = w << 6;
  if (begin > lo) x &= ~uint64_t{0} << (begin - lo);
  if (end < lo + 64) x &= (uint64_t{1} << (end - lo)) - 1;
  return x;
}

// Set bits of words [begin, end) of a line. Built twice, with POPCNT and for baseline x86-64, the loader picking
// the first the CPU runs (GCC function multiversioning): libgcc's software popcount otherwise, since the project
// builds for baseline x86-64 and binaries must run on any x86-64 host.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
__attribute__((target_clones("popcnt", "default")))
#endif
int64_t count_bits(const uint64_t* words, int64_t begin, int64_t end) {
  int64_t n = 0;
  for (int64_t w = begin >> 6; w <= (end - 1) >> 6; ++w) n += std::popcount(masked_word(words, w, begin, end));
  return n;
}

// count_word_groups's loop, built like count_bits.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
__attribute__((target_clones("popcnt", "default")))
#endif
void count_groups(const uint64_t* words, size_t groups, size_t per_group, int64_t* counts) {
  for (size_t g = 0; g < groups; ++g) {
    int64_t n = 0;
    for (size_t i = 0; i < per_group; ++i) n += std::popcount(words[g * per_group + i]);
    counts[g] = n;
  }
}

// True when slice s is FULL with its bounds on the tiles of `shape`.
bool slice_aligned(const Slice& s, TileShape shape) {
  return s.type == SliceType::kFull && s.q_begin % shape.q == 0 && s.q_end % shape.q == 0 && s.k_begin % shape.k == 0 &&
         s.k_end % shape.k == 0;
}

// True when S is a multiple of both tile sides, and the first `prefix` slices of every head mask are aligned.
bool aligned_prefix(const Mask& mask, TileShape shape, size_t prefix) {
  const int64_t S = mask.seqlen();
  if (shape.q <= 0 || shape.k <= 0 || S % shape.q != 0 || S % shape.k != 0) return false;
  for (int h = 0; h < mask.num_head_masks(); ++h) {
    const std::vector<Slice>& slices = mask.slices(h);
    for (size_t n = 0; n < std::min(prefix, slices.size()); ++n)
      if (!slice_aligned(slices[n], shape)) return false;
  }
  return true;
}

// Slices of each head mask checked before a grid's bits are allocated (TileGrid::make).
constexpr size_t kCheckedFirst = 4096;

// Transposes a 64 x 64 bit block in place: bit j of a[i] becomes bit i of a[j] (swapping ever smaller sub-blocks).
void transpose_64(uint64_t a[64]) {
  uint64_t m = 0x00000000ffffffffULL;
  for (int j = 32; j != 0; j >>= 1, m ^= m << j)
    for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
      const uint64_t t = ((a[k] >> j) ^ a[k | j]) & m;
      a[k] ^= t << j;
      a[k | j] ^= t;
    }
}

// Bit i of the low 32 bits of x at bits 2i and 2i + 1 of the result.
uint64_t doubled_bits(uint64_t x) {
  x &= 0xffffffffULL;
  x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
  x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
  x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x | (x << 1);
}

}  // namespace

void count_word_groups(const uint64_t* words, size_t groups, size_t per_group, int64_t* counts) {
  count_groups(words, groups, per_group, counts);
}

bool TileGrid::aligned(const Mask& mask, TileShape shape) {
  return aligned_prefix(mask, shape, std::numeric_limits<size_t>::max());
}

std::shared_ptr<const TileGrid> TileGrid::make(const Mask& mask, TileShape shape, Lines lines) {
  // Masks that are not aligned almost always show it in their first slices: those are checked before the bits are
  // allocated; every slice is checked as it is set (one pass over the slices, not a check pass and a set pass).
  if (!aligned_prefix(mask, shape, kCheckedFirst)) return nullptr;
  std::shared_ptr<TileGrid> g(new TileGrid());
  const int64_t q_tiles = mask.seqlen() / shape.q, k_tiles = mask.seqlen() / shape.k;
  g->shape_ = shape;
  g->lines_ = lines;
  g->heads_ = mask.num_head_masks();
  g->num_lines_ = lines == Lines::kRows ? q_tiles : k_tiles;
  g->line_length_ = lines == Lines::kRows ? k_tiles : q_tiles;
  g->words_per_line_ = (g->line_length_ + 63) / 64;
  g->bits_.assign(static_cast<size_t>(g->heads_) * g->num_lines_ * g->words_per_line_, 0);
  // Tiles of powers of two (all the built-in kernels'): bounds divided by shifts and checked by masks, as the
  // divisions and remainders give for the non-negative bounds of valid slices.
  const TileDivider by_q(shape.q), by_k(shape.k);
  for (int h = 0; h < g->heads_; ++h) {
    for (const Slice& s : mask.slices(h)) {
      if (s.type != SliceType::kFull || !by_q.divides(s.q_begin) || !by_q.divides(s.q_end) ||
          !by_k.divides(s.k_begin) || !by_k.divides(s.k_end))
        return nullptr;  // not slice_aligned()
      const int64_t q0 = by_q.quotient(s.q_begin), q1 = by_q.quotient(s.q_end), k0 = by_k.quotient(s.k_begin),
                    k1 = by_k.quotient(s.k_end);
      const bool rows = lines == Lines::kRows;
      for (int64_t line = rows ? q0 : k0; line < (rows ? q1 : k1); ++line) {
        uint64_t* words = g->bits_.data() + (static_cast<size_t>(h) * g->num_lines_ + line) * g->words_per_line_;
        set_range(words, rows ? k0 : q0, rows ? k1 : q1);
      }
    }
  }
  return g;
}

std::shared_ptr<const TileGrid> TileGrid::columns_of(const TileGrid& rows, TileShape shape) {
  if (rows.lines_ != Lines::kRows || shape.k != rows.shape_.k || shape.q <= 0 ||
      (rows.shape_.q != shape.q && rows.shape_.q != 2 * shape.q))
    return nullptr;
  const int64_t factor = rows.shape_.q / shape.q;  // columns positions per rows line
  std::shared_ptr<TileGrid> g(new TileGrid());
  g->shape_ = shape;
  g->lines_ = Lines::kColumns;
  g->heads_ = rows.heads_;
  g->num_lines_ = rows.line_length_;              // k tiles
  g->line_length_ = rows.num_lines_ * factor;     // q tiles of the columns shape
  g->words_per_line_ = (g->line_length_ + 63) / 64;
  g->bits_.assign(static_cast<size_t>(g->heads_) * g->num_lines_ * g->words_per_line_, 0);
  uint64_t block[64];
  for (int h = 0; h < g->heads_; ++h) {
    // Block (rows lines [r0, r0 + 64), k tiles [64 kw, 64 kw + 64)): transposed, word j holds k tile 64 kw + j's
    // bits over those rows lines, which are its positions [factor r0, factor (r0 + 64)) in the columns grid.
    for (int64_t kw = 0; kw < rows.words_per_line_; ++kw) {
      for (int64_t r0 = 0; r0 < rows.num_lines_; r0 += 64) {
        for (int64_t i = 0; i < 64; ++i)
          block[i] = r0 + i < rows.num_lines_ ? rows.line_words(h, r0 + i)[kw] : 0;
        transpose_64(block);
        for (int64_t j = 0; j < 64; ++j) {
          const int64_t column = 64 * kw + j;
          if (column >= g->num_lines_) break;
          uint64_t* words = g->bits_.data() + (static_cast<size_t>(h) * g->num_lines_ + column) * g->words_per_line_;
          if (factor == 1) {
            words[r0 / 64] = block[j];
            continue;
          }
          const int64_t w = r0 / 32;  // factor 2: 128 positions, two words
          words[w] = doubled_bits(block[j]);
          if (w + 1 < g->words_per_line_) words[w + 1] = doubled_bits(block[j] >> 32);
        }
      }
    }
  }
  return g;
}

int64_t TileGrid::count(int head, int64_t line, int64_t begin, int64_t end) const {
  begin = std::max<int64_t>(begin, 0);
  end = std::min(end, line_length_);
  if (begin >= end) return 0;
  return count_bits(line_words(head, line), begin, end);
}

int64_t TileGrid::first(int head, int64_t line, int64_t begin, int64_t end) const {
  begin = std::max<int64_t>(begin, 0);
  end = std::min(end, line_length_);
  const uint64_t* words = line_words(head, line);
  for (int64_t w = begin >> 6; begin < end && w <= (end - 1) >> 6; ++w)
    if (const uint64_t x = masked_word(words, w, begin, end)) return (w << 6) + std::countr_zero(x);
  return -1;
}

int64_t TileGrid::last_end(int head, int64_t line, int64_t begin, int64_t end) const {
  begin = std::max<int64_t>(begin, 0);
  end = std::min(end, line_length_);
  const uint64_t* words = line_words(head, line);
  for (int64_t w = begin < end ? (end - 1) >> 6 : -1; w >= (begin >> 6) && w >= 0; --w)
    if (const uint64_t x = masked_word(words, w, begin, end)) return (w << 6) + 64 - std::countl_zero(x);
  return -1;
}

}  // namespace lcab
