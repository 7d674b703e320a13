#include "report_fixtures.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace lcab::report::testing {

std::vector<std::string> fixture_paths() {
  return {std::string(LCAB_REPORT_FIXTURES) + "/measured.jsonl", std::string(LCAB_REPORT_FIXTURES) + "/predicted.jsonl"};
}

std::vector<Record> fixture_records() {
  const RecordReadResult read = read_records(fixture_paths());
  EXPECT_TRUE(read.problems.empty());
  return read.records;
}

std::string scratch_directory() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("lcab_report_tests_" + std::string(info->test_suite_name()) + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace lcab::report::testing
