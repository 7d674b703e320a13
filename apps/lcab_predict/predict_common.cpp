#include "apps/lcab_predict/predict_common.h"

#include <fstream>
#include <iostream>

#include "model/error.h"
#include "model/mask_spec.h"

namespace lcab::predict {

cp::Workload make_workload(const std::string& mask_spec, int64_t seqlen, const cli::WorkloadOptions& options,
                           int64_t heads, int64_t kv_heads, int64_t head_dim) {
  cp::Workload w;
  w.mask = std::make_shared<Mask>(make_mask(mask_spec, seqlen, kv_heads));
  w.batch = options.batch;
  w.heads = heads;
  w.kv_heads = kv_heads;
  w.head_dim = head_dim;
  return w;
}

std::vector<cp::Pass> parse_passes(const std::vector<std::string>& names) {
  std::vector<cp::Pass> passes;
  for (const std::string& n : names) passes.push_back(cp::parse_pass(n));
  return passes;
}

RecordSink::RecordSink(const cli::OutputOptions& out, int argc, const char* const* argv)
    : meta_(make_meta(argc, argv)) {
  if (!out.json_path.empty()) writer_ = std::make_unique<RecordWriter>(out.json_path);
}

void RecordSink::write(Record record) {
  if (!writer_) return;
  record.meta = meta_;
  writer_->write(record);
}

void print_table(const Table& table, const cli::OutputOptions& out) {
  const bool stdout_taken = out.json_path == "-" || out.csv_path == "-";
  if (!stdout_taken) table.print_markdown(std::cout);
  if (out.csv_path.empty()) return;
  if (out.csv_path == "-") {
    table.print_csv(std::cout);
    return;
  }
  std::ofstream csv(out.csv_path);
  LCAB_CHECK(csv.good(), "cannot write '" << out.csv_path << "'");
  table.print_csv(csv);
}

std::string format_ms(double us) { return format_fixed(us * 1e-3, 3); }

}  // namespace lcab::predict
