// One GPU activity as CUPTI reports it (a kernel, a copy or a memset), in a host-only form that sweeps,
// summaries and trace writers share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lcab::measure {

enum class ActivityKind { kKernel, kMemcpy, kMemset };
const char* to_string(ActivityKind kind);

struct TraceActivity {
  ActivityKind kind = ActivityKind::kKernel;
  std::string name;         ///< kernel name (demangled where CUPTI gives it so); "memcpy DtoD", "memset"
  uint64_t start_ns = 0;    ///< CUPTI timestamps (ns, one clock for all devices of the process)
  uint64_t end_ns = 0;
  uint32_t device = 0;
  uint32_t context = 0;
  uint32_t stream = 0;
  uint32_t correlation = 0;
  uint64_t bytes = 0;       ///< copies and memsets

  double duration_ms() const { return static_cast<double>(end_ns - start_ns) * 1e-6; }
};

/// Kernels of one kind (by name) in a timed region.
struct KernelSummary {
  std::string name;
  double calls_per_rep = 0;  ///< median over repetitions
  double median_ms = 0;      ///< median over repetitions of the summed duration of this kernel's calls
};

/// What CUPTI saw in the timed repetitions of one point.
struct RegionKernels {
  std::vector<double> kernel_sum_ms;   ///< per repetition: sum of every kernel's duration
  std::vector<double> gpu_span_ms;     ///< per repetition: first kernel start to last kernel end
  std::vector<KernelSummary> kernels;  ///< in order of first appearance
};

/// Splits activities into repetitions at separators (the L2-flush memsets that start each repetition, told
/// apart by `separator_bytes`) and summarizes the kernels of each. Activities before the first separator are
/// ignored. Throws lcab::Error when the number of separators is not `repetitions` (records were lost).
RegionKernels summarize_region(std::vector<TraceActivity> activities, int repetitions, uint64_t separator_bytes);

}  // namespace lcab::measure
