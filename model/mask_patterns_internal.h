// Internal to the mask patterns (mask_patterns*.cpp and their tests): the generators of DESIGN.md section 3 and
// the building blocks they share. Users go through the registry (mask_spec.h), never through this header.
//
// Every generator is deterministic for its arguments (seeded lcab::Rng, never std distributions) and costs
// O(slices) plus, for the block-sparse patterns, O(q blocks x k blocks); nothing allocates S x S.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/doclen.h"
#include "model/mask.h"
#include "model/mask_spec.h"
#include "model/rng.h"

namespace lcab::mask_patterns {

// ---- generators, one per pattern (registered in mask_patterns.cpp) -------------------------------------------
Mask make_full(const MaskArgs& args);
Mask make_causal(const MaskArgs& args);
Mask make_prefix_lm_causal(const MaskArgs& args);

Mask make_full_document(const MaskArgs& args);
Mask make_causal_document(const MaskArgs& args);
Mask make_full_document_long(const MaskArgs& args);
Mask make_causal_document_long(const MaskArgs& args);
Mask make_share_question(const MaskArgs& args);
Mask make_causal_blockwise(const MaskArgs& args);
Mask make_prefix_lm_document(const MaskArgs& args);
Mask make_block_causal_document(const MaskArgs& args);

Mask make_sliding_window(const MaskArgs& args);
Mask make_sliding_window_causal(const MaskArgs& args);
Mask make_global_sliding_window(const MaskArgs& args);

Mask make_block_sparse(const MaskArgs& args);
Mask make_variable_block_sparse(const MaskArgs& args);

// ---- parameters -----------------------------------------------------------------------------------------------
/// MaskInfo carrying the spec text (and the document lengths of document masks).
MaskInfo mask_info(const MaskArgs& args, std::vector<int64_t> document_lengths = {});
/// Integer parameter `key`, checked to be >= min_value; the error names the mask, the key and the valid range.
int64_t int_param_at_least(const MaskArgs& args, const std::string& key, int64_t min_value);
/// Real parameter `key`, checked to lie in (0, 1].
double fraction_param(const MaskArgs& args, const std::string& key);
/// The `dist` parameter: a named document-length distribution, or the default by S when empty.
const DoclenDistribution& doclen_param(const MaskArgs& args);

// ---- documents ------------------------------------------------------------------------------------------------
/// The long-document mix of the `_long` patterns, filling `seqlen` exactly: round(long_share * S) tokens in
/// documents of length uniform in [long_min, long_max] (the last one truncated), the rest drawn from `dist`
/// (the last one truncated); then the documents are shuffled.
struct LongDocumentMix {
  double long_share = 0.6;
  int64_t long_min = 8192;
  int64_t long_max = 30720;  ///< inclusive
};
std::vector<int64_t> long_mix_document_lengths(const DoclenDistribution& dist, int64_t seqlen, Rng& rng,
                                               const LongDocumentMix& mix = {});
/// Documents of 1..max_blocks blocks of `block` tokens (count uniform), filling `seqlen` exactly (the last one,
/// and so its last block, truncated).
std::vector<int64_t> block_document_lengths(int64_t seqlen, int64_t block, int64_t max_blocks, Rng& rng);
/// One slice per document on the diagonal: [o, o+L) x [o, o+L) of the given type.
std::vector<Slice> diagonal_document_slices(const std::vector<int64_t>& document_lengths, SliceType type);

// ---- bands ----------------------------------------------------------------------------------------------------
/// Appends the slices of the symmetric band |q - k| <= window over the tokens [begin, end) (both axes),
/// clipped to that range: at most three slices (CAUSAL top rows, BICAUSAL middle rows, INVCAUSAL bottom rows;
/// FULL rows where both sides are clipped).
void append_symmetric_band(std::vector<Slice>& out, int64_t begin, int64_t end, int64_t window);
/// Appends the slices of the causal band q - window <= k <= q over [begin, end): at most two slices (a CAUSAL
/// triangle for the first `window` rows, one BICAUSAL slice for the rest).
void append_causal_band(std::vector<Slice>& out, int64_t begin, int64_t end, int64_t window);

// ---- block sparsity -------------------------------------------------------------------------------------------
/// Block boundaries 0 = b[0] < b[1] < ... < b[n] = seqlen for blocks of `block` tokens (the last one shorter).
std::vector<int64_t> uniform_block_bounds(int64_t seqlen, int64_t block);
/// Random block sizes uniform in [min_block, 2 * avg_block - min_block] (mean avg_block); a remainder shorter
/// than min_block joins the last block, so every block has at least min_block tokens unless S < min_block.
std::vector<int64_t> random_block_bounds(int64_t seqlen, int64_t min_block, int64_t avg_block, Rng& rng);
/// k = max(1, round(density * number of k blocks)).
int64_t top_k_count(double density, int64_t num_k_blocks);
/// For every q block, keeps the top_k_count(density, ...) k blocks of independent random scores (that is, a
/// uniformly random subset of that size); horizontally adjacent kept blocks become one FULL slice.
std::vector<Slice> top_k_block_slices(const std::vector<int64_t>& q_bounds, const std::vector<int64_t>& k_bounds,
                                      double density, Rng& rng);

}  // namespace lcab::mask_patterns
