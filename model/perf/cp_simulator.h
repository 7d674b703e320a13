// The CP simulator (DESIGN.md section 6): plays a method's schedule (model/cp/schedule.h) through the cost
// models, on per-rank streams with the schedule's dependencies.
//
// Rules (the same the executor in cp/ obeys on GPUs):
//   - ops of one stream run in list order; an op is issued when the previous op of its stream and every op in
//     its deps have finished;
//   - compute (attention) ops take the kernel model's time for their item plus the executor's merge and
//     accumulation passes around the call (cp_item_passes.h), memory ops (zero, add) their bytes over HBM
//     bandwidth plus one launch;
//   - an all-to-all also pays the executor's memory passes around its transfer (a2a_staging.h);
//   - a send/recv pair transfers once both sides are issued: start = max(issue times), both end together after
//     the send/recv cost of the link between the two ranks; a collective starts when every member of its group
//     has issued it and ends on all members together after the collective's cost;
//   - compute that runs while communication runs on the same rank is slowed by the profile's overlap factor f:
//     a compute op of kernel time d overlapping communication for o microseconds takes d + (f - 1) o. The
//     overlap is taken from the previous iteration of the whole simulation (iteration 1 assumes none; two
//     iterations are played unless f = 1).
// Outputs: start and end of every op, every step of every rank, the critical path, compute, communication and
// exposed communication per rank as comm_overlap.h defines them (a send/recv or collective's interval already
// starts when every party has arrived), imbalance, peak memory per rank.
#pragma once

#include <cstdint>
#include <vector>

#include "model/cp/schedule.h"
#include "model/perf/comm_overlap.h"
#include "model/perf/cp_op_cost.h"
#include "model/perf/timeline.h"

namespace lcab::perf {
class FullSliceTiler;
}

namespace lcab::perf {

struct OpTiming {
  double issue_us = 0;  ///< when the op could start on its own (its stream and deps done)
  double start_us = 0;  ///< when it ran (communication: when every party was there)
  double end_us = 0;
};

struct RankSummary {
  double end_us = 0;           ///< the rank's last op ends
  double compute_us = 0;       ///< busy time of the compute stream (attention and memory ops)
  double attention_us = 0;     ///< of which attention kernels
  double comm_us = 0;          ///< union of transfers (comm_overlap.h: from every party's arrival to the end)
  double exposed_comm_us = 0;  ///< of comm_us, the part while the compute stream is idle
  int64_t peak_mem_bytes = 0;  ///< the schedule's buffers plus the largest kernel workspace
  double flops = 0;
};

/// One op on the critical path.
struct PathOp {
  int rank = 0;
  int op = 0;
};

struct StepTiming {
  double start_us = 0;
  double end_us = 0;
  bool present = false;  ///< the rank has ops in this step
};

struct CpSimulation {
  std::vector<std::vector<OpTiming>> ops;     ///< [rank][op]
  std::vector<std::vector<StepTiming>> steps; ///< [rank][step]
  std::vector<RankSummary> ranks;
  std::vector<PathOp> critical_path;          ///< from the first op to the last to finish
  double time_us = 0;                          ///< the slowest rank's end
  double critical_compute_us = 0;              ///< compute ops' time on the critical path
  double critical_comm_us = 0;                 ///< communication ops' time on the critical path
  int slowest_rank = 0;
  double compute_max_us() const;
  double compute_mean_us() const;
  /// max / mean compute busy time over ranks (1 = balanced).
  double imbalance() const;
  int64_t peak_mem_bytes() const;  ///< max over ranks
  /// 1 - exposed / communication, both summed over ranks (comm_overlap.h); 1 without communication.
  double comm_hidden_fraction() const;
  double flops() const;            ///< over all ranks
};

struct SimulationOptions {
  bool critical_path = true;  ///< the planner turns it off to save time
  bool keep_timings = true;   ///< keep ops and steps (the planner keeps only the summaries)
};

/// The kernel cost of a compute item from its slices, as simulate() takes it when CpCostModels::item_kernel_costs
/// is null: items of FULL slices (an allgather rank's share of a block-sparse or document mask, which rarely
/// repeats) are counted by q bands with `tiler`, without hashing them for the model's cache (the same numbers);
/// others go through the cache.
KernelCost item_kernel_cost(const KernelCostModel& model, const cp::ComputeItem& item, const AttentionShape& shape,
                            FullSliceTiler& tiler);

/// Plays the schedule. Throws lcab::Error when the schedule cannot finish (an op waits forever), naming it.
CpSimulation simulate(const cp::Schedule& schedule, const CpCostModels& models, SimulationOptions options = {});

/// What a pass costs before it is played: the peak memory simulate() reports (timing plays no part in it) and a
/// lower bound of its time. Every stream of a rank runs its ops one after another, compute ops for at least
/// min(1, overlap slowdown) x their kernel time and transfers for at least their own side's time, so no pass ends
/// before the busiest stream of any rank has run them all.
struct PassBound {
  double time_lower_bound_us = 0;
  int64_t peak_mem_bytes = 0;
};
PassBound bound(const cp::Schedule& schedule, const CpCostModels& models);

/// Events of the simulated timeline: one per op, on stream rows named as cp::to_string(Stream); time_offset_us
/// shifts everything (a backward pass after its forward pass).
void append_timeline(const cp::Schedule& schedule, const CpSimulation& simulation, Timeline& timeline,
                     double time_offset_us = 0);

}  // namespace lcab::perf
