#include "model/cp/method_common.h"

#include <functional>

#include <algorithm>
#include <limits>

#include "model/cp/slice_clip.h"

namespace lcab::cp {

Buffer make_buffer(std::string name, BufferRole role, int64_t tokens, int64_t heads, int64_t head_dim,
                   int64_t tensors, int64_t element_bytes, bool zero_at_start) {
  Buffer b;
  b.name = std::move(name);
  b.role = role;
  b.tokens = tokens;
  b.heads = heads;
  b.head_dim = head_dim;
  b.tensors = tensors;
  b.element_bytes = element_bytes;
  b.zero_at_start = zero_at_start;
  return b;
}

HeadRange ulysses_q_heads(int64_t u, int64_t ulysses, int64_t heads) {
  const int64_t per = heads / ulysses;
  return {u * per, (u + 1) * per};
}

HeadRange ulysses_kv_heads(int64_t u, int64_t ulysses, int64_t heads, int64_t kv_heads) {
  if (kv_heads >= ulysses) {
    const int64_t per = kv_heads / ulysses;
    return {u * per, (u + 1) * per};
  }
  const int64_t group = heads / kv_heads;  // q heads per kv head
  const int64_t kv = ulysses_q_heads(u, ulysses, heads).begin / group;
  return {kv, kv + 1};
}

MaskResolver::MaskResolver(const Mask& mask) : mask_(&mask) {
  for (int h = 0; h < mask.num_head_masks(); ++h) rows_.emplace_back(mask.slices(h));
  per_head_block_.resize(rows_.size());
}

void MaskResolver::resolve(const TokenMap& q_map, const KeyBlockIndex& index) {
  for (size_t h = 0; h < rows_.size(); ++h) {
    auto& blocks = per_head_block_[h];
    blocks.resize(index.num_blocks());
    for (auto& b : blocks) b.clear();
    resolve_rows(rows_[h], q_map, index, blocks);
  }
}

std::vector<int> head_lists_for(const MaskResolver& resolver, HeadRange kv) {
  if (!resolver.per_kv_head()) return {0};
  std::vector<int> lists;
  for (int64_t h = kv.begin; h < kv.end; ++h) lists.push_back(static_cast<int>(h));
  return lists;
}

namespace {

constexpr int64_t kNoBegin = std::numeric_limits<int64_t>::min();
constexpr int64_t kNoEnd = std::numeric_limits<int64_t>::max();

int64_t begin_on(const Slice& s, CutAxis axis) { return axis == CutAxis::kQueries ? s.q_begin : s.k_begin; }
int64_t end_on(const Slice& s, CutAxis axis) { return axis == CutAxis::kQueries ? s.q_end : s.k_end; }

// Cells of `slice` with rows (or keys) in [begin, end), appended to `out` (unchanged when it lies inside).
void clip_to(const Slice& slice, CutAxis axis, int64_t begin, int64_t end, std::vector<Slice>& out) {
  if (begin_on(slice, axis) >= begin && end_on(slice, axis) <= end) {
    out.push_back(slice);
    return;
  }
  if (end_on(slice, axis) <= begin || begin_on(slice, axis) >= end) return;
  ClipWindow window{slice.q_begin, slice.q_end, slice.k_begin, slice.k_end, 0, 0};
  if (axis == CutAxis::kQueries) {
    window.q_begin = std::max(begin, slice.q_begin);
    window.q_end = std::min(end, slice.q_end);
  } else {
    window.k_begin = std::max(begin, slice.k_begin);
    window.k_end = std::min(end, slice.k_end);
  }
  clip_slice(slice, window, out);
}

// Unmasked cells at or past `at` on the axis, over all lists.
int64_t cells_from(const std::vector<std::vector<Slice>>& lists, CutAxis axis, int64_t at) {
  std::vector<Slice> clipped;
  int64_t cells = 0;
  for (const auto& list : lists)
    for (const Slice& s : list) {
      clipped.clear();
      clip_to(s, axis, at, kNoEnd, clipped);
      for (const Slice& c : clipped) cells += c.area();
    }
  return cells;
}

}  // namespace

CutSlices cut_slices(const std::vector<std::vector<Slice>>& lists, CutAxis axis, int64_t at) {
  CutSlices cut;
  cut.before.resize(lists.size());
  cut.after.resize(lists.size());
  for (size_t h = 0; h < lists.size(); ++h)
    for (const Slice& s : lists[h]) {
      clip_to(s, axis, kNoBegin, at, cut.before[h]);
      clip_to(s, axis, at, kNoEnd, cut.after[h]);
    }
  return cut;
}

int64_t cut_for_tail_share(const std::vector<std::vector<Slice>>& lists, CutAxis axis, double tail_share,
                           int64_t align) {
  int64_t first = kNoEnd, last = kNoBegin;
  for (const auto& list : lists)
    for (const Slice& s : list) {
      first = std::min(first, begin_on(s, axis));
      last = std::max(last, end_on(s, axis));
    }
  if (first >= last) return 0;
  return cut_for_tail_share(first, last, tail_share, align, [&](int64_t at) { return cells_from(lists, axis, at); });
}

int64_t cut_for_tail_share(int64_t first, int64_t last, double tail_share, int64_t align,
                           const std::function<int64_t(int64_t)>& cells_from_row) {
  auto cells_at = [&](int64_t n) { return static_cast<double>(cells_from_row(first + n * align)); };
  const double target = tail_share * cells_at(0);
  // the cells past a cut fall as the cut moves on: find the first candidate at or below the target
  int64_t lo = 0, hi = (last - first + align - 1) / align;  // candidate hi cuts past every cell
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (cells_at(mid) <= target) hi = mid;
    else lo = mid + 1;
  }
  if (lo == 0) return first;
  return first + (cells_at(lo - 1) - target < target - cells_at(lo) ? lo - 1 : lo) * align;
}

void sort_by_position(std::vector<Slice>& list, int64_t rows) {
  const auto by_position = [](const Slice& a, const Slice& b) {
    return a.q_begin != b.q_begin ? a.q_begin < b.q_begin : a.k_begin < b.k_begin;
  };
  if (std::is_sorted(list.begin(), list.end(), by_position)) return;
  const size_t n = list.size();
  if (n < 64 || static_cast<uint64_t>(rows) > 4 * n + 1024) {
    std::sort(list.begin(), list.end(), by_position);
    return;
  }
  // By q_begin into buckets (a stable counting pass), then each bucket by k_begin. With no two slices at one
  // position this is the only order sorted by position, so std::sort's; with a shared one (not in valid lists, whose
  // slices are disjoint and start with a cell) std::sort's own order of equal elements is taken, on the list as given.
  std::vector<size_t> at(static_cast<size_t>(rows) + 1, 0);
  for (const Slice& s : list) ++at[static_cast<size_t>(s.q_begin) + 1];
  for (size_t r = 1; r < at.size(); ++r) at[r] += at[r - 1];
  std::vector<Slice> sorted(n);
  for (const Slice& s : list) sorted[at[static_cast<size_t>(s.q_begin)]++] = s;
  const auto by_key = [](const Slice& a, const Slice& b) { return a.k_begin < b.k_begin; };
  size_t begin = 0;
  while (begin < n) {
    size_t end = begin + 1;
    while (end < n && sorted[end].q_begin == sorted[begin].q_begin) ++end;
    if (!std::is_sorted(sorted.begin() + static_cast<std::ptrdiff_t>(begin),
                        sorted.begin() + static_cast<std::ptrdiff_t>(end), by_key))
      std::sort(sorted.begin() + static_cast<std::ptrdiff_t>(begin), sorted.begin() + static_cast<std::ptrdiff_t>(end),
                by_key);
    for (size_t i = begin + 1; i < end; ++i) {
      if (sorted[i].k_begin == sorted[i - 1].k_begin) {  // a shared position
        std::sort(list.begin(), list.end(), by_position);
        return;
      }
    }
    begin = end;
  }
  list.swap(sorted);
}

std::optional<ComputeItem> make_item(std::vector<std::vector<Slice>> slices, HeadRange q_heads, HeadRange kv_heads,
                                     bool per_kv_head, int64_t heads, int64_t kv_heads_total) {
  ComputeItem item;
  item.slices = std::move(slices);
  if (!make_item_in_place(item, q_heads, kv_heads, per_kv_head, heads, kv_heads_total)) return std::nullopt;
  return item;
}

bool make_item_in_place(ComputeItem& item, HeadRange q_heads, HeadRange kv_heads, bool per_kv_head, int64_t heads,
                        int64_t kv_heads_total) {
  std::vector<std::vector<Slice>> slices = std::move(item.slices);
  // Every other field back to its default, one by one from a default item made once: making one per call (or
  // assigning one) zeroes it with a `rep stos` that took a tenth of the 1024-GPU plans of document masks.
  static const ComputeItem defaults;
  item.q_buffer = defaults.q_buffer;
  item.k_buffer = defaults.k_buffer;
  item.q_side = defaults.q_side;
  item.pairs = defaults.pairs;
  item.q_map = defaults.q_map;
  item.k_map = defaults.k_map;
  item.grad_buffer = defaults.grad_buffer;
  item.grad_row_begin = defaults.grad_row_begin;
  int64_t q0 = std::numeric_limits<int64_t>::max(), q1 = 0, k0 = q0, k1 = 0;
  bool any = false;
  for (const auto& list : slices)
    for (const Slice& s : list) {
      any = true;
      q0 = std::min(q0, s.q_begin);
      q1 = std::max(q1, s.q_end);
      k0 = std::min(k0, s.k_begin);
      k1 = std::max(k1, s.k_end);
    }
  if (!any) {
    item.slices = std::move(slices);
    return false;
  }
  item.q_rows = {q0, q1};
  item.k_rows = {k0, k1};
  item.q_heads = q_heads;
  item.kv_heads = kv_heads;
  const int64_t group = heads / kv_heads_total;
  for (size_t h = 0; h < slices.size(); ++h) {
    std::vector<Slice>& list = slices[h];
    int64_t area = 0;
    for (Slice& s : list) {
      s.q_begin -= q0;
      s.q_end -= q0;
      s.k_begin -= k0;
      s.k_end -= k0;
      area += s.area();
    }
    sort_by_position(list, q1 - q0);
    // q heads this list serves: all of q_heads for a shared mask, else those reading kv head kv_heads.begin + h
    int64_t q_count = q_heads.count();
    if (per_kv_head) {
      const int64_t kv = kv_heads.begin + static_cast<int64_t>(h);
      q_count = std::max<int64_t>(0, std::min(q_heads.end, (kv + 1) * group) - std::max(q_heads.begin, kv * group));
    }
    item.pairs += area * q_count;
  }
  item.slices = std::move(slices);
  return true;
}

}  // namespace lcab::cp
