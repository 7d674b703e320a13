// A stable sort for the short lists of the kernel cost model (a CP item's outer tiles, sorted per call by millions):
// insertion sort up to kInsertionSortMax elements (no buffer allocated), std::stable_sort above. A stable sort has
// one result, so the two give the same order.
#pragma once

#include <algorithm>
#include <cstddef>
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

}  // namespace lcab::perf
