// Sliding-window patterns as a handful of slices: a band is a CAUSAL triangle where the left edge is clipped,
// one BICAUSAL slice where neither edge is, an INVCAUSAL triangle where the right edge is, and FULL rows where
// both are (short sequences).
#include <algorithm>

#include "model/error.h"
#include "model/mask_patterns_internal.h"

namespace lcab::mask_patterns {

void append_symmetric_band(std::vector<Slice>& out, int64_t begin, int64_t end, int64_t window) {
  LCAB_CHECK(window >= 0 && end >= begin, "bad band: tokens [" << begin << ", " << end << "), window " << window);
  const int64_t n = end - begin;
  // Local row q sees [q - w, q + w] clipped to [0, n). Rows below `unclipped_left` are clipped on the left,
  // rows from `clipped_right` on are clipped on the right.
  const int64_t unclipped_left = std::min(window, n);
  const int64_t clipped_right = std::clamp<int64_t>(n - window, 0, n);
  const int64_t left_only = std::min(unclipped_left, clipped_right);
  if (left_only > 0) {  // rows [0, a) see [0, q + w]: CAUSAL with Lk - Lq = w
    out.push_back({begin, begin + left_only, begin, begin + left_only + window, SliceType::kCausal});
  }
  if (unclipped_left < clipped_right) {  // rows [w, n - w) see [q - w, q + w]: BICAUSAL with Lk - Lq = 2w
    out.push_back({begin + window, begin + n - window, begin, end, SliceType::kBiCausal});
  }
  if (clipped_right < unclipped_left) {  // both sides clipped (n < 2w + 1): these rows see everything
    out.push_back({begin + clipped_right, begin + unclipped_left, begin, end, SliceType::kFull});
  }
  const int64_t right_begin = std::max(unclipped_left, clipped_right);
  if (right_begin < n) {  // rows [c, n) see [q - w, n): INVCAUSAL starting w keys left of row c
    out.push_back({begin + right_begin, end, begin + right_begin - window, end, SliceType::kInvCausal});
  }
}

void append_causal_band(std::vector<Slice>& out, int64_t begin, int64_t end, int64_t window) {
  LCAB_CHECK(window >= 0 && end >= begin, "bad band: tokens [" << begin << ", " << end << "), window " << window);
  const int64_t n = end - begin;
  const int64_t head = std::min(window, n);
  if (head > 0) out.push_back({begin, begin + head, begin, begin + head, SliceType::kCausal});
  // rows [w, n) see [q - w, q]: BICAUSAL with Lk - Lq = w
  if (window < n) out.push_back({begin + window, end, begin, end, SliceType::kBiCausal});
}

Mask make_sliding_window(const MaskArgs& args) {
  std::vector<Slice> slices;
  append_symmetric_band(slices, 0, args.seqlen(), int_param_at_least(args, "window", 1));
  return Mask(args.seqlen(), std::move(slices), mask_info(args));
}

Mask make_sliding_window_causal(const MaskArgs& args) {
  std::vector<Slice> slices;
  append_causal_band(slices, 0, args.seqlen(), int_param_at_least(args, "window", 1));
  return Mask(args.seqlen(), std::move(slices), mask_info(args));
}

Mask make_global_sliding_window(const MaskArgs& args) {
  const int64_t s = args.seqlen();
  const int64_t global = std::min(s, int_param_at_least(args, "global", 0));
  const int64_t window = int_param_at_least(args, "window", 1);
  std::vector<Slice> slices;
  if (global > 0) {
    slices.push_back({0, global, 0, s, SliceType::kFull});                   // global rows see everything
    if (global < s) slices.push_back({global, s, 0, global, SliceType::kFull});  // everyone sees global keys
  }
  append_symmetric_band(slices, global, s, window);
  return Mask(s, std::move(slices), mask_info(args));
}

}  // namespace lcab::mask_patterns
