#include "measure/time_stats.h"

#include <algorithm>
#include <cmath>

#include "model/error.h"

namespace lcab::measure {

double percentile(std::vector<double> samples, double q) {
  LCAB_CHECK(!samples.empty(), "percentile of no samples");
  LCAB_CHECK(q >= 0 && q <= 100, "percentile " << q << " is outside [0, 100]");
  std::sort(samples.begin(), samples.end());
  const double position = q / 100.0 * static_cast<double>(samples.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, samples.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return samples[below] + fraction * (samples[above] - samples[below]);
}

TimeStatsMs summarize_times(const std::vector<double>& samples_ms) {
  return {percentile(samples_ms, 50), percentile(samples_ms, 20), percentile(samples_ms, 80)};
}

}  // namespace lcab::measure
