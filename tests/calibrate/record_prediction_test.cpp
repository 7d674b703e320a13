#include "calibrate/record_prediction.h"

#include <gtest/gtest.h>

#include "model/error.h"
#include "model/mask_spec.h"
#include "model/perf/kernel_cost.h"
#include "tests/calibrate/synthetic_records.h"

namespace lcab::calibrate {
namespace {

TEST(CommGroups, LayoutsAsLcabMeasureFormsThem) {
  EXPECT_EQ(comm_groups("world", 4), (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
  EXPECT_EQ(comm_groups("", 2), (std::vector<std::vector<int>>{{0, 1}}));
  EXPECT_EQ(comm_groups("contiguous:2", 4), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(comm_groups("strided:2", 4), (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  EXPECT_THROW(comm_groups("strided:3", 4), Error);
  EXPECT_THROW(comm_groups("ring:2", 4), Error);
}

Record comm_record(const std::string& op, int64_t bytes, int64_t gpus, const std::string& group) {
  Record record;
  record.kind = "comm";
  record.key.op = op;
  record.key.bytes = bytes;
  record.key.gpus = gpus;
  record.key.group = group;
  return record;
}

TEST(CommChunk, NcclTestsSizeConvention) {
  EXPECT_EQ(comm_chunk_bytes(comm_record("all_gather", 1 << 20, 4, "world")), (1 << 20) / 4);
  EXPECT_EQ(comm_chunk_bytes(comm_record("all_to_all", 1 << 20, 4, "contiguous:2")), (1 << 20) / 2);
  EXPECT_EQ(comm_chunk_bytes(comm_record("all_reduce", 1 << 20, 4, "world")), 1 << 20);
  Record recorded = comm_record("all_gather", 1 << 20, 4, "world");
  recorded.extra["chunk_bytes"] = 12345;
  EXPECT_EQ(comm_chunk_bytes(recorded), 12345);
}

TEST(RecordPredictor, CommMatchesTheClosedForm) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  const RecordPredictor predictor;
  // Two GPUs, 64 MiB gathered: B = 32 MiB per member; time = latency + B (n - 1) / bw.
  const double expected_us = 20.0 + 32.0 * (1 << 20) / 280e9 * 1e6;
  EXPECT_NEAR(predictor.predict_ms(truth, comm_record("all_gather", 64 << 20, 2, "world")), expected_us / 1000, 1e-9);
  // Ring exchange of 16 MiB: one message each way.
  EXPECT_NEAR(predictor.predict_ms(truth, comm_record("send_recv", 16 << 20, 2, "world")),
              (25.0 + 16.0 * (1 << 20) / 300e9 * 1e6) / 1000, 1e-9);
  EXPECT_EQ(comm_link(comm_record("send_recv", 1, 2, "world"), truth), perf::LinkClass::kIntraNode);
  EXPECT_EQ(comm_link(comm_record("send_recv", 1, 16, "world"), truth), perf::LinkClass::kInterNode);
  EXPECT_EQ(comm_link(comm_record("send_recv", 1, 16, "contiguous:8"), truth), perf::LinkClass::kIntraNode);
}

TEST(RecordPredictor, KernelIsTheKernelCostModel) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  const std::vector<Record> records =
      testing::synthetic_kernel_records(truth, {"causal"}, {8192}, {"fwd"}, testing::SyntheticOptions{});
  const perf::KernelCostModel model(truth.kernel("lcab_flash", "fwd", 128, "bf16"), truth.sms());
  perf::AttentionShape shape;
  const double direct_ms = model.cost(make_mask("causal", 8192, 8), shape).time_us / 1000;
  EXPECT_DOUBLE_EQ(RecordPredictor().predict_ms(truth, records[0]), direct_ms);
  EXPECT_DOUBLE_EQ(records[0].time_ms->median, direct_ms);
}

Record ring_backward_record() {
  Record record;
  record.kind = "cp";
  record.key.impl = "lcab_flash";
  record.key.method = "ring";
  record.key.pass = "bwd";
  record.key.mask = "causal";
  record.key.seqlen = 16384;
  record.key.heads = 16;
  record.key.kv_heads = 2;
  record.key.head_dim = 128;
  record.key.dtype = "bf16";
  record.key.gpus = 2;
  record.key.gpus_per_node = 2;
  return record;
}

TEST(RecordPredictor, CpRecordsArePlayedWithTheScheduleTheyWereMeasuredWith) {
  const perf::HardwareProfile profile = perf::builtin_profile("h200_sxm");
  const RecordPredictor predictor;
  Record legacy = ring_backward_record();  // written before dkv_home_overlap existed: no own-block tail
  Record without_tail = ring_backward_record();
  without_tail.extra["dkv_home_overlap"] = false;
  Record with_tail = ring_backward_record();
  with_tail.extra["dkv_home_overlap"] = true;
  const double legacy_ms = predictor.predict_ms(profile, legacy);
  EXPECT_DOUBLE_EQ(legacy_ms, predictor.predict_ms(profile, without_tail));
  // At P = 2 the tail hides the final dK,dV hop: the two schedules must not predict the same time.
  EXPECT_NE(predictor.predict_ms(profile, with_tail), legacy_ms);
}

TEST(RecordPredictor, MissingProfileEntryIsAnError) {
  const perf::HardwareProfile truth = testing::synthetic_truth_profile();
  std::vector<Record> records =
      testing::synthetic_kernel_records(truth, {"full"}, {4096}, {"fwd"}, testing::SyntheticOptions{});
  records[0].key.impl = "no_such_kernel";
  EXPECT_THROW(RecordPredictor().predict_ms(truth, records[0]), Error);
  records[0].kind = "mask";
  EXPECT_THROW(RecordPredictor().predict_ms(truth, records[0]), Error);
}

}  // namespace
}  // namespace lcab::calibrate
