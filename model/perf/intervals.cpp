#include "model/perf/intervals.h"

#include <algorithm>

namespace lcab::perf {

namespace {
bool by_begin(const Interval& a, const Interval& b) { return a.begin < b.begin; }
}  // namespace

void append_sorted(std::vector<Interval>& merged, const Interval& i) {
  if (i.end <= i.begin) return;
  if (!merged.empty() && i.begin <= merged.back().end) merged.back().end = std::max(merged.back().end, i.end);
  else merged.push_back(i);
}

std::vector<Interval> merge(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), by_begin);
  std::vector<Interval> out;
  for (const Interval& i : v) append_sorted(out, i);
  return out;
}

namespace {
// Adds i to a sorted, disjoint list: the pieces it overlaps or touches and i become one.
template <class It>
It join(It begin, It end, const Interval& i) {
  It first = std::lower_bound(begin, end, i.begin, [](const Interval& piece, double b) { return piece.end < b; });
  It last = first;
  Interval joined = i;
  for (; last != end && last->begin <= i.end; ++last) {
    joined.begin = std::min(joined.begin, last->begin);
    joined.end = std::max(joined.end, last->end);
  }
  if (first == last) return first;  // no piece joins: insert before first
  *first = joined;
  return std::move(last, end, first + 1);  // the new end
}
}  // namespace

void IntervalUnion::add(const Interval& i) {
  if (i.end <= i.begin) return;
  if (i.begin <= stored_end_) {  // reaches back into the stored pieces: rare
    spill_window();
    auto at = std::lower_bound(stored_.begin(), stored_.end(), i.begin,
                               [](const Interval& piece, double b) { return piece.end < b; });
    if (at == stored_.end() || at->begin > i.end) stored_.insert(at, i);
    else stored_.erase(join(stored_.begin(), stored_.end(), i), stored_.end());
    stored_changed();
    return;
  }
  Interval* const begin = window_.data();
  Interval* const end = begin + count_;
  Interval* at = std::lower_bound(begin, end, i.begin, [](const Interval& piece, double b) { return piece.end < b; });
  if (at != end && at->begin <= i.end) {  // joins window pieces
    count_ = static_cast<int>(join(begin, end, i) - begin);
    return;
  }
  if (count_ == kWindow) {  // the oldest piece leaves the window (i comes after it: i.begin > stored back)
    if (at == begin) {
      stored_.push_back(i);  // i is before every window piece and after the stored ones
      stored_end_ = i.end;
      return;
    }
    stored_.push_back(window_[0]);
    stored_end_ = window_[0].end;
    std::move(begin + 1, end, begin);
    --count_;
    --at;
  }
  std::move_backward(at, begin + count_, begin + count_ + 1);
  *at = i;
  ++count_;
}

void IntervalUnion::spill_window() {
  stored_.insert(stored_.end(), window_.begin(), window_.begin() + count_);
  count_ = 0;
  stored_changed();
}

const std::vector<Interval>& IntervalUnion::pieces() {
  spill_window();
  return stored_;
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

double covered_from(const std::vector<Interval>& merged, size_t& first, double b, double e) {
  while (first < merged.size() && !(b < merged[first].end)) ++first;
  double total = 0;
  for (size_t n = first; n < merged.size() && merged[n].begin < e; ++n)
    total += std::min(e, merged[n].end) - std::max(b, merged[n].begin);
  return total;
}

double minus_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double total = 0;
  size_t first = 0;
  for (const Interval& i : a) total += (i.end - i.begin) - covered_from(b, first, i.begin, i.end);
  return total;
}

}  // namespace lcab::perf
