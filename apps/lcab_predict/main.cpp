// lcab-predict: what the model says, with no GPU. Subcommands in DESIGN.md section 8.
#include "apps/cli/subcommands.h"
#include "apps/lcab_predict/commands.h"

int main(int argc, char** argv) {
  using lcab::cli::Subcommand;
  const std::vector<Subcommand> commands = {
      {"mask", "slices, area, density, documents and tile counts of mask specs", lcab::predict::run_mask},
  };
  // With no arguments: a representative case (becomes the planner once the model exists).
  if (argc == 1) {
    const char* defaults[] = {argv[0], "mask", "--mask",
                              "causal,causal_document,sliding_window_causal:window=1024",
                              "--seqlen", "32k,512k"};
    return lcab::cli::run_subcommands("lcab-predict", commands, 6, defaults);
  }
  return lcab::cli::run_subcommands("lcab-predict", commands, argc, argv);
}
