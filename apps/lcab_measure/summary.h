// The markdown summaries lcab-measure prints on stdout (and as CSV with --csv).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "measure/kernel_sweep.h"
#include "model/record.h"
#include "reports/table.h"

namespace lcab::measure_app {

/// Writes `table` as markdown to stdout, and as CSV to csv_path ("-" for stdout instead of markdown).
void print_table(const Table& table, const std::string& csv_path);

/// One row per sweep point: this run's records (`results`, by key_id) or, for points an earlier run recorded,
/// the last record in out_path.
void print_kernel_summary(const std::vector<measure::KernelPoint>& points, const std::map<std::string, Record>& results,
                          const std::string& out_path, const std::string& csv_path);

}  // namespace lcab::measure_app
