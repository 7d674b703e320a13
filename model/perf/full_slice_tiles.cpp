#include "model/perf/full_slice_tiles.h"

#include <algorithm>
#include <array>

#include "model/error.h"
#include "model/mask_tiling.h"
#include "model/tile_divider.h"

namespace lcab::perf {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Appends [begin, end) to the merged intervals out[first..] (sorted by begin), joining it with the last one when
// they meet.
template <class Interval>
[[gnu::always_inline]] inline void append_merged(std::vector<Interval>& out, size_t first, int64_t begin, int64_t end) {
  if (out.size() > first && begin <= out.back().end) out.back().end = std::max(out.back().end, end);
  else out.push_back({begin, end});
}

}  // namespace

bool all_full_slices(std::span<const std::vector<Slice>> lists) {
  for (const std::vector<Slice>& list : lists)
    for (const Slice& s : list)
      if (s.type != SliceType::kFull) return false;
  return true;
}

void FullSliceTiler::make_bands(const std::vector<Slice>& list, const TileShape& tile, bool halves) {
  LCAB_CHECK(tile.k > 0, "tile counts need a positive k tile, got " << tile.k);
  order_.resize(list.size());
  for (size_t n = 0; n < list.size(); ++n) order_[n] = static_cast<uint32_t>(n);
  const auto before = [&](uint32_t a, uint32_t b) {
    const Slice& x = list[a];
    const Slice& y = list[b];
    if (x.q_begin != y.q_begin) return x.q_begin < y.q_begin;
    if (x.q_end != y.q_end) return x.q_end < y.q_end;
    return x.k_begin < y.k_begin;
  };
  if (!std::is_sorted(order_.begin(), order_.end(), before)) std::sort(order_.begin(), order_.end(), before);
  banded_area_ = 0;
  for (const Slice& s : list) banded_area_ += static_cast<double>(s.area());
  bands_.clear();
  touched_pool_.clear();
  full_pool_.clear();
  half_pool_.clear();
  const int64_t bk = tile.k;
  LCAB_CHECK(!halves || bk % 2 == 0, "idle key halves need an even k tile, got " << bk);
  // make_bands divides every slice's keys six times.
  const TileDivider by_tile(bk), by_half(halves ? bk / 2 : 1);
  for (size_t n = 0; n < order_.size();) {
    const Slice& first = list[order_[n]];
    Band b{first.q_begin, first.q_end, 0, static_cast<uint32_t>(touched_pool_.size()), 0,
           static_cast<uint32_t>(full_pool_.size()), 0, 0, 0, static_cast<uint32_t>(half_pool_.size()), 0};
    for (; n < order_.size(); ++n) {
      const Slice& s = list[order_[n]];
      if (s.q_begin != b.q_begin || s.q_end != b.q_end) break;
      ++b.slices;
      append_merged(touched_pool_, b.touched_at, by_tile.quotient(s.k_begin), by_tile.ceil_quotient(s.k_end));
      const int64_t lo = by_tile.ceil_quotient(s.k_begin), hi = by_tile.quotient(s.k_end);
      if (hi > lo) append_merged(full_pool_, b.full_at, lo, hi);
      if (halves) append_merged(half_pool_, b.half_at, by_half.quotient(s.k_begin), by_half.ceil_quotient(s.k_end));
    }
    b.half_n = static_cast<uint32_t>(half_pool_.size()) - b.half_at;
    b.touched_n = static_cast<uint32_t>(touched_pool_.size()) - b.touched_at;
    b.full_n = static_cast<uint32_t>(full_pool_.size()) - b.full_at;
    for (uint32_t i = 0; i < b.touched_n; ++i)
      b.touched_tiles += touched_pool_[b.touched_at + i].end - touched_pool_[b.touched_at + i].begin;
    for (uint32_t i = 0; i < b.full_n; ++i) b.full_tiles += full_pool_[b.full_at + i].end - full_pool_[b.full_at + i].begin;
    bands_.push_back(b);
  }
}

int64_t FullSliceTiler::merge_union(std::span<const Interval* const> lists, std::span<const uint32_t> sizes,
                                    std::vector<Interval>& out) {
  out.clear();
  if (lists.size() == 2 && sizes[0] > 0 && sizes[1] > 0) {
    // Two bands (a row across one block edge, the common case): a two-way merge without branches on the data
    // (which band's interval comes next, and whether it joins the union's current interval, are both close to
    // coin flips), list 0 first on equal begins as below. The current interval is stored at out[n] on every step
    // and n advances when the next interval starts past it.
    const Interval *a = lists[0], *a_end = a + sizes[0], *b = lists[1], *b_end = b + sizes[1];
    out.resize(static_cast<size_t>(sizes[0]) + sizes[1]);
    Interval* o = out.data();
    Interval run = b->begin < a->begin ? *b++ : *a++;
    size_t n = 0;
    int64_t size = 0;
    // Selections by masks (all ones or zero), which the compiler keeps as arithmetic, not branches.
    const auto take = [&](Interval i) {
      const int64_t joins = -static_cast<int64_t>(i.begin <= run.end);
      o[n] = run;
      n += static_cast<size_t>(1 + joins);
      size += ~joins & (run.end - run.begin);
      run.begin = (run.begin & joins) | (i.begin & ~joins);
      run.end = std::max((run.end & joins) | (i.end & ~joins), i.end);
    };
    const Interval* from[2];
    while (a != a_end && b != b_end) {
      const size_t from_b = static_cast<size_t>(b->begin < a->begin);
      from[0] = a;
      from[1] = b;
      const Interval i = *from[from_b];
      a += 1 - from_b;
      b += from_b;
      take(i);
    }
    for (; a != a_end; ++a) take(*a);
    for (; b != b_end; ++b) take(*b);
    o[n++] = run;
    size += run.end - run.begin;
    out.resize(n);
    return size;
  }
  if (lists.size() <= kDirectMergeLists) {
    // A few lists (two or three bands meet a row): their intervals taken in order of begin straight into the
    // union, the lowest-numbered list first on equal begins (the order the pairwise merge below gives; the union
    // of intervals joined in order of begin is the same in any order of equal begins).
    std::array<uint32_t, kDirectMergeLists> at{};
    for (;;) {
      size_t next = lists.size();
      for (size_t n = 0; n < lists.size(); ++n)
        if (at[n] < sizes[n] && (next == lists.size() || lists[n][at[n]].begin < lists[next][at[next]].begin)) next = n;
      if (next == lists.size()) break;
      const Interval& i = lists[next][at[next]++];
      append_merged(out, 0, i.begin, i.end);
    }
    int64_t size = 0;
    for (const Interval& i : out) size += i.end - i.begin;
    return size;
  }
  // Each list is sorted by begin: merged pairwise into sorted_.
  const auto by_begin = [](const Interval& a, const Interval& b) { return a.begin < b.begin; };
  sorted_.assign(lists[0], lists[0] + sizes[0]);
  for (size_t n = 1; n < lists.size(); ++n) {
    merged_.resize(sorted_.size() + sizes[n]);
    std::merge(sorted_.begin(), sorted_.end(), lists[n], lists[n] + sizes[n], merged_.begin(), by_begin);
    sorted_.swap(merged_);
  }
  for (const Interval& i : sorted_) append_merged(out, 0, i.begin, i.end);
  int64_t size = 0;
  for (const Interval& i : out) size += i.end - i.begin;
  return size;
}

FullSliceTiler::Counting FullSliceTiler::counting_of(const KernelCostModel& model) {
  const KernelParams& p = model.params();
  Counting c;
  c.tile = p.tile;
  c.columns = p.work_item != KernelWorkItem::kQRowPerHead;
  c.with_slices = p.slice_us && p.slice_us->value > 0;
  c.with_spans = c.columns && p.scheduler == KernelScheduler::kGridPairedDocuments;
  c.with_idle_halves = p.has_idle_halves();
  return c;
}

void FullSliceTiler::count(const std::vector<Slice>& list, int64_t seqlen_q, int64_t seqlen_k,
                           const KernelCostModel& model, OuterTileCounts& out) {
  int64_t banded_k = 0;
  bool banded_halves = false;
  count_for(list, seqlen_q, seqlen_k, model, false, banded_k, banded_halves, out);
}

void FullSliceTiler::count_for(const std::vector<Slice>& list, int64_t seqlen_q, int64_t seqlen_k,
                               const KernelCostModel& model, bool band_halves, int64_t& banded_k,
                               bool& banded_halves, OuterTileCounts& out) {
  const Counting counting = counting_of(model);
  if (counting.tile.k != banded_k || (counting.with_idle_halves && !banded_halves)) {
    banded_halves = band_halves || counting.with_idle_halves;
    make_bands(list, counting.tile, banded_halves);
    banded_k = counting.tile.k;
  }
  count_banded(seqlen_q, seqlen_k, counting, out);
}

void FullSliceTiler::count_banded(int64_t seqlen_q, int64_t seqlen_k, const Counting& counting, OuterTileCounts& out) {
  const TileShape tile = counting.tile;
  LCAB_CHECK(seqlen_q > 0 && seqlen_k > 0 && tile.q > 0 && tile.k > 0,
             "tile counts need positive lengths and tiles, got " << seqlen_q << " x " << seqlen_k);
  const bool columns = counting.columns;
  const bool with_slices = counting.with_slices;
  const bool with_spans = counting.with_spans;
  const bool with_halves = counting.with_idle_halves;
  out.area = banded_area_;

  const int64_t bq = tile.q;
  const int64_t rows = ceil_div(seqlen_q, bq);
  const int64_t outer = columns ? ceil_div(seqlen_k, tile.k) : rows;
  out.tiles.assign(static_cast<size_t>(outer), 0);
  out.partial.assign(static_cast<size_t>(outer), 0);
  out.partial_slices.clear();
  if (with_slices) out.partial_slices.assign(static_cast<size_t>(outer), 0.0);
  out.first_inner.clear();
  out.last_inner.clear();
  out.idle_half.clear();
  if (with_halves) out.idle_half.assign(static_cast<size_t>(outer), 0);
  groups_.clear();
  group_intervals_.clear();
  if (columns) column_diffs_.assign(static_cast<size_t>(outer + 1), ColumnDiff{});

  // The current group of rows (consecutive rows meeting the same bands the same way): its U and F, their sizes,
  // the slices meeting each of its rows, and how many rows it has so far.
  const Interval* u = nullptr;
  size_t u_n = 0;
  const Interval* f = nullptr;
  size_t f_n = 0;
  int64_t u_tiles = 0, f_tiles = 0, row_slices = 0, group_rows = 0, group_begin = 0;
  // With halves: the group's tiles with one idle half (one row's; every row of the group has the same).
  std::vector<int64_t>& idle_tiles = idle_columns_;
  idle_tiles.clear();
  // Adds the group's rows and slices to the columns of runs[0, n) (their differences).
  const auto add_runs = [&](const Interval* runs, size_t n, int64_t slices, ColumnDiff::Count ColumnDiff::*which) {
    ColumnDiff* d = column_diffs_.data();
    for (size_t i = 0; i < n; ++i) {
      ColumnDiff::Count& at = d[runs[i].begin].*which;
      ColumnDiff::Count& past = d[runs[i].end].*which;
      at.rows += group_rows;
      past.rows -= group_rows;
      at.slices += slices;
      past.slices -= slices;
    }
  };
  const auto flush = [&] {
    if (!columns || group_rows == 0) return;
    for (int64_t c : idle_tiles) out.idle_half[static_cast<size_t>(c)] += group_rows;
    const int64_t s = group_rows * row_slices;
    if (with_spans && u_n > 0) {
      groups_.push_back({static_cast<int32_t>(group_begin), static_cast<int32_t>(group_begin + group_rows - 1),
                         static_cast<uint32_t>(group_intervals_.size()), static_cast<uint32_t>(u_n)});
      group_intervals_.insert(group_intervals_.end(), u, u + u_n);
    }
    add_runs(u, u_n, s, &ColumnDiff::touched);
    add_runs(f, f_n, s, &ColumnDiff::full);
  };

  // U (the touched tiles of every band the group meets), F (the full tiles of the bands covering its rows) or the
  // touched half tiles of every band it meets: the one band's list as it is, or the union of several (the tiles of
  // half tiles are not counted).
  struct TileList {
    const Interval* at;
    size_t n;
    int64_t tiles;
  };
  enum class Pool { kTouched, kFull, kHalves };
  const auto band_list = [&](const Band& band, Pool pool) -> TileList {
    switch (pool) {
      case Pool::kTouched: return {touched_pool_.data() + band.touched_at, band.touched_n, band.touched_tiles};
      case Pool::kFull: return {full_pool_.data() + band.full_at, band.full_n, band.full_tiles};
      case Pool::kHalves: break;
    }
    return {half_pool_.data() + band.half_at, band.half_n, 0};
  };
  const auto group_union = [&](Pool pool) -> TileList {
    lists_.clear();
    sizes_.clear();
    TileList only{nullptr, 0, 0};
    for (uint32_t sig : signature_) {
      if (pool == Pool::kFull && sig % 2 == 0) continue;
      only = band_list(bands_[sig / 2], pool);
      lists_.push_back(only.at);
      sizes_.push_back(static_cast<uint32_t>(only.n));
    }
    if (lists_.size() <= 1) return only;
    std::vector<Interval>& merged =
        pool == Pool::kFull ? union_full_ : pool == Pool::kTouched ? union_touched_ : union_halves_;
    const int64_t tiles = merge_union(lists_, sizes_, merged);
    return {merged.data(), merged.size(), pool == Pool::kHalves ? 0 : tiles};
  };
  // U from the union of the half tiles: tile t is touched when half 2t or 2t + 1 is, so half run [b, e) touches
  // tiles [b / 2, ceil(e / 2)), the tiles group_union(Pool::kTouched) merges from the slices (floor(floor(x / h) / 2) =
  // floor(x / 2h), and likewise for ceilings); one pass instead of a second merge of several bands.
  const auto tiles_of_halves = [&](const TileList& halves) -> TileList {
    union_touched_.clear();
    for (size_t i = 0; i < halves.n; ++i)
      append_merged(union_touched_, 0, halves.at[i].begin >> 1, (halves.at[i].end + 1) >> 1);
    int64_t tiles = 0;
    for (const Interval& i : union_touched_) tiles += i.end - i.begin;
    return {union_touched_.data(), union_touched_.size(), tiles};
  };

  active_.clear();
  size_t next = 0;
  bool have_group = false;
  std::vector<uint32_t>& signature = row_signature_;  // this row's (band, covers) pairs; signature_: the group's
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t row_begin = r * bq;
    const int64_t row_end = std::min(seqlen_q, row_begin + bq);
    const bool full_height = row_end - row_begin == bq;
    while (next < bands_.size() && bands_[next].q_begin < row_end) active_.push_back(static_cast<uint32_t>(next++));
    std::erase_if(active_, [&](uint32_t b) { return bands_[b].q_end <= row_begin; });
    signature.clear();
    for (uint32_t b : active_) {
      const Band& band = bands_[b];
      const bool covers = full_height && band.q_begin <= row_begin && band.q_end >= row_end;
      signature.push_back(b * 2 + (covers ? 1 : 0));
    }
    if (!have_group || signature != signature_) {
      flush();
      signature_.swap(signature);
      have_group = true;
      group_rows = 0;
      group_begin = r;
      row_slices = 0;
      for (uint32_t sig : signature_) row_slices += bands_[sig / 2].slices;
      TileList touched;
      if (with_halves) {
        // The group's tiles with one idle half, from the union of its bands' half tiles (append_idle_half_tiles).
        const TileList halves = group_union(Pool::kHalves);
        touched = signature_.size() > 1 ? tiles_of_halves(halves) : group_union(Pool::kTouched);
        idle_tiles.clear();
        append_idle_half_tiles(std::span<const Interval>(halves.at, halves.n), idle_tiles);
      } else {
        touched = group_union(Pool::kTouched);
      }
      const TileList full = group_union(Pool::kFull);
      u = touched.at, u_n = touched.n, u_tiles = touched.tiles;
      f = full.at, f_n = full.n, f_tiles = full.tiles;
    }
    ++group_rows;
    if (!columns) {
      const size_t at = static_cast<size_t>(r);
      out.tiles[at] = u_tiles;
      out.partial[at] = u_tiles - f_tiles;
      if (with_slices) out.partial_slices[at] = static_cast<double>(u_tiles - f_tiles) * static_cast<double>(row_slices);
      if (with_halves) out.idle_half[at] = static_cast<int64_t>(idle_tiles.size());
    }
  }
  flush();
  if (!columns) return;
  if (with_spans) paint_first_and_last(outer, out);
  int64_t touched = 0, full = 0, touched_slices = 0, full_slices = 0;
  for (int64_t c = 0; c < outer; ++c) {
    const size_t at = static_cast<size_t>(c);
    const ColumnDiff& d = column_diffs_[at];
    touched += d.touched.rows;
    full += d.full.rows;
    touched_slices += d.touched.slices;
    full_slices += d.full.slices;
    out.tiles[at] = touched;
    out.partial[at] = touched - full;
    if (with_slices) out.partial_slices[at] = static_cast<double>(touched_slices - full_slices);
  }
}

void FullSliceTiler::paint_first_and_last(int64_t columns, OuterTileCounts& out) {
  for (const bool last : {false, true}) {
    painter_.reset(columns);
    for (size_t i = 0; i < groups_.size(); ++i) {
      const GroupIntervals& g = groups_[last ? groups_.size() - 1 - i : i];
      for (uint32_t n = g.at; n < g.at + g.n; ++n)
        painter_.paint(group_intervals_[n].begin, group_intervals_[n].end, last ? g.last_row : g.first_row);
    }
    (last ? out.last_inner : out.first_inner) = painter_.values();
  }
}

void FullSliceTiler::count(std::span<const std::vector<Slice>> lists, int64_t seqlen_q, int64_t seqlen_k,
                           const KernelCostModel& model, std::vector<OuterTileCounts>& out) {
  out.resize(lists.size());
  for (size_t n = 0; n < lists.size(); ++n) count(lists[n], seqlen_q, seqlen_k, model, out[n]);
}

void FullSliceTiler::count(std::span<const std::vector<Slice>> lists, int64_t seqlen_q, int64_t seqlen_k,
                           const std::array<const KernelCostModel*, 2>& models,
                           std::array<std::vector<OuterTileCounts>, 2>& out) {
  // Bands with half tiles serve a model without idle halves too: made once when both models' k tiles agree.
  const bool same_k = models[0] && models[1] && models[0]->params().tile.k == models[1]->params().tile.k;
  bool band_halves = false;
  for (int m = 0; m < 2; ++m) {
    if (models[m]) out[m].resize(lists.size());
    band_halves = band_halves || (same_k && models[m]->params().has_idle_halves());
  }
  for (size_t n = 0; n < lists.size(); ++n) {
    int64_t banded_k = 0;  // the k tile of the bands made of list n (0: none yet), and whether they have halves
    bool banded_halves = false;
    for (int m = 0; m < 2; ++m)
      if (models[m])
        count_for(lists[n], seqlen_q, seqlen_k, *models[m], band_halves, banded_k, banded_halves, out[m][n]);
  }
}

bool FullSliceTiler::applies(const KernelCostModel& model, std::span<const std::vector<Slice>> lists) {
  return model.tile_counts_determine_cost() && !lists.empty() && all_full_slices(lists);
}

std::optional<KernelCost> FullSliceTiler::cost(const KernelCostModel& model, std::span<const std::vector<Slice>> lists,
                                               int64_t seqlen_q, int64_t seqlen_k, const AttentionShape& shape) {
  if (!applies(model, lists)) return std::nullopt;
  count(lists, seqlen_q, seqlen_k, model, per_list_);
  return model.cost_from_tiles(per_list_, seqlen_q, seqlen_k, shape);
}

}  // namespace lcab::perf
