// lcab_flash forward: FlashAttention-2-style, one CTA per (q-tile row, q head, batch), 4 warps of 32 rows each, in
// the work list's item order (kv-head sections whose K and V stay in L2: FlashPassWork::section_heads).
// The CTA walks its row's runs of k tiles from the host work list: full tiles run no masking code, partial
// tiles are masked against the slices intersecting the row. One K and one V buffer (cp.async), loaded in turn: a
// tile's V under its S = Q K^T and softmax, the next tile's K under its O += P V. At head dim 128 that is 64 KiB of
// shared memory per CTA, so that two CTAs fit on an SM of an A100 (164 KiB), where K and V double-buffered (96 KiB)
// left one (FlashAttention-2 loads them so too).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "kernels/cuda_check.h"
#include "kernels/flash_common.cuh"
#include "kernels/flash_dispatch.cuh"
#include "kernels/flash_kernels.h"
#include "kernels/flash_tiles.h"
#include "kernels/mma_sync_fit.h"

namespace lcab::kernels::flash {
namespace {

constexpr float kLog2e = 1.4426950408889634f;

template <int kHeadDim>
struct ForwardConfig {
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kBlockQ = 128;
  static constexpr int kBlockK = 64;
  static constexpr int kMTiles = kBlockQ / (16 * kWarps);  // m16 tiles per warp
  static constexpr int kSTiles = kBlockK / 8;              // n8 tiles of S per m tile
  static constexpr int kOTiles = kHeadDim / 8;             // n8 tiles of O per m tile
  static constexpr int kQkSteps = kHeadDim / 16;
  static constexpr int kPvSteps = kBlockK / 16;
  static constexpr int kTileElems = kBlockK * kHeadDim;
  static constexpr size_t kSmemBytes = (kBlockQ * kHeadDim + 2 * kTileElems) * 2;  // Q, one K and one V tile
};

// Walks the runs of one outer tile: (run index, inner tile).
struct RunCursor {
  int run;
  int run_end;
  int tile;
  __device__ bool valid() const { return run < run_end; }
  __device__ static RunCursor start(const DeviceRun* runs, int begin, int end) {
    return {begin, end, begin < end ? runs[begin].begin : 0};
  }
  __device__ bool partial(const DeviceRun* runs) const { return runs[run].end_and_partial < 0; }
  __device__ RunCursor next(const DeviceRun* runs) const {
    RunCursor c = *this;
    ++c.tile;
    if (c.tile >= (runs[c.run].end_and_partial & 0x7fffffff)) {
      ++c.run;
      if (c.run < c.run_end) c.tile = runs[c.run].begin;
    }
    return c;
  }
};

template <typename T, int kHeadDim>
__global__ void __launch_bounds__(ForwardConfig<kHeadDim>::kThreads, 2)
    flash_forward_kernel(const ForwardParams p) {
  using C = ForwardConfig<kHeadDim>;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* q_tile = reinterpret_cast<T*>(smem_raw);
  T* k_tile = q_tile + C::kBlockQ * kHeadDim;
  T* v_tile = k_tile + C::kTileElems;

  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int g = lane / 4;
  const int t = lane % 4;

  const Shape& s = p.shape;
  const ForwardItemIndex index =
      decode_forward_item(static_cast<int>(blockIdx.x), s.heads, p.work.outer_tiles, p.work.section_heads);
  const int head = index.head;
  const int batch = index.batch;
  const int order_index = index.order_index;
  const int kv_head = head / (s.heads / s.kv_heads);
  const int mask = p.work.num_masks == 1 ? 0 : kv_head;
  const int q_tile_index = p.work.outer_order[mask * p.work.outer_tiles + order_index];
  const int q0 = q_tile_index * C::kBlockQ;
  const int outer = mask * p.work.outer_tiles + q_tile_index;
  const int slice_row = mask * p.work.q_tile_rows + q_tile_index;

  const int64_t q_stride = static_cast<int64_t>(s.heads) * kHeadDim;
  const int64_t kv_stride = static_cast<int64_t>(s.kv_heads) * kHeadDim;
  const T* q_base = static_cast<const T*>(p.q) + (static_cast<int64_t>(batch) * s.seqlen_q * s.heads + head) * kHeadDim;
  const T* k_base =
      static_cast<const T*>(p.k) + (static_cast<int64_t>(batch) * s.seqlen_k * s.kv_heads + kv_head) * kHeadDim;
  const T* v_base =
      static_cast<const T*>(p.v) + (static_cast<int64_t>(batch) * s.seqlen_k * s.kv_heads + kv_head) * kHeadDim;

  float o_acc[C::kMTiles][C::kOTiles][4];
  float row_max[C::kMTiles][2];
  float row_sum[C::kMTiles][2];
#pragma unroll
  for (int mi = 0; mi < C::kMTiles; ++mi) {
#pragma unroll
    for (int n = 0; n < C::kOTiles; ++n) o_acc[mi][n][0] = o_acc[mi][n][1] = o_acc[mi][n][2] = o_acc[mi][n][3] = 0.f;
    row_max[mi][0] = row_max[mi][1] = -INFINITY;
    row_sum[mi][0] = row_sum[mi][1] = 0.f;
  }

  const DeviceRun* runs = p.work.runs;
  RunCursor cursor = RunCursor::start(runs, p.work.run_offsets[outer], p.work.run_offsets[outer + 1]);
  const float scale_log2 = s.scale * kLog2e;

  if (cursor.valid()) {
    load_tile_async<C::kBlockQ, kHeadDim, C::kThreads>(q_tile, q_base, q_stride, q0, s.seqlen_q);
    load_tile_async<C::kBlockK, kHeadDim, C::kThreads>(k_tile, k_base, kv_stride, cursor.tile * C::kBlockK,
                                                       s.seqlen_k);
    cp_async_commit();
  }
  // Per-lane ldmatrix addresses of chunk pair 0 (chunk_pair_address steps along the row).
  const int swz = lane & 7;
  uint32_t q_lane[C::kMTiles];
#pragma unroll
  for (int mi = 0; mi < C::kMTiles; ++mi) {
    const int row = warp * 16 * C::kMTiles + mi * 16 + (lane % 16);
    q_lane[mi] = smem_address(q_tile) + 2 * (row * kHeadDim + (((lane / 16) ^ swz) << 3));
  }
  const uint32_t k_lane =
      smem_address(k_tile) + 2 * (((lane % 8) + 8 * (lane / 16)) * kHeadDim + ((((lane / 8) % 2) ^ swz) << 3));
  const uint32_t v_lane =
      smem_address(v_tile) + 2 * (((lane % 8) + 8 * ((lane / 8) % 2)) * kHeadDim + (((lane / 16) ^ swz) << 3));
  while (cursor.valid()) {
    const int k0 = cursor.tile * C::kBlockK;
    // K of this tile has landed, and every warp is done with the previous tile's V: load this tile's V under S.
    // (Loading the first tile's V with Q and its K instead measured +0.6% to +1.1% per cycle at hd 128 and -0.9% to
    // -1.8% at hd 64 on an H200: data/measurements/h200/sm80-forward-single-buffer-2026-12-03/.)
    cp_async_wait<0>();
    __syncthreads();
    load_tile_async<C::kBlockK, kHeadDim, C::kThreads>(v_tile, v_base, kv_stride, k0, s.seqlen_k);
    cp_async_commit();

    // S = Q K^T for this warp's rows.
    float s_acc[C::kMTiles][C::kSTiles][4];
#pragma unroll
    for (int mi = 0; mi < C::kMTiles; ++mi)
#pragma unroll
      for (int n = 0; n < C::kSTiles; ++n) s_acc[mi][n][0] = s_acc[mi][n][1] = s_acc[mi][n][2] = s_acc[mi][n][3] = 0.f;
#pragma unroll
    for (int ks = 0; ks < C::kQkSteps; ++ks) {
      uint32_t a[C::kMTiles][4];
#pragma unroll
      for (int mi = 0; mi < C::kMTiles; ++mi) ldmatrix_x4(a[mi], chunk_pair_address(q_lane[mi], ks));
#pragma unroll
      for (int n2 = 0; n2 < C::kSTiles / 2; ++n2) {
        uint32_t b[4];
        ldmatrix_x4(b, chunk_pair_address(k_lane, ks) + n2 * 16 * kHeadDim * 2);
        mma_rows_by_tile_pair<T>(s_acc, a, b, n2);
      }
    }

    if (cursor.partial(runs)) {
      // Looked up here, not kept live across the loop: registers are the scarce resource of this kernel.
      const DeviceSlice* row_slices = p.work.slices + p.work.slice_offsets[slice_row];
      const int row_slice_count = p.work.slice_offsets[slice_row + 1] - p.work.slice_offsets[slice_row];
#pragma unroll
      for (int mi = 0; mi < C::kMTiles; ++mi) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int q = q0 + warp * 16 * C::kMTiles + mi * 16 + half * 8 + g;
          const uint32_t bits = visible_keys<2 * C::kSTiles>(
              row_slices, row_slice_count, q, k0, k0 + C::kBlockK, k0 + 2 * t);
#pragma unroll
          for (int n = 0; n < C::kSTiles; ++n) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              if (!((bits >> (2 * n + e)) & 1u)) s_acc[mi][n][2 * half + e] = -INFINITY;
            }
          }
        }
      }
    }

    // Online softmax (base 2, scale folded in), then O = O * correction + P V.
#pragma unroll
    for (int mi = 0; mi < C::kMTiles; ++mi) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        float tile_max = -INFINITY;
#pragma unroll
        for (int n = 0; n < C::kSTiles; ++n) {
          tile_max = fmaxf(tile_max, fmaxf(s_acc[mi][n][2 * half], s_acc[mi][n][2 * half + 1]));
        }
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
        const float new_max = fmaxf(row_max[mi][half], tile_max);
        const float max_scaled = new_max == -INFINITY ? 0.f : new_max * scale_log2;
        const float correction = fast_exp2(row_max[mi][half] * scale_log2 - max_scaled);
        row_max[mi][half] = new_max;
        float tile_sum = 0.f;
#pragma unroll
        for (int n = 0; n < C::kSTiles; ++n) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float pv = fast_exp2(fmaf(s_acc[mi][n][2 * half + e], scale_log2, -max_scaled));
            s_acc[mi][n][2 * half + e] = pv;
            tile_sum += pv;
          }
        }
        row_sum[mi][half] = row_sum[mi][half] * correction + tile_sum;
#pragma unroll
        for (int n = 0; n < C::kOTiles; ++n) {
          o_acc[mi][n][2 * half] *= correction;
          o_acc[mi][n][2 * half + 1] *= correction;
        }
      }
    }

    // P in the element type, as A fragments of P V (half the registers of S, which dies here).
    uint32_t p_frag[C::kPvSteps][C::kMTiles][4];
#pragma unroll
    for (int kk = 0; kk < C::kPvSteps; ++kk) {
#pragma unroll
      for (int mi = 0; mi < C::kMTiles; ++mi) {
        p_frag[kk][mi][0] = MmaType<T>::pack(s_acc[mi][2 * kk][0], s_acc[mi][2 * kk][1]);
        p_frag[kk][mi][1] = MmaType<T>::pack(s_acc[mi][2 * kk][2], s_acc[mi][2 * kk][3]);
        p_frag[kk][mi][2] = MmaType<T>::pack(s_acc[mi][2 * kk + 1][0], s_acc[mi][2 * kk + 1][1]);
        p_frag[kk][mi][3] = MmaType<T>::pack(s_acc[mi][2 * kk + 1][2], s_acc[mi][2 * kk + 1][3]);
      }
    }

    // V has landed and every warp is done with K: load the next tile's K under P V. (Issued before the softmax,
    // with S's 64 floats still live, its addresses spilled the loop at head dim 128.)
    const RunCursor next = cursor.next(runs);
    cp_async_wait<0>();
    __syncthreads();
    if (next.valid()) {
      load_tile_async<C::kBlockK, kHeadDim, C::kThreads>(k_tile, k_base, kv_stride, next.tile * C::kBlockK,
                                                         s.seqlen_k);
      cp_async_commit();
    }

#pragma unroll
    for (int kk = 0; kk < C::kPvSteps; ++kk) {
#pragma unroll
      for (int n2 = 0; n2 < C::kOTiles / 2; ++n2) {
        uint32_t b[4];
        ldmatrix_x4_trans(b, chunk_pair_address(v_lane, n2) + kk * 16 * kHeadDim * 2);
        mma_rows_by_tile_pair<T>(o_acc, p_frag[kk], b, n2);
      }
    }
    cursor = next;
  }

  // Epilogue: normalize, write out (0 for rows that saw no key) and lse (natural log; -inf for such rows).
  T* out_base = static_cast<T*>(p.out) + (static_cast<int64_t>(batch) * s.seqlen_q * s.heads + head) * kHeadDim;
  float* lse_base = p.lse + (static_cast<int64_t>(batch) * s.heads + head) * s.seqlen_q;
#pragma unroll
  for (int mi = 0; mi < C::kMTiles; ++mi) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float sum = row_sum[mi][half];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      const int q = q0 + warp * 16 * C::kMTiles + mi * 16 + half * 8 + g;
      if (q >= s.seqlen_q) continue;
      const float inv = sum > 0.f ? 1.f / sum : 0.f;
      T* out_row = out_base + static_cast<int64_t>(q) * q_stride;
#pragma unroll
      for (int n = 0; n < C::kOTiles; ++n) {
        *reinterpret_cast<uint32_t*>(out_row + n * 8 + 2 * t) =
            MmaType<T>::pack(o_acc[mi][n][2 * half] * inv, o_acc[mi][n][2 * half + 1] * inv);
      }
      if (t == 0) lse_base[q] = sum > 0.f ? row_max[mi][half] * s.scale + logf(sum) : -INFINITY;
    }
  }
}

template <typename T, int kHeadDim>
void configure_forward_typed() {
  LCAB_CUDA_CHECK(cudaFuncSetAttribute(flash_forward_kernel<T, kHeadDim>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(ForwardConfig<kHeadDim>::kSmemBytes)));
  apply_forced_smem_carveout(reinterpret_cast<const void*>(flash_forward_kernel<T, kHeadDim>));
}

template <typename T, int kHeadDim>
void launch_forward_typed(const ForwardParams& params, cudaStream_t stream) {
  using C = ForwardConfig<kHeadDim>;
  check_work_shape(params.work.shape, C::kBlockQ, C::kBlockK, "forward");
  const int64_t blocks = static_cast<int64_t>(params.work.outer_tiles) * params.shape.batch * params.shape.heads;
  LCAB_CHECK(blocks < (int64_t(1) << 31), "forward grid of " << blocks << " CTAs is too large");
  if (blocks == 0) return;
  flash_forward_kernel<T, kHeadDim>
      <<<static_cast<unsigned>(blocks), C::kThreads, C::kSmemBytes, stream>>>(params);
  LCAB_CUDA_CHECK_LAUNCH();
}

template <typename T, int kHeadDim>
struct ConfigureForward {
  static void run() { configure_forward_typed<T, kHeadDim>(); }
};
template <typename T, int kHeadDim>
struct LaunchForward {
  static void run(const ForwardParams& params, cudaStream_t stream) { launch_forward_typed<T, kHeadDim>(params, stream); }
};

}  // namespace

void configure_forward(DType dtype, int head_dim) { dispatch<ConfigureForward>(dtype, head_dim); }

size_t forward_shared_bytes(int head_dim) {
  LCAB_CHECK(head_dim == 64 || head_dim == 128, "the mma.sync forward has head dims 64 and 128, not " << head_dim);
  return head_dim == 64 ? ForwardConfig<64>::kSmemBytes : ForwardConfig<128>::kSmemBytes;
}

void launch_forward(const ForwardParams& params, DType dtype, int head_dim, cudaStream_t stream) {
  dispatch<LaunchForward>(dtype, head_dim, params, stream);
}

}  // namespace lcab::kernels::flash
