// Writes a report into a directory: index.html, one .svg per figure, .md and .csv per table, .trace.json per
// timeline. The directory is created when missing; files of the same names are overwritten.
#pragma once

#include <string>
#include <vector>

#include "reports/report_content.h"

namespace lcab::report {

/// Returns the paths written, index.html first. Throws lcab::Error when a file cannot be written.
std::vector<std::string> write_report(const ReportContent& report, const std::string& directory);

}  // namespace lcab::report
