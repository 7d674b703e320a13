// The fitted parameters of one collective entry (model/perf/profile.h, comm_cost.h), as the fits see them.
//
//   latency_us, us_per_byte          NCCL's Simple protocol line (us_per_byte = 1e6 / bytes_per_s: linear, >= 0)
//   ll_latency_us, ll_us_per_byte    the low-latency protocol line (LL/LL128), used where it is faster: small
//                                    messages; only with with_low_latency_line
//   small_group_us_per_byte          the Simple line's extra time per bus byte at 2 members, x 2 / n (profile.h);
//                                    only with with_group_size_term: records of at least two group sizes
#pragma once

#include <cstddef>
#include <vector>

#include "calibrate/model_fit.h"
#include "model/perf/profile.h"

namespace lcab::calibrate {

/// Parameters of profile.collectives[index]. With the low-latency line and an entry that has none yet, the line
/// starts at half the Simple line's latency and crosses it at `crossover_bytes` (the records' middle size), so
/// that the fit sees it on the smaller half of the messages.
/// With the group-size term, it starts at 0 (the bandwidth independent of the group size).
std::vector<ProfileParameter> comm_fit_parameters(perf::HardwareProfile& profile, size_t index,
                                                  bool with_low_latency_line, double crossover_bytes,
                                                  bool with_group_size_term = false);

/// Reported names and values of the fitted entry, bandwidths as bytes per second (the group-size term as the
/// Simple line's bus bandwidth at 2 ranks, two_rank_bytes_per_s).
std::vector<std::pair<std::string, double>> reported_comm_parameters(const perf::CollectiveParams& params);

}  // namespace lcab::calibrate
