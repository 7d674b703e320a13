// Accuracy of predictions against measurements, as relative errors in percent: MAPE (mean absolute percentage
// error), p90 and worst. These are the numbers the accuracy targets of issue 8 are stated in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lcab::calibrate {

/// |predicted - measured| / measured * 100 for one point; measured must be positive and both finite.
double abs_percent_error(double predicted, double measured);

struct ResidualStats {
  int64_t count = 0;
  double mape_pct = 0;    ///< mean of |predicted - measured| / measured, in percent
  double p90_pct = 0;     ///< 90th percentile of the same (nearest rank: the ceil(0.9 n)-th smallest)
  double worst_pct = 0;   ///< the largest
  int64_t worst_index = -1;  ///< index of the worst point in the inputs (-1 when empty)
  double bias_pct = 0;    ///< mean of (predicted - measured) / measured: > 0 means the model over-predicts
};

/// Statistics of predicted vs measured (same length, measured > 0). Empty inputs give count 0 and zeros.
ResidualStats residual_stats(const std::vector<double>& predicted, const std::vector<double>& measured);

/// {"count":..,"mape_pct":..,"p90_pct":..,"worst_pct":..,"bias_pct":..}
nlohmann::json to_json(const ResidualStats& stats);

}  // namespace lcab::calibrate
