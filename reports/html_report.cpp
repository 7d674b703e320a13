#include "reports/html_report.h"

#include <algorithm>

#include "reports/svg_canvas.h"

namespace lcab::report {
namespace {

const char* const kStyle = R"(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1640px;
       color: #222; background: #fff; padding: 0 16px; }
h1 { font-size: 24px; margin-bottom: 4px; }
h2 { font-size: 19px; margin-top: 36px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
p, li { font-size: 14px; line-height: 1.45; max-width: 1100px; }
.notes { color: #555; }
nav a { margin-right: 14px; font-size: 14px; }
.figures { display: flex; flex-wrap: wrap; gap: 18px; }
figure { margin: 0; border: 1px solid #e5e5e5; padding: 6px; }
figcaption { font-size: 12px; color: #555; max-width: 720px; margin-top: 4px; }
table { border-collapse: collapse; font-size: 12.5px; margin: 6px 0 4px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; }
th { background: #f3f3f3; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.files { font-size: 12px; color: #555; }
.scroll { max-height: 560px; overflow: auto; display: inline-block; max-width: 100%; }
)";

bool numeric_text(const std::string& s) {
  if (s.empty() || s == "-") return s == "-";
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == ',' || c == '-' || c == '+' || c == '%' || c == 'e';
  });
}

}  // namespace

std::string table_html(const Table& table) {
  std::vector<bool> numeric(table.columns().size(), !table.rows().empty());
  for (const auto& row : table.rows()) {
    for (size_t c = 0; c < row.size(); ++c) numeric[c] = numeric[c] && numeric_text(row[c]);
  }
  std::string html = "<table>\n<thead><tr>";
  for (const std::string& column : table.columns()) html += "<th>" + xml_escape(column) + "</th>";
  html += "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows()) {
    html += "<tr>";
    for (size_t c = 0; c < row.size(); ++c) {
      html += std::string(numeric[c] ? "<td class=\"num\">" : "<td>") + xml_escape(row[c]) + "</td>";
    }
    html += "</tr>\n";
  }
  return html + "</tbody>\n</table>\n";
}

std::string render_html(const ReportContent& report) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                     xml_escape(report.title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  html += "<h1>" + xml_escape(report.title) + "</h1>\n";
  if (!report.notes.empty()) {
    html += "<ul class=\"notes\">\n";
    for (const std::string& note : report.notes) html += "<li>" + xml_escape(note) + "</li>\n";
    html += "</ul>\n";
  }
  html += "<nav>";
  for (const ReportSection& s : report.sections) {
    html += "<a href=\"#" + xml_escape(s.id) + "\">" + xml_escape(s.title) + "</a>";
  }
  if (!report.traces.empty()) html += "<a href=\"#timelines\">Timelines</a>";
  html += "</nav>\n";
  for (const ReportSection& s : report.sections) {
    html += "<section id=\"" + xml_escape(s.id) + "\">\n<h2>" + xml_escape(s.title) + "</h2>\n";
    if (!s.intro.empty()) html += "<p>" + xml_escape(s.intro) + "</p>\n";
    if (!s.figures.empty()) {
      html += "<div class=\"figures\">\n";
      for (const Figure& f : s.figures) {
        html += "<figure id=\"fig-" + xml_escape(f.id) + "\">\n" + f.svg + "<figcaption>" + xml_escape(f.caption) +
                " <a href=\"" + xml_escape(f.id) + ".svg\">SVG</a></figcaption>\n</figure>\n";
      }
      html += "</div>\n";
    }
    for (const NamedTable& t : s.tables) {
      html += "<h3 id=\"table-" + xml_escape(t.id) + "\">" + xml_escape(t.title) + "</h3>\n";
      if (!t.caption.empty()) html += "<p>" + xml_escape(t.caption) + "</p>\n";
      if (t.table.rows().empty()) {
        html += "<p class=\"files\">No rows.</p>\n";
      } else {
        html += "<div class=\"scroll\">" + table_html(t.table) + "</div>\n";
      }
      html += "<p class=\"files\">Also as <a href=\"" + xml_escape(t.id) + ".md\">markdown</a> and <a href=\"" +
              xml_escape(t.id) + ".csv\">CSV</a>.</p>\n";
    }
    html += "</section>\n";
  }
  if (!report.traces.empty()) {
    html += "<section id=\"timelines\">\n<h2>Timelines</h2>\n<p>Chrome-trace JSON files: open them in "
            "chrome://tracing or https://ui.perfetto.dev (one process per rank, one thread per stream).</p>\n<ul>\n";
    for (const TraceFile& t : report.traces) {
      html += "<li><a href=\"" + xml_escape(t.id) + ".trace.json\">" + xml_escape(t.title) + "</a>" +
              (t.caption.empty() ? "" : ": " + xml_escape(t.caption)) + "</li>\n";
    }
    html += "</ul>\n</section>\n";
  }
  return html + "</body>\n</html>\n";
}

}  // namespace lcab::report
