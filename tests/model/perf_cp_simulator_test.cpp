#include "model/perf/cp_simulator.h"

#include <algorithm>
#include <memory>

#include <gtest/gtest.h>

#include "model/cp/cp_method.h"
#include "model/error.h"
#include "model/mask_spec.h"
#include "tests/model/perf_test_profiles.h"

namespace lcab::perf {
namespace {

cp::CpConfig config(const std::string& method, int64_t gpus, const std::string& mask, int64_t seqlen,
                    int64_t ulysses = 0) {
  cp::CpConfig c;
  c.method = method;
  c.gpus = gpus;
  c.gpus_per_node = 8;
  c.ulysses_degree = ulysses;
  c.workload.mask = std::make_shared<Mask>(make_mask(mask, seqlen, 8));
  c.workload.heads = 8;
  c.workload.kv_heads = 8;
  return c;
}

struct Models {
  HardwareProfile profile = testing::simple_profile();
  std::unique_ptr<KernelCostModel> kernel;
  std::unique_ptr<CommCostModel> comm;
  explicit Models(int64_t gpus, const std::string& pass = "fwd") { rebuild(gpus, pass); }
  void rebuild(int64_t gpus, const std::string& pass = "fwd") {
    kernel = std::make_unique<KernelCostModel>(profile.kernel("test_impl", pass, 128, "bf16"), profile.sms());
    comm = std::make_unique<CommCostModel>(profile, ClusterShape{gpus, 8});
  }
  CpCostModels models() const { return cost_models(profile, *kernel, *comm); }
};

// The first op of `kind` on rank 0.
int first_op(const cp::Schedule& s, cp::OpKind kind) {
  for (size_t k = 0; k < s.ranks[0].ops.size(); ++k)
    if (s.ranks[0].ops[k].kind == kind) return static_cast<int>(k);
  return -1;
}

double duration(const CpSimulation& sim, int rank, int op) { return sim.ops[rank][op].end_us - sim.ops[rank][op].start_us; }

TEST(PerfCpSimulator, RingOnFullMaskHidesCommunicationWhenAStepOutlastsAHop) {
  // P equal steps of c; each step's KV hop (h) runs under the step's compute, so with c >= h the pass takes
  // exactly P x c, and with h > c it takes (P - 1) x h + c.
  const int P = 4;
  const cp::Schedule s = cp::build_schedule(config("ring", P, "full", 8192), cp::Pass::kForward);
  int hidden = 0, exposed = 0;
  for (double full_tile_us : {1.0, 0.01}) {
    Models m(P);
    m.profile.kernels[0].full_tile_us.value = full_tile_us;
    m.profile.kernels[0].row_us.value = 0;
    m.rebuild(P);
    const CpSimulation sim = simulate(s, m.models());
    const double c = duration(sim, 0, first_op(s, cp::OpKind::kCompute));
    const double h = duration(sim, 0, first_op(s, cp::OpKind::kSend));
    for (int r = 0; r < P; ++r) {
      for (int step = 0; step < P; ++step) {
        double attention = 0;
        for (size_t k = 0; k < s.ranks[r].ops.size(); ++k)
          if (s.ranks[r].ops[k].kind == cp::OpKind::kCompute && s.ranks[r].ops[k].step == step)
            attention += duration(sim, r, static_cast<int>(k));
        EXPECT_NEAR(attention, c, 1e-9 * c) << "rank " << r << " step " << step;
      }
    }
    ++(c >= h ? hidden : exposed);
    if (c >= h) {
      EXPECT_NEAR(sim.time_us, P * c, 1e-6) << "c " << c << " h " << h;
      EXPECT_NEAR(sim.ranks[0].exposed_comm_us, 0, 1e-6);
    } else {
      EXPECT_NEAR(sim.time_us, (P - 1) * h + c, 1e-6) << "c " << c << " h " << h;
      EXPECT_NEAR(sim.ranks[0].exposed_comm_us, (P - 1) * (h - c), 1e-6);
    }
    EXPECT_NEAR(sim.imbalance(), 1.0, 1e-12);
    EXPECT_FALSE(sim.critical_path.empty());
  }
  EXPECT_EQ(hidden, 1);
  EXPECT_EQ(exposed, 1);
}

TEST(PerfCpSimulator, OverlapSlowdownStretchesOnlyOverlappedCompute) {
  const int P = 4;
  const cp::Schedule s = cp::build_schedule(config("ring", P, "full", 8192), cp::Pass::kForward);
  Models plain(P);
  Models slowed(P);
  slowed.profile.overlap_slowdown.value = 1.5;
  slowed.rebuild(P);
  const CpSimulation a = simulate(s, plain.models());
  const CpSimulation b = simulate(s, slowed.models());
  const int compute = first_op(s, cp::OpKind::kCompute);
  // step 0's compute is stretched by 0.5 x the time communication runs under it in the plain play (hops of
  // step 0 and, once KV has arrived, the forwarding hop of step 1).
  const double begin = a.ops[0][compute].start_us, end = a.ops[0][compute].end_us;
  std::vector<std::pair<double, double>> comm;
  for (size_t k = 0; k < s.ranks[0].ops.size(); ++k)
    if (cp::is_communication(s.ranks[0].ops[k].kind))
      comm.push_back({std::max(begin, a.ops[0][k].start_us), std::min(end, a.ops[0][k].end_us)});
  std::sort(comm.begin(), comm.end());
  double overlap = 0, covered_to = begin;
  for (const auto& [b0, e0] : comm) {
    const double from = std::max(b0, covered_to);
    if (e0 > from) overlap += e0 - from;
    covered_to = std::max(covered_to, e0);
  }
  EXPECT_GT(overlap, 0);
  EXPECT_NEAR(duration(b, 0, compute), duration(a, 0, compute) + 0.5 * overlap, 1e-6);
  EXPECT_GT(b.time_us, a.time_us);
}

TEST(PerfCpSimulator, UlyssesAllToAllVolumes) {
  // Each rank holds t = S / P tokens of all 8 heads; the all-to-all sends every peer t x (8 / P) heads x 128 x
  // 2 bytes of q (and twice that for k and v together).
  const int P = 4;
  const int64_t S = 4096, t = S / P;
  const cp::Schedule s = cp::build_schedule(config("ulysses", P, "causal", S), cp::Pass::kForward);
  Models m(P);
  const CpSimulation sim = simulate(s, m.models());
  int all_to_all = 0;
  for (size_t k = 0; k < s.ranks[0].ops.size(); ++k) {
    const cp::Op& op = s.ranks[0].ops[k];
    if (op.kind != cp::OpKind::kAllToAll) continue;
    ++all_to_all;
    const cp::CommOp& comm = s.ranks[0].comms[op.index];
    const int64_t q_chunk = t * (8 / P) * 128 * 2;
    const int64_t want = comm.what == "kv" ? 2 * q_chunk : q_chunk;
    EXPECT_EQ(comm.chunk_bytes, want) << comm.what;
    // 4 ranks in one node: 3 chunks over NVLink at 100 GB/s after 10 us, plus the executor's staging passes over
    // the 4 x chunk send buffer (a2a_staging.h): q and kv pack heads (read + write 2 B per element); out is
    // converted from fp32 (4 + 2), unpacked (2 + 2) and converted back into the fp32 accumulator (2 + 4).
    const double elements = 4.0 * static_cast<double>(want) / 2;
    const double staging_bytes = elements * (comm.what == "out" ? 16 : 4);
    EXPECT_NEAR(duration(sim, 0, static_cast<int>(k)),
                10 + 3.0 * static_cast<double>(want) / 100e9 * 1e6 +
                    staging_bytes / m.profile.gpu.hbm_bytes_per_s.value * 1e6,
                1e-9);
  }
  EXPECT_GE(all_to_all, 3);  // q, kv in; out back
}

TEST(PerfCpSimulator, AllGatherVolumes) {
  const int P = 8;
  const int64_t S = 8192, t = S / P;
  const cp::Schedule s = cp::build_schedule(config("allgather", P, "causal", S), cp::Pass::kForward);
  Models m(P);
  const CpSimulation sim = simulate(s, m.models());
  int64_t contributed = 0;
  double gather_us = 0;
  for (size_t k = 0; k < s.ranks[0].ops.size(); ++k) {
    const cp::Op& op = s.ranks[0].ops[k];
    if (op.kind != cp::OpKind::kAllGather) continue;
    contributed += s.ranks[0].comms[op.index].chunk_bytes;
    gather_us += duration(sim, 0, static_cast<int>(k));
  }
  EXPECT_EQ(contributed, 2 * t * 8 * 128 * 2);  // K and V of t tokens, 8 kv heads
  // one all-gather of (P - 1) chunks: 10 us + 6 hops x 1 us + 7 x chunk / 100 GB/s
  EXPECT_NEAR(gather_us, 10 + 6 * 1 + 7.0 * static_cast<double>(contributed) / 100e9 * 1e6, 1e-9);
}

TEST(PerfCpSimulator, FasterHardwareIsNeverSlower) {
  for (const std::string method : {"ring", "usp", "allgather"}) {
    const int P = 16;
    cp::CpConfig c = config(method, P, "causal_document", 65536, method == "usp" ? 2 : 0);
    const cp::Schedule s = cp::build_schedule(c, cp::Pass::kForward);
    Models base(P);
    const double t0 = simulate(s, base.models()).time_us;
    Models fast_net(P);
    for (CollectiveParams& cp : fast_net.profile.collectives) cp.bytes_per_s.value *= 4;
    fast_net.rebuild(P);
    EXPECT_LE(simulate(s, fast_net.models()).time_us, t0 + 1e-9) << method;
    Models fast_gpu(P);
    for (KernelParams& k : fast_gpu.profile.kernels) {
      k.full_tile_us.value /= 2;
      k.partial_tile_us.value /= 2;
    }
    fast_gpu.rebuild(P);
    EXPECT_LE(simulate(s, fast_gpu.models()).time_us, t0 + 1e-9) << method;
  }
}

TEST(PerfCpSimulator, ReportsStepsMemoryAndTimeline) {
  const int P = 4;
  const cp::Schedule s = cp::build_schedule(config("ring", P, "causal", 8192), cp::Pass::kForward);
  Models m(P);
  const CpSimulation sim = simulate(s, m.models());
  ASSERT_EQ(sim.steps.size(), static_cast<size_t>(P));
  for (int r = 0; r < P; ++r) {
    EXPECT_GE(sim.ranks[r].peak_mem_bytes, s.peak_buffer_bytes());
    for (const StepTiming& st : sim.steps[r]) {
      EXPECT_TRUE(st.present);
      EXPECT_LE(st.start_us, st.end_us);
    }
  }
  EXPECT_NEAR(sim.flops(), 4.0 * s.config.workload.mask->mean_area() * 8 * 128, 1.0);
  Timeline timeline;
  append_timeline(s, sim, timeline);
  size_t ops = 0;
  for (const cp::RankSchedule& rs : s.ranks) ops += rs.ops.size();
  EXPECT_EQ(timeline.events.size(), ops);
  EXPECT_NEAR(timeline.span_us(), sim.time_us, 1e-9);
}

TEST(PerfCpSimulator, RingBackwardHidesTheFinalDkvHopBehindTheOwnBlockTail) {
  // P = 2, causal, 8 q / 8 kv heads, S = 8192: 4096 rows per rank. The final dK,dV hop carries 2 x 4096 x 8 x 128
  // x 4 bytes: 10 us + 335.5 us over NVLink at 100 GB/s. The own block costs about 1 ms here, so its tail (2/3)
  // outlasts the hop; without the tail the hop follows the last compute on both ranks.
  const double hop_us = 10 + 2.0 * 4096 * 8 * 128 * 4 / 100e9 * 1e6;
  cp::CpConfig with_tail = config("ring", 2, "causal", 8192);
  cp::CpConfig without = with_tail;
  without.overlap_dkv_home_hop = false;
  Models m(2, "bwd");
  const CpSimulation before = simulate(cp::build_schedule(without, cp::Pass::kBackward), m.models());
  const CpSimulation after = simulate(cp::build_schedule(with_tail, cp::Pass::kBackward), m.models());
  for (int r = 0; r < 2; ++r) {
    EXPECT_GE(before.ranks[r].exposed_comm_us, hop_us - 1e-6) << "rank " << r;
    EXPECT_NEAR(after.ranks[r].exposed_comm_us, 0, 1e-6) << "rank " << r;
  }
  EXPECT_NEAR(after.comm_hidden_fraction(), 1.0, 1e-12);
  EXPECT_LE(before.comm_hidden_fraction(), 1.0 - hop_us / before.ranks[0].comm_us + 1e-9);
  EXPECT_LT(after.time_us, before.time_us);
}

TEST(PerfCpSimulator, KernelModelMustMatchThePass) {
  const cp::Schedule s = cp::build_schedule(config("ring", 2, "causal", 4096), cp::Pass::kBackward);
  Models m(2, "fwd");
  EXPECT_THROW(simulate(s, m.models()), Error);
  m.rebuild(2, "bwd");
  EXPECT_GT(simulate(s, m.models()).time_us, 0);
}

}  // namespace
}  // namespace lcab::perf
