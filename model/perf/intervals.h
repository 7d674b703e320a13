// Unions of time intervals, as the CP simulators need them: busy time of a stream, communication hidden under
// compute, overlap of one op with a rank's communication. Both simulators (cp_simulator.h, lockstep_simulator.h)
// use these, so that their summaries are computed by the same arithmetic.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace lcab::perf {

struct Interval {
  double begin = 0;
  double end = 0;
};

/// Sorted, disjoint union of intervals (empty ones dropped, touching ones joined).
std::vector<Interval> merge(std::vector<Interval> intervals);
/// Appends an interval to a union being built from intervals sorted by begin (what merge() does after sorting).
void append_sorted(std::vector<Interval>& merged, const Interval& interval);

/// The union of intervals added in any order, always as merge() of them all would give it (its pieces are input
/// begins and ends, so the same numbers whatever the order). Made for intervals that come nearly sorted, as a
/// rank's transfers do: the latest pieces stay in a small window inside the object, so an interval that overlaps or
/// follows them costs O(1) without touching the stored pieces; one reaching further back costs a binary search.
class IntervalUnion {
 public:
  void add(const Interval& interval);
  /// The union so far (sorted, disjoint, touching pieces joined).
  const std::vector<Interval>& pieces();
  std::size_t size() const { return stored_.size() + static_cast<std::size_t>(count_); }
  void reserve(std::size_t pieces) { stored_.reserve(pieces); }

 private:
  static constexpr int kWindow = 4;
  void spill_window();
  void stored_changed() { stored_end_ = stored_.empty() ? -kInfinity : stored_.back().end; }
  static constexpr double kInfinity = 1e308;
  std::vector<Interval> stored_;          // all before window_[0], not touching it
  double stored_end_ = -kInfinity;        // stored_.back().end (kept here: the stored pieces are cold)
  std::array<Interval, kWindow> window_;  // the latest pieces, sorted, disjoint
  int count_ = 0;
};

/// Total length of a merged list.
double length(const std::vector<Interval>& merged);
/// Length of [begin, end) covered by a merged list.
double covered(const std::vector<Interval>& merged, double begin, double end);
/// covered() for queries in increasing order of begin: `first` (0 at the start) remembers where the last query
/// began its scan, so a sweep over many queries is linear. The same sum as covered().
double covered_from(const std::vector<Interval>& merged, std::size_t& first, double begin, double end);
/// |a \ b| for merged lists.
double minus_length(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace lcab::perf
