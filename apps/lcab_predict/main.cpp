// lcab-predict: what the model says, with no GPU. Subcommands in DESIGN.md section 8.
#include "apps/cli/subcommands.h"
#include "apps/lcab_predict/commands.h"

int main(int argc, char** argv) {
  using lcab::cli::Subcommand;
  const std::vector<Subcommand> commands = {
      {"mask", "slices, area, density, documents and tile counts of mask specs", lcab::predict::run_mask},
      {"kernel", "predicted time, TFLOP/s, waves and memory of attention kernels", lcab::predict::run_kernel},
      {"cp", "simulate one context-parallel config: steps, communication, imbalance, memory, trace",
       lcab::predict::run_cp},
      {"plan", "rank every CP method x degrees x placement x windows for a cluster", lcab::predict::run_plan},
      {"sweep", "plans over a grid of masks, sequence lengths and GPU counts (--grid GRID.json)",
       lcab::predict::run_sweep},
  };
  // With no arguments: the plan of a representative case on the built-in H100 profile.
  if (argc == 1) {
    const char* defaults[] = {argv[0], "plan", "--mask", "causal_document_long", "--seqlen", "512k",
                              "--gpus", "64", "--gpus-per-node", "8", "--profile", "h100_sxm"};
    return lcab::cli::run_subcommands("lcab-predict", commands, 12, defaults);
  }
  return lcab::cli::run_subcommands("lcab-predict", commands, argc, argv);
}
