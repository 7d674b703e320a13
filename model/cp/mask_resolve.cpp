#include "model/cp/mask_resolve.h"

#include <algorithm>

namespace lcab::cp {

SliceRowIndex::SliceRowIndex(const std::vector<Slice>& slices) : slices_(&slices), max_q_end_(slices.size()) {
  int64_t running = 0;
  for (size_t n = 0; n < slices.size(); ++n) {
    running = std::max(running, slices[n].q_end);
    max_q_end_[n] = running;
  }
}

void resolve_rows(const SliceRowIndex& mask_rows, const TokenMap& q_map, const KeyBlockIndex& index,
                  std::vector<std::vector<Slice>>& per_block) {
  int64_t q_row = 0;
  for (const Segment& seg : q_map.segments) {
    if (!seg.pad) {
      const int64_t q_begin = seg.global_begin;
      const int64_t q_end = seg.global_begin + seg.length;
      mask_rows.for_each_overlapping(q_begin, q_end, [&](const Slice& slice) {
        const KeySpan span = key_span_of_rows(slice, q_begin, q_end);
        if (span.first > span.last) return;
        auto [first, last] = index.overlapping(span.first, span.last + 1);
        for (const KeyBlockIndex::Entry* e = first; e != last; ++e) {
          ClipWindow window{q_begin, q_end, e->global_begin, e->global_end, q_row - q_begin,
                            e->row - e->global_begin};
          clip_slice(slice, window, per_block[e->block]);
        }
      });
    }
    q_row += seg.length;
  }
}

}  // namespace lcab::cp
