#include "calibrate/nnls.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace lcab::calibrate {
namespace {

TEST(Nnls, RecoversAnExactNonNegativeSolution) {
  Eigen::MatrixXd a(4, 3);
  a << 1, 0, 2,  //
      0, 1, 1,   //
      1, 1, 0,   //
      2, 3, 1;
  const Eigen::Vector3d truth(0.5, 2.0, 1.5);
  const NnlsResult result = solve_nnls(a, a * truth);
  EXPECT_NEAR(result.x[0], 0.5, 1e-10);
  EXPECT_NEAR(result.x[1], 2.0, 1e-10);
  EXPECT_NEAR(result.x[2], 1.5, 1e-10);
  EXPECT_NEAR(result.residual_norm, 0.0, 1e-10);
}

TEST(Nnls, ClampsWhereUnconstrainedLeastSquaresGoesNegative) {
  // b = 2 * a0 - 1 * a1: the unconstrained solution has x1 = -1; NNLS must return x1 = 0 and the best x0.
  Eigen::MatrixXd a(3, 2);
  a << 1, 1,  //
      1, 0,   //
      1, 2;
  const Eigen::Vector3d b = 2 * a.col(0) - a.col(1);
  const NnlsResult result = solve_nnls(a, b);
  EXPECT_EQ(result.x[1], 0.0);
  // With x1 = 0 the best x0 is mean(b) = (1 + 2 + 0) / 3.
  EXPECT_NEAR(result.x[0], 1.0, 1e-12);
  EXPECT_GE(result.x.minCoeff(), 0.0);
}

TEST(Nnls, MatchesKktConditions) {
  // Random-ish problem: at the optimum, the gradient is zero on positive entries and <= 0 on zero entries.
  Eigen::MatrixXd a(8, 4);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 4; ++c) a(r, c) = std::sin(1.3 * r + 2.1 * c) + 0.2 * c;
  Eigen::VectorXd b(8);
  for (int r = 0; r < 8; ++r) b[r] = std::cos(0.7 * r);
  const NnlsResult result = solve_nnls(a, b);
  const Eigen::VectorXd gradient = a.transpose() * (b - a * result.x);
  for (int c = 0; c < 4; ++c) {
    EXPECT_GE(result.x[c], 0.0);
    if (result.x[c] > 0) EXPECT_NEAR(gradient[c], 0.0, 1e-9);
    else EXPECT_LE(gradient[c], 1e-9);
  }
}

TEST(Nnls, ZeroColumnGetsZero) {
  Eigen::MatrixXd a(3, 2);
  a << 1, 0,  //
      2, 0,   //
      3, 0;
  const NnlsResult result = solve_nnls(a, Eigen::Vector3d(2, 4, 6));
  EXPECT_NEAR(result.x[0], 2.0, 1e-12);
  EXPECT_EQ(result.x[1], 0.0);
}

TEST(Nnls, RejectsNonFiniteInput) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Ones(2, 1);
  Eigen::VectorXd b(2);
  b << 1, std::nan("");
  EXPECT_THROW(solve_nnls(a, b), Error);
  EXPECT_THROW(solve_nnls(a, Eigen::VectorXd::Ones(3)), Error);
}

}  // namespace
}  // namespace lcab::calibrate
