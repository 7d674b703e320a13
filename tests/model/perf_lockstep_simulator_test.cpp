// The lock-step simulator (model/perf/lockstep_simulator.h) against simulate() on the materialized schedule: the
// summaries must be the same numbers for every method of the ulysses/ring engine, degrees, placements, windows,
// masks (documents, windows, per-kv-head block-sparse), GPU counts up to 64 (one node and several), both passes,
// with and without the overlap slowdown, with and without the own-block tail of the ring backward.
#include <algorithm>
#include "model/perf/lockstep_simulator.h"

#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include <gtest/gtest.h>

#include "model/error.h"
#include "model/mask_spec.h"
#include "model/mask_tile_grid.h"
#include "model/perf/cp_predictor.h"
#include "model/perf/planner.h"
#include "tests/model/perf_test_profiles.h"

namespace lcab::perf {
namespace {

constexpr double kRelativeTolerance = 1e-9;

bool close(double a, double b) { return std::abs(a - b) <= kRelativeTolerance * std::max(std::abs(a), std::abs(b)); }

// Every summary field of two simulations of one pass; returns the differences found (empty when the same).
std::string differences(const CpSimulation& exact, const CpSimulation& fast) {
  std::ostringstream out;
  if (exact.ranks.size() != fast.ranks.size()) out << " ranks " << exact.ranks.size() << " vs " << fast.ranks.size();
  if (!close(exact.time_us, fast.time_us)) out << " time_us " << exact.time_us << " vs " << fast.time_us;
  if (exact.slowest_rank != fast.slowest_rank) out << " slowest " << exact.slowest_rank << " vs " << fast.slowest_rank;
  for (size_t r = 0; r < std::min(exact.ranks.size(), fast.ranks.size()); ++r) {
    const RankSummary& a = exact.ranks[r];
    const RankSummary& b = fast.ranks[r];
    const std::pair<const char*, std::pair<double, double>> fields[] = {
        {"end_us", {a.end_us, b.end_us}},
        {"compute_us", {a.compute_us, b.compute_us}},
        {"attention_us", {a.attention_us, b.attention_us}},
        {"comm_us", {a.comm_us, b.comm_us}},
        {"exposed_comm_us", {a.exposed_comm_us, b.exposed_comm_us}},
        {"flops", {a.flops, b.flops}}};
    for (const auto& [name, values] : fields)
      if (!close(values.first, values.second))
        out << " rank " << r << " " << name << " " << values.first << " vs " << values.second;
    if (a.peak_mem_bytes != b.peak_mem_bytes)
      out << " rank " << r << " peak_mem " << a.peak_mem_bytes << " vs " << b.peak_mem_bytes;
  }
  return out.str();
}

cp::CpConfig config(const std::string& method, int64_t gpus, int64_t gpus_per_node, std::shared_ptr<const Mask> mask,
                    int64_t ulysses, int64_t windows, cp::Placement placement) {
  cp::CpConfig c;
  c.method = method;
  c.gpus = gpus;
  c.gpus_per_node = gpus_per_node;
  c.ulysses_degree = ulysses;
  c.windows = windows;
  c.placement = placement;
  c.workload.mask = std::move(mask);
  c.workload.heads = 16;
  c.workload.kv_heads = 4;
  return c;
}

// Every config of the engine for P GPUs: ring, ulysses, usp (U, R >= 2) x placements, loongtrain x windows.
std::vector<cp::CpConfig> engine_configs(int64_t gpus, int64_t gpus_per_node, std::shared_ptr<const Mask> mask) {
  std::vector<cp::CpConfig> out;
  out.push_back(config("ring", gpus, gpus_per_node, mask, 0, 1, cp::Placement::kUlyssesIntra));
  out.push_back(config("ulysses", gpus, gpus_per_node, mask, 0, 1, cp::Placement::kUlyssesIntra));
  for (auto [u, r] : cp::valid_degrees(gpus, 16, 4)) {
    if (u < 2 || r < 2) continue;
    for (cp::Placement placement : {cp::Placement::kUlyssesIntra, cp::Placement::kRingIntra}) {
      out.push_back(config("usp", gpus, gpus_per_node, mask, u, 1, placement));
      for (int64_t w = 2; w < r; w *= 2)
        if (r % w == 0) out.push_back(config("loongtrain", gpus, gpus_per_node, mask, u, w, placement));
    }
  }
  return out;
}

// Predicts every config both ways (summaries only: lock-step; with timings kept: simulate() on the materialized
// schedule) and counts the configs compared; failures name the config and the fields that differ.
// overlap_home_hop: CpConfig::overlap_dkv_home_hop of every config.
int compare_all(const HardwareProfile& profile, const KernelChoice& kernel, int64_t gpus, int64_t gpus_per_node,
                const std::vector<std::string>& masks, int64_t seqlen, bool overlap_home_hop = true) {
  CpPredictor predictor(profile, {gpus, gpus_per_node});
  int compared = 0;
  for (const std::string& spec : masks) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, seqlen, 4));
    for (cp::CpConfig c : engine_configs(gpus, gpus_per_node, mask)) {
      c.overlap_dkv_home_hop = overlap_home_hop;
      CpPrediction exact, fast;
      try {
        exact = predictor.predict(c, kernel, {cp::Pass::kForward, cp::Pass::kBackward},
                                  PredictOptions{false, false, true});
      } catch (const Error&) {
        continue;  // a config the method rejects (heads, windows)
      }
      fast = predictor.predict(c, kernel, {cp::Pass::kForward, cp::Pass::kBackward}, PredictOptions{false, false, false});
      // The planner's bound: the same peak memory, never above the time.
      const CpBound bound = predictor.bound(c, kernel, {cp::Pass::kForward, cp::Pass::kBackward});
      EXPECT_EQ(bound.peak_mem_bytes, exact.peak_mem_bytes()) << describe_config(exact.config) << " " << spec;
      EXPECT_LE(bound.time_lower_bound_us, exact.time_us()) << describe_config(exact.config) << " " << spec;
      for (size_t n = 0; n < 2; ++n) {
        EXPECT_GT(exact.passes[n].simulation.time_us, 0);
        EXPECT_EQ(differences(exact.passes[n].simulation, fast.passes[n].simulation), "")
            << describe_config(exact.config) << " on " << gpus << " GPUs (" << gpus_per_node << " per node), " << spec
            << ", " << cp::to_string(exact.passes[n].pass);
      }
      ++compared;
    }
  }
  return compared;
}

const std::vector<std::string> kMasks = {"causal",          "causal_document",     "full_document_long",
                                         "sliding_window:window=512", "share_question", "prefix_lm_document",
                                         "block_sparse",    "variable_block_sparse:avg_block=256"};

TEST(PerfLockstepSimulator, SameSummariesAsTheMaterializedScheduleOnOneNode) {
  // The built-in H100 profile with an overlap slowdown above 1 (the fitted one may be 1), so that both plays of
  // each simulator are compared.
  HardwareProfile h100 = builtin_profile("h100_sxm");
  h100.overlap_slowdown.value = std::max(h100.overlap_slowdown.value, 1.1);
  int compared = 0;
  for (int64_t gpus : {1, 2, 3, 4, 8}) compared += compare_all(h100, {}, gpus, 8, kMasks, 16384);
  EXPECT_GE(compared, 130);
}

TEST(PerfLockstepSimulator, SameSummariesAsTheMaterializedScheduleAcrossNodes) {
  const HardwareProfile& h100 = builtin_profile("h100_sxm");
  int compared = 0;
  compared += compare_all(h100, {}, 16, 4, kMasks, 16384);
  compared += compare_all(h100, {}, 32, 8, kMasks, 16384);
  compared += compare_all(h100, {}, 64, 8, kMasks, 16384);
  // 12 GPUs in nodes of 6: with U = 4 the Ulysses members' ring groups lie on the nodes differently.
  compared += compare_all(h100, {}, 12, 6, {"causal_document", "sliding_window:window=512"}, 12288);
  EXPECT_GE(compared, 500);
}

TEST(PerfLockstepSimulator, SameSummariesWithoutOverlapSlowdown) {
  const HardwareProfile p = testing::simple_profile();
  ASSERT_EQ(p.overlap_slowdown.value, 1.0);
  EXPECT_GE(compare_all(p, {"test_impl", "bf16"}, 16, 8, kMasks, 8192), 100);
}

TEST(PerfLockstepSimulator, SameSummariesWithoutTheOwnBlockTail) {
  // The tests above play the default backward (own KV block cut, its tail after the last ring step); this one the
  // whole own block at the first step, the final dK,dV hop straight into dkv.
  const HardwareProfile& h100 = builtin_profile("h100_sxm");
  int compared = 0;
  for (int64_t gpus : {2, 4, 8}) compared += compare_all(h100, {}, gpus, 8, kMasks, 16384, false);
  compared += compare_all(h100, {}, 16, 4, kMasks, 16384, false);
  EXPECT_GE(compared, 150);
}

TEST(PerfLockstepSimulator, PlaysOneUlyssesMemberOnlyWhenAllHaveTheSameTimeline) {
  const HardwareProfile& h100 = builtin_profile("h100_sxm");
  auto equivalent = [&](const std::string& mask, int64_t gpus, int64_t per_node, int64_t u, cp::Placement placement) {
    cp::CpConfig c = cp::normalize_config(
        config("usp", gpus, per_node, std::make_shared<const Mask>(make_mask(mask, 12288, 4)), u, 1, placement));
    const cp::UlyssesRingProgram program(c, cp::Pass::kForward);
    const KernelCostModel kernel(h100.kernel("lcab_flash", "fwd", 128, "bf16"), h100.sms());
    const RingItemCosts items(program, &kernel, nullptr, h100.executor_pass_rate());
    return ulysses_members_equivalent(program, items, CommCostModel(h100, {gpus, per_node}));
  };
  EXPECT_TRUE(equivalent("causal_document", 16, 8, 4, cp::Placement::kUlyssesIntra));
  EXPECT_TRUE(equivalent("causal_document", 16, 8, 4, cp::Placement::kRingIntra));
  // per-kv-head masks: members computing different kv heads have different items
  EXPECT_FALSE(equivalent("block_sparse", 16, 8, 4, cp::Placement::kUlyssesIntra));
  // ranks 4p + u on nodes of 6: member 0's ring is on nodes (0, 0, 1), member 2's on (0, 1, 1)
  EXPECT_FALSE(equivalent("causal_document", 12, 6, 4, cp::Placement::kUlyssesIntra));
}

TEST(PerfLockstepSimulator, TheComparisonSeesADifferentSchedule) {
  // The comparison is not vacuous: a slightly different overlap factor, or another window count, is caught.
  HardwareProfile slower = builtin_profile("h100_sxm");
  slower.overlap_slowdown.value *= 1.0 + 1e-6;
  const auto mask = std::make_shared<const Mask>(make_mask("causal_document", 16384, 4));
  const cp::CpConfig c = config("loongtrain", 16, 8, mask, 2, 2, cp::Placement::kRingIntra);
  CpPredictor a(builtin_profile("h100_sxm"), {16, 8});
  CpPredictor b(slower, {16, 8});
  const CpPrediction exact = a.predict(c, {}, {cp::Pass::kBackward}, PredictOptions{false, false, true});
  const CpPrediction fast = b.predict(c, {}, {cp::Pass::kBackward}, PredictOptions{false, false, false});
  EXPECT_NE(differences(exact.passes[0].simulation, fast.passes[0].simulation), "");
  cp::CpConfig four = c;
  four.windows = 4;
  const CpPrediction other = a.predict(four, {}, {cp::Pass::kBackward}, PredictOptions{false, false, false});
  EXPECT_NE(differences(exact.passes[0].simulation, other.passes[0].simulation), "");
}

// The bound's per-position sums (RingItemCosts::row_total) equal the item-by-item sum in source order, own block
// as head then tail where the backward cuts it, bit for bit, for tables resolved from slices and counted on grids.
TEST(PerfLockstepSimulator, BoundRowTotalsEqualTheItemByItemSum) {
  const HardwareProfile& h100 = builtin_profile("h100_sxm");
  const KernelCostModel fwd(h100, h100.kernel("lcab_flash", "fwd", 128, "bf16"));
  const KernelCostModel bwd(h100, h100.kernel("lcab_flash", "bwd", 128, "bf16"));
  int compared = 0, cut = 0;
  for (const char* spec : {"causal_document", "block_sparse", "variable_block_sparse:avg_block=256"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    const std::array<std::shared_ptr<const TileGrid>, 2> grids{
        TileGrid::make(*mask, fwd.params().tile, TileGrid::Lines::kRows),
        TileGrid::make(*mask, bwd.params().tile, TileGrid::Lines::kColumns)};
    for (const cp::CpConfig& c : {config("ring", 8, 8, mask, 0, 1, cp::Placement::kUlyssesIntra),
                                  config("ring", 16, 8, mask, 0, 1, cp::Placement::kUlyssesIntra),
                                  config("usp", 16, 8, mask, 4, 1, cp::Placement::kRingIntra)}) {
      const cp::UlyssesRingProgram program(cp::normalize_config(c), cp::Pass::kBackward);
      for (bool on_grids : {false, true}) {
        const RingItemCosts items(program, &fwd, &bwd, h100.executor_pass_rate(),
                                  on_grids ? grids : std::array<std::shared_ptr<const TileGrid>, 2>{});
        for (cp::Pass pass : {cp::Pass::kForward, cp::Pass::kBackward})
          for (bool cut_own : {false, true}) {
            if (cut_own && !program.cuts_own_block()) continue;
            for (int g = 0; g < items.groups(); ++g)
              for (int64_t pos = 0; pos < items.positions(); ++pos) {
                double sum = 0;
                int64_t workspace = 0;
                for (int64_t source = 0; source < items.positions(); ++source) {
                  std::vector<cp::RingItemPart> parts{cp::RingItemPart::kWhole};
                  if (cut_own && source == pos && items.key_rows(g, pos, source, cp::RingItemPart::kOwnTail)) {
                    parts = {cp::RingItemPart::kOwnHead, cp::RingItemPart::kOwnTail};
                    ++cut;
                  }
                  for (cp::RingItemPart part : parts) {
                    if (!items.key_rows(g, pos, source, part)) continue;
                    sum += items.cost(pass, g, pos, source, part).time_us;
                    workspace = std::max(workspace, items.cost(pass, g, pos, source, part).workspace_bytes);
                  }
                }
                const RingItemCosts::RowTotal& row = items.row_total(pass, g, pos, cut_own);
                ASSERT_EQ(row.attention_us, sum) << spec << " " << describe_config(program.skeleton().config)
                                                 << " grids " << on_grids << " position " << pos;
                ASSERT_EQ(row.workspace_bytes, workspace) << spec;
                ++compared;
              }
          }
      }
    }
  }
  EXPECT_GT(compared, 300);
  EXPECT_GT(cut, 50);
}

// Samples of ring positions a table may cost (RingItemCosts' `costed`) for a ring of R positions: the ends only, the
// ends and the middle, the planner's sample, and every position listed.
std::vector<std::vector<int64_t>> position_samples(int64_t R) {
  std::vector<int64_t> every;
  for (int64_t p = 0; p < R; ++p) every.push_back(p);
  return {{0, R - 1}, {0, R / 2, R - 1}, sampled_bound_positions(R), every};
}

// A sampled bound (sampled_bound_lockstep) is at most the whole table's bound and the simulated time, with the whole
// table's peak memory whenever it gives one; a sample of every position gives the whole table's bound itself. Ring
// and usp, per-kv-head and shared masks, tables from slices and on grids, both passes.
TEST(PerfLockstepSimulator, SampledBoundsAreAtMostTheFullBoundWithItsPeakMemory) {
  const HardwareProfile& h100 = builtin_profile("h100_sxm");
  const KernelCostModel fwd(h100, h100.kernel("lcab_flash", "fwd", 128, "bf16"));
  const KernelCostModel bwd(h100, h100.kernel("lcab_flash", "bwd", 128, "bf16"));
  int given = 0, declined = 0, below = 0;
  for (const char* spec : {"causal", "causal_document", "sliding_window:window=512", "block_sparse",
                           "variable_block_sparse:avg_block=256"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    const std::array<std::shared_ptr<const TileGrid>, 2> grids{
        TileGrid::make(*mask, fwd.params().tile, TileGrid::Lines::kRows),
        TileGrid::make(*mask, bwd.params().tile, TileGrid::Lines::kColumns)};
    for (const cp::CpConfig& c : {config("ring", 16, 8, mask, 0, 1, cp::Placement::kUlyssesIntra),
                                  config("ring", 32, 8, mask, 0, 1, cp::Placement::kUlyssesIntra),
                                  config("usp", 32, 8, mask, 4, 1, cp::Placement::kRingIntra)}) {
      const cp::CpConfig normal = cp::normalize_config(c);
      const CommCostModel comm(h100, ClusterShape{normal.gpus, normal.gpus_per_node});
      for (bool on_grids : {false, true}) {
        const std::array<std::shared_ptr<const TileGrid>, 2> used =
            on_grids ? grids : std::array<std::shared_ptr<const TileGrid>, 2>{};
        const cp::UlyssesRingProgram forward(normal, cp::Pass::kForward);
        const RingItemCosts whole(forward, &fwd, &bwd, h100.executor_pass_rate(), used);
        for (const std::vector<int64_t>& sample : position_samples(forward.layout().ring)) {
          const RingItemCosts sampled(forward, &fwd, &bwd, h100.executor_pass_rate(), used, sample);
          for (cp::Pass pass : {cp::Pass::kForward, cp::Pass::kBackward}) {
            const cp::UlyssesRingProgram program(normal, pass);
            const CpCostModels models = cost_models(h100, pass == cp::Pass::kForward ? fwd : bwd, comm);
            const PassBound full = bound_lockstep(program, whole, models);
            const std::optional<PassBound> part = sampled_bound_lockstep(program, sampled, models);
            const std::string what = std::string(spec) + " " + describe_config(normal) + " grids " +
                                     std::to_string(on_grids) + " " + std::string(cp::to_string(pass)) +
                                     " sample of " + std::to_string(sample.size());
            if (sampled.complete()) {
              ASSERT_TRUE(part.has_value()) << what;
              EXPECT_EQ(part->time_lower_bound_us, full.time_lower_bound_us) << what;
            }
            if (!part) {
              ++declined;
              continue;
            }
            ++given;
            EXPECT_EQ(part->peak_mem_bytes, full.peak_mem_bytes) << what;
            EXPECT_LE(part->time_lower_bound_us, full.time_lower_bound_us) << what;
            // The bound and the simulation add the same step times in different orders: a bound as tight as the
            // simulated time may exceed it by a few ulps (3e-16 to 9e-16 of it seen with the backward's tail chunks).
            const double simulated = simulate_lockstep(program, whole, models).time_us;
            EXPECT_TRUE(part->time_lower_bound_us <= simulated || close(part->time_lower_bound_us, simulated))
                << what << ": bound " << part->time_lower_bound_us << " above the simulated " << simulated;
            EXPECT_GT(part->time_lower_bound_us, 0) << what;
            if (part->time_lower_bound_us < full.time_lower_bound_us) ++below;
          }
        }
      }
    }
  }
  EXPECT_GT(given, 200);
  EXPECT_GT(below, 5);  // samples that miss the busiest position are looser
  std::cout << "sampled bounds: " << given << " given, " << declined << " declined, " << below << " below the full\n";
}

// A sampled table costs its positions exactly as the whole table does (key rows, costs, row totals) and holds no
// item elsewhere; it may not be played.
TEST(PerfLockstepSimulator, SampledTablesCostTheirPositionsAsTheWholeTable) {
  const HardwareProfile& h100 = builtin_profile("h100_sxm");
  const KernelCostModel fwd(h100, h100.kernel("lcab_flash", "fwd", 128, "bf16"));
  const KernelCostModel bwd(h100, h100.kernel("lcab_flash", "bwd", 128, "bf16"));
  int compared = 0;
  for (const char* spec : {"causal_document", "variable_block_sparse:avg_block=256"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    const cp::CpConfig normal = cp::normalize_config(config("ring", 32, 8, mask, 0, 1, cp::Placement::kUlyssesIntra));
    const cp::UlyssesRingProgram program(normal, cp::Pass::kBackward);
    const RingItemCosts whole(program, &fwd, &bwd, h100.executor_pass_rate());
    const std::vector<int64_t> sample{0, 5, 31};
    const RingItemCosts sampled(program, &fwd, &bwd, h100.executor_pass_rate(), {}, sample);
    EXPECT_FALSE(sampled.complete());
    EXPECT_TRUE(whole.complete());
    for (int64_t pos = 0; pos < 32; ++pos) {
      const bool in_sample = std::find(sample.begin(), sample.end(), pos) != sample.end();
      EXPECT_EQ(sampled.costs_position(pos), in_sample);
      for (int64_t source = 0; source < 32; ++source) {
        const std::optional<TokenRange> rows = sampled.key_rows(0, pos, source);
        if (!in_sample) {
          EXPECT_FALSE(rows.has_value());
          continue;
        }
        const std::optional<TokenRange> expected = whole.key_rows(0, pos, source);
        ASSERT_EQ(rows.has_value(), expected.has_value()) << spec << " " << pos << " " << source;
        if (!rows) continue;
        EXPECT_EQ(rows->begin, expected->begin);
        EXPECT_EQ(rows->end, expected->end);
        for (cp::Pass pass : {cp::Pass::kForward, cp::Pass::kBackward}) {
          EXPECT_EQ(sampled.cost(pass, 0, pos, source).time_us, whole.cost(pass, 0, pos, source).time_us);
          EXPECT_EQ(sampled.cost(pass, 0, pos, source).workspace_bytes,
                    whole.cost(pass, 0, pos, source).workspace_bytes);
        }
        ++compared;
      }
      if (in_sample) {
        EXPECT_EQ(sampled.row_total(cp::Pass::kBackward, 0, pos, true).attention_us,
                  whole.row_total(cp::Pass::kBackward, 0, pos, true).attention_us);
      }
    }
    const CommCostModel comm(h100, ClusterShape{normal.gpus, normal.gpus_per_node});
    EXPECT_THROW(simulate_lockstep(program, sampled, cost_models(h100, bwd, comm)), Error);
    EXPECT_THROW(bound_lockstep(program, sampled, cost_models(h100, bwd, comm)), Error);
  }
  EXPECT_GT(compared, 50);
}

// When no sampled item spans its position's whole q buffer, the sample cannot tell the largest workspace: the
// backward's sampled bound declines (the forward has no workspace). Only position 3 of a ring of 8 has cells: the
// rows of its zigzag chunks (3 and 12 of 512 tokens) attend chunk 5 (position 5's block).
TEST(PerfLockstepSimulator, SampledBoundDeclinesWhenNoSampledItemHasTheLargestWorkspace) {
  const HardwareProfile& h100 = builtin_profile("h100_sxm");
  const KernelCostModel fwd(h100, h100.kernel("lcab_flash", "fwd", 128, "bf16"));
  const KernelCostModel bwd(h100, h100.kernel("lcab_flash", "bwd", 128, "bf16"));
  const auto mask = std::make_shared<const Mask>(
      8192, std::vector<Slice>{{1536, 2048, 2560, 3072, SliceType::kFull}, {6144, 6656, 2560, 3072, SliceType::kFull}});
  cp::CpConfig c = config("ring", 8, 8, mask, 0, 1, cp::Placement::kUlyssesIntra);
  c.sharding = cp::ShardingKind::kZigzag;
  const cp::CpConfig normal = cp::normalize_config(c);
  const CommCostModel comm(h100, ClusterShape{normal.gpus, normal.gpus_per_node});
  const cp::UlyssesRingProgram backward(normal, cp::Pass::kBackward);
  const cp::UlyssesRingProgram forward(normal, cp::Pass::kForward);
  const RingItemCosts whole(backward, &fwd, &bwd, h100.executor_pass_rate());
  const CpCostModels bwd_models = cost_models(h100, bwd, comm), fwd_models = cost_models(h100, fwd, comm);
  ASSERT_GT(bound_lockstep(backward, whole, bwd_models).peak_mem_bytes, backward.skeleton().peak_buffer_bytes());
  const RingItemCosts without(backward, &fwd, &bwd, h100.executor_pass_rate(), {}, {0, 7});
  EXPECT_FALSE(sampled_bound_lockstep(backward, without, bwd_models).has_value());
  ASSERT_TRUE(sampled_bound_lockstep(forward, without, fwd_models).has_value());
  EXPECT_EQ(sampled_bound_lockstep(forward, without, fwd_models)->peak_mem_bytes,
            bound_lockstep(forward, whole, fwd_models).peak_mem_bytes);
  const RingItemCosts with(backward, &fwd, &bwd, h100.executor_pass_rate(), {}, {0, 3, 7});
  const std::optional<PassBound> found = sampled_bound_lockstep(backward, with, bwd_models);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->peak_mem_bytes, bound_lockstep(backward, whole, bwd_models).peak_mem_bytes);
}

TEST(PerfLockstepSimulator, ItemTablesAreSharedAcrossCandidatesAndPasses) {
  // usp and loongtrain with the same degrees, both placements: one table of R^2 items per group.
  const HardwareProfile& h100 = builtin_profile("h100_sxm");
  auto cache = std::make_shared<RingItemCostCache>();
  CpPredictor predictor(h100, {32, 8}, cache);
  const auto mask = std::make_shared<const Mask>(make_mask("causal_document", 16384, 4));
  const cp::CpConfig usp = cp::normalize_config(config("usp", 32, 8, mask, 4, 1, cp::Placement::kUlyssesIntra));
  predictor.predict(usp, {}, {cp::Pass::kForward, cp::Pass::kBackward}, PredictOptions{false, false, false});
  predictor.predict(config("loongtrain", 32, 8, mask, 4, 2, cp::Placement::kRingIntra), {},
                    {cp::Pass::kForward, cp::Pass::kBackward}, PredictOptions{false, false, false});
  const KernelCostModel& fwd = predictor.kernel_model("lcab_flash", cp::Pass::kForward, 128, "bf16");
  const KernelCostModel& bwd = predictor.kernel_model("lcab_flash", cp::Pass::kBackward, 128, "bf16");
  const double rate = h100.executor_pass_rate();
  const auto first =
      cache->get(cp::UlyssesRingProgram(usp, cp::Pass::kForward), "lcab_flash/bf16", &fwd, &bwd, rate);
  const auto again =
      cache->get(cp::UlyssesRingProgram(usp, cp::Pass::kBackward), "lcab_flash/bf16", &fwd, &bwd, rate);
  EXPECT_EQ(first.get(), again.get());
  EXPECT_EQ(first->positions(), 8);
  EXPECT_EQ(first->groups(), 1);
  EXPECT_GT(first->distinct_items(), 0u);
}

}  // namespace
}  // namespace lcab::perf
