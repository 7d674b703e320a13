// lcab-report --in FILES... [--profile PROFILE] --out DIR: the report of DESIGN.md section 8.
#pragma once

#include <string>
#include <vector>

namespace lcab::report_app {

/// Parses the arguments after the program name, builds the report and writes it; returns the exit code.
/// Throws lcab::Error (and Boost option errors) on bad input; main() turns them into one line and exit code 1.
int run_report(const std::vector<std::string>& args);

}  // namespace lcab::report_app
