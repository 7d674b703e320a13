#include "measure/trace_activity.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace lcab::measure {
namespace {

constexpr uint64_t kFlushBytes = 100;

TraceActivity flush(uint64_t start_ns) { return {ActivityKind::kMemset, "memset", start_ns, start_ns + 10, 0, 1, 7, 0, kFlushBytes}; }
TraceActivity kernel(const std::string& name, uint64_t start_ns, uint64_t duration_ns) {
  return {ActivityKind::kKernel, name, start_ns, start_ns + duration_ns, 0, 1, 7, 0, 0};
}

TEST(SummarizeRegion, SplitsRepetitionsAtFlushesAndSumsKernelsByName) {
  // Two repetitions: [flush, a 1ms, b 0.5ms, a 1ms], [flush, a 2ms, b 0.5ms]; shuffled order, a small memset that
  // is not a flush, and a kernel before the first flush (ignored).
  std::vector<TraceActivity> activities = {
      kernel("a", 20'000'000, 2'000'000), flush(10'000'000), kernel("b", 3'000'000, 500'000),
      kernel("early", 0, 5), flush(1'000'000), kernel("a", 1'100'000, 1'000'000),
      kernel("a", 4'000'000, 1'000'000), kernel("b", 23'000'000, 500'000),
      TraceActivity{ActivityKind::kMemset, "memset", 3'600'000, 3'600'010, 0, 1, 7, 0, 4}};
  const RegionKernels region = summarize_region(activities, 2, kFlushBytes);
  ASSERT_EQ(region.kernel_sum_ms.size(), 2u);
  EXPECT_NEAR(region.kernel_sum_ms[0], 2.5, 1e-12);
  EXPECT_NEAR(region.kernel_sum_ms[1], 2.5, 1e-12);
  EXPECT_NEAR(region.gpu_span_ms[0], 3.9, 1e-12);  // 1.1 ms to 5.0 ms
  EXPECT_NEAR(region.gpu_span_ms[1], 3.5, 1e-12);  // 20 ms to 23.5 ms
  ASSERT_EQ(region.kernels.size(), 2u);
  EXPECT_EQ(region.kernels[0].name, "a");
  EXPECT_DOUBLE_EQ(region.kernels[0].calls_per_rep, 1.5);  // median of 2 and 1
  EXPECT_NEAR(region.kernels[0].median_ms, 2.0, 1e-12);
  EXPECT_EQ(region.kernels[1].name, "b");
  EXPECT_NEAR(region.kernels[1].median_ms, 0.5, 1e-12);
}

TEST(SummarizeRegion, LostRepetitionsAreAnError) {
  EXPECT_THROW(summarize_region({flush(0), kernel("a", 10, 10)}, 2, kFlushBytes), Error);
}

}  // namespace
}  // namespace lcab::measure
