#include "calibrate/model_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/error.h"

namespace lcab::calibrate {

namespace {

std::vector<double> current_values(const ModelFitProblem& problem, const perf::HardwareProfile& profile) {
  std::vector<double> values;
  for (const ProfileParameter& p : problem.parameters) values.push_back(p.get(profile));
  return values;
}

void set_values(const ModelFitProblem& problem, perf::HardwareProfile& profile, const std::vector<double>& values) {
  for (size_t j = 0; j < values.size(); ++j) problem.parameters[j].set(profile, values[j]);
}

std::vector<double> predict_all(const ModelFitProblem& problem, const perf::HardwareProfile& profile) {
  std::vector<double> predicted(problem.measured_ms.size());
  for (size_t n = 0; n < predicted.size(); ++n) {
    predicted[n] = problem.predict(profile, n);
    LCAB_CHECK(std::isfinite(predicted[n]), problem.group << ": the model predicted a non-finite time for record "
                                                          << n);
  }
  return predicted;
}

/// The model linearized at `values`: time ~= offset + features * values.
LinearFitProblem linearize(const ModelFitProblem& problem, perf::HardwareProfile& profile,
                           const std::vector<double>& values, const ModelFitOptions& options) {
  const size_t rows = problem.measured_ms.size();
  const size_t cols = values.size();
  LinearFitProblem linear;
  linear.group = problem.group;
  for (const ProfileParameter& p : problem.parameters) {
    linear.parameter_names.push_back(p.name);
    linear.parameter_hints.push_back(p.hint);
  }
  linear.measured = Eigen::Map<const Eigen::VectorXd>(problem.measured_ms.data(), static_cast<Eigen::Index>(rows));
  linear.features.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  set_values(problem, profile, values);
  const std::vector<double> base = predict_all(problem, profile);
  for (size_t j = 0; j < cols; ++j) {
    const double step = options.relative_step * (values[j] > 0 ? values[j] : problem.parameters[j].scale);
    std::vector<double> stepped = values;
    stepped[j] += step;
    set_values(problem, profile, stepped);
    const std::vector<double> moved = predict_all(problem, profile);
    for (size_t n = 0; n < rows; ++n) {
      // A cost never makes the model faster; a tiny negative slope is rounding.
      const double slope = std::max(0.0, (moved[n] - base[n]) / step);
      linear.features(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(j)) = slope;
    }
  }
  set_values(problem, profile, values);
  linear.offset.resize(static_cast<Eigen::Index>(rows));
  for (size_t n = 0; n < rows; ++n) {
    const auto row = static_cast<Eigen::Index>(n);
    double linear_part = 0;
    for (size_t j = 0; j < cols; ++j) linear_part += linear.features(row, static_cast<Eigen::Index>(j)) * values[j];
    linear.offset[row] = base[n] - linear_part;
  }
  return linear;
}

/// Mean absolute relative error of the real model over the rows not in `outliers`.
double inlier_error(const std::vector<double>& predicted, const std::vector<double>& measured,
                    const std::vector<int>& outliers) {
  double sum = 0;
  int64_t count = 0;
  size_t next_outlier = 0;
  for (size_t n = 0; n < measured.size(); ++n) {
    if (next_outlier < outliers.size() && outliers[next_outlier] == static_cast<int>(n)) {
      ++next_outlier;
      continue;
    }
    sum += std::abs(predicted[n] - measured[n]) / measured[n];
    ++count;
  }
  return count > 0 ? sum / static_cast<double>(count) : std::numeric_limits<double>::infinity();
}

}  // namespace

ModelFitResult fit_model_parameters(const ModelFitProblem& problem, perf::HardwareProfile& profile,
                                    const ModelFitOptions& options) {
  LCAB_CHECK(!problem.parameters.empty(), problem.group << ": no parameters to fit");
  for (const ProfileParameter& p : problem.parameters)
    LCAB_CHECK(p.scale > 0 && p.get && p.set, problem.group << ": parameter '" << p.name << "' is incomplete");
  for (double m : problem.measured_ms)
    LCAB_CHECK(std::isfinite(m) && m > 0, problem.group << ": measured times must be positive, got " << m);

  // Work on a copy: on an error the caller's profile is untouched.
  perf::HardwareProfile working = profile;
  std::vector<double> values = current_values(problem, working);
  for (double& v : values) v = std::max(0.0, std::isfinite(v) ? v : 0.0);

  ModelFitResult best;
  double best_error = std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < options.max_linearizations; ++iteration) {
    const LinearFitProblem linear = linearize(problem, working, values, options);
    LinearFitResult fit;
    try {
      fit = fit_nonnegative_robust(linear, options.robust);  // throws on a bad design
    } catch (const Error&) {
      // A piecewise model (e.g. two protocol lines) can move to where a parameter no longer shows in enough
      // records; the first linearization decides whether the records determine the parameters at all.
      if (iteration == 0 || best.values.empty()) throw;
      break;
    }
    std::vector<double> next(fit.parameters.data(), fit.parameters.data() + fit.parameters.size());
    set_values(problem, working, next);
    std::vector<double> predicted = predict_all(problem, working);
    const double error = inlier_error(predicted, problem.measured_ms, fit.outlier_rows);
    if (error < best_error) {
      best_error = error;
      best.values = next;
      best.predicted_ms = std::move(predicted);
      best.outlier_rows = fit.outlier_rows;
      best.standard_errors.assign(fit.standard_errors.data(),
                                  fit.standard_errors.data() + fit.standard_errors.size());
    }
    best.linearizations = iteration + 1;
    double change = 0;
    for (size_t j = 0; j < next.size(); ++j) {
      const double scale = std::max(std::abs(values[j]), problem.parameters[j].scale);
      change = std::max(change, std::abs(next[j] - values[j]) / scale);
    }
    values = next;
    if (change < options.tolerance) break;
  }

  for (double v : best.values)
    LCAB_CHECK(std::isfinite(v) && v >= 0, problem.group << ": the fit produced an invalid value " << v);
  set_values(problem, profile, best.values);
  std::vector<double> predicted_in, measured_in;
  size_t next_outlier = 0;
  for (size_t n = 0; n < problem.measured_ms.size(); ++n) {
    if (next_outlier < best.outlier_rows.size() && best.outlier_rows[next_outlier] == static_cast<int>(n)) {
      ++next_outlier;
      continue;
    }
    predicted_in.push_back(best.predicted_ms[n]);
    measured_in.push_back(problem.measured_ms[n]);
  }
  best.stats = residual_stats(best.predicted_ms, problem.measured_ms);
  best.inlier_stats = residual_stats(predicted_in, measured_in);
  return best;
}

}  // namespace lcab::calibrate
