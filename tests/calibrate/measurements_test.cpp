#include "calibrate/measurements.h"

#include <gtest/gtest.h>

namespace lcab::calibrate {
namespace {

Record kernel_record(const std::string& mask, double median_ms, const std::string& git_sha) {
  Record r;
  r.source = "measured";
  r.kind = "kernel";
  r.status = "ok";
  r.key.impl = "lcab_flash";
  r.key.pass = "bwd";
  r.key.mask = mask;
  r.key.seqlen = 16384;
  r.time_ms = TimeStatsMs{median_ms, median_ms, median_ms};
  r.meta["git_sha"] = git_sha;
  return r;
}

TEST(UsableMeasurements, ALaterRecordOfTheSameKeySupersedesTheEarlierOne) {
  const std::vector<Record> records = {kernel_record("full", 50.0, "old"), kernel_record("causal", 25.0, "old"),
                                       kernel_record("full", 44.0, "new")};
  std::vector<std::string> skipped;
  const std::vector<Record> usable = usable_measurements(records, "kernel", &skipped);
  ASSERT_EQ(usable.size(), 2u);
  EXPECT_EQ(usable[0].key.mask, "causal");
  EXPECT_EQ(usable[1].key.mask, "full");
  EXPECT_DOUBLE_EQ(measured_time_ms(usable[1]), 44.0);
  EXPECT_EQ(usable[1].meta["git_sha"], "new");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("superseded"), std::string::npos) << skipped[0];
}

TEST(UsableMeasurements, DifferentKeysAreAllKept) {
  const std::vector<Record> records = {kernel_record("full", 50.0, "a"), kernel_record("causal", 25.0, "a")};
  EXPECT_EQ(usable_measurements(records, "kernel").size(), 2u);
}

}  // namespace
}  // namespace lcab::calibrate
