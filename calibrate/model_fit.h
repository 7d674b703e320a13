// Fitting parameters of the performance model with the model's own prediction function, so that fit and
// prediction can never disagree about features (how tiles are distributed over SMs, how a collective's bytes
// scale with the group, how overlap slows compute).
//
// The model's time is piecewise linear in its cost parameters (a kernel's makespan is the sum of the costs of
// the items on its critical slot; a collective is latency + bytes / bandwidth), so the fit is Gauss-Newton:
// linearize the model at the current parameters (finite differences of the model itself), solve the robust
// non-negative linear fit (robust_fit.h) for new parameters, repeat until they stop changing. Residual
// statistics are those of the real model at the final parameters, not of its linearization.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "calibrate/robust_fit.h"
#include "model/perf/profile.h"

namespace lcab::calibrate {

/// A fitted parameter and where it lives in a profile. Fitted values are >= 0 (reparametrize when the model's
/// quantity has another lower bound, e.g. overlap_slowdown - 1).
struct ProfileParameter {
  std::string name;   ///< as reported: "full_tile_us"
  std::string hint;   ///< which measurements inform it, for "too little data" errors
  double scale = 1;   ///< a typical magnitude (> 0): the finite-difference step when the value is zero
  std::function<double(const perf::HardwareProfile&)> get;
  std::function<void(perf::HardwareProfile&, double)> set;
};

/// A parameter stored as one sourced member of entry `index` of a profile table (`kernels` or `collectives`).
template <typename Entry>
ProfileParameter entry_parameter(const char* name, const char* hint, double scale,
                                 std::vector<Entry> perf::HardwareProfile::*table, size_t index,
                                 perf::Sourced Entry::*member) {
  ProfileParameter p;
  p.name = name;
  p.hint = hint;
  p.scale = scale > 0 ? scale : 1.0;
  p.get = [=](const perf::HardwareProfile& profile) { return ((profile.*table)[index].*member).value; };
  p.set = [=](perf::HardwareProfile& profile, double value) { ((profile.*table)[index].*member).value = value; };
  return p;
}

/// The model's prediction (ms) for record `index` of the problem under a profile. Callers keep whatever does not
/// depend on the parameters (masks, tilings) between calls; the function is called many times.
using IndexedPredictor = std::function<double(const perf::HardwareProfile&, size_t index)>;

struct ModelFitProblem {
  std::string group;
  std::vector<ProfileParameter> parameters;
  std::vector<double> measured_ms;  ///< one per record, > 0
  IndexedPredictor predict;
};

struct ModelFitOptions {
  RobustFitOptions robust;
  int max_linearizations = 10;
  double relative_step = 1e-4;  ///< finite-difference step relative to the parameter's value (or its scale)
  double tolerance = 1e-7;      ///< relative parameter change that ends the iteration
};

struct ModelFitResult {
  std::vector<double> values;     ///< per parameter, >= 0 and finite
  std::vector<double> predicted_ms;  ///< the model at the fitted values, per record
  std::vector<int> outlier_rows;  ///< records the robust fit ignored
  ResidualStats stats;            ///< the model at the fitted values, every record
  ResidualStats inlier_stats;     ///< the same without the outliers
  /// Per parameter, the standard error of the linearized fit that gave `values` (LinearFitResult).
  std::vector<double> standard_errors;
  int linearizations = 0;
};

/// Fits the parameters starting from the values in `profile` and writes the fitted values into it. Throws
/// lcab::Error (naming the group and the parameter) when the records cannot determine a parameter at the start;
/// a later linearization that cannot ends the iteration at the best parameters found so far.
ModelFitResult fit_model_parameters(const ModelFitProblem& problem, perf::HardwareProfile& profile,
                                    const ModelFitOptions& options = {});

}  // namespace lcab::calibrate
