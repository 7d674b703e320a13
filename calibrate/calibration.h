// The calibration as a whole: measured records in, a profile out. Kernel cost parameters are fitted per
// implementation x pass x head dim x dtype, collective latency and bandwidth per operation x link class, the
// overlap slowdown from CP records; everything the records do not cover keeps the base profile's values.
// The result carries provenance (inputs, devices, dates, git revision) and residual statistics per fitted group.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/model_fit.h"
#include "calibrate/record_prediction.h"
#include "model/perf/profile.h"
#include "model/record.h"

namespace lcab::calibrate {

/// One fitted group: its parameters and how well they reproduce the records they were fitted to.
struct GroupFit {
  std::string group;  ///< "kernel lcab_flash fwd hd128 bf16", "comm all_gather intra_node", "overlap"
  std::vector<std::string> parameter_names;
  std::vector<double> parameter_values;
  int64_t records = 0;
  int64_t outliers = 0;
  ResidualStats stats;         ///< every record of the group
  ResidualStats inlier_stats;  ///< without the outliers
  /// Per fitted parameter, by the name it was fitted under (which may differ from parameter_names, e.g.
  /// overlap_slowdown_minus_1), its standard error (ModelFitResult::standard_errors).
  std::vector<std::pair<std::string, double>> standard_errors;
  std::string note;  ///< a decision the fit made beyond fitting, e.g. a term held at its neutral value; may be empty
};

/// A group the records touched but could not determine, and why (the message names what is missing).
struct GroupFailure {
  std::string group;
  std::string reason;
};

struct CalibrationOptions {
  ModelFitOptions fit;
  /// Smallest message used for the communication fit (the target applies from 1 MiB on).
  int64_t comm_min_bytes = int64_t{1} << 20;
  /// Where the inputs came from, for provenance (file paths as given).
  std::vector<std::string> input_files;
  /// Name of the calibrated profile; empty: "<base name>.calibrated".
  std::string profile_name;
};

struct CalibrationResult {
  perf::HardwareProfile profile;
  std::vector<GroupFit> fits;
  std::vector<GroupFailure> failures;
  /// True when `group` was fitted (as opposed to failed or not present in the records).
  bool fitted(const std::string& group) const;
  /// The failure reason for `group`, or "" when it did not fail.
  std::string failure(const std::string& group) const;
};

/// The fit group a measured record belongs to ("kernel ...", "comm ...", "overlap"), given the profile's
/// cluster shape (link classes come from gpus_per_node).
std::string fit_group(const Record& record, const perf::HardwareProfile& profile);

/// Fits every group the records cover (usable measurements of any kind; others are ignored), starting from
/// `base`: kernels first, then intra-node and inter-node collectives, then the overlap slowdown (which needs the
/// kernel group of each CP record fitted). A group that cannot be fitted is listed in failures and keeps the base
/// values; the caller decides whether that is fatal. `predictor` keeps masks and schedules between calls.
CalibrationResult calibrate(const std::vector<Record>& records, const perf::HardwareProfile& base,
                            const CalibrationOptions& options, const RecordPredictor& predictor);

/// {"records", "outliers", "parameters": {name: value}, "standard_errors": {fitted name: value} (finite ones),
///  "residuals": ResidualStats, "inlier_residuals": ..., "note" where there is one}
nlohmann::json to_json(const GroupFit& fit);

}  // namespace lcab::calibrate
