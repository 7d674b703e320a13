// Renders a report as one self-contained HTML page: inline CSS, figures as inline SVG, tables as HTML tables
// with links to their markdown and CSV files. No script, no external resource: it opens offline.
#pragma once

#include <string>

#include "reports/report_content.h"

namespace lcab::report {

std::string render_html(const ReportContent& report);

/// A Table as an HTML <table> (numeric-looking columns right-aligned), text escaped.
std::string table_html(const Table& table);

}  // namespace lcab::report
