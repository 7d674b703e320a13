#include "model/mask_tiling.h"

#include <gtest/gtest.h>

#include "model/rng.h"
#include "tests/model/brute_force.h"

namespace lcab {
namespace {

void expect_counts_match(const Mask& mask, TileShape shape, const std::string& what) {
  for (int h = 0; h < mask.num_head_masks(); ++h) {
    const TileCounts want = testing::dense_tile_counts(mask.dense(h), mask.slices(h), mask.seqlen(), shape);
    const MaskTiling tiling(mask.slices(h), mask.seqlen(), shape, true);
    const TileCounts& got = tiling.counts();
    EXPECT_EQ(got.touched, want.touched) << what;
    EXPECT_EQ(got.full, want.full) << what;
    EXPECT_EQ(got.partial, want.partial) << what;
    EXPECT_EQ(got.nonempty_rows, want.nonempty_rows) << what;
    EXPECT_EQ(got.max_tiles_per_row, want.max_tiles_per_row) << what;
    // runs are sorted, disjoint and add up to the row totals
    for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r) {
      int64_t total = 0, partial = 0, last_end = -1;
      for (const TileRun* run = tiling.row_begin(r); run != tiling.row_end(r); ++run) {
        EXPECT_GT(run->length(), 0) << what;
        EXPECT_GE(run->k_tile_begin, last_end) << what;
        last_end = run->k_tile_end;
        total += run->length();
        if (run->partial) partial += run->length();
      }
      EXPECT_EQ(total, tiling.row_tiles(r)) << what;
      EXPECT_EQ(partial, tiling.row_partial_tiles(r)) << what;
    }
  }
}

TEST(MaskTiling, SingleSlicesOfEveryTypeMatchBruteForce) {
  for (SliceType t : {SliceType::kFull, SliceType::kCausal, SliceType::kInvCausal, SliceType::kBiCausal}) {
    for (int64_t s : {1, 7, 64, 100, 130, 257}) {
      for (TileShape shape : {TileShape{16, 16}, TileShape{16, 8}, TileShape{32, 64}}) {
        Mask m(s, {{0, s, 0, s, t}});
        expect_counts_match(m, shape, std::string(to_string(t)) + " S=" + std::to_string(s));
      }
    }
  }
}

TEST(MaskTiling, RandomSliceListsMatchBruteForce) {
  Rng rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t s = rng.uniform_int(1, 200);
    // random non-overlapping slices on a grid of random cut points
    std::vector<int64_t> cuts{0, s};
    for (int c = 0; c < 4; ++c) cuts.push_back(rng.uniform_int(0, s + 1));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::vector<Slice> slices;
    for (size_t a = 0; a + 1 < cuts.size(); ++a)
      for (size_t b = 0; b + 1 < cuts.size(); ++b)
        if (rng.uniform01() < 0.5)
          slices.push_back({cuts[a], cuts[a + 1], cuts[b], cuts[b + 1], static_cast<SliceType>(rng.uniform_int(0, 4))});
    if (slices.empty()) continue;
    Mask m(s, slices);
    const TileShape shape{static_cast<int>(rng.uniform_int(1, 40)), static_cast<int>(rng.uniform_int(1, 40))};
    expect_counts_match(m, shape, "trial " + std::to_string(trial));
  }
}

TEST(MaskTiling, CausalClosedForm) {
  // S = 1024, 128x128 tiles: 8 rows, row r touches r+1 tiles, the diagonal one is partial.
  Mask m(1024, {{0, 1024, 0, 1024, SliceType::kCausal}});
  const TileCounts c = count_tiles(m, {128, 128});
  EXPECT_EQ(c.touched, 36);
  EXPECT_EQ(c.partial, 8);
  EXPECT_EQ(c.full, 28);
}

TEST(MaskTiling, LargeCausalIsFast) {
  const int64_t s = 1 << 20;
  Mask m(s, {{0, s, 0, s, SliceType::kCausal}});
  const TileCounts c = count_tiles(m, {128, 128});
  const int64_t rows = s / 128;
  EXPECT_EQ(c.touched, rows * (rows + 1) / 2);
  EXPECT_EQ(c.partial, rows);
}

}  // namespace
}  // namespace lcab
