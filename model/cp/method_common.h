// Pieces every CP method shares: buffers, head ranges of Ulysses members, the mask resolved per ring position,
// and compute items made from resolved slices. Internal to model/cp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/cp/mask_resolve.h"
#include "model/cp/schedule.h"

namespace lcab::cp {

/// A buffer description (Schedule::buffers); its id is set when added to a schedule.
Buffer make_buffer(std::string name, BufferRole role, int64_t tokens, int64_t heads, int64_t head_dim,
                   int64_t tensors, int64_t element_bytes, bool zero_at_start = false);

/// q heads of Ulysses member u of U: [u * Hq/U, (u+1) * Hq/U).
HeadRange ulysses_q_heads(int64_t u, int64_t ulysses, int64_t heads);
/// kv heads member u needs: its Hk/U heads when Hk >= U, else the one kv head its q heads read (U % Hk == 0).
HeadRange ulysses_kv_heads(int64_t u, int64_t ulysses, int64_t heads, int64_t kv_heads);

/// The global mask, indexed once per head mask, resolved for one q token map at a time.
class MaskResolver {
 public:
  explicit MaskResolver(const Mask& mask);
  /// Resolves q_map against every block of index: result()[head list][block] = slices in (q_map row, block row).
  void resolve(const TokenMap& q_map, const KeyBlockIndex& index);
  const std::vector<std::vector<std::vector<Slice>>>& result() const { return per_head_block_; }
  bool per_kv_head() const { return mask_->is_per_kv_head(); }

 private:
  const Mask* mask_;
  std::vector<SliceRowIndex> rows_;  ///< one per head mask
  std::vector<std::vector<std::vector<Slice>>> per_head_block_;
};

/// The head lists an item of kv heads `kv` uses: {0} for a shared mask, else the kv head indices.
std::vector<int> head_lists_for(const MaskResolver& resolver, HeadRange kv);

/// Which axis of an item's (q buffer row, k buffer row) plane a cut runs across.
enum class CutAxis : uint8_t { kQueries, kKeys };

/// Slice lists (one per head list, coordinates (q buffer row, k buffer row)) cut at row (or key) `at` of the
/// axis: `before` holds exactly the cells before it, `after` those at or past it (a list may come out empty).
struct CutSlices {
  std::vector<std::vector<Slice>> before;
  std::vector<std::vector<Slice>> after;
};
CutSlices cut_slices(const std::vector<std::vector<Slice>>& lists, CutAxis axis, int64_t at);

/// Where to cut `lists` on the axis so that the cells at or past the cut are about `tail_share` (0..1) of all
/// (summed over lists): the candidate closest to the share among first + n * align (first = the first row or
/// key with a cell, n >= 0), so that both parts keep the tiles of the uncut item when align is a multiple of
/// the kernels' tiles on that axis. Returns `first` when everything goes past the cut, and a row or key past
/// the last cell when nothing does.
int64_t cut_for_tail_share(const std::vector<std::vector<Slice>>& lists, CutAxis axis, double tail_share,
                           int64_t align);
/// The same search for cells known another way: cells between first (the first row or key with a cell) and last
/// (one past the last), cells_from_row(at) = the cells at or past `at`.
int64_t cut_for_tail_share(int64_t first, int64_t last, double tail_share, int64_t align,
                           const std::function<int64_t(int64_t)>& cells_from_row);

/// Sorts a slice list by position (q_begin, then k_begin) exactly as std::sort with that order does: lists of one
/// item whose q_begin lie in [0, rows) (rows at most about 4 per slice) by a counting pass over q_begin, others by
/// std::sort.
void sort_by_position(std::vector<Slice>& list, int64_t rows);

/// A compute item from slices given in (q buffer row, k buffer row) coordinates, one list per head list of
/// head_lists_for(); sets q_rows/k_rows to their bounding box and makes the slices local to it, and counts
/// pairs over q_heads (GQA group size Hq / Hk). std::nullopt when every list is empty.
std::optional<ComputeItem> make_item(std::vector<std::vector<Slice>> slices, HeadRange q_heads, HeadRange kv_heads,
                                     bool per_kv_head, int64_t heads, int64_t kv_heads_total);
/// make_item on the lists already in item.slices, in place (their capacity kept: the CP item tables make millions
/// of items): every field of `item` as make_item would set it, the others reset to their defaults; false (item
/// then unspecified) when every list is empty.
bool make_item_in_place(ComputeItem& item, HeadRange q_heads, HeadRange kv_heads, bool per_kv_head, int64_t heads,
                        int64_t kv_heads_total);

}  // namespace lcab::cp
