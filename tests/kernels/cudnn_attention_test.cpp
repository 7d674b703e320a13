// The cudnn implementation: which problems it claims on the loaded cuDNN (GPU; which masks map to cuDNN and how:
// tests/model/cudnn_mask_test.cpp), and its results against the fp64 reference on masks cuDNN runs without ragged batches, for
// every dtype x head dim x GQA ratio (GPU; attention_gpu_test.cpp covers documents and every mask pattern).
//
// Tolerances are those of attention_gpu_test.cpp, for the same reasons (relative Frobenius error: bf16 < 1e-2,
// fp16 < 3e-3, since inputs are exact in the element type and only the kernel's roundings of P, dS and the outputs
// remain; lse absolute < 2e-3). Outputs are poisoned with NaN first, so unwritten elements fail.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "attention_reference.h"
#include "gpu_test_support.h"
#include "kernels/attention.h"
#include "kernels/cudnn_attention.h"
#include "model/mask_spec.h"

namespace lcab::kernels::testing {
namespace {

// ---- GPU ---------------------------------------------------------------------------------------------------------

const AttentionImpl* find_cudnn(AttentionRegistry& registry) {
  register_all(registry);
  for (const std::string& name : registry.names()) {
    if (name == "cudnn") return &registry.find(name);
  }
  return nullptr;
}

TEST(CudnnAttention, ClaimsTheMasksItMapsOnTheLoadedVersion) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  AttentionRegistry registry;
  const AttentionImpl* cudnn = find_cudnn(registry);
  ASSERT_NE(cudnn, nullptr) << "cudnn is not registered although the build found cuDNN";
  const int64_t version = cudnn_runtime_version();
  std::cout << "cuDNN loaded " << cudnn_version_string(version) << ", compiled against "
            << cudnn_version_string(cudnn_compiled_version()) << "\n";
  int major = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  if (version < 90600 || major < 9) GTEST_SKIP() << "expectations below are for cuDNN >= 9.6 on Hopper or newer";
  const DType bf16 = DType::kBf16;
  struct Expectation {
    const char* name;
    AttentionProblem problem;
  };
  const std::vector<Expectation> supported = {
      {"full", shaped({{{0, 256, 0, 256, SliceType::kFull}}}, 256, 256, 8, 2, 128, bf16)},
      {"causal", shaped({{{0, 300, 0, 300, SliceType::kCausal}}}, 300, 300, 8, 2, 128, bf16)},
      {"rectangular causal", shaped({{{0, 200, 0, 333, SliceType::kCausal}}}, 200, 333, 8, 2, 128, bf16)},
      {"causal documents", shaped({documents({37, 150, 1, 200}, SliceType::kCausal)}, 388, 388, 8, 1, 64, bf16)},
      {"full documents", shaped({documents({1, 2, 1, 140}, SliceType::kFull)}, 144, 144, 8, 8, 64, bf16)},
      {"sliding window causal", make_problem(make_mask("sliding_window_causal:window=64", 1000), 1, 4, 2, 128, bf16)},
  };
  for (const Expectation& e : supported) {
    for (Pass pass : {Pass::kForward, Pass::kBackward}) {
      const Support s = cudnn->supports(e.problem, pass);
      EXPECT_TRUE(s.supported) << e.name << ": " << s.reason;
    }
  }
  const std::vector<Expectation> unsupported = {
      {"rows without keys", shaped({{{0, 300, 0, 100, SliceType::kCausal}}}, 350, 350, 8, 2, 128, bf16)},
      {"prefix lm", make_problem(make_mask("prefix_lm_causal", 1000), 1, 4, 2, 128, bf16)},
      {"head dim 300", shaped({{{0, 64, 0, 64, SliceType::kFull}}}, 64, 64, 4, 4, 300, bf16)},
  };
  for (const Expectation& e : unsupported) {
    const Support s = cudnn->supports(e.problem, Pass::kForward);
    EXPECT_FALSE(s.supported) << e.name;
    EXPECT_FALSE(s.reason.empty()) << e.name;
  }
  // What every registered pattern gets (for the record; the main kernel test runs the supported ones).
  for (const MaskPattern& pattern : builtin_mask_patterns().patterns()) {
    if (pattern.name == "file") continue;
    const AttentionProblem p = make_problem(builtin_mask_patterns().make(pattern.name, 1000, 2), 1, 4, 2, 128, bf16);
    const Support s = cudnn->supports(p, Pass::kBackward);
    std::cout << "cudnn " << pattern.name << ": " << (s.supported ? "supported" : "unsupported: " + s.reason)
              << "\n";
  }
}

// -- against the fp64 reference ------------------------------------------------------------------------------------

void expect_matches_reference(const AttentionImpl& impl, const AttentionProblem& p, uint64_t seed) {
  const size_t q_count = static_cast<size_t>(p.batch * p.seqlen_q * p.heads * p.head_dim);
  const size_t kv_count = static_cast<size_t>(p.batch * p.seqlen_k * p.kv_heads * p.head_dim);
  const size_t lse_count = static_cast<size_t>(p.batch * p.heads * p.seqlen_q);
  std::mt19937_64 rng(seed);
  AttentionTensors x;
  const std::vector<uint16_t> q_bits = random_tensor(q_count, p.dtype, rng, x.q);
  const std::vector<uint16_t> k_bits = random_tensor(kv_count, p.dtype, rng, x.k);
  const std::vector<uint16_t> v_bits = random_tensor(kv_count, p.dtype, rng, x.v);
  const std::vector<uint16_t> dout_bits = random_tensor(q_count, p.dtype, rng, x.dout);
  const ReferenceResult ref = reference_attention(p, x);

  Buffer q(q_count * 2), k(kv_count * 2), v(kv_count * 2), dout(q_count * 2), out(q_count * 2), dq(q_count * 2),
      dk(kv_count * 2), dv(kv_count * 2), lse(lse_count * 4);
  q.upload(q_bits.data());
  k.upload(k_bits.data());
  v.upload(v_bits.data());
  dout.upload(dout_bits.data());
  for (Buffer* b : {&out, &dq, &dk, &dv, &lse}) b->poison();
  std::unique_ptr<AttentionPlan> plan = impl.prepare(p);
  plan->forward({q.get(), k.get(), v.get(), out.get(), static_cast<float*>(lse.get()), nullptr});
  plan->backward({q.get(), k.get(), v.get(), out.get(), dout.get(), static_cast<const float*>(lse.get()), dq.get(),
                  dk.get(), dv.get(), nullptr});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const double tolerance = p.dtype == DType::kBf16 ? 1e-2 : 3e-3;
  EXPECT_LT(relative_error(download_tensor(out, q_count, p.dtype), ref.out), tolerance) << "out";
  EXPECT_LT(relative_error(download_tensor(dq, q_count, p.dtype), ref.dq), tolerance) << "dq";
  EXPECT_LT(relative_error(download_tensor(dk, kv_count, p.dtype), ref.dk), tolerance) << "dk";
  EXPECT_LT(relative_error(download_tensor(dv, kv_count, p.dtype), ref.dv), tolerance) << "dv";
  std::vector<float> lse_values(lse_count);
  lse.download(lse_values.data());
  size_t bad = 0;
  for (size_t n = 0; n < lse_count; ++n) {
    if (!(std::abs(lse_values[n] - ref.lse[n]) < 2e-3) && bad++ < 3) {
      ADD_FAILURE() << "lse[" << n << "] = " << lse_values[n] << ", reference " << ref.lse[n];
    }
  }
  EXPECT_EQ(bad, 0u) << "lse entries off";
}

TEST(CudnnAttention, EveryDtypeHeadDimAndGqaRatioMatchesReference) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  AttentionRegistry registry;
  const AttentionImpl* cudnn = find_cudnn(registry);
  ASSERT_NE(cudnn, nullptr);
  const int64_t s = 300;  // not a multiple of any tile
  uint64_t seed = 77;
  auto run = [&](const char* spec, DType dtype, int64_t head_dim, int64_t kv_heads, int64_t batch) {
    const AttentionProblem p = make_problem(make_mask(spec, s), batch, 8, kv_heads, head_dim, dtype);
    const std::string name = std::string(spec) + " " + to_string(dtype) + " hd" + std::to_string(head_dim) +
                             " gqa" + std::to_string(8 / kv_heads) + " batch" + std::to_string(batch);
    SCOPED_TRACE(name);
    const Support support = cudnn->supports(p, Pass::kBackward);
    if (!support.supported) {
      std::cout << "[ unsupported ] cudnn " << name << ": " << support.reason << "\n";
      return;
    }
    expect_matches_reference(*cudnn, p, seed++);
  };
  // Full and causal over the whole grid; the windows (the same GQA and dtype code paths) on two corners of it.
  for (const char* spec : {"full", "causal"}) {
    for (DType dtype : {DType::kBf16, DType::kFp16}) {
      for (int64_t head_dim : {64, 128}) {
        for (int64_t kv_heads : {8, 2, 1}) run(spec, dtype, head_dim, kv_heads, 1);
      }
    }
  }
  for (const char* spec : {"sliding_window_causal:window=64", "sliding_window:window=50"}) {
    run(spec, DType::kBf16, 128, 2, 1);
    run(spec, DType::kFp16, 64, 8, 2);
  }
}

// Windows over more than 1024 keys (cuDNN 9.14.0 has a known bug with non-causal windows there; cudnn refuses
// only a left bound without a right bound, as cudnn-frontend does).
TEST(CudnnAttention, WindowsOverMoreThan1024KeysMatchReference) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  AttentionRegistry registry;
  const AttentionImpl* cudnn = find_cudnn(registry);
  ASSERT_NE(cudnn, nullptr);
  for (const char* spec : {"sliding_window:window=700", "sliding_window_causal:window=700"}) {
    const AttentionProblem p = make_problem(make_mask(spec, 2500), 1, 2, 1, 64, DType::kBf16);
    SCOPED_TRACE(spec);
    const Support support = cudnn->supports(p, Pass::kBackward);
    if (!support.supported) {
      std::cout << "[ unsupported ] cudnn " << spec << " at 2500: " << support.reason << "\n";
      continue;
    }
    expect_matches_reference(*cudnn, p, 99);
  }
}

// Document masks past 2^31 elements (e.g. 256K tokens x 64 heads x 128) need int64 ragged offsets; the same
// path is forced here at a small size.
TEST(CudnnAttention, Int64RaggedOffsetsMatchReference) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  const std::unique_ptr<AttentionImpl> cudnn = make_cudnn_attention_with_int32_offsets_up_to(0);
  for (int64_t kv_heads : {8, 2}) {
    const AttentionProblem p =
        shaped({documents({37, 150, 1, 200}, SliceType::kCausal)}, 388, 388, 8, kv_heads, 128, DType::kBf16, 2);
    SCOPED_TRACE("kv_heads " + std::to_string(kv_heads));
    const Support support = cudnn->supports(p, Pass::kBackward);
    if (!support.supported) {
      std::cout << "[ unsupported ] cudnn with int64 ragged offsets: " << support.reason << "\n";
      continue;
    }
    expect_matches_reference(*cudnn, p, 5 + kv_heads);
  }
}

}  // namespace
}  // namespace lcab::kernels::testing
