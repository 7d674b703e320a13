// Hopper (sm_90a) building blocks of the lcab_flash Hopper path, as inline PTX: mbarriers, TMA tensor loads,
// wgmma (warpgroup matrix multiply-accumulate) with shared-memory descriptors, and register reallocation.
//
// Shared-memory operand layout. Every tile is stored as TMA writes it with CU_TENSOR_MAP_SWIZZLE_128B: 64
// 16-bit columns (128 bytes) per row, rows 128 bytes apart, the 16-byte chunk c of row r at chunk c ^ (r % 8);
// a tile wider than 64 columns is a sequence of such 64-column "panels", each rows x 128 bytes. Tiles start at
// 1024-byte boundaries so that the swizzle phase of the hardware (address bits 4-6 xor 7-9) matches TMA's.
//
// wgmma descriptors (PTX ISA "matrix descriptor"): start address, leading byte offset (LBO), stride byte offset
// (SBO), all in 16-byte units, and the swizzle mode in bits 62-63 (1 = 128B). For the layout above:
//   K-major operand (A = Q, or B = K for S = Q K^T: the reduction dim is the contiguous one):
//     8-row core groups are 1024 bytes apart (SBO); LBO is unused; a k16 step inside a panel advances the start
//     address by 32 bytes, the next panel starts rows x 128 bytes further.
//   MN-major operand (B = V for O = P V: the output dim, head_dim, is contiguous; transpose flag set):
//     8-key groups 1024 bytes apart (SBO), 64-column panels rows x 128 bytes apart (LBO); a k16 step (16 keys)
//     advances the start address by 16 x 128 bytes.
// Accumulator fragment of wgmma m64nN (f32), per thread of a warpgroup (warp w = 16-row slab, g = lane / 4,
// t = lane % 4): d[4j + 0..1] at (16w + g, 8j + 2t + 0..1), d[4j + 2..3] at (16w + g + 8, 8j + 2t + 0..1).
// A register fragment for m64nNk16 (16-bit): a0 (g, 2t..), a1 (g + 8, 2t..), a2 (g, 2t + 8..), a3 (g + 8, 2t + 8..)
// in the warp's slab, so a row-block of accumulators converts to A operands without moving data between lanes.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace lcab::kernels::sm90 {

// ---- mbarriers -------------------------------------------------------------------------------------------------

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/// Shared-memory stores and loads by 32-bit shared address. The CTA's shared memory is addressed through a pointer
/// realigned with integer arithmetic, which the compiler cannot tell is shared: plain C++ accesses through it
/// become generic ones with 64-bit addresses, two registers each where the consumers have none to spare.
__device__ __forceinline__ void st_shared_b32(uint32_t address, uint32_t value) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(address), "r"(value) : "memory");
}
__device__ __forceinline__ void st_shared_v2_f32(uint32_t address, float x, float y) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(address), "f"(x), "f"(y) : "memory");
}
__device__ __forceinline__ float2 ld_shared_v2_f32(uint32_t address) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(address) : "memory");
  return v;
}

/// A 32-bit load from shared memory, issued where it stands (volatile: never hoisted into a register that would
/// stay live across a loop; for values cheaper to re-read than to keep).
__device__ __forceinline__ int ld_shared_s32(uint32_t address) {
  int value;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(value) : "r"(address) : "memory");
  return value;
}

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(arrivals));
}

/// Makes initialized barriers visible to the async proxy (TMA) before first use.
__device__ __forceinline__ void mbar_fence_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::); }

/// One arrival that also announces `bytes` of TMA transactions the current phase must receive.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}

/// Blocks until the phase with the given parity has completed (a fresh barrier counts phase "-1", parity 1, as
/// completed, so producers wait on empty barriers with parity (use & 1) ^ 1).
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n"
      "}\n" ::"r"(smem_u32(bar)),
      "r"(parity)
      : "memory");
}

// ---- TMA ---------------------------------------------------------------------------------------------------------

/// Loads the box at coordinates (c0 innermost, ..., c3) of a 4-D tensor map into shared memory; completion is
/// signalled as transaction bytes on `bar`. Out-of-bounds elements are written as zeros (and still counted).
__device__ __forceinline__ void tma_load_4d(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, int c2,
                                            int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], "
      "[%2];\n" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

/// Stores a shared-memory box to coordinates (c0, ..., c3) of a 4-D tensor map (rows outside the tensor are
/// skipped). Part of the issuing thread's current bulk group (bulk_commit / bulk_wait_read).
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, const void* src, int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(smem_u32(src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
/// Adds (fp32) a shared-memory box into coordinates (c0, ..., c3) of a 4-D tensor map, element by element
/// (rows outside the tensor are skipped); part of the issuing thread's current bulk group.
__device__ __forceinline__ void tma_reduce_add_4d(const CUtensorMap* map, const void* src, int c0, int c1, int c2,
                                                  int c3) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(smem_u32(src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/// Waits until the issuing thread's bulk stores have finished reading shared memory.
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
/// Waits until the issuing thread's bulk stores are complete.
__device__ __forceinline__ void bulk_wait() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
/// Orders this thread's ordinary shared-memory writes before later async-proxy (TMA, wgmma) reads.
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
/// The same between the generic and the async proxy for global memory (after bulk_wait: the TMA reductions the
/// thread has completed, ordered before its later generic accesses and the releases that follow them).
__device__ __forceinline__ void fence_async_global() { asm volatile("fence.proxy.async.global;\n" ::: "memory"); }

// ---- flags between CTAs ------------------------------------------------------------------------------------------

/// A load with acquire semantics at GPU scope (pairs with add_release_gpu in another CTA).
__device__ __forceinline__ int ld_acquire_gpu(const int* address) {
  int value;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(value) : "l"(address) : "memory");
  return value;
}
/// Adds to a global counter with release semantics at GPU scope: this thread's earlier writes, and those it has
/// synchronized with (a CTA barrier before it), are visible to whoever acquires the new value.
__device__ __forceinline__ void add_release_gpu(int* address, int value) {
  asm volatile("red.release.gpu.global.add.s32 [%0], %1;\n" ::"l"(address), "r"(value) : "memory");
}

/// Adds to a global counter with no ordering of its own (relaxed, GPU scope): after a fence (__threadfence) the pair
/// is a release pattern (PTX memory model), so one fence orders this thread's earlier writes before several adds.
__device__ __forceinline__ void add_relaxed_gpu(int* address, int value) {
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], %1;\n" ::"l"(address), "r"(value) : "memory");
}

__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// ---- register reallocation and named barriers ---------------------------------------------------------------------

template <int kRegisters>
__device__ __forceinline__ void regs_increase() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void regs_decrease() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}

/// bar.sync on a named barrier (ids 1..15; 0 is __syncthreads) among `threads` threads.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- wgmma -------------------------------------------------------------------------------------------------------

/// Descriptor of a 128B-swizzled shared-memory operand (see the header comment for LBO/SBO).
__device__ __forceinline__ uint64_t make_desc(uint32_t smem_address, uint32_t leading_bytes, uint32_t stride_bytes) {
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((smem_address & 0x3FFFF) >> 4);
  desc |= static_cast<uint64_t>((leading_bytes >> 4) & 0x3FFF) << 16;
  desc |= static_cast<uint64_t>((stride_bytes >> 4) & 0x3FFF) << 32;
  desc |= static_cast<uint64_t>(1) << 62;  // 128-byte swizzle
  return desc;
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

/// Keeps the compiler from moving reads or writes of accumulator registers across an asynchronous wgmma window.
template <int N>
__device__ __forceinline__ void fence_registers(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

template <typename T>
inline constexpr bool kIsBf16 = std::is_same_v<T, __nv_bfloat16>;

// The operand lists of the wgmma instructions below, spelled out once.
#define LCAB_ACC8(a, i)                                                                                        \
  "+f"(a[i + 0]), "+f"(a[i + 1]), "+f"(a[i + 2]), "+f"(a[i + 3]), "+f"(a[i + 4]), "+f"(a[i + 5]), "+f"(a[i + 6]), \
      "+f"(a[i + 7])
#define LCAB_ACC32(a) LCAB_ACC8(a, 0), LCAB_ACC8(a, 8), LCAB_ACC8(a, 16), LCAB_ACC8(a, 24)
#define LCAB_ACC64(a) LCAB_ACC32(a), LCAB_ACC8(a, 32), LCAB_ACC8(a, 40), LCAB_ACC8(a, 48), LCAB_ACC8(a, 56)
#define LCAB_REGS32                                                                                               \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
  "%24, %25, %26, %27, %28, %29, %30, %31}"
#define LCAB_REGS64                                                                                               \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
  "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, "  \
  "%46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define LCAB_ACC16(a) LCAB_ACC8(a, 0), LCAB_ACC8(a, 8)
#define LCAB_ACC128(a)                                                                                          \
  LCAB_ACC64(a), LCAB_ACC8(a, 64), LCAB_ACC8(a, 72), LCAB_ACC8(a, 80), LCAB_ACC8(a, 88), LCAB_ACC8(a, 96),       \
      LCAB_ACC8(a, 104), LCAB_ACC8(a, 112), LCAB_ACC8(a, 120)
#define LCAB_REGS16 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define LCAB_REGS128 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
  "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, " \
  "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, " \
  "%65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, " \
  "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, " \
  "%106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, " \
  "%124, %125, %126, %127}"

/// d (64 x N, f32) (+)= A (64 x 16, shared) * B (16 x N, shared); `accumulate` false overwrites d.
/// kTransposeA: 0 = A K-major, 1 = A M-major; kTransposeB: 0 = B K-major, 1 = B N-major.
template <typename T, int N, int kTransposeA, int kTransposeB>
struct WgmmaSS;

template <typename T, int kTransposeA, int kTransposeB>
struct WgmmaSS<T, 32, kTransposeA, kTransposeB> {
  static __device__ __forceinline__ void run(float (&d)[16], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
    if constexpr (kIsBf16<T>) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 " LCAB_REGS16 ", %16, %17, p, 1, 1, %19, %20;\n}\n"
          : LCAB_ACC16(d)
          : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)), "n"(kTransposeA), "n"(kTransposeB));
    } else {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 " LCAB_REGS16 ", %16, %17, p, 1, 1, %19, %20;\n}\n"
          : LCAB_ACC16(d)
          : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)), "n"(kTransposeA), "n"(kTransposeB));
    }
  }
};

template <typename T, int kTransposeA, int kTransposeB>
struct WgmmaSS<T, 64, kTransposeA, kTransposeB> {
  static __device__ __forceinline__ void run(float (&d)[32], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
    if constexpr (kIsBf16<T>) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " LCAB_REGS32 ", %32, %33, p, 1, 1, %35, %36;\n}\n"
          : LCAB_ACC32(d)
          : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)), "n"(kTransposeA), "n"(kTransposeB));
    } else {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " LCAB_REGS32 ", %32, %33, p, 1, 1, %35, %36;\n}\n"
          : LCAB_ACC32(d)
          : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)), "n"(kTransposeA), "n"(kTransposeB));
    }
  }
};

template <typename T, int kTransposeA, int kTransposeB>
struct WgmmaSS<T, 128, kTransposeA, kTransposeB> {
  static __device__ __forceinline__ void run(float (&d)[64], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
    if constexpr (kIsBf16<T>) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " LCAB_REGS64 ", %64, %65, p, 1, 1, %67, %68;\n}\n"
          : LCAB_ACC64(d)
          : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)), "n"(kTransposeA), "n"(kTransposeB));
    } else {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " LCAB_REGS64 ", %64, %65, p, 1, 1, %67, %68;\n}\n"
          : LCAB_ACC64(d)
          : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)), "n"(kTransposeA), "n"(kTransposeB));
    }
  }
};

/// d (64 x N, f32) (+)= A (64 x 16, registers, fragment layout above) * B (16 x N, shared).
template <typename T, int N, int kTransposeB>
struct WgmmaRS;

template <typename T, int kTransposeB>
struct WgmmaRS<T, 64, kTransposeB> {
  static __device__ __forceinline__ void run(float (&d)[32], const uint32_t (&a)[4], uint64_t desc_b, bool accumulate) {
    if constexpr (kIsBf16<T>) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %38, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " LCAB_REGS32
          ", {%32, %33, %34, %35}, %36, p, 1, 1, %37;\n}\n"
          : LCAB_ACC32(d)
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(kTransposeB), "r"(static_cast<int>(accumulate)));
    } else {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %38, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " LCAB_REGS32
          ", {%32, %33, %34, %35}, %36, p, 1, 1, %37;\n}\n"
          : LCAB_ACC32(d)
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(kTransposeB), "r"(static_cast<int>(accumulate)));
    }
  }
};

template <typename T, int kTransposeB>
struct WgmmaRS<T, 128, kTransposeB> {
  static __device__ __forceinline__ void run(float (&d)[64], const uint32_t (&a)[4], uint64_t desc_b, bool accumulate) {
    if constexpr (kIsBf16<T>) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %70, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " LCAB_REGS64
          ", {%64, %65, %66, %67}, %68, p, 1, 1, %69;\n}\n"
          : LCAB_ACC64(d)
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(kTransposeB), "r"(static_cast<int>(accumulate)));
    } else {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %70, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " LCAB_REGS64
          ", {%64, %65, %66, %67}, %68, p, 1, 1, %69;\n}\n"
          : LCAB_ACC64(d)
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(kTransposeB), "r"(static_cast<int>(accumulate)));
    }
  }
};

template <typename T, int kTransposeB>
struct WgmmaRS<T, 256, kTransposeB> {
  static __device__ __forceinline__ void run(float (&d)[128], const uint32_t (&a)[4], uint64_t desc_b,
                                             bool accumulate) {
    if constexpr (kIsBf16<T>) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %134, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " LCAB_REGS128
          ", {%128, %129, %130, %131}, %132, p, 1, 1, %133;\n}\n"
          : LCAB_ACC128(d)
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(kTransposeB),
            "r"(static_cast<int>(accumulate)));
    } else {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %134, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " LCAB_REGS128
          ", {%128, %129, %130, %131}, %132, p, 1, 1, %133;\n}\n"
          : LCAB_ACC128(d)
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(kTransposeB),
            "r"(static_cast<int>(accumulate)));
    }
  }
};

#undef LCAB_ACC8
#undef LCAB_ACC32
#undef LCAB_ACC64
#undef LCAB_ACC16
#undef LCAB_ACC128
#undef LCAB_REGS16
#undef LCAB_REGS32
#undef LCAB_REGS64
#undef LCAB_REGS128

}  // namespace lcab::kernels::sm90
