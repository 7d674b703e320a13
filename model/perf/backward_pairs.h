// The backward's CTA launch with a document's k tiles paired, shared by lcab_flash's work list
// (kernels/flash_work.cpp, which launches it on the GPU) and the kernel cost model (kernel_cost.cpp, which schedules
// the same CTAs in the same grid order), so that the model predicts the launch the GPU runs.
//
// Pairs: the k tiles of a document (consecutive k tiles whose q tiles end on the same q tile: causal,
// causal_document and their kin) are paired first with last. On the GPU the short one walks down from the shared
// end, then the long one, on the same SM, walks up from its first q tile: a pair's first q tiles sum to the same
// number for every pair of the document, so all its pairs are on the same q tile at every step and equally long,
// and their Q, dO and dQ rows stay in L2 (README, "The backward's pairs").
//
// The launch: the units (single k tiles, or pairs) of every head mask costliest first, head-major over batch and kv
// heads, in grid_launch_order (a pair is one item of the sum of its keys); then the GPU's dispatch is played (the
// next CTA of the grid goes to the first SM that frees up) with the keys as durations, and each pair's second CTA
// is listed where the SM running its first will take it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace lcab::perf {

/// Pairs are made only when the launch's makespan, played with the keys as durations, stays within this factor of
/// the unpaired launch's. Measured on an H100 (bf16, hd 128, 64/8 heads): pairs that lengthen the played makespan
/// by up to 3% (causal at 32K and 64K) still ran 4-7% faster, through L2; those that lengthen it by 19% and 36%
/// (causal_document at 4K and 8K, short documents against an SM's share) ran 15% and 11% slower.
constexpr double kBackwardPairMakespanRatio = 1.05;

/// A k tile (an outer tile of the backward) as the pairing reads it: the first and last q tile touching it (-1:
/// none) and its work-list key (4 x tiles + partial tiles: a partial tile weighs 1.25).
struct KTileSpan {
  int32_t first_q_tile = -1;
  int32_t last_q_tile = -1;
  int64_t key = 0;
};

/// True when k tile t has q tiles and its last one is also a neighbouring k tile's last (the k tiles of a
/// document, or of a causal or full mask): on the GPU it walks from that shared end.
bool walks_from_shared_end(std::span<const KTileSpan> tiles, size_t t);

/// What the GPU runs on one SM back to back: one k tile (parts 1), or a pair of one document's k tiles (parts 2),
/// the short one first (tiles[0]), then the long one (tiles[1]).
struct BackwardUnit {
  int32_t tiles[2] = {0, 0};
  int64_t keys[2] = {0, 0};
  int32_t parts = 1;
  int64_t key() const { return keys[0] + (parts == 2 ? keys[1] : 0); }
};

/// False when no head mask has two neighbouring k tiles that share their last q tile but not their first: then no
/// pair can be made and the launch is the unpaired one (a cheap test before building it).
bool pairs_possible(std::span<const std::vector<KTileSpan>> tiles_of_mask);

/// The backward's CTAs in grid order.
struct BackwardLaunch {
  struct Cta {
    int64_t head = 0;  ///< batch element x kv heads + kv head
    int32_t tile = 0;  ///< k tile
    int32_t part = 0;     ///< 0: a single k tile or a pair's first; 1: a pair's second
    bool paired = false;  ///< part of a pair
  };
  std::vector<Cta> ctas;
  bool paired = false;  ///< the documents were paired (the played makespan allowed it)
};

/// The launch of the k tiles `tiles_of_mask[m]` (one list per head mask: one shared, or one per kv head) over
/// `batch` x `kv_heads` CTA heads on `slots` SMs. With `pair_documents`, documents are paired where some are and
/// the played makespan stays within kBackwardPairMakespanRatio of the unpaired launch's. Each head mask's units
/// (single k tiles, or pairs) go costliest first (stable). The k tiles of a document (consecutive k tiles walking
/// from their shared last q tile) are paired first with last, from the outside in, while the pairs' first q tiles
/// keep the outermost pair's sum (so prefix-LM's prefix k tiles, which all start at q tile 0, are not paired with its
/// causal ones); documents whose k tiles all see the same q tiles (a full mask) are left alone: their CTAs are equal
/// already.
BackwardLaunch backward_launch(std::span<const std::vector<KTileSpan>> tiles_of_mask, int64_t batch,
                               int64_t kv_heads, int64_t slots, bool pair_documents);
/// The same into `out` (its vectors reused: the kernel cost model builds a launch per call). Where the paired
/// launch's played makespan is within the ratio of a lower bound of the unpaired one's (the mean load per slot, the
/// longest k tile), the unpaired launch is not played.
void backward_launch_into(std::span<const std::vector<KTileSpan>> tiles_of_mask, int64_t batch, int64_t kv_heads,
                          int64_t slots, bool pair_documents, BackwardLaunch& out);

}  // namespace lcab::perf
