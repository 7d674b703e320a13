#include "reports/report_tables.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "model/cli_values.h"
#include "reports/figures.h"
#include "reports/record_metrics.h"

namespace lcab::report {

std::string format_percent(double fraction, bool with_sign) {
  const std::string text = format_fixed(fraction * 100, 1) + "%";
  return with_sign && fraction >= 0 ? "+" + text : text;
}

namespace {

/// A case with its measured and predicted record (either may be missing).
struct JoinedCase {
  const Record* measured = nullptr;
  const Record* predicted = nullptr;
  const Record& any() const { return measured ? *measured : *predicted; }
};

/// Cases of one kind, measured ones first in their order, then predicted-only ones; sorted by `order`.
template <typename Order>
std::vector<JoinedCase> join_cases(const RecordSet& records, const std::string& kind, Order order) {
  std::map<std::string, JoinedCase> by_case;
  std::vector<std::string> ids;
  for (const Record& m : records.measured()) {
    if (m.kind != kind) continue;
    const std::string id = case_id(m);
    if (by_case.emplace(id, JoinedCase{&m, nullptr}).second) ids.push_back(id);
  }
  for (const Record& p : records.predicted()) {
    if (p.kind != kind) continue;
    const std::string id = case_id(p);
    auto [it, inserted] = by_case.emplace(id, JoinedCase{nullptr, &p});
    if (inserted) {
      ids.push_back(id);
    } else {
      it->second.predicted = &p;
    }
  }
  std::vector<JoinedCase> cases;
  for (const std::string& id : ids) cases.push_back(by_case[id]);
  std::stable_sort(cases.begin(), cases.end(),
                   [&](const JoinedCase& a, const JoinedCase& b) { return order(a.any()) < order(b.any()); });
  return cases;
}

std::string ms_or_dash(const Record* r) {
  if (!r) return "-";
  if (const auto ms = median_time_ms(*r)) return format_fixed(*ms, *ms < 1 ? 4 : 3);
  return r->status == "ok" ? "-" : r->status;
}

std::string value_or_dash(std::optional<double> value, int digits) {
  return value ? format_fixed(*value, digits) : "-";
}

std::string error_or_dash(const JoinedCase& c) {
  if (!c.measured || !c.predicted) return "-";
  const auto e = relative_error(*c.measured, *c.predicted);
  return e ? format_percent(*e, true) : "-";
}

std::string tokens_or_dash(const std::optional<int64_t>& tokens) {
  return tokens ? format_tokens(*tokens) : "-";
}

/// nccl-tests' bus bandwidth factor for an operation over n ranks (bytes as lcab-measure comm records them).
double bus_factor(const std::string& op, double n) {
  if (n <= 1) return 1;
  if (op == "all_reduce") return 2 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") return (n - 1) / n;
  return 1;
}

std::optional<double> busbw_gb_per_s(const Record* r) {
  if (!r || !r->key.bytes) return std::nullopt;
  const auto ms = median_time_ms(*r);
  if (!ms) return std::nullopt;
  double n = static_cast<double>(r->key.gpus.value_or(2));
  if (auto it = r->extra.find("group_size"); it != r->extra.end() && it->is_number()) n = it->get<double>();
  return static_cast<double>(*r->key.bytes) / (*ms * 1e-3) / 1e9 * bus_factor(r->key.op, n);
}

}  // namespace

NamedTable kernel_table(const RecordSet& records) {
  const auto cases = join_cases(records, "kernel", [](const Record& r) {
    return std::tuple(r.key.impl, r.key.pass, r.key.mask, shape_label(r.key), r.key.seqlen.value_or(0));
  });
  Table table({"impl", "pass", "mask", "shape", "seqlen", "measured ms", "predicted ms", "error",
               "measured TFLOP/s", "predicted TFLOP/s"});
  for (const JoinedCase& c : cases) {
    const Record& r = c.any();
    table.add_row({r.key.impl, r.key.pass, r.key.mask, shape_label(r.key), tokens_or_dash(r.key.seqlen),
                   ms_or_dash(c.measured), ms_or_dash(c.predicted), error_or_dash(c),
                   value_or_dash(c.measured ? total_tflops(*c.measured) : std::nullopt, 1),
                   value_or_dash(c.predicted ? total_tflops(*c.predicted) : std::nullopt, 1)});
  }
  return {"kernel-cases", "Kernel cases",
          "One row per kernel case; error = (predicted - measured) / measured median time.", std::move(table)};
}

NamedTable cp_table(const RecordSet& records) {
  const auto cases = join_cases(records, "cp", [](const Record& r) {
    return std::tuple(r.key.pass, r.key.mask, r.key.seqlen.value_or(0), r.key.gpus.value_or(0), subject_of(r));
  });
  Table table({"method", "pass", "mask", "seqlen", "GPUs", "GPUs/node", "measured ms", "predicted ms", "error",
               "measured TFLOP/s/GPU", "predicted TFLOP/s/GPU", "predicted exposed comm ms", "predicted peak mem"});
  for (const JoinedCase& c : cases) {
    const Record& r = c.any();
    std::string exposed = "-";
    std::string memory = "-";
    if (c.predicted && c.predicted->breakdown && c.predicted->breakdown->exposed_comm_ms) {
      exposed = format_fixed(*c.predicted->breakdown->exposed_comm_ms, 3);
    }
    if (c.predicted && c.predicted->peak_mem_bytes) memory = format_bytes(static_cast<double>(*c.predicted->peak_mem_bytes));
    table.add_row({subject_of(r), r.key.pass, r.key.mask, tokens_or_dash(r.key.seqlen),
                   r.key.gpus ? std::to_string(*r.key.gpus) : "-",
                   r.key.gpus_per_node ? std::to_string(*r.key.gpus_per_node) : "-", ms_or_dash(c.measured),
                   ms_or_dash(c.predicted), error_or_dash(c),
                   value_or_dash(c.measured ? per_gpu_tflops(*c.measured) : std::nullopt, 1),
                   value_or_dash(c.predicted ? per_gpu_tflops(*c.predicted) : std::nullopt, 1), exposed, memory});
  }
  return {"cp-cases", "Context-parallel cases",
          "One row per CP case; times are the slowest rank's; TFLOP/s per GPU = FLOPs / (time × GPUs).",
          std::move(table)};
}

NamedTable comm_table(const RecordSet& records) {
  const auto cases = join_cases(records, "comm", [](const Record& r) {
    return std::tuple(r.key.op, r.key.group, r.key.gpus.value_or(0), r.key.bytes.value_or(0));
  });
  Table table({"op", "group", "GPUs", "size", "measured time(us)", "predicted time(us)", "error",
               "measured busbw GB/s", "predicted busbw GB/s"});
  auto us = [](const Record* r) {
    if (!r) return std::string("-");
    const auto ms = median_time_ms(*r);
    return ms ? format_fixed(*ms * 1e3, 2) : std::string("-");
  };
  for (const JoinedCase& c : cases) {
    const Record& r = c.any();
    table.add_row({r.key.op, r.key.group.empty() ? "-" : r.key.group, r.key.gpus ? std::to_string(*r.key.gpus) : "-",
                   r.key.bytes ? format_bytes(static_cast<double>(*r.key.bytes)) : "-", us(c.measured),
                   us(c.predicted), error_or_dash(c), value_or_dash(busbw_gb_per_s(c.measured), 1),
                   value_or_dash(busbw_gb_per_s(c.predicted), 1)});
  }
  return {"comm-cases", "Communication cases",
          "busbw as nccl-tests defines it (algorithm bandwidth times the operation's bus factor).", std::move(table)};
}

NamedTable error_summary_table(const std::vector<Comparison>& comparisons, double band_fraction) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> groups;
  for (const Comparison& c : comparisons) {
    const RecordKey& k = c.measured.key;
    const std::string family = c.measured.kind == "cp" ? k.method : c.measured.kind == "comm" ? k.op : k.impl;
    groups[{c.measured.kind, family, k.pass}].push_back(c.error);
  }
  const std::string band_text = "within ±" + format_fixed(band_fraction * 100, 0) + "%";
  Table table({"kind", "impl / method", "pass", "cases", "mean |error|", "median |error|", "worst error", "bias",
               band_text});
  auto add = [&](const std::string& kind, const std::string& subject, const std::string& pass,
                 const std::vector<double>& errors) {
    std::vector<double> magnitudes;
    double sum_abs = 0, sum = 0, worst = 0;
    int within = 0;
    for (double e : errors) {
      magnitudes.push_back(std::fabs(e));
      sum_abs += std::fabs(e);
      sum += e;
      if (std::fabs(e) > std::fabs(worst)) worst = e;
      within += std::fabs(e) <= band_fraction ? 1 : 0;
    }
    std::sort(magnitudes.begin(), magnitudes.end());
    const size_t n = magnitudes.size();
    const double median = n % 2 ? magnitudes[n / 2] : (magnitudes[n / 2 - 1] + magnitudes[n / 2]) / 2;
    table.add_row({kind, subject, pass, std::to_string(n), format_percent(sum_abs / static_cast<double>(n), false),
                   format_percent(median, false), format_percent(worst, true),
                   format_percent(sum / static_cast<double>(n), true),
                   format_percent(static_cast<double>(within) / static_cast<double>(n), false)});
  };
  std::vector<double> all;
  for (const auto& [g, errors] : groups) {
    add(std::get<0>(g), std::get<1>(g), std::get<2>(g).empty() ? "-" : std::get<2>(g), errors);
    all.insert(all.end(), errors.begin(), errors.end());
  }
  if (groups.size() > 1) add("all", "-", "-", all);
  return {"model-error", "Model error against measurement",
          "Error = (predicted - measured) / measured median time; mean |error| is the MAPE; bias is the mean signed "
          "error (positive: the model is pessimistic).",
          std::move(table)};
}

std::optional<PlanSelection> resolve_plan_selection(const RecordSet& records, const PlanSelection& selection) {
  auto matches = [&](const Record& r, const PlanSelection& s) {
    return r.kind == "cp" && r.key.gpus && r.key.seqlen && (!s.gpus || *r.key.gpus == *s.gpus) &&
           (!s.gpus_per_node || r.key.gpus_per_node == s.gpus_per_node) && (!s.mask || r.key.mask == *s.mask) &&
           (!s.seqlen || *r.key.seqlen == *s.seqlen) && (!s.pass || r.key.pass == *s.pass);
  };
  // Candidates: (pass, mask, seqlen, gpus, gpus_per_node) -> predicted configurations.
  std::map<std::tuple<std::string, std::string, int64_t, int64_t, int64_t>, int> counts;
  for (const Record& p : records.predicted()) {
    if (!matches(p, selection) || !median_time_ms(p)) continue;
    ++counts[{p.key.pass, p.key.mask, *p.key.seqlen, *p.key.gpus, p.key.gpus_per_node.value_or(0)}];
  }
  if (counts.empty()) return std::nullopt;
  auto best = counts.begin();
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    const bool more = it->second > best->second;
    const bool tie_more_gpus = it->second == best->second && std::get<3>(it->first) > std::get<3>(best->first);
    if (more || tie_more_gpus) best = it;
  }
  PlanSelection resolved;
  resolved.pass = std::get<0>(best->first);
  resolved.mask = std::get<1>(best->first);
  resolved.seqlen = std::get<2>(best->first);
  resolved.gpus = std::get<3>(best->first);
  if (std::get<4>(best->first) > 0) resolved.gpus_per_node = std::get<4>(best->first);
  return resolved;
}

std::optional<NamedTable> plan_table(const RecordSet& records, const PlanSelection& selection) {
  const std::optional<PlanSelection> chosen = resolve_plan_selection(records, selection);
  if (!chosen) return std::nullopt;
  auto in_plan = [&](const Record& r) {
    return r.kind == "cp" && r.key.gpus == chosen->gpus && r.key.seqlen == chosen->seqlen &&
           r.key.mask == *chosen->mask && r.key.pass == *chosen->pass &&
           (!chosen->gpus_per_node || r.key.gpus_per_node == chosen->gpus_per_node) && median_time_ms(r);
  };
  std::vector<const Record*> configs;
  for (const Record& p : records.predicted()) {
    if (in_plan(p)) configs.push_back(&p);
  }
  std::stable_sort(configs.begin(), configs.end(),
                   [](const Record* a, const Record* b) { return *median_time_ms(*a) < *median_time_ms(*b); });
  std::map<std::string, const Record*> measured_by_case;
  for (const Record& m : records.measured()) {
    if (m.kind == "cp") measured_by_case[case_id(m)] = &m;
  }
  Table table({"rank", "method", "ulysses", "ring", "windows", "placement", "predicted ms", "TFLOP/s/GPU",
               "exposed comm ms", "peak mem", "measured ms"});
  int rank = 0;
  for (const Record* p : configs) {
    auto degree = [&](const char* name) {
      const auto it = p->key.degrees.find(name);
      return it == p->key.degrees.end() ? std::string("-") : std::to_string(it->second);
    };
    const auto measured = measured_by_case.find(case_id(*p));
    table.add_row({std::to_string(++rank), p->key.method, degree("ulysses"), degree("ring"), degree("windows"),
                   p->key.placement.empty() ? "-" : p->key.placement, ms_or_dash(p),
                   value_or_dash(per_gpu_tflops(*p), 1),
                   p->breakdown && p->breakdown->exposed_comm_ms ? format_fixed(*p->breakdown->exposed_comm_ms, 3)
                                                                 : "-",
                   p->peak_mem_bytes ? format_bytes(static_cast<double>(*p->peak_mem_bytes)) : "-",
                   measured == measured_by_case.end() ? "-" : ms_or_dash(measured->second)});
  }
  std::string cluster = std::to_string(*chosen->gpus) + " GPUs";
  if (chosen->gpus_per_node) cluster += " (" + std::to_string(*chosen->gpus_per_node) + " per node)";
  return NamedTable{"plan",
                    "Plan: " + cluster + ", " + *chosen->mask + ", S = " + format_tokens(*chosen->seqlen) + " (" +
                        *chosen->pass + ")",
                    "Predicted CP configurations ranked by predicted time (fastest first); configurations that do "
                    "not fit in memory are not listed by the planner.",
                    std::move(table)};
}

}  // namespace lcab::report
