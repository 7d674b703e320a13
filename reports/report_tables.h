// The report's tables (each also written as markdown and CSV): kernel and CP cases with measured and predicted
// times side by side, communication cases, the error summary of the model, and the ranked plan for one cluster.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/record_set.h"
#include "reports/table.h"

namespace lcab::report {

struct NamedTable {
  std::string id;       ///< file stem ("kernel-cases")
  std::string title;
  std::string caption;  ///< what the rows are and where numbers come from
  Table table;
};

/// Every kernel case (measured, predicted or both): times, TFLOP/s and the error of the prediction.
NamedTable kernel_table(const RecordSet& records);
/// Every CP case: times, per-GPU TFLOP/s, exposed communication and peak memory where known, error.
NamedTable cp_table(const RecordSet& records);
/// Every communication case: op, group, GPUs, size, times in us and bus bandwidth as nccl-tests writes them.
NamedTable comm_table(const RecordSet& records);
/// Per (kind, implementation or method, pass): cases, mean and median absolute error, worst error, bias, share
/// of cases within the band.
NamedTable error_summary_table(const std::vector<Comparison>& comparisons, double band_fraction);

/// Which cluster and workload the plan table ranks configurations for. Unset fields are chosen from the
/// predicted CP records: the (pass, mask, sequence length, GPUs) with the most predicted configurations, ties to
/// the most GPUs.
struct PlanSelection {
  std::optional<int64_t> gpus;
  std::optional<int64_t> gpus_per_node;
  std::optional<std::string> mask;
  std::optional<int64_t> seqlen;
  std::optional<std::string> pass;
};

/// Predicted CP configurations for the selection, fastest first, with the measured time where one exists.
/// nullopt when no predicted CP record matches.
std::optional<NamedTable> plan_table(const RecordSet& records, const PlanSelection& selection);
/// The selection plan_table uses once unset fields are filled (nullopt when no predicted CP record matches).
std::optional<PlanSelection> resolve_plan_selection(const RecordSet& records, const PlanSelection& selection);

/// "12.3%" with a sign for errors ("+4.0%", "-12.5%").
std::string format_percent(double fraction, bool with_sign);

}  // namespace lcab::report
