#include "cp/tensor_ops.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

#include "kernels/cuda_check.h"

namespace lcab::cp {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float load_as_float(const void* base, ElementType type, int64_t i) {
  switch (type) {
    case ElementType::kBf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[i]);
    case ElementType::kFp16: return __half2float(static_cast<const __half*>(base)[i]);
    default: return static_cast<const float*>(base)[i];
  }
}

__device__ __forceinline__ void store_from_float(void* base, ElementType type, int64_t i, float value) {
  switch (type) {
    case ElementType::kBf16: static_cast<__nv_bfloat16*>(base)[i] = __float2bfloat16(value); break;
    case ElementType::kFp16: static_cast<__half*>(base)[i] = __float2half(value); break;
    default: static_cast<float*>(base)[i] = value; break;
  }
}

unsigned grid_for(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, 65535 * 8));
}

// One warp per (row, head): the warp reads both lse values once and walks head_dim.
__global__ void merge_kernel(MergeArgs a) {
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= a.rows * a.heads) return;
  const int64_t row = warp / a.heads;
  const int64_t head = warp % a.heads;
  float* lse_slot = a.acc_lse + head * a.acc_lse_head_stride + row;
  const float lse_old = *lse_slot;
  const float lse_part = a.partial_lse[head * a.rows + row];
  const float m = fmaxf(lse_old, lse_part);
  if (m == -INFINITY) return;  // neither side has seen a key: keep (0, -inf)
  const float w_old = lse_old == -INFINITY ? 0.f : __expf(lse_old - m);
  const float w_part = lse_part == -INFINITY ? 0.f : __expf(lse_part - m);
  const float sum = w_old + w_part;
  const float inv = 1.f / sum;
  const int64_t base = (row * a.heads + head) * a.head_dim;
  for (int64_t d = lane; d < a.head_dim; d += 32) {
    // A side with weight 0 is never read: a partial for rows with no key may hold anything.
    const float old_part = w_old > 0.f ? a.acc_out[base + d] * w_old : 0.f;
    const float new_part = w_part > 0.f ? load_as_float(a.partial_out, a.partial_type, base + d) * w_part : 0.f;
    const float merged = (old_part + new_part) * inv;
    a.acc_out[base + d] = merged;
    if (a.acc_out_mirror) store_from_float(a.acc_out_mirror, a.mirror_type, base + d, merged);
  }
  __syncwarp();
  if (lane == 0) *lse_slot = m + __logf(sum);
}

__global__ void accumulate_kernel(AccumulateArgs a) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float add = load_as_float(a.src, a.src_type, i);
    if (a.dst_fp32) {
      const float sum = a.dst_fp32[i] + add;
      a.dst_fp32[i] = sum;
      store_from_float(a.dst, a.dst_type, i, sum);
    } else {
      store_from_float(a.dst, a.dst_type, i, load_as_float(a.dst, a.dst_type, i) + add);
    }
  }
}

__global__ void fill_kernel(void* dst, ElementType type, int64_t count, float value) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    store_from_float(dst, type, i, value);
}

__global__ void convert_kernel(const void* src, ElementType src_type, void* dst, ElementType dst_type,
                               int64_t count) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    store_from_float(dst, dst_type, i, load_as_float(src, src_type, i));
}

// Copies in units of `Unit` bytes; one head of one token is units_per_head units.
// pack: dst[j][t][b] = src[t][start(j) + b]; start(j) = j * H / G.
template <class Unit>
__global__ void pack_kernel(const Unit* src, Unit* dst, int64_t group, int64_t heads, int64_t block_heads,
                            int64_t tokens, int64_t units_per_head) {
  const int64_t total = group * tokens * block_heads * units_per_head;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t u = i % units_per_head;
    int64_t rest = i / units_per_head;
    const int64_t b = rest % block_heads;
    rest /= block_heads;
    const int64_t t = rest % tokens;
    const int64_t j = rest / tokens;
    const int64_t head = j * heads / group + b;
    dst[i] = src[(t * heads + head) * units_per_head + u];
  }
}

// unpack without replicas (H == G * block_heads): dst[t][j*B + b] = src[j][t][b].
template <class Unit>
__global__ void unpack_kernel(const Unit* src, Unit* dst, int64_t group, int64_t block_heads, int64_t tokens,
                              int64_t units_per_head) {
  const int64_t heads = group * block_heads;
  const int64_t total = tokens * heads * units_per_head;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t u = i % units_per_head;
    int64_t rest = i / units_per_head;
    const int64_t h = rest % heads;
    const int64_t t = rest / heads;
    const int64_t j = h / block_heads;
    const int64_t b = h % block_heads;
    dst[i] = src[((j * tokens + t) * block_heads + b) * units_per_head + u];
  }
}

// unpack with replicas (H < G, one head per member): dst[t][h][d] = sum over j with j*H/G == h of src[j][t][d].
__global__ void unpack_sum_kernel(const void* src, void* dst, ElementType type, int64_t group, int64_t heads,
                                  int64_t tokens, int64_t head_dim) {
  const int64_t total = tokens * heads * head_dim;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t d = i % head_dim;
    const int64_t h = (i / head_dim) % heads;
    const int64_t t = i / (head_dim * heads);
    float sum = 0.f;
    for (int64_t j = 0; j < group; ++j)
      if (j * heads / group == h) sum += load_as_float(src, type, (j * tokens + t) * head_dim + d);
    store_from_float(dst, type, i, sum);
  }
}

template <class Launch>
void launch_by_unit(int64_t row_bytes, Launch&& launch) {
  if (row_bytes % 16 == 0) launch(uint4{}, row_bytes / 16);
  else if (row_bytes % 4 == 0) launch(uint32_t{}, row_bytes / 4);
  else launch(uint8_t{}, row_bytes);
}

}  // namespace

void merge_partial_attention(const MergeArgs& args, cudaStream_t stream) {
  const int64_t warps = args.rows * args.heads;
  if (warps == 0) return;
  const int64_t blocks = (warps * 32 + kThreads - 1) / kThreads;
  merge_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(args);
  LCAB_CUDA_CHECK(cudaGetLastError());
}

void accumulate(const AccumulateArgs& args, cudaStream_t stream) {
  if (args.count == 0) return;
  accumulate_kernel<<<grid_for(args.count), kThreads, 0, stream>>>(args);
  LCAB_CUDA_CHECK(cudaGetLastError());
}

void fill(void* dst, ElementType type, int64_t count, float value, cudaStream_t stream) {
  if (count == 0) return;
  if (value == 0.f) {
    LCAB_CUDA_CHECK(cudaMemsetAsync(dst, 0, static_cast<size_t>(count) * element_bytes(type), stream));
    return;
  }
  fill_kernel<<<grid_for(count), kThreads, 0, stream>>>(dst, type, count, value);
  LCAB_CUDA_CHECK(cudaGetLastError());
}

void convert(const void* src, ElementType src_type, void* dst, ElementType dst_type, int64_t count,
             cudaStream_t stream) {
  if (count == 0) return;
  convert_kernel<<<grid_for(count), kThreads, 0, stream>>>(src, src_type, dst, dst_type, count);
  LCAB_CUDA_CHECK(cudaGetLastError());
}

void pack_head_blocks(const void* src, void* dst, const HeadBlocks& blocks, int64_t tokens, int64_t head_dim,
                      int64_t element_bytes, cudaStream_t stream) {
  LCAB_CHECK(blocks.heads >= blocks.group ? blocks.heads % blocks.group == 0 : blocks.group % blocks.heads == 0,
             "all-to-all over " << blocks.group << " members needs heads (" << blocks.heads
                                << ") divisible by the group size or dividing it");
  const int64_t count = blocks.group * tokens * blocks.block_heads() * head_dim;
  if (count == 0) return;
  launch_by_unit(head_dim * element_bytes, [&](auto unit, int64_t units_per_head) {
    using Unit = decltype(unit);
    pack_kernel<Unit><<<grid_for(count * element_bytes / static_cast<int64_t>(sizeof(Unit))), kThreads, 0,
                        stream>>>(static_cast<const Unit*>(src), static_cast<Unit*>(dst), blocks.group,
                                  blocks.heads, blocks.block_heads(), tokens, units_per_head);
  });
  LCAB_CUDA_CHECK(cudaGetLastError());
}

void unpack_head_blocks(const void* src, void* dst, const HeadBlocks& blocks, int64_t tokens, int64_t head_dim,
                        ElementType type, cudaStream_t stream) {
  const int64_t count = tokens * blocks.heads * head_dim;
  if (count == 0) return;
  if (blocks.heads >= blocks.group) {
    LCAB_CHECK(blocks.heads % blocks.group == 0, "all-to-all over " << blocks.group << " members needs heads ("
                                                                    << blocks.heads << ") divisible by it");
    const int64_t bytes = element_bytes(type);
    launch_by_unit(head_dim * bytes, [&](auto unit, int64_t units_per_head) {
      using Unit = decltype(unit);
      unpack_kernel<Unit><<<grid_for(count * bytes / static_cast<int64_t>(sizeof(Unit))), kThreads, 0, stream>>>(
          static_cast<const Unit*>(src), static_cast<Unit*>(dst), blocks.group, blocks.block_heads(), tokens,
          units_per_head);
    });
  } else {
    LCAB_CHECK(blocks.group % blocks.heads == 0, "all-to-all over " << blocks.group << " members needs heads ("
                                                                    << blocks.heads << ") dividing it");
    unpack_sum_kernel<<<grid_for(count), kThreads, 0, stream>>>(src, dst, type, blocks.group, blocks.heads, tokens,
                                                                head_dim);
  }
  LCAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace lcab::cp
