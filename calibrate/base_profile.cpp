#include "calibrate/base_profile.h"

#include <set>

#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::calibrate {

perf::HardwareProfile choose_base_profile(const std::string& base, const std::vector<Record>& records) {
  if (!base.empty()) return perf::resolve_profile(base);
  std::set<std::string> devices, matches;
  for (const Record& record : records) {
    if (!record.device || record.device->name.empty()) continue;
    devices.insert(record.device->name);
    for (const std::string& name : perf::builtin_profile_names()) {
      // "h100_sxm" -> "H100": the GPU's name as drivers report it ("NVIDIA H100 80GB HBM3").
      std::string gpu = name.substr(0, name.find('_'));
      for (char& c : gpu) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (record.device->name.find(gpu) != std::string::npos) matches.insert(name);
    }
  }
  LCAB_CHECK(matches.size() == 1,
             "cannot choose a base profile from the records' devices ("
                 << (devices.empty() ? std::string("none recorded")
                                     : join(std::vector<std::string>(devices.begin(), devices.end())))
                 << "); give --base with a built-in name (" << join(perf::builtin_profile_names())
                 << ") or a profile file");
  return perf::builtin_profile(*matches.begin());
}

}  // namespace lcab::calibrate
