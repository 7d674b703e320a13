// Interval unions (model/perf/intervals.h): the online union equals merge() for intervals in any order, and the
// sweeping coverage equals covered().
#include "model/perf/intervals.h"

#include <random>

#include <gtest/gtest.h>

namespace lcab::perf {
namespace {

bool same(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  if (a.size() != b.size()) return false;
  for (size_t n = 0; n < a.size(); ++n)
    if (a[n].begin != b[n].begin || a[n].end != b[n].end) return false;
  return true;
}

// Intervals on a coarse grid (so that many touch or coincide), nearly sorted or shuffled.
std::vector<Interval> random_intervals(std::mt19937_64& rng, int count, bool nearly_sorted) {
  std::vector<Interval> v;
  std::uniform_int_distribution<int> start(0, 4 * count), length(0, 6), jitter(-8, 2);
  double t = 0;
  for (int n = 0; n < count; ++n) {
    const double b = nearly_sorted ? std::max(0.0, t + jitter(rng)) : start(rng);
    v.push_back({b, b + length(rng)});
    t += 2;
  }
  return v;
}

TEST(PerfIntervals, OnlineUnionEqualsMergeInAnyOrder) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::vector<Interval> v = random_intervals(rng, 1 + trial % 60, trial % 2 == 0);
    IntervalUnion u;
    for (const Interval& i : v) u.add(i);
    ASSERT_TRUE(same(u.pieces(), merge(v))) << "trial " << trial;
  }
}

TEST(PerfIntervals, SweepingCoverageEqualsCovered) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    const std::vector<Interval> pieces = merge(random_intervals(rng, 40, false));
    std::vector<Interval> queries = merge(random_intervals(rng, 30, false));
    size_t first = 0;
    for (const Interval& q : queries)
      ASSERT_EQ(covered_from(pieces, first, q.begin, q.end), covered(pieces, q.begin, q.end));
  }
}

TEST(PerfIntervals, TouchingIntervalsJoinAndEmptyOnesVanish) {
  IntervalUnion u;
  for (Interval i : {Interval{5, 6}, Interval{1, 2}, Interval{3, 3}, Interval{2, 3}, Interval{8, 9}, Interval{6, 8}})
    u.add(i);
  ASSERT_EQ(u.pieces().size(), 2u);
  EXPECT_EQ(u.pieces()[0].begin, 1);
  EXPECT_EQ(u.pieces()[0].end, 3);
  EXPECT_EQ(u.pieces()[1].begin, 5);
  EXPECT_EQ(u.pieces()[1].end, 9);
}

}  // namespace
}  // namespace lcab::perf
