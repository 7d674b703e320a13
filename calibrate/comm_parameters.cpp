#include "calibrate/comm_parameters.h"

#include <algorithm>

namespace lcab::calibrate {

namespace {

using SourcedMember = perf::Sourced perf::CollectiveParams::*;

ProfileParameter latency_parameter(const char* name, const char* hint, size_t index, SourcedMember member,
                                   double scale) {
  return entry_parameter(name, hint, scale, &perf::HardwareProfile::collectives, index, member);
}

/// A bandwidth fitted as its inverse (us per byte), which the model is linear in.
ProfileParameter inverse_bandwidth_parameter(const char* name, const char* hint, size_t index, SourcedMember member,
                                             double start_bytes_per_s) {
  ProfileParameter p;
  p.name = name;
  p.hint = hint;
  p.scale = 1e6 / start_bytes_per_s;
  p.get = [index, member](const perf::HardwareProfile& profile) {
    return 1e6 / (profile.collectives[index].*member).value;
  };
  p.set = [index, member](perf::HardwareProfile& profile, double us_per_byte) {
    // Zero inverse bandwidth would be infinite bandwidth: keep the model finite while the fit explores.
    (profile.collectives[index].*member).value = 1e6 / std::max(us_per_byte, 1e-30);
  };
  return p;
}

}  // namespace

std::vector<ProfileParameter> comm_fit_parameters(perf::HardwareProfile& profile, size_t index,
                                                  bool with_low_latency_line, double crossover_bytes,
                                                  bool with_group_size_term) {
  perf::CollectiveParams& start = profile.collectives[index];
  std::vector<ProfileParameter> parameters;
  parameters.push_back(latency_parameter("latency_us", "small messages (from 1 MiB up)", index,
                                         &perf::CollectiveParams::latency_us, start.latency_us.value));
  parameters.push_back(inverse_bandwidth_parameter("us_per_byte", "large messages", index,
                                                   &perf::CollectiveParams::bytes_per_s, start.bytes_per_s.value));
  start.small_group_us_per_byte.value = 0;
  if (with_group_size_term)
    parameters.push_back(latency_parameter("small_group_us_per_byte", "large messages on groups of two sizes", index,
                                           &perf::CollectiveParams::small_group_us_per_byte,
                                           0.25e6 / start.bytes_per_s.value));
  if (!with_low_latency_line) return parameters;
  if (!start.has_low_latency_line()) {
    // 0.5 lat + B / ll_bw = lat + B / bw at B = crossover: 1 / ll_bw = 1 / bw + 0.5 lat / B.
    const double latency_s = std::max(start.latency_us.value, 1.0) * 1e-6;
    start.ll_latency_us.value = 0.5 * latency_s * 1e6;
    start.ll_bytes_per_s.value =
        1.0 / (1.0 / start.bytes_per_s.value + 0.5 * latency_s / std::max(crossover_bytes, 1.0));
  }
  parameters.push_back(latency_parameter("ll_latency_us", "the smallest messages (1-4 MiB), several sizes", index,
                                         &perf::CollectiveParams::ll_latency_us, start.ll_latency_us.value));
  parameters.push_back(inverse_bandwidth_parameter("ll_us_per_byte", "the smallest messages, several sizes", index,
                                                   &perf::CollectiveParams::ll_bytes_per_s,
                                                   start.ll_bytes_per_s.value));
  return parameters;
}

std::vector<std::pair<std::string, double>> reported_comm_parameters(const perf::CollectiveParams& params) {
  std::vector<std::pair<std::string, double>> out{{"latency_us", params.latency_us.value},
                                                  {"bytes_per_s", params.bytes_per_s.value}};
  if (params.has_low_latency_line()) {
    out.emplace_back("ll_latency_us", params.ll_latency_us.value);
    out.emplace_back("ll_bytes_per_s", params.ll_bytes_per_s.value);
  }
  if (params.small_group_us_per_byte.value > 0)  // as the bus bandwidth it gives a pair of ranks
    out.emplace_back("two_rank_bytes_per_s", 1e6 / params.simple_us_per_byte(2));
  return out;
}

}  // namespace lcab::calibrate
