// lcab_flash backward, in three launches:
//   1. delta = rowsum(dout * out) per (batch, head, query), fp32;
//   2. dK/dV: one CTA per (k tile of 128 keys, kv head, batch), 8 warps as 4 pairs of 32 keys. It walks, for every
//      q head of its GQA group, the q tiles that touch its k tile (the transposed work list: 64 queries at head dim
//      128; at head dim 64, 128 where the GPU grants the CTA's 162 KiB, else 64: flash_kernels.h), keeping
//      dK and dV in fp32 registers, so dK/dV need no atomics and no per-q-head expansion. Per step, each warp of a
//      pair computes S^T and dP^T for its 32 keys and half of the queries, P^T and dS^T, stages both in shared
//      memory, and then accumulates dK and dV for half of the head dim over all of the step's queries. dQ of each
//      (q tile, k tile) pair is computed in the same step from the staged dS^T (each warp 32 queries and a share of
//      the head dim) and added to an fp32 accumulator with atomics: a separate dQ pass would recompute Q K^T and
//      dO V^T (two of the five backward GEMMs) for every tile; the atomics cost fp32 reduction traffic and make the
//      summation order (not the math) nondeterministic. Against 8 warps of 16 keys, each with all 64 queries and
//      the whole head dim, this reads 22% fewer shared-memory bytes per warp and step (Q and dO once per product for 32 keys
//      instead of 16; data/measurements/h200/sm80-bwd-warp-pairs-2026-12-04/);
//   3. dq = dq_accum converted to the element type.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "kernels/cuda_check.h"
#include "kernels/flash_common.cuh"
#include "kernels/flash_dispatch.cuh"
#include "kernels/flash_kernels.h"
#include "kernels/mma_sync_fit.h"

namespace lcab::kernels::flash {
namespace {

constexpr float kLog2e = 1.4426950408889634f;

template <int kHeadDim, int kQueries>
struct BackwardConfig {
  static constexpr int kWarps = 8;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kKeyGroups = kWarps / 2;  // warp pairs, each owning kWarpKeys keys
  static constexpr int kWarpKeys = 32;
  static constexpr int kKeyTiles = kWarpKeys / 16;   // m16 tiles of a warp's S^T, dP^T, dK, dV (keys)
  static constexpr int kBlockK = kWarpKeys * kKeyGroups;  // keys per CTA
  static constexpr int kBlockQ = kQueries;           // queries per step
  static constexpr int kWarpQueries = kBlockQ / 2;   // queries of a warp's S^T and dP^T
  static constexpr int kQTiles = kWarpQueries / 8;   // n8 tiles of a warp's S^T (queries)
  static constexpr int kHalfDimCols = kHeadDim / 2;  // columns of a warp's dK and dV
  static constexpr int kHalfDimTiles = kHalfDimCols / 8;
  static constexpr int kDimSteps = kHeadDim / 16;
  static constexpr int kQuerySteps = kBlockQ / 16;
  // dQ = dS K: each warp 32 queries and 1 / (kBlockQ / 32) of the head dim. At 64 queries (2 x 4) that reads 16 KiB
  // of operands per warp at hd 128 against 20 KiB split 4 x 2; at 128 queries and hd 64, 4 x 2 ran 3.6% faster per
  // cycle than 2 x 4 (data/measurements/h200/sm80-bwd-hd64-128-queries-2026-12-04/).
  static constexpr int kDqRowGroups = kBlockQ / 32;
  static constexpr int kDqRowTiles = kBlockQ / 16 / kDqRowGroups;  // m16 tiles of a warp's dQ
  static constexpr int kDqColGroups = kWarps / kDqRowGroups;
  static constexpr int kDqCols = kHeadDim / kDqColGroups;
  static constexpr int kDqTiles = kDqCols / 8;
  static constexpr int kKvElems = kBlockK * kHeadDim;
  static constexpr int kQElems = kBlockQ * kHeadDim;
  static constexpr size_t kSmemBytes =
      (2 * kKvElems + 4 * kQElems + 2 * kBlockQ * kBlockK) * 2 + 2 * 2 * kBlockQ * sizeof(float);
};

struct BackwardCursor {
  int group_head;  // index of the q head inside the GQA group
  int run;
  int tile;
  __device__ bool valid(int group) const { return group_head < group; }
};

__device__ __forceinline__ BackwardCursor advance(BackwardCursor c, const DeviceRun* runs, int run_begin,
                                                  int run_end) {
  ++c.tile;
  if (c.tile >= (runs[c.run].end_and_partial & 0x7fffffff)) {
    ++c.run;
    if (c.run >= run_end) {
      ++c.group_head;
      c.run = run_begin;
    }
    c.tile = runs[c.run].begin;
  }
  return c;
}

__device__ __forceinline__ void cp_async_4(uint32_t dst, const void* src, bool valid) {
  const int src_bytes = valid ? 4 : 0;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}

// dst[0] += x, dst[1] += y in global memory (8-byte aligned): one vector reduction on sm_90, two scalar ones before.
__device__ __forceinline__ void add_pair(float* dst, float x, float y) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  atomicAdd(reinterpret_cast<float2*>(dst), make_float2(x, y));
#else
  atomicAdd(dst, x);
  atomicAdd(dst + 1, y);
#endif
}

// delta = rowsum(dout * out) per (batch, head, q) row. A block takes kDeltaRowsPerThread x (kDeltaThreads /
// kLanesPerRow) consecutive q rows of one (batch, head), heads fastest in the block order, so that the blocks resident
// together read contiguous memory and each block writes its rows' deltas contiguously ([batch, head, q]). Each group
// of kLanesPerRow lanes sums one row at a time, 16 bytes of out and dout per lane, with every load of its rows issued
// before the first sum (2 x kDeltaRowsPerThread 16-byte loads in flight per thread).
constexpr int kDeltaThreads = 256;
constexpr int kDeltaRowsPerThread = 4;
template <int kHeadDim>
constexpr int delta_rows_per_block() {
  return kDeltaRowsPerThread * (kDeltaThreads / (kHeadDim / 8));
}
/// Blocks of delta_rows_per_block q rows per (batch, head): the launch's grid is batch x heads x this.
template <int kHeadDim>
__host__ __device__ int64_t delta_q_blocks(int64_t seqlen_q) {
  return (seqlen_q + delta_rows_per_block<kHeadDim>() - 1) / delta_rows_per_block<kHeadDim>();
}

template <typename T, int kHeadDim>
__global__ void __launch_bounds__(kDeltaThreads) delta_kernel(const BackwardParams p) {
  // The Hopper grid's conversion counters (BackwardParams::counters), zeroed before its launch.
  if (p.counters != nullptr && blockIdx.x == 0) {
    const int counters = p.work.tail_counters;
    for (int i = static_cast<int>(threadIdx.x); i < counters; i += static_cast<int>(blockDim.x)) p.counters[i] = 0;
  }
  constexpr int kLanesPerRow = kHeadDim / 8;
  constexpr int kRowsPerPass = kDeltaThreads / kLanesPerRow;
  static_assert(32 % kLanesPerRow == 0, "a row's lanes lie in one warp");
  const Shape& s = p.shape;
  const int head = static_cast<int>(blockIdx.x % static_cast<unsigned>(s.heads));
  const int64_t q_block_and_batch = blockIdx.x / static_cast<unsigned>(s.heads);
  const int64_t q_blocks = delta_q_blocks<kHeadDim>(s.seqlen_q);
  const int64_t batch = q_block_and_batch / q_blocks;
  const int q_first = static_cast<int>(q_block_and_batch % q_blocks) * delta_rows_per_block<kHeadDim>() +
                      static_cast<int>(threadIdx.x) / kLanesPerRow;
  const int lane_in_row = static_cast<int>(threadIdx.x) % kLanesPerRow;
  const int64_t row_stride = static_cast<int64_t>(s.heads) * kHeadDim;  // elements from q to q + 1
  const int64_t first = ((batch * s.seqlen_q + q_first) * s.heads + head) * kHeadDim + lane_in_row * 8;
  uint4 o[kDeltaRowsPerThread];
  uint4 d[kDeltaRowsPerThread];
#pragma unroll
  for (int i = 0; i < kDeltaRowsPerThread; ++i) {
    const bool valid = q_first + i * kRowsPerPass < s.seqlen_q;  // (rows past the sequence: zeros, not written)
    const int64_t offset = first + static_cast<int64_t>(i) * kRowsPerPass * row_stride;
    o[i] = valid ? *reinterpret_cast<const uint4*>(static_cast<const T*>(p.out) + offset) : make_uint4(0, 0, 0, 0);
    d[i] = valid ? *reinterpret_cast<const uint4*>(static_cast<const T*>(p.dout) + offset) : make_uint4(0, 0, 0, 0);
  }
  float* const delta_row = p.delta + (batch * s.heads + head) * s.seqlen_q;
#pragma unroll
  for (int i = 0; i < kDeltaRowsPerThread; ++i) {
    const T* ov = reinterpret_cast<const T*>(&o[i]);
    const T* dv = reinterpret_cast<const T*>(&d[i]);
    float sum = 0.f;
#pragma unroll
    for (int n = 0; n < 8; ++n) sum += MmaType<T>::to_float(ov[n]) * MmaType<T>::to_float(dv[n]);
#pragma unroll
    for (int offset = kLanesPerRow / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    const int q = q_first + i * kRowsPerPass;
    if (q < s.seqlen_q && lane_in_row == 0) delta_row[q] = sum;
  }
}

template <typename T>
__global__ void convert_dq_kernel(const float* accum, T* dq, int64_t count) {
  const int64_t n = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 2;
  if (n < count) {
    const float2 v = *reinterpret_cast<const float2*>(accum + n);
    *reinterpret_cast<uint32_t*>(dq + n) = MmaType<T>::pack(v.x, v.y);
  }
}

template <typename T, int kHeadDim, int kQueries>
__global__ void __launch_bounds__(BackwardConfig<kHeadDim, kQueries>::kThreads, 1)
    flash_dkdv_kernel(const BackwardParams p) {
  using C = BackwardConfig<kHeadDim, kQueries>;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* k_tile = reinterpret_cast<T*>(smem_raw);
  T* v_tile = k_tile + C::kKvElems;
  T* q_tiles = v_tile + C::kKvElems;    // 2 stages
  T* do_tiles = q_tiles + 2 * C::kQElems;  // 2 stages
  T* ds_tile = do_tiles + 2 * C::kQElems;  // dS^T [kBlockK][kBlockQ], swizzled
  T* p_tile = ds_tile + C::kBlockQ * C::kBlockK;  // P^T, as dS^T
  float* lse_tiles = reinterpret_cast<float*>(p_tile + C::kBlockQ * C::kBlockK);  // 2 stages
  float* delta_tiles = lse_tiles + 2 * C::kBlockQ;                                  // 2 stages

  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int g = lane / 4;
  const int t = lane % 4;

  const Shape& s = p.shape;
  int linear = static_cast<int>(blockIdx.x);
  const int kv_head = linear % s.kv_heads;
  linear /= s.kv_heads;
  const int batch = linear % s.batch;
  const int order_index = linear / s.batch;
  const int group = s.heads / s.kv_heads;
  const int mask = p.work.num_masks == 1 ? 0 : kv_head;
  const int k_tile_index = p.work.outer_order[mask * p.work.outer_tiles + order_index];
  const int k0 = k_tile_index * C::kBlockK;
  const int outer = mask * p.work.outer_tiles + k_tile_index;
  const int run_begin = p.work.run_offsets[outer];
  const int run_end = p.work.run_offsets[outer + 1];
  const DeviceRun* runs = p.work.runs;

  const int64_t q_stride = static_cast<int64_t>(s.heads) * kHeadDim;
  const int64_t kv_stride = static_cast<int64_t>(s.kv_heads) * kHeadDim;
  const int64_t kv_offset = (static_cast<int64_t>(batch) * s.seqlen_k * s.kv_heads + kv_head) * kHeadDim;
  const int64_t q_batch_offset = static_cast<int64_t>(batch) * s.seqlen_q * s.heads * kHeadDim;

  // dK and dV of this warp's 32 keys and half of the head dim, fp32.
  float dk_acc[C::kKeyTiles][C::kHalfDimTiles][4];
  float dv_acc[C::kKeyTiles][C::kHalfDimTiles][4];
#pragma unroll
  for (int m = 0; m < C::kKeyTiles; ++m) {
#pragma unroll
    for (int n = 0; n < C::kHalfDimTiles; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) dk_acc[m][n][e] = dv_acc[m][n][e] = 0.f;
    }
  }

  auto load_q_step = [&](const BackwardCursor& c, int buffer) {
    const int head = kv_head * group + c.group_head;
    const int qs = c.tile * C::kBlockQ;
    const int64_t head_offset = q_batch_offset + static_cast<int64_t>(head) * kHeadDim;
    load_tile_async<C::kBlockQ, kHeadDim, C::kThreads>(q_tiles + buffer * C::kQElems,
                                                        static_cast<const T*>(p.q) + head_offset, q_stride, qs,
                                                        s.seqlen_q);
    load_tile_async<C::kBlockQ, kHeadDim, C::kThreads>(do_tiles + buffer * C::kQElems,
                                                        static_cast<const T*>(p.dout) + head_offset, q_stride, qs,
                                                        s.seqlen_q);
    const int tid = static_cast<int>(threadIdx.x);
    if (tid < 2 * C::kBlockQ) {
      const int row = tid % C::kBlockQ;
      const bool valid = qs + row < s.seqlen_q;
      const int64_t index = (static_cast<int64_t>(batch) * s.heads + head) * s.seqlen_q + (valid ? qs + row : 0);
      if (tid < C::kBlockQ) {
        cp_async_4(smem_address(lse_tiles + buffer * C::kBlockQ + row), p.lse + index, valid);
      } else {
        cp_async_4(smem_address(delta_tiles + buffer * C::kBlockQ + row), p.delta + index, valid);
      }
    }
  };

  BackwardCursor cursor{0, run_begin, run_begin < run_end ? runs[run_begin].begin : 0};
  const bool has_work = run_begin < run_end;
  if (has_work) {
    load_tile_async<C::kBlockK, kHeadDim, C::kThreads>(k_tile, static_cast<const T*>(p.k) + kv_offset, kv_stride,
                                                       k0, s.seqlen_k);
    load_tile_async<C::kBlockK, kHeadDim, C::kThreads>(v_tile, static_cast<const T*>(p.v) + kv_offset, kv_stride,
                                                       k0, s.seqlen_k);
    load_q_step(cursor, 0);
    cp_async_commit();
  }
  const float scale_log2 = s.scale * kLog2e;
  // Warp w owns keys 32 (w % 4) .. + 32 and, with its partner w ^ 4 (the same keys), splits the step's queries for
  // S^T and dP^T (kWarpQueries each: query half w / 4) and the head dim for dK and dV (half w / 4), reading P^T and
  // dS^T of all of the step's queries from shared memory, where each warp of the pair writes its half.
  const int warp_key0 = (warp % C::kKeyGroups) * C::kWarpKeys;  // this warp's keys inside the tile
  const int query_half = warp / C::kKeyGroups;                  // its queries of S^T, dP^T; its half of dK, dV
  const int warp_q0 = query_half * C::kWarpQueries;
  // Per-lane ldmatrix addresses. Every row a lane addresses has row % 8 == lane % 8, so stepping the 16-byte
  // chunk by 2 * step is an XOR of the byte address with 32 * step (see the swizzle in flash_common.cuh). Here the
  // XOR of each summed address stays: chunk_pair_address, which gains the forward 3-4% at hd 128, cut this kernel's
  // instructions by 12% but cost it 1.1-1.8% per cycle at hd 128 on an H200 (more cycles per issued instruction:
  // data/measurements/h200/sm80-chunk-pair-addresses-2026-12-03/).
  const int swz = lane & 7;
  const int a_rows = lane % 16;                           // A operand (non-transposed): rows 0..15
  const int b_rows = (lane % 8) + 8 * (lane / 16);        // B operand from [n][k] storage
  const int t_rows = (lane % 8) + 8 * ((lane / 8) % 2);   // B operand from [k][n] storage (.trans)
  const uint32_t kv_a_offset = 2 * ((warp_key0 + a_rows) * kHeadDim + (((lane / 16) ^ swz) << 3));
  const uint32_t k_a_lane = smem_address(k_tile) + kv_a_offset;
  const uint32_t v_a_lane = smem_address(v_tile) + kv_a_offset;
  const uint32_t b_lane_offset = 2 * ((warp_q0 + b_rows) * kHeadDim + ((((lane / 8) % 2) ^ swz) << 3));
  const uint32_t t_lane_offset =
      2 * (t_rows * kHeadDim + (((query_half * C::kHalfDimCols / 8 + lane / 16) ^ swz) << 3));
  // P^T and dS^T (keys x queries) as A operands of dV and dK: this warp's 32 keys over all kBlockQ queries.
  const uint32_t xt_a_offset = 2 * ((warp_key0 + a_rows) * C::kBlockQ + (((lane / 16) ^ swz) << 3));
  const uint32_t pt_a_lane = smem_address(p_tile) + xt_a_offset;
  const uint32_t dst_a_lane = smem_address(ds_tile) + xt_a_offset;
  const int dq_row_group = warp % C::kDqRowGroups;
  const int dq_col_group = warp / C::kDqRowGroups;
  // dS^T is stored keys x queries: the A operand (queries x keys) of dQ's 16 x 16 step is its four 8 x 8 blocks
  // read transposed, block j from keys 8 (j / 2) + row, queries 16 (dq_row_group kDqRowTiles + m) + 8 (j % 2)
  // (m: an XOR of 32 m, as the chunks' steps elsewhere).
  const uint32_t ds_a_lane = smem_address(ds_tile) +
      2 * (b_rows * C::kBlockQ + (((2 * dq_row_group * C::kDqRowTiles + (lane / 8) % 2) ^ swz) << 3));
  const uint32_t k_t_lane =
      smem_address(k_tile) +
      2 * (t_rows * kHeadDim + (((dq_col_group * C::kDqCols / 8 + lane / 16) ^ swz) << 3));
  int stage = 0;

  // Two barriers per step: one before its products and one once P^T and dS^T are staged. Past the first, every
  // warp has finished the step before (its reads of the other stage, of P^T and of dS^T), so the next step's Q and
  // dO load into the other stage from there and P^T and dS^T are overwritten without a barrier at the step's end
  // (one there cost 2.4-3.6% per cycle: data/measurements/h200/sm80-bwd-warp-pairs-2026-12-04/).
  // The cursor runs a step ahead: the step after next is found while this one's products run, so that no step
  // waits at its top for the work list's global loads.
  BackwardCursor next = has_work ? advance(cursor, runs, run_begin, run_end) : cursor;
  while (has_work && cursor.valid(group)) {
    cp_async_wait<0>();
    __syncthreads();
    if (next.valid(group)) load_q_step(next, stage ^ 1);
    cp_async_commit();
    const BackwardCursor after = next.valid(group) ? advance(next, runs, run_begin, run_end) : next;

    const uint32_t q_smem = smem_address(q_tiles + stage * C::kQElems);
    const uint32_t do_smem = smem_address(do_tiles + stage * C::kQElems);
    const uint32_t q_b_lane = q_smem + b_lane_offset;
    const uint32_t do_b_lane = do_smem + b_lane_offset;
    const uint32_t q_t_lane = q_smem + t_lane_offset;
    const uint32_t do_t_lane = do_smem + t_lane_offset;
    const float* lse_s = lse_tiles + stage * C::kBlockQ + warp_q0;
    const float* delta_s = delta_tiles + stage * C::kBlockQ + warp_q0;
    const int q_start = cursor.tile * C::kBlockQ;
    const int head = kv_head * group + cursor.group_head;

    // S^T = K Q^T and dP^T = V dO^T for this warp's 32 keys x kWarpQueries queries.
    float st[C::kKeyTiles][C::kQTiles][4];
    float dpt[C::kKeyTiles][C::kQTiles][4];
#pragma unroll
    for (int m = 0; m < C::kKeyTiles; ++m) {
#pragma unroll
      for (int n = 0; n < C::kQTiles; ++n) {
#pragma unroll
        for (int e = 0; e < 4; ++e) st[m][n][e] = dpt[m][n][e] = 0.f;
      }
    }
#pragma unroll
    for (int ks = 0; ks < C::kDimSteps; ++ks) {
      uint32_t a_k[C::kKeyTiles][4];
      uint32_t a_v[C::kKeyTiles][4];
#pragma unroll
      for (int m = 0; m < C::kKeyTiles; ++m) {
        ldmatrix_x4(a_k[m], (k_a_lane + m * 16 * kHeadDim * 2) ^ (32 * ks));
        ldmatrix_x4(a_v[m], (v_a_lane + m * 16 * kHeadDim * 2) ^ (32 * ks));
      }
#pragma unroll
      for (int n2 = 0; n2 < C::kQTiles / 2; ++n2) {
        const uint32_t row_offset = n2 * 16 * kHeadDim * 2;
        uint32_t b[4];
        ldmatrix_x4(b, (q_b_lane + row_offset) ^ (32 * ks));
        mma_rows_by_tile_pair<T>(st, a_k, b, n2);
        ldmatrix_x4(b, (do_b_lane + row_offset) ^ (32 * ks));
        mma_rows_by_tile_pair<T>(dpt, a_v, b, n2);
      }
    }

    if (runs[cursor.run].end_and_partial < 0) {
      const int slice_row = mask * p.work.q_tile_rows + cursor.tile;
      const DeviceSlice* row_slices = p.work.slices + p.work.slice_offsets[slice_row];
      const int count = p.work.slice_offsets[slice_row + 1] - p.work.slice_offsets[slice_row];
      // Per key (4 per thread), the queries that see it: one range per slice instead of one per query.
#pragma unroll
      for (int m = 0; m < C::kKeyTiles; ++m) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int key = k0 + warp_key0 + 16 * m + g + 8 * r;
          const uint32_t bits = visible_rows<2 * C::kQTiles>(row_slices, count, key, q_start,
                                                             q_start + C::kBlockQ, q_start + warp_q0 + 2 * t);
#pragma unroll
          for (int n = 0; n < C::kQTiles; ++n) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              if (!((bits >> (2 * n + e)) & 1u)) st[m][n][2 * r + e] = -INFINITY;
            }
          }
        }
      }
    }

    // P^T = exp(scale * S^T - lse); dS^T = P^T * (dP^T - delta), both to shared memory for dV, dK and dQ. Rows
    // without keys (lse = -inf) and rows past seqlen_q get P = 0 through an infinite lse.
#pragma unroll
    for (int n = 0; n < C::kQTiles; ++n) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int col = n * 8 + 2 * t + e;
        const float lse = lse_s[col];
        const float lse_log2 =
            (lse == -INFINITY || q_start + warp_q0 + col >= s.seqlen_q) ? INFINITY : lse * kLog2e;
        const float delta = delta_s[col];
#pragma unroll
        for (int m = 0; m < C::kKeyTiles; ++m) {
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            const float pv = fast_exp2(fmaf(st[m][n][2 * r + e], scale_log2, -lse_log2));
            st[m][n][2 * r + e] = pv;
            dpt[m][n][2 * r + e] = pv * (dpt[m][n][2 * r + e] - delta);
          }
        }
      }
    }
#pragma unroll
    for (int m = 0; m < C::kKeyTiles; ++m) {
#pragma unroll
      for (int n = 0; n < C::kQTiles; ++n) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int offset = swizzled<C::kBlockQ>(warp_key0 + 16 * m + g + 8 * r, warp_q0 + n * 8 + 2 * t);
          *reinterpret_cast<uint32_t*>(p_tile + offset) = MmaType<T>::pack(st[m][n][2 * r], st[m][n][2 * r + 1]);
          *reinterpret_cast<uint32_t*>(ds_tile + offset) = MmaType<T>::pack(dpt[m][n][2 * r], dpt[m][n][2 * r + 1]);
        }
      }
    }
    __syncthreads();

    // dV += P^T dO and dK += dS^T Q over all kBlockQ queries, this warp's half of the head dim (the softmax scale is
    // applied to dK at the end).
#pragma unroll
    for (int kk = 0; kk < C::kQuerySteps; ++kk) {
      uint32_t a_p[C::kKeyTiles][4];
      uint32_t a_ds[C::kKeyTiles][4];
#pragma unroll
      for (int m = 0; m < C::kKeyTiles; ++m) {
        ldmatrix_x4(a_p[m], (pt_a_lane + m * 16 * C::kBlockQ * 2) ^ (32 * kk));
        ldmatrix_x4(a_ds[m], (dst_a_lane + m * 16 * C::kBlockQ * 2) ^ (32 * kk));
      }
#pragma unroll
      for (int n2 = 0; n2 < C::kHalfDimTiles / 2; ++n2) {
        const uint32_t row_offset = kk * 16 * kHeadDim * 2;
        uint32_t b[4];
        ldmatrix_x4_trans(b, (do_t_lane + row_offset) ^ (32 * n2));
        mma_rows_by_tile_pair<T>(dv_acc, a_p, b, n2);
        ldmatrix_x4_trans(b, (q_t_lane + row_offset) ^ (32 * n2));
        mma_rows_by_tile_pair<T>(dk_acc, a_ds, b, n2);
      }
    }

    // dQ (kBlockQ x head_dim) += scale * dS K, accumulated in fp32 global memory with atomics: this warp's
    // kDqRowTiles x 16 queries and kDqCols columns.
    {
      float dq_acc[C::kDqRowTiles][C::kDqTiles][4];
#pragma unroll
      for (int m = 0; m < C::kDqRowTiles; ++m) {
#pragma unroll
        for (int n = 0; n < C::kDqTiles; ++n) dq_acc[m][n][0] = dq_acc[m][n][1] = dq_acc[m][n][2] = dq_acc[m][n][3] = 0.f;
      }
#pragma unroll
      for (int kk = 0; kk < C::kBlockK / 16; ++kk) {
        uint32_t a[C::kDqRowTiles][4];
#pragma unroll
        for (int m = 0; m < C::kDqRowTiles; ++m) {
          ldmatrix_x4_trans(a[m], (ds_a_lane + kk * 16 * C::kBlockQ * 2) ^ (32 * m));
        }
#pragma unroll
        for (int n2 = 0; n2 < C::kDqTiles / 2; ++n2) {
          uint32_t b[4];
          ldmatrix_x4_trans(b, (k_t_lane + kk * 16 * kHeadDim * 2) ^ (32 * n2));
          mma_rows_by_tile_pair<T>(dq_acc, a, b, n2);
        }
      }
      float* dq_head = p.dq_accum + q_batch_offset + static_cast<int64_t>(head) * kHeadDim;
#pragma unroll
      for (int m = 0; m < C::kDqRowTiles; ++m) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int q = q_start + (dq_row_group * C::kDqRowTiles + m) * 16 + half * 8 + g;
          if (q >= s.seqlen_q) continue;
          float* dq_row = dq_head + static_cast<int64_t>(q) * q_stride + dq_col_group * C::kDqCols + 2 * t;
#pragma unroll
          for (int n = 0; n < C::kDqTiles; ++n) {
            add_pair(dq_row + n * 8, dq_acc[m][n][2 * half] * s.scale, dq_acc[m][n][2 * half + 1] * s.scale);
          }
        }
      }
    }
    stage ^= 1;
    cursor = next;
    next = after;
  }
  cp_async_wait<0>();

  // Write dK (scaled) and dV, this warp's keys and half of the head dim; keys of this CTA that no query sees get
  // zeros.
#pragma unroll
  for (int m = 0; m < C::kKeyTiles; ++m) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int key = k0 + warp_key0 + 16 * m + g + 8 * r;
      if (key >= s.seqlen_k) continue;
      const int64_t row = static_cast<int64_t>(key) * kv_stride + query_half * C::kHalfDimCols + 2 * t;
      T* dk_row = static_cast<T*>(p.dk) + kv_offset + row;
      T* dv_row = static_cast<T*>(p.dv) + kv_offset + row;
#pragma unroll
      for (int n = 0; n < C::kHalfDimTiles; ++n) {
        *reinterpret_cast<uint32_t*>(dk_row + n * 8) =
            MmaType<T>::pack(dk_acc[m][n][2 * r] * s.scale, dk_acc[m][n][2 * r + 1] * s.scale);
        *reinterpret_cast<uint32_t*>(dv_row + n * 8) = MmaType<T>::pack(dv_acc[m][n][2 * r], dv_acc[m][n][2 * r + 1]);
      }
    }
  }
}

template <typename T, int kHeadDim, int kQueries>
void configure_dkdv_kernel() {
  LCAB_CUDA_CHECK(cudaFuncSetAttribute(flash_dkdv_kernel<T, kHeadDim, kQueries>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(BackwardConfig<kHeadDim, kQueries>::kSmemBytes)));
  apply_forced_smem_carveout(reinterpret_cast<const void*>(flash_dkdv_kernel<T, kHeadDim, kQueries>));
}

// Calls op.template operator()<kQueries>() for the dK/dV kernel of `block_q` queries per step at kHeadDim: every head
// dim has kNarrowBackwardQueries, head dim 64 also kWideBackwardQueries (instantiated there only); any other count
// throws.
template <int kHeadDim, typename Op>
decltype(auto) with_backward_queries(int block_q, Op&& op) {
  if constexpr (kHeadDim == 64) {
    if (block_q == kWideBackwardQueries) return op.template operator()<kWideBackwardQueries>();
  }
  LCAB_CHECK(block_q == kNarrowBackwardQueries,
             "the mma.sync backward at head dim " << kHeadDim << " has no kernel of " << block_q
                                                  << " queries per step; valid: " << kNarrowBackwardQueries
                                                  << (kHeadDim == 64 ? ", 128" : ""));
  return op.template operator()<kNarrowBackwardQueries>();
}

template <typename T, int kHeadDim>
void configure_backward_typed(int block_q) {
  with_backward_queries<kHeadDim>(block_q, []<int kQueries>() { configure_dkdv_kernel<T, kHeadDim, kQueries>(); });
}

template <typename T, int kHeadDim>
void launch_preprocess_typed(const BackwardParams& params, cudaStream_t stream) {
  const Shape& s = params.shape;
  const int64_t q_elems = static_cast<int64_t>(s.batch) * s.seqlen_q * s.heads * kHeadDim;
  if (!params.dq_accum_zeroed) {
    LCAB_CUDA_CHECK(cudaMemsetAsync(params.dq_accum, 0, static_cast<size_t>(q_elems) * sizeof(float), stream));
  }
  const int64_t delta_blocks = static_cast<int64_t>(s.batch) * s.heads * delta_q_blocks<kHeadDim>(s.seqlen_q);
  LCAB_CHECK(delta_blocks < (int64_t(1) << 31), "delta grid of " << delta_blocks << " blocks is too large");
  if (delta_blocks > 0) {
    delta_kernel<T, kHeadDim><<<static_cast<unsigned>(delta_blocks), kDeltaThreads, 0, stream>>>(params);
  }
  LCAB_CUDA_CHECK_LAUNCH();
}

template <typename T, int kHeadDim>
void launch_postprocess_typed(const BackwardParams& params, cudaStream_t stream) {
  const Shape& s = params.shape;
  const int64_t q_elems = static_cast<int64_t>(s.batch) * s.seqlen_q * s.heads * kHeadDim;
  constexpr int kConvertThreads = 256;
  const int64_t pairs = q_elems / 2;
  convert_dq_kernel<T><<<static_cast<unsigned>((pairs + kConvertThreads - 1) / kConvertThreads), kConvertThreads, 0,
                         stream>>>(params.dq_accum, static_cast<T*>(params.dq), q_elems);
  LCAB_CUDA_CHECK_LAUNCH();
}

template <typename T, int kHeadDim, int kQueries>
void launch_dkdv_kernel(const BackwardParams& params, cudaStream_t stream) {
  using C = BackwardConfig<kHeadDim, kQueries>;
  check_work_shape(params.work.shape, C::kBlockQ, C::kBlockK, "backward");
  const Shape& s = params.shape;
  const int64_t blocks = static_cast<int64_t>(params.work.outer_tiles) * s.batch * s.kv_heads;
  LCAB_CHECK(blocks < (int64_t(1) << 31), "backward grid of " << blocks << " CTAs is too large");
  if (blocks > 0) {
    flash_dkdv_kernel<T, kHeadDim, kQueries>
        <<<static_cast<unsigned>(blocks), C::kThreads, C::kSmemBytes, stream>>>(params);
    LCAB_CUDA_CHECK_LAUNCH();
  }
}

// The dK/dV kernel whose queries per step are the work list's tile rows.
template <typename T, int kHeadDim>
void launch_backward_typed(const BackwardParams& params, cudaStream_t stream) {
  launch_preprocess_typed<T, kHeadDim>(params, stream);
  with_backward_queries<kHeadDim>(params.work.shape.q, [&]<int kQueries>() {
    launch_dkdv_kernel<T, kHeadDim, kQueries>(params, stream);
  });
  launch_postprocess_typed<T, kHeadDim>(params, stream);
}

template <typename T, int kHeadDim>
struct ConfigureBackward {
  static void run(int block_q) { configure_backward_typed<T, kHeadDim>(block_q); }
};
template <typename T, int kHeadDim>
struct LaunchBackward {
  static void run(const BackwardParams& params, cudaStream_t stream) { launch_backward_typed<T, kHeadDim>(params, stream); }
};
template <typename T, int kHeadDim>
struct LaunchPreprocess {
  static void run(const BackwardParams& params, cudaStream_t stream) { launch_preprocess_typed<T, kHeadDim>(params, stream); }
};
template <typename T, int kHeadDim>
struct LaunchPostprocess {
  static void run(const BackwardParams& params, cudaStream_t stream) {
    launch_postprocess_typed<T, kHeadDim>(params, stream);
  }
};

template <int kHeadDim>
size_t backward_shared_bytes_of(int block_q) {
  return with_backward_queries<kHeadDim>(block_q,
                                         []<int kQueries>() { return BackwardConfig<kHeadDim, kQueries>::kSmemBytes; });
}

}  // namespace

void configure_backward(DType dtype, int head_dim, int block_q) { dispatch<ConfigureBackward>(dtype, head_dim, block_q); }

size_t backward_shared_bytes(int head_dim, int block_q) {
  LCAB_CHECK(head_dim == 64 || head_dim == 128, "the mma.sync backward has head dims 64 and 128, not " << head_dim);
  return head_dim == 64 ? backward_shared_bytes_of<64>(block_q) : backward_shared_bytes_of<128>(block_q);
}

void launch_backward(const BackwardParams& params, DType dtype, int head_dim, cudaStream_t stream) {
  dispatch<LaunchBackward>(dtype, head_dim, params, stream);
}

// The preprocess and the dQ conversion serve both code paths, so they take every head dim either path has.
void launch_backward_preprocess(const BackwardParams& params, DType dtype, int head_dim, cudaStream_t stream) {
  dispatch<LaunchPreprocess, FlashArch::kSm90>(dtype, head_dim, params, stream);
}

void launch_backward_postprocess(const BackwardParams& params, DType dtype, int head_dim, cudaStream_t stream) {
  dispatch<LaunchPostprocess, FlashArch::kSm90>(dtype, head_dim, params, stream);
}

}  // namespace lcab::kernels::flash
