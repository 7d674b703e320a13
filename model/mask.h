// Attention masks as lists of slices (DESIGN.md section 2).
//
// A Slice is a rectangle q_range x k_range of the S x S score matrix with a type saying which cells inside the
// rectangle are unmasked. Coordinates inside a slice are local: i = q - q_begin, j = k - k_begin,
// Lq = q_end - q_begin, Lk = k_end - k_begin, d = Lk - Lq.
//
// A Mask is a list of slices whose rectangles do not overlap, over a self-attention sequence of S tokens. It is
// shared by all heads, or given per kv head (block-sparse patterns). Everything here is O(slices): nothing
// materializes S x S except dense(), which is for small S (tests and references) only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lcab {

/// Which cells of a slice's rectangle are unmasked (i, j local to the slice; d = Lk - Lq).
enum class SliceType : uint8_t {
  kFull = 0,       ///< every (i, j)
  kCausal = 1,     ///< bottom-right aligned: j <= i + d
  kInvCausal = 2,  ///< top-left aligned: j >= i
  kBiCausal = 3,   ///< band: i <= j <= i + d; empty when Lk < Lq
};

/// "full", "causal", "invcausal", "bicausal".
std::string_view to_string(SliceType type);
/// Inverse of to_string; throws lcab::Error listing the valid names.
SliceType parse_slice_type(std::string_view name);

/// Half-open token range [begin, end).
struct TokenRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t length() const { return end - begin; }
  bool empty() const { return end <= begin; }
  friend bool operator==(const TokenRange&, const TokenRange&) = default;
};

struct Slice {
  int64_t q_begin = 0;
  int64_t q_end = 0;
  int64_t k_begin = 0;
  int64_t k_end = 0;
  SliceType type = SliceType::kFull;

  int64_t q_length() const { return q_end - q_begin; }
  int64_t k_length() const { return k_end - k_begin; }
  /// Keys visible to global query row q, as a global half-open range; empty when the row sees nothing
  /// (or q lies outside the slice's q range). The bounds are non-decreasing in q for every type.
  TokenRange keys_of_row(int64_t q) const;
  /// True when global cell (q, k) is unmasked by this slice.
  bool contains(int64_t q, int64_t k) const;
  /// Number of unmasked cells, exact, O(1). Inline for FULL slices (block-sparse masks count tens of millions).
  int64_t area() const {
    if (type != SliceType::kFull) return masked_area();
    return q_end > q_begin && k_end > k_begin ? (q_end - q_begin) * (k_end - k_begin) : 0;
  }

  friend bool operator==(const Slice&, const Slice&) = default;

 private:
  int64_t masked_area() const;  ///< area() of the other types
};

/// Optional facts a generator knows about the mask it made (documents, blocks). Not used for validation.
struct MaskInfo {
  std::string spec;                       ///< the spec string that made it, if any
  std::vector<int64_t> document_lengths;  ///< packed documents, in sequence order, summing to S; empty if none
};

class Mask {
 public:
  /// A mask shared by all heads. Validates: every range inside [0, S) and non-empty, no two rectangles
  /// overlapping. Slices are kept sorted by (q_begin, k_begin). Throws lcab::Error naming the bad slice.
  Mask(int64_t seqlen, std::vector<Slice> slices, MaskInfo info = {});
  /// One slice list per kv head (block-sparse patterns); each list is validated as above.
  static Mask per_kv_head(int64_t seqlen, std::vector<std::vector<Slice>> slices_per_kv_head, MaskInfo info = {});

  int64_t seqlen() const { return seqlen_; }
  bool is_per_kv_head() const { return per_head_; }
  /// 1 for a shared mask, else the number of kv heads it was built for.
  int num_head_masks() const { return static_cast<int>(heads_.size()); }
  /// The slices seen by kv head h (any h for a shared mask).
  const std::vector<Slice>& slices(int kv_head = 0) const;
  /// Total slices over all head masks.
  int64_t num_slices() const;
  /// Unmasked cells seen by kv head h, exact.
  int64_t area(int kv_head = 0) const;
  /// Mean over head masks of area(): the area per head used for FLOPs.
  double mean_area() const;
  /// mean_area() / S^2.
  double density() const;
  const MaskInfo& info() const { return info_; }
  /// Number of packed documents (0 when the mask is not made of documents).
  int64_t num_documents() const { return static_cast<int64_t>(info_.document_lengths.size()); }

  /// Row-major S x S of 0/1 for kv head h. Only for S <= kDenseLimit; throws otherwise.
  std::vector<uint8_t> dense(int kv_head = 0) const;
  static constexpr int64_t kDenseLimit = 8192;

 private:
  Mask() = default;
  int64_t seqlen_ = 0;
  bool per_head_ = false;
  std::vector<std::vector<Slice>> heads_;
  std::vector<int64_t> areas_;
  MaskInfo info_;
};

/// Sort slices by (q_begin, k_begin) and check them against a sequence of seqlen tokens; throws lcab::Error.
void validate_slices(int64_t seqlen, std::vector<Slice>& slices);
/// The same for a rectangular Sq x Sk problem (a context-parallel step: local queries against a key buffer).
void validate_slices(int64_t seqlen_q, int64_t seqlen_k, std::vector<Slice>& slices);

}  // namespace lcab
