#include "model/record.h"

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "model/error.h"

namespace lcab {
namespace {

Record sample_record() {
  Record r;
  r.source = "measured";
  r.kind = "cp";
  r.key.impl = "lcab_flash";
  r.key.pass = "bwd";
  r.key.mask = "causal_document:dist=pile,seed=3";
  r.key.seqlen = 131072;
  r.key.heads = 64;
  r.key.kv_heads = 8;
  r.key.head_dim = 128;
  r.key.dtype = "bf16";
  r.key.method = "usp";
  r.key.gpus = 16;
  r.key.degrees = {{"ulysses", 4}, {"ring", 4}};
  r.key.placement = "ulysses_intra";
  r.time_ms = TimeStatsMs{12.5, 12.0, 13.25};
  r.tflops = 456.5;
  r.area = 1.5e9;
  r.flops = 3.0e14;
  r.peak_mem_bytes = 123456789;
  r.breakdown = Breakdown{10.0, 4.0, 1.5, {12.5, 12.1}};
  r.device = DeviceInfo{"NVIDIA H200", 132, "580.159.04"};
  r.meta = make_meta(0, nullptr);
  r.extra["kernels"] = nlohmann::json::array({{{"name", "k"}, {"ms", 1.0}}});
  return r;
}

TEST(Record, RoundTripKeepsEveryFieldAndUnknownOnes) {
  const Record r = sample_record();
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["schema"], kRecordSchema);
  const Record back = record_from_json(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.key, r.key);
  EXPECT_EQ(key_id(back.key), key_id(r.key));
}

TEST(Record, KeyIdIgnoresFieldOrderButNotValues) {
  RecordKey a, b;
  a.impl = "x";
  a.seqlen = 4;
  b.seqlen = 4;
  b.impl = "x";
  EXPECT_EQ(key_id(a), key_id(b));
  b.seqlen = 5;
  EXPECT_NE(key_id(a), key_id(b));
}

TEST(Record, RejectsBadRecords) {
  nlohmann::json j = to_json(sample_record());
  j["schema"] = "other/1";
  EXPECT_THROW(record_from_json(j), Error);
  j = to_json(sample_record());
  j["status"] = "fine";
  EXPECT_THROW(record_from_json(j), Error);
  j = to_json(sample_record());
  j["key"]["seqlen"] = "long";
  EXPECT_THROW(record_from_json(j), Error);
  j = to_json(sample_record());
  j.erase("key");
  EXPECT_THROW(record_from_json(j), Error);
}

TEST(Record, ReaderKeepsGoodLinesAndReportsBadOnesWithLineNumbers) {
  const std::string path = ::testing::TempDir() + "lcab_records_test.jsonl";
  std::remove(path.c_str());
  {
    RecordWriter w(path);
    w.write(sample_record());
  }
  {
    std::ofstream out(path, std::ios::app);
    out << "{not json\n\n{\"schema\":\"lcab.record/1\",\"source\":\"measured\"}\n";
  }
  {
    RecordWriter w(path);
    w.write(sample_record());
  }
  const RecordReadResult result = read_records(path);
  EXPECT_EQ(result.records.size(), 2u);
  ASSERT_EQ(result.problems.size(), 2u);
  EXPECT_NE(result.problems[0].find(":2:"), std::string::npos) << result.problems[0];
  EXPECT_NE(result.problems[1].find(":4:"), std::string::npos) << result.problems[1];
  EXPECT_THROW(read_records(path + ".missing"), Error);
}

TEST(Record, MetaHasVersionShaTimeAndArgv) {
  const char* argv[] = {"lcab-measure", "kernel"};
  const nlohmann::json meta = make_meta(2, argv);
  EXPECT_TRUE(meta.contains("lcab_version"));
  EXPECT_TRUE(meta.contains("git_sha"));
  EXPECT_EQ(meta["argv"][1], "kernel");
  EXPECT_EQ(meta["time"].get<std::string>().size(), 20u);
}

}  // namespace
}  // namespace lcab
