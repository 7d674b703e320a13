#include "measure/comm/rank_environment.h"

#include <cstdlib>

#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::measure {

namespace {
struct LauncherVariables {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* job_id;
};

constexpr LauncherVariables kLaunchers[] = {
    {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_MCA_ess_base_jobid"},
    {"srun", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID"},
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "TORCHELASTIC_RUN_ID"},
};

int read_int(const EnvLookup& lookup, const char* name) {
  const char* value = lookup(name);
  LCAB_CHECK(value && *value, "environment variable " << name << " is not set (needed with the launcher's other variables)");
  try {
    return static_cast<int>(parse_int(value));
  } catch (const Error&) {
    LCAB_THROW("environment variable " << name << "='" << value << "' is not an integer");
  }
}
}  // namespace

RankEnvironment detect_rank_environment(const EnvLookup& lookup) {
  for (const LauncherVariables& v : kLaunchers) {
    const char* rank = lookup(v.rank);
    if (!rank || !*rank) continue;
    RankEnvironment env;
    env.launcher = v.launcher;
    env.rank = read_int(lookup, v.rank);
    env.world_size = read_int(lookup, v.size);
    const char* local = lookup(v.local_rank);
    env.local_rank = local && *local ? read_int(lookup, v.local_rank) : env.rank;
    const char* job = lookup(v.job_id);
    env.job_id = job ? job : "";
    LCAB_CHECK(env.world_size > 0, v.size << " must be positive, got " << env.world_size);
    LCAB_CHECK(env.rank >= 0 && env.rank < env.world_size,
               v.rank << "=" << env.rank << " is outside [0, " << env.world_size << ")");
    LCAB_CHECK(env.local_rank >= 0, v.local_rank << " must not be negative, got " << env.local_rank);
    return env;
  }
  return {};
}

RankEnvironment detect_rank_environment() {
  return detect_rank_environment([](const char* name) { return std::getenv(name); });
}

}  // namespace lcab::measure
