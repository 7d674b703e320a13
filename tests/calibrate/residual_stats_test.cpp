#include "calibrate/residual_stats.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace lcab::calibrate {
namespace {

TEST(ResidualStats, MapeP90WorstAndBias) {
  // Errors: +10%, -20%, 0%, +5%, ... ten points so that p90 is the 9th smallest.
  std::vector<double> measured(10, 100.0);
  std::vector<double> predicted = {110, 80, 100, 105, 101, 102, 103, 104, 106, 107};
  const ResidualStats stats = residual_stats(predicted, measured);
  EXPECT_EQ(stats.count, 10);
  EXPECT_NEAR(stats.mape_pct, (10 + 20 + 0 + 5 + 1 + 2 + 3 + 4 + 6 + 7) / 10.0, 1e-12);
  EXPECT_NEAR(stats.p90_pct, 10.0, 1e-12);  // sorted: 0 1 2 3 4 5 6 7 10 20 -> 9th is 10
  EXPECT_NEAR(stats.worst_pct, 20.0, 1e-12);
  EXPECT_EQ(stats.worst_index, 1);
  EXPECT_NEAR(stats.bias_pct, (10 - 20 + 0 + 5 + 1 + 2 + 3 + 4 + 6 + 7) / 10.0, 1e-12);
}

TEST(ResidualStats, EmptyAndInvalid) {
  EXPECT_EQ(residual_stats({}, {}).count, 0);
  EXPECT_THROW(residual_stats({1.0}, {0.0}), Error);
  EXPECT_THROW(residual_stats({1.0, 2.0}, {1.0}), Error);
  EXPECT_THROW(abs_percent_error(std::nan(""), 1.0), Error);
}

}  // namespace
}  // namespace lcab::calibrate
