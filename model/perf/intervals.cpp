#include "model/perf/intervals.h"

#include <algorithm>

namespace lcab::perf {

std::vector<Interval> merge(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (i.end <= i.begin) continue;
    if (!out.empty() && i.begin <= out.back().end) out.back().end = std::max(out.back().end, i.end);
    else out.push_back(i);
  }
  return out;
}

double length(const std::vector<Interval>& merged) {
  double total = 0;
  for (const Interval& i : merged) total += i.end - i.begin;
  return total;
}

double covered(const std::vector<Interval>& merged, double b, double e) {
  auto it = std::upper_bound(merged.begin(), merged.end(), b, [](double x, const Interval& i) { return x < i.end; });
  double total = 0;
  for (; it != merged.end() && it->begin < e; ++it) total += std::min(e, it->end) - std::max(b, it->begin);
  return total;
}

double minus_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double total = 0;
  for (const Interval& i : a) total += (i.end - i.begin) - covered(b, i.begin, i.end);
  return total;
}

}  // namespace lcab::perf
