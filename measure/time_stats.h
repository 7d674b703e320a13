// Summary statistics of repeated timings: median, 20th and 80th percentiles (linear interpolation between
// order statistics, as numpy.percentile does by default).
#pragma once

#include <vector>

#include "model/record.h"

namespace lcab::measure {

/// The q-th percentile (0 <= q <= 100) of samples; throws lcab::Error when samples is empty.
double percentile(std::vector<double> samples, double q);

/// median, p20 and p80 of samples (in whatever unit they are; records use milliseconds).
TimeStatsMs summarize_times(const std::vector<double>& samples_ms);

}  // namespace lcab::measure
