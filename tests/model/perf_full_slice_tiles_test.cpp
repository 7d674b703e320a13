// FULL-slice lists counted by q bands (model/perf/full_slice_tiles.h) against MaskTiling and cost(): the counts
// are MaskTiling's per row and per column, and cost_from_tiles on them equals cost() on the slices bit for bit, for
// the built-in lcab_flash forward (q-row items, longest first) and backward (k-column items per kv head, grid
// costliest first) and for variants of them (a grid forward, no slice_us), on variable-block-sparse masks, their
// CP-like parts (lists cut to windows with odd bounds), documents and random FULL slices with overlapping q bands.
#include <random>

#include <gtest/gtest.h>

#include "model/mask_spec.h"
#include "model/mask_tiling.h"
#include "model/perf/full_slice_tiles.h"

namespace lcab::perf {
namespace {

const HardwareProfile& h100() { return builtin_profile("h100_sxm"); }
KernelParams params_of(const std::string& pass) { return h100().kernel("lcab_flash", pass, 128, "bf16"); }
/// The same with idle key halves charged apart (KernelParams::idle_half_tile_us), at a cost no other tile has.
KernelParams with_idle_halves(KernelParams p) {
  p.idle_half_tile_us = Sourced{0.77 * p.full_tile_us.value, "test"};
  return p;
}

void expect_same_cost(const KernelCost& a, const KernelCost& b, const std::string& what) {
  EXPECT_EQ(a.time_us, b.time_us) << what;
  EXPECT_EQ(a.flops, b.flops) << what;
  EXPECT_EQ(a.pairs, b.pairs) << what;
  EXPECT_EQ(a.full_tiles, b.full_tiles) << what;
  EXPECT_EQ(a.partial_tiles, b.partial_tiles) << what;
  EXPECT_EQ(a.idle_half_tiles, b.idle_half_tiles) << what;
  EXPECT_EQ(a.work_items, b.work_items) << what;
  EXPECT_EQ(a.slots.makespan_us, b.slots.makespan_us) << what;
  EXPECT_EQ(a.slots.busy_total_us, b.slots.busy_total_us) << what;
  EXPECT_EQ(a.peak_mem_bytes, b.peak_mem_bytes) << what;
}

// The slices of `list` inside rows [q0, q1) x keys [k0, k1), shifted to the window's origin (as a CP item's).
std::vector<Slice> window(const std::vector<Slice>& list, int64_t q0, int64_t q1, int64_t k0, int64_t k1) {
  std::vector<Slice> out;
  for (const Slice& s : list) {
    const int64_t a = std::max(q0, s.q_begin), b = std::min(q1, s.q_end);
    const int64_t c = std::max(k0, s.k_begin), d = std::min(k1, s.k_end);
    if (a < b && c < d) out.push_back({a - q0, b - q0, c - k0, d - k0, SliceType::kFull});
  }
  return out;
}

// Random FULL slices: bands of rows with disjoint key runs, bands overlapping other bands' rows on disjoint keys.
std::vector<Slice> random_full_slices(std::mt19937_64& rng, int64_t sq, int64_t sk) {
  std::vector<Slice> out;
  int64_t k_cursor = 0;
  std::uniform_int_distribution<int64_t> len(1, 300);
  while (k_cursor < sk) {
    // a column stripe of keys [k_cursor, k_end) split among bands of rows, each a random q range
    const int64_t k_end = std::min(sk, k_cursor + len(rng));
    int64_t q = std::uniform_int_distribution<int64_t>(0, sq / 2)(rng);
    while (q < sq) {
      const int64_t q_end = std::min(sq, q + len(rng));
      if (rng() % 2) out.push_back({q, q_end, k_cursor, k_end, SliceType::kFull});
      q = q_end + static_cast<int64_t>(rng() % 3) * 64;
    }
    k_cursor = k_end + static_cast<int64_t>(rng() % 200);
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

TEST(PerfFullSliceTiles, CountsEqualMaskTiling) {
  std::mt19937_64 rng(7);
  FullSliceTiler tiler;
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t sq = 64 + static_cast<int64_t>(rng() % 3000), sk = 64 + static_cast<int64_t>(rng() % 3000);
    const std::vector<Slice> list = random_full_slices(rng, sq, sk);
    for (const char* pass : {"fwd", "bwd"}) {
      const KernelCostModel model(h100(), params_of(pass));
      const TileShape tile = model.params().tile;
      OuterTileCounts counts;
      tiler.count(list, sq, sk, model, counts);
      const MaskTiling tiling(list, sq, sk, tile);
      double area = 0;
      for (const Slice& s : list) area += static_cast<double>(s.area());
      EXPECT_EQ(counts.area, area);
      if (model.params().work_item == KernelWorkItem::kQRowPerHead) {
        ASSERT_EQ(static_cast<int64_t>(counts.tiles.size()), tiling.num_q_tile_rows());
        for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r) {
          ASSERT_EQ(counts.tiles[static_cast<size_t>(r)], tiling.row_tiles(r)) << "trial " << trial << " row " << r;
          ASSERT_EQ(counts.partial[static_cast<size_t>(r)], tiling.row_partial_tiles(r)) << "trial " << trial;
        }
      } else {
        const int64_t columns = (sk + tile.k - 1) / tile.k;
        std::vector<int64_t> touched(static_cast<size_t>(columns), 0), partial(static_cast<size_t>(columns), 0);
        for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r)
          for (const TileRun* run = tiling.row_begin(r); run != tiling.row_end(r); ++run)
            for (int64_t c = run->k_tile_begin; c < run->k_tile_end; ++c) {
              ++touched[static_cast<size_t>(c)];
              if (run->partial) ++partial[static_cast<size_t>(c)];
            }
        ASSERT_EQ(counts.tiles, touched) << "trial " << trial;
        ASSERT_EQ(counts.partial, partial) << "trial " << trial;
      }
    }
  }
}

TEST(PerfFullSliceTiles, CostFromCountsEqualsCostOfSlices) {
  std::vector<KernelParams> variants = {params_of("fwd"), params_of("bwd")};
  KernelParams grid_fwd = params_of("fwd");
  grid_fwd.scheduler = KernelScheduler::kGridWaves;
  variants.push_back(grid_fwd);
  KernelParams no_slice_us = params_of("bwd");
  no_slice_us.slice_us.reset();
  variants.push_back(no_slice_us);
  KernelParams per_head_columns = params_of("bwd");
  per_head_columns.work_item = KernelWorkItem::kKColumnPerHead;
  variants.push_back(per_head_columns);
  KernelParams paired = params_of("bwd");  // needs each column's first and last q tile (FirstPainter over the bands)
  paired.scheduler = KernelScheduler::kGridPairedDocuments;
  variants.push_back(paired);
  // Idle key halves: counted from the bands of half the k tile, per column and per row.
  variants.push_back(with_idle_halves(params_of("bwd")));
  variants.push_back(with_idle_halves(params_of("fwd")));
  variants.push_back(with_idle_halves(paired));
  // Tiles off powers of two: the tiler divides by a tile side with a shift only when it is one.
  KernelParams odd_bwd = with_idle_halves(params_of("bwd"));
  odd_bwd.tile.q = 80;
  odd_bwd.tile.k = 96;
  variants.push_back(odd_bwd);
  KernelParams odd_fwd = with_idle_halves(params_of("fwd"));
  odd_fwd.tile.q = 112;
  odd_fwd.tile.k = 48;
  variants.push_back(odd_fwd);

  FullSliceTiler tiler;
  std::mt19937_64 rng(11);
  int compared = 0;
  const Mask vbs = make_mask("variable_block_sparse:density=0.3,seed=3", 32768, 4);
  const Mask docs = make_mask("full_document:seed=2", 16384);
  for (const KernelParams& p : variants) {
    const KernelCostModel model(h100(), p);
    const auto check = [&](const std::vector<std::vector<Slice>>& lists, int64_t sq, int64_t sk, int64_t kv_heads,
                           const std::string& what) {
      const AttentionShape shape{1, 4 * kv_heads, kv_heads, 128, 2};
      const std::optional<KernelCost> counted = tiler.cost(model, lists, sq, sk, shape);
      ASSERT_TRUE(counted) << what;
      expect_same_cost(model.cost(lists, sq, sk, shape), *counted, what + " " + p.pass);
      ++compared;
    };
    std::vector<std::vector<Slice>> whole;
    for (int h = 0; h < vbs.num_head_masks(); ++h) whole.push_back(vbs.slices(h));
    check(whole, vbs.seqlen(), vbs.seqlen(), 4, "variable_block_sparse");
    check({docs.slices(0)}, docs.seqlen(), docs.seqlen(), 1, "full_document");
    for (int trial = 0; trial < 20; ++trial) {
      // a CP-like item: a window with bounds off the tiles
      const int64_t q0 = static_cast<int64_t>(rng() % 20000), k0 = static_cast<int64_t>(rng() % 20000);
      const int64_t q1 = q0 + 1 + static_cast<int64_t>(rng() % 9000), k1 = k0 + 1 + static_cast<int64_t>(rng() % 9000);
      std::vector<std::vector<Slice>> parts;
      bool any = false;
      for (int h = 0; h < vbs.num_head_masks(); ++h) {
        parts.push_back(window(vbs.slices(h), q0, q1, k0, k1));
        any = any || !parts.back().empty();
      }
      if (any) check(parts, q1 - q0, k1 - k0, 4, "window " + std::to_string(trial));
      const int64_t sq = 64 + static_cast<int64_t>(rng() % 4000), sk = 64 + static_cast<int64_t>(rng() % 4000);
      std::vector<Slice> random = random_full_slices(rng, sq, sk);
      if (!random.empty()) check({random}, sq, sk, 1, "random " + std::to_string(trial));
    }
  }
  EXPECT_GT(compared, 150);
}

// Both passes counted in one call (bands shared when the k tiles agree, made again when they do not) give each
// pass's count() exactly, list by list; a null model leaves its output alone.
TEST(PerfFullSliceTiles, BothModelsInOneCallEqualEachAlone) {
  KernelParams wide_k = params_of("bwd");
  wide_k.tile.k = 64;
  const KernelCostModel fwd(h100(), params_of("fwd")), bwd(h100(), params_of("bwd")), bwd_k64(h100(), wide_k);
  // Idle halves make bands of half the k tile after the model's own: the next model's bands are made again.
  const KernelCostModel bwd_idle(h100(), with_idle_halves(params_of("bwd")));
  ASSERT_EQ(fwd.params().tile.k, bwd.params().tile.k);
  const Mask vbs = make_mask("variable_block_sparse:density=0.3,seed=5", 32768, 4);
  std::mt19937_64 rng(21);
  int compared = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const int64_t q0 = static_cast<int64_t>(rng() % 20000), k0 = static_cast<int64_t>(rng() % 20000);
    const int64_t q1 = q0 + 1 + static_cast<int64_t>(rng() % 9000), k1 = k0 + 1 + static_cast<int64_t>(rng() % 9000);
    std::vector<std::vector<Slice>> parts;
    for (int h = 0; h < vbs.num_head_masks(); ++h) parts.push_back(window(vbs.slices(h), q0, q1, k0, k1));
    for (const std::array<const KernelCostModel*, 2>& models : std::vector<std::array<const KernelCostModel*, 2>>{
             {&fwd, &bwd}, {&fwd, &bwd_k64}, {nullptr, &bwd}, {&fwd, nullptr}, {&bwd_idle, &bwd},
             {&fwd, &bwd_idle}}) {
      FullSliceTiler together, alone;
      std::array<std::vector<OuterTileCounts>, 2> both;
      together.count(parts, q1 - q0, k1 - k0, models, both);
      for (int m = 0; m < 2; ++m) {
        if (!models[m]) {
          EXPECT_TRUE(both[m].empty());
          continue;
        }
        std::vector<OuterTileCounts> each;
        alone.count(parts, q1 - q0, k1 - k0, *models[m], each);
        ASSERT_EQ(both[m].size(), each.size());
        for (size_t n = 0; n < each.size(); ++n) {
          EXPECT_EQ(both[m][n].tiles, each[n].tiles) << trial << " model " << m << " list " << n;
          EXPECT_EQ(both[m][n].partial, each[n].partial) << trial;
          EXPECT_EQ(both[m][n].partial_slices, each[n].partial_slices) << trial;
          EXPECT_EQ(both[m][n].idle_half, each[n].idle_half) << trial;
          EXPECT_EQ(both[m][n].area, each[n].area) << trial;
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 400);
}

TEST(PerfFullSliceTiles, DeclinesWhatCountsCannotCost) {
  FullSliceTiler tiler;
  const KernelCostModel fwd(h100(), params_of("fwd"));
  const AttentionShape shape{1, 4, 1, 128, 2};
  const std::vector<std::vector<Slice>> causal{{{0, 256, 0, 256, SliceType::kCausal}}};
  EXPECT_FALSE(tiler.cost(fwd, causal, 256, 256, shape));
  KernelParams band = params_of("bwd");
  band.whole_sequence_band = true;
  const std::vector<std::vector<Slice>> full{{{0, 256, 0, 200, SliceType::kFull}}};
  EXPECT_FALSE(tiler.cost(KernelCostModel(h100(), band), full, 256, 256, shape));
  EXPECT_TRUE(tiler.cost(fwd, full, 256, 256, shape));
}

}  // namespace
}  // namespace lcab::perf
