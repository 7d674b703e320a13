#include "model/perf/cp_op_cost.h"

#include "model/perf/a2a_staging.h"
#include "model/perf/cp_item_passes.h"

namespace lcab::perf {

CpCostModels cost_models(const HardwareProfile& profile, const KernelCostModel& kernel, const CommCostModel& comm) {
  CpCostModels m;
  m.kernel = &kernel;
  m.comm = &comm;
  m.overlap_slowdown = profile.overlap_slowdown.value;
  m.hbm_bytes_per_s = profile.executor_pass_rate();
  m.memory_op_launch_us = kernel.params().launch_us.value;
  return m;
}

AttentionShape item_shape(const cp::ComputeItem& item, const cp::Workload& w) {
  AttentionShape s;
  s.batch = w.batch;
  s.heads = item.q_heads.count();
  s.kv_heads = item.kv_heads.count();
  s.head_dim = w.head_dim;
  s.dtype_bytes = w.dtype_bytes;
  return s;
}

CollectiveOp collective_of(cp::OpKind kind) {
  switch (kind) {
    case cp::OpKind::kAllGather: return CollectiveOp::kAllGather;
    case cp::OpKind::kReduceScatter: return CollectiveOp::kReduceScatter;
    case cp::OpKind::kAllToAll: return CollectiveOp::kAllToAll;
    default: return CollectiveOp::kSendRecv;
  }
}

double compute_op_us(double kernel_us, const cp::ComputeItem& item, cp::Pass pass, const cp::Workload& workload,
                     double pass_bytes_per_s) {
  return kernel_us + cp_item_pass_us(item, pass, workload, pass_bytes_per_s);
}

double collective_op_us(const CpCostModels& models, const cp::Schedule& schedule, cp::OpKind kind,
                        const GroupSpan& span, const cp::CommOp& comm) {
  const double us = models.comm->collective_us(collective_of(kind), span, comm.chunk_bytes);
  if (kind != cp::OpKind::kAllToAll) return us;
  return us + a2a_staging_us(schedule, comm, span.members, models.hbm_bytes_per_s);
}

}  // namespace lcab::perf
