#include "model/cp/slice_clip.h"

#include <algorithm>
#include <limits>

namespace lcab::cp {
namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;

// Row q sees keys [max(lo_const, q + lo_diag), min(hi_const, q + hi_diag)] for q in [q_begin, q_end).
struct RowBand {
  int64_t q_begin, q_end;
  int64_t lo_const, lo_diag;  // lo_diag = -kInf: no diagonal term
  int64_t hi_const, hi_diag;  // hi_diag = +kInf: no diagonal term
  int64_t lo(int64_t q) const { return std::max(lo_const, lo_diag == -kInf ? -kInf : q + lo_diag); }
  int64_t hi(int64_t q) const { return std::min(hi_const, hi_diag == kInf ? kInf : q + hi_diag); }
};

RowBand band_of(const Slice& s) {
  RowBand b{s.q_begin, s.q_end, s.k_begin, -kInf, s.k_end - 1, kInf};
  const bool diag_hi = s.type == SliceType::kCausal || s.type == SliceType::kBiCausal;
  const bool diag_lo = s.type == SliceType::kInvCausal || s.type == SliceType::kBiCausal;
  if (diag_hi) b.hi_diag = s.k_end - s.q_end;     // bottom-right aligned: k <= q + (ke - qe)
  if (diag_lo) b.lo_diag = s.k_begin - s.q_begin;  // top-left aligned: k >= q + (kb - qb)
  return b;
}

// Emits the run of rows [ra, rb) of band b, in which lo is constant or diagonal throughout (lo_is_diag) and so
// is hi; trims empty rows at both ends (the width is monotone within a run).
void emit_run(const RowBand& b, int64_t ra, int64_t rb, bool lo_is_diag, bool hi_is_diag, const ClipWindow& w,
              std::vector<Slice>& out) {
  if (ra >= rb) return;
  // width(q) = hi(q) - lo(q) + 1 is monotone here: find the non-empty rows.
  auto nonempty = [&](int64_t q) { return b.lo(q) <= b.hi(q); };
  if (!lo_is_diag && hi_is_diag) {
    // increasing width: first row with q + hi_diag >= lo_const
    ra = std::max(ra, b.lo_const - b.hi_diag);
  } else if (lo_is_diag && !hi_is_diag) {
    // decreasing width: last row with q + lo_diag <= hi_const
    rb = std::min(rb, b.hi_const - b.lo_diag + 1);
  } else if (!nonempty(ra)) {
    return;  // constant width, empty
  }
  if (ra >= rb) return;
  Slice s;
  s.q_begin = ra + w.q_shift;
  s.q_end = rb + w.q_shift;
  if (!lo_is_diag && !hi_is_diag) {
    s.type = SliceType::kFull;
    s.k_begin = b.lo_const;
    s.k_end = b.hi_const + 1;
  } else if (!lo_is_diag) {
    s.type = SliceType::kCausal;  // j <= i + (Lk - Lq) reproduces k <= q + hi_diag
    s.k_begin = b.lo_const;
    s.k_end = rb + b.hi_diag;
  } else if (!hi_is_diag) {
    s.type = SliceType::kInvCausal;  // j >= i reproduces k >= q + lo_diag
    s.k_begin = ra + b.lo_diag;
    s.k_end = b.hi_const + 1;
  } else {
    s.type = SliceType::kBiCausal;
    s.k_begin = ra + b.lo_diag;
    s.k_end = rb + b.hi_diag;
  }
  s.k_begin += w.k_shift;
  s.k_end += w.k_shift;
  out.push_back(s);
}

}  // namespace

KeySpan key_span_of_rows(const Slice& slice, int64_t q_begin, int64_t q_end) {
  const RowBand b = band_of(slice);
  const int64_t qa = std::max(q_begin, b.q_begin);
  const int64_t qb = std::min(q_end, b.q_end);
  if (qa >= qb) return {};
  return {b.lo(qa), b.hi(qb - 1)};
}

void clip_slice(const Slice& slice, const ClipWindow& w, std::vector<Slice>& out) {
  if (slice.type == SliceType::kFull) {
    // A rectangle: its intersection with the window (what the runs below give for it, without them; block-sparse
    // masks clip tens of millions of FULL slices).
    const int64_t qa = std::max(slice.q_begin, w.q_begin), qb = std::min(slice.q_end, w.q_end);
    const int64_t ka = std::max(slice.k_begin, w.k_begin), kb = std::min(slice.k_end, w.k_end);
    if (qa < qb && ka < kb)
      out.push_back({qa + w.q_shift, qb + w.q_shift, ka + w.k_shift, kb + w.k_shift, SliceType::kFull});
    return;
  }
  RowBand b = band_of(slice);
  b.q_begin = std::max(b.q_begin, w.q_begin);
  b.q_end = std::min(b.q_end, w.q_end);
  if (b.q_begin >= b.q_end) return;
  b.lo_const = std::max(b.lo_const, w.k_begin);
  b.hi_const = std::min(b.hi_const, w.k_end - 1);
  if (b.lo_const > b.hi_const) return;
  // Breakpoints: lo is diagonal from q >= lo_const - lo_diag; hi is constant from q >= hi_const - hi_diag.
  const int64_t lo_diag_from = b.lo_diag == -kInf ? kInf : b.lo_const - b.lo_diag;
  const int64_t hi_const_from = b.hi_diag == kInf ? -kInf : b.hi_const - b.hi_diag;
  int64_t cuts[4] = {b.q_begin, std::clamp(lo_diag_from, b.q_begin, b.q_end),
                     std::clamp(hi_const_from, b.q_begin, b.q_end), b.q_end};
  std::sort(cuts + 1, cuts + 3);
  for (int r = 0; r < 3; ++r) {
    const int64_t ra = cuts[r];
    const int64_t rb = cuts[r + 1];
    if (ra >= rb) continue;
    const bool lo_is_diag = ra >= lo_diag_from;
    const bool hi_is_diag = ra < hi_const_from;
    emit_run(b, ra, rb, lo_is_diag, hi_is_diag, w, out);
  }
}

}  // namespace lcab::cp
