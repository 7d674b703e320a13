#include "calibrate/holdout.h"

#include <gtest/gtest.h>

#include <set>

#include "calibrate/accuracy.h"
#include "model/error.h"

namespace lcab::calibrate {
namespace {

Record kernel_record(const std::string& mask, int64_t seqlen) {
  Record record;
  record.kind = "kernel";
  record.key.impl = "lcab_flash";
  record.key.pass = "fwd";
  record.key.mask = mask;
  record.key.seqlen = seqlen;
  record.time_ms = TimeStatsMs{1.0, 1.0, 1.0};
  return record;
}

Record comm_record(int64_t bytes) {
  Record record;
  record.kind = "comm";
  record.key.op = "all_gather";
  record.key.bytes = bytes;
  record.time_ms = TimeStatsMs{1.0, 1.0, 1.0};
  return record;
}

TEST(Holdout, Parse) {
  EXPECT_EQ(parse_holdout("seqlen").kind, HoldoutKind::kSeqlen);
  EXPECT_EQ(parse_holdout("mask").kind, HoldoutKind::kMask);
  EXPECT_EQ(parse_holdout("kfold").folds, 5);
  EXPECT_EQ(parse_holdout("kfold:10").folds, 10);
  EXPECT_EQ(to_string(parse_holdout("kfold:3")), "kfold:3");
  for (const char* bad : {"kfold:1", "kfold:x", "random", ""}) EXPECT_THROW(parse_holdout(bad), Error) << bad;
}

TEST(Holdout, SeqlenFoldsHoldOutOneLengthEach) {
  const std::vector<Record> records = {kernel_record("causal", 1024), kernel_record("full", 1024),
                                       kernel_record("causal", 4096), comm_record(1 << 20)};
  const FoldAssignment folds = assign_folds(records, parse_holdout("seqlen"));
  EXPECT_EQ(folds.fold_names, (std::vector<std::string>{"S=1K", "S=4K", "1048576 B"}));
  EXPECT_EQ(folds.fold_of_record, (std::vector<int>{0, 0, 1, 2}));
}

TEST(Holdout, MaskFoldsLeaveRecordsWithoutAMaskInTraining) {
  const std::vector<Record> records = {kernel_record("causal", 1024), kernel_record("full", 1024),
                                       kernel_record("causal", 4096), comm_record(1 << 20)};
  const FoldAssignment folds = assign_folds(records, parse_holdout("mask"));
  EXPECT_EQ(folds.fold_names, (std::vector<std::string>{"causal", "full"}));
  EXPECT_EQ(folds.fold_of_record, (std::vector<int>{0, 1, 0, -1}));
}

TEST(Holdout, KFoldIsStableAndRoughlyBalanced) {
  std::vector<Record> records;
  for (int64_t s = 1; s <= 1000; ++s) records.push_back(kernel_record("causal", s * 1024));
  const FoldAssignment a = assign_folds(records, parse_holdout("kfold:4"));
  const FoldAssignment b = assign_folds(records, parse_holdout("kfold:4"));
  EXPECT_EQ(a.fold_of_record, b.fold_of_record);
  std::vector<int> sizes(4, 0);
  for (int f : a.fold_of_record) ++sizes.at(static_cast<size_t>(f));
  for (int size : sizes) EXPECT_TRUE(size > 200 && size < 300) << size;
  // Not simply input order.
  std::vector<int> round_robin;
  for (int n = 0; n < 1000; ++n) round_robin.push_back(n % 4);
  EXPECT_NE(a.fold_of_record, round_robin);
}

TEST(Holdout, KFoldOfAKeyDoesNotDependOnTheOtherRecords) {
  std::vector<Record> records;
  for (int64_t s = 1; s <= 40; ++s) records.push_back(kernel_record("causal", s * 1024));
  const FoldAssignment alone = assign_folds(records, parse_holdout("kfold:5"));
  // Other groups' records added before and after (a new input file) leave every existing record's fold.
  std::vector<Record> more;
  for (int64_t s = 1; s <= 30; ++s) more.push_back(kernel_record("full", s * 4096));
  more.insert(more.end(), records.begin(), records.end());
  for (int64_t s = 1; s <= 30; ++s) more.push_back(comm_record(s << 20));
  const FoldAssignment mixed = assign_folds(more, parse_holdout("kfold:5"));
  for (size_t n = 0; n < records.size(); ++n) EXPECT_EQ(mixed.fold_of_record[30 + n], alone.fold_of_record[n]) << n;
}

TEST(Accuracy, SummaryPerGroupAndTotals) {
  std::vector<AccuracyPoint> points;
  auto add = [&](Record record, std::optional<double> predicted) {
    AccuracyPoint p;
    p.measured = std::move(record);
    p.predicted_ms = predicted;
    if (!predicted) p.failure = "not fitted";
    points.push_back(p);
  };
  add(kernel_record("causal", 1024), 1.1);
  add(kernel_record("full", 1024), 0.95);
  Record bwd = kernel_record("full", 2048);
  bwd.key.pass = "bwd";
  add(bwd, std::nullopt);
  add(comm_record(1 << 20), 1.02);
  add(comm_record(1 << 10), 3.0);  // small message: its own group, not in the comm total
  const std::vector<GroupAccuracy> summary = summarize_accuracy(points);
  ASSERT_EQ(summary.size(), 5u);
  EXPECT_EQ(summary[0].group, "kernel lcab_flash fwd");
  EXPECT_NEAR(summary[0].stats.mape_pct, 7.5, 1e-9);
  EXPECT_EQ(summary[0].worst_point.find("lcab_flash fwd causal"), 0u);
  EXPECT_EQ(summary[1].group, "kernel lcab_flash bwd");
  EXPECT_EQ(summary[1].predicted, 0);
  EXPECT_NE(summary[1].first_failure.find("not fitted"), std::string::npos);
  EXPECT_EQ(summary[2].group, "comm all_gather >= 1 MiB");
  EXPECT_EQ(summary[3].group, "comm all_gather < 1 MiB");
  EXPECT_EQ(summary[4].group, "all kernel");
  EXPECT_EQ(summary[4].points, 3);
  EXPECT_EQ(summary[4].predicted, 2);
  std::ostringstream table;
  accuracy_table(summary).print_markdown(table);
  EXPECT_NE(table.str().find("| kernel lcab_flash fwd"), std::string::npos) << table.str();
}

}  // namespace
}  // namespace lcab::calibrate
