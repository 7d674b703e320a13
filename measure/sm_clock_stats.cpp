// The host half of sm_clock.h: turning two markers' samples into a clock (no CUDA needed, so that it is tested
// on machines without a GPU).
#include <algorithm>
#include <map>

#include "measure/sm_clock.h"
#include "measure/time_stats.h"

namespace lcab::measure {

std::optional<double> sm_clock_mhz_between(const std::vector<SmClockSample>& before,
                                           const std::vector<SmClockSample>& after) {
  std::map<uint32_t, SmClockSample> first_before;
  for (const SmClockSample& s : before) first_before.emplace(s.sm, s);
  std::map<uint32_t, bool> seen_after;
  std::vector<double> mhz;
  for (const SmClockSample& s : after) {
    if (!seen_after.emplace(s.sm, true).second) continue;
    auto it = first_before.find(s.sm);
    if (it == first_before.end()) continue;
    const SmClockSample& b = it->second;
    if (s.global_ns <= b.global_ns || s.cycles <= b.cycles) continue;
    mhz.push_back(static_cast<double>(s.cycles - b.cycles) / static_cast<double>(s.global_ns - b.global_ns) * 1e3);
  }
  if (mhz.empty()) return std::nullopt;
  return percentile(mhz, 50);
}

}  // namespace lcab::measure
