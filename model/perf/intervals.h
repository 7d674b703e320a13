// Unions of time intervals, as the CP simulators need them: busy time of a stream, communication hidden under
// compute, overlap of one op with a rank's communication. Both simulators (cp_simulator.h, lockstep_simulator.h)
// use these, so that their summaries are computed by the same arithmetic.
#pragma once

#include <vector>

namespace lcab::perf {

struct Interval {
  double begin;
  double end;
};

/// Sorted, disjoint union of intervals (empty ones dropped, touching ones joined).
std::vector<Interval> merge(std::vector<Interval> intervals);
/// Total length of a merged list.
double length(const std::vector<Interval>& merged);
/// Length of [begin, end) covered by a merged list.
double covered(const std::vector<Interval>& merged, double begin, double end);
/// |a \ b| for merged lists.
double minus_length(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace lcab::perf
