// The SM clock markers (measure/sm_clock.h): the host statistics everywhere; on a GPU, that the markers' clock
// agrees with a kernel that counts its own cycles, and that time_region reports a clock per repetition and keeps
// the markers out of CUPTI's activities (gpu_timing_test.cpp checks the kernel list).
#include "measure/sm_clock.h"

#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

#include "measure/device_info.h"
#include "measure/gpu_timing.h"
#include "tests/measure/busy_kernel.h"

namespace lcab::measure {
namespace {

TEST(SmClockStats, MedianOverTheSmsSampledByBothMarkers) {
  // SM 0: 1.5e6 cycles in 1e6 ns -> 1500 MHz; SM 1: 1800 MHz; SM 2: 1200 MHz; SM 7 only before, SM 9 only after.
  const std::vector<SmClockSample> before = {{0, 1000, 10}, {1, 2000, 20}, {2, 3000, 30}, {7, 0, 0}};
  const std::vector<SmClockSample> after = {
      {0, 1'001'000, 1'500'010}, {1, 1'002'000, 1'800'020}, {2, 1'003'000, 1'200'030}, {9, 5, 5}};
  const std::optional<double> mhz = sm_clock_mhz_between(before, after);
  ASSERT_TRUE(mhz);
  EXPECT_DOUBLE_EQ(*mhz, 1500.0);
}

TEST(SmClockStats, FirstSampleOfAnSmCountsAndBackwardsTimeIsIgnored) {
  // Two blocks on SM 3 in the 'after' marker: the first one counts (2000 MHz), not the second (4000 MHz).
  const std::vector<SmClockSample> before = {{3, 0, 0}, {4, 100, 100}};
  const std::vector<SmClockSample> after = {{3, 1000, 2000}, {3, 1000, 4000}, {4, 50, 200}};
  const std::optional<double> mhz = sm_clock_mhz_between(before, after);
  ASSERT_TRUE(mhz);
  EXPECT_DOUBLE_EQ(*mhz, 2000.0);
}

TEST(SmClockStats, NothingInCommonGivesNoClock) {
  EXPECT_FALSE(sm_clock_mhz_between({{1, 0, 0}}, {{2, 100, 100}}));
  EXPECT_FALSE(sm_clock_mhz_between({}, {}));
  EXPECT_FALSE(sm_clock_mhz_between({{1, 100, 0}}, {{1, 100, 500}}));  // no time passed
}

TEST(SmClockStats, MarkerNameIsRecognized) {
  EXPECT_TRUE(is_sm_clock_marker(
      "lcab::measure::(anonymous namespace)::sm_clock_marker_kernel(lcab::measure::SmClockSample*)"));
  EXPECT_FALSE(is_sm_clock_marker("busy_kernel(unsigned long, int*)"));
}

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU"

TEST(SmClockProbe, AgreesWithAKernelCountingItsOwnCycles) {
  SKIP_WITHOUT_GPU();
  int device = 0, max_khz = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&max_khz, cudaDevAttrClockRate, device), cudaSuccess);
  DeviceBuffer cycles(sizeof(unsigned long long));
  Stream stream;
  cudaEvent_t start, stop;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  SmClockProbe probe(2);
  const int before = probe.mark(stream.get());
  ASSERT_EQ(cudaEventRecord(start, stream.get()), cudaSuccess);
  // 20 ms of spinning; the kernel reports the cycles its SM counted over that time.
  ASSERT_EQ(testing::launch_cycle_counting_kernel(20'000'000, cycles.as<unsigned long long>(), stream.get()), 0);
  ASSERT_EQ(cudaEventRecord(stop, stream.get()), cudaSuccess);
  const int after = probe.mark(stream.get());
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  float ms = 0;
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  unsigned long long counted = 0;
  ASSERT_EQ(cudaMemcpy(&counted, cycles.get(), sizeof(counted), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  const double kernel_mhz = static_cast<double>(counted) / (ms * 1e3);
  const std::optional<double> probe_mhz = probe.clock_mhz(before, after);
  ASSERT_TRUE(probe_mhz);
  EXPECT_GT(*probe_mhz, 100.0);
  EXPECT_LT(*probe_mhz, max_khz * 1e-3 * 1.05) << "above the device's maximum clock of " << max_khz / 1000 << " MHz";
  // The markers' interval is the events' plus two tiny launches: a few microseconds in 20 ms.
  EXPECT_NEAR(*probe_mhz, kernel_mhz, 0.03 * kernel_mhz) << "kernel " << counted << " cycles in " << ms << " ms";
}

TEST(SmClockProbe, TimeRegionReportsAClockPerRepetition) {
  SKIP_WITHOUT_GPU();
  Stream stream;
  DeviceBuffer sink(sizeof(int));
  ASSERT_EQ(cudaMemset(sink.get(), 0, sizeof(int)), cudaSuccess);
  L2Flusher flusher;
  const TimingOptions options{1, 5};
  const TimedRegion timed = time_region(
      [&](cudaStream_t s) { ASSERT_EQ(testing::launch_busy_kernel(1'000'000, sink.as<int>(), s), 0); }, options,
      flusher, stream.get(), nullptr);
  ASSERT_EQ(timed.sm_clock_mhz.size(), 5u);
  for (double mhz : timed.sm_clock_mhz) EXPECT_GT(mhz, 100.0);
}

}  // namespace
}  // namespace lcab::measure
