#include "model/perf/grid_item_tiles.h"

#include <algorithm>
#include <limits>

#include "model/error.h"

namespace lcab::perf {
namespace {

// Real rows of a token map within buffer rows [lo, hi), in tiles of `tile` rows: buffer tile, global tile, tiles.
struct TileRunOfMap {
  int64_t buffer = 0;
  int64_t global = 0;
  int64_t tiles = 0;
};

std::vector<TileRunOfMap> tile_runs(const cp::TokenMap& map, int64_t tile, int64_t lo, int64_t hi) {
  std::vector<TileRunOfMap> runs;
  int64_t row = 0;
  for (const cp::Segment& s : map.segments) {
    const int64_t a = std::max(lo, row), b = std::min(hi, row + s.length);
    if (a < b && !s.pad) runs.push_back({a / tile, (s.global_begin + a - row) / tile, (b - a) / tile});
    row += s.length;
  }
  return runs;
}

// Global tile of each buffer tile in [first, first + n) (-1: pad or outside the map).
std::vector<int64_t> global_tiles(const std::vector<TileRunOfMap>& runs, int64_t first, int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n), -1);
  for (const TileRunOfMap& r : runs)
    for (int64_t i = std::max(r.buffer, first); i < std::min(r.buffer + r.tiles, first + n); ++i)
      out[static_cast<size_t>(i - first)] = r.global + (i - r.buffer);
  return out;
}

// Positions (global tiles) of a line given by runs, counted run by run or, when the runs cover most of the line
// (an allgather item's keys: every rank's block but one), as the whole line minus the gaps between them.
class PositionSet {
 public:
  PositionSet(const std::vector<TileRunOfMap>& runs, int64_t line_length) : line_length_(line_length) {
    for (const TileRunOfMap& r : runs) direct_.push_back({r.global, r.global + r.tiles});
    std::sort(direct_.begin(), direct_.end());
    std::vector<std::pair<int64_t, int64_t>> gaps;
    int64_t covered = 0;
    for (const auto& [begin, end] : direct_) {
      if (begin > covered) gaps.push_back({covered, begin});
      covered = std::max(covered, end);
    }
    if (covered < line_length) gaps.push_back({covered, line_length});
    if (gaps.size() + 1 < direct_.size()) {
      direct_ = std::move(gaps);
      complement_ = true;
    }
  }
  int64_t count(const TileGrid& grid, int head, int64_t line) const {
    int64_t n = complement_ ? grid.count(head, line, 0, line_length_) : 0;
    for (const auto& [begin, end] : direct_) n += (complement_ ? -1 : 1) * grid.count(head, line, begin, end);
    return n;
  }

 private:
  int64_t line_length_;
  std::vector<std::pair<int64_t, int64_t>> direct_;  ///< the runs, or the gaps when complement_
  bool complement_ = false;
};

}  // namespace

GridItemTiler::GridItemTiler(std::array<const TileGrid*, 2> grids, std::array<bool, 2> column_items)
    : grids_(grids), column_items_(column_items) {
  for (int p = 0; p < 2; ++p) {
    const TileGrid* g = grids_[p];
    if (!g) continue;
    LCAB_CHECK(g->lines() == (column_items_[p] ? TileGrid::Lines::kColumns : TileGrid::Lines::kRows),
               "a tile grid's lines must match its pass's work item");
    if (!main_) main_ = g;
    q_step_ = std::max<int64_t>(q_step_, g->shape().q);
    k_step_ = std::max<int64_t>(k_step_, g->shape().k);
  }
  LCAB_CHECK(main_ != nullptr, "a grid item tiler needs the tile grid of at least one pass");
}

bool GridItemTiler::aligned(const cp::TokenMap& map, bool kv) const {
  for (const TileGrid* g : grids_) {
    if (!g) continue;
    const int64_t tile = kv ? g->shape().k : g->shape().q;
    int64_t row = 0;
    for (const cp::Segment& s : map.segments) {
      if (row % tile != 0 || s.length % tile != 0 || (!s.pad && s.global_begin % tile != 0)) return false;
      row += s.length;
    }
  }
  return true;
}

std::optional<GridItem> GridItemTiler::item(const cp::TokenMap& q_map, int64_t q_begin, int64_t q_end,
                                            const cp::TokenMap& k_map, const std::vector<int>& head_lists) const {
  // Bounding box from the main grid: lines with a tile on one axis, first and last touched positions on the other.
  const bool rows = main_->lines() == TileGrid::Lines::kRows;
  const int64_t bq = main_->shape().q, bk = main_->shape().k;
  const std::vector<TileRunOfMap> line_runs =
      rows ? tile_runs(q_map, bq, q_begin, q_end) : tile_runs(k_map, bk, 0, std::numeric_limits<int64_t>::max());
  const std::vector<TileRunOfMap> position_runs =
      rows ? tile_runs(k_map, bk, 0, std::numeric_limits<int64_t>::max()) : tile_runs(q_map, bq, q_begin, q_end);
  // Lines with a tile, then the first (last) position runs in buffer order holding one.
  const PositionSet positions(position_runs, main_->line_length());
  std::vector<int64_t> lines;  // global lines with a tile
  int64_t line_lo = std::numeric_limits<int64_t>::max(), line_hi = -1;
  for (const TileRunOfMap& lr : line_runs) {
    for (int64_t i = 0; i < lr.tiles; ++i) {
      const int64_t line = lr.global + i;
      bool any = false;
      for (size_t h = 0; h < head_lists.size() && !any; ++h) any = positions.count(*main_, head_lists[h], line) > 0;
      if (!any) continue;
      lines.push_back(line);
      line_lo = std::min(line_lo, lr.buffer + i);
      line_hi = std::max(line_hi, lr.buffer + i + 1);
    }
  }
  int64_t pos_lo = std::numeric_limits<int64_t>::max(), pos_hi = -1;
  for (const TileRunOfMap& pr : position_runs) {
    for (int64_t line : lines)
      for (int h : head_lists) {
        const int64_t f = main_->first(h, line, pr.global, pr.global + pr.tiles);
        if (f >= 0) pos_lo = std::min(pos_lo, pr.buffer + f - pr.global);
      }
    if (pos_lo != std::numeric_limits<int64_t>::max()) break;
  }
  for (auto pr = position_runs.rbegin(); pr != position_runs.rend(); ++pr) {
    for (int64_t line : lines)
      for (int h : head_lists) {
        const int64_t l = main_->last_end(h, line, pr->global, pr->global + pr->tiles);
        if (l >= 0) pos_hi = std::max(pos_hi, pr->buffer + l - pr->global);
      }
    if (pos_hi >= 0) break;
  }
  if (line_hi < 0) return std::nullopt;
  GridItem item;
  item.q_rows = rows ? TokenRange{line_lo * bq, line_hi * bq} : TokenRange{pos_lo * bq, pos_hi * bq};
  item.k_rows = rows ? TokenRange{pos_lo * bk, pos_hi * bk} : TokenRange{line_lo * bk, line_hi * bk};

  // Per pass: every outer tile of the item's local tiling, per head list.
  for (int p = 0; p < 2; ++p) {
    const TileGrid* g = grids_[p];
    if (!g) continue;
    const int64_t tq = g->shape().q, tk = g->shape().k;
    const bool columns = column_items_[p];
    const int64_t outer_tile = columns ? tk : tq;
    const TokenRange outer_rows = columns ? item.k_rows : item.q_rows;
    const int64_t n = outer_rows.length() / outer_tile;
    const std::vector<int64_t> outer_global =
        global_tiles(columns ? tile_runs(k_map, tk, item.k_rows.begin, item.k_rows.end)
                             : tile_runs(q_map, tq, item.q_rows.begin, item.q_rows.end),
                     outer_rows.begin / outer_tile, n);
    const PositionSet inner(columns ? tile_runs(q_map, tq, item.q_rows.begin, item.q_rows.end)
                                    : tile_runs(k_map, tk, item.k_rows.begin, item.k_rows.end),
                            g->line_length());
    std::vector<OuterTileCounts>& per_head = item.counts[p];
    per_head.resize(head_lists.size());
    for (size_t h = 0; h < head_lists.size(); ++h) {
      OuterTileCounts& c = per_head[h];
      c.tiles.assign(static_cast<size_t>(n), 0);
      int64_t touched = 0;
      for (int64_t o = 0; o < n; ++o) {
        const int64_t line = outer_global[static_cast<size_t>(o)];
        if (line < 0) continue;
        const int64_t t = inner.count(*g, head_lists[h], line);
        c.tiles[static_cast<size_t>(o)] = t;
        touched += t;
      }
      c.area = static_cast<double>(touched * tq * tk);
    }
  }
  return item;
}

int64_t GridItemTiler::cells_from_row(const cp::TokenMap& q_map, int64_t at, int64_t q_end, const cp::TokenMap& k_map,
                                      const std::vector<int>& head_lists) const {
  const bool rows = main_->lines() == TileGrid::Lines::kRows;
  const int64_t bq = main_->shape().q, bk = main_->shape().k;
  const std::vector<TileRunOfMap> q_runs = tile_runs(q_map, bq, at, q_end);
  const std::vector<TileRunOfMap> k_runs = tile_runs(k_map, bk, 0, std::numeric_limits<int64_t>::max());
  const std::vector<TileRunOfMap>& line_runs = rows ? q_runs : k_runs;
  const PositionSet positions(rows ? k_runs : q_runs, main_->line_length());
  int64_t tiles = 0;
  for (int h : head_lists)
    for (const TileRunOfMap& lr : line_runs)
      for (int64_t i = 0; i < lr.tiles; ++i) tiles += positions.count(*main_, h, lr.global + i);
  return tiles * bq * bk;
}

}  // namespace lcab::perf
