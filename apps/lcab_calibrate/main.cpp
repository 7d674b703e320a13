// lcab-calibrate: fit the performance model's parameters to measured records and write a calibrated profile;
// with --holdout, also cross-validate (fit without each held-out part, predict it) and print the accuracy.
//
//   lcab-calibrate --in FILES... --out PROFILE.json [--base PROFILE] [--holdout seqlen|mask|kfold[:K]]
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "apps/cli/common_options.h"
#include "calibrate/accuracy.h"
#include "calibrate/base_profile.h"
#include "calibrate/calibration.h"
#include "calibrate/cross_validation.h"
#include "calibrate/holdout.h"
#include "calibrate/measurements.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "reports/table.h"

namespace {

using namespace lcab;
using namespace lcab::calibrate;

std::string significant_digits(double value, int digits) {
  std::ostringstream out;
  out << std::setprecision(digits) << value;
  return out.str();
}

void print_fits(const CalibrationResult& result) {
  Table table({"group", "records", "outliers", "MAPE %", "p90 %", "worst %", "parameters", "standard errors"});
  for (const GroupFit& fit : result.fits) {
    std::vector<std::string> parameters;
    for (size_t n = 0; n < fit.parameter_names.size(); ++n) {
      const double v = fit.parameter_values[n];
      parameters.push_back(fit.parameter_names[n] + "=" +
                           (fit.parameter_names[n].ends_with("bytes_per_s") ? format_fixed(v / 1e9, 1) + "e9"
                                                                    : format_fixed(v, 4)));
    }
    // Under the names and in the units the parameters were fitted in (e.g. overlap_slowdown_minus_1, us_per_byte).
    std::vector<std::string> errors;
    for (size_t n = 0; n < fit.standard_errors.size(); ++n) {
      const auto& [name, error] = fit.standard_errors[n];
      errors.push_back(name + "=" + (std::isfinite(error) ? significant_digits(error, 3) : std::string("undetermined")));
    }
    table.add_row({fit.group, std::to_string(fit.records), std::to_string(fit.outliers),
                   format_fixed(fit.stats.mape_pct, 2), format_fixed(fit.stats.p90_pct, 2),
                   format_fixed(fit.stats.worst_pct, 2), join(parameters, " "), join(errors, " ")});
  }
  std::cout << "## Fitted groups (in-sample)\n\n";
  table.print_markdown(std::cout);
  if (!result.failures.empty()) {
    std::cout << "\n## Not fitted (the base profile's values stay)\n\n";
    Table failures({"group", "reason"});
    for (const GroupFailure& f : result.failures) failures.add_row({f.group, f.reason});
    failures.print_markdown(std::cout);
  }
}

int run(int argc, char** argv) {
  namespace po = boost::program_options;
  std::vector<std::string> inputs;
  std::string out_path, base_name, holdout_text, loss_name = "tukey", profile_name;
  int64_t comm_min_bytes = kCommTargetMinBytes;
  bool allow_unfitted = false, show_points = false;
  po::options_description desc("lcab-calibrate");
  desc.add_options()
      ("in", po::value(&inputs)->multitoken()->required(), "measured record files (JSON Lines), one or more")
      ("out", po::value(&out_path), "write the calibrated profile (JSON) here")
      ("base", po::value(&base_name), "profile to start from: built-in name or file (default: from the records' GPU)")
      ("name", po::value(&profile_name), "name of the calibrated profile (default: <base>.calibrated)")
      ("holdout", po::value(&holdout_text), "cross-validate: seqlen | mask | kfold | kfold:K")
      ("points", po::bool_switch(&show_points), "with --holdout: also list every held-out point")
      ("loss", po::value(&loss_name)->default_value(loss_name), "robust loss: least_squares | huber | tukey")
      ("comm-min-bytes", po::value(&comm_min_bytes)->default_value(comm_min_bytes),
       "smallest message used for the communication fit")
      ("allow-unfitted", po::bool_switch(&allow_unfitted),
       "write the profile even when some groups could not be fitted (they keep the base values)");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!cli::parse_or_help(args, desc,
                          "lcab-calibrate --in FILES... --out PROFILE.json [--base PROFILE] "
                          "[--holdout seqlen|mask|kfold[:K]]"))
    return 0;
  LCAB_CHECK(!out_path.empty() || !holdout_text.empty(), "give --out PROFILE.json, --holdout, or both");

  const RecordReadResult read = read_records(inputs);
  for (const std::string& problem : read.problems) std::cerr << "lcab-calibrate: skipped " << problem << "\n";
  std::vector<Record> usable;
  std::vector<std::string> left_out;
  for (const char* kind : {"kernel", "comm", "cp"}) {
    const std::vector<Record> of_kind = usable_measurements(read.records, kind, &left_out);
    usable.insert(usable.end(), of_kind.begin(), of_kind.end());
  }
  LCAB_CHECK(!usable.empty(), "no usable measured records (kind kernel, comm or cp with status ok and a time) in "
                                  << join(inputs));
  const perf::HardwareProfile base = choose_base_profile(base_name, usable);

  CalibrationOptions options;
  options.fit.robust.loss = parse_robust_loss(loss_name);
  options.comm_min_bytes = comm_min_bytes;
  options.input_files = inputs;
  options.profile_name = profile_name;
  const RecordPredictor predictor;

  std::cout << "# lcab-calibrate: " << usable.size() << " measured records from " << inputs.size()
            << " file(s), base profile '" << base.name << "'\n\n";
  const CalibrationResult result = calibrate::calibrate(usable, base, options, predictor);
  print_fits(result);
  if (!left_out.empty()) {
    std::cout << "\n## Measured records left out (" << left_out.size() << ")\n\n";
    for (const std::string& line : left_out) std::cout << "- " << line << "\n";
  }

  int status = 0;
  if (!out_path.empty()) {
    if (result.failures.empty() || allow_unfitted) {
      perf::save_profile(result.profile, out_path);
      std::cout << "\nwrote " << out_path << "\n";
    } else {
      std::cerr << "lcab-calibrate: error: " << result.failures.size()
                << " group(s) could not be fitted (listed above); nothing written. Measure what they name, or "
                   "pass --allow-unfitted to keep the base values for them\n";
      status = 1;
    }
  }

  if (!holdout_text.empty()) {
    const HoldoutSpec holdout = parse_holdout(holdout_text);
    const std::vector<AccuracyPoint> points = cross_validate(usable, holdout, base, options, predictor);
    std::cout << "\n## Cross-validation (--holdout " << to_string(holdout) << "): held-out accuracy\n\n";
    accuracy_table(summarize_accuracy(points)).print_markdown(std::cout);
    if (show_points) {
      std::cout << "\n";
      point_table(points).print_markdown(std::cout);
    }
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "lcab-calibrate: error: " << e.what() << "\n";
    return 1;
  }
}
