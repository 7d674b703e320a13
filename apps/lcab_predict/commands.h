// The subcommands of lcab-predict, one file each.
#pragma once

#include <string>
#include <vector>

namespace lcab::predict {

/// lcab-predict mask --mask SPEC --seqlen S [--kv-heads H] [--json FILE] [--csv FILE] [--with-slices]
int run_mask(const std::vector<std::string>& args, int argc, const char* const* argv);
/// lcab-predict kernel --impl NAME --mask SPEC --seqlen S --pass fwd|bwd [--profile P]
int run_kernel(const std::vector<std::string>& args, int argc, const char* const* argv);
/// lcab-predict cp --method NAME --gpus P [--ulysses U --ring R --windows W --placement X] [--trace FILE]
int run_cp(const std::vector<std::string>& args, int argc, const char* const* argv);
/// lcab-predict plan --gpus P [--gpus-per-node G] --mask SPEC --seqlen S
int run_plan(const std::vector<std::string>& args, int argc, const char* const* argv);
/// lcab-predict sweep --grid GRID.json
int run_sweep(const std::vector<std::string>& args, int argc, const char* const* argv);

}  // namespace lcab::predict
