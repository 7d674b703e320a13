// Non-negative least squares: minimize ||A x - b||_2 subject to x >= 0 (Lawson and Hanson's active-set method,
// "Solving Least Squares Problems", 1974, chapter 23). The calibration fits cost parameters with it, so that no
// fitted cost can come out negative.
#pragma once

#include <Eigen/Dense>

namespace lcab::calibrate {

struct NnlsResult {
  Eigen::VectorXd x;       ///< the solution, every entry >= 0 and finite
  double residual_norm = 0;  ///< ||A x - b||_2
  int iterations = 0;      ///< inner least-squares solves
};

/// Solves min ||A x - b|| with x >= 0. Columns are scaled to unit norm internally (so the stopping tolerance
/// does not depend on the units of each parameter); an all-zero column gets x = 0. Throws lcab::Error when A or
/// b holds a non-finite value, when the sizes disagree, or when the active-set loop does not converge within
/// max_iterations (default 3 * columns + 30).
NnlsResult solve_nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, int max_iterations = 0);

}  // namespace lcab::calibrate
