// Builds a report's content from records and, optionally, the performance model.
//
// From records alone: every figure and table the records support (predicted records in the inputs, such as
// `lcab-predict ... --json` output, give the predicted lines, the accuracy figure and the plan table).
// With a Predictor: every measured case is predicted (replacing predicted records of the same case from the
// inputs), kernel lines are extended over powers of two from the shortest measured sequence to 4x the longest,
// CP lines over powers of two GPU counts up to at least 64, the plan table comes from the model's planner, and
// predicted timelines are written (side by side with measured traces given in the options).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/record.h"
#include "reports/predictor.h"
#include "reports/report_content.h"
#include "reports/report_tables.h"

namespace lcab::report {

struct ReportOptions {
  std::string title = "lcab report";
  std::vector<std::string> input_paths;  ///< for the notes
  double band_fraction = 0.2;            ///< the accuracy figure's band and the error table's "within" column
  PlanSelection plan;                    ///< cluster and workload of the plan table
  /// Measured CP timelines (Chrome-trace JSON, as lcab-measure writes them). When the trace's otherData holds
  /// the record key ("key") and a Predictor is given, the predicted timeline of the same case is put beside it.
  std::vector<std::string> measured_trace_paths;
  int64_t max_predicted_seqlen = 4 * 1048576;  ///< extension of kernel lines stops here
  int64_t min_predicted_gpus_reach = 64;        ///< CP lines reach at least this many GPUs
};

/// `predictor` may be null (records only). Throws lcab::Error on a bad option (band outside (0, 1)).
ReportContent build_report(const std::vector<Record>& records, const ReportOptions& options,
                           const Predictor* predictor);

}  // namespace lcab::report
