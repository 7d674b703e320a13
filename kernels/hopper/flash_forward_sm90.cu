// lcab_flash forward, Hopper path (sm_90a): warp-specialized, persistent, TMA + wgmma.
//
// A CTA of three warpgroups runs on each SM for the whole launch:
//   - the producer warpgroup: its second warp (the scheduler) takes work items from a global counter in the order
//     of the host work list (costliest q-tile rows first, so document and window masks balance over the SMs) within
//     sections of q heads whose K and V stay in L2 (forward_kv_heads_per_section, flash_work.h), decodes each into
//     one of two item slots in shared memory while the consumers work on the other's; its thread 0 (the loader)
//     streams each item's Q tile (two buffers, so the next item's Q arrives early) and its K and V tiles (the row's
//     runs; masked-out tiles are never loaded) with TMA into kStages-deep rings, K and V with their own full/empty
//     mbarriers: K_j is released as soon as S_j is computed, V_j once P_j V_j is;
//   - two consumer warpgroups own 64 query rows each of the 128-row tile: S = Q K^T with wgmma from shared memory,
//     in-tile masking only for partial tiles (from each partial run's run mask, run_mask.h), online softmax in fp32
//     (exp2, scale folded in), then O += P V with P taken from registers (the accumulator fragment is the A
//     fragment) and V from shared memory (transposed operand). A consumer releases a stage once its P V has
//     completed. The two warpgroups alternate their tensor-core phases (named barriers), so one's softmax runs while
//     the other's matrix products do.
// Registers are rebalanced with setmaxnreg: the producer keeps 40 per thread, the consumers get 232.
// Head dim 256 streams 64 keys per step (O alone takes 128 registers per thread) and has one Q buffer, which the
// epilogue reuses as O's staging (two Q buffers, the K/V rings and a staging buffer would exceed shared memory):
// each consumer warpgroup writes its O rows over its own Q rows, and the buffer is released once the store has
// read them, so the next item's Q load waits for that store (an item's epilogue is short against its row).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstddef>

#include "kernels/cuda_check.h"
#include "kernels/flash_common.cuh"
#include "kernels/flash_dispatch.cuh"
#include "kernels/hopper/flash_sm90.h"
#include "kernels/hopper/sm90_flash_common.cuh"
#include "kernels/hopper/sm90_primitives.cuh"
#include "kernels/hopper/tensor_map.h"

// The kernels' bodies exist for sm_90a only; the other device passes (sm_80) compile them empty, leaving the
// helpers below unreferenced there (nvcc's #177), which is expected and silenced for those passes alone.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#pragma nv_diag_suppress 177
#endif

namespace lcab::kernels::flash {
namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

template <int kHeadDim>
struct Sm90ForwardConfig {
  static constexpr int kBlockQ = 128;
  static constexpr int kBlockK = kHeadDim == 256 ? 64 : 128;
  static constexpr int kStages = 2;
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kConsumerWarps = 4 * kConsumerWarpgroups;
  static constexpr int kThreads = 128 * (1 + kConsumerWarpgroups);
  static constexpr int kPanels = kHeadDim / 64;          // 64-column, 128-byte swizzled panels per tile
  static constexpr int kQPanelBytes = kBlockQ * 128;
  static constexpr int kKPanelBytes = kBlockK * 128;
  static constexpr int kQBytes = kPanels * kQPanelBytes;
  static constexpr int kKBytes = kPanels * kKPanelBytes;  // also V
  static constexpr int kOFloats = kHeadDim / 2;           // O accumulator floats per thread (64 x kHeadDim / 128)
  static constexpr int kSFloats = kBlockK / 2;
  // Two Q buffers: the next item's Q loads while the current item finishes. One (head dim 256): O is staged in it.
  static constexpr int kQBuffers = kHeadDim == 256 ? 1 : 2;
  static constexpr bool kOStagedInQ = kQBuffers == 1;
  static constexpr int kKOffset = kQBuffers * kQBytes;
  static constexpr int kVOffset = kKOffset + kStages * kKBytes;
  // A consumer warpgroup's 64 output rows, as TMA stores them: 64-column panels of 64 rows, kOPanelStride apart
  // (in the Q buffer, the warpgroup's rows of each Q panel).
  static constexpr int kOStageBytes = kOStagedInQ ? 0 : kPanels * 64 * 128;
  static constexpr int kOPanelStride = kOStagedInQ ? kQPanelBytes : 64 * 128;
  static constexpr int kOOffset = kVOffset + kStages * kKBytes;
  static constexpr int kBarrierOffset = kOOffset + kConsumerWarpgroups * kOStageBytes;
  static constexpr int kBarrierBytes = 1024;  // the barriers and the item slots (Barriers below)
  static constexpr size_t kSmemBytes = kBarrierOffset + kBarrierBytes + 1024;  // + alignment slack
  static_assert(kSmemBytes <= kSm90MaxSharedBytes, "the forward's shared memory exceeds an sm_90 CTA's");
};

// One work item: a q-tile row of one q head of one batch element, decoded by the scheduler warp and handed to the
// loader and the consumers in shared memory (the item slots below), so that none of them waits on the work list's
// dependent global loads at an item's start: `linear` (>= total_items ends the launch), the row's runs
// [run_begin, run_end) with the first one and its run mask copied.
struct Item {
  int linear, head, batch, kv_head, q_tile, run_begin, run_end;
  DeviceRun first_run;
  DeviceRunMask first_run_mask;
};

// Item slots: a slot is free once the loader has read its item and the consumers have finished it (epilogue
// included); the scheduler then decodes the next item into it (an atomic, then three dependent global loads) while
// the consumers work on the other slot's, so an item is ready when they finish theirs. Three slots measured 6-13%
// slower than two on every point tried (H100, data/measurements/h100/fwd-scheduler-2026-11-23/variants/
// variants-summary.txt), for a reason not isolated: the deeper queue or the consumers' code around it.
constexpr int kItemSlots = 2;

// The consumers' view of an item slot: each field is read from shared memory where it is used, so that none
// occupies a register across the main loop (the consumers' registers are all taken by S, P and O).
struct SharedItem {
  uint32_t address;  ///< the slot's
#define LCAB_ITEM_FIELD(name, member) \
  __device__ int name() const { return sm90::ld_shared_s32(address + static_cast<uint32_t>(offsetof(Item, member))); }
  LCAB_ITEM_FIELD(linear, linear)
  LCAB_ITEM_FIELD(head, head)
  LCAB_ITEM_FIELD(batch, batch)
  LCAB_ITEM_FIELD(q_tile, q_tile)
  LCAB_ITEM_FIELD(run_begin, run_begin)
  LCAB_ITEM_FIELD(run_end, run_end)
  LCAB_ITEM_FIELD(first_run_begin, first_run.begin)
  LCAB_ITEM_FIELD(first_run_end_and_partial, first_run.end_and_partial)
  LCAB_ITEM_FIELD(first_run_mask_bounds, first_run_mask.bounds)
  LCAB_ITEM_FIELD(first_run_mask_rows, first_run_mask.rows)
  LCAB_ITEM_FIELD(first_run_mask_bounds2, first_run_mask.bounds2)
  LCAB_ITEM_FIELD(first_run_mask_rows2, first_run_mask.rows2)
#undef LCAB_ITEM_FIELD
};

template <int kStages>
struct Barriers {
  uint64_t q_full[2];
  uint64_t q_empty[2];
  uint64_t k_full[kStages];
  uint64_t v_full[kStages];
  uint64_t k_empty[kStages];
  uint64_t v_empty[kStages];
  uint64_t item_full[kItemSlots];
  uint64_t item_empty[kItemSlots];  ///< the loader's arrival once it has read the item, then every consumer warp's
  Item slot[kItemSlots];
};

struct Sm90ForwardArgs {
  ForwardParams p;
  CUtensorMap q_map;
  CUtensorMap k_map;
  CUtensorMap v_map;
  CUtensorMap o_map;  ///< box of 64 rows: one consumer warpgroup's part of a tile
  int* item_counter;
  int total_items;
};

// The scheduler's decoding of item `linear` (< total_items): its place in the item order, then the work list's
// row (dependent global loads: the order, the row's run offsets, its first run and run mask).
__device__ __forceinline__ Item decode_item(const ForwardParams& p, int linear) {
  const Shape& s = p.shape;
  Item it;
  it.linear = linear;
  const ForwardItemIndex index = decode_forward_item(linear, s.heads, p.work.outer_tiles, p.work.section_heads);
  it.head = index.head;
  it.batch = index.batch;
  it.kv_head = it.head / (s.heads / s.kv_heads);
  const int mask = p.work.num_masks == 1 ? 0 : it.kv_head;
  it.q_tile = p.work.outer_order[mask * p.work.outer_tiles + index.order_index];
  const int outer = mask * p.work.outer_tiles + it.q_tile;
  it.run_begin = p.work.run_offsets[outer];
  it.run_end = p.work.run_offsets[outer + 1];
  it.first_run = it.run_begin < it.run_end ? p.work.runs[it.run_begin] : DeviceRun{};
  it.first_run_mask = it.run_begin < it.run_end ? p.work.run_masks[it.run_begin] : DeviceRunMask{};
  return it;
}

// Walks the inner tiles of an item's runs; every field is warp-uniform. With kMasks it also carries each run's run
// mask (run_mask.h): the consumers' cursor where kRunMaskInCursor (hd 64 and 256), not the loader's.
template <bool kMasks>
struct TileCursor {
  int run, run_end, tile, tile_end;
  bool partial;
  DeviceRunMask mask;  ///< the run's run mask (kMasks; every partial run has one, a whole run none)
  // Starts from the item's copy of its first run (the loader's, or the consumers' shared one).
  __device__ static TileCursor start(int run_begin, int run_end, int first_begin, int first_end_and_partial,
                                     const DeviceRunMask& first_mask) {
    TileCursor c{run_begin, run_end, 0, 0, false, DeviceRunMask{}};
    if (c.valid()) c.take(first_begin, first_end_and_partial, first_mask);
    return c;
  }
  __device__ static TileCursor start(const Item& it) {
    return start(it.run_begin, it.run_end, it.first_run.begin, it.first_run.end_and_partial, DeviceRunMask{});
  }
  __device__ static TileCursor start(const SharedItem& it) {
    return start(it.run_begin(), it.run_end(), it.first_run_begin(), it.first_run_end_and_partial(),
                 DeviceRunMask{it.first_run_mask_bounds(), it.first_run_mask_rows(), it.first_run_mask_bounds2(),
                               it.first_run_mask_rows2()});
  }
  __device__ bool valid() const { return run < run_end; }
  __device__ void advance(const DeviceWork& work) {
    if (++tile >= tile_end) {
      ++run;
      if (valid()) {
        take(work.runs[run].begin, work.runs[run].end_and_partial, kMasks ? work.run_masks[run] : DeviceRunMask{});
      }
    }
  }

 private:
  __device__ void take(int begin, int end_and_partial, const DeviceRunMask& run_mask) {
    tile = warp_uniform(begin);
    end_and_partial = warp_uniform(end_and_partial);
    tile_end = end_and_partial & 0x7fffffff;
    partial = end_and_partial < 0;
    if constexpr (kMasks) {
      mask.bounds = warp_uniform(run_mask.bounds);
      mask.rows = warp_uniform(run_mask.rows);
      mask.bounds2 = warp_uniform(run_mask.bounds2);
      mask.rows2 = warp_uniform(run_mask.rows2);
    }
  }
};

// The scheduler warp (the producer warpgroup's second): takes items from the global counter, decodes them and
// fills the item slots. Lane 0 takes the item; every lane decodes it (the same addresses: one transaction each).
template <int kStages>
__device__ void schedule(const Sm90ForwardArgs& a, Barriers<kStages>* bars) {
  const ForwardParams& p = a.p;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  for (int use = 0;; ++use) {
    // The item is taken only once its slot is free: taken earlier, it would be committed to this CTA while others
    // may run out of work at the launch's end.
    const int slot = use % kItemSlots;
    sm90::mbar_wait(&bars->item_empty[slot], ((use / kItemSlots) & 1) ^ 1);
    int linear = 0;
    if (lane == 0) linear = atomicAdd(a.item_counter, 1);
    linear = __shfl_sync(0xffffffffu, linear, 0);
    Item it;
    it.linear = linear;
    const bool last = linear >= a.total_items;
    if (!last) it = decode_item(p, linear);
    if (lane == 0) bars->slot[slot] = it;
    __syncwarp();
    if (lane == 0) sm90::mbar_arrive(&bars->item_full[slot]);
    if (last) break;
  }
}

// The loader (the producer warpgroup's thread 0): per item from the slots, its Q tile and its K and V tiles.
template <int kHeadDim>
__device__ void produce(const Sm90ForwardArgs& a, unsigned char* smem, Barriers<Sm90ForwardConfig<kHeadDim>::kStages>* bars) {
  using C = Sm90ForwardConfig<kHeadDim>;
  sm90::prefetch_tensor_map(&a.q_map);
  sm90::prefetch_tensor_map(&a.k_map);
  sm90::prefetch_tensor_map(&a.v_map);
  const ForwardParams& p = a.p;
  int q_use = 0, kv_use = 0;
  for (int item_use = 0;; ++item_use) {
    const int slot = item_use % kItemSlots;
    sm90::mbar_wait(&bars->item_full[slot], (item_use / kItemSlots) & 1);
    const Item it = bars->slot[slot];
    sm90::mbar_arrive(&bars->item_empty[slot]);  // release: the item was read first
    if (it.linear >= a.total_items) break;
    const int q_buffer = q_use % C::kQBuffers;
    if (it.run_begin == it.run_end) {
      // A row without tiles loads no Q; where O is staged in the Q buffer, its epilogue still takes the buffer.
      if constexpr (C::kOStagedInQ) {
        sm90::mbar_wait(&bars->q_empty[q_buffer], ((q_use / C::kQBuffers) & 1) ^ 1);
        sm90::mbar_arrive(&bars->q_full[q_buffer]);
        ++q_use;
      }
      continue;
    }

    sm90::mbar_wait(&bars->q_empty[q_buffer], ((q_use / C::kQBuffers) & 1) ^ 1);
    sm90::mbar_arrive_expect_tx(&bars->q_full[q_buffer], C::kQBytes);
#pragma unroll
    for (int panel = 0; panel < C::kPanels; ++panel) {
      sm90::tma_load_4d(smem + q_buffer * C::kQBytes + panel * C::kQPanelBytes, &a.q_map, &bars->q_full[q_buffer],
                        64 * panel, it.head, it.q_tile * C::kBlockQ, it.batch);
    }
    ++q_use;

    // In the order the consumers use them: K_0, then K_j before V_{j-1}, then the last V.
    auto load = [&](const CUtensorMap* map, uint64_t* full, uint64_t* empty, int offset, int use, int tile) {
      const int stage = use % C::kStages;
      sm90::mbar_wait(&empty[stage], ((use / C::kStages) & 1) ^ 1);
      sm90::mbar_arrive_expect_tx(&full[stage], C::kKBytes);
#pragma unroll
      for (int panel = 0; panel < C::kPanels; ++panel) {
        sm90::tma_load_4d(smem + offset + stage * C::kKBytes + panel * C::kKPanelBytes, map, &full[stage], 64 * panel,
                          it.kv_head, tile * C::kBlockK, it.batch);
      }
    };
    int previous_tile = -1;
    for (TileCursor<false> c = TileCursor<false>::start(it); c.valid(); c.advance(p.work)) {
      load(&a.k_map, bars->k_full, bars->k_empty, C::kKOffset, kv_use, c.tile);
      if (previous_tile >= 0) load(&a.v_map, bars->v_full, bars->v_empty, C::kVOffset, kv_use - 1, previous_tile);
      previous_tile = c.tile;
      ++kv_use;
    }
    load(&a.v_map, bars->v_full, bars->v_empty, C::kVOffset, kv_use - 1, previous_tile);
  }
}

// Per-thread online-softmax state of the two rows a thread holds (g and g + 8 of its warp's 16-row slab).
struct RowState {
  float max[2];
  float sum[2];
};

// The keys of a partial k tile that the thread's two rows (tile_row0 and tile_row0 + 8 of the q tile) see (bit j: key
// 8 (j / 2) + 2 t + (j % 2) of the tile, the accumulator layout), from the run's run mask (run_mask.h). Computed while
// the tile's S is still on the tensor cores.
template <int kSFloats>
__device__ __forceinline__ void run_mask_bits(uint32_t (&bits)[2], const DeviceRunMask& mask, int tile_row0, int t) {
  constexpr int kBits = kSFloats / 2;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    int lo, hi;
    run_mask_pair_row_keys(mask.bounds, mask.rows, mask.bounds2, mask.rows2, tile_row0 + 8 * half, lo, hi);
    bits[half] = interval_bits<kBits>(2 * t, lo, hi);
  }
}

// Where the consumers keep a partial run's run mask: in their tile cursor (loaded with the run, made warp-uniform),
// or at hd 128 nowhere, loaded from the work list where a partial tile needs it (while its S is on the tensor
// cores). Measured per cycle on an H100 (data/measurements/h100/fwd-run-masks-v2-2026-11-24/variants/): loading it
// there gave hd 128 +1.4-1.9% on full, causal and masks without partial tiles and +0.4-1.0% on masked ones (its loop
// state back in the uniform datapath: R2UR 92 -> 65), but cost hd 64, whose softmax is the critical path, 3.1-3.4%
// on every masked pattern.
template <int kHeadDim>
constexpr bool kRunMaskInCursor = kHeadDim != 128;

// Where the consumers compute their rows' totals (finish_rows in consume: the row sums' shuffles, 1 / sum, lse and
// the staging buffer's wait): while their last P V is on the tensor cores, or in the epilogue after it. Measured per
// cycle on an H100 (data/measurements/h100/fwd-early-row-totals-2026-11-24/, two calls of three rounds): under the
// P V, hd 256 +6.6-8.4% on every pattern, full included (its SASS moves its loop's state back into the uniform
// datapath: R2UR 240 -> 140), while hd 128 and 64 were unchanged within -1.8..+1.1% (-1.3% to -1.8% on full and
// causal at hd 128), so they keep the epilogue's order. A trace of the consumers' phases (NOTE there) shows why
// the move saves little at hd 128: the totals' dependent chain takes about 1300 cycles while the other warpgroup's
// softmax runs, longer than the P V it was to hide under.
template <int kHeadDim>
constexpr bool kRowTotalsUnderLastPv = kHeadDim == 256;

// The lse's log on the special-function unit (lg2.approx) instead of logf's accurate path, which lengthened the
// epilogue's dependent chain by about 50 instructions. Measured per cycle on an H100
// (data/measurements/h100/fwd-epilogue-approx-2026-11-24/, the loop's SASS unchanged at hd 64 and 128): the window
// +0.9-1.4% and causal_document +0.1-0.8% over two calls, full and causal -0.8..-0.2%; at hd 256, whose loop
// schedule it changed, -1.4..+1.5% (geometric mean -0.4%), so hd 256 keeps logf.
template <int kHeadDim>
constexpr bool kFastLseLog = kHeadDim != 256;

// Lazy rescale (head dims from 128): a row's running max moves only when a tile's max exceeds it by more than this
// many powers of two (after scaling): below that the stale max is kept, P stays below 2^8 (bf16/fp16 hold it; the
// fp32 sum and O do too) and O needs no rescale. Exact: O, the sum and the LSE all refer to the same (stale) max, and
// the final normalization divides it out. With real scores the max rarely jumps by 8 after the first tiles, so most
// tiles skip the rescale of O (hd/2 multiplies per thread). Measured side by side (H100 and H200): +2-6% at hd 128,
// -1-2% at hd 64, where O is half as large and the vote and compare cost more than they save: hd 64 moves the max
// on every tile and always rescales.
constexpr float kRescaleThresholdLog2 = 8.f;
template <int kHeadDim>
constexpr bool kLazyRescale = kHeadDim >= 128;

// Online softmax of one S tile in place (S becomes P, unnormalized). Returns in `correction` the factor by which
// O must be rescaled for each of the thread's two rows (applied by the caller once the previous P V is done), and
// whether any row of the warp needs it (1 exactly otherwise; always true when not kLazy).
template <bool kLazy, int kSFloats>
__device__ __forceinline__ bool softmax_update(float (&s)[kSFloats], RowState& rows, float scale_log2,
                                               float (&correction)[2]) {
  bool moved = false;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float tile_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < kSFloats / 4; ++j) {
      tile_max = fmaxf(tile_max, fmaxf(s[4 * j + 2 * half], s[4 * j + 2 * half + 1]));
    }
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
    // rows.max starts at -inf, so the first tile with a visible key always moves it.
    if (!kLazy || (tile_max - rows.max[half]) * scale_log2 > kRescaleThresholdLog2) {
      const float new_max = fmaxf(rows.max[half], tile_max);
      correction[half] = new_max == -INFINITY ? 1.f : fast_exp2((rows.max[half] - new_max) * scale_log2);
      rows.max[half] = new_max;
      moved = true;
    } else {
      correction[half] = 1.f;
    }
    const float max_scaled = rows.max[half] == -INFINITY ? 0.f : rows.max[half] * scale_log2;
    float tile_sum = 0.f;
#pragma unroll
    for (int j = 0; j < kSFloats / 4; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float pv = fast_exp2(fmaf(s[4 * j + 2 * half + e], scale_log2, -max_scaled));
        s[4 * j + 2 * half + e] = pv;
        tile_sum += pv;
      }
    }
    rows.sum[half] = rows.sum[half] * correction[half] + tile_sum;
  }
  return kLazy ? __any_sync(0xffffffffu, moved) : true;
}

template <int kOFloats>
__device__ __forceinline__ void rescale(float (&o)[kOFloats], const float (&correction)[2]) {
#pragma unroll
  for (int j = 0; j < kOFloats / 4; ++j) {
    o[4 * j + 0] *= correction[0];
    o[4 * j + 1] *= correction[0];
    o[4 * j + 2] *= correction[1];
    o[4 * j + 3] *= correction[1];
  }
}

template <typename T, int kHeadDim>
__device__ __forceinline__ void issue_qk(float (&sacc)[Sm90ForwardConfig<kHeadDim>::kSFloats], uint32_t q_smem,
                                         uint32_t k_stage) {
  using C = Sm90ForwardConfig<kHeadDim>;
#pragma unroll
  for (int ks = 0; ks < kHeadDim / 16; ++ks) {
    const uint32_t q_address = q_smem + (ks / 4) * C::kQPanelBytes + (ks % 4) * 32;
    const uint32_t k_address = k_stage + (ks / 4) * C::kKPanelBytes + (ks % 4) * 32;
    sm90::WgmmaSS<T, C::kBlockK, 0, 0>::run(sacc, sm90::make_desc(q_address, 16, 1024),
                                         sm90::make_desc(k_address, 16, 1024), ks > 0);
  }
  sm90::wgmma_commit();
}

template <typename T, int kHeadDim>
__device__ __forceinline__ void issue_pv(float (&o)[Sm90ForwardConfig<kHeadDim>::kOFloats],
                                         const uint32_t (&pfrag)[Sm90ForwardConfig<kHeadDim>::kBlockK / 16][4],
                                         uint32_t v_stage) {
  using C = Sm90ForwardConfig<kHeadDim>;
#pragma unroll
  for (int kk = 0; kk < C::kBlockK / 16; ++kk) {
    sm90::WgmmaRS<T, kHeadDim, 1>::run(o, pfrag[kk], sm90::make_desc(v_stage + kk * 16 * 128, C::kKPanelBytes, 1024),
                                       true);
  }
  sm90::wgmma_commit();
}

// A consumer warpgroup. Per k tile j it issues S_j = Q K_j^T together with O += P_{j-1} V_{j-1} (inside its turn
// of the ping-pong), then runs the softmax of S_j while P_{j-1} V_{j-1} is still on the tensor cores, and
// rescales O only once that product has completed.
// ptxas keeps this loop's state (stage counters, shared memory bases, the wgmma descriptors) in uniform registers;
// small changes around the loop can make it compute them per thread and move each descriptor with R2UR instead
// (builds that did ran 4-13% slower; a warp_uniform() on the item loop's exit alone does it to the SASS:
// data/measurements/h100/fwd-deferred-epilogue-2026-11-23/).
// After changing this function, compare the SASS with main's: scripts/disassemble.sh on this file (on the CPU
// machine; cuobjdump -sass BINARY on a GPU machine), then scripts/sass_counts.py --match flash_forward_sm90 --regions
// --baseline MAIN.sass (the consumers' region, TRY_ALLOC: its R2UR and uniform columns).
template <typename T, int kHeadDim>
__device__ void consume(const Sm90ForwardArgs& a, unsigned char* smem,
                        Barriers<Sm90ForwardConfig<kHeadDim>::kStages>* bars, int warpgroup) {
  using C = Sm90ForwardConfig<kHeadDim>;
  const ForwardParams& p = a.p;
  const Shape& s = p.shape;
  const int thread = static_cast<int>(threadIdx.x) % 128;
  const int warp = thread / 32;
  const int lane = thread % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const float scale_log2 = s.scale * kLog2e;
  const int tile_row0 = warpgroup * 64 + warp * 16 + g;  // the thread's first row within a q tile
  const uint32_t q_smem0 = sm90::smem_u32(smem) + warpgroup * 64 * 128;
  const uint32_t k_smem = sm90::smem_u32(smem + C::kKOffset);
  const uint32_t v_smem = sm90::smem_u32(smem + C::kVOffset);
  // O's staging: the warpgroup's own buffer, or its rows of the (single) Q buffer.
  unsigned char* const o_stage = C::kOStagedInQ ? smem + warpgroup * 64 * 128
                                                : smem + C::kOOffset + warpgroup * C::kOStageBytes;
  // Ping-pong: warpgroup w waits on named barrier 1 + w before issuing its matrix products and opens the other's
  // after; both warpgroups walk the same tiles, so turns stay balanced.
  const int my_turn = 1 + warpgroup;
  const int other_turn = 2 - warpgroup;
  if (warpgroup == 1) sm90::named_barrier_arrive(1, 256);  // warpgroup 0 goes first

  float sacc[C::kSFloats];
  float o[C::kOFloats];
  uint32_t pfrag[C::kBlockK / 16][4];
  int item_use = 0, q_use = 0, kv_use = 0;
  while (true) {
    const int slot = item_use % kItemSlots;
    sm90::mbar_wait(&bars->item_full[slot], (item_use / kItemSlots) & 1);
    ++item_use;
    const SharedItem it{sm90::smem_u32(&bars->slot[slot])};  // the consumers' until the item's epilogue is done
    if (it.linear() >= a.total_items) break;
    const int q_row0 = it.q_tile() * C::kBlockQ + tile_row0;

#pragma unroll
    for (int i = 0; i < C::kOFloats; ++i) o[i] = 0.f;
    RowState rows{{-INFINITY, -INFINITY}, {0.f, 0.f}};

    // The rows' totals: 1 / sum for the epilogue and lse (natural log; -inf for rows that saw no key), written
    // directly; then the staging buffer is waited for (the previous item's store has read it). Where
    // kRowTotalsUnderLastPv, while the last P V is on the tensor cores; otherwise at the epilogue's start.
    float inv[2];
    // A row half's total (its quad's partial sums), its 1 / sum into inv, and its lse.
    auto row_total = [&](int half) {
      float sum = rows.sum[half];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      inv[half] = sum > 0.f ? 1.f / sum : 0.f;
      return sum;
    };
    auto lse_row_base = [&] { return p.lse + (static_cast<int64_t>(it.batch()) * s.heads + it.head()) * s.seqlen_q; };
    auto write_lse = [&](float* lse_base, int half, float sum) {
      const int q = q_row0 + 8 * half;
      if (t == 0 && q < s.seqlen_q) {
        float lse = -INFINITY;
        if (sum > 0.f) {
          lse = kFastLseLog<kHeadDim> ? (rows.max[half] * scale_log2 + fast_log2(sum)) * kLn2
                                      : rows.max[half] * s.scale + logf(sum);
        }
        lse_base[q] = lse;
      }
    };
    auto wait_staging = [&] {
      if (thread == 0) sm90::bulk_wait_read();
      sm90::named_barrier_sync(3 + warpgroup, 128);
    };
    auto finish_rows = [&] {
      float* const lse_base = lse_row_base();
#pragma unroll
      for (int half = 0; half < 2; ++half) write_lse(lse_base, half, row_total(half));
      wait_staging();
    };

    // Staged O (one Q buffer, q_use % kQBuffers = 0): every item takes the buffer, with tiles or without.
    if (C::kOStagedInQ) sm90::mbar_wait(&bars->q_full[0], q_use & 1);
    if (it.run_begin() < it.run_end()) {
      const int q_buffer = q_use % C::kQBuffers;
      const uint32_t q_smem = q_smem0 + q_buffer * C::kQBytes;
      if (!C::kOStagedInQ) sm90::mbar_wait(&bars->q_full[q_buffer], (q_use / C::kQBuffers) & 1);
      // Scores of one tile -> P fragments; returns the O correction factors and whether the warp must apply them.
      // The mask bits of a partial tile, looked up while its S is computed (all ones on full tiles).
      using Cursor = TileCursor<kRunMaskInCursor<kHeadDim>>;
      auto tile_bits = [&](const Cursor& c, uint32_t (&bits)[2]) {
        bits[0] = bits[1] = 0xffffffffu;
        if (c.partial) {
          if constexpr (kRunMaskInCursor<kHeadDim>) {
            run_mask_bits<C::kSFloats>(bits, c.mask, tile_row0, t);
          } else {
            run_mask_bits<C::kSFloats>(bits, p.work.run_masks[c.run], tile_row0, t);
          }
        }
      };
      // Scores of one tile -> P fragments; returns the O correction factors and whether the warp must apply them.
      auto scores_to_p = [&](const Cursor& c, const uint32_t (&bits)[2], float (&correction)[2]) {
        if (c.partial) mask_accumulator(sacc, bits);
        return softmax_update<kLazyRescale<kHeadDim>>(sacc, rows, scale_log2, correction);
      };
      // The first tile has no previous P V; it is peeled so that no wgmma is issued under a condition (ptxas
      // serializes wgmma under control flow it cannot prove uniform).
      Cursor c = Cursor::start(it);
      int previous_stage = kv_use % C::kStages;
      {
        sm90::mbar_wait(&bars->k_full[previous_stage], (kv_use / C::kStages) & 1);
        sm90::named_barrier_sync(my_turn, 256);
        sm90::wgmma_fence();
        issue_qk<T, kHeadDim>(sacc, q_smem, k_smem + previous_stage * C::kKBytes);
        sm90::named_barrier_arrive(other_turn, 256);
        uint32_t bits[2];
        tile_bits(c, bits);
        sm90::wgmma_wait<0>();
        sm90::fence_registers(sacc);
        __syncwarp();
        if (lane == 0) sm90::mbar_arrive(&bars->k_empty[previous_stage]);
        float correction[2];
        scores_to_p(c, bits, correction);
        to_a_fragments<T>(sacc, pfrag);
        ++kv_use;
        c.advance(p.work);
      }
      for (; c.valid(); c.advance(p.work)) {
        const int stage = kv_use % C::kStages;
        // Both waits come before the issue: a wait loop between wgmma instructions is divergent control flow to
        // ptxas (V_{j-1} was requested before K_j, so nothing is lost).
        sm90::mbar_wait(&bars->k_full[stage], (kv_use / C::kStages) & 1);
        sm90::mbar_wait(&bars->v_full[previous_stage], ((kv_use - 1) / C::kStages) & 1);
        sm90::named_barrier_sync(my_turn, 256);
        sm90::wgmma_fence();
        issue_qk<T, kHeadDim>(sacc, q_smem, k_smem + stage * C::kKBytes);
        issue_pv<T, kHeadDim>(o, pfrag, v_smem + previous_stage * C::kKBytes);
        sm90::named_barrier_arrive(other_turn, 256);
        uint32_t bits[2];
        tile_bits(c, bits);
        sm90::wgmma_wait<1>();
        sm90::fence_registers(sacc);
        __syncwarp();
        if (lane == 0) sm90::mbar_arrive(&bars->k_empty[stage]);
        float correction[2];
        const bool rescale_o = scores_to_p(c, bits, correction);
        sm90::fence_registers(sacc);  // keeps the softmax ahead of the wait: it overlaps P_{j-1} V_{j-1}
        sm90::wgmma_wait<0>();
        sm90::fence_registers(o);
        __syncwarp();
        if (lane == 0) sm90::mbar_arrive(&bars->v_empty[previous_stage]);
        if (rescale_o) rescale(o, correction);  // warp-uniform
        to_a_fragments<T>(sacc, pfrag);
        previous_stage = stage;
        ++kv_use;
      }
      // The last tile's P V.
      sm90::mbar_wait(&bars->v_full[previous_stage], ((kv_use - 1) / C::kStages) & 1);
      sm90::named_barrier_sync(my_turn, 256);
      sm90::wgmma_fence();
      issue_pv<T, kHeadDim>(o, pfrag, v_smem + previous_stage * C::kKBytes);
      sm90::named_barrier_arrive(other_turn, 256);
      if constexpr (kRowTotalsUnderLastPv<kHeadDim>) finish_rows();
      sm90::wgmma_wait<0>();
      sm90::fence_registers(o);
      __syncwarp();
      if (lane == 0) {
        sm90::mbar_arrive(&bars->v_empty[previous_stage]);
        if (!C::kOStagedInQ) sm90::mbar_arrive(&bars->q_empty[q_buffer]);
      }
      if (!C::kOStagedInQ) ++q_use;
    } else if constexpr (kRowTotalsUnderLastPv<kHeadDim>) {
      finish_rows();
    }
    if (C::kOStagedInQ) ++q_use;

    // Epilogue: out (normalized; 0 for rows that saw no key) goes through the warpgroup's staging buffer in the
    // swizzled layout TMA stores (conflict-free: the 8 rows of a store instruction land in 8 distinct chunks).
    // Without kRowTotalsUnderLastPv each row half's total, stores and lse follow one another, the order that was
    // measured (finish_rows here instead compiles to different SASS at hd 64/128).
    if constexpr (!kRowTotalsUnderLastPv<kHeadDim>) wait_staging();
    float* const lse_base = kRowTotalsUnderLastPv<kHeadDim> ? nullptr : lse_row_base();
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float sum = kRowTotalsUnderLastPv<kHeadDim> ? 0.f : row_total(half);
      // Row warp * 16 + g + 8 half of the warpgroup's 64; its chunk j % 8 of panel j / 8 lies at chunk (j % 8) ^ g:
      // the thread's base (chunk g) with the chunk's constant XORed in (32-bit shared addresses, as st_shared_b32
      // explains).
      const uint32_t row_base =
          sm90::smem_u32(o_stage) + static_cast<uint32_t>((warp * 16 + g + 8 * half) * 128 + g * 16 + 4 * t);
#pragma unroll
      for (int j = 0; j < C::kOFloats / 4; ++j) {
        sm90::st_shared_b32((row_base ^ ((j % 8) * 16)) + (j / 8) * C::kOPanelStride,
                            MmaType<T>::pack(o[4 * j + 2 * half] * inv[half], o[4 * j + 2 * half + 1] * inv[half]));
      }
      if constexpr (!kRowTotalsUnderLastPv<kHeadDim>) write_lse(lse_base, half, sum);
    }
    sm90::fence_async_shared();
    sm90::named_barrier_sync(3 + warpgroup, 128);
    if (thread == 0) {
#pragma unroll
      for (int panel = 0; panel < C::kPanels; ++panel) {
        sm90::tma_store_4d(&a.o_map, o_stage + panel * C::kOPanelStride, 64 * panel, it.head(),
                           it.q_tile() * C::kBlockQ + 64 * warpgroup, it.batch());
      }
      sm90::bulk_commit();
      if constexpr (C::kOStagedInQ) {
        sm90::bulk_wait_read();  // the store has read the warpgroup's rows of the Q buffer
        sm90::mbar_arrive(&bars->q_empty[0]);
      }
    }
    __syncwarp();
    if (lane == 0) sm90::mbar_arrive(&bars->item_empty[slot]);
  }
  if (thread == 0) sm90::bulk_wait();
  // Balance the ping-pong: warpgroup 1's opening arrival on barrier 1 is still pending.
  if (warpgroup == 0) sm90::named_barrier_sync(my_turn, 256);
}

template <int kHeadDim>
constexpr bool kBarriersFit =
    sizeof(Barriers<Sm90ForwardConfig<kHeadDim>::kStages>) <= Sm90ForwardConfig<kHeadDim>::kBarrierBytes;

template <typename T, int kHeadDim>
__global__ void __launch_bounds__(Sm90ForwardConfig<kHeadDim>::kThreads, 1)
    flash_forward_sm90_kernel(const __grid_constant__ Sm90ForwardArgs args) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using C = Sm90ForwardConfig<kHeadDim>;
  static_assert(kBarriersFit<kHeadDim>, "the barriers and item slots exceed their shared memory");
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  auto* bars = reinterpret_cast<Barriers<C::kStages>*>(smem + C::kBarrierOffset);
  const int warpgroup = warp_uniform(static_cast<int>(threadIdx.x) / 128);
  if (threadIdx.x == 0) {
    for (int i = 0; i < C::kStages; ++i) {
      sm90::mbar_init(&bars->k_full[i], 1);
      sm90::mbar_init(&bars->v_full[i], 1);
      sm90::mbar_init(&bars->k_empty[i], C::kConsumerWarps);
      sm90::mbar_init(&bars->v_empty[i], C::kConsumerWarps);
    }
    for (int i = 0; i < 2; ++i) {
      sm90::mbar_init(&bars->q_full[i], 1);
      // Staged O: each consumer warpgroup's storing thread releases the buffer once its store has read it.
      sm90::mbar_init(&bars->q_empty[i], C::kOStagedInQ ? C::kConsumerWarpgroups : C::kConsumerWarps);
    }
    for (int i = 0; i < kItemSlots; ++i) {
      sm90::mbar_init(&bars->item_full[i], 1);
      sm90::mbar_init(&bars->item_empty[i], C::kConsumerWarps + 1);  // the loader, then the consumers
    }
    sm90::mbar_fence_init();
  }
  __syncthreads();
  if (warpgroup == 0) {
    sm90::regs_decrease<40>();
    if (threadIdx.x == 0) {
      produce<kHeadDim>(args, smem, bars);
    } else if (threadIdx.x / 32 == 1) {
      schedule(args, bars);
    }
  } else {
    sm90::regs_increase<232>();
    consume<T, kHeadDim>(args, smem, bars, warpgroup - 1);
  }
#endif
}

template <typename T, int kHeadDim>
struct LaunchForwardSm90 {
  static void run(const ForwardParams& params, int* item_counter, int sm_count, cudaStream_t stream) {
    using C = Sm90ForwardConfig<kHeadDim>;
    check_work_shape(params.work.shape, C::kBlockQ, C::kBlockK, "forward (sm90)");
    const int64_t items = static_cast<int64_t>(params.work.outer_tiles) * params.shape.batch * params.shape.heads;
    LCAB_CHECK(items < (int64_t(1) << 30), "forward work of " << items << " items is too large");
    if (items == 0) return;
    Sm90ForwardArgs args;
    args.p = params;
    const Shape& s = params.shape;
    args.q_map = sm90::make_token_major_map(params.q, s.batch, s.seqlen_q, s.heads, kHeadDim, C::kBlockQ);
    args.k_map = sm90::make_token_major_map(params.k, s.batch, s.seqlen_k, s.kv_heads, kHeadDim, C::kBlockK);
    args.v_map = sm90::make_token_major_map(params.v, s.batch, s.seqlen_k, s.kv_heads, kHeadDim, C::kBlockK);
    args.o_map = sm90::make_token_major_map(params.out, s.batch, s.seqlen_q, s.heads, kHeadDim, 64);
    args.item_counter = item_counter;
    args.total_items = static_cast<int>(items);
    LCAB_CUDA_CHECK(cudaMemsetAsync(item_counter, 0, sizeof(int), stream));
    const int ctas = static_cast<int>(std::min<int64_t>(items, sm_count));
    flash_forward_sm90_kernel<T, kHeadDim><<<ctas, C::kThreads, C::kSmemBytes, stream>>>(args);
    LCAB_CUDA_CHECK_LAUNCH();
  }
};

template <typename T, int kHeadDim>
struct ConfigureForwardSm90 {
  static void run() {
    LCAB_CUDA_CHECK(cudaFuncSetAttribute(flash_forward_sm90_kernel<T, kHeadDim>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(Sm90ForwardConfig<kHeadDim>::kSmemBytes)));
  }
};

}  // namespace

bool sm90_kernels_built() {
  // Built for sm_90a, the kernel's cubin for an sm_90 device is version 90; otherwise the device would run the
  // (empty) sm_80 body, and the path must not be used.
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, flash_forward_sm90_kernel<__nv_bfloat16, 128>) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.binaryVersion >= 90;
}

void configure_forward_sm90(DType dtype, int head_dim) {
  dispatch<ConfigureForwardSm90, FlashArch::kSm90>(dtype, head_dim);
}

void launch_forward_sm90(const ForwardParams& params, DType dtype, int head_dim, int* item_counter, int sm_count,
                         cudaStream_t stream) {
  dispatch<LaunchForwardSm90, FlashArch::kSm90>(dtype, head_dim, params, item_counter, sm_count, stream);
}

}  // namespace lcab::kernels::flash
