#include "model/cudnn_mask.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace lcab {
namespace {

// Row ranges are gathered slice by slice; masks with many slices per row (block-sparse) are not bands anyway.
constexpr int64_t kMaxSlicesPerRow = 8;

// One side of the band: the value every row whose range is cut by the band implies, and the least value that
// rows reaching their document's edge require.
struct BoundFit {
  std::optional<int64_t> exact;
  int64_t exact_row = 0;
  int64_t at_least = 0;
};

}  // namespace

std::string CudnnMaskModel::describe() const {
  std::ostringstream out;
  if (!left_bound && !right_bound) {
    out << "full";
  } else if (!left_bound && right_bound && *right_bound == 0) {
    out << "causal";
  } else {
    out << "band(";
    if (left_bound) out << "left " << *left_bound;
    if (left_bound && right_bound) out << ", ";
    if (right_bound) out << "right " << *right_bound;
    out << ")";
  }
  if (diagonal_offset != 0) out << " bottom-right aligned (offset " << diagonal_offset << ")";
  if (documents()) out << " per document (" << document_lengths.size() << " documents)";
  return out.str();
}

CudnnMaskFit fit_cudnn_mask(int64_t seqlen_q, int64_t seqlen_k, const std::vector<Slice>& slices) {
  CudnnMaskFit fit;
  auto reject = [&fit](const std::string& why) {
    fit.fits = false;
    fit.reason = why;
    return fit;
  };
  int64_t row_work = 0;
  for (const Slice& s : slices) row_work += s.q_length();
  if (row_work > kMaxSlicesPerRow * seqlen_q) {
    return reject("more than " + std::to_string(kMaxSlicesPerRow) +
                  " slices per row on average: not a band or document mask");
  }

  // Per row: the union of visible keys, which must be one range [lo, hi) with count == hi - lo keys.
  const size_t rows = static_cast<size_t>(seqlen_q);
  std::vector<int64_t> lo(rows, std::numeric_limits<int64_t>::max());
  std::vector<int64_t> hi(rows, -1);
  std::vector<int64_t> count(rows, 0);
  for (const Slice& s : slices) {
    for (int64_t q = s.q_begin; q < s.q_end; ++q) {
      const TokenRange keys = s.keys_of_row(q);
      if (keys.empty()) continue;
      const size_t r = static_cast<size_t>(q);
      lo[r] = std::min(lo[r], keys.begin);
      hi[r] = std::max(hi[r], keys.end);
      count[r] += keys.length();
    }
  }
  for (size_t r = 0; r < rows; ++r) {
    if (count[r] == 0) {
      return reject("row " + std::to_string(r) + " sees no key (cuDNN gives such rows no lse = -inf)");
    }
    if (hi[r] - lo[r] != count[r]) {
      return reject("row " + std::to_string(r) + " sees keys in more than one range");
    }
  }

  // Documents: cut at c where no row before c sees a key from c on and no row from c on sees a key before c.
  std::vector<int64_t> starts{0};
  if (seqlen_q == seqlen_k) {
    std::vector<int64_t> suffix_min_lo(rows + 1, std::numeric_limits<int64_t>::max());
    for (size_t r = rows; r-- > 0;) suffix_min_lo[r] = std::min(suffix_min_lo[r + 1], lo[r]);
    int64_t prefix_max_hi = 0;
    for (int64_t c = 1; c < seqlen_q; ++c) {
      prefix_max_hi = std::max(prefix_max_hi, hi[static_cast<size_t>(c - 1)]);
      if (prefix_max_hi <= c && suffix_min_lo[static_cast<size_t>(c)] >= c) starts.push_back(c);
    }
  }
  starts.push_back(seqlen_q);

  // One band for every row of every document, in document-local coordinates.
  const int64_t offset = seqlen_k - seqlen_q;  // 0 unless one rectangular sequence
  BoundFit left{std::nullopt, 0, 1};            // cuDNN requires left_bound >= 1
  BoundFit right{std::nullopt, 0, 0};           // and right_bound >= 0
  auto record = [&](BoundFit& bound, int64_t value, int64_t row, const char* side) -> bool {
    if (!bound.exact) {
      bound.exact = value;
      bound.exact_row = row;
      return true;
    }
    if (*bound.exact == value) return true;
    std::ostringstream why;
    why << "rows " << bound.exact_row << " and " << row << " have their " << side
        << " edges at different distances from the diagonal: not one band";
    fit.reason = why.str();
    return false;
  };
  for (size_t d = 0; d + 1 < starts.size(); ++d) {
    const int64_t begin = starts[d];
    const int64_t end = starts[d + 1];
    const int64_t keys = seqlen_q == seqlen_k ? end - begin : seqlen_k;
    for (int64_t q = begin; q < end; ++q) {
      const int64_t diagonal = q - begin + offset;
      const int64_t first = lo[static_cast<size_t>(q)] - begin;
      const int64_t last = hi[static_cast<size_t>(q)] - begin;  // exclusive
      if (last < keys) {
        if (!record(right, last - 1 - diagonal, q, "right")) return fit;
      } else {
        right.at_least = std::max(right.at_least, keys - 1 - diagonal);
      }
      if (first > 0) {
        if (!record(left, diagonal - first + 1, q, "left")) return fit;
      } else {
        left.at_least = std::max(left.at_least, diagonal + 1);
      }
    }
  }
  if (right.exact && *right.exact < right.at_least) {
    return reject("row " + std::to_string(right.exact_row) +
                  (*right.exact < 0 ? " ends before the diagonal"
                                    : " ends earlier than other rows allow: not one band"));
  }
  if (left.exact && *left.exact < left.at_least) {
    return reject("row " + std::to_string(left.exact_row) +
                  (*left.exact < 1 ? " starts after the diagonal"
                                   : " starts later than other rows allow: not one band"));
  }

  fit.fits = true;
  fit.reason.clear();
  fit.model.left_bound = left.exact;
  fit.model.right_bound = right.exact;
  fit.model.diagonal_offset = offset;
  for (size_t d = 0; d + 1 < starts.size(); ++d) fit.model.document_lengths.push_back(starts[d + 1] - starts[d]);
  return fit;
}

CudnnMaskFit fit_cudnn_masks(int64_t seqlen_q, int64_t seqlen_k, std::span<const std::vector<Slice>> lists) {
  for (const std::vector<Slice>& list : lists) {
    if (list != lists[0]) {
      CudnnMaskFit differ;
      differ.reason = "per-kv-head masks that differ between heads are not expressible in cuDNN";
      return differ;
    }
  }
  CudnnMaskFit fit = fit_cudnn_mask(seqlen_q, seqlen_k, lists[0]);
  if (!fit.fits) fit.reason = "mask not expressible in cuDNN (full, causal, sliding window, documents): " + fit.reason;
  return fit;
}

}  // namespace lcab
