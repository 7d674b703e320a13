// Compute items of tile-aligned masks counted on tile grids (model/mask_tile_grid.h) instead of from their slices:
// for an item given by its q token map (a window of its rows) and its k token map, the bounding box of its cells
// (as make_item sets q_rows and k_rows) and, per pass, the tile counts of every outer tile of the kernel's work
// item per head list (KernelCostModel::cost_from_tiles). Exactly the numbers the item's local slices give: when
// every segment of both maps starts and ends on tile bounds (global and buffer rows), each local tile is one
// tile of the global grid.
//
// A block-sparse item costs O(outer tiles x segments x words) instead of O(slices), and nothing is materialized.
// With a GridItemScratch kept across calls (one per thread), an item allocates nothing once the buffers have grown,
// and the lines of the grid the bounding box is read from are counted once (the ring tables' millions of items).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/cp/schedule.h"
#include "model/mask_tile_grid.h"
#include "model/perf/kernel_cost.h"

namespace lcab::perf {

/// What an item is for the kernel cost model: its bounding box and, per pass asked for, its tile counts.
struct GridItem {
  TokenRange q_rows;  ///< q buffer rows (the item's q_rows)
  TokenRange k_rows;  ///< k buffer rows (the item's k_rows)
  std::array<std::vector<OuterTileCounts>, 2> counts;  ///< [pass][head list]; empty for a pass not asked for
};

/// Buffers item() reuses between calls; one per thread (a tiler itself holds no mutable state).
struct GridItemScratch {
  struct Run {  ///< real rows of a token map in a window, in tiles: buffer tile, global tile, tiles
    int64_t buffer = 0;
    int64_t global = 0;
    int64_t tiles = 0;
  };
  std::vector<Run> line_runs, position_runs, outer_runs, inner_runs;
  std::vector<std::pair<int64_t, int64_t>> direct, gaps;  ///< a position set's runs and gaps (global tiles)
  std::vector<int64_t> line_counts;   ///< [head list][line of line_runs, in order]: the main grid's counts
  std::vector<int64_t> line_buffer;   ///< buffer tile of each line of line_runs
  std::vector<int64_t> lines;         ///< lines with a tile: global, or indices into line_global when gathered
  std::vector<int64_t> outer_global;  ///< global tile of each outer tile of the item (-1: pad)
  std::vector<int64_t> line_global;   ///< global tile of each line of line_runs, in order
  std::vector<uint64_t> words;        ///< gathered bits of short position runs: [line][head list][run]
  std::vector<int64_t> word_counts;   ///< their tile counts: [line][head list]
};

class GridItemTiler {
 public:
  /// grids[pass]: the grid of that pass's kernel model (lines kRows for q-row work items, kColumns otherwise, the
  /// model's tile shape), null for a pass not asked for; at least one non-null. column_items[pass]: whether the
  /// pass's work item is a k-tile column. All grids must be of the same mask.
  /// spans[pass]: also count each k-tile column's first and last q tile (OuterTileCounts::first_inner, last_inner),
  /// for a model whose grid pairs documents (KernelScheduler::kGridPairedDocuments).
  GridItemTiler(std::array<const TileGrid*, 2> grids, std::array<bool, 2> column_items,
                std::array<bool, 2> spans = {false, false});

  /// True when every segment of `map` (pads included) starts, in the buffer and globally, and ends on a multiple
  /// of the tiles of every grid on that axis (q: kv = false; k: kv = true).
  bool aligned(const cp::TokenMap& map, bool kv) const;
  /// The item of `head_lists` (head masks of the grids) for the q rows [q_begin, q_end) of q_map against k_map,
  /// or std::nullopt when it has no cell. Both maps must be aligned() and the window on tile bounds.
  std::optional<GridItem> item(const cp::TokenMap& q_map, int64_t q_begin, int64_t q_end, const cp::TokenMap& k_map,
                               const std::vector<int>& head_lists) const;
  /// The same into `out` (its vectors reused; partial counts left empty), false when the item has no cell (`out`
  /// then unspecified). Equal to item() value for value.
  bool item_into(const cp::TokenMap& q_map, int64_t q_begin, int64_t q_end, const cp::TokenMap& k_map,
                 const std::vector<int>& head_lists, GridItem& out, GridItemScratch& scratch) const;
  /// Cells of the item at q buffer rows >= at (summed over head lists), for at on a tile bound of the q axis.
  int64_t cells_from_row(const cp::TokenMap& q_map, int64_t at, int64_t q_end, const cp::TokenMap& k_map,
                         const std::vector<int>& head_lists) const;
  /// The q tile height every window bound must be a multiple of (the largest of the grids').
  int64_t q_step() const { return q_step_; }

 private:
  std::array<const TileGrid*, 2> grids_;
  std::array<bool, 2> column_items_;
  std::array<bool, 2> spans_;
  const TileGrid* main_ = nullptr;  ///< the grid the bounding box is read from
  int64_t q_step_ = 0;
  int64_t k_step_ = 0;
  /// When the other grid is the columns grid of the main rows grid's k tiles, with q tiles dividing the main's:
  /// its q tiles per main q tile (its counts are then read off the main grid's gathered bits); else 0.
  int64_t columns_per_main_tile_ = 0;
};

}  // namespace lcab::perf
