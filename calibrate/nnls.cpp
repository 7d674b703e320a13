#include "calibrate/nnls.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "model/error.h"

namespace lcab::calibrate {

namespace {

/// Least squares on the passive columns only; entries outside the passive set are zero.
Eigen::VectorXd solve_on_passive_set(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                                     const std::vector<bool>& passive) {
  std::vector<Eigen::Index> columns;
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    if (passive[j]) columns.push_back(j);
  Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(columns.size()));
  for (size_t n = 0; n < columns.size(); ++n) sub.col(static_cast<Eigen::Index>(n)) = a.col(columns[n]);
  const Eigen::VectorXd sub_solution = sub.colPivHouseholderQr().solve(b);
  Eigen::VectorXd full = Eigen::VectorXd::Zero(a.cols());
  for (size_t n = 0; n < columns.size(); ++n) full[columns[n]] = sub_solution[static_cast<Eigen::Index>(n)];
  return full;
}

}  // namespace

NnlsResult solve_nnls(const Eigen::MatrixXd& a_in, const Eigen::VectorXd& b, int max_iterations) {
  LCAB_CHECK(a_in.rows() == b.size(), "NNLS: the design has " << a_in.rows() << " rows but the target has "
                                                             << b.size() << " entries");
  LCAB_CHECK(a_in.allFinite() && b.allFinite(), "NNLS: the design or the target holds a NaN or infinite value");
  const Eigen::Index cols = a_in.cols();
  if (max_iterations <= 0) max_iterations = 3 * static_cast<int>(cols) + 30;

  // Unit-norm columns: the multiplier test below then compares like with like.
  Eigen::VectorXd column_scale = a_in.colwise().norm().transpose();
  Eigen::MatrixXd a = a_in;
  for (Eigen::Index j = 0; j < cols; ++j)
    if (column_scale[j] > 0) a.col(j) /= column_scale[j];

  const double tolerance =
      10.0 * std::numeric_limits<double>::epsilon() * std::max<double>(1.0, a.cwiseAbs().colwise().sum().maxCoeff()) *
      static_cast<double>(std::max(a.rows(), cols));

  std::vector<bool> passive(cols, false);
  // Columns whose multiplier was positive but whose least-squares value was not (rounding on nearly dependent
  // columns); they are skipped until x changes, which keeps the outer loop from cycling.
  std::vector<bool> blocked(cols, false);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(cols);
  NnlsResult result;
  Eigen::VectorXd gradient = a.transpose() * (b - a * x);
  while (true) {
    // The column of the zero set whose multiplier says the objective still decreases fastest.
    Eigen::Index best = -1;
    double best_gradient = tolerance;
    for (Eigen::Index j = 0; j < cols; ++j)
      if (!passive[j] && !blocked[j] && column_scale[j] > 0 && gradient[j] > best_gradient) {
        best_gradient = gradient[j];
        best = j;
      }
    if (best < 0) break;
    passive[best] = true;

    bool first_solve = true;
    while (true) {
      LCAB_CHECK(++result.iterations <= max_iterations,
                 "NNLS did not converge in " << max_iterations << " iterations (" << a.rows() << " x " << cols
                                             << " design); the features are probably nearly collinear");
      const Eigen::VectorXd candidate = solve_on_passive_set(a, b, passive);
      if (first_solve && candidate[best] <= tolerance) {
        passive[best] = false;
        blocked[best] = true;
        break;
      }
      first_solve = false;
      bool feasible = true;
      for (Eigen::Index j = 0; j < cols; ++j)
        if (passive[j] && candidate[j] <= tolerance) feasible = false;
      if (feasible) {
        x = candidate;
        std::fill(blocked.begin(), blocked.end(), false);
        break;
      }
      // Step from x toward the candidate until the first passive entry reaches zero, then drop those entries.
      double step = 1.0;
      for (Eigen::Index j = 0; j < cols; ++j)
        if (passive[j] && candidate[j] <= tolerance && x[j] > candidate[j])
          step = std::min(step, x[j] / (x[j] - candidate[j]));
      x += step * (candidate - x);
      for (Eigen::Index j = 0; j < cols; ++j)
        if (passive[j] && x[j] <= tolerance) {
          passive[j] = false;
          x[j] = 0;
        }
    }
    gradient = a.transpose() * (b - a * x);
  }

  for (Eigen::Index j = 0; j < cols; ++j) x[j] = column_scale[j] > 0 ? std::max(0.0, x[j]) / column_scale[j] : 0.0;
  LCAB_CHECK(x.allFinite(), "NNLS produced a non-finite solution");
  result.x = x;
  result.residual_norm = (a_in * x - b).norm();
  return result;
}

}  // namespace lcab::calibrate
