// Resolving the global mask against CP buffers: for the rows of a q buffer (a token map), the slices that fall
// on each key block (another token map), in local coordinates (q buffer row, key block row).
//
// Output-sensitive: for every real q segment, only the mask slices overlapping its rows are visited (an index by
// q_begin with a running maximum of q_end), and for each, only the key-block entries its visible key span
// reaches (binary search in a KeyBlockIndex). A (q rows x key block) pair with no unmasked cell produces
// nothing, so fully masked work never becomes a compute item.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/cp/sharding.h"
#include "model/cp/slice_clip.h"
#include "model/mask.h"

namespace lcab::cp {

/// The slices of one head mask, indexed for row-range queries.
class SliceRowIndex {
 public:
  explicit SliceRowIndex(const std::vector<Slice>& slices);
  /// Calls visit(slice) for every slice with a row in [q_begin, q_end).
  template <class Visit>
  void for_each_overlapping(int64_t q_begin, int64_t q_end, Visit&& visit) const;

 private:
  const std::vector<Slice>* slices_;
  std::vector<int64_t> max_q_end_;  ///< running maximum of q_end over slices [0, n]
};

/// For the rows of q_map, appends to per_block[b] the slices on key block b, coordinates (row of q_map, row of
/// block b). per_block must have index.num_blocks() entries (not cleared here).
void resolve_rows(const SliceRowIndex& mask_rows, const TokenMap& q_map, const KeyBlockIndex& index,
                  std::vector<std::vector<Slice>>& per_block);

// ---- implementation of the template ----------------------------------------------------------------------------
template <class Visit>
void SliceRowIndex::for_each_overlapping(int64_t q_begin, int64_t q_end, Visit&& visit) const {
  const std::vector<Slice>& s = *slices_;
  // slices are sorted by q_begin: those starting before q_end, scanned backwards while any could reach q_begin
  size_t hi = static_cast<size_t>(std::partition_point(s.begin(), s.end(),
                                                       [&](const Slice& x) { return x.q_begin < q_end; }) -
                                  s.begin());
  size_t first = hi;
  while (first > 0 && max_q_end_[first - 1] > q_begin) --first;
  for (size_t n = first; n < hi; ++n)
    if (s[n].q_end > q_begin) visit(s[n]);
}

}  // namespace lcab::cp
