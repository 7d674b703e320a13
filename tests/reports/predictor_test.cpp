// Reports with a Predictor: predictions for every measured case, lines extended beyond the measurements, the
// plan from the predictor, timelines (predicted, and side by side with a measured trace). A fake predictor
// pins the builder's behaviour; the model-backed one (lcab-report --profile) is checked on the built-in H100
// profile.
#include <filesystem>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "apps/lcab_report/model_predictor.h"
#include "model/cli_values.h"
#include "model/error.h"
#include "model/perf/profile.h"
#include "report_fixtures.h"
#include "reports/record_metrics.h"
#include "reports/report_builder.h"
#include "reports/trace_merge.h"

namespace lcab::report {
namespace {

/// Kernel and cp cases at a fixed 400 TFLOP/s (causal and full masks only), no comm; a two-entry plan; a
/// one-op-per-rank timeline.
class FakePredictor : public Predictor {
 public:
  std::string description() const override { return "fake"; }
  std::optional<Record> predict(const std::string& kind, const RecordKey& key) const override {
    if (kind == "comm" || !key.seqlen) return std::nullopt;
    const double s = static_cast<double>(*key.seqlen);
    const double area = key.mask == "full" ? s * s : s * s / 10;
    Record r;
    r.source = "predicted";
    r.kind = kind;
    r.key = key;
    r.flops = 4 * area * 64 * 128;
    const double gpus = static_cast<double>(key.gpus.value_or(1));
    r.time_ms = TimeStatsMs{*r.flops / 400e12 / gpus * 1e3, 0, 0};
    return r;
  }
  std::vector<Record> plan(const RecordKey& key) const override {
    std::vector<Record> out;
    for (const char* method : {"ulysses", "ring"}) {
      RecordKey k = key;
      k.method = method;
      Record r = *predict("cp", k);
      if (k.method == "ring") r.time_ms->median *= 2;
      out.push_back(r);
    }
    return out;
  }
  std::optional<perf::Timeline> cp_timeline(const RecordKey& key) const override {
    perf::Timeline t;
    for (int rank = 0; rank < key.gpus.value_or(1); ++rank) t.events.push_back({rank, "compute", "step 0 attn", 0, 10});
    return t;
  }
};

TEST(ReportWithPredictor, PredictsMeasuredCasesAndExtendsTheLines) {
  FakePredictor fake;
  ReportOptions options;
  const ReportContent report = build_report(testing::fixture_records(), options, &fake);
  std::set<int64_t> torch_seqlens, ring_gpus;
  size_t kernel_rows_with_both = 0;
  for (const ReportSection& s : report.sections) {
    for (const NamedTable& t : s.tables) {
      if (t.id != "kernel-cases") continue;
      for (const auto& row : t.table.rows()) {
        if (row[5] != "-" && row[6] != "-") ++kernel_rows_with_both;
        if (row[0] == "torch_sdpa_flash" && row[2] == "causal" && row[6] != "-") {
          torch_seqlens.insert(parse_token_count(row[4]));
        }
      }
    }
    for (const NamedTable& t : s.tables) {
      if (t.id != "cp-cases") continue;
      for (const auto& row : t.table.rows()) {
        if (row[0] == "ring" && row[7] != "-") ring_gpus.insert(std::stoll(row[4]));
      }
    }
  }
  EXPECT_EQ(kernel_rows_with_both, 17u);  // every measured kernel case (the oom one shows its status)
  EXPECT_EQ(torch_seqlens, (std::set<int64_t>{4096, 8192, 16384, 32768, 65536, 131072}));  // 4x the longest
  EXPECT_EQ(ring_gpus, (std::set<int64_t>{2, 4, 8, 16, 32, 64}));
  bool has_plan_timeline = false;
  for (const TraceFile& t : report.traces) has_plan_timeline = has_plan_timeline || t.id == "timeline-plan-best";
  EXPECT_TRUE(has_plan_timeline);
}

TEST(ReportWithPredictor, PutsAMeasuredTraceBesideItsPrediction) {
  RecordKey key;
  key.method = "ring";
  key.gpus = 2;
  key.seqlen = 16384;
  key.mask = "causal";
  perf::Timeline measured;
  measured.events.push_back({0, "compute", "step 0 attn", 0, 12});
  measured.events.push_back({1, "send", "step 0 send kv", 1, 5});
  const std::string dir = testing::scratch_directory();
  const std::string path = dir + "/measured.trace.json";
  perf::write_chrome_trace_file(measured, path, {{"key", to_json(key)}});

  FakePredictor fake;
  ReportOptions options;
  options.measured_trace_paths = {path};
  const ReportContent report = build_report(testing::fixture_records(), options, &fake);
  const TraceFile* side_by_side = nullptr;
  for (const TraceFile& t : report.traces) {
    if (t.id == "timeline-1-side-by-side") side_by_side = &t;
  }
  ASSERT_NE(side_by_side, nullptr);
  const nlohmann::json trace = nlohmann::json::parse(side_by_side->json);
  std::map<int64_t, std::string> process_names;
  std::map<int64_t, int64_t> sort_index;
  std::set<std::string> step_names;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["name"] == "process_name") process_names[e["pid"]] = e["args"]["name"];
    if (e["name"] == "process_sort_index") sort_index[e["pid"]] = e["args"]["sort_index"];
    if (e["ph"] == "X") step_names.insert(e["name"].get<std::string>());
  }
  EXPECT_EQ(process_names, (std::map<int64_t, std::string>{
                               {0, "measured rank 0"}, {1, "measured rank 1"}, {2, "predicted rank 0"},
                               {3, "predicted rank 1"}}));
  EXPECT_EQ(sort_index, (std::map<int64_t, int64_t>{{0, 0}, {1, 2}, {2, 1}, {3, 3}}));  // rank by rank
  EXPECT_TRUE(step_names.count("step 0 attn"));

  ReportOptions without_key;
  perf::write_chrome_trace_file(measured, path);
  without_key.measured_trace_paths = {path};
  const ReportContent plain = build_report({}, without_key, &fake);
  std::vector<std::string> ids;
  for (const TraceFile& t : plain.traces) ids.push_back(t.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"timeline-1-measured", "timeline-plan-best"}));  // no key: no pair
  EXPECT_THROW(read_chrome_trace(dir + "/missing.json"), Error);
}

TEST(TraceMerge, RejectsDocumentsThatAreNotTraces) {
  EXPECT_THROW(side_by_side_traces(nlohmann::json::object(), {{"traceEvents", nlohmann::json::array()}}), Error);
}

TEST(ModelPredictor, PredictsKernelCpCommPlanAndTimelineOnTheBuiltInProfile) {
  const report_app::ModelPredictor model(perf::builtin_profile("h100_sxm"));
  RecordKey kernel;
  kernel.impl = "lcab_flash";
  kernel.pass = "fwd";
  kernel.mask = "causal";
  kernel.seqlen = 4096;
  kernel.batch = 1;
  kernel.heads = 64;
  kernel.kv_heads = 8;
  kernel.head_dim = 128;
  kernel.dtype = "bf16";
  const std::optional<Record> k = model.predict("kernel", kernel);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->source, "predicted");
  EXPECT_EQ(key_id(k->key), key_id(kernel));
  EXPECT_GT(k->time_ms->median, 0);
  EXPECT_DOUBLE_EQ(*k->flops, 4.0 * (4096.0 * 4097.0 / 2) * 64 * 128);
  RecordKey unknown = kernel;
  unknown.impl = "no_such_kernel";
  EXPECT_FALSE(model.predict("kernel", unknown));

  RecordKey cp = kernel;
  cp.impl.clear();
  cp.method = "ring";
  cp.gpus = 4;
  cp.gpus_per_node = 8;
  const std::optional<Record> c = model.predict("cp", cp);
  ASSERT_TRUE(c);
  EXPECT_EQ(key_id(c->key), key_id(cp));
  EXPECT_GT(*per_gpu_tflops(*c), 0);
  const std::optional<perf::Timeline> timeline = model.cp_timeline(cp);
  ASSERT_TRUE(timeline);
  std::set<int> ranks;
  for (const perf::TimelineEvent& e : timeline->events) ranks.insert(e.rank);
  EXPECT_EQ(ranks.size(), 4u);

  const std::vector<Record> plan = model.plan(cp);
  ASSERT_FALSE(plan.empty());
  for (size_t n = 1; n < plan.size(); ++n) EXPECT_LE(plan[n - 1].time_ms->median, plan[n].time_ms->median);

  RecordKey comm;
  comm.op = "all_gather";
  comm.gpus = 8;
  comm.bytes = 64 << 20;
  comm.group = "world";
  EXPECT_TRUE(model.predict("comm", comm));
}

}  // namespace
}  // namespace lcab::report
