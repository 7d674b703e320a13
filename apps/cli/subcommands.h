// Subcommand dispatch for the lcab executables: `lcab-predict mask ...`, `lcab-measure kernel ...`.
// Commands are registered explicitly by the executable's main(); an unknown name is an error listing the valid
// ones. Errors (lcab::Error, Boost option errors) become one line on stderr and exit code 1, here only.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace lcab::cli {

struct Subcommand {
  std::string name;
  std::string summary;
  /// Receives the arguments after the subcommand name and the full argv (for record metadata).
  std::function<int(const std::vector<std::string>& args, int argc, const char* const* argv)> run;
};

/// Runs argv[1] as a subcommand (or default_command when there are no arguments, if non-empty).
int run_subcommands(const std::string& program, const std::vector<Subcommand>& commands, int argc,
                    const char* const* argv, const std::string& default_command = "");

}  // namespace lcab::cli
