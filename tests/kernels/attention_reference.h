// CPU reference attention in fp64 for the kernel tests: the definition of kernels/attention.h, computed over
// the unmasked cells only (cost proportional to the mask's area).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/attention.h"

namespace lcab::kernels::testing {

/// Tensors in the layouts of kernels/attention.h, as doubles (inputs already rounded to the element type).
struct AttentionTensors {
  std::vector<double> q, k, v, dout;
};

struct ReferenceResult {
  std::vector<double> out, lse, dq, dk, dv;  ///< lse = -inf for rows that see no key (their out and dq are 0)
};

ReferenceResult reference_attention(const AttentionProblem& problem, const AttentionTensors& tensors);

/// The forward of one query row alone (reference_attention's out and lse for that row), for problems too large
/// for the whole reference: tests sample rows. `tensors.dout` is not read.
struct ReferenceRow {
  std::vector<double> out;  ///< head_dim values (0 for a row that sees no key)
  double lse;               ///< -inf for a row that sees no key
};
ReferenceRow reference_forward_row(const AttentionProblem& problem, const AttentionTensors& tensors, int64_t batch,
                                   int64_t head, int64_t row);

}  // namespace lcab::kernels::testing
