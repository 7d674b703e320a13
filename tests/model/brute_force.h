// Brute-force references on dense masks for small S, used by the model tests.
#pragma once

#include <cstdint>
#include <vector>

#include "model/mask.h"
#include "model/mask_tiling.h"

namespace lcab::testing {

inline int64_t dense_area(const std::vector<uint8_t>& cells) {
  int64_t n = 0;
  for (uint8_t c : cells) n += c;
  return n;
}

/// True when one slice alone unmasks every cell of the tile [q0,q1) x [k0,k1).
inline bool one_slice_covers(const std::vector<Slice>& slices, int64_t q0, int64_t q1, int64_t k0, int64_t k1) {
  for (const Slice& sl : slices) {
    bool all = true;
    for (int64_t i = q0; i < q1 && all; ++i)
      for (int64_t j = k0; j < k1 && all; ++j) all = sl.contains(i, j);
    if (all) return true;
  }
  return false;
}

/// Tile counts by visiting every tile of the dense mask (the definition in mask_tiling.h: a full tile is
/// unclipped and wholly unmasked by a single slice).
inline TileCounts dense_tile_counts(const std::vector<uint8_t>& cells, const std::vector<Slice>& slices, int64_t s,
                                    TileShape shape) {
  TileCounts counts;
  const int64_t rows = (s + shape.q - 1) / shape.q;
  const int64_t cols = (s + shape.k - 1) / shape.k;
  counts.q_tile_rows = rows;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t row_tiles = 0;
    for (int64_t c = 0; c < cols; ++c) {
      int64_t on = 0;
      for (int64_t i = r * shape.q; i < std::min(s, (r + 1) * shape.q); ++i)
        for (int64_t j = c * shape.k; j < std::min(s, (c + 1) * shape.k); ++j) on += cells[i * s + j];
      if (on == 0) continue;
      ++row_tiles;
      ++counts.touched;
      const bool unclipped = (r + 1) * shape.q <= s && (c + 1) * shape.k <= s;
      if (unclipped && on == int64_t{shape.q} * shape.k &&
          one_slice_covers(slices, r * shape.q, (r + 1) * shape.q, c * shape.k, (c + 1) * shape.k))
        ++counts.full;
      else ++counts.partial;
    }
    if (row_tiles) ++counts.nonempty_rows;
    counts.max_tiles_per_row = std::max(counts.max_tiles_per_row, row_tiles);
  }
  return counts;
}

}  // namespace lcab::testing
