// The CP executor against single-GPU lcab_flash on the whole sequence (issue 6 item 5): every method valid at
// P = 1 (one GPU) and P = 2 (two GPUs), five masks, GQA 8 q / 2 kv heads, head dim 128, bf16, forward and
// backward; out, lse, dq, dk, dv gathered from the ranks' shards by the schedules' token maps.
//
// Tolerances. Both sides read the same bf16 inputs and accumulate in fp32; they differ in summation order and
// in that the CP side rounds every step's partial out/dq/dk/dv to bf16 (the kernels' output type) before its
// fp32 merge/accumulation, while the reference rounds once at the end. Each rounding is <= 2^-9 relative, a few
// of them per value, so out, dq, dk and dv must agree to 1% in relative L2 norm (typical differences: 0.2-0.4%)
// and to 5% of the tensor's largest magnitude elementwise. lse is fp32 end to end on both sides (partials merged
// as m + log(sum)): 2e-3 absolute. Every value must be finite (no NaN from rows that see no key in a step),
// and rows that see no key at all must have lse = -inf on both sides.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "cp/executor.h"
#include "cp/launch.h"
#include "kernels/attention.h"
#include "model/cp/cp_method.h"
#include "model/mask_spec.h"

namespace lcab::cp {
namespace {

constexpr int64_t kHeads = 8;
constexpr int64_t kKvHeads = 2;
constexpr int64_t kHeadDim = 128;

struct MethodCase {
  std::string name;  ///< test name
  std::string method;
  int gpus = 1;
  int64_t ulysses = 0;
  int64_t ring = 0;
  int64_t windows = 1;
  bool dkv_home_overlap = true;  ///< CpConfig::overlap_dkv_home_hop
};

struct Case {
  MethodCase method;
  std::string mask;
  std::string mask_name;
  int64_t seqlen = 4096;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.method.name << " " << c.mask << " S=" << c.seqlen;
}

/// Whole-sequence tensors, row-major [S][heads][D] (lse [heads][S]).
struct Tensors {
  std::vector<float> q, k, v, dout;
  std::vector<float> out, lse, dq, dk, dv;
};

std::vector<float> random_bf16_values(int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& x : values) x = bits_to_float(float_to_bits(normal(rng), ElementType::kBf16), ElementType::kBf16);
  return values;
}

const kernels::AttentionImpl& flash() {
  static kernels::AttentionRegistry registry;
  static std::once_flag once;
  std::call_once(once, [] { kernels::register_all(registry); });
  return registry.find("lcab_flash");
}

Buffer tensor_buffer(std::string name, BufferRole role, int64_t tokens, int64_t heads, int64_t tensors,
                     int64_t element_bytes) {
  Buffer b;
  b.name = std::move(name);
  b.role = role;
  b.tokens = tokens;
  b.heads = heads;
  b.head_dim = role == BufferRole::kLse ? 1 : kHeadDim;
  b.tensors = tensors;
  b.element_bytes = element_bytes;
  return b;
}

// Single-GPU lcab_flash on the whole sequence, on GPU 0.
void run_reference(const Mask& mask, Tensors& t) {
  const int64_t S = mask.seqlen();
  RankMemory memory(0, ElementType::kBf16);
  // kQ / kKV roles: plain dtype tensors (no accumulator copies)
  DeviceBuffer& q = memory.bind(tensor_buffer("q", BufferRole::kQ, S, kHeads, 1, 2));
  DeviceBuffer& kv = memory.bind(tensor_buffer("kv", BufferRole::kKV, S, kKvHeads, 2, 2));
  DeviceBuffer& out = memory.bind(tensor_buffer("out", BufferRole::kQ, S, kHeads, 1, 2));
  DeviceBuffer& lse = memory.bind(tensor_buffer("lse", BufferRole::kLse, S, kHeads, 1, 4));
  DeviceBuffer& dout = memory.bind(tensor_buffer("dout", BufferRole::kQ, S, kHeads, 1, 2));
  DeviceBuffer& dq = memory.bind(tensor_buffer("dq", BufferRole::kQ, S, kHeads, 1, 2));
  DeviceBuffer& dkv = memory.bind(tensor_buffer("dkv", BufferRole::kKV, S, kKvHeads, 2, 2));
  memory.upload("q", 0, t.q);
  memory.upload("kv", 0, t.k);
  memory.upload("kv", 1, t.v);
  memory.upload("dout", 0, t.dout);
  const kernels::AttentionProblem problem =
      kernels::make_problem(mask, 1, kHeads, kKvHeads, kHeadDim, kernels::DType::kBf16);
  std::unique_ptr<kernels::AttentionPlan> plan = flash().prepare(problem);
  kernels::ForwardArgs f;
  f.q = q.primary;
  f.k = kv.primary_at(0, 0);
  f.v = kv.primary_at(1, 0);
  f.out = out.primary;
  f.lse = static_cast<float*>(lse.primary);
  plan->forward(f);
  kernels::BackwardArgs b;
  b.q = q.primary;
  b.k = f.k;
  b.v = f.v;
  b.out = out.primary;
  b.dout = dout.primary;
  b.lse = f.lse;
  b.dq = dq.primary;
  b.dk = dkv.primary_at(0, 0);
  b.dv = dkv.primary_at(1, 0);
  plan->backward(b);
  t.out = memory.download("out");
  t.lse = memory.download("lse");
  t.dq = memory.download("dq");
  t.dk = memory.download("dkv", 0);
  t.dv = memory.download("dkv", 1);
}

/// Rank rows -> global rows: copies rows of a [rows][width] shard into a [S][width] tensor.
void scatter_rows(const TokenMap& map, const std::vector<float>& shard, int64_t width, std::vector<float>& global) {
  for (int64_t row = 0; row < map.rows(); ++row) {
    const int64_t g = map.global_of(row);
    if (g < 0) continue;
    std::copy_n(shard.begin() + row * width, width, global.begin() + g * width);
  }
}

std::vector<float> gather_rows(const TokenMap& map, const std::vector<float>& global, int64_t width) {
  std::vector<float> shard(static_cast<size_t>(map.rows() * width), 0.f);
  for (int64_t row = 0; row < map.rows(); ++row) {
    const int64_t g = map.global_of(row);
    if (g >= 0) std::copy_n(global.begin() + g * width, width, shard.begin() + row * width);
  }
  return shard;
}

// The CP run: a thread per GPU, forward then backward; results scattered back to whole-sequence tensors.
void run_cp(const CpConfig& config, const Tensors& in, Tensors& result) {
  const Schedule fwd = build_schedule(config, Pass::kForward);
  const Schedule bwd = build_schedule(config, Pass::kBackward);
  const int64_t S = config.workload.seqlen();
  result.out.assign(S * kHeads * kHeadDim, NAN);
  result.dq.assign(S * kHeads * kHeadDim, NAN);
  result.dk.assign(S * kKvHeads * kHeadDim, NAN);
  result.dv.assign(S * kKvHeads * kHeadDim, NAN);
  result.lse.assign(S * kHeads, NAN);
  std::mutex mutex;
  run_thread_per_gpu(static_cast<int>(config.gpus), [&](RankComms& comms) {
    const int r = comms.rank();
    RankMemory memory(comms.device(), ElementType::kBf16);
    RankExecutor forward(fwd, comms, memory, flash());
    RankExecutor backward(bwd, comms, memory, flash());
    const TokenMap& shard = fwd.token_maps.at(r);
    memory.upload("q", 0, gather_rows(shard, in.q, kHeads * kHeadDim));
    memory.upload("kv", 0, gather_rows(shard, in.k, kKvHeads * kHeadDim));
    memory.upload("kv", 1, gather_rows(shard, in.v, kKvHeads * kHeadDim));
    memory.upload("dout", 0, gather_rows(shard, in.dout, kHeads * kHeadDim));
    forward.enqueue(nullptr);
    backward.enqueue(nullptr);
    const std::vector<float> out = memory.download("out");
    const std::vector<float> dq = memory.download("dq");
    const std::vector<float> dk = memory.download("dkv", 0);
    const std::vector<float> dv = memory.download("dkv", 1);
    // lse stays where the forward's q side keeps it (head-split for Ulysses): its rows follow the q buffer's map
    const RankSchedule& mine = fwd.ranks.at(r);
    ASSERT_FALSE(mine.items.empty()) << "rank " << r << " has no compute item";
    const ComputeItem& item = mine.items.front();
    const Buffer& lse_desc = fwd.buffers.at(fwd.q_sides.at(item.q_side).lse);
    const std::vector<float> lse = memory.download(lse_desc.name);
    const TokenMap& q_map = fwd.token_maps.at(item.q_map);
    std::lock_guard<std::mutex> lock(mutex);
    scatter_rows(shard, out, kHeads * kHeadDim, result.out);
    scatter_rows(shard, dq, kHeads * kHeadDim, result.dq);
    scatter_rows(shard, dk, kKvHeads * kHeadDim, result.dk);
    scatter_rows(shard, dv, kKvHeads * kHeadDim, result.dv);
    for (int64_t h = 0; h < lse_desc.heads; ++h)
      for (int64_t row = 0; row < q_map.rows(); ++row) {
        const int64_t g = q_map.global_of(row);
        if (g >= 0) result.lse[(item.q_heads.begin + h) * S + g] = lse[h * lse_desc.tokens + row];
      }
  });
}

void expect_close(const std::string& what, const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  double diff2 = 0, ref2 = 0, max_ref = 0, max_diff = 0;
  int64_t non_finite = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) {
      ++non_finite;
      continue;
    }
    const double d = static_cast<double>(got[i]) - want[i];
    diff2 += d * d;
    ref2 += static_cast<double>(want[i]) * want[i];
    max_ref = std::max(max_ref, std::abs(static_cast<double>(want[i])));
    max_diff = std::max(max_diff, std::abs(d));
  }
  EXPECT_EQ(non_finite, 0) << what << ": values that are NaN or infinite (or never written)";
  const double rel_l2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  EXPECT_LE(rel_l2, 1e-2) << what << ": relative L2 error";
  EXPECT_LE(max_diff, 5e-2 * std::max(max_ref, 1e-3)) << what << ": largest elementwise difference (largest |ref| "
                                                      << max_ref << ")";
}

void expect_lse_close(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  int64_t bad = 0, nan = 0;
  double max_diff = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i])) {
      ++nan;
      continue;
    }
    if (std::isinf(want[i]) || std::isinf(got[i])) {
      bad += got[i] != want[i];
      continue;
    }
    max_diff = std::max(max_diff, static_cast<double>(std::abs(got[i] - want[i])));
  }
  EXPECT_EQ(nan, 0) << "lse: NaN or never written";
  EXPECT_EQ(bad, 0) << "lse: rows with -inf on one side only";
  EXPECT_LE(max_diff, 2e-3) << "lse: largest absolute difference";
}

class CpExecutorTest : public ::testing::TestWithParam<Case> {};

TEST_P(CpExecutorTest, MatchesSingleGpuFlashForwardAndBackward) {
  const Case& c = GetParam();
  const int gpus = visible_gpu_count();
  if (gpus < c.method.gpus)
    GTEST_SKIP() << "needs " << c.method.gpus << " GPUs, " << gpus << " visible";
  CpConfig config;
  config.method = c.method.method;
  config.gpus = c.method.gpus;
  config.gpus_per_node = 8;
  config.ulysses_degree = c.method.ulysses;
  config.ring_degree = c.method.ring;
  config.windows = c.method.windows;
  config.overlap_dkv_home_hop = c.method.dkv_home_overlap;
  config.workload.mask = std::make_shared<const Mask>(make_mask(c.mask, c.seqlen, kKvHeads));
  config.workload.heads = kHeads;
  config.workload.kv_heads = kKvHeads;
  config.workload.head_dim = kHeadDim;
  const int64_t S = c.seqlen;
  Tensors in;
  in.q = random_bf16_values(S * kHeads * kHeadDim, 1);
  in.k = random_bf16_values(S * kKvHeads * kHeadDim, 2);
  in.v = random_bf16_values(S * kKvHeads * kHeadDim, 3);
  in.dout = random_bf16_values(S * kHeads * kHeadDim, 4);
  set_current_device(0);
  Tensors want = in;
  run_reference(*config.workload.mask, want);
  Tensors got = in;
  run_cp(config, in, got);
  expect_close("out", got.out, want.out);
  expect_lse_close(got.lse, want.lse);
  expect_close("dq", got.dq, want.dq);
  expect_close("dk", got.dk, want.dk);
  expect_close("dv", got.dv, want.dv);
}

std::vector<Case> all_cases() {
  const std::vector<MethodCase> methods = {
      {"ring_p1", "ring", 1},
      {"allgather_p1", "allgather", 1},
      {"ulysses_p1", "ulysses", 1},
      {"ring_p2", "ring", 2},
      {"allgather_p2", "allgather", 2},
      {"ulysses_p2", "ulysses", 2},
      {"usp_u2_r1_p2", "usp", 2, 2, 1},
      {"usp_u1_r2_p2", "usp", 2, 1, 2},
      {"loongtrain_u1_r2_w2_p2", "loongtrain", 2, 1, 2, 2},
      {"ring_p2_no_home_overlap", "ring", 2, 0, 0, 1, false},  // the schedule before the own-block tail
  };
  const std::vector<std::pair<std::string, std::string>> masks = {
      {"full", "full"},
      {"causal", "causal"},
      {"causal_document", "causal_document:seed=3"},
      {"sliding_window_causal", "sliding_window_causal:window=512"},
      {"share_question", "share_question:seed=5"},
  };
  std::vector<Case> cases;
  for (const MethodCase& m : methods)
    for (const auto& [name, spec] : masks) cases.push_back({m, spec, name, 4096});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Methods, CpExecutorTest, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.method.name + "_" + info.param.mask_name;
                         });

// The glue from executor timelines to model/perf/comm_overlap.h: a ring forward at P = 2 has, per rank, a KV
// send and receive (grouped) and two compute items.
TEST(TimelineSplit, CountsTransfersFromTheLaterPartyAndExposesOnlyIdleTime) {
  CpConfig config;
  config.method = "ring";
  config.gpus = 2;
  config.workload.mask = std::make_shared<const Mask>(make_mask("full", 1024, kKvHeads));
  config.workload.heads = kHeads;
  config.workload.kv_heads = kKvHeads;
  const Schedule s = build_schedule(config, Pass::kForward);
  std::vector<std::vector<OpInterval>> timelines(2);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(s.ranks[r].ops.size(), 4u);  // send kv, recv kv, compute own block, compute the received block
    for (int k = 0; k < 4; ++k) {
      const Op& op = s.ranks[r].ops[k];
      timelines[r].push_back({k, op.kind, op.stream, op.step, 0.0, 0.0});
    }
  }
  // rank 0 is ready to send at 0 but rank 1 only at 1: the transfer runs 1..3 on both; rank 0 computes 0..2 and
  // 3..5 (1 ms of the transfer exposed), rank 1 computes 1..2.5 and 3..4 (0.5 ms exposed).
  const double intervals[2][4][2] = {{{0, 3}, {0, 3}, {0, 2}, {3, 5}}, {{1, 3}, {1, 3}, {1, 2.5}, {3, 4}}};
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 4; ++k) {
      timelines[r][k].start_ms = intervals[r][k][0];
      timelines[r][k].end_ms = intervals[r][k][1];
    }
  const TimelineSplit zero = split_timeline(s, timelines, 0);
  EXPECT_DOUBLE_EQ(zero.compute_ms, 4.0);
  EXPECT_DOUBLE_EQ(zero.comm_ms, 2.0);
  EXPECT_DOUBLE_EQ(zero.exposed_comm_ms, 1.0);
  const TimelineSplit one = split_timeline(s, timelines, 1);
  EXPECT_DOUBLE_EQ(one.compute_ms, 2.5);
  EXPECT_DOUBLE_EQ(one.comm_ms, 2.0);
  EXPECT_DOUBLE_EQ(one.exposed_comm_ms, 0.5);
}

}  // namespace
}  // namespace lcab::cp
