#include "model/mask_tiling.h"

#include <algorithm>

#include "model/error.h"

namespace lcab {
namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Interval {
  int64_t begin;
  int64_t end;
};
}  // namespace

MaskTiling::MaskTiling(const std::vector<Slice>& slices, int64_t seqlen, int64_t seqlen_k, TileShape shape,
                       bool with_row_slices, bool with_idle_halves)
    : shape_(shape), seqlen_(seqlen) {
  // Full tiles are bounded by slice key ranges, which validation keeps inside [0, seqlen_k): no clipping check
  // on the key side is needed here.
  LCAB_CHECK(seqlen_k > 0, "key sequence length must be positive, got " << seqlen_k);
  LCAB_CHECK(shape.q > 0 && shape.k > 0, "tile shape must be positive, got " << shape.q << "x" << shape.k);
  LCAB_CHECK(seqlen > 0, "sequence length must be positive, got " << seqlen);
  LCAB_CHECK(!with_idle_halves || shape.k % 2 == 0,
             "idle key halves need an even k tile (two halves), got " << shape.k);
  const int64_t bq = shape.q;
  const int64_t bk = shape.k;
  const int64_t hk = bk / 2;  // keys per half tile (with_idle_halves)
  const int64_t rows = ceil_div(seqlen, bq);
  if (with_idle_halves) idle_offsets_.assign(1, 0);
  row_offsets_.assign(1, 0);
  row_offsets_.reserve(rows + 1);
  row_touched_.reserve(rows);
  row_partial_.reserve(rows);
  row_slices_.resize(rows);

  // Slices sorted by q_begin (Mask keeps them so; sort indices to be safe for raw lists).
  std::vector<int32_t> order(slices.size());
  for (size_t n = 0; n < slices.size(); ++n) order[n] = static_cast<int32_t>(n);
  const auto by_q_begin = [&](int32_t a, int32_t b) { return slices[a].q_begin < slices[b].q_begin; };
  if (!std::is_sorted(order.begin(), order.end(), by_q_begin)) std::sort(order.begin(), order.end(), by_q_begin);

  std::vector<int32_t> active;
  size_t next = 0;
  std::vector<Interval> touched;
  std::vector<Interval> full;
  std::vector<Interval> touched_halves;  // the row's touched half tiles (with_idle_halves)
  counts_.q_tile_rows = rows;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t row_begin = r * bq;
    const int64_t row_end = std::min(seqlen, row_begin + bq);
    while (next < order.size() && slices[order[next]].q_begin < row_end) active.push_back(order[next++]);
    std::erase_if(active, [&](int32_t n) { return slices[n].q_end <= row_begin; });

    touched.clear();
    full.clear();
    touched_halves.clear();
    for (int32_t n : active) {
      const Slice& s = slices[n];
      const int64_t a = std::max(row_begin, s.q_begin);
      const int64_t b = std::min(row_end, s.q_end);
      if (a >= b) continue;
      if (with_row_slices) row_slices_[r].push_back(n);
      if (s.type == SliceType::kFull) {
        // Every row sees [k_begin, k_end): the tiles it meets, and those inside it when it covers the whole row.
        touched.push_back({s.k_begin / bk, ceil_div(s.k_end, bk)});
        if (with_idle_halves) touched_halves.push_back({s.k_begin / hk, ceil_div(s.k_end, hk)});
        if (a == row_begin && b == row_end && row_end - row_begin == bq) {
          const int64_t lo = ceil_div(s.k_begin, bk), hi = s.k_end / bk;
          if (hi > lo) full.push_back({lo, hi});
        }
        continue;
      }
      // Bounds are monotone in q: the union of the rows' key ranges is [lo(first non-empty), hi(last)).
      // Find the first and last non-empty rows: for causal with d < 0 the first rows are empty; for
      // invcausal the last rows may be.
      int64_t first = a;
      int64_t last = b - 1;
      TokenRange first_keys = s.keys_of_row(first);
      if (first_keys.empty()) {
        // causal-type emptiness at the top: rows see keys once i + d + 1 > 0
        const int64_t d = s.k_length() - s.q_length();
        if (s.type == SliceType::kCausal) first = std::max(first, s.q_begin - d);
        else first = b;  // bicausal with d < 0 or invcausal past Lk: all later rows empty too
        if (first >= b) continue;
        first_keys = s.keys_of_row(first);
      }
      TokenRange last_keys = s.keys_of_row(last);
      if (last_keys.empty()) {
        // only invcausal empties at the bottom: rows with i >= Lk
        last = std::min(last, s.q_begin + s.k_length() - 1);
        if (last < first) continue;
        last_keys = s.keys_of_row(last);
      }
      touched.push_back({first_keys.begin / bk, ceil_div(last_keys.end, bk)});
      if (with_idle_halves) touched_halves.push_back({first_keys.begin / hk, ceil_div(last_keys.end, hk)});
      if (a == row_begin && b == row_end && row_end - row_begin == bq) {
        // A k tile is full when it lies inside every row's range: [lo(last row), hi(first row)).
        const TokenRange top = s.keys_of_row(row_begin);
        const TokenRange bottom = s.keys_of_row(row_end - 1);
        if (!top.empty() && !bottom.empty()) {
          const int64_t lo = ceil_div(bottom.begin, bk);
          const int64_t hi = top.end / bk;
          if (hi > lo) full.push_back({lo, hi});
        }
      }
    }
    // Slices of a row come in k order for most masks: sort only what is not.
    const auto by_begin = [](const Interval& x, const Interval& y) { return x.begin < y.begin; };
    if (!std::is_sorted(touched.begin(), touched.end(), by_begin)) std::sort(touched.begin(), touched.end(), by_begin);
    if (!std::is_sorted(full.begin(), full.end(), by_begin)) std::sort(full.begin(), full.end(), by_begin);
    // Merge touched intervals, then cut each merged interval by the full intervals inside it.
    int64_t row_total = 0;
    int64_t row_partial = 0;
    size_t f = 0;
    auto emit = [&](int64_t begin, int64_t end, bool partial) {
      if (end <= begin) return;
      if (!runs_.empty() && static_cast<int64_t>(runs_.size()) > row_offsets_.back() &&
          runs_.back().k_tile_end == begin && runs_.back().partial == partial) {
        runs_.back().k_tile_end = end;
      } else {
        runs_.push_back({begin, end, partial});
      }
      row_total += end - begin;
      if (partial) row_partial += end - begin;
    };
    for (size_t t = 0; t < touched.size();) {
      int64_t begin = touched[t].begin;
      int64_t end = touched[t].end;
      for (++t; t < touched.size() && touched[t].begin <= end; ++t) end = std::max(end, touched[t].end);
      int64_t cursor = begin;
      while (f < full.size() && full[f].begin < end) {
        const int64_t fb = std::max(full[f].begin, cursor);
        const int64_t fe = std::min(full[f].end, end);
        if (fe > fb) {
          emit(cursor, fb, true);
          emit(fb, fe, false);
          cursor = fe;
        }
        if (full[f].end <= end) ++f;
        else break;
      }
      emit(cursor, end, true);
    }
    if (with_idle_halves) {
      // The row's touched half tiles merged into runs, each giving the tiles it leaves one half of.
      if (!std::is_sorted(touched_halves.begin(), touched_halves.end(), by_begin))
        std::sort(touched_halves.begin(), touched_halves.end(), by_begin);
      const size_t row_first = idle_tiles_.size();
      for (size_t t = 0; t < touched_halves.size();) {
        const int64_t b = touched_halves[t].begin;
        int64_t e = touched_halves[t].end;
        for (++t; t < touched_halves.size() && touched_halves[t].begin <= e; ++t)
          e = std::max(e, touched_halves[t].end);
        append_idle_half_tiles(b, e, idle_tiles_, &idle_bits_);
      }
      idle_offsets_.push_back(static_cast<int64_t>(idle_tiles_.size()));
      counts_.idle_half += static_cast<int64_t>(idle_tiles_.size() - row_first);
    }
    row_offsets_.push_back(static_cast<int64_t>(runs_.size()));
    row_touched_.push_back(row_total);
    row_partial_.push_back(row_partial);
    counts_.touched += row_total;
    counts_.partial += row_partial;
    if (row_total > 0) ++counts_.nonempty_rows;
    counts_.max_tiles_per_row = std::max(counts_.max_tiles_per_row, row_total);
  }
  counts_.full = counts_.touched - counts_.partial;
}

TileCounts count_tiles(const Mask& mask, TileShape shape) {
  TileCounts total;
  for (int h = 0; h < mask.num_head_masks(); ++h) {
    const TileCounts c = MaskTiling(mask.slices(h), mask.seqlen(), shape).counts();
    total.touched += c.touched;
    total.full += c.full;
    total.partial += c.partial;
    total.q_tile_rows += c.q_tile_rows;
    total.nonempty_rows += c.nonempty_rows;
    total.max_tiles_per_row = std::max(total.max_tiles_per_row, c.max_tiles_per_row);
  }
  return total;
}

}  // namespace lcab
