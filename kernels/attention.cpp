#include "kernels/attention.h"

#include <algorithm>
#include <cmath>

#include "model/error.h"

namespace lcab::kernels {

std::string to_string(DType dtype) { return dtype == DType::kBf16 ? "bf16" : "fp16"; }

DType parse_dtype(const std::string& name) {
  if (name == "bf16") return DType::kBf16;
  if (name == "fp16") return DType::kFp16;
  LCAB_THROW("unknown dtype '" << name << "'; valid: bf16, fp16");
}

float AttentionProblem::scale() const {
  return softmax_scale != 0 ? softmax_scale : 1.0f / std::sqrt(static_cast<float>(head_dim));
}

double AttentionProblem::unmasked_pairs() const {
  if (slices.empty()) return 0;
  double per_kv_head_total = 0;  // sum over kv heads of the area each sees
  for (int64_t h = 0; h < kv_heads; ++h) {
    const auto& list = slices.size() == 1 ? slices[0] : slices[static_cast<size_t>(h)];
    int64_t area = 0;
    for (const Slice& s : list) area += s.area();
    per_kv_head_total += static_cast<double>(area);
  }
  const double q_heads_per_kv_head = static_cast<double>(heads / kv_heads);
  return per_kv_head_total * q_heads_per_kv_head * static_cast<double>(batch);
}

void AttentionProblem::validate() const {
  LCAB_CHECK(batch > 0, "batch must be positive, got " << batch);
  LCAB_CHECK(heads > 0 && kv_heads > 0, "heads and kv_heads must be positive, got " << heads << " / " << kv_heads);
  LCAB_CHECK(heads % kv_heads == 0,
             "heads must be a multiple of kv_heads (GQA), got " << heads << " q heads and " << kv_heads << " kv heads");
  LCAB_CHECK(head_dim > 0, "head_dim must be positive, got " << head_dim);
  LCAB_CHECK(seqlen_q > 0 && seqlen_k > 0,
             "sequence lengths must be positive, got seqlen_q " << seqlen_q << ", seqlen_k " << seqlen_k);
  LCAB_CHECK(slices.size() == 1 || static_cast<int64_t>(slices.size()) == kv_heads,
             "the mask must hold one slice list (shared) or one per kv head (" << kv_heads << "), got "
                                                                                 << slices.size());
  LCAB_CHECK(softmax_scale >= 0 && std::isfinite(softmax_scale),
             "softmax_scale must be finite and >= 0 (0 means 1/sqrt(head_dim)), got " << softmax_scale);
  for (const auto& list : slices) {
    std::vector<Slice> copy = list;
    validate_slices(seqlen_q, seqlen_k, copy);
  }
}

AttentionProblem make_problem(const Mask& mask, int64_t batch, int64_t heads, int64_t kv_heads, int64_t head_dim,
                              DType dtype) {
  AttentionProblem problem;
  problem.batch = batch;
  problem.heads = heads;
  problem.kv_heads = kv_heads;
  problem.head_dim = head_dim;
  problem.dtype = dtype;
  problem.seqlen_q = mask.seqlen();
  problem.seqlen_k = mask.seqlen();
  LCAB_CHECK(!mask.is_per_kv_head() || mask.num_head_masks() == kv_heads,
             "a per-kv-head mask built for " << mask.num_head_masks() << " kv heads cannot run with " << kv_heads
                                             << " kv heads");
  for (int h = 0; h < mask.num_head_masks(); ++h) problem.slices.push_back(mask.slices(h));
  problem.validate();
  return problem;
}

void AttentionRegistry::add(std::unique_ptr<AttentionImpl> impl) {
  LCAB_CHECK(impl != nullptr, "cannot register a null attention implementation");
  const std::string name = impl->name();
  for (const auto& existing : impls_) {
    LCAB_CHECK(existing->name() != name, "attention implementation '" << name << "' is registered twice");
  }
  impls_.push_back(std::move(impl));
}

const AttentionImpl& AttentionRegistry::find(const std::string& name) const {
  for (const auto& impl : impls_) {
    if (impl->name() == name) return *impl;
  }
  std::string valid;
  for (const auto& impl : impls_) valid += (valid.empty() ? "" : ", ") + impl->name();
  LCAB_THROW("unknown attention implementation '" << name << "'; valid: " << valid);
}

std::vector<std::string> AttentionRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& impl : impls_) out.push_back(impl->name());
  return out;
}

}  // namespace lcab::kernels
