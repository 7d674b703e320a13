#include "model/perf/cp_op_cost.h"

namespace lcab::perf {

CpCostModels cost_models(const HardwareProfile& profile, const KernelCostModel& kernel, const CommCostModel& comm) {
  CpCostModels m;
  m.kernel = &kernel;
  m.comm = &comm;
  m.overlap_slowdown = profile.overlap_slowdown.value;
  m.hbm_bytes_per_s = profile.gpu.hbm_bytes_per_s.value;
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

}  // namespace lcab::perf
