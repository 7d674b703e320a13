#include "reports/record_metrics.h"

namespace lcab::report {

std::optional<double> median_time_ms(const Record& record) {
  if (record.status != "ok" || !record.time_ms || !(record.time_ms->median > 0)) return std::nullopt;
  return record.time_ms->median;
}

std::optional<double> total_tflops(const Record& record) {
  if (record.status != "ok") return std::nullopt;
  const std::optional<double> time_ms = median_time_ms(record);
  if (record.flops && *record.flops > 0 && time_ms) return *record.flops / (*time_ms * 1e-3) / 1e12;
  if (record.tflops && *record.tflops > 0) return record.tflops;
  return std::nullopt;
}

std::optional<double> per_gpu_tflops(const Record& record) {
  const std::optional<double> total = total_tflops(record);
  if (!total) return std::nullopt;
  if (record.kind != "cp") return total;
  const int64_t gpus = record.key.gpus.value_or(1);
  return gpus > 0 ? std::optional<double>(*total / static_cast<double>(gpus)) : std::nullopt;
}

std::optional<double> relative_error(const Record& measured, const Record& predicted) {
  const std::optional<double> m = median_time_ms(measured);
  const std::optional<double> p = median_time_ms(predicted);
  if (!m || !p) return std::nullopt;
  return (*p - *m) / *m;
}

std::string subject_of(const Record& record) {
  const RecordKey& k = record.key;
  if (record.kind == "cp") {
    std::string s = k.method.empty() ? "cp" : k.method;
    const auto u = k.degrees.find("ulysses");
    const auto r = k.degrees.find("ring");
    const auto w = k.degrees.find("windows");
    if (u != k.degrees.end() && r != k.degrees.end() && u->second > 1 && r->second > 1) {
      s += " U" + std::to_string(u->second) + "xR" + std::to_string(r->second);
      if (w != k.degrees.end() && w->second > 1) s += " W" + std::to_string(w->second);
      if (!k.placement.empty()) s += " " + k.placement;
    }
    return s;
  }
  if (record.kind == "comm") return k.group.empty() ? k.op : k.op + " " + k.group;
  return k.impl.empty() ? record.kind : k.impl;
}

std::string case_id(const Record& record) { return record.kind + "|" + key_id(record.key); }

}  // namespace lcab::report
