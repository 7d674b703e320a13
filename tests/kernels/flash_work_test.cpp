// Host-side tests of the interface helpers and of lcab_flash's work lists (no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "kernels/attention.h"
#include "kernels/flash_tiles.h"
#include "kernels/flash_work.h"
#include "model/error.h"
#include "model/mask_spec.h"
#include "model/perf/backward_pairs.h"
#include "model/perf/backward_tail.h"
#include "model/perf/kernel_cost.h"

namespace lcab::kernels {
namespace {

constexpr int32_t kEndMask = kRunEndMask;

TEST(AttentionInterface, ParsesDtypesAndRejectsUnknownOnes) {
  EXPECT_EQ(parse_dtype("bf16"), DType::kBf16);
  EXPECT_EQ(parse_dtype("fp16"), DType::kFp16);
  EXPECT_EQ(to_string(parse_dtype("fp16")), "fp16");
  EXPECT_THROW(parse_dtype("fp32"), Error);
}

TEST(AttentionInterface, UnmaskedPairsCountAreaTimesQHeadsTimesBatch) {
  const Mask mask = make_mask("causal", 1000);
  const AttentionProblem p = make_problem(mask, 2, 8, 2, 128, DType::kBf16);
  EXPECT_DOUBLE_EQ(p.unmasked_pairs(), 2.0 * 8.0 * static_cast<double>(mask.area()));
  EXPECT_DOUBLE_EQ(p.forward_flops(), 4.0 * p.unmasked_pairs() * 128);
}

TEST(AttentionInterface, PerKvHeadAreasAreSummedPerGroup) {
  AttentionProblem p;
  p.heads = 4;
  p.kv_heads = 2;
  p.seqlen_q = p.seqlen_k = 10;
  p.slices = {{{0, 10, 0, 10, SliceType::kFull}}, {{0, 10, 0, 10, SliceType::kCausal}}};
  EXPECT_DOUBLE_EQ(p.unmasked_pairs(), 2.0 * 100 + 2.0 * 55);
}

TEST(AttentionInterface, ValidateRejectsBadShapes) {
  AttentionProblem p;
  p.heads = 6;
  p.kv_heads = 4;
  p.seqlen_q = p.seqlen_k = 10;
  p.slices = {{{0, 10, 0, 10, SliceType::kFull}}};
  EXPECT_THROW(p.validate(), Error);
  p.heads = 8;
  EXPECT_NO_THROW(p.validate());
  p.slices = {{{0, 11, 0, 10, SliceType::kFull}}};
  EXPECT_THROW(p.validate(), Error);
}

TEST(AttentionRegistry, FindsByNameAndListsValidNamesOnError) {
  AttentionRegistry registry;
  register_all(registry);
  const auto names = registry.names();
  EXPECT_NE(std::find(names.begin(), names.end(), "lcab_flash"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "naive"), names.end());
  EXPECT_EQ(registry.find("naive").name(), "naive");
  try {
    registry.find("nope");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lcab_flash"), std::string::npos);
  }
}

TEST(AttentionRegistry, FlashReportsUnsupportedHeadDimInsteadOfThrowing) {
  AttentionRegistry registry;
  register_all(registry);
  AttentionProblem p = make_problem(make_mask("causal", 256), 1, 8, 8, 96, DType::kBf16);
  const Support s = registry.find("lcab_flash").supports(p, Pass::kForward);
  EXPECT_FALSE(s.supported);
  EXPECT_NE(s.reason.find("96"), std::string::npos);
  // Head dim 256 has Hopper kernels only: the mma.sync-only registration never runs it.
  p = make_problem(make_mask("causal", 256), 1, 8, 8, 256, DType::kBf16);
  const Support mma_sync = registry.find("lcab_flash_sm80").supports(p, Pass::kForward);
  EXPECT_FALSE(mma_sync.supported);
  EXPECT_NE(mma_sync.reason.find("Hopper"), std::string::npos);
}

TEST(FlashTiles, HeadDim256HasItsOwnHopperTilesAndNoMmaSyncKernel) {
  EXPECT_TRUE(flash_supports_head_dim(256, FlashArch::kSm90));
  EXPECT_FALSE(flash_supports_head_dim(256, FlashArch::kMmaSync));
  EXPECT_FALSE(flash_supports_head_dim(96, FlashArch::kSm90));
  const auto shape = [](int64_t head_dim, Pass pass) {
    const TileShape t = flash_tile_shape(head_dim, DType::kBf16, pass, FlashArch::kSm90);
    return std::make_pair(t.q, t.k);
  };
  EXPECT_EQ(shape(256, Pass::kForward), std::make_pair(128, 64));
  EXPECT_EQ(shape(256, Pass::kBackward), std::make_pair(64, 64));
  EXPECT_EQ(shape(128, Pass::kForward), std::make_pair(128, 128));
  EXPECT_EQ(shape(128, Pass::kBackward), std::make_pair(64, 128));
}

// Every tile the forward list visits, expanded, per mask: (q tile, k tile) -> partial.
std::set<std::tuple<int, int, int, bool>> expand(const FlashPassWork& w, bool transposed) {
  std::set<std::tuple<int, int, int, bool>> tiles;
  for (int m = 0; m < w.num_masks; ++m) {
    for (int outer = 0; outer < w.outer_tiles; ++outer) {
      const int base = m * w.outer_tiles + outer;
      for (int r = w.run_offsets[base]; r < w.run_offsets[base + 1]; ++r) {
        const DeviceRun run = w.runs[r];
        for (int inner = run.begin; inner < (run.end_and_partial & kEndMask); ++inner) {
          const bool partial = run.end_and_partial < 0;
          tiles.insert(transposed ? std::make_tuple(m, inner, outer, partial) : std::make_tuple(m, outer, inner, partial));
        }
      }
    }
  }
  return tiles;
}

TEST(FlashWork, ForwardListMatchesTheTilingAndOrdersRowsCostliestFirst) {
  for (const char* spec : {"full", "causal", "causal_document", "sliding_window_causal:window=300"}) {
    const Mask mask = make_mask(spec, 3000);
    const AttentionProblem p = make_problem(mask, 1, 8, 2, 128, DType::kBf16);
    const TileShape shape = flash_tile_shape(128, DType::kBf16, Pass::kForward);
    const FlashPassWork w = build_forward_work(p, shape);
    const TileCounts counts = count_tiles(mask, shape);
    const auto tiles = expand(w, false);
    EXPECT_EQ(static_cast<int64_t>(tiles.size()), counts.touched) << spec;
    EXPECT_EQ(w.touched_tiles, counts.touched) << spec;
    int64_t partial = 0;
    for (const auto& t : tiles) partial += std::get<3>(t) ? 1 : 0;
    EXPECT_EQ(partial, counts.partial) << spec;
    // Order: a permutation of the rows with non-increasing tile counts.
    std::vector<int32_t> order = w.outer_order;
    ASSERT_EQ(static_cast<int32_t>(order.size()), w.outer_tiles);
    double previous = std::numeric_limits<double>::infinity();
    for (int32_t row : order) {
      double cost = 0;  // the builder's cost: partial tiles weigh 1.25
      for (int r = w.run_offsets[row]; r < w.run_offsets[row + 1]; ++r) {
        const int tiles = (w.runs[r].end_and_partial & kEndMask) - w.runs[r].begin;
        cost += tiles * (w.runs[r].end_and_partial < 0 ? 1.25 : 1.0);
      }
      EXPECT_LE(cost, previous) << spec;
      previous = cost;
    }
    std::sort(order.begin(), order.end());
    for (int32_t n = 0; n < w.outer_tiles; ++n) EXPECT_EQ(order[n], n);
  }
}

TEST(FlashWork, BackwardListIsTheTransposeOfTheSameTiling) {
  for (const char* spec : {"causal", "causal_document", "block_causal_document", "share_question"}) {
    const Mask mask = make_mask(spec, 2500);
    const AttentionProblem p = make_problem(mask, 1, 8, 2, 64, DType::kFp16);
    const TileShape shape = flash_tile_shape(64, DType::kFp16, Pass::kBackward);
    const FlashPassWork backward = build_backward_work(p, shape, 132);
    // Build the forward list with the backward tile shape and compare the expanded tile sets.
    const FlashPassWork forward = build_forward_work(p, shape);
    EXPECT_EQ(expand(backward, true), expand(forward, false)) << spec;
    EXPECT_EQ(backward.outer_tiles, (2500 + shape.k - 1) / shape.k);
  }
}

TEST(FlashWork, BackwardMarksTheKeyHalvesNoQueryOfAPartialTileSees) {
  // The Hopper backward's idle halves (DeviceRun, kIdleHalfShift), which the list takes from MaskTiling's
  // with_idle_halves: against the dense mask, a partial tile's half is marked exactly when none of the q tile's
  // queries sees one of its 64 keys; the tiles are the unmarked list's. Lengths off the tiles' grid, windows with
  // edges inside a half, bidirectional windows, prefixes, and lists per kv head.
  const TileShape shape = flash_tile_shape(128, DType::kBf16, Pass::kBackward);  // 64 q x 128 k
  for (const char* spec : {"causal", "sliding_window_causal:window=300", "causal_document", "block_causal_document",
                           "sliding_window:window=200", "share_question", "prefix_lm_document", "prefix_lm_causal",
                           "global_sliding_window", "causal_blockwise", "variable_block_sparse",
                           "block_sparse:block=64"}) {
    constexpr int64_t kSeq = 2500;
    const Mask mask = make_mask(spec, kSeq, 2);
    const AttentionProblem p = make_problem(mask, 1, 8, 2, 128, DType::kBf16);
    const FlashPassWork plain = build_backward_work(p, shape, 132);
    const FlashPassWork marked = build_backward_work(p, shape, 132, true, BackwardMasking::kSlices, true);
    EXPECT_EQ(expand(marked, true), expand(plain, true)) << spec;
    int marked_halves = 0;
    for (int32_t m = 0; m < marked.num_masks; ++m) {
      const std::vector<uint8_t> dense = mask.dense(m);
      auto sees = [&](int64_t q_tile, int64_t k0) {
        for (int64_t q = q_tile * 64; q < std::min(q_tile * 64 + 64, kSeq); ++q) {
          for (int64_t k = k0; k < std::min(k0 + 64, kSeq); ++k) {
            if (dense[static_cast<size_t>(q * kSeq + k)]) return true;
          }
        }
        return false;
      };
      for (int32_t c = 0; c < marked.outer_tiles; ++c) {
        const int32_t outer = m * marked.outer_tiles + c;
        for (int32_t n = marked.run_offsets[outer]; n < marked.run_offsets[outer + 1]; ++n) {
          const DeviceRun& run = marked.runs[static_cast<size_t>(n)];
          const int idle = (run.end_and_partial >> kIdleHalfShift) & 3;
          if (run.end_and_partial >= 0) {
            EXPECT_EQ(idle, 0) << spec << " full run of k tile " << c;
            continue;
          }
          for (int32_t q_tile = run.begin; q_tile < (run.end_and_partial & kRunEndMask); ++q_tile) {
            for (int h = 0; h < 2; ++h) {
              EXPECT_EQ((idle >> h) & 1, sees(q_tile, 128 * c + 64 * h) ? 0 : 1)
                  << spec << " mask " << m << " k tile " << c << " q tile " << q_tile << " half " << h;
            }
          }
          if (idle != 0) {
            EXPECT_EQ((run.end_and_partial & kRunEndMask) - run.begin, 1) << spec << " a marked run is one tile";
            marked_halves += (idle & 1) + (idle >> 1);
          }
        }
      }
    }
    // At least the diagonal tiles' upper halves (block_causal_document's blocks of whole tiles have none).
    if (std::string(spec) != "block_causal_document") {
      EXPECT_GT(marked_halves, 0) << spec;
    }
  }
  // Run masks (hd 64 on the Hopper path, whose run-mask kernel takes them): per visit (one or two slices of a
  // tile); a half is idle in every visit of its tile exactly when the dense mask shows it nothing, and no full run
  // is marked.
  const TileShape shape64 = flash_tile_shape(64, DType::kBf16, Pass::kBackward, FlashArch::kSm90);
  ASSERT_EQ(shape64.q, 64);
  ASSERT_EQ(shape64.k, 128);
  for (const char* spec : {"block_sparse:block=64", "block_sparse", "causal_document"}) {
    constexpr int64_t kSeq = 2500;
    const Mask mask = make_mask(spec, kSeq, 2);  // block_sparse: a mask per kv head
    const AttentionProblem p = make_problem(mask, 1, 8, 2, 64, DType::kBf16);
    const FlashPassWork w = build_backward_work(p, shape64, 132, true, BackwardMasking::kRunMasks, true);
    int marked_halves = 0;
    for (int32_t m = 0; m < w.num_masks; ++m) {
      const std::vector<uint8_t> dense = mask.dense(m);
      for (int32_t c = 0; c < w.outer_tiles; ++c) {
        std::map<int32_t, int> seen;  // per partial q tile: the halves some visit computes
        const int32_t outer = m * w.outer_tiles + c;
        for (int32_t n = w.run_offsets[outer]; n < w.run_offsets[outer + 1]; ++n) {
          const DeviceRun& run = w.runs[static_cast<size_t>(n)];
          const int idle = (run.end_and_partial >> kIdleHalfShift) & 3;
          if (run.end_and_partial >= 0) {
            EXPECT_EQ(idle, 0) << spec;
            continue;
          }
          EXPECT_NE(idle, 3) << spec << " a visit sees some key";
          seen[run.begin] |= 3 & ~idle;
          marked_halves += (idle & 1) + (idle >> 1);
        }
        for (const auto& [q_tile, halves] : seen) {
          for (int h = 0; h < 2; ++h) {
            bool visible = false;
            for (int64_t q = q_tile * 64; q < std::min<int64_t>(q_tile * 64 + 64, kSeq) && !visible; ++q) {
              for (int64_t k = 128 * c + 64 * h; k < std::min<int64_t>(128 * c + 64 * h + 64, kSeq); ++k) {
                if (dense[static_cast<size_t>(q * kSeq + k)]) {
                  visible = true;
                  break;
                }
              }
            }
            EXPECT_EQ((halves >> h) & 1, visible ? 1 : 0) << spec << " mask " << m << " k tile " << c << " q tile "
                                                          << q_tile;
          }
        }
      }
    }
    if (std::string(spec) != "block_sparse") {  // (its blocks of 128 are whole tiles)
      EXPECT_GT(marked_halves, 0) << spec;
    }
  }
  // Kernels without the idle path get no marks (backward_idle_halves_built): hd 128's run-mask lists, 64-key tiles.
  const AttentionProblem sparse128 = make_problem(make_mask("block_sparse:block=64", 2500, 2), 1, 8, 2, 128,
                                                  DType::kBf16);
  for (const DeviceRun& run : build_backward_work(sparse128, shape, 132, true, BackwardMasking::kRunMasks, true).runs) {
    EXPECT_EQ((run.end_and_partial >> kIdleHalfShift) & 3, 0);
  }
  const AttentionProblem causal = make_problem(make_mask("causal", 2500), 1, 8, 2, 128, DType::kBf16);
  const FlashPassWork narrow = build_backward_work(causal, TileShape{64, 64}, 132, true, BackwardMasking::kSlices, true);
  for (const DeviceRun& run : narrow.runs) EXPECT_EQ((run.end_and_partial >> kIdleHalfShift) & 3, 0);
}

TEST(FlashWork, BackwardWarpgroupsDecoupleWhereATenthOfTheTilesArePartial) {
  // backward_warpgroups_decoupled (the Hopper backward's): partial tiles at least kBackwardDecoupledPartialShare of
  // the list's tiles.
  const TileShape shape = flash_tile_shape(64, DType::kBf16, Pass::kBackward, FlashArch::kSm90);  // 64 q x 128 k
  auto decoupled = [&](const char* spec, int64_t seq) {
    return backward_warpgroups_decoupled(
        build_backward_work(make_problem(make_mask(spec, seq), 1, 8, 2, 64, DType::kBf16), shape, 132));
  };
  // The A/B's masks: decoupled where it gained (22% and 14-18% partial tiles), coupled where it lost (0-1.6%).
  EXPECT_TRUE(decoupled("sliding_window_causal", 32768));
  EXPECT_TRUE(decoupled("sliding_window_causal", 4096));
  EXPECT_TRUE(decoupled("causal_document", 32768));
  EXPECT_TRUE(decoupled("causal_document", 4096));
  EXPECT_FALSE(decoupled("full", 16384));
  EXPECT_FALSE(decoupled("causal", 16384));
  EXPECT_FALSE(decoupled("block_causal_document", 32768));
  // Short documents decouple (the GPU tests' hd 64 document cases), a full mask does not.
  const AttentionProblem documents = make_problem(make_mask("causal_document", 388), 1, 8, 2, 64, DType::kBf16);
  EXPECT_TRUE(backward_warpgroups_decoupled(build_backward_work(documents, shape, 132)));
  const AttentionProblem full = make_problem(make_mask("full", 1024), 1, 4, 4, 64, DType::kFp16);
  EXPECT_FALSE(backward_warpgroups_decoupled(build_backward_work(full, shape, 132)));
  EXPECT_FALSE(backward_warpgroups_decoupled(FlashPassWork{}));
}

TEST(FlashWork, BackwardWalksFromTheEndWhereNeighbouringKTilesShareIt) {
  const TileShape shape = flash_tile_shape(128, DType::kBf16, Pass::kBackward);  // 64 q x 128 k
  ASSERT_EQ(shape.q, 64);
  ASSERT_EQ(shape.k, 128);
  // Causal: every k tile's q tiles end at the last one.
  {
    const FlashPassWork w = build_backward_work(make_problem(make_mask("causal", 3000), 1, 8, 2, 128, DType::kBf16), shape, 132);
    ASSERT_EQ(static_cast<int>(w.outer_walk.size()), w.outer_tiles);
    for (int c = 0; c < w.outer_tiles; ++c) EXPECT_EQ(w.outer_walk[c], kWalkFromSharedEnd) << "k tile " << c;
  }
  // Sliding window of 300: k tile c is seen up to row 128c + 427, q tile 2c + 6, so neighbours end 2 q tiles
  // apart until the window reaches the sequence's last q tile (46).
  {
    const FlashPassWork w = build_backward_work(
        make_problem(make_mask("sliding_window_causal:window=300", 3000), 1, 8, 2, 128, DType::kBf16), shape, 132);
    for (int c = 0; c < w.outer_tiles; ++c) {
      EXPECT_EQ(w.outer_walk[c], std::min(2 * c + 6, 46) == 46 ? kWalkFromSharedEnd : int8_t{0}) << "k tile " << c;
    }
  }
  // Keys no row sees (k tiles 8 to 23) keep the default walk; the seen ones share the last q tile.
  {
    AttentionProblem p = make_problem(make_mask("causal", 3000), 1, 8, 2, 128, DType::kBf16);
    p.slices = {{{0, 3000, 0, 1000, SliceType::kFull}}};
    const FlashPassWork w = build_backward_work(p, shape, 132);
    for (int c = 0; c < w.outer_tiles; ++c) {
      EXPECT_EQ(w.outer_walk[c], c < 8 ? kWalkFromSharedEnd : int8_t{0}) << "k tile " << c;
    }
  }
}

TEST(FlashWork, BackwardCtasStartTheLongKTilesOfEveryKvHeadFirst) {
  // Causal 4K, 8 kv heads, 132 SMs: k tile j has 64 - 2j q tiles (two of them partial); the k tiles of at least
  // a quarter of an SM's share of the work (total / (4 x 132)) start first, costliest first across the kv heads: k tile 0
  // of kv heads 0..7, then k tile 1 of each, ...; the rest follow head after head.
  // (Documents unpaired here: the pairs are the next test's.)
  const AttentionProblem p = make_problem(make_mask("causal", 4096), 1, 64, 8, 128, DType::kBf16);
  const FlashPassWork w = build_backward_work(p, flash_tile_shape(128, DType::kBf16, Pass::kBackward), 132,
                                              /*pair_documents=*/false);
  ASSERT_FALSE(w.pairs_documents);
  ASSERT_EQ(w.outer_tiles, 32);
  ASSERT_EQ(w.cta_items.size(), static_cast<size_t>(8 * 32));
  std::vector<int32_t> sorted = w.cta_items;
  std::sort(sorted.begin(), sorted.end());
  for (int32_t n = 0; n < 8 * 32; ++n) ASSERT_EQ(sorted[n], n);
  for (int kv = 0; kv < 8; ++kv) {
    EXPECT_EQ(w.cta_items[kv], kv * 32 + 0);
    EXPECT_EQ(w.cta_items[8 + kv], kv * 32 + 1);
  }
  // Keys 4 x 64 - 8j + 2: total 8 x sum_j (258 - 8j) = 8 x 4288; long: 4 x 132 x key >= 34304, j <= 24. After the
  // 200 long ones, kv head 0's remaining k tiles 25..31 in order, then kv head 1's.
  for (int j = 0; j < 7; ++j) {
    EXPECT_EQ(w.cta_items[200 + j], 25 + j);
    EXPECT_EQ(w.cta_items[207 + j], 32 + 25 + j);
  }
  // 132 slots on 132 k tiles of a full mask (equal keys): every one is long, and ties keep the head-major order.
  const FlashPassWork full = build_backward_work(make_problem(make_mask("full", 4096), 1, 64, 8, 128, DType::kBf16),
                                                 flash_tile_shape(128, DType::kBf16, Pass::kBackward), 132);
  for (int32_t n = 0; n < 8 * 32; ++n) EXPECT_EQ(full.cta_items[n], n);
}

TEST(FlashWork, BackwardTailConvertsHeadsInTheOrderTheirLastCtaStarts) {
  // The Hopper backward's tail converts dQ head by head (model/perf/backward_tail.h), first the (batch, kv head)
  // whose last CTA comes first in cta_items: a permutation of the heads, their last CTAs in increasing order.
  for (const int64_t batch : {1, 2}) {
    const AttentionProblem p = make_problem(make_mask("causal_document", 8192), batch, 32, 4, 128, DType::kBf16);
    const FlashPassWork w = build_backward_work(p, flash_tile_shape(128, DType::kBf16, Pass::kBackward), 132);
    ASSERT_EQ(w.tail_heads.size(), static_cast<size_t>(batch * 4));
    std::vector<int64_t> last(static_cast<size_t>(batch * 4), -1);
    for (size_t n = 0; n < w.cta_items.size(); ++n) last[static_cast<size_t>(w.cta_items[n] / w.outer_tiles)] = n;
    std::vector<int32_t> sorted = w.tail_heads;
    std::sort(sorted.begin(), sorted.end());
    for (int32_t h = 0; h < batch * 4; ++h) ASSERT_EQ(sorted[static_cast<size_t>(h)], h);
    for (size_t n = 1; n < w.tail_heads.size(); ++n) {
      EXPECT_LT(last[static_cast<size_t>(w.tail_heads[n - 1])], last[static_cast<size_t>(w.tail_heads[n])]) << n;
    }
  }
  // The causal launch above: head 0's last k tiles come before head 1's, and so on.
  const FlashPassWork causal = build_backward_work(make_problem(make_mask("causal", 4096), 1, 64, 8, 128, DType::kBf16),
                                                   flash_tile_shape(128, DType::kBf16, Pass::kBackward), 132, false);
  EXPECT_EQ(causal.tail_heads, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(causal.tail_chunk_rows, perf::backward_tail_chunk_rows(4096, 8, 8, 128, 132));
  // The chunks: fp32 rows of a kv head's q heads, 256 KiB to 2 MiB of them, as many as make 2 per SM over the call.
  // 32K, 8 kv heads of 8 q heads at hd 128 (4 KiB a row), 132 SMs: 1993 rows for 264 chunks, capped at 2 MiB.
  EXPECT_EQ(perf::backward_tail_chunk_rows(32768, 8, 8, 128, 132), 512);
  EXPECT_EQ(perf::backward_tail_chunks_per_head(32768, 512), 64);
  // 16K, hd 64 (2 KiB a row): 497 rows for 264 chunks, between 128 and 1024.
  EXPECT_EQ(perf::backward_tail_chunk_rows(16384, 8, 8, 64, 132), 497);
  EXPECT_EQ(perf::backward_tail_chunks_per_head(16384, 497), 33);
  // 1K: 32 rows would make 264 chunks, but a chunk holds at least 256 KiB: 64 rows.
  EXPECT_EQ(perf::backward_tail_chunk_rows(1024, 8, 8, 128, 132), 64);
  // MHA, one q head of 512 B a row: 512 to 4096 rows.
  EXPECT_EQ(perf::backward_tail_chunk_rows(32768, 64, 1, 128, 132), 4096);
  EXPECT_EQ(perf::backward_tail_chunk_rows(2048, 64, 1, 128, 132), 512);
  // Rows wider than the largest chunk: one row each.
  EXPECT_EQ(perf::backward_tail_chunk_rows(4096, 1, 1 << 12, 256, 132), 1);
  EXPECT_EQ(perf::backward_tail_chunks_per_head(0, 64), 0);
}

// A k tile's run key (4 x q tiles + partial ones), the duration the launch order plays with.
int64_t key_of(const FlashPassWork& w, int32_t outer) {
  int64_t key = 0;
  for (int32_t r = w.run_offsets[outer]; r < w.run_offsets[outer + 1]; ++r) {
    const int64_t tiles = (w.runs[r].end_and_partial & kEndMask) - w.runs[r].begin;
    key += tiles * (w.runs[r].end_and_partial < 0 ? 5 : 4);
  }
  return key;
}

struct Dispatched {
  int64_t slot = -1, start = 0, end = 0;
};

// The GPU's dispatch of `w.cta_items` in grid order (the next CTA to the first slot that frees up, lowest slot on
// ties), with the run keys as durations: where and when each CTA (by launch position) runs.
std::vector<Dispatched> dispatch_in_grid_order(const FlashPassWork& w, int64_t slots) {
  std::vector<int64_t> free_at(static_cast<size_t>(slots), 0);
  std::vector<Dispatched> out;
  for (int32_t item : w.cta_items) {
    const auto slot = std::min_element(free_at.begin(), free_at.end()) - free_at.begin();
    const int64_t duration = std::max<int64_t>(key_of(w, item % w.outer_tiles), 1);
    out.push_back({slot, free_at[slot], free_at[slot] + duration});
    free_at[slot] += duration;
  }
  return out;
}

TEST(FlashWork, BackwardPairsADocumentsKTilesFirstWithLastBackToBackOnOneSm) {
  // Causal 16K, 8 kv heads, 132 SMs: 128 k tiles per kv head, k tile j sees q tiles 2j..255. Paired, k tile 127 - i
  // (short) walks down from q tile 255, then k tile i (long) walks up from q tile 2i on the same SM as it ends: the
  // pairs' first q tiles sum to 254, so every pair is on the same q tile at every step, in both halves.
  const AttentionProblem p = make_problem(make_mask("causal", 16384), 1, 64, 8, 128, DType::kBf16);
  const FlashPassWork w = build_backward_work(p, flash_tile_shape(128, DType::kBf16, Pass::kBackward), 132);
  ASSERT_TRUE(w.pairs_documents);
  ASSERT_EQ(w.outer_tiles, 128);
  ASSERT_EQ(w.cta_items.size(), static_cast<size_t>(8 * 128));
  ASSERT_EQ(w.cta_walks.size(), w.cta_items.size());
  std::vector<int32_t> sorted = w.cta_items;
  std::sort(sorted.begin(), sorted.end());
  for (int32_t n = 0; n < 8 * 128; ++n) ASSERT_EQ(sorted[n], n);
  const std::vector<Dispatched> runs = dispatch_in_grid_order(w, 132);
  int longs = 0, back_to_back = 0;
  for (size_t n = 0; n < w.cta_items.size(); ++n) {
    const int32_t tile = w.cta_items[n] % 128;
    const int32_t kv = w.cta_items[n] / 128;
    if (w.cta_walks[n] == kWalkFromSharedEnd) {
      EXPECT_GE(tile, 64) << "the short half of a pair walks from the shared end";
      continue;
    }
    ASSERT_EQ(w.cta_walks[n], kWalkHeadsInner) << "position " << n;
    ASSERT_LT(tile, 64);
    ++longs;
    // Its partner: k tile 127 - tile of the same kv head, earlier in the grid, ending on this slot as this starts.
    const auto partner = std::find(w.cta_items.begin(), w.cta_items.begin() + static_cast<std::ptrdiff_t>(n),
                                   kv * 128 + 127 - tile);
    ASSERT_NE(partner, w.cta_items.begin() + static_cast<std::ptrdiff_t>(n)) << "k tile " << tile;
    // Back to back, or (once every pair has started) on an SM that frees up earlier.
    const Dispatched& first = runs[static_cast<size_t>(partner - w.cta_items.begin())];
    if (first.slot == runs[n].slot && first.end == runs[n].start) {
      ++back_to_back;
    } else {
      EXPECT_LT(runs[n].start, first.end) << "k tile " << tile << " of kv head " << kv;
    }
  }
  EXPECT_EQ(longs, 8 * 64);
  // 512 pairs on 132 SMs: in the last round (116 pairs) the 16 SMs left without a pair start the long halves of the
  // pairs whose short halves end last.
  EXPECT_EQ(back_to_back, 8 * 64 - 16);
}

TEST(FlashWork, BackwardPairsOnlyWhereTheLaunchStaysBalanced) {
  const TileShape shape = flash_tile_shape(128, DType::kBf16, Pass::kBackward);
  const auto work = [&](const char* mask, int64_t seqlen, bool pair) {
    return build_backward_work(make_problem(make_mask(mask, seqlen), 1, 64, 8, 128, DType::kBf16), shape, 132, pair);
  };
  const auto makespan = [](const FlashPassWork& w) {
    int64_t end = 0;
    for (const Dispatched& d : dispatch_in_grid_order(w, 132)) end = std::max(end, d.end);
    return end;
  };
  // Causal: every length pairs (played makespan 0.91 to 1.03 of the unpaired launch's).
  for (int64_t seqlen : {4096, 8192, 32768, 65536}) {
    const FlashPassWork paired = work("causal", seqlen, true);
    EXPECT_TRUE(paired.pairs_documents) << seqlen;
    EXPECT_LE(static_cast<double>(makespan(paired)),
              perf::kBackwardPairMakespanRatio * static_cast<double>(makespan(work("causal", seqlen, false))))
        << seqlen;
  }
  // Short documents against an SM's share (causal_document at 8K: 1.36 of the unpaired makespan) stay unpaired,
  // in the unpaired launch order; long ones pair.
  const FlashPassWork documents_8k = work("causal_document", 8192, true);
  EXPECT_FALSE(documents_8k.pairs_documents);
  EXPECT_EQ(documents_8k.cta_items, work("causal_document", 8192, false).cta_items);
  EXPECT_TRUE(work("causal_document", 65536, true).pairs_documents);
  // Equal k tiles (full) have nothing to pair.
  EXPECT_FALSE(work("full", 8192, true).pairs_documents);
}

// The kernel cost model schedules the backward's CTAs as the kernel launches them, pairs included
// (perf::backward_launch serves both): with every tile costing its key (4 per full tile, 5 per boundary tile, per q
// head of the GQA group) and no other term, the model's busiest slot is the kernel's grid dispatched in order with
// the keys as durations, times the group. The model scheduling the unpaired launch instead misses it where the pairs change the balance.
/// A cost model entry for lcab_flash's Hopper backward with round tile costs, its tiles costing their work list key
/// (4 per full tile, 5 per boundary tile), no per-item or per-call time.
perf::KernelParams backward_model_params(TileShape shape, perf::KernelScheduler scheduler) {
  perf::KernelParams p;
  p.impl = "lcab_flash";
  p.pass = "bwd";
  p.tile = shape;
  p.scheduler = scheduler;
  p.work_item = perf::KernelWorkItem::kKColumnPerKvHead;
  p.ctas_per_sm = {1, "test"};
  p.full_tile_us = {4, "test: a full tile's key"};
  p.partial_tile_us = {5, "test: a boundary tile's key"};
  p.row_us = {0, "test"};
  p.launch_us = {0, "test"};
  return p;
}

TEST(FlashWork, TheCostModelCountsTheIdleHalvesTheBackwardListMarks) {
  // perf::KernelParams::idle_half_tile_us charges the tiles that the slice-walking list marks with an idle key half
  // (hd 128 and hd 64, backward_idle_halves_built): the list takes its marks from MaskTiling and the cost model counts the
  // same tiling's per k-tile column and q head; the two must agree in total, per kv-head mask, odd lengths included.
  // (That the marks are the cells' is BackwardMarksTheKeyHalvesNoQueryOfAPartialTileSees; that the FULL-slice
  // counter of the grid and CP models counts as MaskTiling does, perf_full_slice_tiles_test.)
  for (const int64_t hd : {int64_t{128}, int64_t{64}}) {
    const TileShape shape = flash_tile_shape(hd, DType::kBf16, Pass::kBackward);
    ASSERT_TRUE(backward_idle_halves_built(hd, BackwardMasking::kSlices));
    perf::KernelParams p = backward_model_params(shape, perf::KernelScheduler::kGridLongItemsFirst);
    p.head_dim = static_cast<int>(hd);
    p.idle_half_tile_us = {3, "test: a boundary tile with an idle key half"};
    int64_t seen = 0;
    for (const auto& [spec, seqlen] : {std::pair{"causal", 3000}, {"sliding_window_causal:window=1024", 8192},
                                       {"sliding_window_causal:window=300", 2500}, {"causal_document", 8192},
                                       {"share_question", 4000}, {"prefix_lm_document", 5000},
                                       {"variable_block_sparse", 4096}, {"full", 1000}}) {
      const Mask mask = make_mask(spec, seqlen, 2);
      const AttentionProblem problem = make_problem(mask, 1, 8, 2, hd, DType::kBf16);
      const FlashPassWork w = build_backward_work(problem, shape, 132, true, BackwardMasking::kSlices, true);
      int64_t marked = 0;
      for (const DeviceRun& run : w.runs) marked += ((run.end_and_partial >> kIdleHalfShift) & 3) != 0 ? 1 : 0;
      const perf::AttentionShape heads{1, 8, 2, hd, 2};
      const perf::KernelCost cost = perf::KernelCostModel(p, 132).cost(mask, heads);
      // The model counts per q head (the list per kv-head mask, its CTAs looping over the group's 4 q heads).
      const int64_t lists = mask.num_head_masks();
      EXPECT_EQ(cost.idle_half_tiles, marked * (8 / lists)) << spec << " hd " << hd;
      seen += marked;
    }
    EXPECT_GT(seen, 100) << "hd " << hd;
  }
}

TEST(FlashWork, TheCostModelSchedulesTheKernelsLaunchPairsIncluded) {
  const TileShape shape = flash_tile_shape(128, DType::kBf16, Pass::kBackward);
  const perf::KernelParams p = backward_model_params(shape, perf::KernelScheduler::kGridPairedDocuments);
  perf::KernelParams unpaired = p;
  unpaired.scheduler = perf::KernelScheduler::kGridLongItemsFirst;
  const perf::AttentionShape heads{1, 64, 8, 128, 2};
  int paired_masks = 0, differ = 0;
  for (const auto& [spec, seqlen] : {std::pair{"causal", 4096}, {"causal", 16384}, {"causal_document", 8192},
                                     {"causal_document", 32768}, {"prefix_lm_causal", 8192}, {"full", 4096}}) {
    const Mask mask = make_mask(spec, seqlen);
    const FlashPassWork w = build_backward_work(make_problem(mask, 1, 64, 8, 128, DType::kBf16), shape, 132);
    int64_t kernel = 0;
    for (const Dispatched& d : dispatch_in_grid_order(w, 132)) kernel = std::max(kernel, d.end);
    const double model = perf::KernelCostModel(p, 132).cost(mask, heads).slots.makespan_us;
    EXPECT_EQ(model, 8.0 * static_cast<double>(kernel)) << spec << " " << seqlen;
    if (!w.pairs_documents) continue;
    ++paired_masks;
    if (perf::KernelCostModel(unpaired, 132).cost(mask, heads).slots.makespan_us != model) ++differ;
  }
  EXPECT_GE(paired_masks, 4);
  EXPECT_GE(differ, 2);  // causal 4K and 16K: equal pairs balance otherwise than k tiles of every length
}

TEST(FlashWork, PerKvHeadMasksGetOneListEach) {
  const Mask mask = make_mask("block_sparse:density=0.3,block=128,seed=3", 2048, 4);
  ASSERT_TRUE(mask.is_per_kv_head());
  const AttentionProblem p = make_problem(mask, 1, 8, 4, 128, DType::kBf16);
  const TileShape shape = flash_tile_shape(128, DType::kBf16, Pass::kForward);
  const FlashPassWork w = build_forward_work(p, shape);
  EXPECT_EQ(w.num_masks, 4);
  EXPECT_EQ(static_cast<int>(w.run_offsets.size()), 1 + 4 * w.outer_tiles);
  EXPECT_EQ(w.touched_tiles, count_tiles(mask, shape).touched);
  EXPECT_EQ(build_backward_work(p, flash_tile_shape(128, DType::kBf16, Pass::kBackward), 132).outer_walk.size(),
            static_cast<size_t>(4 * ((2048 + 127) / 128)));
}

TEST(FlashWork, RowSlicesHoldExactlyTheSlicesIntersectingEachRow) {
  const Mask mask = make_mask("causal_document", 3000);
  const AttentionProblem p = make_problem(mask, 1, 8, 8, 128, DType::kBf16);
  const FlashPassWork w = build_forward_work(p, flash_tile_shape(128, DType::kBf16, Pass::kForward));
  for (int r = 0; r < w.q_tile_rows; ++r) {
    size_t expected = 0;
    for (const Slice& s : mask.slices()) expected += (s.q_begin < (r + 1) * 128 && s.q_end > r * 128) ? 1 : 0;
    EXPECT_EQ(static_cast<size_t>(w.slice_offsets[r + 1] - w.slice_offsets[r]), expected) << "row " << r;
  }
}

// Checks a run-mask work list (`w`, ForwardMasking / BackwardMasking::kRunMasks) against the same pass's kSlices list
// (`plain`) and the dense mask: per outer tile (forward: q-tile row; backward: k tile) every partial run is one inner
// tile with a run mask whose visits together make exactly the mask's visible (query, key) pairs of that tile visible,
// each once, and the outer tile's whole and partial inner tiles are the plain list's. Returns the number of visits.
int64_t check_run_mask_visits(const FlashPassWork& w, const FlashPassWork& plain, const Mask& mask, int64_t seqlen,
                              const std::string& spec, bool key_major) {
  const TileShape shape = w.shape;
  EXPECT_EQ(w.run_masks.size(), w.runs.size()) << spec;
  EXPECT_TRUE(plain.run_masks.empty()) << spec;
  int64_t visits = 0;
  for (int m = 0; m < w.num_masks; ++m) {
    const std::vector<uint8_t> dense = mask.dense(m);
    for (int outer_tile = 0; outer_tile < w.outer_tiles; ++outer_tile) {
      const int outer = m * w.outer_tiles + outer_tile;
      std::set<int> whole, partial;
      std::map<int, std::vector<int>> seen;  // partial inner tile -> how often each (query, key) of it was visible
      for (int n = w.run_offsets[outer]; n < w.run_offsets[outer + 1]; ++n) {
        const DeviceRun run = w.runs[n];
        const DeviceRunMask rm = w.run_masks[n];
        const int end = run.end_and_partial & kEndMask;
        if (run.end_and_partial >= 0) {
          EXPECT_TRUE(rm.rows < 0 && rm.rows2 < 0) << spec << ": a whole run has a run mask";
          for (int tile = run.begin; tile < end; ++tile) whole.insert(tile);
          continue;
        }
        EXPECT_EQ(end - run.begin, 1) << spec << ": a partial run of several tiles";
        EXPECT_GE(rm.rows, 0) << spec << ": a partial run without a run mask";
        if (end - run.begin != 1 || rm.rows < 0) return visits;
        ++visits;
        partial.insert(run.begin);
        std::vector<int>& counts = seen[run.begin];
        counts.resize(static_cast<size_t>(shape.q * shape.k));
        // Forward: row r sees keys [lo, hi); backward: key c is seen by rows [lo, hi).
        for (int n_line = 0; n_line < (key_major ? shape.k : shape.q); ++n_line) {
          int lo = 0, hi = 0;
          if (key_major) {
            flash::run_mask_pair_key_rows(rm.bounds, rm.rows, rm.bounds2, rm.rows2, n_line, lo, hi);
          } else {
            flash::run_mask_pair_row_keys(rm.bounds, rm.rows, rm.bounds2, rm.rows2, n_line, lo, hi);
          }
          const int limit = static_cast<int>(key_major ? shape.q : shape.k);
          for (int x = std::max(lo, 0); x < std::min(hi, limit); ++x) {
            const int dr = key_major ? x : n_line, dc = key_major ? n_line : x;
            ++counts[static_cast<size_t>(dr * shape.k + dc)];
          }
        }
      }
      for (const auto& [tile, counts] : seen) {
        EXPECT_EQ(whole.count(tile), 0u) << spec << ": tile " << tile << " both whole and partial";
        const int q_tile = key_major ? tile : outer_tile, k_tile = key_major ? outer_tile : tile;
        for (int dr = 0; dr < shape.q; ++dr) {
          const int64_t q = static_cast<int64_t>(q_tile) * shape.q + dr;
          for (int dc = 0; dc < shape.k; ++dc) {
            const int64_t k = static_cast<int64_t>(k_tile) * shape.k + dc;
            const int expected = q < seqlen && k < seqlen && dense[q * seqlen + k] != 0 ? 1 : 0;
            if (counts[static_cast<size_t>(dr * shape.k + dc)] != expected) {
              ADD_FAILURE() << spec << " kv mask " << m << " q " << q << " k " << k << " seen "
                            << counts[static_cast<size_t>(dr * shape.k + dc)] << " times, expected " << expected;
              return visits;
            }
          }
        }
      }
      std::set<int> plain_whole, plain_partial;
      for (int n = plain.run_offsets[outer]; n < plain.run_offsets[outer + 1]; ++n) {
        const DeviceRun run = plain.runs[n];
        for (int tile = run.begin; tile < (run.end_and_partial & kEndMask); ++tile) {
          (run.end_and_partial < 0 ? plain_partial : plain_whole).insert(tile);
        }
      }
      EXPECT_EQ(whole, plain_whole) << spec << " outer tile " << outer_tile;
      EXPECT_EQ(partial, plain_partial) << spec << " outer tile " << outer_tile;
    }
  }
  EXPECT_GE(visits, plain.partial_tiles) << spec;  // a tile is dropped only when it shows no pair (none here)
  return visits;
}

struct RunMaskCase {
  std::string spec;
  int64_t seqlen;
  int64_t head_dim;
};

// The Hopper forward's run masks (ForwardMasking::kRunMasks), for masks and lengths that put slices' edges,
// documents, blocks and S's end inside tiles, at both Hopper tile shapes (128 x 128; 128 x 64 at hd 256).
TEST(FlashWork, RunMasksVisitEveryVisibleKeyOfAPartialTileOnce) {
  const std::vector<RunMaskCase> cases = {{"sliding_window_causal:window=1000", 3000, 128},
                                          {"sliding_window_causal:window=1024", 4096, 64},
                                          {"sliding_window:window=300", 2000, 128},
                                          {"causal", 1000, 256},
                                          {"causal", 1000, 64},
                                          {"causal_document:seed=3", 4000, 128},
                                          {"share_question:seed=5", 3000, 128},
                                          {"prefix_lm_document:seed=1,prefix=100", 3000, 64},
                                          {"global_sliding_window:global=100,window=200", 2500, 128},
                                          {"block_causal_document:block=200", 3000, 256},
                                          {"variable_block_sparse:seed=2", 2048, 128}};
  for (const RunMaskCase& c : cases) {
    const Mask mask = make_mask(c.spec, c.seqlen, 2);
    const AttentionProblem p = make_problem(mask, 1, 4, 2, c.head_dim, DType::kBf16);
    const TileShape shape = flash_tile_shape(c.head_dim, DType::kBf16, Pass::kForward, FlashArch::kSm90);
    check_run_mask_visits(build_forward_work(p, shape, ForwardMasking::kRunMasks), build_forward_work(p, shape), mask,
                          c.seqlen, c.spec, /*key_major=*/false);
  }
}

// The same for the Hopper backward's key-major run masks (BackwardMasking::kRunMasks).
TEST(FlashWork, BackwardRunMasksVisitEveryVisiblePairOfAPartialTileOnce) {
  const std::vector<RunMaskCase> cases = {{"sliding_window_causal:window=1000", 3000, 128},
                                          {"sliding_window:window=300", 2000, 64},
                                          {"causal", 1000, 256},
                                          {"causal_document:seed=3", 4000, 128},
                                          {"share_question:seed=5", 3000, 128},
                                          {"prefix_lm_document:seed=1,prefix=100", 3000, 64},
                                          {"global_sliding_window:global=100,window=200", 2500, 128},
                                          {"causal_blockwise:seed=4", 3000, 128},
                                          {"variable_block_sparse:seed=2", 2048, 128},
                                          {"block_sparse:block=64,seed=1", 2048, 128}};
  for (const RunMaskCase& c : cases) {
    const Mask mask = make_mask(c.spec, c.seqlen, 2);
    const AttentionProblem p = make_problem(mask, 1, 4, 2, c.head_dim, DType::kBf16);
    const TileShape shape = flash_tile_shape(c.head_dim, DType::kBf16, Pass::kBackward, FlashArch::kSm90);
    check_run_mask_visits(build_backward_work(p, shape, 132, true, BackwardMasking::kRunMasks),
                          build_backward_work(p, shape, 132), mask, c.seqlen, c.spec, /*key_major=*/true);
  }
}

// The statistic that picks the Hopper backward's kernel: block-sparse masks walk many slices per partial tile and
// take run masks; windows, causal and documents do not; the full mask has no partial tile.
TEST(FlashWork, SlicesPerPartialTileSeparateBlockSparseFromDocumentsAndWindows) {
  const auto stat = [](const std::string& spec, int64_t seqlen) {
    const Mask mask = make_mask(spec, seqlen, 8);
    const AttentionProblem p = make_problem(mask, 1, 64, 8, 128, DType::kBf16);
    return slices_per_partial_tile(
        build_backward_work(p, flash_tile_shape(128, DType::kBf16, Pass::kBackward, FlashArch::kSm90), 132));
  };
  EXPECT_EQ(stat("full", 4096), 0.0);
  EXPECT_DOUBLE_EQ(stat("causal", 4096), 1.0);
  EXPECT_DOUBLE_EQ(stat("sliding_window_causal", 8192), 1.0);
  EXPECT_LT(stat("causal_document", 8192), kBackwardRunMaskSlicesPerPartialTile);
  EXPECT_GE(stat("block_sparse:block=64", 4096), kBackwardRunMaskSlicesPerPartialTile);
  EXPECT_GE(stat("variable_block_sparse", 4096), kBackwardRunMaskSlicesPerPartialTile);
}

TEST(FlashWork, ForwardSectionsAreWholeKvHeadDivisorsWhoseKvFitTheBudget) {
  // K and V of one kv head: 2 x seqlen x head dim x 2 bytes; the budget is 8 MiB.
  ASSERT_EQ(kForwardKvSectionBytes, int64_t{8} << 20);
  EXPECT_EQ(forward_kv_heads_per_section(8, 2048, 128, 2), 8);    // 1 MiB each: all 8
  EXPECT_EQ(forward_kv_heads_per_section(8, 4096, 128, 2), 4);    // 2 MiB each
  EXPECT_EQ(forward_kv_heads_per_section(64, 8192, 128, 2), 2);   // MHA: 2 of 64
  EXPECT_EQ(forward_kv_heads_per_section(8, 65536, 128, 2), 1);   // 32 MiB each: one, though over the budget
  EXPECT_EQ(forward_kv_heads_per_section(6, 4096, 128, 2), 3);    // 4 fit, but 4 does not divide 6
  EXPECT_EQ(forward_kv_heads_per_section(1, 1024, 64, 2), 1);
  EXPECT_EQ(forward_kv_heads_per_section(8, 8192, 64, 2), 4);     // hd 64: half the bytes
  EXPECT_THROW(forward_kv_heads_per_section(0, 1024, 64, 2), Error);
}

TEST(FlashWork, ForwardListCarriesItsSectionOfWholeGqaGroups) {
  const TileShape shape{128, 128};
  const auto section_heads = [&](int64_t seqlen, int64_t kv_heads) {
    return build_forward_work(make_problem(make_mask("causal", seqlen), 1, 64, kv_heads, 128, DType::kBf16), shape)
        .section_heads;
  };
  // K and V per kv head at hd 128: 4 MiB at 8K keys (2 kv heads per 8 MiB section), 8 MiB at 16K (1).
  EXPECT_EQ(section_heads(8192, 8), 16);
  EXPECT_EQ(section_heads(8192, 64), 2);
  EXPECT_EQ(section_heads(16384, 8), 8);
  EXPECT_EQ(section_heads(16384, 64), 1);
  // 2K keys: every kv head fits, one section of all heads (the order before sections).
  EXPECT_EQ(section_heads(2048, 8), 64);
  // The backward's list has no sections.
  EXPECT_EQ(build_backward_work(make_problem(make_mask("causal", 16384), 1, 64, 8, 128, DType::kBf16), {64, 128}, 132)
                .section_heads,
            1);
}

TEST(FlashWork, BackwardConversionFollowsEachHeadsLastCtaByTheDelay) {
  // Window 1024 at 4K, 4 kv heads, 8 slots: each head's conversion units come `delay` dK/dV CTAs after its last
  // one (all at the end with a negative delay), every block once, walks kept with their items.
  const AttentionProblem p =
      make_problem(make_mask("sliding_window_causal:window=1024", 4096), 1, 16, 4, 128, DType::kBf16);
  FlashPassWork w = build_backward_work(p, flash_tile_shape(128, DType::kBf16, Pass::kBackward), 8);
  const int64_t chunks = 3;
  const int64_t ctas = static_cast<int64_t>(w.cta_items.size());
  for (const int64_t delay : {int64_t{-1}, int64_t{0}, int64_t{5}, int64_t{1000}}) {
    SCOPED_TRACE("delay " + std::to_string(delay));
    interleave_backward_conversion(w, chunks, delay);
    ASSERT_EQ(w.grid_items.size(), static_cast<size_t>(ctas + 4 * chunks));
    ASSERT_EQ(w.grid_walks.size(), w.grid_items.size());
    std::vector<int64_t> seen_units;
    int64_t dkdv_before = 0;  // dK/dV CTAs before the block
    std::vector<int64_t> last_of_head(4, -1);  // position (in dK/dV CTAs) of each head's last CTA
    for (int64_t n = 0; n < ctas; ++n) last_of_head[w.cta_items[n] / w.outer_tiles] = n;
    for (size_t b = 0; b < w.grid_items.size(); ++b) {
      const int32_t item = w.grid_items[b];
      if (item >= 0) {
        EXPECT_EQ(item, w.cta_items[dkdv_before]);
        EXPECT_EQ(w.grid_walks[b], w.cta_walks[dkdv_before]);
        ++dkdv_before;
        continue;
      }
      const int64_t unit = -1 - item;
      seen_units.push_back(unit);
      const int64_t head = w.tail_heads[unit / chunks];
      const int64_t expected = delay < 0 ? ctas : std::min(ctas, last_of_head[head] + 1 + delay);
      EXPECT_EQ(dkdv_before, expected) << "unit " << unit;
      EXPECT_EQ(w.grid_walks[b], 0);
    }
    EXPECT_EQ(dkdv_before, ctas);
    std::sort(seen_units.begin(), seen_units.end());
    for (int64_t u = 0; u < 4 * chunks; ++u) EXPECT_EQ(seen_units[u], u);
  }
}

// Checks a Hopper grid's conversion against its dK/dV CTAs: tail_needs counts, per (head, chunk), the CTAs whose
// q rows (first to last q tile of their runs) meet the chunk, from the dense tile lists; every unit comes once, after
// every one of those CTAs. Returns each unit's position among the dK/dV CTAs (how many come before it).
std::vector<int64_t> check_conversion_units(const FlashPassWork& w, int64_t heads, int64_t chunks, int64_t seqlen) {
  const int64_t ctas = static_cast<int64_t>(w.cta_items.size());
  std::vector<int32_t> needs(static_cast<size_t>(heads * chunks), 0);
  std::vector<int64_t> last_meeting(needs.size(), -1);
  for (int64_t n = 0; n < ctas; ++n) {
    const int32_t item = w.cta_items[n];
    const int32_t outer = (item / w.outer_tiles % w.num_masks) * w.outer_tiles + item % w.outer_tiles;
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = -1;  // rows of the q tiles touching the k tile
    for (int32_t r = w.run_offsets[outer]; r < w.run_offsets[outer + 1]; ++r) {
      for (int32_t q = w.runs[r].begin; q < (w.runs[r].end_and_partial & kRunEndMask); ++q) {
        lo = std::min<int64_t>(lo, int64_t{q} * w.shape.q);
        hi = std::max<int64_t>(hi, std::min<int64_t>(seqlen, int64_t{q + 1} * w.shape.q) - 1);
      }
    }
    for (int64_t c = 0; c < chunks && hi >= 0; ++c) {
      const int64_t begin = c * w.tail_chunk_rows, end = std::min(seqlen, begin + w.tail_chunk_rows);
      if (lo < end && begin <= hi) {
        ++needs[static_cast<size_t>(item / w.outer_tiles * chunks + c)];
        last_meeting[static_cast<size_t>(item / w.outer_tiles * chunks + c)] = n;
      }
    }
  }
  EXPECT_EQ(w.tail_needs, needs);
  std::vector<int64_t> at(static_cast<size_t>(heads * chunks), -1);
  int64_t dkdv_before = 0;
  for (size_t b = 0; b < w.grid_items.size(); ++b) {
    const int32_t item = w.grid_items[b];
    if (item >= 0) {
      EXPECT_EQ(item, w.cta_items[static_cast<size_t>(dkdv_before)]);
      EXPECT_EQ(w.grid_walks[b], w.cta_walks[static_cast<size_t>(dkdv_before)]);
      ++dkdv_before;
      continue;
    }
    const int64_t unit = -1 - item;
    EXPECT_EQ(at[static_cast<size_t>(unit)], -1) << "unit " << unit << " twice";
    at[static_cast<size_t>(unit)] = dkdv_before;
    const size_t counter = static_cast<size_t>(w.tail_heads[unit / chunks] * chunks + unit % chunks);
    EXPECT_GT(dkdv_before, last_meeting[counter]) << "unit " << unit << " before a CTA it waits for";
  }
  EXPECT_EQ(dkdv_before, ctas);
  for (int64_t u = 0; u < heads * chunks; ++u) EXPECT_GE(at[static_cast<size_t>(u)], 0) << "unit " << u << " missing";
  return at;
}

TEST(FlashWork, BackwardConversionWaitsForTheCtasOfItsRows) {
  // causal_document at 32K (documents of 128 to 16K tokens), 8 kv heads on 132 slots, the conversion at the grid's
  // end and one wave after each head: tail_needs counts the CTAs of each chunk's rows, and most chunks wait for far
  // fewer than their head's 256 k tiles (a document's rows only see its own).
  const int64_t seqlen = 32768;
  const AttentionProblem p = make_problem(make_mask("causal_document", seqlen), 1, 64, 8, 128, DType::kBf16);
  FlashPassWork w = build_backward_work(p, flash_tile_shape(128, DType::kBf16, Pass::kBackward), 132);
  const int64_t chunks = perf::backward_tail_chunks_per_head(seqlen, w.tail_chunk_rows);
  ASSERT_GT(chunks, 1);
  for (const int64_t delay : {int64_t{-1}, int64_t{132}}) {
    interleave_backward_conversion(w, chunks, delay);
    check_conversion_units(w, 8, chunks, seqlen);
  }
  const int64_t few = std::count_if(w.tail_needs.begin(), w.tail_needs.end(), [](int32_t n) { return n < 64; });
  EXPECT_GT(few, static_cast<int64_t>(w.tail_needs.size()) / 2) << few << " of " << w.tail_needs.size();
}

TEST(FlashWork, BackwardConversionCountsTheRowsOfTinyChunks) {
  // Chunks shorter than a q tile (as for a GQA group of 64 at hd 256: 4 rows), a sequence off the tile.
  const int64_t seqlen = 1000;
  const AttentionProblem p = make_problem(make_mask("sliding_window_causal:window=300", seqlen), 1, 128, 2, 256,
                                          DType::kBf16);
  FlashPassWork w = build_backward_work(p, flash_tile_shape(256, DType::kBf16, Pass::kBackward), 16);
  w.tail_chunk_rows = 3;
  const int64_t chunks = perf::backward_tail_chunks_per_head(seqlen, w.tail_chunk_rows);
  interleave_backward_conversion(w, chunks, 4);
  check_conversion_units(w, 2, chunks, seqlen);
}

TEST(FlashWork, BackwardConversionFollowsHeadsOnlyWhereCtasAreAboutEquallyLong) {
  const TileShape shape = flash_tile_shape(128, DType::kBf16, Pass::kBackward);
  auto after_heads = [&](const std::string& mask, int64_t seqlen) {
    return backward_conversion_after_heads(
        build_backward_work(make_problem(make_mask(mask, seqlen), 1, 64, 8, 128, DType::kBf16), shape, 132));
  };
  EXPECT_TRUE(after_heads("full", 16384));
  EXPECT_TRUE(after_heads("sliding_window_causal", 32768));  // 248 of 256 k tiles see 18 q tiles, the last 8 fewer
  EXPECT_FALSE(after_heads("sliding_window_causal", 4096));  // 24 of 32
  EXPECT_FALSE(after_heads("causal", 16384));
  EXPECT_FALSE(after_heads("causal_document", 32768));
  EXPECT_FALSE(after_heads("block_causal_document", 32768));
}

}  // namespace
}  // namespace lcab::kernels
