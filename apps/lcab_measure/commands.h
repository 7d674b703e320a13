// The subcommands of lcab-measure, one file each. To add one (e.g. `cp`), write its run function here and in
// its own file, and add a line to the command list in main.cpp.
#pragma once

#include <string>
#include <vector>

namespace lcab::measure_app {

/// lcab-measure kernel: attention kernels x masks x seqlens x passes x shapes (measure/kernel_bench.h).
int run_kernel(const std::vector<std::string>& args, int argc, const char* const* argv);

/// lcab-measure comm: NCCL operations over message sizes and group layouts (measure/comm/comm_bench.h).
int run_comm(const std::vector<std::string>& args, int argc, const char* const* argv);

/// lcab-measure cp: CP methods x masks x seqlens x degrees x placements x passes through the CP executor
/// (cp/executor.h), thread per GPU or process per GPU.
int run_cp(const std::vector<std::string>& args, int argc, const char* const* argv);

/// Replaces this process by a fresh run of the same command line (after a sticky CUDA error, so that a sweep
/// resumes from its --out file). Gives up, returning false, after `max_restarts` restarts in a row or when
/// exec fails; never returns on success.
bool restart_process(int argc, const char* const* argv, int max_restarts = 100);

}  // namespace lcab::measure_app
