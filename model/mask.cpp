#include "model/mask.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "model/error.h"

namespace lcab {

std::string_view to_string(SliceType type) {
  switch (type) {
    case SliceType::kFull: return "full";
    case SliceType::kCausal: return "causal";
    case SliceType::kInvCausal: return "invcausal";
    case SliceType::kBiCausal: return "bicausal";
  }
  LCAB_THROW("unknown slice type " << static_cast<int>(type) << "; valid: full, causal, invcausal, bicausal");
}

SliceType parse_slice_type(std::string_view name) {
  for (SliceType t : {SliceType::kFull, SliceType::kCausal, SliceType::kInvCausal, SliceType::kBiCausal}) {
    if (to_string(t) == name) return t;
  }
  LCAB_THROW("unknown slice type '" << name << "'; valid: full, causal, invcausal, bicausal");
}

TokenRange Slice::keys_of_row(int64_t q) const {
  if (q < q_begin || q >= q_end) return {k_begin, k_begin};
  const int64_t i = q - q_begin;
  const int64_t d = k_length() - q_length();
  int64_t lo = 0;
  int64_t hi = k_length();
  switch (type) {
    case SliceType::kFull: break;
    case SliceType::kCausal: hi = std::clamp<int64_t>(i + d + 1, 0, k_length()); break;
    case SliceType::kInvCausal: lo = std::min(i, k_length()); break;
    case SliceType::kBiCausal:
      if (d < 0) return {k_begin, k_begin};
      lo = i;
      hi = i + d + 1;  // <= Lk since i < Lq
      break;
  }
  if (hi <= lo) return {k_begin, k_begin};
  return {k_begin + lo, k_begin + hi};
}

bool Slice::contains(int64_t q, int64_t k) const {
  const TokenRange r = keys_of_row(q);
  return k >= r.begin && k < r.end;
}

namespace {
// sum_{x=0}^{n-1} clamp(x + c, 0, cap), exact.
int64_t sum_clamped_ramp(int64_t n, int64_t c, int64_t cap) {
  if (n <= 0 || cap <= 0) return 0;
  // x + c <= 0 for x <= -c; x + c >= cap for x >= cap - c.
  const int64_t ramp_begin = std::clamp<int64_t>(-c + 1, 0, n);  // first x with x + c >= 1
  const int64_t ramp_end = std::clamp<int64_t>(cap - c, 0, n);   // first x with x + c >= cap
  int64_t total = 0;
  if (ramp_end > ramp_begin) {
    const int64_t first = ramp_begin + c;
    const int64_t last = ramp_end - 1 + c;
    total += (first + last) * (ramp_end - ramp_begin) / 2;
  }
  const int64_t saturated_begin = std::max(ramp_end, ramp_begin);
  total += (n - saturated_begin) * cap;
  return total;
}
}  // namespace

int64_t Slice::masked_area() const {
  const int64_t lq = q_length();
  const int64_t lk = k_length();
  if (lq <= 0 || lk <= 0) return 0;
  switch (type) {
    case SliceType::kFull: return lq * lk;
    case SliceType::kCausal: return sum_clamped_ramp(lq, lk - lq + 1, lk);
    case SliceType::kInvCausal: {
      // row i sees max(0, Lk - i) keys
      const int64_t rows = std::min(lq, lk);
      return rows * lk - rows * (rows - 1) / 2;
    }
    case SliceType::kBiCausal: return lk >= lq ? lq * (lk - lq + 1) : 0;
  }
  return 0;
}

void validate_slices(int64_t seqlen, std::vector<Slice>& slices) { validate_slices(seqlen, seqlen, slices); }

void validate_slices(int64_t seqlen, int64_t seqlen_k, std::vector<Slice>& slices) {
  LCAB_CHECK(seqlen > 0 && seqlen_k > 0, "sequence lengths must be positive, got " << seqlen << " x " << seqlen_k);
  for (size_t n = 0; n < slices.size(); ++n) {
    const Slice& s = slices[n];
    LCAB_CHECK(static_cast<uint8_t>(s.type) <= 3,
               "slice " << n << " has unknown type " << static_cast<int>(s.type)
                        << "; valid: full, causal, invcausal, bicausal");
    LCAB_CHECK(s.q_begin >= 0 && s.q_end <= seqlen && s.k_begin >= 0 && s.k_end <= seqlen_k,
               "slice " << n << " q [" << s.q_begin << "," << s.q_end << ") k [" << s.k_begin << "," << s.k_end
                        << ") lies outside [0," << seqlen << ") x [0," << seqlen_k << ")");
    LCAB_CHECK(s.q_begin < s.q_end && s.k_begin < s.k_end,
               "slice " << n << " q [" << s.q_begin << "," << s.q_end << ") k [" << s.k_begin << "," << s.k_end
                        << ") is empty");
  }
  const auto by_position = [](const Slice& a, const Slice& b) {
    return a.q_begin != b.q_begin ? a.q_begin < b.q_begin : a.k_begin < b.k_begin;
  };
  // Generators emit their slices in order (block-sparse: 86M at 1M tokens); sorting them again is O(n log n).
  if (!std::is_sorted(slices.begin(), slices.end(), by_position)) std::sort(slices.begin(), slices.end(), by_position);
  auto describe = [&](size_t n) {
    std::ostringstream out;
    const Slice& s = slices[n];
    out << "q [" << s.q_begin << "," << s.q_end << ") k [" << s.k_begin << "," << s.k_end << ")";
    return out.str();
  };
  // Fast path, O(n): slices form bands of equal q range that do not overlap in q (documents, block-sparse rows,
  // windows). Then only neighbours within a band can overlap.
  bool banded = true;
  for (size_t n = 1; n < slices.size() && banded; ++n) {
    const Slice& a = slices[n - 1];
    const Slice& b = slices[n];
    banded = (a.q_begin == b.q_begin) ? a.q_end == b.q_end : a.q_end <= b.q_begin;
  }
  if (banded) {
    for (size_t n = 1; n < slices.size(); ++n) {
      if (slices[n - 1].q_begin == slices[n].q_begin) {
        LCAB_CHECK(slices[n - 1].k_end <= slices[n].k_begin,
                   "slices overlap: " << describe(n - 1) << " and " << describe(n));
      }
    }
    return;
  }
  // General case: sweep over q; the k ranges of the slices alive at a given q must be disjoint. Active
  // intervals are kept disjoint, so a new one only needs checking against its neighbours.
  struct Event {
    int64_t q;
    bool insert;
    size_t index;
  };
  std::vector<Event> events;
  events.reserve(2 * slices.size());
  for (size_t n = 0; n < slices.size(); ++n) {
    events.push_back({slices[n].q_begin, true, n});
    events.push_back({slices[n].q_end, false, n});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.q != b.q) return a.q < b.q;
    return a.insert < b.insert;  // removals first: [a,b) and [b,c) do not overlap
  });
  std::map<int64_t, size_t> active;  // k_begin -> slice index
  for (const Event& e : events) {
    const Slice& s = slices[e.index];
    if (!e.insert) {
      active.erase(s.k_begin);
      continue;
    }
    auto next = active.lower_bound(s.k_begin);
    if (next != active.end()) {
      LCAB_CHECK(slices[next->second].k_begin >= s.k_end,
                 "slices overlap: " << describe(e.index) << " and " << describe(next->second));
    }
    if (next != active.begin()) {
      auto prev = std::prev(next);
      LCAB_CHECK(slices[prev->second].k_end <= s.k_begin,
                 "slices overlap: " << describe(e.index) << " and " << describe(prev->second));
    }
    active.emplace(s.k_begin, e.index);
  }
}

Mask::Mask(int64_t seqlen, std::vector<Slice> slices, MaskInfo info) : seqlen_(seqlen), info_(std::move(info)) {
  validate_slices(seqlen, slices);
  heads_.push_back(std::move(slices));
  int64_t area = 0;
  for (const Slice& s : heads_[0]) area += s.area();
  areas_.push_back(area);
}

Mask Mask::per_kv_head(int64_t seqlen, std::vector<std::vector<Slice>> slices_per_kv_head, MaskInfo info) {
  LCAB_CHECK(!slices_per_kv_head.empty(), "a per-kv-head mask needs at least one head");
  Mask mask;
  mask.seqlen_ = seqlen;
  mask.per_head_ = true;
  mask.info_ = std::move(info);
  for (auto& slices : slices_per_kv_head) {
    validate_slices(seqlen, slices);
    int64_t area = 0;
    for (const Slice& s : slices) area += s.area();
    mask.areas_.push_back(area);
    mask.heads_.push_back(std::move(slices));
  }
  return mask;
}

const std::vector<Slice>& Mask::slices(int kv_head) const {
  if (!per_head_) return heads_[0];
  LCAB_CHECK(kv_head >= 0 && kv_head < num_head_masks(),
             "kv head " << kv_head << " out of range; this mask has " << num_head_masks() << " head masks");
  return heads_[kv_head];
}

int64_t Mask::num_slices() const {
  int64_t n = 0;
  for (const auto& h : heads_) n += static_cast<int64_t>(h.size());
  return n;
}

int64_t Mask::area(int kv_head) const {
  if (!per_head_) return areas_[0];
  slices(kv_head);  // range check
  return areas_[kv_head];
}

double Mask::mean_area() const {
  const double sum = std::accumulate(areas_.begin(), areas_.end(), 0.0);
  return sum / static_cast<double>(areas_.size());
}

double Mask::density() const {
  return mean_area() / (static_cast<double>(seqlen_) * static_cast<double>(seqlen_));
}

std::vector<uint8_t> Mask::dense(int kv_head) const {
  LCAB_CHECK(seqlen_ <= kDenseLimit, "dense materialization is for S <= " << kDenseLimit << " only, got S = "
                                                                          << seqlen_);
  std::vector<uint8_t> cells(static_cast<size_t>(seqlen_ * seqlen_), 0);
  for (const Slice& s : slices(kv_head)) {
    for (int64_t q = s.q_begin; q < s.q_end; ++q) {
      const TokenRange keys = s.keys_of_row(q);
      for (int64_t k = keys.begin; k < keys.end; ++k) cells[static_cast<size_t>(q * seqlen_ + k)] = 1;
    }
  }
  return cells;
}

}  // namespace lcab
