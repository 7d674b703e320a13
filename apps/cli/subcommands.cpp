#include "apps/cli/subcommands.h"

#include <iostream>

#include <boost/program_options/errors.hpp>

#include "model/error.h"

namespace lcab::cli {

int run_subcommands(const std::string& program, const std::vector<Subcommand>& commands, int argc,
                    const char* const* argv, const std::string& default_command) {
  auto usage = [&](std::ostream& out) {
    out << "usage: " << program << " <command> [options]   (" << program << " <command> --help for options)\n\n";
    for (const Subcommand& c : commands) out << "  " << c.name << std::string(10 - std::min<size_t>(9, c.name.size()), ' ') << c.summary << "\n";
  };
  std::string name = argc > 1 ? argv[1] : default_command;
  if (name.empty()) {
    usage(std::cerr);
    return 1;
  }
  if (name == "--help" || name == "-h" || name == "help") {
    usage(std::cout);
    return 0;
  }
  std::vector<std::string> args;
  for (int n = 2; n < argc; ++n) args.emplace_back(argv[n]);
  for (const Subcommand& c : commands) {
    if (c.name != name) continue;
    try {
      return c.run(args, argc, argv);
    } catch (const Error& e) {
      std::cerr << program << " " << name << ": error: " << e.what() << "\n";
      return 1;
    } catch (const boost::program_options::error& e) {
      std::cerr << program << " " << name << ": error: " << e.what() << "\n";
      return 1;
    } catch (const std::exception& e) {
      std::cerr << program << " " << name << ": error: " << e.what() << "\n";
      return 1;
    }
  }
  std::string valid;
  for (const Subcommand& c : commands) valid += (valid.empty() ? "" : ", ") + c.name;
  std::cerr << program << ": error: unknown command '" << name << "'; valid: " << valid << "\n";
  return 1;
}

}  // namespace lcab::cli
