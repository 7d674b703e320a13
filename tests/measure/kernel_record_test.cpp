#include "measure/kernel_record.h"

#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "measure/recorded_keys.h"
#include "model/error.h"

namespace lcab::measure {
namespace {

KernelPoint point(const std::string& impl, int64_t seqlen, const std::string& pass = "fwd") {
  return {impl, "causal", seqlen, pass, 1, 64, 8, 128, "bf16"};
}

KernelMeasurement ok_measurement() {
  KernelMeasurement m;
  m.area = 1000.0;
  m.region_ms = {2.0, 1.0, 3.0, 4.0, 5.0};
  m.warmup = 3;
  RegionKernels kernels;
  kernels.kernel_sum_ms = {0.9, 1.9, 2.9, 3.9, 4.9};
  kernels.gpu_span_ms = kernels.kernel_sum_ms;
  kernels.kernels = {{"flash_fwd", 1, 2.9}};
  m.kernels = kernels;
  m.peak_mem_bytes = 123456;
  return m;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".jsonl")).string();
}

TEST(KernelRecord, FlopsFollowTheConvention) {
  EXPECT_DOUBLE_EQ(attention_flops("fwd", 10, 2, 64, 128), 4.0 * 10 * 2 * 64 * 128);
  EXPECT_DOUBLE_EQ(attention_flops("bwd", 10, 2, 64, 128), 2.5 * 4.0 * 10 * 2 * 64 * 128);
  EXPECT_THROW(attention_flops("both", 10, 1, 1, 1), Error);
}

TEST(KernelRecord, OkRecordHoldsStatsTflopsAndKernels) {
  const DeviceInfo device{"NVIDIA H100 80GB HBM3", 132, "580.159.04"};
  const Record r = make_kernel_record(point("lcab_flash", 4096), ok_measurement(), device, make_meta(0, nullptr));
  EXPECT_EQ(r.kind, "kernel");
  EXPECT_EQ(r.source, "measured");
  EXPECT_EQ(r.status, "ok");
  ASSERT_TRUE(r.time_ms);
  EXPECT_DOUBLE_EQ(r.time_ms->median, 3.0);
  EXPECT_DOUBLE_EQ(r.time_ms->p20, 1.8);
  EXPECT_DOUBLE_EQ(r.time_ms->p80, 4.2);
  const double flops = 4.0 * 1000 * 64 * 128;
  EXPECT_DOUBLE_EQ(*r.flops, flops);
  EXPECT_DOUBLE_EQ(*r.tflops, flops / 3e-3 / 1e12);
  EXPECT_EQ(*r.peak_mem_bytes, 123456);
  EXPECT_EQ(r.extra["kernels"][0]["name"], "flash_fwd");
  EXPECT_EQ(r.extra["reps"], 5);
  EXPECT_EQ(r.device->sms, 132);
  EXPECT_FALSE(r.extra.contains("sm_clock_mhz"));  // not measured: left out, never zero
  EXPECT_FALSE(record_sm_clock_mhz(r));
}

TEST(KernelRecord, SmClockIsSummarizedWhereMeasured) {
  KernelMeasurement m = ok_measurement();
  m.sm_clock_mhz = {1500.0, 1980.0, 1245.0, 1600.0, 1700.0};
  const Record r = make_kernel_record(point("lcab_flash", 4096), m, {"H100", 132, "580"}, make_meta(0, nullptr));
  ASSERT_TRUE(r.extra.contains("sm_clock_mhz"));
  EXPECT_DOUBLE_EQ(r.extra["sm_clock_mhz"]["median"].get<double>(), 1600.0);
  EXPECT_DOUBLE_EQ(r.extra["sm_clock_mhz"]["p20"].get<double>(), 1449.0);  // sorted 1245 1500 1600 1700 1980
  EXPECT_DOUBLE_EQ(r.extra["sm_clock_mhz"]["p80"].get<double>(), 1756.0);
  ASSERT_TRUE(record_sm_clock_mhz(r));
  EXPECT_DOUBLE_EQ(*record_sm_clock_mhz(r), 1600.0);
}

TEST(KernelRecord, FailedPointsCarryStatusAndErrorButNoTimes) {
  KernelMeasurement m;
  m.status = "oom";
  m.error = "cudaMalloc failed: out of memory";
  m.area = 5.0;
  const Record r = make_kernel_record(point("naive", 1 << 20), m, DeviceInfo{}, make_meta(0, nullptr));
  EXPECT_EQ(r.status, "oom");
  EXPECT_FALSE(r.time_ms);
  EXPECT_FALSE(r.tflops);
  EXPECT_TRUE(r.flops);
  m.error.clear();
  EXPECT_THROW(make_kernel_record(point("naive", 1 << 20), m, DeviceInfo{}, make_meta(0, nullptr)), Error);
}

TEST(KernelRecord, RoundTripThroughAFileKeepsEverything) {
  const std::string path = temp_path("lcab_measure_roundtrip");
  std::filesystem::remove(path);
  const DeviceInfo device{"NVIDIA H200", 132, "580.159.03"};
  const Record written = make_kernel_record(point("lcab_flash", 8192, "bwd"), ok_measurement(), device,
                                            make_meta(0, nullptr));
  {
    RecordWriter writer(path);
    writer.write(written);
  }
  const RecordReadResult read = read_records(path);
  ASSERT_TRUE(read.problems.empty());
  ASSERT_EQ(read.records.size(), 1u);
  const Record& r = read.records[0];
  EXPECT_EQ(r.key, written.key);
  EXPECT_EQ(key_id(r.key), key_id(written.key));
  EXPECT_DOUBLE_EQ(r.time_ms->median, written.time_ms->median);
  EXPECT_DOUBLE_EQ(*r.tflops, *written.tflops);
  EXPECT_EQ(r.extra, written.extra);
  EXPECT_EQ(to_json(r), to_json(written));
  std::filesystem::remove(path);
}

TEST(Resume, SweepSkipsPointsAlreadyRecorded) {
  const std::string path = temp_path("lcab_measure_resume");
  std::filesystem::remove(path);
  KernelSweepAxes axes;
  axes.impls = {"a", "b"};
  axes.masks = {"causal"};
  axes.seqlens = {4096, 8192};
  axes.passes = {"fwd"};
  axes.heads = {64};
  axes.kv_heads = {8};
  axes.head_dims = {128};
  axes.dtypes = {"bf16"};
  const std::vector<KernelPoint> points = expand_kernel_sweep(axes);
  ASSERT_EQ(points.size(), 4u);

  EXPECT_EQ(RecordedKeys::load(path, "kernel").size(), 0u);  // no file yet: nothing recorded
  {
    RecordWriter writer(path);
    KernelMeasurement failed;
    failed.status = "error";
    failed.error = "illegal memory access";
    writer.write(make_kernel_record(points[0], ok_measurement(), DeviceInfo{}, make_meta(0, nullptr)));
    writer.write(make_kernel_record(points[3], failed, DeviceInfo{}, make_meta(0, nullptr)));
    Record other_kind;  // same key, another kind: does not count
    other_kind.kind = "comm";
    other_kind.key = points[1].key();
    writer.write(other_kind);
  }
  {  // a torn last line (an interrupted write)
    std::FILE* f = std::fopen(path.c_str(), "a");
    std::fputs("{\"schema\":\"lcab.rec", f);
    std::fclose(f);
  }
  const RecordedKeys recorded = RecordedKeys::load(path, "kernel");
  EXPECT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded.problems().size(), 1u);
  std::vector<std::string> remaining;
  for (const KernelPoint& p : points) {
    if (!recorded.contains(p.key())) remaining.push_back(p.impl + "@" + std::to_string(p.seqlen));
  }
  EXPECT_EQ(remaining, (std::vector<std::string>{"b@4096", "a@8192"}));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace lcab::measure
