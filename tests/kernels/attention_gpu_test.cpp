// Every registered attention implementation against the fp64 CPU reference (attention_reference.h), on masks
// built from slices directly (edge cases) and from every registered mask pattern.
//
// Tolerances (relative Frobenius error ||x - ref|| / ||ref|| per tensor): inputs are rounded to the element type
// before the reference sees them, so errors come only from the kernels' own rounding: P and dS are rounded to
// the element type for the tensor-core products and outputs are rounded once. bf16 keeps 8 significant bits
// (round-off 2^-9 ~ 2e-3 per rounding, a few roundings compound): 1e-2 leaves about 3x margin; fp16 keeps 11
// bits (2^-12 ~ 2.4e-4): 3e-3. lse is computed in fp32 from fp32 accumulators: absolute error 2e-3 (its values
// are O(log S)). Rows that see no key must give out = 0, dq = 0 and lse = -inf exactly.
// Outputs are poisoned with NaN before every run, so an element a kernel forgets to write fails the test.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdlib>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "attention_reference.h"
#include "gpu_test_support.h"
#include "kernels/attention.h"
#include "kernels/flash_work.h"
#include "model/mask_spec.h"

namespace lcab::kernels::testing {
namespace {

struct KernelCase {
  std::string name;
  AttentionProblem problem;
  // When > 0, feature 0 of every query is 4 and of key j is `score_ramp` x j: scores grow along the keys, so a
  // row's running max (online softmax) jumps by several powers of two from one 128-key tile to the next and the
  // rescale of O after the first tile is exercised (random scores alone almost never move it that far).
  double score_ramp = 0;
};

std::vector<KernelCase> make_cases() {
  std::vector<KernelCase> cases;
  const DType bf16 = DType::kBf16;
  const DType fp16 = DType::kFp16;
  auto add = [&](std::string name, AttentionProblem p, double score_ramp = 0) {
    cases.push_back({std::move(name), std::move(p), score_ramp});
  };
  // Edge cases from slices (bf16, hd 128, GQA 4).
  add("full_S256", shaped({{{0, 256, 0, 256, SliceType::kFull}}}, 256, 256, 8, 2, 128, bf16));
  add("causal_S300_not_tile_multiple", shaped({{{0, 300, 0, 300, SliceType::kCausal}}}, 300, 300, 8, 2, 128, bf16));
  add("causal_batch2", shaped({{{0, 200, 0, 200, SliceType::kCausal}}}, 200, 200, 4, 1, 128, bf16, 2));
  add("rectangular_causal_Sq200_Sk333",
      shaped({{{0, 200, 0, 333, SliceType::kCausal}}}, 200, 333, 8, 2, 128, bf16));
  // Causal with Lk < Lq leaves the first 200 rows empty; rows 300..349 are in no slice at all.
  add("rows_without_keys", shaped({{{0, 300, 0, 100, SliceType::kCausal}}}, 350, 350, 8, 2, 128, bf16));
  add("one_token_documents_causal",
      shaped({documents({1, 1, 3, 1, 70, 1, 130, 1, 1, 64, 1, 29}, SliceType::kCausal)}, 303, 303, 8, 2, 128, bf16));
  add("one_token_documents_full",
      shaped({documents({1, 2, 1, 140, 1, 1, 77, 1}, SliceType::kFull)}, 224, 224, 8, 8, 64, fp16));
  add("invcausal_bicausal_and_two_slices_per_row",
      shaped({{{0, 160, 0, 200, SliceType::kBiCausal},
               {160, 320, 160, 320, SliceType::kInvCausal},
               {160, 320, 0, 100, SliceType::kFull}}},
             320, 320, 8, 2, 128, bf16));
  add("per_kv_head_masks",
      shaped({{{0, 280, 0, 280, SliceType::kCausal}}, documents({100, 1, 79, 100}, SliceType::kCausal)}, 280, 280, 8,
             2, 128, bf16));
  // Every dtype x head dim x GQA ratio on a document mask with a length that is not a tile multiple (head dim 256
  // runs on lcab_flash's Hopper path only: other paths report it unsupported, and
  // LcabFlash.RunsHeadDim256OnHopper makes sure the Hopper path does not).
  for (DType dtype : {bf16, fp16}) {
    for (int64_t head_dim : {64, 128, 256}) {
      for (int64_t kv_heads : {8, 2, 1}) {
        const std::string name = to_string(dtype) + "_hd" + std::to_string(head_dim) + "_gqa" +
                                 std::to_string(8 / kv_heads) + "_documents";
        add(name, shaped({documents({37, 150, 1, 200}, SliceType::kCausal)}, 388, 388, 8, kv_heads, head_dim, dtype));
      }
    }
  }
  // Every registered mask pattern with its default parameters (per-kv-head patterns get 2 kv heads).
  for (const MaskPattern& pattern : builtin_mask_patterns().patterns()) {
    if (pattern.name == "file") continue;
    const Mask mask = builtin_mask_patterns().make(pattern.name, 1000, 2);
    add("pattern_" + pattern.name, make_problem(mask, 1, 4, 2, 128, bf16));
  }
  // Scores growing along the keys (about 4 powers of two per 128 keys at hd 128, 6 at hd 64); last, so that the
  // cases above keep their random inputs (the seed is the case's index).
  add("growing_scores_causal", shaped({{{0, 1000, 0, 1000, SliceType::kCausal}}}, 1000, 1000, 8, 2, 128, bf16),
      1.0 / 16);
  add("growing_scores_full_fp16_hd64", shaped({{{0, 600, 0, 1000, SliceType::kFull}}}, 600, 1000, 4, 4, 64, fp16),
      1.0 / 16);
  // Head dim 256 (its own tile shapes: 64-key forward steps, a 64-key backward CTA whose warpgroups split the
  // queries and the columns): partial tiles of a window, rows without keys, several q tiles per k tile with a
  // length off the tiles, and a growing max (about 1.4 powers of two per 64-key tile at hd 256, 16 over the 700
  // keys, so the lazy rescale's threshold of 2^8 is crossed about twice per row).
  add("hd256_sliding_window_and_empty_rows",
      shaped({{{0, 300, 0, 100, SliceType::kCausal}, {300, 333, 200, 333, SliceType::kCausal}}}, 350, 333, 8, 2, 256,
             bf16));
  add("hd256_causal_batch2_S517", shaped({{{0, 517, 0, 517, SliceType::kCausal}}}, 517, 517, 4, 1, 256, fp16, 2));
  add("growing_scores_causal_hd256",
      shaped({{{0, 700, 0, 700, SliceType::kCausal}}}, 700, 700, 4, 2, 256, bf16), 1.0 / 16);
  return cases;
}

const std::vector<KernelCase>& all_cases() {
  static const std::vector<KernelCase> cases = make_cases();
  return cases;
}

struct Results {
  std::vector<double> out, lse, dq, dk, dv;
  /// The same backward run again on the same plan into poisoned outputs: a plan keeps workspace between calls (the
  /// dQ accumulator, the Hopper backward's counters), which each call must reset.
  std::vector<double> dq_again, dk_again, dv_again;
};

Results run_impl(const AttentionImpl& impl, const AttentionProblem& p, const std::vector<uint16_t>& q,
                 const std::vector<uint16_t>& k, const std::vector<uint16_t>& v, const std::vector<uint16_t>& dout) {
  const size_t q_count = q.size();
  const size_t kv_count = k.size();
  const size_t lse_count = static_cast<size_t>(p.batch * p.heads * p.seqlen_q);
  Buffer dq_buf(q_count * 2), dk_buf(kv_count * 2), dv_buf(kv_count * 2), q_buf(q_count * 2), k_buf(kv_count * 2),
      v_buf(kv_count * 2), out_buf(q_count * 2), dout_buf(q_count * 2), lse_buf(lse_count * 4);
  q_buf.upload(q.data());
  k_buf.upload(k.data());
  v_buf.upload(v.data());
  dout_buf.upload(dout.data());
  for (Buffer* b : {&out_buf, &lse_buf, &dq_buf, &dk_buf, &dv_buf}) b->poison();
  std::unique_ptr<AttentionPlan> plan = impl.prepare(p);
  ForwardArgs fwd;
  fwd.q = q_buf.get();
  fwd.k = k_buf.get();
  fwd.v = v_buf.get();
  fwd.out = out_buf.get();
  fwd.lse = static_cast<float*>(lse_buf.get());
  plan->forward(fwd);
  BackwardArgs bwd;
  bwd.q = q_buf.get();
  bwd.k = k_buf.get();
  bwd.v = v_buf.get();
  bwd.out = out_buf.get();
  bwd.dout = dout_buf.get();
  bwd.lse = static_cast<const float*>(lse_buf.get());
  bwd.dq = dq_buf.get();
  bwd.dk = dk_buf.get();
  bwd.dv = dv_buf.get();
  plan->backward(bwd);
  check(cudaDeviceSynchronize(), "kernels");
  Results r;
  r.out = download_tensor(out_buf, q_count, p.dtype);
  r.dq = download_tensor(dq_buf, q_count, p.dtype);
  r.dk = download_tensor(dk_buf, kv_count, p.dtype);
  r.dv = download_tensor(dv_buf, kv_count, p.dtype);
  for (Buffer* b : {&dq_buf, &dk_buf, &dv_buf}) b->poison();
  plan->backward(bwd);
  check(cudaDeviceSynchronize(), "the second backward");
  r.dq_again = download_tensor(dq_buf, q_count, p.dtype);
  r.dk_again = download_tensor(dk_buf, kv_count, p.dtype);
  r.dv_again = download_tensor(dv_buf, kv_count, p.dtype);
  std::vector<float> lse(lse_count);
  lse_buf.download(lse.data());
  r.lse.assign(lse.begin(), lse.end());
  return r;
}

class AttentionAgainstReference : public ::testing::TestWithParam<size_t> {};

TEST_P(AttentionAgainstReference, AllImplementationsMatchFp64Reference) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  const KernelCase& c = all_cases()[GetParam()];
  const AttentionProblem& p = c.problem;
  std::mt19937_64 rng(1234 + GetParam());
  AttentionTensors x;
  const size_t q_count = static_cast<size_t>(p.batch * p.seqlen_q * p.heads * p.head_dim);
  const size_t kv_count = static_cast<size_t>(p.batch * p.seqlen_k * p.kv_heads * p.head_dim);
  auto q = random_tensor(q_count, p.dtype, rng, x.q);
  auto k = random_tensor(kv_count, p.dtype, rng, x.k);
  const auto v = random_tensor(kv_count, p.dtype, rng, x.v);
  const auto dout = random_tensor(q_count, p.dtype, rng, x.dout);
  if (c.score_ramp > 0) {
    // Feature 0 of each token (layout [batch][token][head][dim]); rounded to the element type like every input.
    const auto set = [&](std::vector<uint16_t>& bits, std::vector<double>& values, size_t n, double value) {
      bits[n] = to_bits(value, p.dtype);
      values[n] = from_bits(bits[n], p.dtype);
    };
    for (size_t n = 0; n < q_count; n += static_cast<size_t>(p.head_dim)) set(q, x.q, n, 4.0);
    for (size_t n = 0; n < kv_count; n += static_cast<size_t>(p.head_dim)) {
      const int64_t token = static_cast<int64_t>(n / static_cast<size_t>(p.head_dim * p.kv_heads)) % p.seqlen_k;
      set(k, x.k, n, c.score_ramp * static_cast<double>(token));
    }
  }
  const ReferenceResult ref = reference_attention(p, x);
  const double tolerance = p.dtype == DType::kBf16 ? 1e-2 : 3e-3;
  constexpr double kLseTolerance = 2e-3;

  AttentionRegistry registry;
  register_all(registry);
  for (const std::string& name : registry.names()) {
    const AttentionImpl& impl = registry.find(name);
    SCOPED_TRACE(name + " on " + c.name);
    const Support forward = impl.supports(p, Pass::kForward);
    const Support backward = impl.supports(p, Pass::kBackward);
    if (!forward.supported || !backward.supported) {
      std::cout << "[ unsupported ] " << name << " on " << c.name << ": "
                << (forward.supported ? backward.reason : forward.reason) << "\n";
      continue;
    }
    // lcab_flash's Hopper backward has two kernels, chosen per mask (flash_attention.cpp), and the mma.sync backward
    // two at head dim 64, chosen by the GPU's shared memory (mma_sync_backward_tile): each runs on every case, forced
    // by its environment variable (variable, value; none for the default choice alone).
    using Setting = std::pair<std::string, std::string>;
    std::vector<Setting> settings{{}};
    if (name == "lcab_flash") {
      settings = {{"LCAB_FLASH_BACKWARD_MASKING", "slices"}, {"LCAB_FLASH_BACKWARD_MASKING", "run_masks"}};
    } else if (name == "lcab_flash_sm80" && p.head_dim == 64) {
      settings = {{"LCAB_FLASH_BACKWARD_QUERIES", "128"}, {"LCAB_FLASH_BACKWARD_QUERIES", "64"}};
    }
    for (const auto& [variable, value] : settings) {
      SCOPED_TRACE(variable.empty() ? "" : variable + "=" + value);
      if (!variable.empty()) setenv(variable.c_str(), value.c_str(), 1);
      // The mma.sync path's dQ accumulator starts as NaN (fresh device memory is often zero): a backward that reads
      // rows of it without zeroing them first fails. The Hopper path zeroes its accumulator once when allocated and
      // relies on each call's tail to leave it zero: the second backward on the same plan (dq_again) checks that.
      setenv("LCAB_FLASH_POISON_WORKSPACE", "1", 1);
      const Results r = run_impl(impl, p, q, k, v, dout);
      unsetenv("LCAB_FLASH_POISON_WORKSPACE");
      if (!variable.empty()) unsetenv(variable.c_str());
      EXPECT_LT(relative_error(r.out, ref.out), tolerance) << "out";
      EXPECT_LT(relative_error(r.dq, ref.dq), tolerance) << "dq";
      EXPECT_LT(relative_error(r.dk, ref.dk), tolerance) << "dk";
      EXPECT_LT(relative_error(r.dv, ref.dv), tolerance) << "dv";
      EXPECT_LT(relative_error(r.dq_again, ref.dq), tolerance) << "dq of a second backward on the same plan";
      EXPECT_LT(relative_error(r.dk_again, ref.dk), tolerance) << "dk of a second backward on the same plan";
      EXPECT_LT(relative_error(r.dv_again, ref.dv), tolerance) << "dv of a second backward on the same plan";
      size_t lse_bad = 0;
      for (size_t n = 0; n < ref.lse.size(); ++n) {
        const bool ok = std::isinf(ref.lse[n]) ? (std::isinf(r.lse[n]) && r.lse[n] < 0)
                                               : std::abs(r.lse[n] - ref.lse[n]) < kLseTolerance;
        if (!ok && lse_bad++ < 3) ADD_FAILURE() << "lse[" << n << "] = " << r.lse[n] << ", reference " << ref.lse[n];
      }
      EXPECT_EQ(lse_bad, 0u) << "lse entries off";
    }
  }
}

// lcab_flash must run head dim 256 on Hopper (the cases above skip implementations that report a head dim
// unsupported, so a Hopper path that lost it would otherwise pass unnoticed), and only there.
TEST(LcabFlash, RunsHeadDim256OnHopper) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  int device = 0, major = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");
  AttentionRegistry registry;
  register_all(registry);
  const AttentionProblem p = shaped({{{0, 256, 0, 256, SliceType::kCausal}}}, 256, 256, 4, 2, 256, DType::kBf16);
  EXPECT_EQ(registry.find("lcab_flash").supports(p, Pass::kBackward).supported, major == 9);
  EXPECT_FALSE(registry.find("lcab_flash_sm80").supports(p, Pass::kForward).supported);
}

INSTANTIATE_TEST_SUITE_P(Masks, AttentionAgainstReference, ::testing::Range<size_t>(0, all_cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) { return all_cases()[info.param].name; });

// Host only: the reference's single-row forward (which the long-sequence test below samples) is the whole
// reference's out and lse for that row, exactly, including rows that see no key.
TEST(ReferenceAttention, ForwardRowEqualsTheWholeReferencesRow) {
  const AttentionProblem p = shaped({{{0, 100, 0, 60, SliceType::kCausal}}, documents({50, 1, 49}, SliceType::kFull)},
                                    120, 120, 4, 2, 64, DType::kBf16, 2);
  std::mt19937_64 rng(3);
  AttentionTensors x;
  random_tensor(static_cast<size_t>(2 * 120 * 4 * 64), p.dtype, rng, x.q);
  random_tensor(static_cast<size_t>(2 * 120 * 2 * 64), p.dtype, rng, x.k);
  random_tensor(static_cast<size_t>(2 * 120 * 2 * 64), p.dtype, rng, x.v);
  random_tensor(static_cast<size_t>(2 * 120 * 4 * 64), p.dtype, rng, x.dout);
  const ReferenceResult whole = reference_attention(p, x);
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t h = 0; h < 4; ++h) {
      for (int64_t row : {0, 1, 59, 99, 110, 119}) {
        const ReferenceRow r = reference_forward_row(p, x, b, h, row);
        const size_t base = static_cast<size_t>(((b * 120 + row) * 4 + h) * 64);
        EXPECT_EQ(r.out, std::vector<double>(whole.out.begin() + base, whole.out.begin() + base + 64))
            << b << " " << h << " " << row;
        EXPECT_EQ(r.lse, whole.lse[static_cast<size_t>((b * 4 + h) * 120 + row)]) << b << " " << h << " " << row;
      }
    }
  }
}

// The forward takes its items in sections of kv heads (forward_kv_heads_per_section, flash_work.h; both code paths),
// which split only at long sequences: at 33000 keys and hd 128 each kv head's K and V exceed the section budget, so 2
// kv heads and 2 batch elements make 4 sections. Every output element must be written (outputs poisoned) and sampled
// rows of every head and batch element must match an fp64 reference of those rows (tolerances as above).
TEST(LcabFlashForward, SectionsCoverEveryHeadAndBatchElementAtLongSequences) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  constexpr int64_t kS = 33000, kHeads = 8, kKvHeads = 2, kDim = 128, kBatch = 2;
  ASSERT_EQ(forward_kv_heads_per_section(kKvHeads, kS, kDim, 2), 1);
  const AttentionProblem p =
      shaped({{{0, kS, 0, kS, SliceType::kCausal}}}, kS, kS, kHeads, kKvHeads, kDim, DType::kBf16, kBatch);
  std::mt19937_64 rng(77);
  AttentionTensors x;
  const size_t q_count = static_cast<size_t>(kBatch * kS * kHeads * kDim);
  const size_t kv_count = static_cast<size_t>(kBatch * kS * kKvHeads * kDim);
  const auto q = random_tensor(q_count, p.dtype, rng, x.q);
  const auto k = random_tensor(kv_count, p.dtype, rng, x.k);
  const auto v = random_tensor(kv_count, p.dtype, rng, x.v);

  // The fp64 reference of sampled rows of every head and batch element.
  struct SampledRow {
    int64_t batch, head, row;
    ReferenceRow ref;
  };
  std::vector<SampledRow> sampled;
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t h = 0; h < kHeads; ++h) {
      for (int64_t row : {int64_t{0}, int64_t{1}, int64_t{127}, int64_t{128}, int64_t{4097}, int64_t{16500},
                          int64_t{32767}, kS - 1}) {
        sampled.push_back({b, h, row, reference_forward_row(p, x, b, h, row)});
      }
    }
  }

  const auto dout = random_tensor(q_count, p.dtype, rng, x.dout);  // run_impl runs the backward too
  AttentionRegistry registry;
  register_all(registry);
  for (const char* name : {"lcab_flash", "lcab_flash_sm80"}) {
    SCOPED_TRACE(name);
    const AttentionImpl& impl = registry.find(name);
    ASSERT_TRUE(impl.supports(p, Pass::kForward).supported);
    const Results result = run_impl(impl, p, q, k, v, dout);
    const std::vector<double>& out = result.out;
    const std::vector<double>& lse = result.lse;
    size_t unwritten = 0;
    for (double value : out) unwritten += !std::isfinite(value);
    for (double value : lse) unwritten += !std::isfinite(value);
    EXPECT_EQ(unwritten, 0u) << "outputs left unwritten (NaN) or not finite";
    double diff = 0, norm = 0;
    size_t lse_bad = 0;
    for (const SampledRow& r : sampled) {
      const size_t base = static_cast<size_t>(((r.batch * kS + r.row) * kHeads + r.head) * kDim);
      for (int64_t d = 0; d < kDim; ++d) {
        const double e = out[base + static_cast<size_t>(d)] - r.ref.out[static_cast<size_t>(d)];
        diff += e * e;
        norm += r.ref.out[static_cast<size_t>(d)] * r.ref.out[static_cast<size_t>(d)];
      }
      const double got = lse[static_cast<size_t>((r.batch * kHeads + r.head) * kS + r.row)];
      if (!(std::abs(got - r.ref.lse) < 2e-3) && lse_bad++ < 3) {
        ADD_FAILURE() << "lse of batch " << r.batch << " head " << r.head << " row " << r.row << ": " << got
                      << ", reference " << r.ref.lse;
      }
    }
    EXPECT_LT(std::sqrt(diff / norm), 1e-2) << "out of the sampled rows";
    EXPECT_EQ(lse_bad, 0u);
  }
}

}  // namespace
}  // namespace lcab::kernels::testing
