// Built-in mask patterns (DESIGN.md section 3): the registration table (names, definitions, parameters with
// defaults, as the README lists them), the parameter checks shared by all generators, and the patterns that
// are one or two slices. Documents, windows and block sparsity live in mask_patterns_{documents,windows,sparse}.
#include <algorithm>

#include "model/cli_values.h"
#include "model/error.h"
#include "model/mask_patterns_internal.h"
#include "model/mask_spec.h"

namespace lcab {
namespace mask_patterns {

MaskInfo mask_info(const MaskArgs& args, std::vector<int64_t> document_lengths) {
  MaskInfo info;
  info.spec = args.spec_text();
  info.document_lengths = std::move(document_lengths);
  return info;
}

int64_t int_param_at_least(const MaskArgs& args, const std::string& key, int64_t min_value) {
  const int64_t value = args.get_int(key);
  LCAB_CHECK(value >= min_value, "mask '" << args.spec_text() << "': " << key << "=" << value << " is invalid; "
                                          << key << " must be >= " << min_value);
  return value;
}

double fraction_param(const MaskArgs& args, const std::string& key) {
  const double value = args.get_double(key);
  LCAB_CHECK(value > 0.0 && value <= 1.0, "mask '" << args.spec_text() << "': " << key << "=" << value
                                                   << " is invalid; " << key << " must lie in (0, 1]");
  return value;
}

const DoclenDistribution& doclen_param(const MaskArgs& args) {
  const std::string& name = args.get_string("dist");
  if (name.empty()) return doclen_distribution(default_doclen_distribution(args.seqlen()));
  const std::vector<std::string> valid = doclen_distribution_names();
  LCAB_CHECK(std::find(valid.begin(), valid.end(), name) != valid.end(),
             "mask '" << args.spec_text() << "': unknown document-length distribution dist=" << name
                      << "; valid: " << join(valid));
  return doclen_distribution(name);
}

Mask make_full(const MaskArgs& args) {
  const int64_t s = args.seqlen();
  return Mask(s, {{0, s, 0, s, SliceType::kFull}}, mask_info(args));
}

Mask make_causal(const MaskArgs& args) {
  const int64_t s = args.seqlen();
  return Mask(s, {{0, s, 0, s, SliceType::kCausal}}, mask_info(args));
}

Mask make_prefix_lm_causal(const MaskArgs& args) {
  const int64_t s = args.seqlen();
  const int64_t prefix =
      args.get_string("prefix").empty() ? s / 2 : std::min(s, int_param_at_least(args, "prefix", 0));
  std::vector<Slice> slices;
  if (prefix > 0) slices.push_back({0, prefix, 0, prefix, SliceType::kFull});
  // Rows [p, S) see keys [0, q]: one CAUSAL slice with Lk - Lq = p.
  if (prefix < s) slices.push_back({prefix, s, 0, s, SliceType::kCausal});
  return Mask(s, std::move(slices), mask_info(args));
}

}  // namespace mask_patterns

void register_all_mask_patterns(MaskPatternRegistry& registry) {
  using namespace mask_patterns;
  const MaskParam seed{"seed", "0", "random seed; the same seed gives the same mask"};
  const MaskParam dist{"dist", "",
                       "document-length distribution: pile, prolong64k or prolong512k; default by S: pile for "
                       "S <= 12K, prolong64k for S <= 64K, else prolong512k"};
  const MaskParam window{"window", "1024", "window w in tokens (>= 1)"};
  const std::string fill = "documents drawn from `dist` fill S exactly (the last one truncated); ";
  const std::string long_mix =
      "40% of the tokens in documents drawn from `dist`, 60% in long documents of length uniform in "
      "[8192, 30720] (each part's last document truncated), in random order; ";

  registry.add({"full", "one FULL slice [0,S)x[0,S)", {}, make_full});
  registry.add({"causal", "one CAUSAL slice: row i sees keys [0, i]", {}, make_causal});
  registry.add({"full_document", fill + "one FULL slice per document", {dist, seed}, make_full_document});
  registry.add({"causal_document", fill + "one CAUSAL slice per document", {dist, seed}, make_causal_document});
  registry.add({"full_document_long", long_mix + "one FULL slice per document", {dist, seed},
                make_full_document_long});
  registry.add({"causal_document_long", long_mix + "one CAUSAL slice per document", {dist, seed},
                make_causal_document_long});
  registry.add({"sliding_window",
                "symmetric band: row i sees keys [i-w, i+w] clipped to [0,S); area (2w+1)S - w(w+1) for S > 2w",
                {window},
                make_sliding_window});
  registry.add({"sliding_window_causal", "row i sees keys [i-w, i] clipped; area (w+1)S - w(w+1)/2 for S > w",
                {window},
                make_sliding_window_causal});
  registry.add({"global_sliding_window",
                "the first `global` tokens see and are seen by every token (FULL slices); the others see a "
                "symmetric window `window` among themselves",
                {{"global", "128", "global tokens at the start of the sequence (>= 0)"}, window},
                make_global_sliding_window});
  registry.add({"share_question",
                fill + "document 0 is a question, causal on itself; every later document sees all of document 0 "
                       "and is causal on itself",
                {dist, seed},
                make_share_question});
  registry.add({"causal_blockwise",
                fill + "each document is causal on itself; the last document also sees all earlier documents",
                {dist, seed},
                make_causal_blockwise});
  registry.add({"prefix_lm_causal",
                "the first p tokens see each other fully; later tokens are causal over [0,S)",
                {{"prefix", "", "prefix length p in tokens (>= 0, clipped to S); default S/2"}},
                make_prefix_lm_causal});
  registry.add({"prefix_lm_document",
                fill + "per document, a prefix of min(p, length) tokens is FULL among itself, the rest is causal "
                       "within the document",
                {dist, seed, {"prefix", "512", "per-document prefix length p in tokens (>= 0)"}},
                make_prefix_lm_document});
  registry.add({"block_causal_document",
                "documents of 1..8 blocks of `block` tokens (count uniform; the last document truncated to fill "
                "S); each block sees every block of its document up to and including itself",
                {{"block", "1024", "block length in tokens (>= 1)"}, seed},
                make_block_causal_document});
  registry.add({"block_sparse",
                "per kv head, per q block of `block` rows: the top-k of random scores over the k blocks, "
                "k = max(1, round(density * blocks)); adjacent kept blocks merge into one FULL slice",
                {{"block", "128", "block length in tokens: 64 or 128"},
                 {"density", "0.2", "fraction of k blocks kept per q block, in (0, 1]"},
                 seed},
                make_block_sparse});
  registry.add({"variable_block_sparse",
                "as block_sparse, with random block sizes on both axes (uniform in [128, 2*avg_block-128], "
                "mean avg_block; q and k partitions drawn independently per kv head)",
                {{"avg_block", "512", "mean block length in tokens (>= 128)"},
                 {"density", "0.2", "fraction of k blocks kept per q block, in (0, 1]"},
                 seed},
                make_variable_block_sparse});
}

}  // namespace lcab
