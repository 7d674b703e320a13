// The subcommands of lcab-predict, one file each.
#pragma once

#include <string>
#include <vector>

namespace lcab::predict {

/// lcab-predict mask --mask SPEC --seqlen S [--kv-heads H] [--json FILE] [--csv FILE] [--with-slices]
int run_mask(const std::vector<std::string>& args, int argc, const char* const* argv);

}  // namespace lcab::predict
