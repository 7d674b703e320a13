#include "reports/report_builder.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <set>
#include <sstream>

#include "model/cli_values.h"
#include "model/error.h"
#include "model/version.h"
#include "reports/record_metrics.h"
#include "reports/timeline_figure.h"
#include "reports/trace_merge.h"

namespace lcab::report {
namespace {

/// Kernel cases the model is asked for beyond the measured ones: each measured curve (impl, pass, mask,
/// shape) at powers of two from its shortest to 4x its longest sequence (capped).
std::vector<RecordKey> kernel_extensions(const RecordSet& records, int64_t max_seqlen) {
  std::map<std::string, std::pair<RecordKey, std::pair<int64_t, int64_t>>> curves;
  for (const Record& m : records.of_kind("measured", "kernel")) {
    if (!m.key.seqlen) continue;
    RecordKey curve = m.key;
    curve.seqlen.reset();
    auto [it, inserted] = curves.emplace(key_id(curve), std::pair{curve, std::pair{*m.key.seqlen, *m.key.seqlen}});
    it->second.second.first = std::min(it->second.second.first, *m.key.seqlen);
    it->second.second.second = std::max(it->second.second.second, *m.key.seqlen);
  }
  std::vector<RecordKey> keys;
  for (const auto& [id, curve] : curves) {
    const auto [lo, hi] = curve.second;
    int64_t s = 1;
    while (s < lo) s *= 2;
    for (; s <= std::min(4 * hi, max_seqlen); s *= 2) {
      RecordKey key = curve.first;
      key.seqlen = s;
      keys.push_back(key);
    }
  }
  return keys;
}

/// CP cases beyond the measured ones: each measured configuration family at powers of two GPU counts from 2
/// to max(reach, 4x the most measured GPUs). 2-D methods keep their Ulysses degree (the ring grows), 1-D
/// methods their one degree set to the GPU count.
std::vector<RecordKey> cp_extensions(const RecordSet& records, int64_t reach) {
  std::vector<RecordKey> keys;
  std::set<std::string> seen;
  for (const Record& m : records.of_kind("measured", "cp")) {
    if (!m.key.gpus) continue;
    const int64_t top = std::max(reach, 4 * *m.key.gpus);
    for (int64_t p = 2; p <= top; p *= 2) {
      RecordKey key = m.key;
      key.gpus = p;
      const auto u = key.degrees.find("ulysses");
      const auto r = key.degrees.find("ring");
      const bool two_d = u != key.degrees.end() && r != key.degrees.end();
      if (two_d) {
        if (p % u->second != 0 || p / u->second < 1) continue;
        r->second = p / u->second;
        const auto w = key.degrees.find("windows");
        if (w != key.degrees.end() && r->second % w->second != 0) continue;
      } else if (key.degrees.size() == 1) {
        key.degrees.begin()->second = p;
      }
      if (seen.insert(key_id(key)).second) keys.push_back(key);
    }
  }
  return keys;
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

std::string counts_note(const RecordSet& records) {
  std::map<std::string, std::pair<int, int>> counts;
  for (const Record& r : records.measured()) ++counts[r.kind].first;
  for (const Record& r : records.predicted()) ++counts[r.kind].second;
  std::vector<std::string> parts;
  for (const auto& [kind, n] : counts) {
    parts.push_back(kind + ": " + std::to_string(n.first) + " measured, " + std::to_string(n.second) + " predicted");
  }
  return "Cases (one per kind and key, later inputs win): " + (parts.empty() ? std::string("none") : join(parts)) + ".";
}

std::string devices_note(const RecordSet& records) {
  std::set<std::string> devices;
  for (const Record& r : records.measured()) {
    if (r.device && !r.device->name.empty()) devices.insert(r.device->name);
  }
  if (devices.empty()) return "";
  return "Measured on: " + join(std::vector<std::string>(devices.begin(), devices.end())) + ".";
}

/// The plan's workload and cluster as a key: the selection where given, the measured CP record with the most
/// GPUs for the rest (its shape), or a representative case (64 GPUs, 8 per node, causal_document, 1M tokens).
RecordKey plan_request(const RecordSet& records, const PlanSelection& selection) {
  RecordKey key;
  const Record* widest = nullptr;
  for (const Record& m : records.measured()) {
    if (m.kind == "cp" && m.key.gpus && (!widest || *m.key.gpus > *widest->key.gpus)) widest = &m;
  }
  if (widest) {
    key = widest->key;
    key.method.clear();
    key.degrees.clear();
    key.placement.clear();
  } else {
    key.pass = "fwd";
    key.mask = "causal_document";
    key.seqlen = 1048576;
    key.batch = 1;
    key.heads = 64;
    key.kv_heads = 8;
    key.head_dim = 128;
    key.dtype = "bf16";
    key.gpus = 64;
    key.gpus_per_node = 8;
  }
  if (selection.gpus) key.gpus = *selection.gpus;
  if (selection.gpus_per_node) key.gpus_per_node = *selection.gpus_per_node;
  if (selection.mask) key.mask = *selection.mask;
  if (selection.seqlen) key.seqlen = *selection.seqlen;
  if (selection.pass) key.pass = *selection.pass;
  if (!key.gpus_per_node) key.gpus_per_node = std::min<int64_t>(8, key.gpus.value_or(8));
  return key;
}

/// A Chrome-trace document from a timeline, through the model's writer.
nlohmann::json trace_json(const perf::Timeline& timeline, const nlohmann::json& metadata) {
  std::ostringstream text;
  perf::write_chrome_trace(timeline, text, metadata);
  return nlohmann::json::parse(text.str());
}

void add_timelines(const ReportOptions& options, const Predictor* predictor, const RecordSet& records,
                   ReportContent& report) {
  int index = 0;
  for (const std::string& path : options.measured_trace_paths) {
    ++index;
    const nlohmann::json measured = read_chrome_trace(path);
    const std::string id = "timeline-" + std::to_string(index);
    report.traces.push_back({id + "-measured", "Measured timeline " + std::to_string(index), "from " + path,
                             measured.dump()});
    std::optional<RecordKey> key;
    if (measured.contains("otherData") && measured["otherData"].contains("key")) {
      key = key_from_json(measured["otherData"]["key"]);
    }
    if (!predictor || !key) {
      report.notes.push_back("Timeline " + path + ": " +
                             (key ? "no model given (--profile), so no predicted timeline beside it."
                                  : "its otherData has no record key, so no predicted timeline could be matched."));
      continue;
    }
    const std::optional<perf::Timeline> predicted = predictor->cp_timeline(*key);
    if (!predicted) {
      report.notes.push_back("Timeline " + path + ": the model cannot simulate its case.");
      continue;
    }
    const nlohmann::json predicted_json = trace_json(*predicted, {{"source", "predicted"}, {"key", to_json(*key)}});
    report.traces.push_back({id + "-predicted", "Predicted timeline " + std::to_string(index),
                             "the same case simulated by the model", predicted_json.dump()});
    report.traces.push_back({id + "-side-by-side", "Measured and predicted timeline " + std::to_string(index),
                             "each rank's measured row above its predicted row",
                             side_by_side_traces(measured, predicted_json).dump()});
  }
  // The fastest planned configuration, as the model sees it.
  if (!predictor) return;
  const std::optional<PlanSelection> chosen = resolve_plan_selection(records, options.plan);
  if (!chosen) return;
  const Record* fastest = nullptr;
  for (const Record& p : records.predicted()) {
    if (p.kind != "cp" || p.key.gpus != chosen->gpus || p.key.seqlen != chosen->seqlen ||
        p.key.mask != *chosen->mask || p.key.pass != *chosen->pass || !median_time_ms(p)) {
      continue;
    }
    if (!fastest || *median_time_ms(p) < *median_time_ms(*fastest)) fastest = &p;
  }
  if (!fastest) return;
  if (const std::optional<perf::Timeline> timeline = predictor->cp_timeline(fastest->key)) {
    const std::string title = "Predicted timeline: " + subject_of(*fastest) + " on " +
                              std::to_string(*fastest->key.gpus) + " GPUs, " + fastest->key.mask + " (" +
                              fastest->key.pass + ")";
    report.sections.push_back({"timeline", "Timeline", "The best planned configuration as the simulator plays it.",
                               {timeline_figure(*timeline, "timeline-plan-best", title)}, {}});
    report.traces.push_back({"timeline-plan-best", "Predicted timeline of the best planned configuration",
                             subject_of(*fastest) + " on " + std::to_string(*fastest->key.gpus) + " GPUs",
                             trace_json(*timeline, {{"source", "predicted"}, {"key", to_json(fastest->key)}}).dump()});
  }
}

}  // namespace

ReportContent build_report(const std::vector<Record>& input, const ReportOptions& options,
                           const Predictor* predictor) {
  LCAB_CHECK(options.band_fraction > 0 && options.band_fraction < 1,
             "the error band must be a fraction in (0, 1), got " << options.band_fraction);
  RecordSet records(input);
  ReportContent report;
  report.title = options.title;
  if (!options.input_paths.empty()) report.notes.push_back("Inputs: " + join(options.input_paths) + ".");

  if (predictor) {
    std::vector<std::pair<std::string, RecordKey>> wanted;
    for (const Record& m : records.measured()) wanted.emplace_back(m.kind, m.key);
    for (const RecordKey& k : kernel_extensions(records, options.max_predicted_seqlen)) wanted.emplace_back("kernel", k);
    for (const RecordKey& k : cp_extensions(records, options.min_predicted_gpus_reach)) wanted.emplace_back("cp", k);
    int uncovered = 0;
    for (const auto& [kind, key] : wanted) {
      if (std::optional<Record> p = predictor->predict(kind, key)) {
        records.add_predicted(*p);
      } else {
        ++uncovered;
      }
    }
    for (const Record& p : predictor->plan(plan_request(records, options.plan))) records.add_predicted(p);
    report.notes.push_back("Predictions: " + predictor->description() + "; " + std::to_string(wanted.size()) +
                           " cases asked, " + std::to_string(uncovered) + " not covered by the model.");
  } else {
    report.notes.push_back("Predictions: only those in the input records (no profile given).");
  }
  report.notes.push_back(counts_note(records));
  if (const std::string devices = devices_note(records); !devices.empty()) report.notes.push_back(devices);
  report.notes.push_back("Generated " + utc_now() + " by lcab " + kLcabVersion + " (" + kLcabGitSha + ").");

  const std::vector<Comparison> comparisons = records.comparisons();
  ReportSection kernels{"kernels", "Attention kernels",
                        "Throughput of single attention calls against sequence length, one figure per mask and "
                        "pass, one colour per implementation.",
                        kernel_figures(records), {kernel_table(records)}};
  ReportSection cp{"cp", "Context parallelism",
                   "Throughput per GPU against the number of GPUs for a fixed total sequence, one figure per mask, "
                   "sequence length and pass, one colour per method.",
                   cp_figures(records), {cp_table(records)}};
  ReportSection accuracy{"accuracy", "Model accuracy",
                         "Predicted against measured median time for every measured case the model predicts.",
                         {accuracy_figure(comparisons, options.band_fraction)},
                         {error_summary_table(comparisons, options.band_fraction)}};
  report.sections.push_back(std::move(kernels));
  report.sections.push_back(std::move(cp));
  if (!records.of_kind("measured", "comm").empty() || !records.of_kind("predicted", "comm").empty()) {
    report.sections.push_back({"comm", "Communication", "Collective and point-to-point operations.", {},
                               {comm_table(records)}});
  }
  report.sections.push_back(std::move(accuracy));
  if (std::optional<NamedTable> plan = plan_table(records, options.plan)) {
    report.sections.push_back({"plan", "Plan", "CP configurations for one cluster and workload, ranked by the model.",
                               {}, {std::move(*plan)}});
  } else {
    report.notes.push_back("No plan table: no predicted CP record matches the chosen cluster and workload.");
  }
  add_timelines(options, predictor, records, report);
  return report;
}

}  // namespace lcab::report
