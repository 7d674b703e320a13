// One interface for every attention implementation (lcab_flash, naive, cudnn, ...) and a registry by name.
//
// Host-visible header: no CUDA types beyond the opaque stream handle, so that measure/ and cp/ can use it from
// C++ translation units. Implementations live in .cu files.
//
// Tensor layouts (all contiguous, device memory):
//   q, out, dq, dout: [batch, seqlen_q, heads,    head_dim]   dtype (bf16 or fp16)
//   k, v, dk, dv:     [batch, seqlen_k, kv_heads, head_dim]   dtype
//   lse:              [batch, heads, seqlen_q]                fp32, natural log of sum_j exp(scale * s_ij);
//                                                             -inf for rows that see no key (their out is 0)
// GQA: q head h reads kv head h / (heads / kv_heads).
// The mask is a list of slices in local coordinates of this call: rows [0, seqlen_q), keys [0, seqlen_k)
// (self-attention: seqlen_q == seqlen_k == S; a context-parallel step: a local q chunk against a k buffer).
// Either one list shared by all heads, or one list per kv head.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/mask.h"

typedef struct CUstream_st* cudaStream_t;

namespace lcab::kernels {

enum class DType { kBf16, kFp16 };
std::string to_string(DType dtype);
/// "bf16" | "fp16"; throws lcab::Error listing the valid names.
DType parse_dtype(const std::string& name);
inline int64_t dtype_bytes(DType) { return 2; }

enum class Pass { kForward, kBackward };

/// What one call computes.
struct AttentionProblem {
  int64_t batch = 1;
  int64_t heads = 64;     ///< q heads
  int64_t kv_heads = 8;   ///< heads % kv_heads == 0
  int64_t head_dim = 128;
  DType dtype = DType::kBf16;
  int64_t seqlen_q = 0;
  int64_t seqlen_k = 0;
  /// One list shared by all heads (size 1) or one per kv head (size kv_heads); local coordinates.
  std::vector<std::vector<Slice>> slices;
  float softmax_scale = 0;  ///< 0 means 1/sqrt(head_dim)

  float scale() const;
  /// Unmasked (q, k) pairs summed over q heads and batch: FLOPs fwd = 4 * pairs * head_dim.
  double unmasked_pairs() const;
  double forward_flops() const { return 4.0 * unmasked_pairs() * static_cast<double>(head_dim); }
  double backward_flops() const { return 2.5 * forward_flops(); }
  /// Validates shapes and slices (throws lcab::Error naming what is wrong).
  void validate() const;
};

/// A self-attention problem from a Mask (seqlen_q = seqlen_k = S).
AttentionProblem make_problem(const Mask& mask, int64_t batch, int64_t heads, int64_t kv_heads, int64_t head_dim,
                              DType dtype);

struct ForwardArgs {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* out = nullptr;
  float* lse = nullptr;
  cudaStream_t stream = nullptr;
};

struct BackwardArgs {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* out = nullptr;
  const void* dout = nullptr;
  const float* lse = nullptr;
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  cudaStream_t stream = nullptr;
};

/// Whether an implementation can run a problem; reason says why not ("unsupported" status in records).
struct Support {
  bool supported = true;
  std::string reason;
  static Support yes() { return {}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
};

/// Thrown by prepare()/forward()/backward() when device memory runs out; callers record status "oom".
class OutOfMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A prepared attention call: work lists and workspaces built for one problem. Not thread-safe.
class AttentionPlan {
 public:
  virtual ~AttentionPlan() = default;
  /// Device bytes this plan holds (work lists, workspaces) beyond the caller's tensors.
  virtual int64_t workspace_bytes() const = 0;
  virtual void forward(const ForwardArgs& args) = 0;
  virtual void backward(const BackwardArgs& args) = 0;
};

class AttentionImpl {
 public:
  virtual ~AttentionImpl() = default;
  virtual std::string name() const = 0;
  /// One line: what it is (shown by `lcab-measure kernel --list`).
  virtual std::string description() const = 0;
  /// Checked before prepare(); never throws for an unsupported problem.
  virtual Support supports(const AttentionProblem& problem, Pass pass) const = 0;
  /// Builds work lists / workspaces on the device. Host work here is not timed by measurements.
  virtual std::unique_ptr<AttentionPlan> prepare(const AttentionProblem& problem) const = 0;
};

class AttentionRegistry {
 public:
  void add(std::unique_ptr<AttentionImpl> impl);
  /// Throws lcab::Error listing valid names when unknown.
  const AttentionImpl& find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<AttentionImpl>> impls_;
};

/// Registers every built-in implementation (lcab_flash, naive, and cudnn where the build found cuDNN 9).
void register_all(AttentionRegistry& registry);

}  // namespace lcab::kernels
