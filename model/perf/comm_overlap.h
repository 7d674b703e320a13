// Communication time and how much of it compute hides: the one definition that the CP simulator
// (cp_simulator.h) and the measured records of lcab-measure cp (from the executor's per-op CUDA events) use, so
// that "fraction hidden" means the same in predictions and measurements (README, "Running context parallelism
// on GPUs").
//
//   transfer         a communication op from the moment every party of it has arrived (both sides of a
//                    send/recv pair, every member of a collective) to its end. Waiting for a partner, or for the
//                    other streams of an NCCL group, is not communication.
//   comm time        per rank: the length of the union of its transfers (a send and a receive running together
//                    count once).
//   exposed comm     per rank: the part of that union during which the rank's compute stream is idle (no
//                    attention kernel, no local memory op).
//   hidden fraction  over ranks: 1 - sum(exposed) / sum(comm time); 1 when nothing is communicated.
#pragma once

#include <span>
#include <vector>

#include "model/cp/schedule.h"
#include "model/perf/intervals.h"

namespace lcab::perf {

/// [begin, end) on one clock; the unit is the caller's (microseconds in the simulator, ms in measurements). Unions
/// and coverage of such intervals: intervals.h.
using TimeInterval = Interval;

/// One rank's split, in the unit of its intervals.
struct CommOverlap {
  double compute = 0;  ///< length of the union of compute intervals
  double comm = 0;     ///< length of the union of transfers
  double exposed = 0;  ///< of comm, the part no compute interval covers
};
CommOverlap comm_overlap(std::vector<TimeInterval> compute, std::vector<TimeInterval> transfers);

/// 1 - sum(exposed) / sum(comm) over ranks; 1 when sum(comm) is 0.
double hidden_fraction(std::span<const CommOverlap> ranks);

/// The transfers of rank `rank`'s communication ops, from op intervals of every rank on one clock (ops[r][k]:
/// when op k of rank r could start on its rank and when it ended, as schedule.ranks[r].ops orders them): each
/// starts at the latest start among the op and its partners (a send/recv's matching op on the peer; every
/// member's op of the same collective) and ends at its own end. Non-communication ops are skipped.
std::vector<TimeInterval> transfer_intervals(const cp::Schedule& schedule,
                                             const std::vector<std::vector<TimeInterval>>& ops, int rank);

}  // namespace lcab::perf
