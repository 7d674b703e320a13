// Small device kernels the CP executor needs around the attention kernels: the fp32 (out, lse) merge of
// partial attention results, fp32 accumulation of gradients, fills and conversions, and the head/sequence
// permutations of Ulysses all-to-alls. Host launchers; every pointer is device memory, already offset to the
// first row concerned; every launch is asynchronous on the given stream.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "cp/element_type.h"

namespace lcab::cp {

/// Merge of one partial attention result into an accumulator (online softmax, in fp32):
///   m = max(lse_acc, lse_part); out_acc = (out_acc e^(lse_acc-m) + out_part e^(lse_part-m)) / (e^(lse_acc-m) +
///   e^(lse_part-m)); lse_acc = m + log(...). Rows whose lse are both -inf (no key seen yet) stay (0, -inf):
///   no NaN is ever produced.
struct MergeArgs {
  int64_t rows = 0;
  int64_t heads = 0;
  int64_t head_dim = 0;
  const void* partial_out = nullptr;  ///< [rows][heads][head_dim], partial_type
  ElementType partial_type = ElementType::kBf16;
  const float* partial_lse = nullptr;  ///< [heads][rows]
  float* acc_out = nullptr;            ///< [rows][heads][head_dim] fp32
  void* acc_out_mirror = nullptr;      ///< optional: the same values rounded to mirror_type (what is sent/read)
  ElementType mirror_type = ElementType::kBf16;
  float* acc_lse = nullptr;            ///< lse of head h, row i at acc_lse[h * acc_lse_head_stride + i]
  int64_t acc_lse_head_stride = 0;
};
void merge_partial_attention(const MergeArgs& args, cudaStream_t stream);

/// dst += src over count elements, summed in fp32. With dst_fp32 set, the sum is kept there and dst receives
/// it rounded to dst_type (an fp32 accumulator with a narrow mirror); otherwise dst itself is read and written.
struct AccumulateArgs {
  int64_t count = 0;
  const void* src = nullptr;
  ElementType src_type = ElementType::kBf16;
  float* dst_fp32 = nullptr;
  void* dst = nullptr;
  ElementType dst_type = ElementType::kFp32;
};
void accumulate(const AccumulateArgs& args, cudaStream_t stream);

/// dst[i] = value (converted to type) for count elements.
void fill(void* dst, ElementType type, int64_t count, float value, cudaStream_t stream);

/// dst[i] = src[i] converted, count elements.
void convert(const void* src, ElementType src_type, void* dst, ElementType dst_type, int64_t count,
             cudaStream_t stream);

/// Ulysses head blocks: with H heads over a group of G members, member j's block starts at head j*H/G and has
/// max(1, H/G) heads (with H < G, G/H members share one head: GQA kv heads, replicated).
struct HeadBlocks {
  int64_t group = 1;        ///< G
  int64_t heads = 1;        ///< H, the heads of the sequence-split tensor
  int64_t block_heads() const { return heads >= group ? heads / group : 1; }
};

/// Sequence-split to member-major: src [tokens][H][D] -> dst [G][tokens][block_heads][D] (dst chunk j is
/// what member j receives in a seq-to-head all-to-all).
void pack_head_blocks(const void* src, void* dst, const HeadBlocks& blocks, int64_t tokens, int64_t head_dim,
                      int64_t element_bytes, cudaStream_t stream);

/// Inverse: src [G][tokens][block_heads][D] (chunk j received from member j) -> dst [tokens][H][D]. Where
/// several members hold a replica of one head (H < G), their chunks are summed (in fp32) into it.
void unpack_head_blocks(const void* src, void* dst, const HeadBlocks& blocks, int64_t tokens, int64_t head_dim,
                        ElementType type, cudaStream_t stream);

}  // namespace lcab::cp
