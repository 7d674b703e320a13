#include "calibrate/robust_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "model/error.h"

namespace lcab::calibrate {
namespace {

/// Synthetic kernel-like data: time = full * a + partial * b + rows * c + launch * d, with relative noise.
LinearFitProblem synthetic_problem(int rows, double noise_fraction, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> tiles(10, 5000);
  std::normal_distribution<double> noise(0.0, noise_fraction);
  LinearFitProblem problem;
  problem.group = "synthetic";
  problem.parameter_names = {"full_tile_ms", "partial_tile_ms", "row_ms", "launch_ms"};
  problem.features.resize(rows, 4);
  problem.measured.resize(rows);
  const Eigen::Vector4d truth(2e-3, 3e-3, 5e-3, 0.01);
  for (int r = 0; r < rows; ++r) {
    const double full = tiles(rng), partial = 0.1 * tiles(rng), row = tiles(rng) / 40;
    problem.features.row(r) << full, partial, row, 1.0;
    problem.measured[r] = problem.features.row(r).dot(truth) * (1.0 + noise(rng));
  }
  return problem;
}

TEST(RobustFit, RecoversKnownParametersFromCleanData) {
  const LinearFitProblem problem = synthetic_problem(40, 0.0, 1);
  const LinearFitResult result = fit_nonnegative_robust(problem);
  EXPECT_NEAR(result.parameters[0], 2e-3, 2e-3 * 1e-6);
  EXPECT_NEAR(result.parameters[1], 3e-3, 3e-3 * 1e-6);
  EXPECT_NEAR(result.parameters[2], 5e-3, 5e-3 * 1e-6);
  EXPECT_NEAR(result.parameters[3], 0.01, 0.01 * 1e-6);
  EXPECT_LT(result.stats.mape_pct, 1e-6);
  EXPECT_TRUE(result.outlier_rows.empty());
}

TEST(RobustFit, RecoversParametersUnderNoise) {
  const LinearFitProblem problem = synthetic_problem(200, 0.01, 2);
  const LinearFitResult result = fit_nonnegative_robust(problem);
  EXPECT_NEAR(result.parameters[0], 2e-3, 2e-3 * 0.02);
  EXPECT_NEAR(result.parameters[2], 5e-3, 5e-3 * 0.05);
  EXPECT_LT(result.stats.mape_pct, 1.5);
}

TEST(RobustFit, StandardErrorsGrowWithTheNoiseAndCoverTheTruth) {
  const Eigen::Vector4d truth(2e-3, 3e-3, 5e-3, 0.01);
  // Least squares, so that the weights (all 1) do not differ between the two noise levels.
  RobustFitOptions options;
  options.loss = RobustLoss::kLeastSquares;
  const LinearFitResult clean = fit_nonnegative_robust(synthetic_problem(200, 0.0, 4), options);
  const LinearFitResult quiet = fit_nonnegative_robust(synthetic_problem(200, 0.01, 4), options);
  const LinearFitResult noisy = fit_nonnegative_robust(synthetic_problem(200, 0.02, 4), options);
  ASSERT_EQ(quiet.standard_errors.size(), 4);
  for (int j = 0; j < 4; ++j) {
    EXPECT_LT(clean.standard_errors[j], truth[j] * 1e-6) << j;
    ASSERT_TRUE(std::isfinite(quiet.standard_errors[j]) && quiet.standard_errors[j] > 0) << j;
    // The same noise pattern twice as large: about twice the error.
    EXPECT_NEAR(noisy.standard_errors[j] / quiet.standard_errors[j], 2.0, 0.2) << j;
    EXPECT_LT(std::abs(quiet.parameters[j] - truth[j]), 4 * quiet.standard_errors[j]) << j;
  }
  // The launch term is informed by a constant column beside large tile counts: determined far less well, relative
  // to its value, than the full-tile cost.
  EXPECT_GT(quiet.standard_errors[3] / truth[3], 3 * quiet.standard_errors[0] / truth[0]);
}

TEST(RobustFit, IgnoresOutliers) {
  LinearFitProblem problem = synthetic_problem(60, 0.002, 3);
  // Five points three times too slow (a throttled GPU, a noisy neighbour).
  for (int r : {3, 17, 29, 41, 55}) problem.measured[r] *= 3.0;
  const LinearFitResult robust = fit_nonnegative_robust(problem);
  EXPECT_NEAR(robust.parameters[0], 2e-3, 2e-3 * 0.01);
  EXPECT_NEAR(robust.parameters[2], 5e-3, 5e-3 * 0.03);
  EXPECT_EQ(robust.outlier_rows, (std::vector<int>{3, 17, 29, 41, 55}));
  EXPECT_LT(robust.inlier_stats.mape_pct, 0.5);

  // Plain least squares is pulled away by the same outliers: the test would catch a robust fit that is not.
  RobustFitOptions plain;
  plain.loss = RobustLoss::kLeastSquares;
  const LinearFitResult naive = fit_nonnegative_robust(problem, plain);
  EXPECT_GT(std::abs(naive.parameters[0] - 2e-3) / 2e-3 + std::abs(naive.parameters[2] - 5e-3) / 5e-3, 0.05);
}

TEST(RobustFit, NeverNegative) {
  // The truth has a negative partial-tile cost; the fit must clamp it to zero, not go negative.
  LinearFitProblem problem = synthetic_problem(30, 0.0, 4);
  const Eigen::Vector4d truth(2e-3, -1e-3, 5e-3, 0.01);
  problem.measured = problem.features * truth;
  const LinearFitResult result = fit_nonnegative_robust(problem);
  EXPECT_GE(result.parameters.minCoeff(), 0.0);
  EXPECT_EQ(result.parameters[1], 0.0);
  EXPECT_TRUE(result.parameters.allFinite());
}

TEST(RobustFit, RejectsParameterWithoutData) {
  LinearFitProblem problem = synthetic_problem(20, 0.0, 5);
  problem.parameter_hints = {"", "masks with partial tiles, e.g. causal", "", ""};
  problem.features.col(1).setZero();
  problem.features(4, 1) = 7;  // a single record is not enough
  try {
    fit_nonnegative_robust(problem);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("partial_tile_ms"), std::string::npos) << what;
    EXPECT_NE(what.find("causal"), std::string::npos) << what;
  }
}

TEST(RobustFit, RejectsInseparableParameters) {
  LinearFitProblem problem = synthetic_problem(20, 0.0, 6);
  problem.features.col(1) = 2.0 * problem.features.col(2);  // partial tiles always twice the rows
  try {
    fit_nonnegative_robust(problem);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot tell"), std::string::npos) << what;
    EXPECT_NE(what.find("partial_tile_ms"), std::string::npos) << what;
    EXPECT_NE(what.find("row_ms"), std::string::npos) << what;
  }
}

TEST(RobustFit, RejectsTooFewRowsAndBadMeasurements) {
  EXPECT_THROW(fit_nonnegative_robust(synthetic_problem(4, 0.0, 7)), Error);  // 4 rows for 4 parameters
  LinearFitProblem problem = synthetic_problem(20, 0.0, 8);
  problem.measured[3] = 0;
  EXPECT_THROW(fit_nonnegative_robust(problem), Error);
  problem = synthetic_problem(20, 0.0, 8);
  problem.features(2, 2) = std::nan("");
  EXPECT_THROW(fit_nonnegative_robust(problem), Error);
}

TEST(RobustFit, LossNames) {
  for (RobustLoss loss : {RobustLoss::kLeastSquares, RobustLoss::kHuber, RobustLoss::kTukey})
    EXPECT_EQ(parse_robust_loss(to_string(loss)), loss);
  EXPECT_THROW(parse_robust_loss("cauchy"), Error);
}

}  // namespace
}  // namespace lcab::calibrate
