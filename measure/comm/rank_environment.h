// Who this process is when a launcher started one process per GPU: mpirun (OMPI_COMM_WORLD_*), srun (SLURM_*)
// or torchrun (RANK, WORLD_SIZE, LOCAL_RANK). Host-only.
#pragma once

#include <functional>
#include <string>

namespace lcab::measure {

struct RankEnvironment {
  std::string launcher = "none";  ///< "none" | "mpirun" | "srun" | "torchrun"
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;             ///< selects the GPU of this process
  std::string job_id;             ///< the launcher's job id where it sets one ("" otherwise)
};

using EnvLookup = std::function<const char*(const char*)>;

/// Reads the launcher's variables, checked in the order mpirun, srun, torchrun; "none" when none is set.
/// Throws lcab::Error when a variable is not an integer or rank/local rank are out of range.
RankEnvironment detect_rank_environment(const EnvLookup& lookup);
/// The same with the process environment.
RankEnvironment detect_rank_environment();

}  // namespace lcab::measure
