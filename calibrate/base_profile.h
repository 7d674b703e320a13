// Which profile a calibration starts from: the one named by --base (built-in name or path), else the built-in
// profile of the GPU the records were measured on.
#pragma once

#include <string>
#include <vector>

#include "model/perf/profile.h"
#include "model/record.h"

namespace lcab::calibrate {

/// `base` when given (perf::resolve_profile). Otherwise the built-in profile whose GPU the records' device names
/// mention ("H100" -> h100_sxm, "H200" -> h200_sxm); throws lcab::Error asking for --base when the records name
/// no device, another GPU, or more than one.
perf::HardwareProfile choose_base_profile(const std::string& base, const std::vector<Record>& records);

}  // namespace lcab::calibrate
