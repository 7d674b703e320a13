// Test helpers: the fixture records under tests/reports/fixtures (synthetic numbers shaped like real
// measurements and predictions) and a scratch directory per test.
#pragma once

#include <string>
#include <vector>

#include "model/record.h"

namespace lcab::report::testing {

/// measured.jsonl then predicted.jsonl.
std::vector<std::string> fixture_paths();
std::vector<Record> fixture_records();
/// A fresh empty directory under the system temp directory, named after the running test.
std::string scratch_directory();
std::string read_file(const std::string& path);

}  // namespace lcab::report::testing
