#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "apps/lcab_measure/commands.h"

namespace lcab::measure_app {

bool restart_process(int argc, const char* const* argv, int max_restarts) {
  const char* count_text = std::getenv("LCAB_MEASURE_RESTARTS");
  const int count = count_text ? std::atoi(count_text) : 0;
  if (count >= max_restarts) {
    std::cerr << "lcab-measure: " << count << " restarts in a row; giving up\n";
    return false;
  }
  setenv("LCAB_MEASURE_RESTARTS", std::to_string(count + 1).c_str(), 1);
  std::vector<char*> args;
  for (int n = 0; n < argc; ++n) args.push_back(const_cast<char*>(argv[n]));
  args.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  execv("/proc/self/exe", args.data());
  std::cerr << "lcab-measure: could not restart itself (execv failed)\n";
  return false;
}

}  // namespace lcab::measure_app
