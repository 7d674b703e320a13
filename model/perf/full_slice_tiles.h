// Tile counts of FULL-slice lists without MaskTiling: the numbers KernelCostModel::cost reads from the tiling of
// a call's slices (touched and partial tiles and the slices its boundary tiles test, per outer tile of the
// kernel's work item), computed by q bands, so that KernelCostModel::cost_from_tiles gives cost()'s result bit
// for bit.
//
// Why: block-sparse masks off the tile grid (variable_block_sparse) have millions of FULL slices, and their CP items
// were tiled by MaskTiling, which visits every slice in every q-tile row it spans and writes every row's runs.
// Here the slices of a list are grouped into bands (slices with the same q range: one block row of a block-sparse
// mask, clipped to an item); each band's tile projection is merged once, and a q-tile row is the union of the
// bands meeting it (one band for rows inside a block, two or three across its edges); consecutive rows meeting the
// same bands in the same way share one union. Cost: O(slices + rows + bands x intervals), no allocation in the
// steady state (the tiler keeps its buffers).
//
// For one head list (as MaskTiling's meaning, model/mask_tiling.h; rows of q-tile r are [r Bq, min(Sq, (r+1) Bq))):
//   U(r) = union over slices meeting row r of the k tiles [k_begin / Bk, ceil(k_end / Bk))         (touched)
//   F(r) = union over slices covering all Bq rows of row r of [ceil(k_begin / Bk), floor(k_end / Bk))  (full)
//   n(r) = slices meeting row r
// q-row items (KernelWorkItem::kQRowPerHead): tiles = |U(r)|, partial = |U(r)| - |F(r)|, partial_slices =
// partial x n(r); k-column items: per column c, tiles = rows with c in U(r), partial = rows with c in U(r) \ F(r),
// partial_slices = the sum of n(r) over those rows; for a model with idle key halves, idle_half = the tiles of U(r)
// with one touched half, from the union of the slices' half tiles [k_begin / (Bk/2), ceil(k_end / (Bk/2))) (the
// tiles where a merged run starts or ends inside). Area: the slices' cells. Every number is an integer, held
// exactly (doubles below 2^53), so the order of summation does not matter.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "model/mask.h"
#include "model/perf/first_painter.h"
#include "model/perf/kernel_cost.h"

namespace lcab::perf {

/// True when every slice of every list is FULL.
bool all_full_slices(std::span<const std::vector<Slice>> lists);

class FullSliceTiler {
 public:
  /// The counts of one head list of FULL slices (local coordinates inside seqlen_q x seqlen_k, not overlapping)
  /// for `model`'s tile shape and work item, partial_slices filled when the model charges slice_us and
  /// first_inner / last_inner when its grid pairs documents (KernelScheduler::kGridPairedDocuments), into `out`
  /// (its vectors reused).
  void count(const std::vector<Slice>& list, int64_t seqlen_q, int64_t seqlen_k, const KernelCostModel& model,
             OuterTileCounts& out);

  /// count() of every list (one per head mask of a call), into out (resized to the lists).
  void count(std::span<const std::vector<Slice>> lists, int64_t seqlen_q, int64_t seqlen_k,
             const KernelCostModel& model, std::vector<OuterTileCounts>& out);
  /// count() of every list for each model given (a null one left out, its out untouched), into out[model]: each
  /// list's bands are made once for both models when their k tiles agree (they depend on nothing else).
  void count(std::span<const std::vector<Slice>> lists, int64_t seqlen_q, int64_t seqlen_k,
             const std::array<const KernelCostModel*, 2>& models, std::array<std::vector<OuterTileCounts>, 2>& out);
  /// True when the counts of count() determine `model`'s cost of the lists: every slice is FULL and the model's
  /// cost depends on tile counts only (KernelCostModel::tile_counts_determine_cost).
  static bool applies(const KernelCostModel& model, std::span<const std::vector<Slice>> lists);

  /// KernelCostModel::cost(lists, seqlen_q, seqlen_k, shape), counted here: std::nullopt when it does not apply
  /// (a slice that is not FULL, or a model whose cost needs more than tile counts).
  std::optional<KernelCost> cost(const KernelCostModel& model, std::span<const std::vector<Slice>> lists,
                                 int64_t seqlen_q, int64_t seqlen_k, const AttentionShape& shape);

 private:
  struct Interval {
    int64_t begin;
    int64_t end;
  };
  struct Band {
    int64_t q_begin, q_end;
    int64_t slices;
    uint32_t touched_at, touched_n;  // merged touched tiles in touched_pool_
    uint32_t full_at, full_n;        // merged full tiles in full_pool_
    int64_t touched_tiles, full_tiles;
    uint32_t half_at, half_n;        // merged touched half tiles (tile.k / 2 keys) in half_pool_ (with halves)
  };
  /// What count_banded counts: the tile shape, the outer tiles (k-tile columns or q-tile rows), and the optional
  /// counts (partial_slices, first_inner / last_inner, idle_half).
  struct Counting {
    TileShape tile;
    bool columns = false;
    bool with_slices = false;
    bool with_spans = false;
    bool with_idle_halves = false;  ///< OuterTileCounts::idle_half (KernelParams::idle_half_tile_us)
  };
  static Counting counting_of(const KernelCostModel& model);
  /// Groups `list` into bands; reads only tile.k of the tile shape; `halves`: also each band's touched half tiles.
  void make_bands(const std::vector<Slice>& list, const TileShape& tile, bool halves);
  /// The counts of the list make_bands banded last, from its bands, for a tile shape with counting.tile's k tile
  /// (and with halves when counting.with_idle_halves). A tile has one idle key half where a merged run of a row's
  /// touched half tiles starts or ends inside it (as MaskTiling's with_idle_halves).
  void count_banded(int64_t seqlen_q, int64_t seqlen_k, const Counting& counting, OuterTileCounts& out);
  /// count() of one list for `model`, with the bands of k tile `banded_k` made already (0: none; updated), with
  /// half tiles or not (`banded_halves`, updated); bands made here get half tiles when `model` or `band_halves`
  /// asks for them (the next model's, when one call counts for two).
  void count_for(const std::vector<Slice>& list, int64_t seqlen_q, int64_t seqlen_k, const KernelCostModel& model,
                 bool band_halves, int64_t& banded_k, bool& banded_halves, OuterTileCounts& out);
  // The union of several lists of intervals (each sorted by begin, disjoint), merged into `out`; returns its size
  // in tiles. Up to kDirectMergeLists lists are merged straight into `out`, more pairwise first.
  static constexpr size_t kDirectMergeLists = 4;
  int64_t merge_union(std::span<const Interval* const> lists, std::span<const uint32_t> sizes,
                      std::vector<Interval>& out);

  std::vector<uint32_t> order_;
  std::vector<Band> bands_;
  double banded_area_ = 0;  // the cells of the list make_bands banded (summed in list order, as before)
  std::vector<Interval> touched_pool_, full_pool_, half_pool_, sorted_, merged_, union_touched_, union_full_,
      union_halves_;
  std::vector<const Interval*> lists_;
  std::vector<uint32_t> sizes_;
  std::vector<uint32_t> active_, signature_, row_signature_;
  // k-column items: per column, the differences (column c's less column c - 1's) of the rows whose U and F hold it
  // and of the slices those rows meet; their prefix sums are the column's tiles, full tiles and slices.
  struct ColumnDiff {
    struct Count {
      int64_t rows = 0, slices = 0;
    };
    Count touched, full;  // of U, of F
  };
  std::vector<ColumnDiff> column_diffs_;
  std::vector<int64_t> idle_columns_;  // the current group's tiles with one idle half (count_banded with halves)
  // A pairing grid's first and last q-tile row per k-tile column (OuterTileCounts::first_inner, last_inner): each
  // group's touched intervals, painted onto the columns not painted yet, first in group order, then in reverse.
  struct GroupIntervals {
    int32_t first_row, last_row;
    uint32_t at, n;  // in group_intervals_
  };
  std::vector<GroupIntervals> groups_;
  std::vector<Interval> group_intervals_;
  FirstPainter painter_;
  void paint_first_and_last(int64_t columns, OuterTileCounts& out);
  std::vector<OuterTileCounts> per_list_;
};

}  // namespace lcab::perf
