#include "calibrate/residual_stats.h"

#include <algorithm>
#include <cmath>

#include "model/error.h"

namespace lcab::calibrate {

double abs_percent_error(double predicted, double measured) {
  LCAB_CHECK(std::isfinite(predicted) && std::isfinite(measured) && measured > 0,
             "a percentage error needs a positive measured value and finite values; got predicted " << predicted
                                                                                                  << ", measured "
                                                                                                  << measured);
  return std::abs(predicted - measured) / measured * 100.0;
}

ResidualStats residual_stats(const std::vector<double>& predicted, const std::vector<double>& measured) {
  LCAB_CHECK(predicted.size() == measured.size(),
             predicted.size() << " predictions for " << measured.size() << " measurements");
  ResidualStats stats;
  stats.count = static_cast<int64_t>(measured.size());
  if (measured.empty()) return stats;
  std::vector<double> errors(measured.size());
  double sum = 0, signed_sum = 0;
  for (size_t n = 0; n < measured.size(); ++n) {
    errors[n] = abs_percent_error(predicted[n], measured[n]);
    sum += errors[n];
    signed_sum += (predicted[n] - measured[n]) / measured[n] * 100.0;
    if (errors[n] > stats.worst_pct || stats.worst_index < 0) {
      stats.worst_pct = errors[n];
      stats.worst_index = static_cast<int64_t>(n);
    }
  }
  stats.mape_pct = sum / static_cast<double>(errors.size());
  stats.bias_pct = signed_sum / static_cast<double>(errors.size());
  std::sort(errors.begin(), errors.end());
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(errors.size())));
  stats.p90_pct = errors[std::max<size_t>(rank, 1) - 1];
  return stats;
}

nlohmann::json to_json(const ResidualStats& stats) {
  return {{"count", stats.count},
          {"mape_pct", stats.mape_pct},
          {"p90_pct", stats.p90_pct},
          {"worst_pct", stats.worst_pct},
          {"bias_pct", stats.bias_pct}};
}

}  // namespace lcab::calibrate
