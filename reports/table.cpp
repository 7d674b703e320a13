#include "reports/table.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "model/error.h"

namespace lcab {

Table::Table(std::vector<std::string> columns) : columns_(std::move(columns)) {}

void Table::add_row(std::vector<std::string> cells) {
  LCAB_CHECK(cells.size() == columns_.size(),
             "table row has " << cells.size() << " cells but the table has " << columns_.size() << " columns");
  rows_.push_back(std::move(cells));
}

namespace {
bool looks_numeric(const std::string& text) {
  std::string_view s = text;
  if (s.size() > 2 && (s[0] == '>' || s[0] == '<') && s[1] == ' ') s.remove_prefix(2);  // a bound: "> 12.345"
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == ',' || c == '-' || c == '+' || c == 'e' || c == '%' ||
           c == 'x';
  });
}

/// A pipe inside a cell would end the cell: markdown wants it escaped.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}
}  // namespace

void Table::print_markdown(std::ostream& out) const {
  const std::vector<std::string> columns = [&] {
    std::vector<std::string> escaped;
    for (const std::string& c : columns_) escaped.push_back(markdown_cell(c));
    return escaped;
  }();
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : rows_) {
    std::vector<std::string> escaped;
    for (const std::string& cell : row) escaped.push_back(markdown_cell(cell));
    rows.push_back(std::move(escaped));
  }
  std::vector<size_t> width(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    width[c] = std::max<size_t>(3, columns[c].size());
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  std::vector<bool> numeric(columns.size(), true);
  for (size_t c = 0; c < columns.size(); ++c) {
    for (const auto& row : rows) numeric[c] = numeric[c] && (looks_numeric(row[c]) || row[c] == "-");
    if (rows.empty()) numeric[c] = false;
  }
  auto cell = [&](const std::string& text, size_t c) {
    const std::string pad(width[c] - text.size(), ' ');
    return numeric[c] ? pad + text : text + pad;
  };
  out << "|";
  for (size_t c = 0; c < columns.size(); ++c) out << " " << cell(columns[c], c) << " |";
  out << "\n|";
  for (size_t c = 0; c < columns.size(); ++c) {
    out << (numeric[c] ? " " + std::string(width[c] - 1, '-') + ":" : " " + std::string(width[c], '-')) << " |";
  }
  out << "\n";
  for (const auto& row : rows) {
    out << "|";
    for (size_t c = 0; c < columns.size(); ++c) out << " " << cell(row[c], c) << " |";
    out << "\n";
  }
}

void Table::print_csv(std::ostream& out) const {
  auto quote = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (size_t c = 0; c < columns_.size(); ++c) out << (c ? "," : "") << quote(columns_[c]);
  out << "\n";
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << quote(row[c]);
    out << "\n";
  }
}

std::string format_fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string format_count(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (size_t n = 0; n < digits.size(); ++n) {
    if (n && (digits.size() - n) % 3 == 0) out += ',';
    out += digits[n];
  }
  return value < 0 ? "-" + out : out;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  return u == 0 ? format_fixed(bytes, 0) + " B" : format_fixed(bytes, 2) + " " + units[u];
}

}  // namespace lcab
