// Host-side work lists of lcab_flash, built from the mask's slices through lcab::MaskTiling (the same tiling the
// compute model charges), in the layout the kernels read.
//
// A pass iterates "outer" tiles (one CTA each) over "inner" tiles:
//   forward:  outer = q-tile rows, inner = k tiles   (MaskTiling's runs as they are)
//   backward: outer = k tiles,     inner = q tiles   (the transpose of the same tiling)
// Inner tiles come in runs that are all full (no masking code at all) or all partial (masked in-tile against the
// slices that intersect the q-tile row). Tiles outside the mask appear in no run. Outer tiles are ordered by cost,
// costliest first, so that skewed masks (documents) balance over the SMs; outer tiles with no work are kept (they
// still write zeros / -inf) and come last. Per-kv-head masks get one list per head mask, concatenated.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/attention.h"
#include "kernels/run_mask.h"
#include "model/mask_tiling.h"

namespace lcab::kernels {

/// A slice as the device masks with it: row q (global) of the slice sees keys
///   [k_begin + (lo_diagonal ? i : 0), hi_diagonal ? min(k_end, k_begin + i + diagonal_offset) : k_end)
/// with i = q - q_begin; empty when the bounds cross. diagonal_offset = Lk - Lq + 1.
struct DeviceSlice {
  int32_t q_begin = 0;
  int32_t q_end = 0;
  int32_t k_begin = 0;
  int32_t k_end = 0;
  int32_t flags = 0;  ///< bit 0: lo_diagonal (invcausal, bicausal); bit 1: hi_diagonal (causal, bicausal)
  int32_t diagonal_offset = 0;
};
DeviceSlice to_device_slice(const Slice& slice);

/// How the Hopper backward's CTA for one k tile walks its (q head of the GQA group, q tile) steps
/// (FlashPassWork::outer_walk per k tile, cta_walks per CTA): by default every q tile of one head in increasing
/// order, then the next head.
/// kWalkDescending: q tiles in decreasing order; kWalkHeadsInner: every head of the group per q tile.
constexpr int8_t kWalkDescending = 1;
constexpr int8_t kWalkHeadsInner = 2;
/// The walk of a k tile whose q tiles end where a neighbouring k tile's end (documents, causal, full): starting
/// together at that shared last q tile, with the heads inner, the CTAs of one document meet on the same Q, dO and
/// dQ rows step for step, so those stay in L2. Where neighbours' ends differ (sliding windows: by 2 q tiles per k
/// tile) the default walk keeps neighbours 2 steps apart instead of 16.
constexpr int8_t kWalkFromSharedEnd = kWalkDescending | kWalkHeadsInner;

/// A run of inner tiles [begin, end), all full or all partial. `end_and_partial` holds end | partial << 31, and on
/// the Hopper backward's partial tiles (build_backward_work's `idle_halves`) bit kIdleHalfShift + h when keys
/// [64 h, 64 h + 64) of the 128-key tile see none of the q tile's queries: the consumer warpgroup that owns them skips
/// the step's products (each such tile is a run of its own).
constexpr int kIdleHalfShift = 29;
constexpr int32_t kRunEndMask = (int32_t(1) << kIdleHalfShift) - 1;
struct DeviceRun {
  int32_t begin = 0;
  int32_t end_and_partial = 0;
};

struct FlashPassWork {
  TileShape shape;
  int32_t num_masks = 1;
  int32_t outer_tiles = 0;  ///< per mask
  int32_t q_tile_rows = 0;  ///< per mask: rows of row_slice lists
  std::vector<int32_t> outer_order;    ///< [mask][outer_tiles]: outer tile indices, costliest first
  std::vector<int32_t> run_offsets;    ///< [mask][outer_tiles + 1]: into runs (absolute)
  std::vector<int8_t> outer_walk;      ///< backward only: [mask][outer_tiles] kWalk* bits of each outer tile
  /// Backward only: the CTAs' items in launch order, (batch x kv_heads + kv head) x outer_tiles + outer tile: the
  /// head-major costliest-first list of CTA units (single k tiles, or pairs: build_backward_work) in
  /// perf::grid_launch_order, each pair's two CTAs placed so that the second starts on the SM where the first ends
  /// (perf::backward_launch, model/perf/backward_pairs.h, which the kernel cost model schedules too).
  std::vector<int32_t> cta_items;
  /// Backward only: the walk (kWalk* bits) of each CTA of cta_items: its k tile's outer_walk, or a pair's.
  std::vector<int8_t> cta_walks;
  bool pairs_documents = false;  ///< backward only: cta_items pairs the k tiles of documents
  /// Backward only: the (batch x kv_heads + kv head) units in the order their last CTA comes in cta_items, the
  /// order in which the Hopper backward's tail converts their dQ rows (model/perf/backward_tail.h): the heads that
  /// finish first are converted first.
  std::vector<int32_t> tail_heads;
  /// Backward only: query rows per conversion CTA of that tail (perf::backward_tail_chunk_rows for the call's heads
  /// and the GPU's SMs).
  int32_t tail_chunk_rows = 1;
  /// Backward only (the Hopper grid): its blocks in launch order, cta_items' entries with the dQ conversion's units
  /// (-1 - unit; unit = position of the head in tail_heads x chunks per head + chunk) placed among them, each head's
  /// after its last dK/dV CTA (interleave_backward_conversion), and the walks of the blocks (0 for conversions).
  std::vector<int32_t> grid_items;
  std::vector<int8_t> grid_walks;
  /// Backward only (the Hopper grid): per conversion counter ((batch x kv_heads + kv head) x chunks per head +
  /// chunk), the dK/dV CTAs whose q rows meet the chunk (backward_cta_chunks): each counts itself finished on that
  /// counter, and the chunk's conversion CTA waits for them all, not for its whole head (count_backward_conversion_needs).
  std::vector<int32_t> tail_needs;
  /// Forward only: q heads per section of the item order (forward_kv_heads_per_section x the GQA group).
  int32_t section_heads = 1;
  std::vector<DeviceRun> runs;
  /// With ForwardMasking / BackwardMasking::kRunMasks only: per run, its run mask (run_mask.h; whole runs: rows -1).
  std::vector<DeviceRunMask> run_masks;
  std::vector<int32_t> slice_offsets;  ///< [mask][q_tile_rows + 1]: into slices (absolute)
  std::vector<DeviceSlice> slices;     ///< per q-tile row, the slices intersecting it
  int64_t touched_tiles = 0;           ///< over all masks
  int64_t partial_tiles = 0;
};

/// K and V bytes (one batch element) that one section of the forward's items may read: well inside the H100's and
/// H200's 50 MB L2 (and the A100's 40 MB), next to the Q and O tiles streaming through it. 8 and 16 MiB measured
/// alike on the Hopper path (H100, side by side: within 2% of each other, 8 MiB ahead on MHA hd 128 by about 1%).
constexpr int64_t kForwardKvSectionBytes = int64_t{8} << 20;
/// The forward takes its items section by section (the Hopper path's persistent CTAs from a counter, the mma.sync
/// path's grid in block order): batch elements outermost, then the q heads in sections of whole GQA groups, each
/// section's items costliest q-tile row first with its heads inner. The CTAs running at once then share the K and V
/// of one section, which stay in L2, instead of streaming every kv head's from memory (with all heads inner, MHA at
/// 16K reads about 64x its K and V). Returns the kv heads per section: the largest divisor of `kv_heads` whose K and
/// V fit in kForwardKvSectionBytes, at least 1.
int32_t forward_kv_heads_per_section(int64_t kv_heads, int64_t seqlen_k, int64_t head_dim, int64_t element_bytes);

/// How the forward kernel masks its partial tiles. kSlices: it walks the q-tile row's slices (the mma.sync path);
/// runs as the tiling has them. kRunMasks (the Hopper path): it reads each partial run's run mask (run_mask.h); every
/// partial tile becomes one single-tile run per slice of the row that makes a key of it visible, masked to that
/// slice (slices do not overlap, so the visits of a tile see each visible key once; a tile that k slices meet is
/// computed k times, which only tiles where documents or blocks meet inside a tile pay).
enum class ForwardMasking { kSlices, kRunMasks };

/// Forward work (outer = q-tile rows) for the problem's slices with the given tile shape.
FlashPassWork build_forward_work(const AttentionProblem& problem, TileShape shape,
                                 ForwardMasking masking = ForwardMasking::kSlices);
/// Backward work (outer = k tiles, inner = q tiles touching them), from the same kind of tiling; `slots`: the CTAs
/// the GPU runs at once (its SMs), for the launch order.
///
/// Pairs (`pair_documents`): a document's k tiles end on the same q tile and start 2 q tiles later each (causal,
/// causal_document). Left alone, the CTAs that replace the short ones start one by one, each kv head's CTAs spread
/// over the whole document, and their Q, dO and dQ rows fall out of L2 (causal 16K on an H100: 75% L2 hits and 8.9 GB
/// written back, against 98% on full). Paired first with last, the short k tile walks down from the shared end and
/// then, on the same SM, the long one walks up from its first q tile: a pair's first q tiles sum to the same number
/// for every pair of the document, so all its pairs are on the same q tile at every step, in both halves, and all
/// are equally long (96% L2 hits on causal 16K). The pairing and the launch order are perf::backward_launch
/// (model/perf/backward_pairs.h), pairs made only where the played makespan stays within
/// perf::kBackwardPairMakespanRatio of the unpaired launch's.
/// How the backward kernel masks its partial tiles: kSlices walks the q-tile row's slices (the mma.sync path);
/// kRunMasks (the Hopper path) reads each partial run's key-major run mask (run_mask.h), every partial tile one or
/// more single-tile visits as in ForwardMasking::kRunMasks (two slices to a visit where their keys do not interleave).
enum class BackwardMasking { kSlices, kRunMasks };

/// `idle_halves` (the Hopper path): mark the partial tiles' halves that no query of the q tile sees (DeviceRun), for
/// 128-key tiles where backward_idle_halves_built: with kSlices the tiles MaskTiling's with_idle_halves finds (the
/// tiles the cost model charges idle_half_tile_us), with kRunMasks per visit, through the visit's slices.
FlashPassWork build_backward_work(const AttentionProblem& problem, TileShape shape, int64_t slots,
                                  bool pair_documents = true, BackwardMasking masking = BackwardMasking::kSlices,
                                  bool idle_halves = false);

/// Places the dQ conversion's units (FlashPassWork::grid_items) `delay_ctas` dK/dV CTAs after the last dK/dV CTA
/// of their head (negative: all after the last dK/dV CTA, the grid's tail), so that a head's conversion can run while
/// later heads compute instead of after the grid's last wave. A conversion CTA waits for those of its head's dK/dV
/// CTAs whose q rows meet its chunk (tail_needs, which this fills), which always come before it in the grid.
void interleave_backward_conversion(FlashPassWork& work, int64_t chunks_per_head, int64_t delay_ctas);
/// The q-row range [first, last] chunk of each dK/dV CTA: from its runs' first q tile to their last (the rows it
/// reduces dQ into), in chunks of tail_chunk_rows, clamped to the call's `chunks_per_head`; {0, -1} for a CTA
/// without runs. The kernel counts the same range.
std::pair<int32_t, int32_t> backward_cta_chunks(const FlashPassWork& work, int32_t item, int64_t chunks_per_head);
/// Fills tail_needs from cta_items (backward_cta_chunks) for `heads` (batch x kv heads) x `chunks_per_head` counters.
/// Waiting per chunk instead of per head lets the chunks whose rows are done convert while the head's other CTAs
/// still run: per cycle on an H200 (data/measurements/h200/bwd-conversion-by-rows-2026-12-02/), `causal_document` at
/// 4K +12.4% (hd 128), +8.7% (hd 64), +3.5% (hd 256), hd 128's other masks +0.6% to +1.2%, hd 64's and 256's within
/// -0.5% and +1.1%.
void count_backward_conversion_needs(FlashPassWork& work, int64_t heads, int64_t chunks_per_head);
/// Whether the Hopper backward places each head's dQ conversion one wave after its last dK/dV CTA
/// (interleave_backward_conversion) rather than at the grid's end: where the CTAs are about equally long (at least
/// kBackwardConversionUniformShare of them within kBackwardConversionUniformTolerance of the longest, by the cost the
/// launch order weighs them with: full, windows, bands), so that a head's CTAs have ended by then. Measured per cycle on an H100 against the grid's end
/// (data/measurements/h100/bwd-conversion-order-2026-11-24/): `sliding_window_causal` 32K +2.4% / +2.6% (hd 128, two
/// calls), band1 32K +4.6% / +7.6%, full 16K -0.2% to +0.7%; but `causal_document` and `block_causal_document` 32K
/// -13% (their CTAs' lengths vary, and a conversion CTA that starts before its head's last CTA ends holds its SM).
bool backward_conversion_after_heads(const FlashPassWork& work);
constexpr double kBackwardConversionUniformShare = 0.9;
constexpr double kBackwardConversionUniformTolerance = 0.1;

/// The Hopper backward has a run-mask kernel at these head dims (hd 256 walks k tiles of 64 and gained nothing).
constexpr bool backward_run_masks_built(int64_t head_dim) { return head_dim <= 128; }
/// The Hopper backward kernels that skip idle key halves (DeviceRun), so whose lists build_backward_work marks: hd 64
/// with either masking, hd 128 walking slices. (hd 256 walks k tiles of 64; hd 128's run-mask kernel measured 4-30%
/// slower per cycle with the idle path on the block-sparse masks that take it,
/// data/measurements/h100/bwd-idle-halves-2026-11-24/run-masks/.)
constexpr bool backward_idle_halves_built(int64_t head_dim, BackwardMasking masking) {
  return head_dim == 64 || (head_dim == 128 && masking == BackwardMasking::kSlices);
}
/// The Hopper backward takes its run-mask kernel for masks whose partial tiles meet at least this many slices on
/// average (the walk over them is what run masks save), the slice-walking kernel otherwise: measured per cycle on an
/// H100 (data/measurements/h100/bwd-run-masks-2026-11-24/), run masks took `block_sparse:block=64` (82 slices per
/// partial tile at 32K) x8-13, `variable_block_sparse` (22) +52-106% and `share_question` (2.1-2.2) +3-8%, but cost
/// `causal_document` (1.5) up to 3.8%, the window (1.0) up to 4.1%, and masks without partial tiles 2-6% in the same
/// kernel (so each has its own). The bound leaves `share_question` and the unmeasured masks near 2 (documents with
/// a shared prefix or full documents) on the slice walk.
constexpr double kBackwardRunMaskSlicesPerPartialTile = 2.25;
/// Whether the Hopper backward's two consumer warpgroups skip the barrier that makes them meet every step
/// (DeviceWork::decoupled_warpgroups; only the kernels of backward_decoupled_built, head dim 64's slice-walking one,
/// whose warpgroups each compute dQ over their own keys): on lists whose partial tiles are at least
/// kBackwardDecoupledPartialShare of their tiles, where the warpgroups' steps differ (masking, idle halves) and a
/// step waiting for the slower one costs most. Per cycle on an H100 (data/measurements/h100/bwd-decoupled-hd64-2026-11-24/):
/// decoupled on every list (two calls), `sliding_window_causal` +6.2% / +6.4% at 32K and +4.2% / +4.2% at 4K (22%
/// partial tiles), `causal_document` +0.7% / +1.0% at 32K (18%), but full 16K -0.9% / -0.9%, causal 16K -0.7% /
/// -1.0% (1.6%), `block_causal_document` 32K -1.7% / -1.7% (none); with this rule and a kernel of each kind, the
/// window +6.6% / +4.2%, `causal_document` +1.1% at 32K and 4K, every other group within 0.2% (one barrier chosen at
/// run time in one kernel instead cost the coupled lists 2-3%).
bool backward_warpgroups_decoupled(const FlashPassWork& backward_work);
constexpr double kBackwardDecoupledPartialShare = 0.10;
/// The Hopper backward kernels with a decoupled variant: head dim 64 (dQ over each warpgroup's own keys), walking
/// slices (the run-mask kernel keeps its one instantiation). Head dim 128 decoupled (dQ over each warpgroup's own
/// keys in all 128 columns, two panel products per step) measured 6-17% slower per cycle on the rule's lists on an
/// H200 (data/measurements/h200/bwd-decoupled-hd128-2026-12-01/).
constexpr bool backward_decoupled_built(int64_t head_dim) { return head_dim == 64; }
/// The mean number of the q-tile row's slices over the partial tiles of a kSlices backward list (0 without any).
double slices_per_partial_tile(const FlashPassWork& backward_work);

}  // namespace lcab::kernels
