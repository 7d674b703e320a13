// The timing driver of `lcab-measure comm`: every (operation, size) on the groups of a layout, warm-up and
// timed iterations with CUDA events around each call; a rank's time of an iteration is its event time, and the
// time of the iteration is the slowest rank's (an all-reduce MAX over the world), so every rank ends with the
// same results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nccl.h>

#include "measure/comm/collective.h"
#include "measure/comm/comm_plan.h"
#include "measure/comm/rank_environment.h"
#include "model/record.h"

namespace lcab::measure {

struct CommSweepOptions {
  std::vector<std::string> ops;   ///< collective names (CollectiveRegistry)
  std::vector<int64_t> sizes;     ///< bytes, nccl-tests' convention per operation (collective.h)
  std::vector<GroupLayout> groups{GroupLayout{}};  ///< layouts measured one after the other
  int warmup = 5;
  int iters = 20;
};

struct CommResult {
  std::string op;
  std::string group;              ///< the layout, "world" | "contiguous:N" | "strided:N"
  int64_t bytes = 0;              ///< after rounding to the operation's granularity
  int world_size = 0;
  int group_size = 0;
  int64_t chunk_bytes = 0;
  TimeStatsMs time_ms;            ///< over iterations, each the slowest rank's time
  double algbw_gb_per_s = 0;      ///< bytes / median time, 1e9 bytes per GB as nccl-tests
  double busbw_gb_per_s = 0;
};

/// Runs the sweep as `rank` of `world` on `device` (the caller's thread may drive only this rank). Every rank
/// of the world must call it with the same options at the same time. For each layout, splits `world` into its
/// groups (ncclCommSplit) and frees them after. Results ordered by layout, operation, size.
std::vector<CommResult> run_comm_sweep_rank(const CollectiveRegistry& registry, const CommSweepOptions& options,
                                            ncclComm_t world, int rank, int world_size, int device);

/// One process, a thread per device: communicators by ncclCommInitAll, one sweep per thread. Returns rank 0's
/// results. Throws the first rank's error after every thread ended.
std::vector<CommResult> run_comm_sweep_threads(const CollectiveRegistry& registry, const CommSweepOptions& options,
                                               const std::vector<int>& devices);

/// One process per GPU (env from the launcher): the device is env.local_rank; the unique id is shared as
/// nccl_bootstrap.h describes. Returns this rank's results (equal on every rank).
std::vector<CommResult> run_comm_sweep_process(const CollectiveRegistry& registry, const CommSweepOptions& options,
                                               const RankEnvironment& env, const std::string& id_file,
                                               double id_timeout_s);

/// The record of one result (kind "comm"; key op, bytes, gpus, group).
Record make_comm_record(const CommResult& result, const DeviceInfo& device, const nlohmann::json& meta,
                        const std::string& launch);

}  // namespace lcab::measure
