#include "apps/lcab_measure/summary.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "measure/kernel_record.h"
#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::measure_app {

void print_table(const Table& table, const std::string& csv_path) {
  if (csv_path != "-") table.print_markdown(std::cout);
  if (csv_path.empty()) return;
  if (csv_path == "-") {
    table.print_csv(std::cout);
    return;
  }
  std::ofstream csv(csv_path);
  LCAB_CHECK(csv.good(), "cannot write '" << csv_path << "'");
  table.print_csv(csv);
}

void print_kernel_summary(const std::vector<measure::KernelPoint>& points, const std::map<std::string, Record>& results,
                          const std::string& out_path, const std::string& csv_path) {
  std::map<std::string, Record> records;
  if (!out_path.empty() && std::filesystem::exists(out_path)) {
    for (Record& r : read_records(out_path).records) {
      if (r.kind == "kernel") records[key_id(r.key)] = std::move(r);
    }
  }
  for (const auto& [id, record] : results) records[id] = record;
  Table table({"impl", "pass", "mask", "seqlen", "heads", "hd", "dtype", "status", "median ms", "p20 ms", "p80 ms",
               "TFLOP/s", "SM MHz", "kernels", "peak mem"});
  for (const measure::KernelPoint& p : points) {
    auto it = records.find(key_id(p.key()));
    std::vector<std::string> row = {p.impl, p.pass, p.mask, format_tokens(p.seqlen),
                                    std::to_string(p.heads) + "/" + std::to_string(p.kv_heads),
                                    std::to_string(p.head_dim), p.dtype};
    if (it == records.end()) {
      row.insert(row.end(), {"not run", "", "", "", "", "", "", ""});
    } else {
      const Record& r = it->second;
      row.push_back(r.status);
      row.push_back(r.time_ms ? format_fixed(r.time_ms->median, 3) : "");
      row.push_back(r.time_ms ? format_fixed(r.time_ms->p20, 3) : "");
      row.push_back(r.time_ms ? format_fixed(r.time_ms->p80, 3) : "");
      row.push_back(r.tflops ? format_fixed(*r.tflops, 1) : "");
      // The SM clock the repetitions ran at (median): two cells of one table compare per cycle (README, *Clocks*).
      const std::optional<double> mhz = measure::record_sm_clock_mhz(r);
      row.push_back(mhz ? format_fixed(*mhz, 0) : "");
      row.push_back(r.extra.contains("kernels") ? std::to_string(r.extra["kernels"].size()) : "");
      row.push_back(r.peak_mem_bytes ? format_bytes(static_cast<double>(*r.peak_mem_bytes)) : "");
    }
    table.add_row(std::move(row));
  }
  print_table(table, csv_path);
}

}  // namespace lcab::measure_app
