#include "measure/kernel_record.h"

#include "measure/time_stats.h"
#include "model/error.h"

namespace lcab::measure {

double attention_flops(const std::string& pass, double area, int64_t batch, int64_t heads, int64_t head_dim) {
  const double forward = 4.0 * area * static_cast<double>(heads) * static_cast<double>(head_dim) *
                         static_cast<double>(batch);
  if (pass == "fwd") return forward;
  LCAB_CHECK(pass == "bwd", "pass '" << pass << "' is not valid; valid: fwd, bwd");
  return 2.5 * forward;
}

nlohmann::json sm_clock_field(const std::vector<double>& clocks_mhz) {
  const TimeStatsMs clock = summarize_times(clocks_mhz);
  return {{"median", clock.median}, {"p20", clock.p20}, {"p80", clock.p80}};
}

std::optional<double> record_sm_clock_mhz(const Record& record) {
  const auto field = record.extra.find("sm_clock_mhz");
  if (field == record.extra.end() || !field->is_object() || !field->contains("median")) return std::nullopt;
  return (*field)["median"].get<double>();
}

Record make_kernel_record(const KernelPoint& point, const KernelMeasurement& measurement, const DeviceInfo& device,
                          const nlohmann::json& meta) {
  Record record;
  record.source = "measured";
  record.kind = "kernel";
  record.key = point.key();
  record.status = measurement.status;
  record.error = measurement.error;
  record.device = device;
  record.meta = meta;
  record.peak_mem_bytes = measurement.peak_mem_bytes;
  if (measurement.area) {
    record.area = *measurement.area;
    record.flops = attention_flops(point.pass, *measurement.area, point.batch, point.heads, point.head_dim);
  }
  if (!measurement.notes.empty()) record.extra["notes"] = measurement.notes;
  if (measurement.status != "ok") {
    LCAB_CHECK(!measurement.error.empty(), "a '" << measurement.status << "' measurement needs an error message");
    return record;
  }
  LCAB_CHECK(!measurement.region_ms.empty(), "an ok measurement needs timed repetitions");
  record.time_ms = summarize_times(measurement.region_ms);
  if (record.flops && record.time_ms->median > 0) record.tflops = *record.flops / (record.time_ms->median * 1e-3) / 1e12;
  record.extra["reps"] = measurement.region_ms.size();
  record.extra["warmup"] = measurement.warmup;
  if (!measurement.sm_clock_mhz.empty()) record.extra["sm_clock_mhz"] = sm_clock_field(measurement.sm_clock_mhz);
  if (measurement.kernels) {
    const RegionKernels& k = *measurement.kernels;
    nlohmann::json kernels = nlohmann::json::array();
    for (const KernelSummary& s : k.kernels) {
      kernels.push_back({{"name", s.name}, {"calls_per_rep", s.calls_per_rep}, {"median_ms", s.median_ms}});
    }
    record.extra["kernels"] = kernels;
    if (!k.kernel_sum_ms.empty()) record.extra["kernel_sum_ms"] = summarize_times(k.kernel_sum_ms).median;
    if (!k.gpu_span_ms.empty()) record.extra["gpu_span_ms"] = summarize_times(k.gpu_span_ms).median;
  }
  return record;
}

}  // namespace lcab::measure
