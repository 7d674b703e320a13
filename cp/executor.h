// The CUDA/NCCL executor of context-parallel schedules (DESIGN.md section 1: one schedule, two executors).
// Host-visible: no CUDA or NCCL header needed.
//
// A RankExecutor plays one rank's part of a Schedule (model/cp/schedule.h) on its GPU:
//   - one CUDA stream per schedule Stream the rank uses, one event per op, cudaStreamWaitEvent for every dep;
//   - point-to-point ops that follow each other in the op list (same step, same ring) form one NCCL group, as
//     the schedule pairs them with the peer's matching group (a ring step's send and receive never wait on
//     each other); inner and outer rings use separate communicators;
//   - all-gather, reduce-scatter and all-to-all on the group's communicator; all-to-alls with a head/sequence
//     layout change are packed/unpacked by small kernels and moved with grouped send/recv;
//   - compute items through the attention implementation's prepared plans (all prepared in the constructor,
//     never while timing), partial (out, lse) merged in fp32 (NaN-free for rows with no key yet), dQ, dK, dV
//     summed in fp32;
//   - buffers from a RankMemory (shared by name between the forward and the backward executor of a rank);
//   - with a timeline, an op's start event is recorded once its stream (and, for an NCCL group, every stream of
//     the group) is ready: what the op could not start before on this rank.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cp/communicators.h"
#include "cp/rank_memory.h"
#include "kernels/attention.h"
#include "model/cp/schedule.h"

typedef struct CUstream_st* cudaStream_t;

namespace lcab::cp {

/// The element type of 2-byte CP buffers for a kernels dtype.
ElementType element_type_of(kernels::DType dtype);

/// When one op ran on its stream, in ms from the start of the pass (timeline recording only).
struct OpInterval {
  int op = 0;
  OpKind kind = OpKind::kCompute;
  Stream stream = Stream::kCompute;
  int step = 0;
  double start_ms = 0;
  double end_ms = 0;
};

struct ExecutorOptions {
  bool record_timeline = false;  ///< a timing event before and after every op (small overhead)
};

class RankExecutor {
 public:
  /// Binds the schedule's buffers in `memory`, creates streams and events, prepares one attention plan per
  /// compute item (throws lcab::Error when the implementation does not support one) and the group
  /// communicators (collective: every rank constructs its executor for the same schedule together).
  RankExecutor(const Schedule& schedule, RankComms& comms, RankMemory& memory,
               const kernels::AttentionImpl& attention, ExecutorOptions options = {});
  ~RankExecutor();
  RankExecutor(const RankExecutor&) = delete;
  RankExecutor& operator=(const RankExecutor&) = delete;

  /// Enqueues one pass after the work already on `origin`: resets the schedule's zero_at_start buffers, plays
  /// every op; `origin` then waits for all of it. Returns without waiting for the GPU.
  void enqueue(cudaStream_t origin);
  /// The time of the last pass, from its first to its last op (ms); waits for the pass to finish.
  double last_pass_ms() const;
  /// With record_timeline: every op's interval in the last pass; waits for the pass to finish.
  std::vector<OpInterval> last_timeline() const;
  /// Device bytes held beyond the schedule's buffers: attention plans, scratch for partial results and
  /// all-to-all staging.
  int64_t workspace_bytes() const;
  const Schedule& schedule() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Compute, communication and exposed communication time of rank `rank` as model/perf/comm_overlap.h defines
/// them, from the timelines of every rank of `schedule` (timelines[r] as RankExecutor::last_timeline of rank r,
/// ms since each rank's pass start; the passes start after a barrier, so the clocks agree to within the skew
/// of the ranks' host threads, microseconds): compute is the union of the rank's attention and memory ops;
/// a communication op transfers from the latest start among it and its partners (the peer's matching op, every
/// member's op of a collective) to its end.
struct TimelineSplit {
  double compute_ms = 0;
  double comm_ms = 0;
  double exposed_comm_ms = 0;
};
TimelineSplit split_timeline(const Schedule& schedule, const std::vector<std::vector<OpInterval>>& timelines,
                             int rank);

}  // namespace lcab::cp
