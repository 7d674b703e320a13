// On a GPU: CUPTI's kernel durations agree with CUDA-event timing, random inputs are never zeros. Skipped
// where no GPU is present.
#include <cuda_runtime_api.h>

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "measure/cupti_tracer.h"
#include "measure/device_buffer.h"
#include "measure/device_info.h"
#include "measure/gpu_timing.h"
#include "measure/random_fill.h"
#include "tests/measure/busy_kernel.h"

namespace lcab::measure {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU"

TEST(GpuTiming, CuptiKernelDurationsAgreeWithEventsWithinFivePercent) {
  SKIP_WITHOUT_GPU();
  Stream stream;
  DeviceBuffer sink(sizeof(int));
  ASSERT_EQ(cudaMemset(sink.get(), 0, sizeof(int)), cudaSuccess);
  L2Flusher flusher;
  CuptiActivityTracer tracer;
  const TimingOptions options{2, 10};
  const uint64_t busy_ns = 2'000'000;  // 2 ms
  const TimedRegion timed = time_region(
      [&](cudaStream_t s) { ASSERT_EQ(testing::launch_busy_kernel(busy_ns, sink.as<int>(), s), 0); }, options,
      flusher, stream.get(), &tracer);
  const RegionKernels region = summarize_region(timed.activities, options.reps, flusher.bytes());
  ASSERT_EQ(region.kernels.size(), 1u);
  EXPECT_NE(region.kernels[0].name.find("busy_kernel"), std::string::npos) << region.kernels[0].name;
  EXPECT_DOUBLE_EQ(region.kernels[0].calls_per_rep, 1.0);
  for (int n = 0; n < options.reps; ++n) {
    const double events_ms = timed.region_ms[n];
    const double cupti_ms = region.kernel_sum_ms[n];
    EXPECT_GE(cupti_ms, 1.0);
    EXPECT_NEAR(cupti_ms, events_ms, 0.05 * events_ms) << "repetition " << n;
  }
}

TEST(GpuTiming, RandomInputsAreNeverZeros) {
  SKIP_WITHOUT_GPU();
  const int64_t count = 1 << 20;
  DeviceBuffer buffer(count * sizeof(float));
  fill_random_f32(buffer.as<float>(), count, 42, 1.0f, nullptr);
  std::vector<float> host(count);
  ASSERT_EQ(cudaMemcpy(host.data(), buffer.get(), count * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  int64_t zeros = 0;
  double sum = 0;
  for (float x : host) {
    zeros += x == 0.0f;
    ASSERT_TRUE(x >= -1.0f && x < 1.0f) << x;
    sum += x;
  }
  EXPECT_EQ(zeros, 0);
  EXPECT_LT(std::abs(sum / count), 0.01);  // centered
}

TEST(GpuTiming, DeviceInfoNamesTheGpu) {
  SKIP_WITHOUT_GPU();
  const DeviceInfo info = query_device_info(0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(*info.sms, 0);
  EXPECT_FALSE(info.driver.empty());
}

}  // namespace
}  // namespace lcab::measure
