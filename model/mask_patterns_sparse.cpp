// Block-sparse patterns: per kv head and q block, the top-k of random scores over the k blocks. O(q blocks x
// k blocks) per head (a scan of kept flags per q block), one FULL slice per run of adjacent kept blocks.
#include <algorithm>
#include <bit>
#include <cmath>

#include "model/error.h"
#include "model/mask_patterns_internal.h"

namespace lcab::mask_patterns {

std::vector<int64_t> uniform_block_bounds(int64_t seqlen, int64_t block) {
  LCAB_CHECK(seqlen >= 1 && block >= 1, "blocks need S >= 1 and block >= 1, got S = " << seqlen << ", block = "
                                                                                       << block);
  std::vector<int64_t> bounds;
  bounds.reserve(static_cast<size_t>((seqlen + block - 1) / block + 1));
  for (int64_t b = 0; b < seqlen; b += block) bounds.push_back(b);
  bounds.push_back(seqlen);
  return bounds;
}

std::vector<int64_t> random_block_bounds(int64_t seqlen, int64_t min_block, int64_t avg_block, Rng& rng) {
  LCAB_CHECK(seqlen >= 1 && min_block >= 1 && avg_block >= min_block,
             "random blocks need S >= 1 and avg_block >= min_block >= 1, got S = "
                 << seqlen << ", min_block = " << min_block << ", avg_block = " << avg_block);
  std::vector<int64_t> bounds{0};
  for (int64_t filled = 0; filled < seqlen;) {
    int64_t len = rng.uniform_int(min_block, 2 * avg_block - min_block + 1);
    const int64_t remaining = seqlen - filled;
    if (remaining - len < min_block) len = remaining;  // a short remainder joins this block
    filled += len;
    bounds.push_back(filled);
  }
  return bounds;
}

int64_t top_k_count(double density, int64_t num_k_blocks) {
  LCAB_CHECK(density > 0.0 && density <= 1.0, "block density must lie in (0, 1], got " << density);
  const int64_t k = std::llround(density * static_cast<double>(num_k_blocks));
  return std::clamp<int64_t>(k, 1, num_k_blocks);
}

std::vector<Slice> top_k_block_slices(const std::vector<int64_t>& q_bounds, const std::vector<int64_t>& k_bounds,
                                      double density, Rng& rng) {
  LCAB_CHECK(q_bounds.size() >= 2 && k_bounds.size() >= 2, "block bounds need at least one block per axis");
  const size_t num_q_blocks = q_bounds.size() - 1;
  const size_t num_k_blocks = k_bounds.size() - 1;
  const size_t keep = static_cast<size_t>(top_k_count(density, static_cast<int64_t>(num_k_blocks)));
  // The top-k of independent random scores is a uniformly random k-subset of the k blocks; it is drawn directly
  // with Floyd's algorithm (k draws, no scores to select from), which keeps 128K-token masks fast.
  // Kept flags as bits (runs found a word at a time: 8192 k blocks per q block at 1M tokens).
  const size_t words = (num_k_blocks + 63) / 64;
  std::vector<uint64_t> kept(words, 0);
  const auto is_kept = [&](size_t b) { return (kept[b >> 6] >> (b & 63)) & 1; };
  std::vector<Slice> slices;
  // Expected runs per q block: each kept block starts a run unless its left neighbour is kept too.
  slices.reserve(num_q_blocks * (keep * (num_k_blocks - keep + 1) / num_k_blocks + 1));
  for (size_t qb = 0; qb < num_q_blocks; ++qb) {
    for (size_t j = num_k_blocks - keep; j < num_k_blocks; ++j) {
      const size_t pick = static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(j) + 1));
      const size_t at = is_kept(pick) ? j : pick;
      kept[at >> 6] |= uint64_t{1} << (at & 63);
    }
    // Runs of adjacent kept blocks become one FULL slice, in order; the flags are cleared for the next q block.
    // A run starts at the next set bit and ends at the next clear one (bits past the last block are clear).
    for (size_t w = 0; w < words;) {
      const uint64_t set = kept[w];
      if (set == 0) {
        ++w;
        continue;
      }
      const size_t run_begin = w * 64 + static_cast<size_t>(std::countr_zero(set));
      size_t v = w;
      uint64_t clear = ~kept[v] & (~uint64_t{0} << (run_begin & 63));
      while (clear == 0 && v + 1 < words) clear = ~kept[++v];
      const size_t run_end =  // no clear bit: the run reaches the last block
          clear == 0 ? num_k_blocks : std::min(num_k_blocks, v * 64 + static_cast<size_t>(std::countr_zero(clear)));
      slices.push_back({q_bounds[qb], q_bounds[qb + 1], k_bounds[run_begin], k_bounds[run_end], SliceType::kFull});
      // Clear the run's bits and go on from its end.
      for (size_t x = w; x < v; ++x) kept[x] = 0;
      kept[v] &= run_end - v * 64 >= 64 ? 0 : ~uint64_t{0} << (run_end - v * 64);
      w = v;
    }
  }
  return slices;
}

Mask make_block_sparse(const MaskArgs& args) {
  const int64_t block = args.get_int("block");
  LCAB_CHECK(block == 64 || block == 128, "mask '" << args.spec_text() << "': block=" << block
                                                   << " is invalid; valid: 64, 128");
  const double density = fraction_param(args, "density");
  const std::vector<int64_t> bounds = uniform_block_bounds(args.seqlen(), block);
  Rng rng(args.seed());
  std::vector<std::vector<Slice>> heads;
  for (int64_t h = 0; h < args.kv_heads(); ++h) heads.push_back(top_k_block_slices(bounds, bounds, density, rng));
  return Mask::per_kv_head(args.seqlen(), std::move(heads), mask_info(args));
}

Mask make_variable_block_sparse(const MaskArgs& args) {
  constexpr int64_t kMinBlock = 128;
  const int64_t avg_block = int_param_at_least(args, "avg_block", kMinBlock);
  const double density = fraction_param(args, "density");
  Rng rng(args.seed());
  std::vector<std::vector<Slice>> heads;
  for (int64_t h = 0; h < args.kv_heads(); ++h) {
    const std::vector<int64_t> q_bounds = random_block_bounds(args.seqlen(), kMinBlock, avg_block, rng);
    const std::vector<int64_t> k_bounds = random_block_bounds(args.seqlen(), kMinBlock, avg_block, rng);
    heads.push_back(top_k_block_slices(q_bounds, k_bounds, density, rng));
  }
  return Mask::per_kv_head(args.seqlen(), std::move(heads), mask_info(args));
}

}  // namespace lcab::mask_patterns
