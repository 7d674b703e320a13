// Building the record of one kernel-sweep point (DESIGN.md section 5, kind "kernel", source "measured").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/kernel_sweep.h"
#include "measure/trace_activity.h"
#include "model/record.h"

namespace lcab::measure {

/// FLOPs of one attention call by the FlashAttention convention: fwd = 4 * area * heads * head_dim * batch
/// (area = unmasked (q, k) pairs of one head, the mean over kv heads for per-kv-head masks); bwd = 2.5 * fwd.
double attention_flops(const std::string& pass, double area, int64_t batch, int64_t heads, int64_t head_dim);

/// What measuring one point produced. status "ok" needs region_ms; the others need error.
struct KernelMeasurement {
  std::string status = "ok";  ///< "ok" | "oom" | "unsupported" | "error"
  std::string error;
  std::optional<double> area;                 ///< known once the mask was generated
  std::vector<double> region_ms;              ///< CUDA-event time of each timed repetition
  std::vector<double> sm_clock_mhz;           ///< the SM clock of each timed repetition (sm_clock.h), where measured
  std::optional<RegionKernels> kernels;       ///< what CUPTI saw inside the timed region
  std::optional<int64_t> peak_mem_bytes;
  int warmup = 0;
  std::string notes;                          ///< anything a reader of the record should know
};

/// The record: key from the point; time_ms (median/p20/p80 of region_ms), tflops (flops / median), area,
/// flops, peak_mem_bytes, device, meta; extra holds reps, warmup, the kernels (names, calls per repetition,
/// median ms), the medians of the CUPTI kernel sum and GPU span per repetition, and sm_clock_mhz (median, p20,
/// p80 of the repetitions' SM clocks) where the clock was measured.
Record make_kernel_record(const KernelPoint& point, const KernelMeasurement& measurement, const DeviceInfo& device,
                          const nlohmann::json& meta);

/// Records' `sm_clock_mhz` field: median, p20 and p80 of the repetitions' SM clocks (MHz; `clocks` not empty).
nlohmann::json sm_clock_field(const std::vector<double>& clocks_mhz);
/// A record's median SM clock (MHz), where the record has one.
std::optional<double> record_sm_clock_mhz(const Record& record);

}  // namespace lcab::measure
