// cuDNN fused attention (SDPA) graphs built with the cuDNN backend API, one per pass.
//
// The operation graph is the one cudnn-frontend's SDPA node expands to, which cuDNN's fused flash-attention
// engines recognise (cuDNN 9):
//   forward:  S = Q K^T (fp32) -> S * scale -> [padding mask] -> [band mask] -> max, sub, exp, sum -> stats =
//             max + log(sum) (natural log) -> P = exp / sum (element type) -> O = P V
//   backward: softmax_sum = rowsum(dO * O); S = scale Q K^T -> [padding mask] -> S - stats -> [padding mask] ->
//             [band mask] -> P = exp; dV = P^T dO; dS = P (dO V^T - softmax_sum) * scale; dK = dS^T Q;
//             dQ = dS K into an fp32 accumulator (a device tensor the caller provides), converted to dQ.
// Masks are pointwise subgraphs: GEN_INDEX of row and column, compares, BINARY_SELECT of a very negative value.
// A band is cuDNN's right bound (key j <= i + offset + right) and left bound (j > i + offset - left), see
// model/cudnn_mask.h. Documents are a ragged batch: Q/K/V/O/dO/dQ/dK/dV carry ragged offsets (element offsets
// of each sequence), per-sequence lengths drive the padding mask and the matmul size overrides, and stats
// (and softmax_sum) are ragged too, laid out token-major [tokens, heads].
//
// Layouts (lcab's, kernels/attention.h): q/out/dq/dout [batch, s_q, heads, d], k/v/dk/dv [batch, s_k, kv_heads, d];
// stats [batch, heads, s_q] unless ragged. GQA is native (K/V with kv_heads heads broadcast over the group;
// dK/dV summed over it).
#pragma once

#include <cudnn.h>

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/attention.h"
#include "model/cudnn_mask.h"

namespace lcab::kernels {

/// Device tensors a graph reads or writes, bound by pointer at execution.
enum class CudnnTensor : int {
  kQ,
  kK,
  kV,
  kO,
  kStats,
  kDO,
  kDQ,
  kDK,
  kDV,
  kSoftmaxSum,     ///< backward: fp32 [b, h, s_q] (or ragged [tokens, h]) scratch
  kDQAccumulator,  ///< backward: fp32 dQ accumulator shaped as dQ (BHSD when not ragged)
  kSeqLenQ,        ///< int32 [b]: ragged only
  kSeqLenKV,       ///< int32 [b]
  kQOffsets,       ///< int32/int64 [b + 1]: element offsets of each sequence in Q/O/dO/dQ
  kKVOffsets,      ///< element offsets in K/V/dK/dV
  kStatsOffsets,   ///< element offsets in stats and softmax_sum
  kDKFullHeads,    ///< backward, ragged GQA: per-q-head dK before the group sum, packed [tokens, heads, d]
  kDVFullHeads,    ///< the same for dV
  kCount
};

/// What one graph computes. batch counts cuDNN's sequences (lcab batch x documents when ragged).
struct CudnnSdpaShape {
  int64_t batch = 1;
  int64_t heads = 1;
  int64_t kv_heads = 1;
  int64_t head_dim = 128;
  int64_t seqlen_q = 0;  ///< the longest sequence when ragged
  int64_t seqlen_k = 0;
  DType dtype = DType::kBf16;
  float scale = 1;
  std::optional<int64_t> left_bound;
  std::optional<int64_t> right_bound;
  int64_t diagonal_offset = 0;  ///< seqlen_k - seqlen_q for a bottom-right aligned band (never with ragged)
  bool ragged = false;
  bool offsets_int64 = false;  ///< ragged offsets as int64 (element offsets past 2^31)

  /// A string that identifies the graph (cache key).
  std::string key(Pass pass) const;
};

/// An owned cuDNN backend descriptor list, destroyed in reverse creation order.
class CudnnDescriptors {
 public:
  CudnnDescriptors() = default;
  ~CudnnDescriptors();
  CudnnDescriptors(const CudnnDescriptors&) = delete;
  CudnnDescriptors& operator=(const CudnnDescriptors&) = delete;
  cudnnBackendDescriptor_t create(cudnnBackendDescriptorType_t type);

 private:
  std::vector<cudnnBackendDescriptor_t> owned_;
};

/// One finalized execution plan for a pass, with the uids of its device tensors and by-value scalars.
class CudnnSdpaGraph {
 public:
  /// Builds the operation graph and the first execution plan that cuDNN's heuristics offer and that finalizes.
  /// Throws CudnnNotSupported when no engine takes the graph, lcab::Error on other failures.
  static std::unique_ptr<CudnnSdpaGraph> build(cudnnHandle_t handle, const CudnnSdpaShape& shape, Pass pass);

  int64_t workspace_bytes() const { return workspace_bytes_; }
  /// Whether the graph reads or writes device tensor t.
  bool uses(CudnnTensor t) const { return uids_[static_cast<size_t>(t)] != 0; }
  /// The engine cuDNN chose (its global index), for diagnostics.
  int64_t engine_index() const { return engine_index_; }
  /// Enqueues the plan on the handle's stream. pointers[t] is the device address of tensor t (unused entries are
  /// ignored); workspace holds workspace_bytes().
  void execute(cudnnHandle_t handle, const std::array<void*, static_cast<size_t>(CudnnTensor::kCount)>& pointers,
               void* workspace) const;

 private:
  CudnnSdpaGraph() = default;
  friend class CudnnGraphBuilder;

  CudnnDescriptors descriptors_;
  cudnnBackendDescriptor_t plan_ = nullptr;
  int64_t workspace_bytes_ = 0;
  int64_t engine_index_ = -1;
  std::array<int64_t, static_cast<size_t>(CudnnTensor::kCount)> uids_{};  ///< 0: not in this graph
  std::deque<std::array<unsigned char, 8>> scalar_values_;  ///< by-value scalars (stable addresses)
  std::vector<int64_t> scalar_uids_;
};

}  // namespace lcab::kernels
