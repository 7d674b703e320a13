// Memory of an attention call and of a context-parallel rank (DESIGN.md section 6): inputs, outputs and
// workspaces. Byte counts include the batch.
#pragma once

#include <cstdint>

namespace lcab::perf {

/// The shape of one attention call (what does not come from the mask).
struct AttentionShape {
  int64_t batch = 1;
  int64_t heads = 64;     ///< q heads
  int64_t kv_heads = 8;
  int64_t head_dim = 128;
  int64_t dtype_bytes = 2;
};

enum class KernelPass : uint8_t { kForward = 0, kBackward = 1 };

/// Tensors the caller owns: fwd q, k, v, out and lse (fp32); bwd also dout, dq, dk, dv.
int64_t attention_io_bytes(const AttentionShape& shape, int64_t seqlen_q, int64_t seqlen_k, KernelPass pass);
/// What the kernel allocates on top: bwd an fp32 dq accumulator and the fp32 row sums (dout . out) per head;
/// fwd nothing beyond io.
int64_t attention_workspace_bytes(const AttentionShape& shape, int64_t seqlen_q, int64_t seqlen_k, KernelPass pass);
/// io + workspace: the peak device memory of one call.
inline int64_t attention_peak_bytes(const AttentionShape& shape, int64_t seqlen_q, int64_t seqlen_k,
                                    KernelPass pass) {
  return attention_io_bytes(shape, seqlen_q, seqlen_k, pass) +
         attention_workspace_bytes(shape, seqlen_q, seqlen_k, pass);
}

}  // namespace lcab::perf
