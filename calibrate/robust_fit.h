// Robust non-negative linear fits of measured times: time ~= offset + features . parameters, parameters >= 0,
// minimizing
// *relative* residuals (a 10 us kernel and a 10 ms kernel count alike), with outliers down-weighted by
// iteratively reweighted least squares (Huber, then Tukey's biweight). Before fitting, the design is checked:
// a parameter no record informs, or one that cannot be told apart from the others, is an error that names it.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "calibrate/residual_stats.h"

namespace lcab::calibrate {

/// One linear fit: rows are observations (records), columns parameters.
struct LinearFitProblem {
  std::string group;                         ///< what is fitted, for messages: "lcab_flash fwd hd128 bf16"
  std::vector<std::string> parameter_names;  ///< one per column, e.g. "full_tile_ms"
  /// Optional, one per column: which measurements would inform the parameter ("masks with partial tiles").
  std::vector<std::string> parameter_hints;
  Eigen::MatrixXd features;                  ///< rows x parameters, finite, >= 0
  Eigen::VectorXd measured;                  ///< one per row, finite, > 0
  /// Optional, one per row (empty means zero): the part of each prediction that does not depend on the
  /// parameters (a linearized model's constant term).
  Eigen::VectorXd offset;
  /// offset + features * parameters.
  Eigen::VectorXd predict(const Eigen::VectorXd& parameters) const;
};

enum class RobustLoss {
  kLeastSquares,  ///< plain weighted least squares on relative residuals; no outlier handling
  kHuber,         ///< weight 1 inside huber_k robust scales, k/|u| outside: bounded influence, convex
  kTukey,         ///< Huber first (for a good start), then Tukey's biweight: points beyond tukey_c scales get 0
};

struct RobustFitOptions {
  RobustLoss loss = RobustLoss::kTukey;
  double huber_k = 1.345;   ///< in robust scales (95% efficiency under Gaussian noise)
  double tukey_c = 4.685;   ///< in robust scales (95% efficiency under Gaussian noise)
  /// Floor of the robust scale of relative residuals (1.4826 * median |r|): keeps a nearly perfect fit from
  /// calling every point an outlier. 0.01 = 1%.
  double min_relative_scale = 0.01;
  int max_iterations = 50;          ///< per IRLS stage
  double tolerance = 1e-9;          ///< relative change of the parameters that ends an IRLS stage
  /// A parameter must be informed (non-zero feature) by at least this many rows.
  int min_rows_per_parameter = 2;
  /// Rows must exceed the number of parameters by at least this many, so the fit can be checked at all.
  int min_extra_rows = 1;
};

struct LinearFitResult {
  Eigen::VectorXd parameters;  ///< >= 0, finite
  Eigen::VectorXd predicted;   ///< offset + features * parameters, per row
  Eigen::VectorXd weights;     ///< final robust weights in [0, 1], per row
  std::vector<int> outlier_rows;  ///< rows with weight below 0.1
  ResidualStats stats;         ///< over every row, outliers included
  ResidualStats inlier_stats;  ///< over rows that are not outliers
  int iterations = 0;          ///< weighted solves in total
  /// Per parameter, how well the rows determine it: the standard error of the final weighted least-squares fit
  /// on relative residuals, s * sqrt(diag((A^T A)^-1)) with A the weighted relative design and s^2 the weighted
  /// residual variance over (rows with weight - parameters), as if the bound at 0 were not there. Infinite when
  /// the rows left with weight cannot determine it.
  Eigen::VectorXd standard_errors;
};

/// Throws lcab::Error when the design cannot determine every parameter: non-finite or negative values, a
/// non-positive measurement, too few rows, a parameter informed by fewer than min_rows_per_parameter rows (the
/// message names it and its hint), or parameters that are linearly dependent in the data (named as well).
void check_fit_design(const LinearFitProblem& problem, const RobustFitOptions& options = {});

/// check_fit_design, then the robust non-negative fit.
LinearFitResult fit_nonnegative_robust(const LinearFitProblem& problem, const RobustFitOptions& options = {});

/// "least_squares" | "huber" | "tukey"; parse_robust_loss throws listing them.
std::string to_string(RobustLoss loss);
RobustLoss parse_robust_loss(const std::string& name);

}  // namespace lcab::calibrate
