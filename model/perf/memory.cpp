#include "model/perf/memory.h"

namespace lcab::perf {

int64_t attention_io_bytes(const AttentionShape& s, int64_t seqlen_q, int64_t seqlen_k, KernelPass pass) {
  const int64_t q_bytes = s.batch * seqlen_q * s.heads * s.head_dim * s.dtype_bytes;  // q, out, dout, dq
  const int64_t kv_bytes = s.batch * seqlen_k * s.kv_heads * s.head_dim * s.dtype_bytes;  // k, v, dk, dv each
  const int64_t lse_bytes = s.batch * s.heads * seqlen_q * 4;
  if (pass == KernelPass::kForward) return 2 * q_bytes + 2 * kv_bytes + lse_bytes;
  return 4 * q_bytes + 4 * kv_bytes + lse_bytes;
}

int64_t attention_workspace_bytes(const AttentionShape& s, int64_t seqlen_q, int64_t, KernelPass pass) {
  if (pass == KernelPass::kForward) return 0;
  const int64_t dq_accum = s.batch * seqlen_q * s.heads * s.head_dim * 4;
  const int64_t row_sums = s.batch * s.heads * seqlen_q * 4;
  return dq_accum + row_sums;
}

}  // namespace lcab::perf
