#include "calibrate/robust_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "calibrate/nnls.h"
#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::calibrate {

namespace {

constexpr double kOutlierWeight = 0.1;
constexpr double kRankThreshold = 1e-9;
constexpr double kMadToSigma = 1.4826;  // median |r| of a standard normal is 1 / 1.4826

std::string hint_of(const LinearFitProblem& problem, Eigen::Index column) {
  const auto index = static_cast<size_t>(column);
  if (index < problem.parameter_hints.size() && !problem.parameter_hints[index].empty())
    return " (" + problem.parameter_hints[index] + ")";
  return "";
}

/// The design on relative residuals under row weights: row n of the features times sqrt(w_n) / measured_n.
Eigen::MatrixXd weighted_design(const LinearFitProblem& problem, const Eigen::VectorXd& weights) {
  return weights.cwiseSqrt().cwiseQuotient(problem.measured).asDiagonal() * problem.features;
}

/// Scales every non-zero column of `design` to unit norm (so that parameters of very different magnitudes,
/// microseconds per tile and per byte, compare in rank and inversion); returns the columns' norms before.
Eigen::VectorXd normalize_columns(Eigen::MatrixXd& design) {
  Eigen::VectorXd norms(design.cols());
  for (Eigen::Index j = 0; j < design.cols(); ++j) {
    norms[j] = design.col(j).norm();
    if (norms[j] > 0) design.col(j) /= norms[j];
  }
  return norms;
}

/// True when a design whose columns normalize_columns scaled determines every parameter.
bool has_full_rank(const Eigen::MatrixXd& normalized) {
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(normalized);
  qr.setThreshold(kRankThreshold);
  return qr.rank() == normalized.cols();
}

/// Rows divided by their measurement (relative residuals), columns scaled to unit norm.
Eigen::MatrixXd normalized_design(const LinearFitProblem& problem) {
  Eigen::MatrixXd design = weighted_design(problem, Eigen::VectorXd::Ones(problem.measured.size()));
  normalize_columns(design);
  return design;
}

double median(std::vector<double> values) {
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  return values[mid];
}

/// One weighted NNLS solve on relative residuals.
Eigen::VectorXd weighted_solve(const LinearFitProblem& problem, const Eigen::VectorXd& weights) {
  Eigen::VectorXd b = problem.measured;
  if (problem.offset.size() != 0) b -= problem.offset;
  b = b.cwiseProduct(weights.cwiseSqrt().cwiseQuotient(problem.measured));
  return solve_nnls(weighted_design(problem, weights), b).x;
}

Eigen::VectorXd relative_residuals(const LinearFitProblem& problem, const Eigen::VectorXd& parameters) {
  return (problem.predict(parameters) - problem.measured).cwiseQuotient(problem.measured);
}

/// True when the rows with positive weight still determine every parameter.
bool weighted_design_has_full_rank(const LinearFitProblem& problem, const Eigen::VectorXd& weights) {
  Eigen::MatrixXd design = weighted_design(problem, weights);
  return normalize_columns(design).minCoeff() > 0 && has_full_rank(design);
}

/// IRLS with one weight function; starts from `parameters` and updates it and `weights`.
template <typename WeightOf>
int reweight(const LinearFitProblem& problem, const RobustFitOptions& options, WeightOf weight_of,
             Eigen::VectorXd& parameters, Eigen::VectorXd& weights) {
  int solves = 0;
  for (int iteration = 0; iteration < options.max_iterations; ++iteration) {
    const Eigen::VectorXd residuals = relative_residuals(problem, parameters);
    std::vector<double> magnitudes(static_cast<size_t>(residuals.size()));
    for (Eigen::Index n = 0; n < residuals.size(); ++n) magnitudes[static_cast<size_t>(n)] = std::abs(residuals[n]);
    const double scale = std::max(options.min_relative_scale, kMadToSigma * median(magnitudes));
    Eigen::VectorXd next_weights(residuals.size());
    for (Eigen::Index n = 0; n < residuals.size(); ++n) next_weights[n] = weight_of(std::abs(residuals[n]) / scale);
    // Never let the weights drop the rows that pin a parameter down: keep the last identifiable state.
    if (!weighted_design_has_full_rank(problem, next_weights)) break;
    const Eigen::VectorXd next = weighted_solve(problem, next_weights);
    ++solves;
    const double change = (next - parameters).norm() / std::max(parameters.norm(), 1e-300);
    parameters = next;
    weights = next_weights;
    if (change < options.tolerance) break;
  }
  return solves;
}

/// LinearFitResult::standard_errors at `parameters` under `weights`.
Eigen::VectorXd standard_errors(const LinearFitProblem& problem, const Eigen::VectorXd& parameters,
                                const Eigen::VectorXd& weights) {
  const Eigen::Index cols = problem.features.cols();
  Eigen::VectorXd errors = Eigen::VectorXd::Constant(cols, std::numeric_limits<double>::infinity());
  const Eigen::Index weighted_rows = (weights.array() > 0).count();
  if (weighted_rows <= cols) return errors;
  const Eigen::VectorXd residuals = relative_residuals(problem, parameters);
  const double variance = weights.dot(residuals.cwiseProduct(residuals)) / static_cast<double>(weighted_rows - cols);
  Eigen::MatrixXd design = weighted_design(problem, weights);
  const Eigen::VectorXd norms = normalize_columns(design);
  if (norms.minCoeff() <= 0 || !has_full_rank(design)) return errors;
  const Eigen::MatrixXd inverse = (design.transpose() * design).inverse();
  for (Eigen::Index j = 0; j < cols; ++j) errors[j] = std::sqrt(variance * std::max(0.0, inverse(j, j))) / norms[j];
  return errors;
}

}  // namespace

Eigen::VectorXd LinearFitProblem::predict(const Eigen::VectorXd& parameters) const {
  Eigen::VectorXd predicted = features * parameters;
  if (offset.size() != 0) predicted += offset;
  return predicted;
}

void check_fit_design(const LinearFitProblem& problem, const RobustFitOptions& options) {
  const Eigen::Index rows = problem.features.rows();
  const Eigen::Index cols = problem.features.cols();
  const std::string& group = problem.group;
  LCAB_CHECK(cols > 0, group << ": nothing to fit (no parameters)");
  LCAB_CHECK(static_cast<size_t>(cols) == problem.parameter_names.size(),
             group << ": " << cols << " feature columns but " << problem.parameter_names.size() << " parameter names");
  LCAB_CHECK(problem.measured.size() == rows,
             group << ": " << rows << " feature rows but " << problem.measured.size() << " measurements");
  LCAB_CHECK(problem.features.allFinite(), group << ": a feature is NaN or infinite");
  LCAB_CHECK(problem.offset.size() == 0 || (problem.offset.size() == rows && problem.offset.allFinite()),
             group << ": the offset must be empty or one finite value per row");
  LCAB_CHECK(problem.features.minCoeff() >= 0 || rows == 0, group << ": features must be non-negative");
  for (Eigen::Index n = 0; n < rows; ++n)
    LCAB_CHECK(std::isfinite(problem.measured[n]) && problem.measured[n] > 0,
               group << ": measurement " << n << " is " << problem.measured[n] << "; times must be positive");
  const Eigen::Index needed_rows = cols + options.min_extra_rows;
  LCAB_CHECK(rows >= needed_rows, group << ": " << rows << " usable records, but fitting " << cols
                                        << " parameters (" << join(problem.parameter_names) << ") needs at least "
                                        << needed_rows);

  for (Eigen::Index j = 0; j < cols; ++j) {
    const Eigen::Index informing = (problem.features.col(j).array() > 0).count();
    LCAB_CHECK(informing >= options.min_rows_per_parameter,
               group << ": too little data for parameter '" << problem.parameter_names[static_cast<size_t>(j)]
                     << "': " << informing << " record(s) inform it, at least " << options.min_rows_per_parameter
                     << " needed" << hint_of(problem, j));
  }

  const Eigen::MatrixXd design = normalized_design(problem);
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(design);
  qr.setThreshold(kRankThreshold);
  if (qr.rank() == cols) return;
  // Name each dependent parameter and the ones it is a combination of.
  const auto& pivots = qr.colsPermutation().indices();
  std::vector<Eigen::Index> independent(pivots.data(), pivots.data() + qr.rank());
  Eigen::MatrixXd basis(rows, static_cast<Eigen::Index>(independent.size()));
  for (size_t n = 0; n < independent.size(); ++n) basis.col(static_cast<Eigen::Index>(n)) = design.col(independent[n]);
  std::ostringstream message;
  message << group << ": the data cannot tell these parameters apart:";
  for (Eigen::Index p = qr.rank(); p < cols; ++p) {
    const Eigen::Index dependent = pivots[p];
    const Eigen::VectorXd coefficients = basis.colPivHouseholderQr().solve(design.col(dependent));
    std::vector<std::string> partners;
    for (size_t n = 0; n < independent.size(); ++n)
      if (std::abs(coefficients[static_cast<Eigen::Index>(n)]) > 1e-6)
        partners.push_back("'" + problem.parameter_names[static_cast<size_t>(independent[n])] + "'");
    message << " '" << problem.parameter_names[static_cast<size_t>(dependent)] << "' varies with "
            << (partners.empty() ? std::string("nothing else") : join(partners, " and ")) << " in every record"
            << hint_of(problem, dependent) << ";";
  }
  message << " measure cases that vary them independently";
  LCAB_THROW(message.str());
}

LinearFitResult fit_nonnegative_robust(const LinearFitProblem& problem, const RobustFitOptions& options) {
  check_fit_design(problem, options);
  const Eigen::Index rows = problem.features.rows();
  LinearFitResult result;
  Eigen::VectorXd weights = Eigen::VectorXd::Ones(rows);
  Eigen::VectorXd parameters = weighted_solve(problem, weights);
  result.iterations = 1;

  if (options.loss != RobustLoss::kLeastSquares) {
    const double k = options.huber_k;
    result.iterations += reweight(problem, options, [k](double u) { return u <= k ? 1.0 : k / u; }, parameters, weights);
  }
  if (options.loss == RobustLoss::kTukey) {
    const double c = options.tukey_c;
    auto biweight = [c](double u) {
      if (u >= c) return 0.0;
      const double t = 1.0 - (u / c) * (u / c);
      return t * t;
    };
    result.iterations += reweight(problem, options, biweight, parameters, weights);
  }

  LCAB_CHECK(parameters.allFinite() && parameters.minCoeff() >= 0,
             problem.group << ": the fit produced a negative or non-finite parameter");
  result.parameters = parameters;
  result.weights = weights;
  result.standard_errors = standard_errors(problem, parameters, weights);
  result.predicted = problem.predict(parameters);
  std::vector<double> predicted_all, measured_all, predicted_in, measured_in;
  for (Eigen::Index n = 0; n < rows; ++n) {
    predicted_all.push_back(result.predicted[n]);
    measured_all.push_back(problem.measured[n]);
    if (weights[n] < kOutlierWeight) {
      result.outlier_rows.push_back(static_cast<int>(n));
    } else {
      predicted_in.push_back(result.predicted[n]);
      measured_in.push_back(problem.measured[n]);
    }
  }
  result.stats = residual_stats(predicted_all, measured_all);
  result.inlier_stats = residual_stats(predicted_in, measured_in);
  return result;
}

std::string to_string(RobustLoss loss) {
  switch (loss) {
    case RobustLoss::kLeastSquares: return "least_squares";
    case RobustLoss::kHuber: return "huber";
    case RobustLoss::kTukey: return "tukey";
  }
  return "?";
}

RobustLoss parse_robust_loss(const std::string& name) {
  for (RobustLoss loss : {RobustLoss::kLeastSquares, RobustLoss::kHuber, RobustLoss::kTukey})
    if (to_string(loss) == name) return loss;
  LCAB_THROW("unknown robust loss '" << name << "'; valid: least_squares, huber, tukey");
}

}  // namespace lcab::calibrate
