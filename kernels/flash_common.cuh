// Device building blocks shared by the lcab_flash kernels: tensor-core mma (m16n8k16, fp32 accumulate),
// ldmatrix, cp.async, swizzled shared-memory tiles, the element types and the in-tile mask test.
//
// Fragment layouts of mma.m16n8k16 (g = lane / 4, t = lane % 4):
//   A 16x16 (4 regs): a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..)
//   B 16x8  (2 regs): b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g)
//   C 16x8  (4 fp32): c0,c1 (g, 2t..2t+1), c2,c3 (g+8, 2t..2t+1)
// Shared tiles are row-major with rows of `cols` 16-bit elements; 16-byte chunk c of row r is stored at chunk
// c ^ (r % 8) so that the 8 rows one ldmatrix reads fall in distinct banks.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/flash_work.h"
#include "kernels/mask_bits.h"

namespace lcab::kernels::flash {

template <typename T>
struct MmaType;
template <>
struct MmaType<__nv_bfloat16> {
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  }
  static __device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
};
template <>
struct MmaType<__half> {
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  }
  static __device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
};

/// d += a * b for one m16n8k16 tile.
template <typename T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1);

template <>
__device__ __forceinline__ void mma_16816<__nv_bfloat16>(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                                         uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <>
__device__ __forceinline__ void mma_16816<__half>(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// acc[m][2 pair] += a[m] B0 and acc[m][2 pair + 1] += a[m] B1 for each of the kM A fragments, where b holds the B
/// fragments of two n8 tiles as one ldmatrix_x4 loads them (b0, b1 the first tile's, b2, b3 the second's): one
/// loaded pair of B tiles feeds every A fragment of a warp's rows.
template <typename T, int kM, int kN>
__device__ __forceinline__ void mma_rows_by_tile_pair(float (&acc)[kM][kN][4], const uint32_t (&a)[kM][4],
                                                      const uint32_t (&b)[4], int pair) {
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    mma_16816<T>(acc[m][2 * pair], a[m], b[0], b[1]);
    mma_16816<T>(acc[m][2 * pair + 1], a[m], b[2], b[3]);
  }
}

/// 2^x with the special-function unit (flushes denormals; exact for -inf -> 0).
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

/// log2(x) with the special-function unit (lg2.approx: within about 2^-22 relative; flushes denormals): the forward
/// epilogue's lse, where logf's accurate path lengthened a row's dependent chain (fwd-epilogue-approx-2026-11-24).
__device__ __forceinline__ float fast_log2(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ uint32_t smem_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

/// 16-byte asynchronous copy global -> shared; when `valid` is false the destination is zero-filled and the
/// source is not read.
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

/// Element offset of (row, col) in a swizzled tile with `kCols` columns (kCols a multiple of 64).
template <int kCols>
__device__ __forceinline__ int swizzled(int row, int col) {
  return row * kCols + ((((col >> 3) ^ (row & 7)) << 3) | (col & 7));
}

/// A lane's ldmatrix address of 16-byte chunks 2 pair and 2 pair + 1 of its row in a swizzled tile, from its
/// address `lane0` of pair 0 (every row a lane addresses has row % 8 == lane % 8). A row's chunks are XORed with
/// row % 8 within each 128-byte block (`swizzled`), and blocks follow one another: an XOR of bits 5-6 and whole
/// blocks added, lane0 ^ 32 pair where lane0's bit 7 is clear (a 256-byte-aligned row, or pair < 4). Written this
/// way, a caller that also steps over rows (multiples of 256 bytes) gets those steps and the blocks as immediate
/// offsets of one XORed register per pair % 4; XORing the summed address cost one instruction per ldmatrix.
__device__ __forceinline__ uint32_t chunk_pair_address(uint32_t lane0, int pair) {
  return (lane0 ^ (32u * static_cast<uint32_t>(pair % 4))) + 128u * static_cast<uint32_t>(pair / 4);
}

/// Loads rows [row0, row0 + kRows) of a [rows, stride] global matrix (kCols contiguous 16-bit elements per
/// row, rows `stride` elements apart) into a swizzled shared tile; rows at or past `row_limit` are zero-filled.
/// Each thread copies the same 16-byte column chunk of every kThreads / (kCols / 8)-th row: its shared address is
/// one base plus a constant per pass (the passes' rows keep their swizzle, row % 8), its global address one pointer
/// plus a stride per pass. (Each chunk's row and column computed from a chunk index kept those per-chunk values live
/// across the kernels' loops: at head dim 128 the mma.sync forward spilled them.)
template <int kRows, int kCols, int kThreads, typename T>
__device__ __forceinline__ void load_tile_async(T* tile, const T* global, int64_t stride, int row0, int row_limit) {
  constexpr int kChunksPerRow = kCols / 8;
  constexpr int kRowsPerPass = kThreads / kChunksPerRow;
  static_assert(kThreads % kChunksPerRow == 0 && kRows % kRowsPerPass == 0, "tile rows must divide over the passes");
  static_assert(kRowsPerPass % 8 == 0, "each pass keeps the swizzle's row % 8");
  const int row = static_cast<int>(threadIdx.x / kChunksPerRow);
  const int col = static_cast<int>(threadIdx.x % kChunksPerRow) * 8;
  const uint32_t dst = smem_address(tile + swizzled<kCols>(row, col));
  const T* src = global + static_cast<int64_t>(row0 + row) * stride + col;
  const int rows_left = row_limit - row0 - row;
#pragma unroll
  for (int n = 0; n < kRows / kRowsPerPass; ++n) {
    const bool valid = n * kRowsPerPass < rows_left;
    cp_async_16(dst + n * kRowsPerPass * kCols * 2, valid ? src : global, valid);
    src += kRowsPerPass * stride;
  }
}

/// Keys [lo, hi) visible to global row q through one slice (empty when q is outside the slice).
__device__ __forceinline__ void slice_row_keys(const DeviceSlice& s, int q, int& lo, int& hi) {
  if (q < s.q_begin || q >= s.q_end) {
    lo = 0;
    hi = 0;
    return;
  }
  const int i = q - s.q_begin;
  lo = (s.flags & 1) ? s.k_begin + i : s.k_begin;
  hi = (s.flags & 2) ? min(s.k_end, s.k_begin + i + s.diagonal_offset) : s.k_end;
}

/// Rows [lo, hi) (global) that see global key k through one slice: the transpose of slice_row_keys (row i sees
/// local key j iff (lo_diagonal -> i <= j) and (hi_diagonal -> j < i + diagonal_offset)).
__device__ __forceinline__ void slice_key_rows(const DeviceSlice& s, int k, int& lo, int& hi) {
  if (k < s.k_begin || k >= s.k_end) {
    lo = 0;
    hi = 0;
    return;
  }
  const int j = k - s.k_begin;
  const int rows = s.q_end - s.q_begin;
  lo = s.q_begin + ((s.flags & 2) ? max(0, j - s.diagonal_offset + 1) : 0);
  hi = s.q_begin + ((s.flags & 1) ? min(rows, j + 1) : rows);
}

/// Bit j of the result is set when row base + 8 (j / 2) + (j % 2) (j < kBits: the accumulator layout of
/// mask_bits.h) sees global key k through any of the slices whose row range meets [tile_q0, tile_q1) (the
/// transpose of visible_keys, for the backward's key-major tiles). The slices are read field by field: each one in
/// three 8-byte non-coherent loads, and the row's first offset loaded before the Hopper consumer's stage wait, measured
/// no faster on the masks that walk them (data/measurements/h200/bwd-slice-loads-2026-12-01/).
template <int kBits>
__device__ __forceinline__ uint32_t visible_rows(const DeviceSlice* slices, int count, int k, int tile_q0,
                                                 int tile_q1, int base) {
  uint32_t bits = 0;
  for (int n = 0; n < count; ++n) {
    const DeviceSlice s = slices[n];
    if (s.q_end <= tile_q0 || s.q_begin >= tile_q1) continue;
    int lo, hi;
    slice_key_rows(s, k, lo, hi);
    bits |= interval_bits<kBits>(base, lo, hi);
  }
  return bits;
}

/// Bit j of the result is set when key base + 8 (j / 2) + (j % 2) (j < kBits) is visible to global row q through
/// any of the slices [slices, slices + count); slices whose key range misses [tile_k0, tile_k1) are skipped at once.
template <int kBits>
__device__ __forceinline__ uint32_t visible_keys(const DeviceSlice* slices, int count, int q, int tile_k0,
                                                 int tile_k1, int base) {
  uint32_t bits = 0;
  for (int n = 0; n < count; ++n) {
    const DeviceSlice s = slices[n];
    if (s.k_end <= tile_k0 || s.k_begin >= tile_k1) continue;
    int lo, hi;
    slice_row_keys(s, q, lo, hi);
    bits |= interval_bits<kBits>(base, lo, hi);
  }
  return bits;
}

// A forward item's place in the item order (FlashPassWork::section_heads: batch element, then section of q heads,
// then the work list's costliest-first q-tile rows, the section's heads fastest): `linear` (the CTA's or the
// counter's index) -> q head, batch element and index into those rows.
struct ForwardItemIndex {
  int head, batch, order_index;
};
__device__ __forceinline__ ForwardItemIndex decode_forward_item(int linear, int heads, int outer_tiles,
                                                                int section_heads) {
  ForwardItemIndex it;
  const int head_in_section = linear % section_heads;
  linear /= section_heads;
  it.order_index = linear % outer_tiles;
  linear /= outer_tiles;
  const int sections = heads / section_heads;
  it.head = (linear % sections) * section_heads + head_in_section;
  it.batch = linear / sections;
  return it;
}

}  // namespace lcab::kernels::flash
