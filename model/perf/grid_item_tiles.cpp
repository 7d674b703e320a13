#include "model/perf/grid_item_tiles.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "model/error.h"

namespace lcab::perf {
namespace {

using TileRunOfMap = GridItemScratch::Run;
using Span = std::pair<int64_t, int64_t>;

// Real rows of a token map within buffer rows [lo, hi), in tiles of `tile` rows, into `runs`.
void tile_runs(const cp::TokenMap& map, int64_t tile, int64_t lo, int64_t hi, std::vector<TileRunOfMap>& runs) {
  runs.clear();
  int64_t row = 0;
  for (const cp::Segment& s : map.segments) {
    const int64_t a = std::max(lo, row), b = std::min(hi, row + s.length);
    if (a < b && !s.pad) runs.push_back({a / tile, (s.global_begin + a - row) / tile, (b - a) / tile});
    row += s.length;
  }
}

// Global tile of each buffer tile in [first, first + n) (-1: pad or outside the map), into `out`.
void global_tiles(const std::vector<TileRunOfMap>& runs, int64_t first, int64_t n, std::vector<int64_t>& out) {
  out.assign(static_cast<size_t>(n), -1);
  for (const TileRunOfMap& r : runs)
    for (int64_t i = std::max(r.buffer, first); i < std::min(r.buffer + r.tiles, first + n); ++i)
      out[static_cast<size_t>(i - first)] = r.global + (i - r.buffer);
}

// Positions (global tiles) of a line given by runs, counted run by run or, when the runs cover most of the line
// (an allgather item's keys: every rank's block but one), as the whole line minus the gaps between them. Lives in
// the two buffers it is given.
class PositionSet {
 public:
  PositionSet(const std::vector<TileRunOfMap>& runs, int64_t line_length, std::vector<Span>& direct,
              std::vector<Span>& gaps)
      : line_length_(line_length), runs_(&runs), spans_(&direct) {
    direct.clear();
    gaps.clear();
    for (const TileRunOfMap& r : runs) direct.push_back({r.global, r.global + r.tiles});
    if (!std::is_sorted(direct.begin(), direct.end())) std::sort(direct.begin(), direct.end());
    int64_t covered = 0;
    for (const auto& [begin, end] : direct) {
      if (begin > covered) gaps.push_back({covered, begin});
      covered = std::max(covered, end);
    }
    if (covered < line_length) gaps.push_back({covered, line_length});
    direct_ = &direct;
    if (gaps.size() + 1 < direct.size()) {
      spans_ = &gaps;
      complement_ = true;
    }
  }
  int64_t count(const TileGrid& grid, int head, int64_t line) const {
    int64_t n = complement_ ? grid.count(head, line, 0, line_length_) : 0;
    for (const auto& [begin, end] : *spans_) n += (complement_ ? -1 : 1) * grid.count(head, line, begin, end);
    return n;
  }

  /// True when the runs are few, short and disjoint: then gather_lines counts every line exactly as count() does.
  bool gatherable() const {
    if (runs_->size() > kMaxGatheredRuns) return false;
    for (const TileRunOfMap& r : *runs_)
      if (r.tiles > 64) return false;
    const std::vector<Span>& direct = *direct_;
    for (size_t i = 1; i < direct.size(); ++i)
      if (direct[i].first < direct[i - 1].second) return false;
    return true;
  }
  static constexpr size_t kMaxGatheredRuns = 8;

 private:
  int64_t line_length_;
  const std::vector<TileRunOfMap>* runs_;
  const std::vector<Span>* spans_;  ///< the runs, or the gaps when complement_
  const std::vector<Span>* direct_ = nullptr;  ///< the runs, sorted
  bool complement_ = false;
};

// The lines of a grid at the positions of a few short disjoint runs (PositionSet::gatherable()), gathered as one word
// per (line, head list, run) with TileGrid::bits and counted in one call: what PositionSet::count gives for each line
// (the union of disjoint runs is their sum), without a call per run. words: [line][head list][run]; counts:
// [line][head list]. A line of -1 (a pad) has no bits.
void gather_lines(const TileGrid& grid, const std::vector<int>& head_lists, const std::vector<int64_t>& lines,
                  const std::vector<TileRunOfMap>& runs, std::vector<uint64_t>& words, std::vector<int64_t>& counts) {
  const size_t heads = head_lists.size(), per_line = heads * runs.size();
  words.resize(lines.size() * per_line);
  counts.resize(lines.size() * heads);
  uint64_t* w = words.data();
  for (int64_t line : lines)
    for (int h : head_lists)
      for (const TileRunOfMap& r : runs) *w++ = line < 0 ? 0 : grid.bits(h, line, r.global, r.tiles);
  count_word_groups(words.data(), lines.size() * heads, runs.size(), counts.data());
}

}  // namespace

GridItemTiler::GridItemTiler(std::array<const TileGrid*, 2> grids, std::array<bool, 2> column_items,
                             std::array<bool, 2> spans)
    : grids_(grids), column_items_(column_items), spans_(spans) {
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
  for (const TileGrid* g : grids_)
    if (g && g != main_ && main_->lines() == TileGrid::Lines::kRows && g->lines() == TileGrid::Lines::kColumns &&
        g->shape().k == main_->shape().k && main_->shape().q % g->shape().q == 0)
      columns_per_main_tile_ = main_->shape().q / g->shape().q;
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
  GridItemScratch scratch;
  GridItem out;
  if (!item_into(q_map, q_begin, q_end, k_map, head_lists, out, scratch)) return std::nullopt;
  return out;
}

bool GridItemTiler::item_into(const cp::TokenMap& q_map, int64_t q_begin, int64_t q_end, const cp::TokenMap& k_map,
                              const std::vector<int>& head_lists, GridItem& out, GridItemScratch& scratch) const {
  // Bounding box from the main grid: lines with a tile on one axis, first and last touched positions on the other.
  // Every line of every head list is counted here, once: the main grid's pass reads its counts from this.
  constexpr int64_t kAll = std::numeric_limits<int64_t>::max();
  const bool rows = main_->lines() == TileGrid::Lines::kRows;
  const int64_t bq = main_->shape().q, bk = main_->shape().k;
  std::vector<TileRunOfMap>& line_runs = scratch.line_runs;
  std::vector<TileRunOfMap>& position_runs = scratch.position_runs;
  if (rows) {
    tile_runs(q_map, bq, q_begin, q_end, line_runs);
    tile_runs(k_map, bk, 0, kAll, position_runs);
  } else {
    tile_runs(k_map, bk, 0, kAll, line_runs);
    tile_runs(q_map, bq, q_begin, q_end, position_runs);
  }
  const PositionSet positions(position_runs, main_->line_length(), scratch.direct, scratch.gaps);
  const size_t heads = head_lists.size();
  std::vector<int64_t>& lines = scratch.lines;  // global lines with a tile
  std::vector<int64_t>& line_buffer = scratch.line_buffer;
  std::vector<int64_t>& line_counts = scratch.line_counts;
  lines.clear();
  line_buffer.clear();
  line_counts.clear();
  std::vector<int64_t>& line_global = scratch.line_global;
  line_global.clear();
  for (const TileRunOfMap& lr : line_runs)
    for (int64_t i = 0; i < lr.tiles; ++i) {
      line_global.push_back(lr.global + i);
      line_buffer.push_back(lr.buffer + i);
    }
  // Short position runs (ring items): every line's bits gathered once, counts and first / last positions read off
  // them. Otherwise each line is counted through the position set and the bounds searched in the grid.
  const bool gathered = positions.gatherable();
  if (gathered) {
    gather_lines(*main_, head_lists, line_global, position_runs, scratch.words, line_counts);
  } else {
    for (int64_t line : line_global)
      for (size_t h = 0; h < heads; ++h) line_counts.push_back(positions.count(*main_, head_lists[h], line));
  }
  int64_t line_lo = kAll, line_hi = -1;
  for (size_t i = 0; i < line_global.size(); ++i) {
    bool any = false;
    for (size_t h = 0; h < heads; ++h) any = any || line_counts[i * heads + h] > 0;
    if (!any) continue;
    lines.push_back(gathered ? static_cast<int64_t>(i) : line_global[i]);  // gathered: the index of the line
    line_lo = std::min(line_lo, line_buffer[i]);
    line_hi = std::max(line_hi, line_buffer[i] + 1);
  }
  if (line_hi < 0) return false;
  int64_t pos_lo = kAll, pos_hi = -1;
  const size_t runs = position_runs.size();
  // The word of line index i, head list h, position run r (gathered).
  const auto word = [&](int64_t i, size_t h, size_t r) {
    return scratch.words[(static_cast<size_t>(i) * heads + h) * runs + r];
  };
  for (size_t r = 0; r < runs; ++r) {
    const TileRunOfMap& pr = position_runs[r];
    for (int64_t line : lines)
      for (size_t h = 0; h < heads; ++h) {
        if (gathered) {
          if (const uint64_t x = word(line, h, r)) pos_lo = std::min<int64_t>(pos_lo, pr.buffer + std::countr_zero(x));
          continue;
        }
        const int64_t f = main_->first(head_lists[h], line, pr.global, pr.global + pr.tiles);
        if (f >= 0) pos_lo = std::min(pos_lo, pr.buffer + f - pr.global);
      }
    if (pos_lo != kAll) break;
  }
  for (size_t r = runs; r-- > 0;) {
    const TileRunOfMap& pr = position_runs[r];
    for (int64_t line : lines)
      for (size_t h = 0; h < heads; ++h) {
        if (gathered) {
          if (const uint64_t x = word(line, h, r)) pos_hi = std::max<int64_t>(pos_hi, pr.buffer + 64 - std::countl_zero(x));
          continue;
        }
        const int64_t l = main_->last_end(head_lists[h], line, pr.global, pr.global + pr.tiles);
        if (l >= 0) pos_hi = std::max(pos_hi, pr.buffer + l - pr.global);
      }
    if (pos_hi >= 0) break;
  }
  out.q_rows = rows ? TokenRange{line_lo * bq, line_hi * bq} : TokenRange{pos_lo * bq, pos_hi * bq};
  out.k_rows = rows ? TokenRange{pos_lo * bk, pos_hi * bk} : TokenRange{line_lo * bk, line_hi * bk};

  // Per pass: every outer tile of the item's local tiling, per head list.
  for (int p = 0; p < 2; ++p) {
    const TileGrid* g = grids_[p];
    std::vector<OuterTileCounts>& per_head = out.counts[p];
    if (!g) {
      per_head.clear();
      continue;
    }
    const int64_t tq = g->shape().q, tk = g->shape().k;
    const bool columns = column_items_[p];
    const int64_t outer_tile = columns ? tk : tq;
    const TokenRange outer_rows = columns ? out.k_rows : out.q_rows;
    const int64_t n = outer_rows.length() / outer_tile;
    per_head.resize(heads);
    for (OuterTileCounts& c : per_head) {
      c.tiles.assign(static_cast<size_t>(n), 0);
      c.partial.clear();
      c.partial_slices.clear();
      c.idle_half.clear();
    }
    // A pairing model's spans (OuterTileCounts::first_inner, last_inner): read off the gathered words below where
    // there are such, else searched in the grid's lines after the counts.
    const bool want_spans = spans_[p] && columns;
    bool spans_done = false;
    const int64_t first_local = out.q_rows.begin / tq;
    if (want_spans)
      for (OuterTileCounts& c : per_head) {
        c.first_inner.assign(static_cast<size_t>(n), -1);
        c.last_inner.assign(static_cast<size_t>(n), -1);
      }
    if (g == main_) {
      // The item's outer tiles are the main grid's lines [line_lo, line_hi) in buffer tiles; positions outside
      // the bounding box hold no tile of any line with a tile, so the counts over all positions are the item's.
      for (size_t i = 0; i < line_buffer.size(); ++i) {
        const int64_t o = line_buffer[i] - line_lo;
        if (o < 0 || o >= n) continue;
        for (size_t h = 0; h < heads; ++h) per_head[h].tiles[static_cast<size_t>(o)] = line_counts[i * heads + h];
        if (!want_spans || !gathered) continue;
        // Columns as lines, q tiles as positions: the first and last set bit over the position runs (in order).
        for (size_t h = 0; h < heads; ++h) {
          OuterTileCounts& c = per_head[h];
          for (size_t r = 0; r < runs; ++r) {
            const uint64_t x = word(static_cast<int64_t>(i), h, r);
            if (x == 0) continue;
            const int64_t at = position_runs[r].buffer - first_local;
            if (c.first_inner[static_cast<size_t>(o)] < 0)
              c.first_inner[static_cast<size_t>(o)] = static_cast<int32_t>(at + std::countr_zero(x));
            c.last_inner[static_cast<size_t>(o)] = static_cast<int32_t>(at + 63 - std::countl_zero(x));
          }
        }
      }
      spans_done = gathered;
    } else if (gathered && columns_per_main_tile_ > 0) {
      // The k-tile columns of the main rows grid's gathered words: column b of the item (a buffer k tile) has, in
      // this grid, columns_per_main_tile_ touched q tiles for every main line with bit b (the mask is aligned to
      // the main grid's tiles, so a main tile's q sub-tiles are all touched or all not). Lines outside the window
      // were not gathered and hold no bit of the bounding box's q rows; positions outside the bounding box hold
      // no bit, so every set bit is inside [k_rows) and the sum is what counting this grid gives.
      const int64_t first_outer = out.k_rows.begin / tk;
      for (size_t i = 0; i < line_buffer.size(); ++i)
        for (size_t h = 0; h < heads; ++h)
          for (size_t r = 0; r < runs; ++r)
            for (uint64_t x = word(static_cast<int64_t>(i), h, r); x != 0; x &= x - 1) {
              const int64_t o = position_runs[r].buffer + std::countr_zero(x) - first_outer;
              per_head[h].tiles[static_cast<size_t>(o)] += columns_per_main_tile_;
              if (!want_spans) continue;
              // Main lines come in buffer order: the first one with bit o gives the column's first q tile (its
              // first sub-tile), the last one its last.
              const int64_t q = line_buffer[i] * columns_per_main_tile_ - first_local;
              OuterTileCounts& c = per_head[h];
              if (c.first_inner[static_cast<size_t>(o)] < 0) c.first_inner[static_cast<size_t>(o)] = static_cast<int32_t>(q);
              c.last_inner[static_cast<size_t>(o)] = static_cast<int32_t>(q + columns_per_main_tile_ - 1);
            }
      spans_done = true;
    } else {
      if (columns) {
        tile_runs(k_map, tk, out.k_rows.begin, out.k_rows.end, scratch.outer_runs);
        tile_runs(q_map, tq, out.q_rows.begin, out.q_rows.end, scratch.inner_runs);
      } else {
        tile_runs(q_map, tq, out.q_rows.begin, out.q_rows.end, scratch.outer_runs);
        tile_runs(k_map, tk, out.k_rows.begin, out.k_rows.end, scratch.inner_runs);
      }
      global_tiles(scratch.outer_runs, outer_rows.begin / outer_tile, n, scratch.outer_global);
      const PositionSet inner(scratch.inner_runs, g->line_length(), scratch.direct, scratch.gaps);
      if (inner.gatherable()) {
        gather_lines(*g, head_lists, scratch.outer_global, scratch.inner_runs, scratch.words, scratch.word_counts);
        for (size_t h = 0; h < heads; ++h)
          for (int64_t o = 0; o < n; ++o)
            per_head[h].tiles[static_cast<size_t>(o)] = scratch.word_counts[static_cast<size_t>(o) * heads + h];
      } else {
        for (size_t h = 0; h < heads; ++h)
          for (int64_t o = 0; o < n; ++o) {
            const int64_t line = scratch.outer_global[static_cast<size_t>(o)];
            if (line >= 0) per_head[h].tiles[static_cast<size_t>(o)] = inner.count(*g, head_lists[h], line);
          }
      }
    }
    if (want_spans && !spans_done) {
      // Each k-tile column's last and first q tile of the item (local), searched in the grid's line; the first ones
      // only where two neighbouring columns share their last q tile, where a pair can be made at all.
      tile_runs(k_map, tk, out.k_rows.begin, out.k_rows.end, scratch.outer_runs);
      global_tiles(scratch.outer_runs, out.k_rows.begin / tk, n, scratch.outer_global);
      tile_runs(q_map, tq, out.q_rows.begin, out.q_rows.end, scratch.inner_runs);
      const std::vector<GridItemScratch::Run>& inner = scratch.inner_runs;
      for (size_t h = 0; h < heads; ++h) {
        OuterTileCounts& c = per_head[h];
        bool shared = false;
        for (int64_t o = 0; o < n; ++o) {
          const int64_t line = scratch.outer_global[static_cast<size_t>(o)];
          if (line < 0 || c.tiles[static_cast<size_t>(o)] == 0) continue;
          for (size_t i = inner.size(); i-- > 0;) {
            const int64_t l = g->last_end(head_lists[h], line, inner[i].global, inner[i].global + inner[i].tiles);
            if (l < 0) continue;
            c.last_inner[static_cast<size_t>(o)] =
                static_cast<int32_t>(inner[i].buffer + l - 1 - inner[i].global - first_local);
            break;
          }
          shared = shared || (o > 0 && c.last_inner[static_cast<size_t>(o)] == c.last_inner[static_cast<size_t>(o) - 1]);
        }
        if (!shared) {
          c.first_inner = c.last_inner;  // as good as any first q tile: no pair can be made (OuterTileCounts)
          continue;
        }
        for (int64_t o = 0; o < n; ++o) {
          const int64_t line = scratch.outer_global[static_cast<size_t>(o)];
          if (line < 0 || c.tiles[static_cast<size_t>(o)] == 0) continue;
          for (const GridItemScratch::Run& r : inner) {
            const int64_t f = g->first(head_lists[h], line, r.global, r.global + r.tiles);
            if (f < 0) continue;
            c.first_inner[static_cast<size_t>(o)] = static_cast<int32_t>(r.buffer + f - r.global - first_local);
            break;
          }
        }
      }
    }
    for (OuterTileCounts& c : per_head) {
      int64_t touched = 0;
      for (int64_t t : c.tiles) touched += t;
      c.area = static_cast<double>(touched * tq * tk);
    }
  }
  return true;
}

int64_t GridItemTiler::cells_from_row(const cp::TokenMap& q_map, int64_t at, int64_t q_end, const cp::TokenMap& k_map,
                                      const std::vector<int>& head_lists) const {
  const bool rows = main_->lines() == TileGrid::Lines::kRows;
  const int64_t bq = main_->shape().q, bk = main_->shape().k;
  GridItemScratch scratch;
  tile_runs(q_map, bq, at, q_end, scratch.line_runs);
  tile_runs(k_map, bk, 0, std::numeric_limits<int64_t>::max(), scratch.position_runs);
  if (!rows) std::swap(scratch.line_runs, scratch.position_runs);
  const PositionSet positions(scratch.position_runs, main_->line_length(), scratch.direct, scratch.gaps);
  int64_t tiles = 0;
  for (int h : head_lists)
    for (const TileRunOfMap& lr : scratch.line_runs)
      for (int64_t i = 0; i < lr.tiles; ++i) tiles += positions.count(*main_, h, lr.global + i);
  return tiles * bq * bk;
}

}  // namespace lcab::perf
