#include "attention_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lcab::kernels::testing {
namespace {

// Key ranges visible to row q through the slice list (one range per slice containing the row).
std::vector<TokenRange> row_ranges(const std::vector<Slice>& slices, int64_t q) {
  std::vector<TokenRange> ranges;
  for (const Slice& s : slices) {
    const TokenRange r = s.keys_of_row(q);
    if (!r.empty()) ranges.push_back(r);
  }
  return ranges;
}

size_t q_index(const AttentionProblem& p, int64_t b, int64_t i, int64_t h) {
  return static_cast<size_t>(((b * p.seqlen_q + i) * p.heads + h) * p.head_dim);
}
size_t kv_index(const AttentionProblem& p, int64_t b, int64_t j, int64_t kvh) {
  return static_cast<size_t>(((b * p.seqlen_k + j) * p.kv_heads + kvh) * p.head_dim);
}

// The keys row i of q head h sees, in slice order.
void row_keys(const AttentionProblem& p, int64_t h, int64_t i, std::vector<int64_t>& keys) {
  const int64_t kvh = h / (p.heads / p.kv_heads);
  const auto& slices = p.slices.size() == 1 ? p.slices[0] : p.slices[static_cast<size_t>(kvh)];
  keys.clear();
  for (const TokenRange& range : row_ranges(slices, i)) {
    for (int64_t j = range.begin; j < range.end; ++j) keys.push_back(j);
  }
}

// The forward of one row over its (non-empty) keys: `probs` becomes softmax(scale q k^T), `out_row` (head_dim
// values, zero on entry) P V; returns the lse.
double forward_row(const AttentionProblem& p, const AttentionTensors& x, int64_t b, int64_t h, int64_t i,
                   const std::vector<int64_t>& keys, std::vector<double>& probs, double* out_row) {
  const int64_t D = p.head_dim;
  const int64_t kvh = h / (p.heads / p.kv_heads);
  const double scale = p.scale();
  const double* qi = &x.q[q_index(p, b, i, h)];
  probs.assign(keys.size(), 0.0);
  double max_s = -std::numeric_limits<double>::infinity();
  for (size_t n = 0; n < keys.size(); ++n) {
    const double* kj = &x.k[kv_index(p, b, keys[n], kvh)];
    double dot = 0;
    for (int64_t d = 0; d < D; ++d) dot += qi[d] * kj[d];
    probs[n] = scale * dot;
    max_s = std::max(max_s, probs[n]);
  }
  double sum = 0;
  for (double& s : probs) {
    s = std::exp(s - max_s);
    sum += s;
  }
  for (double& s : probs) s /= sum;
  for (size_t n = 0; n < keys.size(); ++n) {
    const double* vj = &x.v[kv_index(p, b, keys[n], kvh)];
    for (int64_t d = 0; d < D; ++d) out_row[d] += probs[n] * vj[d];
  }
  return max_s + std::log(sum);
}

}  // namespace

ReferenceRow reference_forward_row(const AttentionProblem& p, const AttentionTensors& x, int64_t batch, int64_t head,
                                   int64_t row) {
  std::vector<int64_t> keys;
  row_keys(p, head, row, keys);
  ReferenceRow r{std::vector<double>(static_cast<size_t>(p.head_dim), 0.0), -std::numeric_limits<double>::infinity()};
  if (keys.empty()) return r;
  std::vector<double> probs;
  r.lse = forward_row(p, x, batch, head, row, keys, probs, r.out.data());
  return r;
}

ReferenceResult reference_attention(const AttentionProblem& p, const AttentionTensors& x) {
  const int64_t D = p.head_dim;
  const int64_t H = p.heads;
  const int64_t Hk = p.kv_heads;
  const int64_t group = H / Hk;
  const double scale = p.scale();
  ReferenceResult r;
  r.out.assign(x.q.size(), 0.0);
  r.dq.assign(x.q.size(), 0.0);
  r.dk.assign(x.k.size(), 0.0);
  r.dv.assign(x.v.size(), 0.0);
  r.lse.assign(static_cast<size_t>(p.batch * H * p.seqlen_q), -std::numeric_limits<double>::infinity());
  std::vector<int64_t> keys;
  std::vector<double> probs;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      const int64_t kvh = h / group;
      for (int64_t i = 0; i < p.seqlen_q; ++i) {
        row_keys(p, h, i, keys);
        if (keys.empty()) continue;
        const double* qi = &x.q[q_index(p, b, i, h)];
        double* oi = &r.out[q_index(p, b, i, h)];
        r.lse[static_cast<size_t>((b * H + h) * p.seqlen_q + i)] = forward_row(p, x, b, h, i, keys, probs, oi);
        // Backward for this row: dP = dO v, delta = dO . O, dS = P (dP - delta).
        const double* doi = &x.dout[q_index(p, b, i, h)];
        double delta = 0;
        for (int64_t d = 0; d < D; ++d) delta += doi[d] * oi[d];
        double* dqi = &r.dq[q_index(p, b, i, h)];
        for (size_t n = 0; n < keys.size(); ++n) {
          const size_t kj_index = kv_index(p, b, keys[n], kvh);
          const double* vj = &x.v[kj_index];
          const double* kj = &x.k[kj_index];
          double dpij = 0;
          for (int64_t d = 0; d < D; ++d) dpij += doi[d] * vj[d];
          const double ds = probs[n] * (dpij - delta);
          double* dkj = &r.dk[kj_index];
          double* dvj = &r.dv[kj_index];
          for (int64_t d = 0; d < D; ++d) {
            dqi[d] += scale * ds * kj[d];
            dkj[d] += scale * ds * qi[d];
            dvj[d] += probs[n] * doi[d];
          }
        }
      }
    }
  }
  return r;
}

}  // namespace lcab::kernels::testing
