// The measurements lcab-measure and the PyTorch peers committed under data/measurements/ read back as records
// (the schema both writers follow), with measured kernel records holding what calibration needs.
#include <filesystem>

#include <gtest/gtest.h>

#include "model/record.h"

namespace lcab {
namespace {

namespace fs = std::filesystem;

TEST(CommittedRecords, MeasureAndPeerFilesParseCompletely) {
  const fs::path folder = fs::path(LCAB_SOURCE_DIR) / "data" / "measurements" / "h100";
  if (!fs::exists(folder)) GTEST_SKIP() << "no committed measurements";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("lcab-measure-", 0) != 0 && name.rfind("torch-peers", 0) != 0) continue;
    ++files;
    const RecordReadResult read = read_records(entry.path().string());
    EXPECT_TRUE(read.problems.empty()) << name << ": " << read.problems.front();
    EXPECT_FALSE(read.records.empty()) << name;
    for (const Record& r : read.records) {
      EXPECT_EQ(r.source, "measured") << name;
      ASSERT_TRUE(r.device) << name;
      if (r.status != "ok") {
        EXPECT_FALSE(r.error.empty()) << name << " " << key_id(r.key);
        continue;
      }
      ASSERT_TRUE(r.time_ms) << name << " " << key_id(r.key);
      EXPECT_GT(r.time_ms->median, 0);
      EXPECT_LE(r.time_ms->p20, r.time_ms->median);
      EXPECT_GE(r.time_ms->p80, r.time_ms->median);
      if (r.kind == "kernel") {
        EXPECT_TRUE(r.tflops && r.flops && r.area) << name << " " << key_id(r.key);
        EXPECT_NEAR(*r.tflops, *r.flops / (r.time_ms->median * 1e-3) / 1e12, 1e-6 * *r.tflops);
      }
    }
  }
  EXPECT_GT(files, 0);
}

}  // namespace
}  // namespace lcab
