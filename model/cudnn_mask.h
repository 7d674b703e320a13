// Which lcab masks cuDNN's fused attention can express, and how (host-only, no cuDNN types): the cudnn implementation
// (kernels/cudnn_attention.h) maps its problems by it, and the model says by it which masks that implementation and
// SDPA's backends run (model/perf/implementation_masks.h).
//
// cuDNN's SDPA graph masks scores with a diagonal band and, for packed variable-length batches, with per-sequence
// lengths. In cuDNN's terms, query row i of a sequence sees key j when
//   j <= i + offset + right_bound   (when a right bound is set; causal is right_bound = 0)
//   j >  i + offset - left_bound    (when a left bound is set: a sliding window of left_bound keys up to the diagonal)
// with offset = Lk - Lq (bottom-right alignment, as lcab's CAUSAL; 0 for self-attention). Documents become
// sequences of a ragged batch: each packed document is one sequence of its own length, the band applied within it.
//
// fit_cudnn_mask() reads a slice list row by row: each row must see one contiguous, non-empty range of keys; the
// sequence is cut wherever no row's range crosses (the finest document split), and one (left, right) band must
// reproduce every row of every document. Anything else (rows without keys, holes, prefix-LM, block-sparse, per-kv-
// head masks that differ between heads) does not fit, with the reason.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/mask.h"

namespace lcab {

struct CudnnMaskModel {
  /// Lengths of the packed documents, in order, summing to seqlen_q (== seqlen_k when more than one).
  std::vector<int64_t> document_lengths;
  std::optional<int64_t> left_bound;   ///< cuDNN's left bound (>= 1): key j seen when j > i + offset - left_bound
  std::optional<int64_t> right_bound;  ///< cuDNN's right bound (>= 0): key j seen when j <= i + offset + right_bound
  int64_t diagonal_offset = 0;         ///< Lk - Lq; non-zero only for one rectangular sequence

  /// More than one document: a ragged batch of sequences.
  bool documents() const { return document_lengths.size() > 1; }
  /// "full", "causal", "band(left=..., right=...)", each "per document" when documents() holds.
  std::string describe() const;
};

struct CudnnMaskFit {
  bool fits = false;
  std::string reason;  ///< why not, when !fits
  CudnnMaskModel model;
};

/// Fits one slice list over seqlen_q x seqlen_k (local coordinates, as in kernels::AttentionProblem).
CudnnMaskFit fit_cudnn_mask(int64_t seqlen_q, int64_t seqlen_k, const std::vector<Slice>& slices);
/// Fits a call's head masks, one list shared by every head or one per kv head (non-empty): cuDNN takes one mask for
/// all heads, so per-kv-head lists must be equal. A reason says which of the two failed, for a caller's status.
CudnnMaskFit fit_cudnn_masks(int64_t seqlen_q, int64_t seqlen_k, std::span<const std::vector<Slice>> lists);

}  // namespace lcab
