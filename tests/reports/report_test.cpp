// Reports built from the fixture records: figures, tables (markdown, CSV), the plan, files on disk, and every
// SVG well-formed XML.
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>

#include "model/error.h"
#include "reports/record_metrics.h"
#include "reports/report_builder.h"
#include "reports/report_writer.h"
#include "report_fixtures.h"
#include "xml_check.h"

namespace lcab::report {
namespace {

using testing::fixture_records;

const ReportSection* section(const ReportContent& report, const std::string& id) {
  for (const ReportSection& s : report.sections) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

const NamedTable* table(const ReportContent& report, const std::string& id) {
  for (const ReportSection& s : report.sections) {
    for (const NamedTable& t : s.tables) {
      if (t.id == id) return &t;
    }
  }
  return nullptr;
}

std::vector<std::string> figure_ids(const ReportContent& report) {
  std::vector<std::string> ids;
  for (const ReportSection& s : report.sections) {
    for (const Figure& f : s.figures) ids.push_back(f.id);
  }
  return ids;
}

size_t column(const Table& t, const std::string& name) {
  for (size_t c = 0; c < t.columns().size(); ++c) {
    if (t.columns()[c] == name) return c;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(RecordMetrics, ThroughputAndErrorFromTimes) {
  Record r;
  r.kind = "cp";
  r.key.gpus = 4;
  r.flops = 8e12;
  r.time_ms = TimeStatsMs{2, 1.9, 2.1};
  EXPECT_DOUBLE_EQ(*total_tflops(r), 4000);
  EXPECT_DOUBLE_EQ(*per_gpu_tflops(r), 1000);
  Record p = r;
  p.time_ms->median = 2.5;
  EXPECT_DOUBLE_EQ(*relative_error(r, p), 0.25);
  r.status = "oom";
  EXPECT_FALSE(total_tflops(r));
  EXPECT_FALSE(relative_error(r, p));
  Record usp;
  usp.kind = "cp";
  usp.key.method = "usp";
  usp.key.degrees = {{"ulysses", 2}, {"ring", 4}};
  usp.key.placement = "ring_intra";
  EXPECT_EQ(subject_of(usp), "usp U2xR4 ring_intra");
}

TEST(Table, MarkdownEscapesPipesAndCsvQuotes) {
  Table t({"mean |error|", "name"});
  t.add_row({"1.5%", "a,\"b\""});
  std::ostringstream md, csv;
  t.print_markdown(md);
  t.print_csv(csv);
  EXPECT_EQ(md.str().substr(0, md.str().find('\n')), "| mean \\|error\\| | name  |");
  EXPECT_EQ(csv.str(), "mean |error|,name\n1.5%,\"a,\"\"b\"\"\"\n");
  EXPECT_THROW(t.add_row({"only one"}), Error);
  // Bounds ("> 12.5") are numbers too: the column stays right-aligned.
  Table bounds({"ms"});
  bounds.add_row({"1.250"});
  bounds.add_row({"> 12.500"});
  std::ostringstream aligned;
  bounds.print_markdown(aligned);
  EXPECT_NE(aligned.str().find("|    1.250 |"), std::string::npos) << aligned.str();
  EXPECT_NE(aligned.str().find("-:"), std::string::npos) << aligned.str();
}

TEST(RecordSet, LaterRecordsOfTheSameCaseWin) {
  std::vector<Record> records = fixture_records();
  Record override_record = records.front();
  override_record.time_ms->median = 123;
  records.push_back(override_record);
  const RecordSet set(records);
  EXPECT_EQ(set.measured().front().time_ms->median, 123);
  EXPECT_EQ(set.measured().size(), 26u);
  EXPECT_EQ(set.predicted().size(), 29u);
  EXPECT_EQ(set.comparisons().size(), 8u + 6u + 3u);  // kernel lcab_flash, cp ring/usp <= 8 GPUs, comm
}

TEST(ReportFromRecords, HasTheFiguresTheRecordsSupport) {
  const ReportContent report = build_report(fixture_records(), ReportOptions{}, nullptr);
  EXPECT_EQ(figure_ids(report), (std::vector<std::string>{"kernel-fwd-causal", "kernel-fwd-full",
                                                          "cp-fwd-causal-document-128k", "accuracy"}));
  const Figure& kernel = section(report, "kernels")->figures.front();
  EXPECT_NE(kernel.svg.find("lcab_flash measured"), std::string::npos);
  EXPECT_NE(kernel.svg.find("lcab_flash predicted"), std::string::npos);
  EXPECT_NE(kernel.svg.find("torch_sdpa_flash measured"), std::string::npos);
  EXPECT_NE(kernel.svg.find("measured on fixture GPU"), std::string::npos);
  const Figure& cp = section(report, "cp")->figures.front();
  EXPECT_NE(cp.svg.find("throughput per GPU (TFLOP/s)"), std::string::npos);
  EXPECT_NE(cp.svg.find(">64<"), std::string::npos);  // predicted beyond the measured 8 GPUs
  EXPECT_NE(section(report, "comm"), nullptr);
}

TEST(ReportFromRecords, TablesJoinMeasuredAndPredicted) {
  const ReportContent report = build_report(fixture_records(), ReportOptions{}, nullptr);
  const Table& kernels = table(report, "kernel-cases")->table;
  EXPECT_EQ(kernels.rows().size(), 21u);  // 13 lcab_flash cases (one oom, four predicted only) + 8 torch
  const auto& first = kernels.rows().front();
  EXPECT_EQ(first[column(kernels, "impl")], "lcab_flash");
  EXPECT_EQ(first[column(kernels, "seqlen")], "4K");
  EXPECT_EQ(first[column(kernels, "error")], "+8.0%");
  bool saw_oom = false;
  for (const auto& row : kernels.rows()) saw_oom = saw_oom || row[column(kernels, "measured ms")] == "oom";
  EXPECT_TRUE(saw_oom);

  const Table& errors = table(report, "model-error")->table;
  ASSERT_EQ(errors.rows().size(), 5u);  // comm, cp ring, cp usp, kernel lcab_flash, all
  const auto& kernel_row = errors.rows()[3];
  EXPECT_EQ(kernel_row[column(errors, "impl / method")], "lcab_flash");
  EXPECT_EQ(kernel_row[column(errors, "cases")], "8");
  EXPECT_EQ(kernel_row[column(errors, "mean |error|")], "6.5%");
  EXPECT_EQ(kernel_row[column(errors, "worst error")], "+8.0%");
  EXPECT_EQ(kernel_row[column(errors, "bias")], "+1.5%");
  EXPECT_EQ(kernel_row[column(errors, "within ±20%")], "100.0%");
  EXPECT_EQ(errors.rows()[0][column(errors, "mean |error|")], "9.1%");  // comm: predicted = measured / 1.1
  EXPECT_EQ(errors.rows().back()[column(errors, "cases")], "17");

  const Table& comm = table(report, "comm-cases")->table;
  ASSERT_EQ(comm.rows().size(), 3u);
  EXPECT_EQ(comm.rows()[0][column(comm, "size")], "1.00 MiB");
}

TEST(ReportFromRecords, PlanRanksTheMostCoveredClusterFastestFirst) {
  const ReportContent report = build_report(fixture_records(), ReportOptions{}, nullptr);
  const NamedTable* plan = table(report, "plan");
  ASSERT_NE(plan, nullptr);
  EXPECT_NE(plan->title.find("64 GPUs (8 per node)"), std::string::npos);
  const Table& t = plan->table;
  ASSERT_EQ(t.rows().size(), 4u);
  std::vector<std::string> methods;
  for (const auto& row : t.rows()) methods.push_back(row[column(t, "method")]);
  EXPECT_EQ(methods, (std::vector<std::string>{"ulysses", "loongtrain", "usp", "ring"}));
  for (size_t r = 1; r < t.rows().size(); ++r) {
    EXPECT_LE(std::stod(t.rows()[r - 1][column(t, "predicted ms")]), std::stod(t.rows()[r][column(t, "predicted ms")]));
  }
  EXPECT_EQ(t.rows()[1][column(t, "windows")], "4");

  ReportOptions at_eight;
  at_eight.plan.gpus = 8;
  const ReportContent eight = build_report(fixture_records(), at_eight, nullptr);
  const Table& small = table(eight, "plan")->table;
  ASSERT_EQ(small.rows().size(), 2u);
  EXPECT_NE(small.rows()[0][column(small, "measured ms")], "-");

  ReportOptions nowhere;
  nowhere.plan.gpus = 3;
  const ReportContent without = build_report(fixture_records(), nowhere, nullptr);
  EXPECT_EQ(table(without, "plan"), nullptr);
}

TEST(ReportFromRecords, EmptyInputStillGivesAReport) {
  const ReportContent report = build_report({}, ReportOptions{}, nullptr);
  EXPECT_EQ(figure_ids(report), (std::vector<std::string>{"accuracy"}));
  EXPECT_NE(section(report, "accuracy")->figures.front().svg.find("no measured case has a prediction"),
            std::string::npos);
}

TEST(ReportFromRecords, RejectsABadBand) {
  ReportOptions options;
  options.band_fraction = 0;
  EXPECT_THROW(build_report(fixture_records(), options, nullptr), Error);
}

TEST(ReportWriter, WritesHtmlSvgMarkdownAndCsvAndEverySvgIsXml) {
  const std::string dir = testing::scratch_directory();
  const ReportContent report = build_report(fixture_records(), ReportOptions{}, nullptr);
  const std::vector<std::string> written = write_report(report, dir + "/out");
  ASSERT_FALSE(written.empty());
  EXPECT_EQ(std::filesystem::path(written.front()).filename(), "index.html");
  size_t svgs = 0, tables = 0;
  for (const std::string& path : written) {
    const std::string text = testing::read_file(path);
    ASSERT_FALSE(text.empty()) << path;
    const std::string ext = std::filesystem::path(path).extension();
    if (ext == ".svg") {
      ++svgs;
      EXPECT_EQ(testing::xml_problem(text), "") << path;
    } else if (ext == ".md") {
      ++tables;
      EXPECT_EQ(text.rfind("# ", 0), 0u) << path;
      EXPECT_NE(text.find("\n| "), std::string::npos) << path;
    } else if (ext == ".csv") {
      EXPECT_NE(text.front(), '|') << path;  // not markdown
      EXPECT_EQ(text.find("---"), std::string::npos) << path;
      EXPECT_GE(std::count(text.begin(), text.end(), '\n'), 2) << path;
    }
  }
  EXPECT_EQ(svgs, 4u);
  EXPECT_EQ(tables, 5u);  // kernel, cp and comm cases, model error, plan
  const std::string html = testing::read_file(dir + "/out/index.html");
  EXPECT_EQ(std::count(html.begin(), html.end(), '\0'), 0);
  size_t inline_svgs = 0;
  for (size_t at = html.find("<svg "); at != std::string::npos; at = html.find("<svg ", at + 1)) ++inline_svgs;
  EXPECT_EQ(inline_svgs, svgs);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("href=\"kernel-cases.csv\""), std::string::npos);
}

}  // namespace
}  // namespace lcab::report
