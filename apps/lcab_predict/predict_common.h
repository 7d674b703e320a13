// Pieces shared by the lcab-predict subcommands kernel, cp, plan and sweep: the workload from the shared
// options, the output of a table (markdown on stdout unless stdout carries JSON or CSV) and of records.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "apps/cli/common_options.h"
#include "model/cp/schedule.h"
#include "model/record.h"
#include "reports/table.h"

namespace lcab::predict {

/// A CP workload for one mask spec and sequence length with the first value of each shape option.
cp::Workload make_workload(const std::string& mask_spec, int64_t seqlen, const cli::WorkloadOptions& options,
                           int64_t heads, int64_t kv_heads, int64_t head_dim);

/// "fwd,bwd" -> passes.
std::vector<cp::Pass> parse_passes(const std::vector<std::string>& names);

/// Writes records as they are made (JSON Lines; nothing when no --json was given).
class RecordSink {
 public:
  RecordSink(const cli::OutputOptions& out, int argc, const char* const* argv);
  void write(Record record);

 private:
  std::unique_ptr<RecordWriter> writer_;
  nlohmann::json meta_;
};

/// Markdown on stdout unless --json - or --csv - took stdout; CSV to --csv.
void print_table(const Table& table, const cli::OutputOptions& out);

/// "12.345" ms from microseconds.
std::string format_ms(double us);

}  // namespace lcab::predict
