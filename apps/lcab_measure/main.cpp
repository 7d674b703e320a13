// lcab-measure: measurements on real GPUs, recorded as JSON Lines (DESIGN.md sections 5, 7, 8).
#include "apps/cli/subcommands.h"
#include "apps/lcab_measure/commands.h"

int main(int argc, char** argv) {
  using lcab::cli::Subcommand;
  const std::vector<Subcommand> commands = {
#ifdef LCAB_MEASURE_WITH_KERNELS
      {"kernel", "attention kernels x masks x seqlens x passes x shapes, CUPTI-profiled", lcab::measure_app::run_kernel},
#endif
#ifdef LCAB_MEASURE_WITH_COMM
      {"comm", "NCCL send/recv, all-to-all, all-gather, reduce-scatter, all-reduce over sizes", lcab::measure_app::run_comm},
#endif
#ifdef LCAB_MEASURE_WITH_CP
      {"cp", "context-parallel methods (ring, allgather, ulysses, usp, loongtrain) on GPUs, per-rank timelines", lcab::measure_app::run_cp},
#endif
  };
  return lcab::cli::run_subcommands("lcab-measure", commands, argc, argv);
}
