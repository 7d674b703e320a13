#include "model/record.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

#include "model/error.h"
#include "model/line_reader.h"

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

// Writes `text` gzip-compressed to `path` (as `gzip -9n` stores the committed measurement files).
void write_gzip(const std::string& path, const std::string& text, size_t keep_bytes = std::string::npos) {
  gzFile f = gzopen(path.c_str(), "wb9");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
  if (keep_bytes == std::string::npos) return;
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, keep_bytes);
}

TEST(Record, CompressedFileReadsLikePlainAndAPlainPathFallsBackToIt) {
  const std::string plain = ::testing::TempDir() + "lcab_records_gz_test.jsonl";
  std::remove(plain.c_str());
  std::remove((plain + ".gz").c_str());
  {
    RecordWriter w(plain);
    for (int n = 0; n < 3; ++n) w.write(sample_record());
  }
  std::ifstream in(plain);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  write_gzip(plain + ".gz", text + "{not json\n");
  const RecordReadResult from_plain = read_records(plain);
  const RecordReadResult from_gz = read_records(plain + ".gz");
  ASSERT_EQ(from_plain.records.size(), 3u);
  ASSERT_EQ(from_gz.records.size(), 3u);
  EXPECT_EQ(key_id(from_gz.records[2].key), key_id(from_plain.records[2].key));
  ASSERT_EQ(from_gz.problems.size(), 1u);  // the last line, without '\n', is read and reported with its number
  EXPECT_NE(from_gz.problems[0].find(".jsonl.gz:4:"), std::string::npos) << from_gz.problems[0];
  // Asked for by its plain name (a README command, a profile's provenance), the compressed file is read.
  std::remove(plain.c_str());
  EXPECT_EQ(stored_path(plain), plain + ".gz");
  EXPECT_EQ(read_records(plain).records.size(), 3u);
  // Writers refuse compressed files: appending to one would corrupt it, appending beside one would hide it.
  EXPECT_THROW(RecordWriter(plain + ".gz"), Error);
  EXPECT_THROW(RecordWriter{plain}, Error);
  // A truncated compressed file is an error, not a shorter file.
  write_gzip(plain + ".gz", text, 40);
  EXPECT_THROW(read_records(plain), Error);
  std::remove((plain + ".gz").c_str());
  EXPECT_EQ(stored_path(plain), plain);
  EXPECT_THROW(read_records(plain), Error);
}

TEST(Record, LineReaderReadsLinesLongerThanItsChunk) {
  const std::string path = ::testing::TempDir() + "lcab_long_lines_test.txt.gz";
  const std::string long_line(100000, 'x');
  write_gzip(path, "a\n" + long_line + "\n\nb");
  LineReader reader(path);
  std::string line;
  std::vector<std::string> lines;
  while (reader.next(line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], long_line);
  EXPECT_EQ(lines[2], "");
  EXPECT_EQ(lines[3], "b");
  std::remove(path.c_str());
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
