// lcab_flash backward, Hopper path (sm_90a): the dK/dV kernel of the backward with TMA and wgmma, whose grid also
// converts the fp32 dQ accumulator and writes zeros back over it for the next call (the accumulator is zeroed once,
// when allocated: BackwardParams::dq_accum_zeroed). The preprocess (delta = rowsum(dO * O)) is the mma.sync path's
// launch. (A one-warp kernel computing delta beside this grid did not fit beside its 168-register CTAs, and at 160 it
// cost 1.4-2.6% while its warps fell behind the grid: data/measurements/h200/bwd-delta-beside-2026-12-01/. Summed
// inside the steps from an O tile loaded beside each dO, it cost every step about 5%, more than the pass saves but
// where a q tile meets few k tiles: data/measurements/h200/bwd-delta-in-steps-2026-12-03/.)
//
// One CTA per (k tile of 128 keys, kv head, batch element), in the work list's launch order (each kv head's k tiles
// costliest first, kv head after kv head, long k tiles of every head first: perf::grid_launch_order; where documents
// are paired, each pair's two CTAs follow one another on one SM: build_backward_work in flash_work.h). The blocks
// whose work-list entry is negative convert dQ (model/perf/backward_tail.h): chunks of rows of one kv head's q heads,
// each waiting until every dK/dV CTA of its head whose q rows meet the chunk has counted itself finished on the
// chunk's counter (FlashPassWork::tail_needs; waiting for the whole head instead cost causal_document at 4K 11% per
// cycle on an H200, data/measurements/h200/bwd-conversion-by-rows-2026-12-02/). They come after the dK/dV CTAs, heads in
// the order their dK/dV CTAs finish (FlashPassWork::tail_heads), so that they start as the last wave's SMs run out
// of dK/dV work and fill the grid's tail; where the CTAs are about equally long, each head's come one wave after its
// last dK/dV CTA instead (FlashPassWork::grid_items, backward_conversion_after_heads: the window at 32K +2.4% per
// cycle). A conversion CTA waits only on CTAs of lower block index, which
// the hardware has started before it (it starts a grid's CTAs in index order, what the launch order above relies
// on too, and CUB's single-pass scan's look-back), so its wait ends. Measured per cycle on an H100 against the
// separate conversion launch (data/measurements/h100/bwd-dq-tail-2026-11-24/): at 32K hd 128 the window +4.8% and
// causal_document +4.8%, full and causal within 0.3%. How it is built keeps the dK/dV loops as they were:
//   - the conversion is a function of its own (__noinline__): inlined, its code ahead of the loops cost hd 64 about
//     3% on every mask with the loops' SASS unchanged; out of line, hd 64's full and causal are 0.7-1.2% behind
//     (not isolated further);
//   - each consumer warpgroup's thread 0, which issued its dQ reductions, counts itself finished on each chunk's
//     counter its rows meet (two counts per CTA and chunk) after its bulk_wait, inside consume_backward: any code
//     after the role branches (one count from the
//     producer after the consumers' arrival, or a __syncthreads) changed the consumers' SASS by hundreds of
//     instructions at hd 64 and 256;
//   - the conversion CTAs are told apart by their block's work-list entry (negative), read before the role branches
//     (the loops' SASS is unchanged by it); a ticket counter taken at each CTA's start would not rely on the start
//     order, but its index, read from shared memory, moved the producer's loop state out of the uniform datapath.
//   - The producer warp loads K and V once (TMA), then for every q head of the GQA group and every q tile of 64
//     rows that touches the k tile (masked-out tiles are never loaded): Q and dO by TMA, lse and delta by its
//     lanes (loaded before it waits for the stage), into a kStages-deep ring (RingSlot: 3 stages at hd 64, 2 at
//     hd 128 and 256) completing on mbarriers. The order of these steps is the CTA's walk (work list, kWalk* in
//     flash_work.h): q tiles ascending per head, or, where neighbouring k tiles share their last q tile
//     (documents), from that end down with the group's heads inner, so that the CTAs of a document read and reduce
//     the same rows at the same time (a pair's second CTA walks up from its first q tile, heads inner, in step with
//     the other pairs' second CTAs).
//   - Two consumer warpgroups own 64 keys each. A warpgroup whose keys see none of a partial tile's queries (an idle
//     half, marked in the work list: the diagonal's and a window's far end's; in the kernels
//     backward_idle_halves_built names) skips the step but for its share of dQ over the other half's keys (hd 128):
//     per cycle on an H100, +4.1% on the window and +3.0% on causal_document at 32K, +9.2% (hd 128) and +23.5%
//     (hd 64) on causal_document at 4K, full within noise (data/measurements/h100/bwd-idle-halves-2026-11-24/hd128/).
//     Per q tile: S^T = K Q^T and dP^T = V dO^T (wgmma from shared memory), P^T = exp(scale S^T - lse) with
//     in-tile masking only on partial tiles, dS^T = P^T (dP^T - delta);
//     dV += P^T dO and dK += dS^T Q with P^T and dS^T as register A operands; dS^T also goes to shared memory,
//     where dQ = dS K is computed (head_dim 128: each warpgroup half of the columns over all 128 keys; head_dim
//     64: each warpgroup all columns over its own 64 keys) and added to the fp32 dQ accumulator by TMA
//     reduce-add from a staging buffer (whole 128-byte lines instead of per-thread atomics). The two warpgroups meet
//     at a barrier before each step's dQ product, but at head dim 64 on lists with many partial tiles
//     (backward_warpgroups_decoupled: a second kernel instantiation), where each waits for its own rows only.
//   Head dim 256 (kSplitColumns): 64 x 256 of dK and dV per warpgroup would take 256 registers per thread, so the
//     CTA owns 64 keys and its two warpgroups split the work: each computes S^T and dP^T for all 64 keys and its 32
//     of the step's 64 queries, writes P^T and dS^T to shared memory, and then, over all 64 queries, accumulates
//     its 128 columns of dK and dV (wgmma with both operands in shared memory) and computes its 128 columns of dQ.
//     dQ is staged in the step's Q and dO buffers, which both warpgroups have finished reading by then (no room for
//     a staging buffer of its own), and reduced into the accumulator by TMA; the stage is released to the producer
//     once those reductions have read it, in the next step, after that step's products are issued. (Per-thread
//     vector reductions from registers instead halved the backward's speed: 280 against 550 TFLOP/s with them
//     compiled out, H100, full 16K.)
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "kernels/cuda_check.h"
#include "kernels/flash_common.cuh"
#include "kernels/flash_dispatch.cuh"
#include "kernels/hopper/flash_sm90.h"
#include "kernels/hopper/ring_slot.h"
#include "kernels/hopper/sm90_flash_common.cuh"
#include "kernels/hopper/sm90_primitives.cuh"
#include "kernels/hopper/tensor_map.h"
#include "model/perf/backward_tail.h"

// The kernels' bodies exist for sm_90a only; the other device passes (sm_80) compile them empty, leaving the
// helpers below unreferenced there (nvcc's #177), which is expected and silenced for those passes alone.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#pragma nv_diag_suppress 177
#endif

namespace lcab::kernels::flash {
namespace {

constexpr float kLog2e = 1.4426950408889634f;

template <int kHeadDim>
struct Sm90BackwardConfig {
  static constexpr bool kSplitColumns = kHeadDim == 256;
  static constexpr int kBlockK = kSplitColumns ? 64 : 128;  // keys per CTA: 64 per consumer warpgroup, or 64 shared
  static constexpr int kBlockQ = 64;                        // queries per step
  // The Q/dO ring (RingSlot). hd 64: three stages with the position counted, +0.8% per cycle over 8 groups on an
  // H100 (+1.3% to +1.5% on 5 of them, causal_document 4K -1.4%; two calls agreed); three stages with the position
  // derived from a step count measured -0.5%, a counted ring of two 0.0%. hd 128: a third stage fits (232,192 of
  // 232,448 bytes), but with it the consumers lost their uniform datapath and measured -0.9% to -2.7%, and the
  // counted position alone spills them (data/measurements/h100/bwd-ring-stages-2026-11-24/).
  static constexpr int kStages = kHeadDim == 64 ? 3 : 2;
  static constexpr bool kCountedRing = kHeadDim == 64;
  static_assert(!(kCountedRing && kSplitColumns), "kSplitColumns asks its ring whether a step is the first");
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kConsumerWarps = 4 * kConsumerWarpgroups;
  static constexpr int kThreads = 384;
  static constexpr int kPanels = kHeadDim / 64;
  static constexpr int kKPanelBytes = kBlockK * 128;
  static constexpr int kQPanelBytes = kBlockQ * 128;
  static constexpr int kKBytes = kPanels * kKPanelBytes;  // also V
  static constexpr int kQBytes = kPanels * kQPanelBytes;  // also dO
  static constexpr int kDsBytes = kBlockK * 128;          // dS^T (also P^T): keys x 64 queries, one swizzled panel
  static constexpr int kWarpgroupQueries = kSplitColumns ? 32 : kBlockQ;  // queries of S^T / dP^T per warpgroup
  static constexpr int kSFloats = kWarpgroupQueries / 2;  // S^T / dP^T accumulator floats per thread (64 x queries)
  static constexpr int kKvCols = kSplitColumns ? kHeadDim / 2 : kHeadDim;  // dK / dV columns per warpgroup
  static constexpr int kKvFloats = kKvCols / 2;           // dK / dV accumulator floats per thread (64 x kKvCols)
  // dQ = dS K, 64 queries x 64 columns per warpgroup: head_dim 128 splits the columns (each warpgroup over all
  // 128 keys), head_dim 64 splits the keys (each warpgroup over its own 64; both add to the accumulator).
  // kSplitColumns: each warpgroup its 128 columns over the CTA's 64 keys, as two 64-column products.
  static constexpr bool kDqSplitsKeys = kHeadDim == 64;
  static constexpr int kDqKeys = kDqSplitsKeys ? 64 : kBlockK;
  static constexpr int kDqFloats = 32;
  static constexpr int kDqChunks = kSplitColumns ? 2 : 1;
  static_assert(kSplitColumns || kDqKeys == (kDqSplitsKeys ? 64 : kBlockK), "dQ's keys per warpgroup");
  static constexpr int kVOffset = kKBytes;
  static constexpr int kQOffset = 2 * kKBytes;
  static constexpr int kDoOffset = kQOffset + kStages * kQBytes;
  static constexpr int kDsOffset = kDoOffset + kStages * kQBytes;  // two buffers, alternating per step
  static constexpr int kPOffset = kDsOffset + 2 * kDsBytes;        // P^T (kSplitColumns): two buffers, as dS^T
  // A warpgroup's dQ tile (fp32), 2 boxes of 32 columns; none under kSplitColumns, which stages dQ over the step's
  // Q and dO buffers.
  static constexpr int kDqStageBytes = kSplitColumns ? 0 : 64 * 64 * 4;
  static constexpr int kDqOffset = kPOffset + (kSplitColumns ? 2 * kDsBytes : 0);
  static constexpr int kLseOffset = kDqOffset + 2 * kDqStageBytes;  // per stage: lse[64], delta[64]
  static constexpr int kBarrierOffset = kLseOffset + kStages * 2 * kBlockQ * 4;
  static constexpr size_t kSmemBytes = kBarrierOffset + 256 + 1024;
  static_assert(kSmemBytes <= kSm90MaxSharedBytes, "the backward's shared memory exceeds an sm_90 CTA's");
};

template <int kStages>
struct BackwardBarriers {
  uint64_t kv_full;
  uint64_t q_full[kStages];
  uint64_t q_empty[kStages];
};

struct Sm90BackwardArgs {
  BackwardParams p;
  CUtensorMap q_map;
  CUtensorMap do_map;
  CUtensorMap k_map;
  CUtensorMap v_map;
  CUtensorMap dq_map;  ///< fp32 dQ accumulator, boxes of 32 columns x 64 rows (TMA reduce-add)
  int tail_chunks_per_head;  ///< conversion CTAs per (batch, kv head)
};

// The CTA's k tile and the runs of q tiles that touch it.
struct KTile {
  int kv_head, batch, mask, k_tile, run_begin, run_end;
  int walk;  ///< kWalk* bits (flash_work.h)
};

__device__ __forceinline__ KTile decode_k_tile(const BackwardParams& p) {
  const Shape& s = p.shape;
  // The work list's launch order (perf::grid_launch_order): head-major, each head's k tiles (or pairs of a
  // document's k tiles) costliest first, so that the CTAs resident together walk the same q heads' rows (their dQ
  // reductions and Q/dO loads meet in L2), except that units long against one SM's share of the work start first,
  // whatever their head.
  const int item = p.work.cta_items[blockIdx.x];
  KTile kt;
  kt.k_tile = item % p.work.outer_tiles;
  const int head_and_batch = item / p.work.outer_tiles;
  kt.kv_head = head_and_batch % s.kv_heads;
  kt.batch = head_and_batch / s.kv_heads;
  kt.mask = p.work.num_masks == 1 ? 0 : kt.kv_head;
  const int outer = kt.mask * p.work.outer_tiles + kt.k_tile;
  kt.run_begin = warp_uniform(p.work.run_offsets[outer]);
  kt.run_end = warp_uniform(p.work.run_offsets[outer + 1]);
  kt.walk = warp_uniform(static_cast<int>(p.work.cta_walks[blockIdx.x]));
  return kt;
}

// A conversion CTA of the grid's tail (model/perf/backward_tail.h): dQ = the fp32 accumulator in the element type,
// for rows [row0, row0 + work.tail_chunk_rows) of the q heads of one (batch, kv head), once the head's dK/dV CTAs
// whose rows meet the chunk have all counted themselves finished on its counter (each consumer warpgroup counts
// once its dQ reductions are complete), and
// zeros written back over those rows of the accumulator, the state the next call starts from (instead of a 4 B per
// q element memset in front of each grid: per cycle on an H100 at 32K, hd 128, the window +3.0% and causal_document
// +3.5%, data/measurements/h100/bwd-rezero-after-heads-2026-11-25/).
template <typename T, int kHeadDim>
__device__ __noinline__ void convert_dq_tail(const Sm90BackwardArgs& a, int unit) {
  const BackwardParams& p = a.p;
  const Shape& s = p.shape;
  const int group = s.heads / s.kv_heads;
  const int head_unit = p.work.tail_heads[unit / a.tail_chunks_per_head];  // batch x kv_heads + kv head
  const int chunk = unit % a.tail_chunks_per_head;
  const int row0 = chunk * p.work.tail_chunk_rows;
  const int rows = min(p.work.tail_chunk_rows, s.seqlen_q - row0);
  if (threadIdx.x == 0) {
    // Every consumer warpgroup of each dK/dV CTA whose q rows meet the chunk (FlashPassWork::tail_needs).
    const int counter = head_unit * a.tail_chunks_per_head + chunk;
    const int finished = Sm90BackwardConfig<kHeadDim>::kConsumerWarpgroups * p.work.tail_needs[counter];
    while (sm90::ld_acquire_gpu(p.counters + counter) < finished) __nanosleep(128);
  }
  __syncthreads();
  // A row's q heads of the group are contiguous (group x kHeadDim floats); rows lie heads x kHeadDim apart. The loop
  // works in 16-byte vectors of 4 elements, from locals: read through `a` (a reference to memory) inside it, the
  // pointers would be reloaded after every store, which the compiler cannot prove leaves them alone. Each thread
  // steps through the chunk by fixed row and column increments, not an integer division per vector. Against the
  // loop that did both, the window at 32K gained 1.7% per cycle on an H200
  // (data/measurements/h200/bwd-conversion-lean-2026-12-01/).
  const int row_vectors = group * kHeadDim / 4;
  const int total = rows * row_vectors;
  const int64_t row_stride = static_cast<int64_t>(s.heads) * kHeadDim / 4;
  const int64_t base = (static_cast<int64_t>(head_unit / s.kv_heads) * s.seqlen_q + row0) * row_stride * 4 +
                       static_cast<int64_t>(head_unit % s.kv_heads) * group * kHeadDim;
  float4* const accum = reinterpret_cast<float4*>(p.dq_accum + base);
  uint2* const out = reinterpret_cast<uint2*>(static_cast<T*>(p.dq) + base);
  const int threads = static_cast<int>(blockDim.x);
  const int step_cols = threads % row_vectors;
  const int64_t step = threads / row_vectors * row_stride + step_cols;
  const int64_t wrap = row_stride - row_vectors;
  int col = static_cast<int>(threadIdx.x) % row_vectors;
  int64_t at = static_cast<int>(threadIdx.x) / row_vectors * row_stride + col;
  constexpr int kUnroll = 16;  // 16-byte loads in flight per thread: 96 KiB per SM
  for (int first = static_cast<int>(threadIdx.x); first < total; first += kUnroll * threads) {
    float4 v[kUnroll];
    int c = col;
    int64_t o = at;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      v[u] = first + u * threads < total ? __ldcg(accum + o) : make_float4(0.f, 0.f, 0.f, 0.f);
      c += step_cols;
      o += step;
      if (c >= row_vectors) c -= row_vectors, o += wrap;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (first + u * threads >= total) break;
      __stwb(out + at, make_uint2(MmaType<T>::pack(v[u].x, v[u].y), MmaType<T>::pack(v[u].z, v[u].w)));
      // Zero again for the next call (BackwardParams::dq_accum_zeroed), instead of a memset in front of its grid.
      __stcs(accum + at, make_float4(0.f, 0.f, 0.f, 0.f));
      col += step_cols;
      at += step;
      if (col >= row_vectors) col -= row_vectors, at += wrap;
    }
  }
}

// Walks (q head of the group, q tile) pairs in the order the k tile's `walk` asks: heads outer (the runs once
// per head) or inner (every head of the group per q tile), q tiles ascending or descending. Producer and consumers
// walk the same cursor. Every field is warp-uniform.
template <bool kMasks>
struct StepCursor {
  int group_head, run, tile, tile_stop, step;
  int idle;  ///< the run's idle key halves (DeviceRun: bit h, keys [64 h, 64 h + 64) see no query of the step)
  bool partial, heads_inner;
  DeviceRunMask mask;  ///< the run's (kMasks)
  const DeviceRunMask* masks;
  __device__ static StepCursor start(const DeviceRun* runs, const KTile& kt, const DeviceRunMask* masks = nullptr) {
    StepCursor c;
    c.masks = masks;
    c.group_head = 0;
    c.step = (kt.walk & kWalkDescending) ? -1 : 1;
    c.heads_inner = (kt.walk & kWalkHeadsInner) != 0;
    c.run = c.step > 0 ? kt.run_begin : kt.run_end - 1;
    c.load(runs);
    return c;
  }
  __device__ bool valid(int group) const { return group_head < group; }
  __device__ void advance(const DeviceRun* runs, const KTile& kt, int group) {
    if (heads_inner) {
      if (++group_head < group) return;
      group_head = 0;
      if (!next_tile(runs, kt)) group_head = group;
      return;
    }
    if (next_tile(runs, kt)) return;
    ++group_head;
    run = step > 0 ? kt.run_begin : kt.run_end - 1;
    load(runs);
  }

 private:
  // The next q tile in walk order; false when the runs are exhausted.
  __device__ bool next_tile(const DeviceRun* runs, const KTile& kt) {
    tile += step;
    if (tile != tile_stop) return true;
    run += step;
    if (run < kt.run_begin || run >= kt.run_end) return false;
    load(runs);
    return true;
  }
  __device__ void load(const DeviceRun* runs) {
    const DeviceRun r = runs[run];
    const int begin = warp_uniform(r.begin);
    const int end_and_partial = warp_uniform(r.end_and_partial);
    const int end = end_and_partial & kRunEndMask;
    partial = end_and_partial < 0;
    idle = (end_and_partial >> kIdleHalfShift) & 3;
    if constexpr (kMasks) {
      const DeviceRunMask m = masks[run];
      mask.bounds = warp_uniform(m.bounds);
      mask.rows = warp_uniform(m.rows);
      mask.bounds2 = warp_uniform(m.bounds2);
      mask.rows2 = warp_uniform(m.rows2);
    }
    tile = step > 0 ? begin : end - 1;
    tile_stop = step > 0 ? end : begin - 1;
  }
};

// dQ fragments (each 64 queries x 64 columns, fp32; the wgmma accumulator layout), scaled, into a staging area of
// 32-column boxes of 64 rows swizzled as TMA reads them (conflict-free float2 stores): fragment f's columns 32 b ..
// 32 b + 31 go to box 2 f + b. `thread_base` is the area's 1024-aligned shared address plus the thread's dq offset
// (its row warp * 16 + g, chunk (t / 2) ^ g, 8 (t % 2) bytes in): a store's chunk is that base XOR its constant.
template <int kFragments, int kFloats>
__device__ __forceinline__ void stage_dq(uint32_t thread_base, const float (&dq)[kFragments][kFloats], float scale) {
#pragma unroll
  for (int f = 0; f < kFragments; ++f) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
#pragma unroll
      for (int j = 0; j < kFloats / 4; ++j) {
        const uint32_t box = static_cast<uint32_t>(2 * f + j / 4);
        sm90::st_shared_v2_f32(((thread_base ^ ((j % 4) * 32)) + box * 64 * 128) + r * 8 * 128,
                               dq[f][4 * j + 2 * r] * scale, dq[f][4 * j + 2 * r + 1] * scale);
      }
    }
  }
}

// Adds `count` staged dQ boxes (stage_dq; 8 KiB apart) into the accumulator's columns col0 + 32 b of the q tile at
// q0, as one bulk group of the calling thread.
__device__ __forceinline__ void reduce_dq_boxes(const CUtensorMap* map, const unsigned char* boxes, int count, int col0,
                                                int head, int q0, int batch) {
  for (int box = 0; box < count; ++box) {
    sm90::tma_reduce_add_4d(map, boxes + box * 64 * 128, col0 + 32 * box, head, q0, batch);
  }
  sm90::bulk_commit();
}

template <int kHeadDim>
__device__ void produce_backward(const Sm90BackwardArgs& a, unsigned char* smem,
                                 BackwardBarriers<Sm90BackwardConfig<kHeadDim>::kStages>* bars, const KTile& kt) {
  using C = Sm90BackwardConfig<kHeadDim>;
  const BackwardParams& p = a.p;
  const Shape& s = p.shape;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int group = s.heads / s.kv_heads;
  if (kt.run_begin == kt.run_end) return;  // no query sees this k tile: nothing to load
  if (lane == 0) {
    sm90::mbar_arrive_expect_tx(&bars->kv_full, 2 * C::kKBytes);
#pragma unroll
    for (int panel = 0; panel < C::kPanels; ++panel) {
      sm90::tma_load_4d(smem + panel * C::kKPanelBytes, &a.k_map, &bars->kv_full, 64 * panel, kt.kv_head,
                        kt.k_tile * C::kBlockK, kt.batch);
      sm90::tma_load_4d(smem + C::kVOffset + panel * C::kKPanelBytes, &a.v_map, &bars->kv_full, 64 * panel,
                        kt.kv_head, kt.k_tile * C::kBlockK, kt.batch);
    }
  }
  RingSlot<C::kStages, C::kCountedRing> slot;
  for (StepCursor<false> c = StepCursor<false>::start(p.work.runs, kt); c.valid(group);
       c.advance(p.work.runs, kt, group), slot.advance()) {
    const int stage = slot.stage();
    const int head = kt.kv_head * group + c.group_head;
    const int q0 = c.tile * C::kBlockQ;
    // lse and delta are loaded into registers before the wait for the stage, so that their latency hides behind
    // it (head dim 64, whose steps are short: +10-12% on full, causal and documents at 16K-32K, H100), and used
    // only after the TMA issue (which measured the same as using them before the wait).
    const int64_t row_base = (static_cast<int64_t>(kt.batch) * s.heads + head) * s.seqlen_q;
    float lse[C::kBlockQ / 32];
    float delta[C::kBlockQ / 32];
#pragma unroll
    for (int i = 0; i < C::kBlockQ / 32; ++i) {
      const int q = q0 + lane + 32 * i;
      lse[i] = q < s.seqlen_q ? p.lse[row_base + q] : -INFINITY;
      delta[i] = q < s.seqlen_q ? p.delta[row_base + q] : 0.f;
    }
    sm90::mbar_wait(&bars->q_empty[stage], slot.phase() ^ 1);
    if (lane == 0) {
      sm90::mbar_arrive_expect_tx(&bars->q_full[stage], 2 * C::kQBytes);
#pragma unroll
      for (int panel = 0; panel < C::kPanels; ++panel) {
        sm90::tma_load_4d(smem + C::kQOffset + stage * C::kQBytes + panel * C::kQPanelBytes, &a.q_map,
                          &bars->q_full[stage], 64 * panel, head, q0, kt.batch);
        sm90::tma_load_4d(smem + C::kDoOffset + stage * C::kQBytes + panel * C::kQPanelBytes, &a.do_map,
                          &bars->q_full[stage], 64 * panel, head, q0, kt.batch);
      }
    }
    // lse as log2-domain offsets (+inf for rows that see no key or lie past the sequence: their P is 0), and delta.
    sm90::fence_registers(lse);  // no use of the loads above the TMA issue
    sm90::fence_registers(delta);
    float* lse_s = reinterpret_cast<float*>(smem + C::kLseOffset) + stage * 2 * C::kBlockQ;
#pragma unroll
    for (int i = 0; i < C::kBlockQ / 32; ++i) {
      lse_s[lane + 32 * i] = lse[i] == -INFINITY ? INFINITY : lse[i] * kLog2e;
      lse_s[C::kBlockQ + lane + 32 * i] = delta[i];
    }
    __syncwarp();
    if (lane == 0) sm90::mbar_arrive(&bars->q_full[stage]);
  }
}

// kDecoupled (head dim 64, backward_decoupled_built): each warpgroup's step waits for its own rows of dS^T only,
// not for the other warpgroup (DeviceWork::decoupled_warpgroups).
template <typename T, int kHeadDim, bool kRunMasks, bool kDecoupled>
__device__ void consume_backward(const Sm90BackwardArgs& a, unsigned char* smem,
                                 BackwardBarriers<Sm90BackwardConfig<kHeadDim>::kStages>* bars, const KTile& kt,
                                 int warpgroup) {
  using C = Sm90BackwardConfig<kHeadDim>;
  const BackwardParams& p = a.p;
  const Shape& s = p.shape;
  const int thread = static_cast<int>(threadIdx.x) % 128;
  const int warp = thread / 32;
  const int lane = thread % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int group = s.heads / s.kv_heads;
  const float scale_log2 = s.scale * kLog2e;
  const uint32_t k_smem = sm90::smem_u32(smem);
  const uint32_t v_smem = sm90::smem_u32(smem + C::kVOffset);
  // This warpgroup's 64 keys (A operands of S^T and dP^T; the CTA's only 64 when kSplitColumns) and its queries
  // of the step's S^T and dP^T.
  const int key_row0 = C::kSplitColumns ? 0 : warpgroup * 64;
  const uint32_t k_rows = k_smem + key_row0 * 128;
  const uint32_t v_rows = v_smem + key_row0 * 128;
  const int key_in_tile = key_row0 + warp * 16 + g;  // the thread's first key, within the k tile
  const int key0 = kt.k_tile * C::kBlockK + key_in_tile;
  const int query0 = C::kSplitColumns ? warpgroup * C::kWarpgroupQueries : 0;
  const int kv_col0 = C::kSplitColumns ? warpgroup * C::kKvCols : 0;  // this warpgroup's columns of dK, dV, dQ
  unsigned char* dq_stage = smem + C::kDqOffset + warpgroup * C::kDqStageBytes;
  // Per-thread shared addresses (32-bit: see st_shared_b32). In both swizzled layouts below a row's 16-byte chunk
  // index is XORed with row % 8 = g, and the thread's own offset bits never carry into the chunk bits, so each
  // store's address is the thread's base with the chunk's constant XORed in.
  //   dS^T (and P^T), rows = keys: row r0 + 8 r (r0 = this warpgroup's row of the thread), chunk j ^ g, bytes 4 t
  //   (kSplitColumns: chunk (query0 / 8 + j) ^ g).
  const int ds_row0 = key_row0 + warp * 16 + g;
  const uint32_t ds_thread = static_cast<uint32_t>(ds_row0 * 128 + g * 16 + 4 * t);
  //   dQ staging, rows = queries: chunk (2 (j % 4) + t / 2) ^ g, bytes 8 (t % 2) in it.
  const uint32_t dq_offset = static_cast<uint32_t>((warp * 16 + g) * 128 + (((t / 2) ^ g) * 16) + (t % 2) * 8);
  const uint32_t dq_thread = sm90::smem_u32(dq_stage) + dq_offset;

  float dk[C::kKvFloats];
  float dv[C::kKvFloats];
#pragma unroll
  for (int i = 0; i < C::kKvFloats; ++i) dk[i] = dv[i] = 0.f;
  float st[C::kSFloats];
  float dpt[C::kSFloats];
  float dq[C::kDqChunks][C::kDqFloats];

  // dS^T to shared memory for dQ (not kSplitColumns): rows = keys (this warpgroup's 64 of the 128), 64 queries per
  // row, swizzled; `value(j, r)` is the packed pair the thread stores at chunk j ^ g of its row r0 + 8 r.
  auto store_ds_rows = [&](unsigned char* ds_buffer, auto value) {
    const uint32_t ds_base = sm90::smem_u32(ds_buffer) + ds_thread;
#pragma unroll
    for (int j = 0; j < C::kSFloats / 4; ++j) {
#pragma unroll
      for (int r = 0; r < 2; ++r) sm90::st_shared_b32((ds_base ^ (j * 16)) + r * 8 * 128, value(j, r));
    }
  };
  // dQ = dS K for the step over keys [key0, key0 + 16 kKeySteps) of the k tile (head_dim 128: this warpgroup's 64
  // columns; head_dim 64: all columns), from dS^T in `ds_buffer`, issued and committed (not kSplitColumns).
  auto dq_product = [&]<int kKeySteps>(const unsigned char* ds_buffer, int key0) {
    const uint32_t key_offset = static_cast<uint32_t>(key0) * 128;
    const uint32_t ds_smem = sm90::smem_u32(ds_buffer) + key_offset;
    const uint32_t k_cols = k_smem + key_offset + (C::kDqSplitsKeys ? 0 : warpgroup * C::kKPanelBytes);
#pragma unroll
    for (int kk = 0; kk < kKeySteps; ++kk) {
      sm90::WgmmaSS<T, 64, 1, 1>::run(dq[0], sm90::make_desc(ds_smem + kk * 16 * 128, 1024, 1024),
                                      sm90::make_desc(k_cols + kk * 16 * 128, C::kKPanelBytes, 1024), kk > 0);
    }
    sm90::wgmma_commit();
  };
  // The step's dQ (scaled, complete in registers) into the staging buffer (stage_dq), then one reduce-add per
  // 32-column box into the accumulator's rows of q tile q0 of `head`.
  auto reduce_dq = [&](int head, int q0) {
    sm90::fence_registers(dq[0]);
    if (thread == 0) sm90::bulk_wait_read();  // the previous step's reduction has left the buffer
    sm90::named_barrier_sync(3 + warpgroup, 128);
    stage_dq(dq_thread, dq, s.scale);
    sm90::fence_async_shared();
    sm90::named_barrier_sync(3 + warpgroup, 128);
    if (thread == 0) {
      reduce_dq_boxes(&a.dq_map, dq_stage, 2, C::kDqSplitsKeys ? 0 : warpgroup * 64, head, q0, kt.batch);
    }
  };

  if (kt.run_begin < kt.run_end) {
    sm90::mbar_wait(&bars->kv_full, 0);
    RingSlot<C::kStages, C::kCountedRing> slot;
    for (StepCursor<kRunMasks> c = StepCursor<kRunMasks>::start(p.work.runs, kt, p.work.run_masks); c.valid(group);
       c.advance(p.work.runs, kt, group), slot.advance()) {
      const int stage = slot.stage();
      const int head = kt.kv_head * group + c.group_head;
      const int q0 = c.tile * C::kBlockQ;
      const uint32_t q_stage = sm90::smem_u32(smem + C::kQOffset + stage * C::kQBytes);
      const uint32_t do_stage = sm90::smem_u32(smem + C::kDoOffset + stage * C::kQBytes);
      unsigned char* ds_buffer = smem + C::kDsOffset + slot.step_parity() * C::kDsBytes;
      // lse[64] then delta[64] of this stage; the thread reads the pairs of its columns query0 + 8 j + 2 t.
      const uint32_t lse_thread =
          sm90::smem_u32(smem + C::kLseOffset) + (stage * 2 * C::kBlockQ + query0 + 2 * t) * 4;
      sm90::mbar_wait(&bars->q_full[stage], slot.phase());
      if constexpr (backward_idle_halves_built(kHeadDim, kRunMasks ? BackwardMasking::kRunMasks
                                                                   : BackwardMasking::kSlices)) {
        if ((c.idle >> warpgroup) & 1) {
          // This warpgroup's 64 keys see none of the step's queries (an idle half of a partial tile, DeviceRun):
          // nothing to add to dK and dV, so no S^T, dP^T, softmax or products of its own. Head dim 64 (dQ over each
          // warpgroup's own keys): nothing to add to dQ either. Head dim 128: its dQ columns over the other half's
          // keys (the same product as dq_product over all 128 keys spilled the loop to local memory, and a branch
          // around the step's first half only made ptxas serialize the products), and zeros in its rows of dS^T
          // for the other warpgroup's product over all 128.
          if constexpr (!C::kDqSplitsKeys) {
            store_ds_rows(ds_buffer, [](int, int) { return 0u; });  // for the other warpgroup's dQ product
            sm90::fence_async_shared();
          }
          if constexpr (!kDecoupled) sm90::named_barrier_sync(1, 256);  // (decoupled: no rows of its own to wait for)
          if constexpr (!C::kDqSplitsKeys) {
            sm90::wgmma_fence();
            dq_product.template operator()<4>(ds_buffer, (1 - warpgroup) * 64);  // the other half's keys
            sm90::wgmma_wait<0>();
          }
          __syncwarp();
          if (lane == 0) sm90::mbar_arrive(&bars->q_empty[stage]);
          if constexpr (!C::kDqSplitsKeys) reduce_dq(head, q0);
          continue;
        }
      }

      // S^T = K Q^T and dP^T = V dO^T (64 keys x the warpgroup's queries each).
      const uint32_t q_rows = q_stage + query0 * 128;
      const uint32_t do_rows = do_stage + query0 * 128;
      sm90::wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < kHeadDim / 16; ++ks) {
        const uint32_t offset = (ks % 4) * 32;
        sm90::WgmmaSS<T, C::kWarpgroupQueries, 0, 0>::run(
            st, sm90::make_desc(k_rows + (ks / 4) * C::kKPanelBytes + offset, 16, 1024),
            sm90::make_desc(q_rows + (ks / 4) * C::kQPanelBytes + offset, 16, 1024), ks > 0);
      }
      sm90::wgmma_commit();
#pragma unroll
      for (int ks = 0; ks < kHeadDim / 16; ++ks) {
        const uint32_t offset = (ks % 4) * 32;
        sm90::WgmmaSS<T, C::kWarpgroupQueries, 0, 0>::run(
            dpt, sm90::make_desc(v_rows + (ks / 4) * C::kKPanelBytes + offset, 16, 1024),
            sm90::make_desc(do_rows + (ks / 4) * C::kQPanelBytes + offset, 16, 1024), ks > 0);
      }
      sm90::wgmma_commit();
      // A partial tile's mask bits, computed while S^T and dP^T are on the tensor cores: from its visit's key-major run
      // mask (kRunMasks, run_mask.h: the thread's keys key_in_tile + 8 r see the tile's queries [lo, hi)), or from the
      // q-tile row's slices.
      uint32_t bits[2] = {0xffffffffu, 0xffffffffu};
      if (c.partial) {
        if constexpr (kRunMasks) {
          const DeviceRunMask& m = c.mask;
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            int lo, hi;
            run_mask_pair_key_rows(m.bounds, m.rows, m.bounds2, m.rows2, key_in_tile + 8 * r, lo, hi);
            bits[r] = interval_bits<C::kSFloats / 2>(query0 + 2 * t, lo, hi);
          }
        } else {
          const int slice_row = kt.mask * p.work.q_tile_rows + c.tile;
          const DeviceSlice* row_slices = p.work.slices + p.work.slice_offsets[slice_row];
          const int count = p.work.slice_offsets[slice_row + 1] - p.work.slice_offsets[slice_row];
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            const int wq0 = q0 + query0;
            bits[r] = visible_rows<C::kSFloats / 2>(row_slices, count, key0 + 8 * r, wq0, wq0 + C::kWarpgroupQueries,
                                                    wq0 + 2 * t);
          }
        }
      }
      sm90::wgmma_wait<1>();
      sm90::fence_registers(st);
      if (c.partial) mask_accumulator(st, bits);
      // P^T = exp2(S^T scale log2(e) - lse log2(e)).
#pragma unroll
      for (int j = 0; j < C::kSFloats / 4; ++j) {
        const float2 lse_pair = sm90::ld_shared_v2_f32(lse_thread + 8 * j * 4);
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float lse_log2 = e == 0 ? lse_pair.x : lse_pair.y;
#pragma unroll
          for (int r = 0; r < 2; ++r) st[4 * j + 2 * r + e] = fast_exp2(fmaf(st[4 * j + 2 * r + e], scale_log2, -lse_log2));
        }
      }
      sm90::fence_registers(st);  // the exponentials stay ahead of the wait below
      sm90::wgmma_wait<0>();
      sm90::fence_registers(dpt);
      // dS^T = P^T (dP^T - delta).
#pragma unroll
      for (int j = 0; j < C::kSFloats / 4; ++j) {
        const float2 delta_pair = sm90::ld_shared_v2_f32(lse_thread + (C::kBlockQ + 8 * j) * 4);
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float delta = e == 0 ? delta_pair.x : delta_pair.y;
#pragma unroll
          for (int r = 0; r < 2; ++r) dpt[4 * j + 2 * r + e] = st[4 * j + 2 * r + e] * (dpt[4 * j + 2 * r + e] - delta);
        }
      }
      if constexpr (C::kSplitColumns) {
        // The previous step's stage, released once its dQ reductions have read it (see the header).
        if (!slot.first() && thread == 0) {
          sm90::bulk_wait_read();
          sm90::mbar_arrive(&bars->q_empty[slot.previous_stage()]);
        }
        // P^T and dS^T of the warpgroup's queries to shared memory (rows = the CTA's 64 keys, swizzled as dS^T).
        const uint32_t p_smem = sm90::smem_u32(smem + C::kPOffset + slot.step_parity() * C::kDsBytes);
        const uint32_t ds_smem = sm90::smem_u32(ds_buffer);
#pragma unroll
        for (int j = 0; j < C::kSFloats / 4; ++j) {
          const uint32_t chunk = static_cast<uint32_t>(query0 / 8 + j) * 16;
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            sm90::st_shared_b32(((p_smem + ds_thread) ^ chunk) + r * 8 * 128,
                                MmaType<T>::pack(st[4 * j + 2 * r], st[4 * j + 2 * r + 1]));
            sm90::st_shared_b32(((ds_smem + ds_thread) ^ chunk) + r * 8 * 128,
                                MmaType<T>::pack(dpt[4 * j + 2 * r], dpt[4 * j + 2 * r + 1]));
          }
        }
        sm90::fence_async_shared();
        sm90::named_barrier_sync(1, 256);  // both warpgroups' queries are in place
        // dV += P^T dO and dK += dS^T Q over the step's 64 queries, in the warpgroup's columns (A key-major in shared
        // memory; B query-major: transposed), and dQ = dS K over the CTA's 64 keys, 64 of its columns per product.
        const uint32_t col_panel = static_cast<uint32_t>(kv_col0 / 64);
        sm90::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < C::kBlockQ / 16; ++kk) {
          sm90::WgmmaSS<T, C::kKvCols, 0, 1>::run(
              dv, sm90::make_desc(p_smem + kk * 32, 16, 1024),
              sm90::make_desc(do_stage + col_panel * C::kQPanelBytes + kk * 16 * 128, C::kQPanelBytes, 1024), true);
        }
#pragma unroll
        for (int kk = 0; kk < C::kBlockQ / 16; ++kk) {
          sm90::WgmmaSS<T, C::kKvCols, 0, 1>::run(
              dk, sm90::make_desc(ds_smem + kk * 32, 16, 1024),
              sm90::make_desc(q_stage + col_panel * C::kQPanelBytes + kk * 16 * 128, C::kQPanelBytes, 1024), true);
        }
#pragma unroll
        for (int chunk = 0; chunk < C::kDqChunks; ++chunk) {
#pragma unroll
          for (int kk = 0; kk < C::kBlockK / 16; ++kk) {
            sm90::WgmmaSS<T, 64, 1, 1>::run(
                dq[chunk], sm90::make_desc(ds_smem + kk * 16 * 128, 1024, 1024),
                sm90::make_desc(k_smem + (col_panel + chunk) * C::kKPanelBytes + kk * 16 * 128, C::kKPanelBytes, 1024),
                kk > 0);
          }
        }
        sm90::wgmma_commit();
        sm90::wgmma_wait<0>();
        sm90::fence_registers(dv);
        sm90::fence_registers(dk);
#pragma unroll
        for (int chunk = 0; chunk < C::kDqChunks; ++chunk) sm90::fence_registers(dq[chunk]);
        // dQ (scaled) staged over the step's Q (warpgroup 0) or dO (warpgroup 1) buffer once neither warpgroup
        // reads them any more, then one reduce-add per box.
        sm90::named_barrier_sync(2, 256);
        stage_dq((warpgroup == 0 ? q_stage : do_stage) + dq_offset, dq, s.scale);
        sm90::fence_async_shared();
        sm90::named_barrier_sync(3 + warpgroup, 128);
        if (thread == 0) {
          reduce_dq_boxes(&a.dq_map, smem + (warpgroup == 0 ? C::kQOffset : C::kDoOffset) + stage * C::kQBytes,
                          2 * C::kDqChunks, kv_col0, head, q0, kt.batch);
        }
      } else {
        uint32_t p_frag[C::kSFloats / 8][4];
        uint32_t ds_frag[C::kSFloats / 8][4];
        to_a_fragments<T>(st, p_frag);
        to_a_fragments<T>(dpt, ds_frag);
        store_ds_rows(ds_buffer, [&](int j, int r) { return ds_frag[j / 2][(j % 2) * 2 + r]; });
        sm90::fence_async_shared();

        // dV += P^T dO, dK += dS^T Q (B operands query-major: transposed).
        sm90::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < C::kBlockQ / 16; ++kk) {
          sm90::WgmmaRS<T, kHeadDim, 1>::run(
              dv, p_frag[kk], sm90::make_desc(do_stage + kk * 16 * 128, C::kQPanelBytes, 1024), true);
        }
#pragma unroll
        for (int kk = 0; kk < C::kBlockQ / 16; ++kk) {
          sm90::WgmmaRS<T, kHeadDim, 1>::run(
              dk, ds_frag[kk], sm90::make_desc(q_stage + kk * 16 * 128, C::kQPanelBytes, 1024), true);
        }
        sm90::wgmma_commit();

        // dQ (64 queries x kDqCols) = dS K over the CTA's 128 keys, once both warpgroups have written dS^T (kDecoupled:
        // over this warpgroup's 64 keys, once it has written its rows).
        if constexpr (kDecoupled) {
          sm90::named_barrier_sync(3 + warpgroup, 128);
        } else {
          sm90::named_barrier_sync(1, 256);
        }
        dq_product.template operator()<C::kDqKeys / 16>(ds_buffer, C::kDqSplitsKeys ? warpgroup * 64 : 0);
        sm90::wgmma_wait<0>();
        sm90::fence_registers(dv);
        sm90::fence_registers(dk);
        __syncwarp();
        if (lane == 0) sm90::mbar_arrive(&bars->q_empty[stage]);
        reduce_dq(head, q0);
      }
    }
  }

  if (thread == 0) {
    // dQ reductions complete before the CTA's shared memory goes away; then the warpgroup counts itself finished
    // for the conversion of its rows (C::kConsumerWarpgroups counts per CTA), its reductions ordered before it.
    sm90::bulk_wait();
    sm90::fence_async_global();
    __threadfence();
    // Once on the counter of every chunk of the conversion that its q rows meet (backward_cta_chunks, flash_work.h:
    // from its runs' first q tile to their last).
    if (kt.run_begin < kt.run_end) {
      const int chunk_rows = p.work.tail_chunk_rows;
      const int first = p.work.runs[kt.run_begin].begin * C::kBlockQ / chunk_rows;
      const int end_row = (p.work.runs[kt.run_end - 1].end_and_partial & kRunEndMask) * C::kBlockQ;
      const int last = min(a.tail_chunks_per_head - 1, (end_row - 1) / chunk_rows);
      int* const counters = p.counters + (kt.batch * s.kv_heads + kt.kv_head) * a.tail_chunks_per_head;
      for (int c = min(first, a.tail_chunks_per_head - 1); c <= last; ++c) sm90::add_relaxed_gpu(counters + c, 1);
    }
  }

  // dK (scaled) and dV; keys that no query sees get zeros.
  const int64_t kv_stride = static_cast<int64_t>(s.kv_heads) * kHeadDim;
  const int64_t kv_offset = (static_cast<int64_t>(kt.batch) * s.seqlen_k * s.kv_heads + kt.kv_head) * kHeadDim;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int key = key0 + 8 * r;
    if (key >= s.seqlen_k) continue;
    T* dk_row = static_cast<T*>(p.dk) + kv_offset + static_cast<int64_t>(key) * kv_stride;
    T* dv_row = static_cast<T*>(p.dv) + kv_offset + static_cast<int64_t>(key) * kv_stride;
#pragma unroll
    for (int j = 0; j < C::kKvFloats / 4; ++j) {
      *reinterpret_cast<uint32_t*>(dk_row + kv_col0 + 8 * j + 2 * t) =
          MmaType<T>::pack(dk[4 * j + 2 * r] * s.scale, dk[4 * j + 2 * r + 1] * s.scale);
      *reinterpret_cast<uint32_t*>(dv_row + kv_col0 + 8 * j + 2 * t) =
          MmaType<T>::pack(dv[4 * j + 2 * r], dv[4 * j + 2 * r + 1]);
    }
  }
}

template <int kHeadDim>
constexpr bool kBackwardRunMasks = backward_run_masks_built(kHeadDim);
template <int kHeadDim>
constexpr bool kBackwardDecoupled = backward_decoupled_built(kHeadDim);

template <typename T, int kHeadDim, bool kRunMasks, bool kDecoupled = false>
__global__ void __launch_bounds__(Sm90BackwardConfig<kHeadDim>::kThreads, 1)
    flash_dkdv_sm90_kernel(const __grid_constant__ Sm90BackwardArgs args) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using C = Sm90BackwardConfig<kHeadDim>;
  if (const int item = args.p.work.cta_items[blockIdx.x]; item < 0) {
    convert_dq_tail<T, kHeadDim>(args, -1 - item);
    return;
  }
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  auto* bars = reinterpret_cast<BackwardBarriers<C::kStages>*>(smem + C::kBarrierOffset);
  const int warpgroup = warp_uniform(static_cast<int>(threadIdx.x) / 128);
  if (threadIdx.x == 0) {
    sm90::mbar_init(&bars->kv_full, 1);
    for (int i = 0; i < C::kStages; ++i) {
      sm90::mbar_init(&bars->q_full[i], 2);  // the TMA issue (with its bytes) and the lse/delta stores
      // kSplitColumns: one arrival per consumer warpgroup, once its dQ reductions have read the stage.
      sm90::mbar_init(&bars->q_empty[i], C::kSplitColumns ? 2 : C::kConsumerWarps);
    }
    sm90::mbar_fence_init();
  }
  __syncthreads();
  const KTile kt = decode_k_tile(args.p);
  if (warpgroup == 0) {
    sm90::regs_decrease<24>();
    if (threadIdx.x < 32) produce_backward<kHeadDim>(args, smem, bars, kt);
  } else {
    sm90::regs_increase<240>();
    static_assert(!kDecoupled || (Sm90BackwardConfig<kHeadDim>::kDqSplitsKeys && !kRunMasks),
                  "decoupled warpgroups: head dim 64's slice-walking kernel");
    consume_backward<T, kHeadDim, kRunMasks, kDecoupled>(args, smem, bars, kt, warpgroup - 1);
  }
#endif
}

template <typename T, int kHeadDim>
struct LaunchBackwardSm90 {
  static void run(const BackwardParams& params, cudaStream_t stream) {
    using C = Sm90BackwardConfig<kHeadDim>;
    check_work_shape(params.work.shape, C::kBlockQ, C::kBlockK, "backward (sm90)");
    const Shape& s = params.shape;
    LCAB_CHECK(params.counters != nullptr, "the Hopper backward needs its counters (BackwardParams::counters)");
    launch_backward_preprocess(params, mma_dtype<T>(), kHeadDim, stream);  // also zeroes the counters
    const int64_t blocks = static_cast<int64_t>(params.work.outer_tiles) * s.batch * s.kv_heads;
    const int64_t tail_per_head = perf::backward_tail_chunks_per_head(s.seqlen_q, params.work.tail_chunk_rows);
    const int64_t tail = tail_per_head * s.batch * s.kv_heads;
    // One block per entry of the uploaded list (FlashPassWork::grid_items): every dK/dV CTA and every conversion unit.
    const int64_t grid = params.work.grid_blocks;
    LCAB_CHECK(grid == blocks + tail, "the backward's grid list has " << grid << " blocks, not the " << blocks
                                          << " dK/dV CTAs and " << tail << " conversion units of the call");
    LCAB_CHECK(grid < (int64_t(1) << 31), "backward grid of " << grid << " CTAs is too large");
    if (blocks > 0) {
      Sm90BackwardArgs args;
      args.p = params;
      args.tail_chunks_per_head = static_cast<int>(tail_per_head);
      args.q_map = sm90::make_token_major_map(params.q, s.batch, s.seqlen_q, s.heads, kHeadDim, C::kBlockQ);
      args.do_map = sm90::make_token_major_map(params.dout, s.batch, s.seqlen_q, s.heads, kHeadDim, C::kBlockQ);
      args.k_map = sm90::make_token_major_map(params.k, s.batch, s.seqlen_k, s.kv_heads, kHeadDim, C::kBlockK);
      args.v_map = sm90::make_token_major_map(params.v, s.batch, s.seqlen_k, s.kv_heads, kHeadDim, C::kBlockK);
      args.dq_map = sm90::make_token_major_map(params.dq_accum, s.batch, s.seqlen_q, s.heads, kHeadDim, C::kBlockQ,
                                               sm90::MapElement::kFp32);
      if (params.work.run_masks) {
        LCAB_CHECK(kBackwardRunMasks<kHeadDim>, "the hd " << kHeadDim << " backward has no run-mask kernel");
        if constexpr (kBackwardRunMasks<kHeadDim>) {
          flash_dkdv_sm90_kernel<T, kHeadDim, true>
              <<<static_cast<unsigned>(grid), C::kThreads, C::kSmemBytes, stream>>>(args);
        }
      } else if (kBackwardDecoupled<kHeadDim> && params.work.decoupled_warpgroups != 0) {
        if constexpr (kBackwardDecoupled<kHeadDim>) {
          flash_dkdv_sm90_kernel<T, kHeadDim, false, true>
              <<<static_cast<unsigned>(grid), C::kThreads, C::kSmemBytes, stream>>>(args);
        }
      } else {
        flash_dkdv_sm90_kernel<T, kHeadDim, false>
            <<<static_cast<unsigned>(grid), C::kThreads, C::kSmemBytes, stream>>>(args);
      }
      LCAB_CUDA_CHECK_LAUNCH();
    } else {
      launch_backward_postprocess(params, mma_dtype<T>(), kHeadDim, stream);  // no key: dQ is the zeroed accumulator
    }
  }
};

template <typename T, int kHeadDim>
struct ConfigureBackwardSm90 {
  static void run() {
    LCAB_CUDA_CHECK(cudaFuncSetAttribute(flash_dkdv_sm90_kernel<T, kHeadDim, false>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(Sm90BackwardConfig<kHeadDim>::kSmemBytes)));
    if constexpr (kBackwardRunMasks<kHeadDim>) {
      LCAB_CUDA_CHECK(cudaFuncSetAttribute(flash_dkdv_sm90_kernel<T, kHeadDim, true>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(Sm90BackwardConfig<kHeadDim>::kSmemBytes)));
    }
    if constexpr (kBackwardDecoupled<kHeadDim>) {
      LCAB_CUDA_CHECK(cudaFuncSetAttribute(flash_dkdv_sm90_kernel<T, kHeadDim, false, true>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(Sm90BackwardConfig<kHeadDim>::kSmemBytes)));
    }
  }
};

}  // namespace

void configure_backward_sm90(DType dtype, int head_dim) {
  dispatch<ConfigureBackwardSm90, FlashArch::kSm90>(dtype, head_dim);
}

void launch_backward_sm90(const BackwardParams& params, DType dtype, int head_dim, cudaStream_t stream) {
  dispatch<LaunchBackwardSm90, FlashArch::kSm90>(dtype, head_dim, params, stream);
}

}  // namespace lcab::kernels::flash
