#include "calibrate/calibration.h"

#include <gtest/gtest.h>

#include "calibrate/cross_validation.h"
#include "model/error.h"
#include "tests/calibrate/synthetic_records.h"

namespace lcab::calibrate {
namespace {

using testing::SyntheticOptions;

const std::vector<std::string> kMasks = {"full", "causal", "sliding_window_causal:window=1024",
                                         "causal_document:seed=3"};
const std::vector<int64_t> kSeqlens = {1024, 2048, 4096, 8192, 16384};

/// The datasheet profile is the starting point: the fit must move from it to the truth.
perf::HardwareProfile base_profile() { return testing::without_optional_terms(perf::builtin_profile("h100_sxm")); }

CalibrationOptions options_with_input() {
  CalibrationOptions options;
  options.input_files = {"synthetic.jsonl"};
  return options;
}

void expect_kernel_close(const perf::HardwareProfile& fitted, const perf::HardwareProfile& truth, const char* pass,
                         double tolerance) {
  const perf::KernelParams& f = fitted.kernel("lcab_flash", pass, 128, "bf16");
  const perf::KernelParams& t = truth.kernel("lcab_flash", pass, 128, "bf16");
  EXPECT_NEAR(f.full_tile_us.value, t.full_tile_us.value, t.full_tile_us.value * tolerance) << pass;
  EXPECT_NEAR(f.partial_tile_us.value, t.partial_tile_us.value, t.partial_tile_us.value * tolerance) << pass;
  EXPECT_NEAR(f.row_us.value, t.row_us.value, t.row_us.value * tolerance) << pass;
  EXPECT_NEAR(f.launch_us.value, t.launch_us.value, t.launch_us.value * tolerance * 10) << pass;
}

TEST(Calibration, RecoversKernelParametersFromCleanRecords) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  const std::vector<Record> records =
      testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"fwd", "bwd"}, SyntheticOptions{});
  const CalibrationResult result = calibrate(records, base_profile(), options_with_input(), RecordPredictor());
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  ASSERT_EQ(result.fits.size(), 2u);
  expect_kernel_close(result.profile, truth, "fwd", 1e-3);
  expect_kernel_close(result.profile, truth, "bwd", 1e-3);
  EXPECT_LT(result.fits[0].stats.worst_pct, 0.1);

  // Provenance and per-entry statistics are filled; unfitted entries keep the base values.
  const perf::Provenance& provenance = result.profile.provenance;
  EXPECT_EQ(provenance.kind, "calibrated");
  EXPECT_EQ(provenance.inputs, std::vector<std::string>{"synthetic.jsonl"});
  ASSERT_EQ(provenance.devices.size(), 1u);
  EXPECT_NE(provenance.devices[0].find("SYNTHETIC"), std::string::npos);
  EXPECT_FALSE(provenance.date.empty());
  EXPECT_TRUE(provenance.residuals.contains("kernel lcab_flash fwd hd128 bf16"));
  const perf::KernelParams& fwd = result.profile.kernel("lcab_flash", "fwd", 128, "bf16");
  EXPECT_NE(fwd.full_tile_us.source.find("lcab-calibrate"), std::string::npos);
  EXPECT_EQ(fwd.fit["records"], 20);
  const perf::KernelParams& hd64 = result.profile.kernel("lcab_flash", "fwd", 64, "bf16");
  EXPECT_EQ(hd64.full_tile_us.value, base_profile().kernel("lcab_flash", "fwd", 64, "bf16").full_tile_us.value);
  // The result is a valid profile that survives a JSON round trip.
  EXPECT_NO_THROW(perf::validate_profile(result.profile));
  const perf::HardwareProfile reread = perf::profile_from_json(perf::to_json(result.profile));
  EXPECT_EQ(reread.kernel("lcab_flash", "bwd", 128, "bf16").row_us.value,
            result.profile.kernel("lcab_flash", "bwd", 128, "bf16").row_us.value);
}

TEST(Calibration, RecoversSustainedClocksFromCallsOfSeveralDurations) {
  // Truth: forward calls slowed by up to 20% with a 2 ms time constant; the base entry has the slowdown at 0 and
  // the GPU's time constant (as the datasheet layer does): only the slowdown is fitted.
  perf::HardwareProfile truth = testing::synthetic_truth_profile();
  perf::KernelParams& fwd = const_cast<perf::KernelParams&>(truth.kernel("lcab_flash", "fwd", 128, "bf16"));
  fwd.sustained_slowdown = perf::Sourced{0.2, "truth"};
  fwd.sustained_rate_per_us = perf::Sourced{5e-4, "truth"};
  const std::vector<Record> records =
      testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"fwd"}, SyntheticOptions{});
  perf::HardwareProfile base = base_profile();
  perf::KernelParams& start = const_cast<perf::KernelParams&>(base.kernel("lcab_flash", "fwd", 128, "bf16"));
  start.sustained_slowdown = perf::Sourced{0, "start"};
  start.sustained_rate_per_us = perf::Sourced{5e-4, "the GPU's"};
  const CalibrationResult result = calibrate(records, base, options_with_input(), RecordPredictor());
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  const perf::KernelParams& f = result.profile.kernel("lcab_flash", "fwd", 128, "bf16");
  ASSERT_TRUE(f.has_sustained_clocks());
  EXPECT_NEAR(f.sustained_slowdown->value, 0.2, 0.01);
  EXPECT_EQ(f.sustained_rate_per_us->value, 5e-4);  // given, not fitted
  EXPECT_NEAR(f.full_tile_us.value, fwd.full_tile_us.value, fwd.full_tile_us.value * 1e-2);
  EXPECT_LT(result.fits[0].stats.worst_pct, 0.5);
}

TEST(Calibration, RecoversTheDqTileFractionOfAFlexStyleBackward) {
  // Truth: a backward with dK/dV columns over the GQA group and dQ rows per q head (FlexAttention's grid), dQ tiles
  // at 0.4 of a dK/dV tile; GQA and MHA records (the group changes which items are long). Started at 0.75.
  perf::HardwareProfile truth = testing::synthetic_truth_profile();
  perf::KernelParams& bwd = const_cast<perf::KernelParams&>(truth.kernel("lcab_flash", "bwd", 128, "bf16"));
  bwd.scheduler = perf::KernelScheduler::kGridWaves;
  bwd.work_item = perf::KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead;
  bwd.dq_tile_fraction = perf::Sourced{0.4, "truth"};
  std::vector<Record> records = testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"bwd"}, SyntheticOptions{});
  const RecordPredictor predictor;
  const size_t gqa = records.size();
  for (size_t n = 0; n < gqa; ++n) {
    Record mha = records[n];
    mha.key.kv_heads = 64;
    mha.time_ms->median = predictor.predict_ms(truth, mha);
    records.push_back(mha);
  }
  perf::HardwareProfile base = base_profile();
  perf::KernelParams& start = const_cast<perf::KernelParams&>(base.kernel("lcab_flash", "bwd", 128, "bf16"));
  start.scheduler = perf::KernelScheduler::kGridWaves;
  start.work_item = perf::KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead;
  start.dq_tile_fraction = perf::Sourced{0.75, "start"};
  const CalibrationResult result = calibrate(records, base, options_with_input(), predictor);
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  const perf::KernelParams& f = result.profile.kernel("lcab_flash", "bwd", 128, "bf16");
  ASSERT_TRUE(f.dq_tile_fraction.has_value());
  EXPECT_NEAR(f.dq_tile_fraction->value, 0.4, 0.01);
  EXPECT_LT(result.fits[0].stats.worst_pct, 0.5);
}

TEST(Calibration, RecoversTheUnmaskedTileCostOfCallsThatMaskNothing) {
  // Truth: unmasked tiles of `full` calls at 0.7 us, those of every other mask at full_tile_us (1.1); started at
  // full_tile_us, as the datasheet layer does.
  perf::HardwareProfile truth = testing::synthetic_truth_profile();
  perf::KernelParams& fwd = const_cast<perf::KernelParams&>(truth.kernel("lcab_flash", "fwd", 128, "bf16"));
  fwd.unmasked_tile_us = perf::Sourced{0.7, "truth"};
  const std::vector<Record> records =
      testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"fwd"}, SyntheticOptions{});
  perf::HardwareProfile base = base_profile();
  perf::KernelParams& start = const_cast<perf::KernelParams&>(base.kernel("lcab_flash", "fwd", 128, "bf16"));
  start.unmasked_tile_us = start.full_tile_us;
  const CalibrationResult result = calibrate(records, base, options_with_input(), RecordPredictor());
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  const perf::KernelParams& f = result.profile.kernel("lcab_flash", "fwd", 128, "bf16");
  ASSERT_TRUE(f.unmasked_tile_us.has_value());
  EXPECT_NEAR(f.unmasked_tile_us->value, 0.7, 0.007);
  EXPECT_NEAR(f.full_tile_us.value, 1.1, 0.011);
  EXPECT_LT(result.fits[0].stats.worst_pct, 0.5);
}

TEST(Calibration, RecoversTheCostOfIntervalTestsBeyondTheRegisters) {
  // Truth: a FlexAttention-style forward whose boundary tiles test the mask table's width (slice_us 0.3 per
  // interval) and 2.0 us more per interval beyond 3 in registers. variable_block_sparse from 4K to 16K (tables 2 to
  // 7 intervals wide) with causal and full: only the wide tables inform the spill cost. Started at 0.
  perf::HardwareProfile truth = testing::synthetic_truth_profile();
  perf::KernelParams& fwd = const_cast<perf::KernelParams&>(truth.kernel("lcab_flash", "fwd", 128, "bf16"));
  fwd.slices_by_table_width = true;
  fwd.slice_us = perf::Sourced{0.3, "truth"};
  fwd.register_slices = perf::Sourced{3, "given"};
  fwd.spilled_slice_us = perf::Sourced{2.0, "truth"};
  const std::vector<Record> records = testing::synthetic_kernel_records(
      truth, {"full", "causal", "variable_block_sparse"}, {1024, 4096, 8192, 16384}, {"fwd"}, SyntheticOptions{});
  perf::HardwareProfile base = base_profile();
  perf::KernelParams& start = const_cast<perf::KernelParams&>(base.kernel("lcab_flash", "fwd", 128, "bf16"));
  start.slices_by_table_width = true;
  start.slice_us = perf::Sourced{0, "start"};
  start.register_slices = perf::Sourced{3, "given"};
  start.spilled_slice_us = perf::Sourced{0, "start"};
  const CalibrationResult result = calibrate(records, base, options_with_input(), RecordPredictor());
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  const perf::KernelParams& f = result.profile.kernel("lcab_flash", "fwd", 128, "bf16");
  ASSERT_TRUE(f.has_slice_spills());
  EXPECT_NEAR(f.spilled_slice_us->value, 2.0, 0.02);
  EXPECT_NEAR(f.slice_us->value, 0.3, 0.01);
  EXPECT_EQ(f.register_slices->value, 3);  // given, not fitted
  EXPECT_LT(result.fits[0].stats.worst_pct, 0.5);
}

/// Forward records of the truth, all MHA (64 kv heads), timed as the truth predicts them: no record informs a
/// term charged under GQA alone (kv_expand_bytes_per_element).
std::vector<Record> mha_forward_records(const RecordPredictor& predictor) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  std::vector<Record> records = testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"fwd"}, SyntheticOptions{});
  for (Record& r : records) r.key.kv_heads = 64;
  for (Record& r : records) r.time_ms->median = predictor.predict_ms(truth, r);
  return records;
}

/// The base profile whose lcab_flash forward also carries kv_expand_bytes_per_element and sustained clocks (at 0).
perf::HardwareProfile base_with_kv_expand_and_clocks() {
  perf::HardwareProfile base = base_profile();
  perf::KernelParams& start = const_cast<perf::KernelParams&>(base.kernel("lcab_flash", "fwd", 128, "bf16"));
  start.kv_expand_bytes_per_element = perf::Sourced{0, "start"};
  start.sustained_slowdown = perf::Sourced{0, "start"};
  start.sustained_rate_per_us = perf::Sourced{1e-4, "the GPU's"};
  return base;
}

TEST(Calibration, AnOptionalTermTheRecordsCannotDetermineLeavesOnlyItself) {
  // kv_expand_bytes_per_element is charged under GQA only: records that are all MHA cannot determine it. That term
  // leaves the entry; the sustained clocks (at 0 in the truth) stay and are fitted with the base terms.
  const RecordPredictor predictor;
  const std::vector<Record> records = mha_forward_records(predictor);
  const perf::HardwareProfile base = base_with_kv_expand_and_clocks();
  const CalibrationResult result = calibrate(records, base, options_with_input(), predictor);
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  const perf::KernelParams& f = result.profile.kernel("lcab_flash", "fwd", 128, "bf16");
  EXPECT_FALSE(f.kv_expand_bytes_per_element.has_value());
  EXPECT_TRUE(f.has_sustained_clocks());
  EXPECT_LT(result.fits[0].stats.worst_pct, 0.5);
}

TEST(Calibration, EachUndeterminedOptionalTermLeavesAloneEvenWhenSeveralDo) {
  // Two terms the records cannot determine, found one fit after the other: kv_expand_bytes_per_element (all records
  // MHA) and spilled_slice_us (no mask here is wider than the 3 intervals a thread holds). Each leaves when a fit
  // names it; the sustained clocks, which the records do determine, stay (a second failure used to take every
  // optional term out, as on the H200's FlexAttention forward of 2026-11-23).
  const RecordPredictor predictor;
  const std::vector<Record> records = mha_forward_records(predictor);
  perf::HardwareProfile base = base_with_kv_expand_and_clocks();
  perf::KernelParams& start = const_cast<perf::KernelParams&>(base.kernel("lcab_flash", "fwd", 128, "bf16"));
  start.slices_by_table_width = true;
  start.register_slices = perf::Sourced{3, "given"};
  start.spilled_slice_us = perf::Sourced{0, "start"};
  const CalibrationResult result = calibrate(records, base, options_with_input(), predictor);
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  const perf::KernelParams& f = result.profile.kernel("lcab_flash", "fwd", 128, "bf16");
  EXPECT_FALSE(f.kv_expand_bytes_per_element.has_value());
  EXPECT_FALSE(f.spilled_slice_us.has_value());
  EXPECT_TRUE(f.has_sustained_clocks());
  ASSERT_TRUE(f.fit.contains("terms_left_out"));
  EXPECT_EQ(f.fit["terms_left_out"].size(), 2u) << f.fit["terms_left_out"].dump();
  EXPECT_LT(result.fits[0].stats.worst_pct, 0.5);
}

TEST(Calibration, RobustToNoiseAndOutliers) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  SyntheticOptions noisy;
  noisy.noise_fraction = 0.01;
  noisy.outliers = {3, 11, 17};
  noisy.outlier_factor = 2.0;
  const std::vector<Record> records = testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"fwd"}, noisy);
  const CalibrationResult result = calibrate(records, base_profile(), options_with_input(), RecordPredictor());
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  const perf::KernelParams& f = result.profile.kernel("lcab_flash", "fwd", 128, "bf16");
  EXPECT_NEAR(f.full_tile_us.value, 1.1, 1.1 * 0.03);
  EXPECT_NEAR(f.partial_tile_us.value, 2.0, 2.0 * 0.1);
  EXPECT_EQ(result.fits[0].outliers, 3);
  EXPECT_LT(result.fits[0].inlier_stats.mape_pct, 2.0);
}

TEST(Calibration, RecoversCollectiveLatencyAndBandwidth) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  std::vector<Record> records = testing::synthetic_comm_records(truth, "all_gather", 256 << 10, 1 << 30, {});
  const std::vector<Record> ring = testing::synthetic_comm_records(truth, "send_recv", 1 << 20, 1 << 30, {});
  records.insert(records.end(), ring.begin(), ring.end());
  const CalibrationResult result = calibrate(records, base_profile(), options_with_input(), RecordPredictor());
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  const perf::CollectiveParams& ag = result.profile.collective(perf::CollectiveOp::kAllGather, perf::LinkClass::kIntraNode);
  EXPECT_NEAR(ag.latency_us.value, 20.0, 0.02);
  EXPECT_NEAR(ag.bytes_per_s.value, 280e9, 280e9 * 1e-4);
  const perf::CollectiveParams& sr = result.profile.collective(perf::CollectiveOp::kSendRecv, perf::LinkClass::kIntraNode);
  EXPECT_NEAR(sr.latency_us.value, 25.0, 0.02);
  EXPECT_NEAR(sr.bytes_per_s.value, 300e9, 300e9 * 1e-4);
  EXPECT_TRUE(result.fitted("comm all_gather intra_node"));
  // Messages under 1 MiB are not fitted: 256 KiB is left out, 6 of the 7 all_gather sizes remain.
  EXPECT_EQ(result.profile.provenance.residuals["comm all_gather intra_node"]["records"], 6);
}

TEST(Calibration, RecoversBusBandwidthGrowingWithTheGroup) {
  // The truth's reduce-scatter: 20 us + V x (1 / 400 GB/s + 1e-6 us per byte x 2 / n): 286 GB/s bus bandwidth
  // on 2 GPUs, 333 on 4. Records of both sizes separate the two terms; the records of one size alone do not,
  // and then the entry keeps a bandwidth independent of the group (the term stays 0).
  perf::HardwareProfile truth = testing::synthetic_truth_profile();
  perf::CollectiveParams& line = truth.collectives[static_cast<size_t>(
      &truth.collective(perf::CollectiveOp::kReduceScatter, perf::LinkClass::kIntraNode) - truth.collectives.data())];
  line.latency_us = {20.0, "test"};
  line.bytes_per_s = {400e9, "test"};
  line.small_group_us_per_byte = {1e-6, "test"};
  std::vector<Record> records = testing::synthetic_comm_records(truth, "reduce_scatter", 1 << 20, 1 << 30, {}, 2);
  const CalibrationResult one_size = calibrate(records, base_profile(), options_with_input(), RecordPredictor());
  ASSERT_TRUE(one_size.failures.empty()) << one_size.failures.front().reason;
  EXPECT_EQ(one_size.profile.collective(perf::CollectiveOp::kReduceScatter, perf::LinkClass::kIntraNode)
                .small_group_us_per_byte.value,
            0);
  const std::vector<Record> four = testing::synthetic_comm_records(truth, "reduce_scatter", 1 << 20, 1 << 30, {}, 4);
  records.insert(records.end(), four.begin(), four.end());
  const CalibrationResult result = calibrate(records, base_profile(), options_with_input(), RecordPredictor());
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  const perf::CollectiveParams& rs =
      result.profile.collective(perf::CollectiveOp::kReduceScatter, perf::LinkClass::kIntraNode);
  EXPECT_NEAR(rs.latency_us.value, 20.0, 0.05);
  EXPECT_NEAR(rs.bytes_per_s.value, 400e9, 400e9 * 1e-3);
  EXPECT_NEAR(rs.small_group_us_per_byte.value, 1e-6, 1e-9);
  EXPECT_LT(result.fits[0].stats.worst_pct, 0.1);
  EXPECT_NE(rs.fit.dump().find("two_rank_bytes_per_s"), std::string::npos);
}

TEST(Calibration, RecoversBothNcclProtocolLines) {
  // The truth's all-gather has a low-latency line (8 us, 150 GB/s) under its Simple line (20 us, 280 GB/s); the
  // chunks up to 2 MiB run on the first, 8 MiB and up on the second. Starting from the built-in profile's
  // lines (fitted to other data), the fit must find both.
  perf::HardwareProfile truth = testing::synthetic_truth_profile();
  perf::CollectiveParams& line = truth.collectives[static_cast<size_t>(
      &truth.collective(perf::CollectiveOp::kAllGather, perf::LinkClass::kIntraNode) - truth.collectives.data())];
  line.ll_latency_us = {8.0, "test"};
  line.ll_bytes_per_s = {150e9, "test"};
  // 64 KiB .. 1 GiB: 8 sizes, enough for two lines (at least two records per parameter).
  const std::vector<Record> records = testing::synthetic_comm_records(truth, "all_gather", 64 << 10, 1 << 30, {});
  CalibrationOptions options = options_with_input();
  options.comm_min_bytes = 64 << 10;
  const CalibrationResult result = calibrate(records, base_profile(), options, RecordPredictor());
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().reason;
  const perf::CollectiveParams& ag = result.profile.collective(perf::CollectiveOp::kAllGather, perf::LinkClass::kIntraNode);
  ASSERT_TRUE(ag.has_low_latency_line()) << ag.fit.dump();
  EXPECT_NEAR(ag.latency_us.value, 20.0, 0.05);
  EXPECT_NEAR(ag.bytes_per_s.value, 280e9, 280e9 * 1e-3);
  EXPECT_NEAR(ag.ll_latency_us.value, 8.0, 0.05);
  EXPECT_NEAR(ag.ll_bytes_per_s.value, 150e9, 150e9 * 1e-3);
  EXPECT_LT(result.fits[0].stats.worst_pct, 0.1);
}

TEST(Calibration, PartialTilesNeverCostLessThanFullTiles) {
  // A truth whose boundary tiles are cheaper than unmasked ones is not physical: the fit keeps
  // partial_tile_us >= full_tile_us (it fits the excess, >= 0) and the records show the misfit.
  perf::HardwareProfile truth = testing::synthetic_truth_profile();
  perf::KernelParams& fwd = truth.kernels[static_cast<size_t>(&truth.kernel("lcab_flash", "fwd", 128, "bf16") -
                                                              truth.kernels.data())];
  fwd.partial_tile_us.value = 0.3 * fwd.full_tile_us.value;
  const std::vector<Record> records =
      testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"fwd"}, SyntheticOptions{});
  const CalibrationResult result = calibrate(records, base_profile(), options_with_input(), RecordPredictor());
  const perf::KernelParams& fitted = result.profile.kernel("lcab_flash", "fwd", 128, "bf16");
  EXPECT_GE(fitted.partial_tile_us.value, fitted.full_tile_us.value);
}

TEST(Calibration, RecoversTheOverlapSlowdown) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  std::vector<Record> records =
      testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"fwd"}, SyntheticOptions{});
  const std::vector<Record> ring = testing::synthetic_comm_records(truth, "send_recv", 1 << 20, 1 << 30, {});
  const std::vector<Record> cp =
      testing::synthetic_cp_records(truth, "ring", {"causal", "full"}, {16384, 32768}, {"fwd"}, {});
  records.insert(records.end(), ring.begin(), ring.end());
  records.insert(records.end(), cp.begin(), cp.end());
  // All-to-alls: the executor's staging passes without overlap tell its pass bandwidth apart from the slowdown.
  const std::vector<Record> a2a = testing::synthetic_comm_records(truth, "all_to_all", 1 << 20, 1 << 30, {});
  const std::vector<Record> ulysses =
      testing::synthetic_cp_records(truth, "ulysses", {"causal", "full"}, {16384, 32768}, {"fwd"}, {});
  records.insert(records.end(), a2a.begin(), a2a.end());
  records.insert(records.end(), ulysses.begin(), ulysses.end());
  const CalibrationResult result = calibrate(records, base_profile(), options_with_input(), RecordPredictor());
  ASSERT_TRUE(result.failures.empty()) << result.failures.front().group << ": " << result.failures.front().reason;
  ASSERT_TRUE(result.fitted("overlap"));
  EXPECT_NEAR(result.profile.overlap_slowdown.value, 1.25, 0.01);
  EXPECT_NEAR(result.profile.executor_pass_bytes_per_s.value, 2.5e12, 2.5e12 * 0.01);
}

/// Kernel, send/recv, all-to-all, ring and Ulysses records of `truth`, the CP records with `cp_noise`.
std::vector<Record> overlap_records(const perf::HardwareProfile& truth, const SyntheticOptions& cp_noise) {
  std::vector<Record> records =
      testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"fwd"}, SyntheticOptions{});
  for (const char* op : {"send_recv", "all_to_all"}) {
    const std::vector<Record> comm = testing::synthetic_comm_records(truth, op, 1 << 20, 1 << 30, {});
    records.insert(records.end(), comm.begin(), comm.end());
  }
  for (const char* method : {"ring", "ulysses"}) {
    const std::vector<Record> cp =
        testing::synthetic_cp_records(truth, method, {"causal", "full"}, {16384, 32768}, {"fwd"}, cp_noise);
    records.insert(records.end(), cp.begin(), cp.end());
  }
  return records;
}

TEST(Calibration, HoldsAnOverlapSlowdownTheRecordsCannotTellFromNoise) {
  // A 1% slowdown under 0.5% noise on eight CP records: the fit puts it at 1.000 +- 0.064 (just above 1, far under
  // two standard errors), so the slowdown stays at 1 and says why.
  perf::HardwareProfile truth = testing::synthetic_truth_profile();
  truth.overlap_slowdown.value = 1.01;
  SyntheticOptions noise;
  noise.noise_fraction = 0.005;
  noise.seed = 7;
  const CalibrationResult held = calibrate(overlap_records(truth, noise), base_profile(), options_with_input(),
                                           RecordPredictor());
  ASSERT_TRUE(held.fitted("overlap"));
  const GroupFit& fit = held.fits.back();
  ASSERT_EQ(fit.group, "overlap");
  EXPECT_EQ(held.profile.overlap_slowdown.value, 1.0);
  EXPECT_NE(fit.note.find("overlap_slowdown held at 1"), std::string::npos) << fit.note;
  EXPECT_NE(held.profile.overlap_slowdown.source.find("held at 1"), std::string::npos);
  ASSERT_FALSE(fit.standard_errors.empty());
  EXPECT_EQ(fit.standard_errors.front().first, "overlap_slowdown_minus_1");
  EXPECT_TRUE(to_json(fit).contains("note"));

  // The same noise with a 25% slowdown: fitted 1.240 +- 0.065, 3.7 standard errors above 1, so it is kept.
  truth.overlap_slowdown.value = 1.25;
  const CalibrationResult kept = calibrate(overlap_records(truth, noise), base_profile(), options_with_input(),
                                           RecordPredictor());
  ASSERT_TRUE(kept.fitted("overlap"));
  EXPECT_NEAR(kept.profile.overlap_slowdown.value, 1.25, 0.06);
  EXPECT_TRUE(kept.fits.back().note.empty()) << kept.fits.back().note;
}

TEST(Calibration, MissingDataIsAFailureNamingTheParameter) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  // Only full masks: no partial tiles anywhere, so partial_tile_us is undetermined.
  const std::vector<Record> records = testing::synthetic_kernel_records(truth, {"full"}, kSeqlens, {"fwd"}, {});
  const CalibrationResult result = calibrate(records, base_profile(), options_with_input(), RecordPredictor());
  ASSERT_EQ(result.failures.size(), 1u);
  EXPECT_EQ(result.failures[0].group, "kernel lcab_flash fwd hd128 bf16");
  EXPECT_NE(result.failures[0].reason.find("partial_tile_us"), std::string::npos) << result.failures[0].reason;
  EXPECT_FALSE(result.fitted("kernel lcab_flash fwd hd128 bf16"));
  // The entry keeps the base values, never NaN or negative.
  EXPECT_EQ(result.profile.kernel("lcab_flash", "fwd", 128, "bf16").partial_tile_us.value,
            base_profile().kernel("lcab_flash", "fwd", 128, "bf16").partial_tile_us.value);
}

TEST(Calibration, UnknownImplementationIsAFailure) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  std::vector<Record> records = testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"fwd"}, {});
  for (Record& r : records) r.key.impl = "mystery_kernel";
  const CalibrationResult result = calibrate(records, base_profile(), options_with_input(), RecordPredictor());
  ASSERT_EQ(result.failures.size(), 1u);
  EXPECT_NE(result.failures[0].reason.find("mystery_kernel"), std::string::npos) << result.failures[0].reason;
}

TEST(CrossValidation, HeldOutPointsArePredictedFromFitsThatDidNotSeeThem) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  SyntheticOptions noisy;
  noisy.noise_fraction = 0.005;
  const std::vector<Record> records = testing::synthetic_kernel_records(truth, kMasks, kSeqlens, {"fwd"}, noisy);
  const RecordPredictor predictor;
  for (const char* holdout : {"kfold:4", "seqlen"}) {
    const std::vector<AccuracyPoint> points =
        cross_validate(records, parse_holdout(holdout), base_profile(), options_with_input(), predictor);
    ASSERT_EQ(points.size(), records.size()) << holdout;
    const std::vector<GroupAccuracy> summary = summarize_accuracy(points);
    ASSERT_EQ(summary.size(), 1u);
    EXPECT_EQ(summary[0].group, "kernel lcab_flash fwd");
    EXPECT_EQ(summary[0].predicted, static_cast<int64_t>(records.size())) << holdout << ": " << summary[0].first_failure;
    EXPECT_LT(summary[0].stats.mape_pct, 2.0) << holdout;
  }
}

TEST(CrossValidation, AFoldThatRemovesAParametersDataReportsItInsteadOfGuessing) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  // Partial tiles come only from causal here: holding out causal leaves partial_tile_us without data; holding
  // out full leaves causal alone, where every q-tile row has exactly one partial (diagonal) tile, so row_us and
  // partial_tile_us cannot be told apart. Neither fold may produce predictions.
  const std::vector<Record> records = testing::synthetic_kernel_records(truth, {"full", "causal"}, kSeqlens, {"fwd"}, {});
  const std::vector<AccuracyPoint> points =
      cross_validate(records, parse_holdout("mask"), base_profile(), options_with_input(), RecordPredictor());
  ASSERT_EQ(points.size(), records.size());
  for (const AccuracyPoint& p : points) {
    EXPECT_FALSE(p.predicted_ms.has_value());
    if (p.measured.key.mask == "causal") {
      EXPECT_NE(p.failure.find("too little data for parameter 'partial_tile_us'"), std::string::npos) << p.failure;
    } else {
      EXPECT_NE(p.failure.find("cannot tell these parameters apart"), std::string::npos) << p.failure;
      EXPECT_NE(p.failure.find("row_us"), std::string::npos) << p.failure;
    }
  }
}

}  // namespace
}  // namespace lcab::calibrate
