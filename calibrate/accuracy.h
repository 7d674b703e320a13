// Model-versus-measurement points and their summaries per reporting group, shared by lcab-check (a profile
// against measurements) and lcab-calibrate's cross-validation (held-out predictions).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/residual_stats.h"
#include "model/record.h"
#include "reports/table.h"

namespace lcab::calibrate {

struct AccuracyPoint {
  Record measured;                     ///< the measured record
  std::optional<double> predicted_ms;  ///< empty when the model could not predict it
  std::string failure;                 ///< why not (empty when predicted)
  std::string fold;                    ///< cross-validation: the fold that held it out; empty for a plain check
  double measured_ms() const;
  /// Signed error in percent, (predicted - measured) / measured * 100; requires predicted_ms.
  double error_pct() const;
};

struct GroupAccuracy {
  std::string group;     ///< report_group() of its points
  int64_t points = 0;    ///< measured points in the group
  int64_t predicted = 0; ///< of which the model predicted
  ResidualStats stats;   ///< over the predicted ones
  std::string worst_point;  ///< describe_point() of the worst one
  std::string first_failure;  ///< the first reason a point could not be predicted, if any
};

/// One GroupAccuracy per report_group, in order of first appearance, then one "all <kind>" row per kind
/// ("all kernel", "all comm >= 1 MiB", "all cp") when a kind has more than one group. Comm points under 1 MiB
/// are summarized in their own groups and left out of "all comm >= 1 MiB" (they carry no target).
std::vector<GroupAccuracy> summarize_accuracy(const std::vector<AccuracyPoint>& points);

/// | group | points | predicted | MAPE % | p90 % | worst % | bias % | worst point |
Table accuracy_table(const std::vector<GroupAccuracy>& groups);

/// | point | fold | measured ms | predicted ms | error % | (fold only when some point has one)
Table point_table(const std::vector<AccuracyPoint>& points);

}  // namespace lcab::calibrate
