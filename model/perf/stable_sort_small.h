// A stable sort for the short lists of the kernel cost model (a CP item's outer tiles, sorted per call by millions):
// insertion sort up to kInsertionSortMax elements (no buffer allocated), std::stable_sort above; and for long lists
// sorted by a small integer key (an allgather item's thousands of k-tile columns, keyed 4 x tiles + boundary tiles)
// a counting sort. A stable sort has one result, so all give the same order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace lcab::perf {

inline constexpr size_t kInsertionSortMax = 64;

/// Sorts `v` by `less` (a strict weak order), equal elements kept in their order: std::stable_sort's result.
template <class T, class Less>
void stable_sort_small(std::vector<T>& v, Less&& less) {
  if (v.size() > kInsertionSortMax) {
    std::stable_sort(v.begin(), v.end(), less);
    return;
  }
  for (size_t i = 1; i < v.size(); ++i) {
    T x = v[i];
    size_t j = i;
    for (; j > 0 && less(x, v[j - 1]); --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

/// Keys of a counting sort span at most this many values per element (plus kCountingSortSlack); wider: std::stable_sort.
inline constexpr uint64_t kCountingSortSpanPerElement = 4;
inline constexpr uint64_t kCountingSortSlack = 1024;

/// Sorts `v` by decreasing key(x) (an int64_t), equal keys kept in their order: std::stable_sort's result with
/// key(a) > key(b). Short lists by insertion (stable_sort_small); long ones whose keys span few values by counting.
template <class T, class Key>
void stable_sort_by_key_descending(std::vector<T>& v, Key&& key) {
  const auto greater = [&](const T& a, const T& b) { return key(a) > key(b); };
  if (v.size() <= kInsertionSortMax) {
    stable_sort_small(v, greater);
    return;
  }
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (const T& x : v) {
    lo = std::min<int64_t>(lo, key(x));
    hi = std::max<int64_t>(hi, key(x));
  }
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  if (span == 0 || span > kCountingSortSpanPerElement * v.size() + kCountingSortSlack) {
    std::stable_sort(v.begin(), v.end(), greater);
    return;
  }
  // at[d]: where the first element of key hi - d goes (descending keys, ties in order).
  std::vector<size_t> at(static_cast<size_t>(span) + 1, 0);
  for (const T& x : v) ++at[static_cast<size_t>(hi - key(x)) + 1];
  for (size_t d = 1; d < at.size(); ++d) at[d] += at[d - 1];
  std::vector<T> sorted(v.size());
  for (const T& x : v) sorted[at[static_cast<size_t>(hi - key(x))]++] = x;
  v.swap(sorted);
}

}  // namespace lcab::perf
