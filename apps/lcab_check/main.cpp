// lcab-check: the model against measurements. For every measured record, the model's prediction for the same
// key (kernel: the kernel cost model; comm: the communication model; cp: the CP simulator), each point's error,
// a summary per group, and a non-zero exit when a group's MAPE exceeds --max-mape.
//
//   lcab-check --profile PROFILE.json --in FILES... [--max-mape PCT] [--json PREDICTED.jsonl]
//   lcab-check --profile PROFILE.json --inputs-from-profile [--root DIR] ...   (the files it was calibrated on)
//   lcab-check ... --calibrated-only --regression-margin PTS   (CI: each fitted group no worse than when fitted)
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "apps/cli/common_options.h"
#include "calibrate/accuracy.h"
#include "calibrate/calibration.h"
#include "calibrate/measurements.h"
#include "calibrate/record_prediction.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "model/perf/profile.h"
#include "reports/table.h"

namespace {

using namespace lcab;
using namespace lcab::calibrate;

/// Per fit group of the profile's calibration: today's MAPE against the one recorded when it was fitted.
/// Returns the number of groups that got worse by more than margin_pct points (or lost predictions).
int check_regression(const perf::HardwareProfile& profile, const std::vector<AccuracyPoint>& points,
                     double margin_pct) {
  const nlohmann::json& recorded = profile.provenance.residuals;
  LCAB_CHECK(!recorded.empty(), "--regression-margin: profile '" << profile.name
                                                                 << "' records no fitted groups (not calibrated)");
  Table table({"fit group", "points", "MAPE % at fit", "MAPE % now", "limit %", "status"});
  int violations = 0;
  for (const auto& [group, fit] : recorded.items()) {
    std::vector<double> predicted, measured;
    int64_t unpredicted = 0;
    for (const AccuracyPoint& point : points) {
      if (fit_group(point.measured, profile) != group) continue;
      // The communication fit uses messages from 1 MiB on (lcab-calibrate's default): compare like with like.
      if (point.measured.kind == "comm" && point.measured.key.bytes.value_or(0) < kCommTargetMinBytes) continue;
      if (!point.predicted_ms) {
        ++unpredicted;
        continue;
      }
      predicted.push_back(*point.predicted_ms);
      measured.push_back(point.measured_ms());
    }
    if (predicted.empty() && unpredicted == 0) continue;  // the inputs do not cover this group
    const double at_fit = fit.at("residuals").at("mape_pct").get<double>();
    const double now = residual_stats(predicted, measured).mape_pct;
    const double limit = at_fit + margin_pct;
    const bool ok = unpredicted == 0 && now <= limit;
    violations += ok ? 0 : 1;
    table.add_row({group, std::to_string(predicted.size() + static_cast<size_t>(unpredicted)), format_fixed(at_fit, 2),
                   format_fixed(now, 2), format_fixed(limit, 2),
                   ok ? "ok" : (unpredicted > 0 ? std::to_string(unpredicted) + " not predicted" : "WORSE")});
  }
  std::cout << "\n## Regression against the calibration (margin " << format_fixed(margin_pct, 2) << " points)\n\n";
  table.print_markdown(std::cout);
  if (violations > 0) std::cerr << "lcab-check: " << violations << " fitted group(s) got worse than at calibration\n";
  return violations;
}

int run(int argc, char** argv) {
  namespace po = boost::program_options;
  std::vector<std::string> inputs;
  std::string profile_name, json_path, root = ".";
  bool inputs_from_profile = false;
  double max_mape_pct = -1;
  double regression_margin_pct = -1;
  bool summary_only = false, calibrated_only = false;
  po::options_description desc("lcab-check");
  desc.add_options()
      ("profile", po::value(&profile_name)->required(), "profile: built-in name or file")
      ("in", po::value(&inputs)->multitoken(), "measured record files (JSON Lines)")
      ("inputs-from-profile", po::bool_switch(&inputs_from_profile),
       "also read the files the profile was calibrated on (its provenance.inputs)")
      ("root", po::value(&root)->default_value(root), "directory that relative provenance inputs start from")
      ("max-mape", po::value(&max_mape_pct),
       "fail (exit 1) when a group's MAPE exceeds PCT percent, or a point cannot be predicted (comm < 1 MiB "
       "is reported, not checked)")
      ("calibrated-only", po::bool_switch(&calibrated_only),
       "check only records of the groups the profile's calibration fitted (its provenance.residuals)")
      ("regression-margin", po::value(&regression_margin_pct),
       "fail (exit 1) when a fitted group's MAPE exceeds the MAPE recorded at calibration by more than PTS "
       "percentage points")
      ("summary-only", po::bool_switch(&summary_only), "print the summary without the per-point table")
      ("json", po::value(&json_path), "append the predicted records (same keys) as JSON Lines to FILE");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!cli::parse_or_help(args, desc, "lcab-check --profile PROFILE.json --in FILES... [--max-mape PCT]")) return 0;

  const perf::HardwareProfile profile = perf::resolve_profile(profile_name);
  if (inputs_from_profile) {
    LCAB_CHECK(!profile.provenance.inputs.empty(),
               "--inputs-from-profile: profile '" << profile.name << "' lists no input files (it is a "
                                                  << profile.provenance.kind << " profile)");
    for (const std::string& input : profile.provenance.inputs)
      inputs.push_back(input.starts_with("/") ? input : root + "/" + input);
  }
  LCAB_CHECK(!inputs.empty(), "give measured record files with --in, or --inputs-from-profile");
  const RecordReadResult read = read_records(inputs);
  for (const std::string& problem : read.problems) std::cerr << "lcab-check: skipped " << problem << "\n";
  std::unique_ptr<RecordWriter> writer;
  if (!json_path.empty()) writer = std::make_unique<RecordWriter>(json_path);
  const nlohmann::json meta = make_meta(argc, argv);

  const RecordPredictor predictor;
  std::vector<AccuracyPoint> points;
  for (const char* kind : {"kernel", "comm", "cp"}) {
    for (const Record& record : usable_measurements(read.records, kind)) {
      if (calibrated_only && !profile.provenance.residuals.contains(fit_group(record, profile))) continue;
      AccuracyPoint point;
      point.measured = record;
      try {
        point.predicted_ms = predictor.predict_ms(profile, record);
      } catch (const Error& e) {
        point.failure = e.what();
      }
      if (writer && point.predicted_ms) {
        Record predicted;
        predicted.source = "predicted";
        predicted.kind = record.kind;
        predicted.key = record.key;
        predicted.time_ms = TimeStatsMs{*point.predicted_ms, *point.predicted_ms, *point.predicted_ms};
        predicted.meta = meta;
        predicted.meta["profile"] = profile.name;
        writer->write(predicted);
      }
      points.push_back(std::move(point));
    }
  }
  LCAB_CHECK(!points.empty(), "no usable measured records (kind kernel, comm or cp with status ok) in " << join(inputs));

  std::cout << "# lcab-check: profile '" << profile.name << "' (" << profile.provenance.kind << ") against "
            << points.size() << " measured records\n\n";
  if (!summary_only) {
    point_table(points).print_markdown(std::cout);
    std::cout << "\n";
  }
  const std::vector<GroupAccuracy> groups = summarize_accuracy(points);
  accuracy_table(groups).print_markdown(std::cout);

  int violations = 0;
  if (regression_margin_pct >= 0) violations += check_regression(profile, points, regression_margin_pct);
  if (max_mape_pct < 0) return violations > 0 ? 1 : 0;

  for (const GroupAccuracy& g : groups) {
    if (g.group.ends_with("< 1 MiB")) continue;  // no accuracy target below 1 MiB
    if (g.predicted < g.points) {
      std::cerr << "lcab-check: " << g.group << ": " << (g.points - g.predicted) << " point(s) not predicted ("
                << g.first_failure << ")\n";
      ++violations;
    } else if (g.stats.mape_pct > max_mape_pct) {
      std::cerr << "lcab-check: " << g.group << ": MAPE " << format_fixed(g.stats.mape_pct, 2) << "% exceeds "
                << format_fixed(max_mape_pct, 2) << "%\n";
      ++violations;
    }
  }
  if (violations > 0) return 1;
  std::cout << "\nevery group within MAPE " << format_fixed(max_mape_pct, 2) << "%\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "lcab-check: error: " << e.what() << "\n";
    return 1;
  }
}
