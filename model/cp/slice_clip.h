// Clipping mask slices to rectangles: the primitive that resolves a global mask against the (q rows x k rows)
// of a context-parallel compute item.
//
// Every slice type is a row band: global row q sees keys [max(lo_const, q + lo_diag), min(hi_const, q + hi_diag)]
// (inclusive; absent terms are +-infinity). Clipping to a rectangle tightens the constants; the rows then split
// into at most three runs in which each bound is either constant or diagonal, and each run is exactly one slice
// (const/const FULL, const/diag CAUSAL, diag/const INVCAUSAL, diag/diag BICAUSAL). Empty rows at the ends of a
// run are trimmed, so every emitted slice has its exact cells and no empty rows at its ends. O(1) per call.
#pragma once

#include <cstdint>
#include <vector>

#include "model/mask.h"

namespace lcab::cp {

/// Global rectangle [q_begin, q_end) x [k_begin, k_end) and where it lands locally: local = global + shift.
struct ClipWindow {
  int64_t q_begin = 0;
  int64_t q_end = 0;
  int64_t k_begin = 0;
  int64_t k_end = 0;
  int64_t q_shift = 0;
  int64_t k_shift = 0;
};

/// Appends to `out` the slices (in local coordinates) covering exactly the cells of `slice` inside the window;
/// appends nothing when none is unmasked there.
void clip_slice(const Slice& slice, const ClipWindow& window, std::vector<Slice>& out);

/// The keys row q of a slice can see, as an inclusive global range [first, last]; first > last when none.
/// Monotone: first and last never decrease with q. Used to bound which key blocks a clipped slice reaches.
struct KeySpan {
  int64_t first = 0;
  int64_t last = -1;
};
KeySpan key_span_of_rows(const Slice& slice, int64_t q_begin, int64_t q_end);

}  // namespace lcab::cp
