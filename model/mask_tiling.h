// Block-level view of a mask for a tile shape Bq x Bk: which tiles a q-tile row touches, which of them are
// fully unmasked ("full": no in-tile masking needed) and which are partial (boundary tiles that need in-tile
// masking). This is what kernels pay for and what the compute model charges; the kernels' work lists are
// built from the same runs, so predicted and real tiling agree.
//
// Tiles are aligned to a global grid: tile (r, c) covers rows [r*Bq, (r+1)*Bq) and keys [c*Bk, (c+1)*Bk),
// clipped to S. A tile is *touched* when it holds at least one unmasked cell, and *full* when it lies wholly
// inside [0,S)^2 (no clipping) and all its Bq x Bk cells are unmasked by one slice. Touched minus full is
// partial. Cost: O(slices x q-tile rows they span), never O(S^2).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/mask.h"

namespace lcab {

struct TileShape {
  int q = 128;  ///< rows per tile (Bq)
  int k = 128;  ///< keys per tile (Bk)
};

/// A run of consecutive k tiles in one q-tile row that are all full or all partial.
struct TileRun {
  int64_t k_tile_begin = 0;
  int64_t k_tile_end = 0;  ///< exclusive
  bool partial = false;
  int64_t length() const { return k_tile_end - k_tile_begin; }
};

struct TileCounts {
  int64_t touched = 0;  ///< tiles with at least one unmasked cell
  int64_t full = 0;     ///< tiles needing no in-tile masking
  int64_t partial = 0;  ///< touched - full
  int64_t q_tile_rows = 0;        ///< ceil(S / Bq)
  int64_t nonempty_rows = 0;      ///< q-tile rows with at least one touched tile
  int64_t max_tiles_per_row = 0;  ///< the longest q-tile row, in tiles
  int64_t idle_half = 0;          ///< partial tiles with one idle key half (only when the tiling counts them)
};

/// Runs per q-tile row of one head mask (one slice list).
class MaskTiling {
 public:
  /// with_row_slices: also record, per q-tile row, the indices of the slices intersecting it (kernels need
  /// them to mask partial tiles; the model does not).
  MaskTiling(const std::vector<Slice>& slices, int64_t seqlen, TileShape shape, bool with_row_slices = false)
      : MaskTiling(slices, seqlen, seqlen, shape, with_row_slices) {}
  /// Rectangular form for Sq queries x Sk keys (context-parallel steps attend a local q chunk to a k buffer).
  /// with_idle_halves: also record, per q-tile row, the k tiles of which exactly one key half (Bk / 2 keys; a half
  /// past Sk counts as untouched) holds an unmasked cell: the tiles lcab_flash's Hopper backward computes with one
  /// consumer warpgroup idle (perf::KernelParams::idle_half_tile_us). Bk must be even. Per row these are the tiles
  /// where a merged run of touched half tiles starts or ends inside a tile, found from the same key ranges as the
  /// touched tiles (cost O(slices of the row)).
  MaskTiling(const std::vector<Slice>& slices, int64_t seqlen_q, int64_t seqlen_k, TileShape shape,
             bool with_row_slices = false, bool with_idle_halves = false);

  TileShape shape() const { return shape_; }
  int64_t seqlen_q() const { return seqlen_; }
  int64_t num_q_tile_rows() const { return static_cast<int64_t>(row_offsets_.size()) - 1; }
  /// The runs of q-tile row r, sorted by k tile, disjoint.
  const TileRun* row_begin(int64_t r) const { return runs_.data() + row_offsets_[r]; }
  const TileRun* row_end(int64_t r) const { return runs_.data() + row_offsets_[r + 1]; }
  /// Touched tiles of row r.
  int64_t row_tiles(int64_t r) const { return row_touched_[r]; }
  int64_t row_partial_tiles(int64_t r) const { return row_partial_[r]; }
  /// The k tiles of row r with one idle key half, ascending; none unless built with_idle_halves.
  const int64_t* idle_half_begin(int64_t r) const {
    return idle_offsets_.empty() ? nullptr : idle_tiles_.data() + idle_offsets_[r];
  }
  const int64_t* idle_half_end(int64_t r) const {
    return idle_offsets_.empty() ? nullptr : idle_tiles_.data() + idle_offsets_[r + 1];
  }
  int64_t row_idle_half_tiles(int64_t r) const {
    return idle_offsets_.empty() ? 0 : idle_offsets_[r + 1] - idle_offsets_[r];
  }
  /// Which half of each of row r's idle-half tiles is the idle one, in idle_half_begin's order: bit h (1 or 2) when
  /// keys [h Bk / 2, (h + 1) Bk / 2) of the tile see none of the row's queries (the bits the kernels' work list
  /// marks, kernels/flash_work.h kIdleHalfShift); none unless built with_idle_halves.
  const uint8_t* idle_half_bits_begin(int64_t r) const {
    return idle_offsets_.empty() ? nullptr : idle_bits_.data() + idle_offsets_[r];
  }
  /// Slices (indices into the list given) intersecting row r; empty unless built with_row_slices.
  const std::vector<int32_t>& row_slices(int64_t r) const { return row_slices_[r]; }
  const std::vector<TileRun>& runs() const { return runs_; }
  const std::vector<int64_t>& row_offsets() const { return row_offsets_; }
  const TileCounts& counts() const { return counts_; }

 private:
  TileShape shape_;
  int64_t seqlen_;
  std::vector<TileRun> runs_;
  std::vector<int64_t> row_offsets_;
  std::vector<int64_t> row_touched_;
  std::vector<int64_t> row_partial_;
  std::vector<std::vector<int32_t>> row_slices_;
  std::vector<int64_t> idle_tiles_;    ///< with_idle_halves: every row's idle-half k tiles, row after row
  std::vector<uint8_t> idle_bits_;     ///< with_idle_halves: idle_tiles_' idle half, bit h for half h
  std::vector<int64_t> idle_offsets_;  ///< with_idle_halves: row r's are [idle_offsets_[r], idle_offsets_[r + 1])
  TileCounts counts_;
};

/// The tiles with one idle key half that a merged run [begin, end) of a row's touched half tiles (tile.k / 2 keys
/// each, runs that meet merged) contributes, appended to `out` in ascending order: tile begin / 2 when begin is odd
/// (its first half is untouched) and tile end / 2 when end is odd (its second half is); every other tile the run
/// meets is touched in both halves. MaskTiling's with_idle_halves and perf::FullSliceTiler both count so.
/// `idle_bits`, when given, gets each appended tile's idle half as bit h (1: the first half, 2: the second).
inline void append_idle_half_tiles(int64_t begin, int64_t end, std::vector<int64_t>& out,
                                   std::vector<uint8_t>* idle_bits = nullptr) {
  // Half tiles are non-negative: parity and halving by bits (a signed % 2 and / 2 cost a shift and an add more).
  if (begin & 1) {
    out.push_back(begin >> 1);
    if (idle_bits) idle_bits->push_back(1);
  }
  if (end & 1) {  // a later tile than begin / 2's: end >= begin + 2 when both are odd
    out.push_back(end >> 1);
    if (idle_bits) idle_bits->push_back(2);
  }
}

/// append_idle_half_tiles of every run of `runs` (objects with int64_t begin and end: merged runs of half tiles,
/// ascending), without the idle bits, and without branches on the runs' parities (which are close to coin flips on
/// masks off the tile grid): each run's two candidate tiles are written and kept by their parity.
template <class Run>
void append_idle_half_tiles(std::span<const Run> runs, std::vector<int64_t>& out) {
  size_t n = out.size();
  out.resize(n + 2 * runs.size());
  int64_t* at = out.data();
  for (const Run& run : runs) {
    at[n] = run.begin >> 1;
    n += static_cast<size_t>(run.begin & 1);
    at[n] = run.end >> 1;
    n += static_cast<size_t>(run.end & 1);
  }
  out.resize(n);
}

/// Tile counts of a whole mask: summed over head masks for per-kv-head masks (so that, like FLOPs, they are
/// per "mask instance"; divide by num_head_masks() for a per-head mean).
TileCounts count_tiles(const Mask& mask, TileShape shape);

}  // namespace lcab
