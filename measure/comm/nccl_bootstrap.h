// Creating NCCL communicators for `lcab-measure comm` (and anything else that measures with NCCL):
//   - one process driving every GPU of the node, a thread per GPU (ncclCommInitAll);
//   - one process per GPU under mpirun/srun/torchrun (ncclCommInitRank), the unique id shared through MPI
//     when built with MPI and started by mpirun, otherwise through a file on a shared file system.
#pragma once

#include <string>
#include <vector>

#include <nccl.h>

#include "measure/comm/rank_environment.h"

namespace lcab::measure {

/// Sets NCCL_NVLS_ENABLE=0 unless the environment sets it (NVLink multicast can take shared GPUs out of
/// service; lcab never uses it). Call before the first NCCL call.
void disable_nvls_unless_set();

/// Communicators of one process over `devices` (rank i on devices[i]).
std::vector<ncclComm_t> init_comms_single_process(const std::vector<int>& devices);

/// The unique id of a multi-process launch. Rank 0 creates it; the others receive it. Through MPI when built
/// with MPI and env.launcher is "mpirun", else through `id_file`: rank 0 writes "<job id> <hex id>" (atomic
/// rename), the others wait up to timeout_s for a file with their job id that was written less than a minute
/// before they started or later (so that a file left by an earlier run is not taken).
ncclUniqueId share_unique_id(const RankEnvironment& env, const std::string& id_file, double timeout_s);

/// Rank 0 removes the id file at the end of a run (no-op elsewhere or when MPI was used).
void remove_unique_id_file(const RankEnvironment& env, const std::string& id_file);

/// Serialization of the id file's content (exposed for tests).
std::string format_unique_id_file(const std::string& job_id, const ncclUniqueId& id);
/// Returns false when the text is not a complete id file for job_id.
bool parse_unique_id_file(const std::string& text, const std::string& job_id, ncclUniqueId& id);

#ifdef LCAB_WITH_MPI
/// MPI_Bcast of the id from rank 0 (initializes MPI once; finalized at exit).
ncclUniqueId share_unique_id_mpi(int rank);
#endif

}  // namespace lcab::measure
