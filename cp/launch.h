// Launching a CP run (DESIGN.md section 4): a thread per GPU in one process, or a process per GPU under
// mpirun, srun or torchrun. Host-visible.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cp/communicators.h"

namespace lcab::cp {

/// GPUs visible to this process; 0 when there is no GPU or no driver (never throws).
int visible_gpu_count();

/// Makes `device` current on the calling thread.
void set_current_device(int device);

/// Runs body(comms) on one thread per GPU, GPUs 0 .. gpus-1 of this machine, each with its world communicator
/// (rank = GPU index). Waits for every thread; an exception of any thread is rethrown here (the first one) and
/// printed at once to stderr (other ranks may then wait for it in NCCL).
void run_thread_per_gpu(int gpus, const std::function<void(RankComms&)>& body);

/// This process's place in a job started by a launcher.
struct LaunchEnvironment {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;       ///< the GPU this process drives
  std::string launcher;     ///< "openmpi", "slurm", "torchrun"
};

/// Reads OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK}, SLURM_{PROCID,NTASKS,LOCALID} or RANK/WORLD_SIZE/LOCAL_RANK;
/// nullopt when none is set or the world has one rank.
std::optional<LaunchEnvironment> detect_launcher();

/// The world communicator of this process's rank. The NCCL unique id comes from MPI (when built with MPI and
/// started by mpirun), else from NCCL_COMM_ID (every rank derives the same id from it), else from id_file:
/// rank 0 writes it, the others wait for it (up to timeout_s). Throws naming what to set when none applies.
std::unique_ptr<RankComms> connect_process(const LaunchEnvironment& env, const std::string& id_file,
                                           double timeout_s = 120);

}  // namespace lcab::cp
