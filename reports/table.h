// A small table type printed as a markdown table (stdout) or CSV (files), as GPU people expect from
// nccl-tests and nvbench: right-aligned numbers, a header row, units in column names.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace lcab {

class Table {
 public:
  explicit Table(std::vector<std::string> columns);
  /// Appends a row; it must have as many cells as there are columns.
  void add_row(std::vector<std::string> cells);
  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  void print_markdown(std::ostream& out) const;
  void print_csv(std::ostream& out) const;

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

/// Fixed-point text with `digits` decimals ("12.35").
std::string format_fixed(double value, int digits);
/// Integer with thousands separators ("1,234,567").
std::string format_count(int64_t value);
/// Bytes as "512 B", "4.00 KiB", "1.50 GiB".
std::string format_bytes(double bytes);

}  // namespace lcab
