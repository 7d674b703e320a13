#include "model/perf/cp_item_passes.h"

#include "model/error.h"

namespace lcab::perf {

namespace {
constexpr double kAccumulatorBytes = 4;  // fp32 accumulators of the executor
}  // namespace

double cp_item_pass_bytes(const cp::ComputeItem& item, cp::Pass pass, const cp::Workload& workload) {
  const double dtype = static_cast<double>(workload.dtype_bytes);
  const double per_row = static_cast<double>(workload.head_dim * workload.batch);
  const double q_elements = static_cast<double>(item.q_rows.length() * item.q_heads.count()) * per_row;
  const double merge = dtype + 2 * kAccumulatorBytes + dtype;  // read partial, read + write fp32, write mirror
  if (pass == cp::Pass::kForward) return q_elements * merge;
  const double k_elements = static_cast<double>(item.k_rows.length() * item.kv_heads.count()) * per_row;
  const double zero_and_add = dtype + merge;
  return (q_elements + 2 * k_elements) * zero_and_add;
}

double cp_item_pass_us(const cp::ComputeItem& item, cp::Pass pass, const cp::Workload& workload,
                       double hbm_bytes_per_s) {
  LCAB_CHECK(hbm_bytes_per_s > 0, "the executor's passes around a compute item need the HBM bandwidth");
  return cp_item_pass_bytes(item, pass, workload) / hbm_bytes_per_s * 1e6;
}

}  // namespace lcab::perf
