// What one op of a CP schedule costs: the cost models a simulation uses and the charges both simulators
// (cp_simulator.h, which plays a materialized schedule, and lockstep_simulator.h, which plays a step program)
// apply to an op, so that both charge the same.
#pragma once

#include <cstdint>
#include <vector>

#include "model/cp/schedule.h"
#include "model/perf/comm_cost.h"
#include "model/perf/kernel_cost.h"

namespace lcab::perf {

/// The cost models a simulation uses (not owned). kernel must be for the schedule's pass.
struct CpCostModels {
  const KernelCostModel* kernel = nullptr;
  const CommCostModel* comm = nullptr;
  double overlap_slowdown = 1.0;
  double hbm_bytes_per_s = 3.35e12;
  double memory_op_launch_us = 3.0;
  /// Kernel costs of the schedule's compute items given by whoever made them ([rank][index into the rank's items],
  /// e.g. items counted on tile grids, whose slices are not materialized); null: costed from the items' slices.
  const std::vector<std::vector<KernelCost>>* item_kernel_costs = nullptr;
};
/// Cost models from a profile's parameters: fills overlap, the executor's pass bandwidth (hbm_bytes_per_s:
/// HardwareProfile::executor_pass_rate) and the memory-op launch (the kernel's launch).
CpCostModels cost_models(const HardwareProfile& profile, const KernelCostModel& kernel, const CommCostModel& comm);

/// The kernel call of a compute item: its q and kv head counts with the workload's batch, head dim and dtype.
AttentionShape item_shape(const cp::ComputeItem& item, const cp::Workload& workload);
/// The collective a communication op kind is costed as (send/recv for point-to-point kinds).
CollectiveOp collective_of(cp::OpKind kind);
/// A compute op: the kernel's time for its item plus the executor's merge / accumulation passes around the call
/// (cp_item_passes.h) at pass_bytes_per_s (CpCostModels::hbm_bytes_per_s).
double compute_op_us(double kernel_us, const cp::ComputeItem& item, cp::Pass pass, const cp::Workload& workload,
                     double pass_bytes_per_s);
/// A collective op of `schedule` on a group of `span`: the collective's time, plus for an all-to-all the
/// executor's pack / unpack / convert passes around the transfer (a2a_staging.h).
double collective_op_us(const CpCostModels& models, const cp::Schedule& schedule, cp::OpKind kind,
                        const GroupSpan& span, const cp::CommOp& comm);
/// A local memory op (kZero writes `bytes`, kAdd reads two operands and writes one): one launch plus its HBM
/// traffic.
inline double memory_op_us(const CpCostModels& models, cp::OpKind kind, int64_t bytes) {
  const double traffic = static_cast<double>(bytes) * (kind == cp::OpKind::kAdd ? 3 : 1);
  return models.memory_op_launch_us + traffic / models.hbm_bytes_per_s * 1e6;
}

}  // namespace lcab::perf
