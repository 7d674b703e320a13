// Kernel cost model (DESIGN.md section 6): the time of one attention call from the mask's tiling.
//
// For the implementation's tile shape Bq x Bk the mask is cut into q-tile rows (model/mask_tiling.h). One work
// item is what one CTA of the kernel computes (KernelParams::work_item): one q-tile row of one q head (forward
// kernels), one k-tile column of one q head (FlashAttention backward), or one k-tile column of one kv head with
// the GQA group's g = Hq / Hk q heads in series (lcab_flash backward); per batch element. It costs
//     cost(item) = (full(item) * full_tile_us + partial(item) * partial_tile_us + row_us) * (g or 1)
// (a kernel with idle key halves, KernelParams::idle_half_tile_us, charges its boundary tiles with one idle half
// idle_half_tile_us instead of partial_tile_us)
// on one execution slot (slots = SMs x CTAs per SM). Items are handed to slots as the kernel schedules them
// (KernelScheduler: a persistent longest-first work list, or a grid launch in waves), so wave quantization and
// imbalance emerge from the slot loads; the call takes
//     time = launch_us + max over slots of the slot's summed item costs + q passes,
//     q passes = q_pass_bytes_per_element * q rows * q heads * head dim * batch / HBM bytes per second
// (the call's memory-bound passes outside the tile loop: the backward's dO.O and dQ accumulator handling; under GQA
// also kv_expand_bytes_per_element per q element for a kernel that needs K/V repeated to the q heads). Terms some
// kernels have (profile.h): sustained-load clocks stretch a call of GPU time T to T (1 + s r T / (1 + r T)), and
// a host floor makes a call take at least host_floor_us (the GPU waiting for the host's dispatch):
//     time = max(host_floor_us, T (1 + s r T / (1 + r T))),  T = launch_us + busiest slot + q passes.
// A kernel whose grid runs a pass over q after its items (tail_pass_bytes_per_element: lcab_flash's Hopper backward
// converting dQ, model/perf/backward_tail.h) has that pass as chunk items queued after the tile items, each at one
// slot's share of the HBM bandwidth, so it costs only what the last wave's idle slots cannot hold.
// All of them depend on the shape and T only, so tile counts still determine the cost (cost_from_tiles).
// A grid launch runs every outer tile (an empty one still writes zeros: row_us); a persistent kernel's work
// list holds only items with tiles. A long document's k column under GQA is one long serial item: with packed
// documents at few kv heads the busiest slot, not the total work, sets the backward's time. A call with no tile at all is never launched and costs 0.
// A kernel with ragged_sequences (cuDNN) tiles each packed document of the mask from its own first token (a ragged
// batch of sequences) instead of the packed mask's grid.
// Two terms of compiled FlexAttention (profile.h): unmasked_tile_us replaces full_tile_us in a call whose mask masks
// nothing, and slices_by_table_width charges slice_us per boundary tile for every interval of the mask_mod's table
// (the call's most slices covering one row) instead of the slices meeting the tile's q-tile row, and, beyond the
// intervals a thread holds in registers (register_slices), spilled_slice_us per further interval.
// The backward pass has its own parameters (per-tile costs, work item). FlexAttention's backward launches two kinds
// of CTA in one grid (KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead): per kv head its k-tile columns over the GQA
// group (dK, dV), then a q-tile row item per q head (dQ) whose tiles cost dq_tile_fraction of a dK/dV tile.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "model/mask.h"
#include "model/perf/memory.h"
#include "model/perf/profile.h"
#include "model/perf/slot_scheduler.h"

namespace lcab::perf {

struct KernelCost {
  double time_us = 0;       ///< launch + busiest slot; 0 when there is no work
  double launch_us = 0;
  double q_pass_us = 0;     ///< memory-bound passes over q outside the tile loop, and the K/V expansion of a
                            ///< kernel without GQA (KernelParams::kv_expand_bytes_per_element) (included in time_us)
  double sustained_us = 0;  ///< the lower clocks of a long call (KernelParams::sustained_slowdown; included)
  double host_wait_us = 0;  ///< time the GPU waits for the host's dispatch (KernelParams::host_floor_us; included)
  SlotSchedule slots;       ///< slot loads (makespan, busy time, imbalance)
  int64_t work_items = 0;   ///< q-tile rows x heads x batch handed to slots
  int64_t full_tiles = 0;   ///< over all heads and batch
  int64_t partial_tiles = 0;
  int64_t idle_half_tiles = 0;  ///< of the partial tiles, those with an idle key half (KernelParams::idle_half_tile_us;
                                ///< counted only for a kernel that has them)
  double pairs = 0;         ///< unmasked (q, k) pairs over all q heads and batch
  double flops = 0;         ///< FlashAttention convention: fwd 4 * pairs * D, bwd 2.5x
  int64_t peak_mem_bytes = 0;
  /// Items per slot: 62.06 means 63 waves for equal items (the last one 6% full).
  double waves() const { return slots.slots > 0 ? static_cast<double>(work_items) / slots.slots : 0; }
  double tflops() const { return time_us > 0 ? flops / time_us * 1e-6 : 0; }
};

/// The tile counts of one head mask of a call, known without its slices: per outer tile of the kernel's work item
/// (q-tile rows for KernelWorkItem::kQRowPerHead, k-tile columns otherwise; every outer tile of the call, empty
/// ones included, in launch order) its touched and partial tiles, and the mask's unmasked cells.
struct OuterTileCounts {
  std::vector<int64_t> tiles;    ///< touched tiles per outer tile
  std::vector<int64_t> partial;  ///< partial tiles per outer tile; empty: none is partial
  double area = 0;               ///< unmasked (q, k) cells of this head mask
  /// Per outer tile, the slices its boundary tiles test: the sum over its partial tiles of the slices meeting
  /// their q-tile row (what KernelParams::slice_us charges); empty: not counted (then counts with partial tiles
  /// are refused where slice_us applies).
  std::vector<double> partial_slices;
  /// Per outer tile (k-tile columns), the first and last inner tile (q-tile row) it has, -1 for none: what
  /// KernelScheduler::kGridPairedDocuments pairs by. Empty: not given (such a launch is scheduled unpaired). Where no
  /// two neighbouring columns share their last inner tile no pair can be made whatever the first ones, and a counter
  /// may give first_inner = last_inner there.
  std::vector<int32_t> first_inner{};
  std::vector<int32_t> last_inner{};
  /// Per outer tile, its boundary tiles with an idle key half (KernelParams::idle_half_tile_us: 2 x touched tiles
  /// less the touched tiles of the tiling with half the keys, append_idle_half_tiles); empty: none counted (then counts with partial tiles are refused where
  /// the model has idle halves).
  std::vector<int64_t> idle_half{};
};

/// What a caller reads of a KernelCost: all of it, or only time_us and flops (and the counts: work items, tiles,
/// pairs). With kTimeAndFlops a grid's launch order is worked out only where it can change the makespan: when every
/// item has a slot of its own the makespan is the longest item in any order, and the order would only set the order
/// in which slots.busy_total_us is summed (then left in head-major order, so it may differ in its last bits).
enum class CostDetail : uint8_t { kAll, kTimeAndFlops };

/// Hash of a call's content (slices, lengths, shape): equal calls hash equal. For caches of kernel costs.
uint64_t attention_call_hash(std::span<const std::vector<Slice>> slices, int64_t seqlen_q, int64_t seqlen_k,
                             const AttentionShape& shape);

class KernelCostModel {
 public:
  /// params: one implementation, pass, head dim and dtype (HardwareProfile::kernel); sms: the GPU's SMs;
  /// hbm_bytes_per_s: the GPU's memory bandwidth, needed when params.q_pass_bytes_per_element > 0.
  KernelCostModel(KernelParams params, int sms, double hbm_bytes_per_s = 0);
  /// The same with the SMs and HBM bandwidth of `profile`.
  KernelCostModel(const HardwareProfile& profile, KernelParams params);

  const KernelParams& params() const { return params_; }
  KernelPass pass() const { return pass_; }
  int64_t slots() const { return slots_; }

  /// One call: seqlen_q queries against seqlen_k keys with slices in local coordinates, either one list shared
  /// by all heads or one per kv head (kernels/attention.h convention; shape.kv_heads lists then).
  KernelCost cost(std::span<const std::vector<Slice>> slices, int64_t seqlen_q, int64_t seqlen_k,
                  const AttentionShape& shape) const;
  /// The same call from its tile counts (one entry per head mask, as the slice lists of cost()): equal to
  /// cost(slices, ...) when the counts are those of the slices' tiling for params().tile, bit for bit. Valid only
  /// while tile_counts_determine_cost().
  KernelCost cost_from_tiles(std::span<const OuterTileCounts> per_mask, int64_t seqlen_q, int64_t seqlen_k,
                             const AttentionShape& shape, CostDetail detail = CostDetail::kAll) const;
  /// True when a call's cost depends on its mask only through the tile counts of OuterTileCounts: false for a
  /// kernel that visits whole sequences (whole_sequence_band widens the slices before tiling), so that callers
  /// counting tiles without slices fall back to cost(). With slice_us, counts are exact only without boundary
  /// tiles (cost_from_tiles checks).
  /// Also false for a kernel with both k-column and q-row items (KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead):
  /// counts hold one kind of outer tile.
  /// Also false for a kernel whose boundary tiles test the mask table's width (KernelParams::slices_by_table_width):
  /// a property of the whole call's slices; and for one that tiles each packed document from its own first token
  /// (KernelParams::ragged_sequences).
  bool tile_counts_determine_cost() const {
    return !params_.whole_sequence_band && params_.work_item != KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead &&
           !params_.slices_by_table_width && !params_.ragged_sequences;
  }
  /// Self-attention over a whole mask.
  KernelCost cost(const Mask& mask, const AttentionShape& shape) const;
  /// As cost(), remembering results by content: equal (slices, lengths, shape) are costed once. The planner's
  /// CP steps repeat a few local masks many times. Calls with more than kMaxCachedSlices slices are not kept
  /// (the reference stays valid until the next cached_cost call).
  const KernelCost& cached_cost(std::span<const std::vector<Slice>> slices, int64_t seqlen_q, int64_t seqlen_k,
                                const AttentionShape& shape) const;
  size_t cache_entries() const { return cache_size_; }
  static constexpr size_t kMaxCachedSlices = 4096;

 private:
  struct CacheEntry {
    std::vector<std::vector<Slice>> slices;
    int64_t seqlen_q, seqlen_k;
    AttentionShape shape;
    std::unique_ptr<KernelCost> cost;
  };
  /// The call's cost, one head mask at a time: head_tiles_of(m) gives mask m's area, tile totals and outer tiles.
  /// `unmasked`: every head mask's area is seqlen_q x seqlen_k (KernelParams::unmasked_tile_us applies);
  /// `spill_us`: added to every boundary tile (KernelParams::spilled_slice_us beyond register_slices).
  template <class HeadTilesOf>
  KernelCost cost_of_masks(int64_t masks, int64_t seqlen_q, int64_t seqlen_k, const AttentionShape& shape,
                           bool unmasked, double spill_us, CostDetail detail, HeadTilesOf&& head_tiles_of) const;

  KernelParams params_;
  KernelPass pass_;
  int64_t slots_;
  double q_pass_us_per_element_ = 0;
  double tail_pass_slot_us_per_element_ = 0;  ///< one slot's time per q element of the tail pass
  double kv_expand_us_per_element_ = 0;  ///< charged under GQA only
  mutable std::unordered_map<uint64_t, std::vector<CacheEntry>> cache_;
  mutable size_t cache_size_ = 0;
  mutable KernelCost uncached_;
};

}  // namespace lcab::perf
