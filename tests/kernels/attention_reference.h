// CPU reference attention in fp64 for the kernel tests: the definition of kernels/attention.h, computed over
// the unmasked cells only (cost proportional to the mask's area).
#pragma once

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

}  // namespace lcab::kernels::testing
