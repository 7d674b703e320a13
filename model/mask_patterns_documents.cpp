// Packed-document patterns: full/causal documents, the long-document mixes, share_question, causal_blockwise,
// prefix_lm_document and block_causal_document. One or two slices per document; O(documents).
#include <algorithm>
#include <cmath>

#include "model/error.h"
#include "model/mask_patterns_internal.h"

namespace lcab::mask_patterns {

std::vector<int64_t> long_mix_document_lengths(const DoclenDistribution& dist, int64_t seqlen, Rng& rng,
                                               const LongDocumentMix& mix) {
  LCAB_CHECK(mix.long_min >= 1 && mix.long_max >= mix.long_min && mix.long_share >= 0 && mix.long_share <= 1,
             "bad long-document mix: share " << mix.long_share << ", lengths [" << mix.long_min << ", "
                                             << mix.long_max << "]");
  const int64_t long_tokens = std::llround(mix.long_share * static_cast<double>(seqlen));
  std::vector<int64_t> lengths;
  for (int64_t filled = 0; filled < long_tokens;) {
    const int64_t len = std::min(rng.uniform_int(mix.long_min, mix.long_max + 1), long_tokens - filled);
    lengths.push_back(len);
    filled += len;
  }
  const std::vector<int64_t> short_lengths = sample_document_lengths(dist, seqlen - long_tokens, rng);
  lengths.insert(lengths.end(), short_lengths.begin(), short_lengths.end());
  // Fisher-Yates with lcab::Rng (std::shuffle's algorithm is implementation-defined).
  for (size_t n = lengths.size(); n > 1; --n) {
    const size_t pick = static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(n)));
    std::swap(lengths[n - 1], lengths[pick]);
  }
  return lengths;
}

std::vector<int64_t> block_document_lengths(int64_t seqlen, int64_t block, int64_t max_blocks, Rng& rng) {
  LCAB_CHECK(block >= 1 && max_blocks >= 1, "block documents need block >= 1 and max_blocks >= 1, got "
                                                << block << " and " << max_blocks);
  std::vector<int64_t> lengths;
  for (int64_t filled = 0; filled < seqlen;) {
    const int64_t len = std::min(rng.uniform_int(1, max_blocks + 1) * block, seqlen - filled);
    lengths.push_back(len);
    filled += len;
  }
  return lengths;
}

std::vector<Slice> diagonal_document_slices(const std::vector<int64_t>& document_lengths, SliceType type) {
  std::vector<Slice> slices;
  slices.reserve(document_lengths.size());
  int64_t begin = 0;
  for (int64_t len : document_lengths) {
    slices.push_back({begin, begin + len, begin, begin + len, type});
    begin += len;
  }
  return slices;
}

namespace {

std::vector<int64_t> drawn_document_lengths(const MaskArgs& args) {
  const DoclenDistribution& dist = doclen_param(args);
  Rng rng(args.seed());
  return sample_document_lengths(dist, args.seqlen(), rng);
}

std::vector<int64_t> long_mix_lengths(const MaskArgs& args) {
  const DoclenDistribution& dist = doclen_param(args);
  Rng rng(args.seed());
  return long_mix_document_lengths(dist, args.seqlen(), rng);
}

Mask diagonal_documents(const MaskArgs& args, std::vector<int64_t> lengths, SliceType type) {
  std::vector<Slice> slices = diagonal_document_slices(lengths, type);
  return Mask(args.seqlen(), std::move(slices), mask_info(args, std::move(lengths)));
}

}  // namespace

Mask make_full_document(const MaskArgs& args) {
  return diagonal_documents(args, drawn_document_lengths(args), SliceType::kFull);
}

Mask make_causal_document(const MaskArgs& args) {
  return diagonal_documents(args, drawn_document_lengths(args), SliceType::kCausal);
}

Mask make_full_document_long(const MaskArgs& args) {
  return diagonal_documents(args, long_mix_lengths(args), SliceType::kFull);
}

Mask make_causal_document_long(const MaskArgs& args) {
  return diagonal_documents(args, long_mix_lengths(args), SliceType::kCausal);
}

Mask make_share_question(const MaskArgs& args) {
  std::vector<int64_t> lengths = drawn_document_lengths(args);
  std::vector<Slice> slices = diagonal_document_slices(lengths, SliceType::kCausal);
  // Every answer row sees the whole question: one FULL slice below document 0.
  const int64_t question = lengths.front();
  if (question < args.seqlen()) slices.push_back({question, args.seqlen(), 0, question, SliceType::kFull});
  return Mask(args.seqlen(), std::move(slices), mask_info(args, std::move(lengths)));
}

Mask make_causal_blockwise(const MaskArgs& args) {
  std::vector<int64_t> lengths = drawn_document_lengths(args);
  std::vector<Slice> slices = diagonal_document_slices(lengths, SliceType::kCausal);
  const int64_t last_begin = args.seqlen() - lengths.back();
  if (last_begin > 0) slices.push_back({last_begin, args.seqlen(), 0, last_begin, SliceType::kFull});
  return Mask(args.seqlen(), std::move(slices), mask_info(args, std::move(lengths)));
}

Mask make_prefix_lm_document(const MaskArgs& args) {
  const int64_t prefix = int_param_at_least(args, "prefix", 0);
  std::vector<int64_t> lengths = drawn_document_lengths(args);
  std::vector<Slice> slices;
  int64_t begin = 0;
  for (int64_t len : lengths) {
    const int64_t end = begin + len;
    const int64_t prefix_end = begin + std::min(prefix, len);
    if (prefix_end > begin) slices.push_back({begin, prefix_end, begin, prefix_end, SliceType::kFull});
    // Rows after the prefix see the document up to themselves: CAUSAL with Lk - Lq = prefix length.
    if (prefix_end < end) slices.push_back({prefix_end, end, begin, end, SliceType::kCausal});
    begin = end;
  }
  return Mask(args.seqlen(), std::move(slices), mask_info(args, std::move(lengths)));
}

Mask make_block_causal_document(const MaskArgs& args) {
  constexpr int64_t kMaxBlocksPerDocument = 8;
  const int64_t block = int_param_at_least(args, "block", 1);
  Rng rng(args.seed());
  std::vector<int64_t> lengths = block_document_lengths(args.seqlen(), block, kMaxBlocksPerDocument, rng);
  // One FULL slice per block row: the rows of block b see the document's keys up to the end of block b.
  std::vector<Slice> slices;
  int64_t doc_begin = 0;
  for (int64_t len : lengths) {
    const int64_t doc_end = doc_begin + len;
    for (int64_t row = doc_begin; row < doc_end; row += block) {
      const int64_t row_end = std::min(doc_end, row + block);
      slices.push_back({row, row_end, doc_begin, row_end, SliceType::kFull});
    }
    doc_begin = doc_end;
  }
  return Mask(args.seqlen(), std::move(slices), mask_info(args, std::move(lengths)));
}

}  // namespace lcab::mask_patterns
