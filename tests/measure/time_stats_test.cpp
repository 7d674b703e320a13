#include "measure/time_stats.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace lcab::measure {
namespace {

TEST(TimeStats, PercentilesInterpolateBetweenOrderStatistics) {
  const std::vector<double> samples = {5, 1, 4, 2, 3};  // sorted: 1 2 3 4 5
  EXPECT_DOUBLE_EQ(percentile(samples, 50), 3.0);
  EXPECT_DOUBLE_EQ(percentile(samples, 20), 1.8);  // position 0.8
  EXPECT_DOUBLE_EQ(percentile(samples, 80), 4.2);  // position 3.2
  EXPECT_DOUBLE_EQ(percentile(samples, 0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(samples, 100), 5.0);
}

TEST(TimeStats, SummaryOfOneSampleIsThatSample) {
  const TimeStatsMs stats = summarize_times({2.5});
  EXPECT_DOUBLE_EQ(stats.median, 2.5);
  EXPECT_DOUBLE_EQ(stats.p20, 2.5);
  EXPECT_DOUBLE_EQ(stats.p80, 2.5);
}

TEST(TimeStats, EmptyOrOutOfRangeIsAnError) {
  EXPECT_THROW(percentile({}, 50), Error);
  EXPECT_THROW(percentile({1.0}, 101), Error);
}

}  // namespace
}  // namespace lcab::measure
