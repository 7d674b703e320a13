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

}  // namespace

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
  auto q_at = [&](int64_t b, int64_t i, int64_t h) { return ((b * p.seqlen_q + i) * H + h) * D; };
  auto k_at = [&](int64_t b, int64_t j, int64_t h) { return ((b * p.seqlen_k + j) * Hk + h) * D; };
  std::vector<int64_t> keys;
  std::vector<double> probs;
  std::vector<double> dp;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      const int64_t kvh = h / group;
      const auto& slices = p.slices.size() == 1 ? p.slices[0] : p.slices[static_cast<size_t>(kvh)];
      for (int64_t i = 0; i < p.seqlen_q; ++i) {
        keys.clear();
        for (const TokenRange& range : row_ranges(slices, i)) {
          for (int64_t j = range.begin; j < range.end; ++j) keys.push_back(j);
        }
        if (keys.empty()) continue;
        const double* qi = &x.q[static_cast<size_t>(q_at(b, i, h))];
        probs.assign(keys.size(), 0.0);
        double max_s = -std::numeric_limits<double>::infinity();
        for (size_t n = 0; n < keys.size(); ++n) {
          const double* kj = &x.k[static_cast<size_t>(k_at(b, keys[n], kvh))];
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
        r.lse[static_cast<size_t>((b * H + h) * p.seqlen_q + i)] = max_s + std::log(sum);
        double* oi = &r.out[static_cast<size_t>(q_at(b, i, h))];
        for (size_t n = 0; n < keys.size(); ++n) {
          const double* vj = &x.v[static_cast<size_t>(k_at(b, keys[n], kvh))];
          for (int64_t d = 0; d < D; ++d) oi[d] += probs[n] * vj[d];
        }
        // Backward for this row: dP = dO v, delta = dO . O, dS = P (dP - delta).
        const double* doi = &x.dout[static_cast<size_t>(q_at(b, i, h))];
        double delta = 0;
        for (int64_t d = 0; d < D; ++d) delta += doi[d] * oi[d];
        double* dqi = &r.dq[static_cast<size_t>(q_at(b, i, h))];
        for (size_t n = 0; n < keys.size(); ++n) {
          const size_t kv_index = static_cast<size_t>(k_at(b, keys[n], kvh));
          const double* vj = &x.v[kv_index];
          const double* kj = &x.k[kv_index];
          double dpij = 0;
          for (int64_t d = 0; d < D; ++d) dpij += doi[d] * vj[d];
          const double ds = probs[n] * (dpij - delta);
          double* dkj = &r.dk[kv_index];
          double* dvj = &r.dv[kv_index];
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
