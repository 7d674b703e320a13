// One slice's part of a forward partial tile, in two words (the Hopper path, ForwardMasking::kRunMasks in
// flash_work.h): the consumers turn it into a row's visible keys with a few integer operations. Walking the row's
// slices instead (shared memory loads in a loop, then the same interval arithmetic) made a partial tile cost 43% of
// a tile more than a whole one, and that code cost 2-5% on every tile by its presence in the loop
// (data/measurements/h100/partial-tile-cost-2026-11-24/).
//
// Row r (0 <= r < tile rows) of the q-tile row sees the tile's keys c (0 <= c < tile keys) with
//     row_begin <= r < row_end  and  lo_at_0 + (lo_diagonal ? r : 0) <= c < min(hi_end, hi_diagonal_at_0 + r)
// (the slice's row_keys, relative to the tile's first row and key). The three bounds are clamped to
// [-kRunMaskClamp, kRunMaskClamp], which changes no visible key of any row (the slopes add at most the tile's rows).
// A run mask describes one tile and one slice, or two slices whose rows do not interleave (the first's all above the
// second's: documents or blocks that meet inside the tile), which one visit of the tile then serves.
#pragma once

#include <cstdint>


namespace lcab::kernels {

struct DeviceRunMask {
  /// lo_at_0 | hi_end << 10 | hi_diagonal_at_0 << 20 (10-bit two's complement) | lo_diagonal << 30
  int32_t bounds = 0;
  int32_t rows = -1;    ///< row_begin | row_end << 8; -1 on whole runs (no mask)
  int32_t bounds2 = 0;  ///< a second slice's, for the rows from its row_begin on (rows2 >= 0); its rows all follow
  int32_t rows2 = -1;   ///< the first slice's (row_begin2 >= row_end); -1: none
};

/// Bounds are clamped to +-kRunMaskClamp: at least tile rows + tile keys + 1 for tiles up to 128 x 128.
constexpr int kRunMaskClamp = 257;

#if defined(__CUDACC__)
#define LCAB_RUN_MASK_FN __host__ __device__ __forceinline__
#else
#define LCAB_RUN_MASK_FN inline
#endif

namespace flash {

LCAB_RUN_MASK_FN int run_mask_field(int32_t bounds, int shift) {
  return static_cast<int32_t>(static_cast<uint32_t>(bounds) << (22 - shift)) >> 22;  // sign-extend 10 bits
}

/// Keys [lo, hi) of the tile (relative to its first key) that row r (relative to the tile's first row) sees; lo >= hi
/// when none. `mask.rows` must be >= 0.
LCAB_RUN_MASK_FN void run_mask_row_keys(int32_t bounds, int32_t rows, int r, int& lo, int& hi) {
  const int row_begin = rows & 0xff;
  const int row_end = (rows >> 8) & 0x1ff;
  const int lo_at_0 = run_mask_field(bounds, 0);
  const int hi_end = run_mask_field(bounds, 10);
  const int hi_diagonal_at_0 = run_mask_field(bounds, 20);
  const bool lo_diagonal = (bounds >> 30) & 1;
  lo = lo_at_0 + (lo_diagonal ? r : 0);
  hi = hi_diagonal_at_0 + r < hi_end ? hi_diagonal_at_0 + r : hi_end;
  if (r < row_begin || r >= row_end) hi = lo;
}

/// The backward's run masks are key-major (its tiles are walked per key tile, its accumulator rows are keys): key c
/// (0 <= c < tile keys) of the tile sees the tile's query rows r with
///     key_begin <= c < key_end  and  max(lo_at_0, lo_diagonal_at_0 + c) <= r < min(hi_end, hi_diagonal_at_0 + c)
/// packed as bounds = lo_at_0 | lo_diagonal_at_0 << 10 | hi_end << 20 and rows (here: keys) = hi_diagonal_at_0 |
/// key_begin << 10 | key_end << 19 (absent diagonals: -kRunMaskClamp and +kRunMaskClamp); a second slice's, for the
/// keys from its key_begin on, in bounds2 / rows2 (rows2 = -1: none). Whole runs: rows = -1.
LCAB_RUN_MASK_FN void run_mask_key_rows(int32_t bounds, int32_t keys, int c, int& lo, int& hi) {
  const int key_begin = (keys >> 10) & 0x1ff;
  const int key_end = (keys >> 19) & 0x1ff;
  const int lo_at_0 = run_mask_field(bounds, 0);
  const int lo_diagonal_at_0 = run_mask_field(bounds, 10);
  const int hi_end = run_mask_field(bounds, 20);
  const int hi_diagonal_at_0 = run_mask_field(keys, 0);
  lo = lo_diagonal_at_0 + c > lo_at_0 ? lo_diagonal_at_0 + c : lo_at_0;
  hi = hi_diagonal_at_0 + c < hi_end ? hi_diagonal_at_0 + c : hi_end;
  if (c < key_begin || c >= key_end) hi = lo;
}

LCAB_RUN_MASK_FN void run_mask_pair_key_rows(int32_t bounds, int32_t keys, int32_t bounds2, int32_t keys2, int c,
                                             int& lo, int& hi) {
  const bool second = keys2 >= 0 && c >= ((keys2 >> 10) & 0x1ff);
  run_mask_key_rows(second ? bounds2 : bounds, second ? keys2 : keys, c, lo, hi);
}

/// The same for a run mask of up to two slices: rows from the second's row_begin on use the second.
LCAB_RUN_MASK_FN void run_mask_pair_row_keys(int32_t bounds, int32_t rows, int32_t bounds2, int32_t rows2, int r,
                                             int& lo, int& hi) {
  const bool second = r >= (rows2 & 0xff);  // rows2 = -1: 255, never
  run_mask_row_keys(second ? bounds2 : bounds, second ? rows2 : rows, r, lo, hi);
}

}  // namespace flash
}  // namespace lcab::kernels

#undef LCAB_RUN_MASK_FN
