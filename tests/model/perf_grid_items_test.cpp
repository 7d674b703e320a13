// Items counted on tile grids (model/mask_tile_grid.h, model/perf/grid_item_tiles.h) against the slices they
// stand for: grid counts equal MaskTiling's, cost_from_tiles equals cost(), and a ring item table counted on grids
// holds exactly the key rows and costs of one resolved from slices (every item, own-block parts included), for
// block-sparse and full masks over ring, ulysses and usp shardings. A plan sharing a cache equals one without,
// plans made together (make_plans) and queued group after group (make_plan_groups) equal plans made one by one, and
// allgather built once for bound and prediction equals its materialized schedules.
#include <bit>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "model/error.h"
#include "model/mask_spec.h"
#include "model/mask_tile_grid.h"
#include "model/mask_tiling.h"
#include "model/cp/method_common.h"
#include "model/perf/counted_kinds.h"
#include "model/perf/cp_op_cost.h"
#include "model/perf/grid_item_tiles.h"
#include "model/perf/grid_schedule.h"
#include "model/perf/planner.h"
#include "model/perf/ring_item_cache.h"
#include "model/perf/ring_item_costs.h"

namespace lcab::perf {
namespace {

const HardwareProfile& h100() { return builtin_profile("h100_sxm"); }
// lcab_flash's model for a pass ("bwd_paired": the backward scheduled with its documents' k tiles paired, as the
// kernel launches them: KernelScheduler::kGridPairedDocuments, which needs every counter's spans).
KernelCostModel model_of(const std::string& pass) {
  if (pass == "bwd_paired") {
    KernelParams p = h100().kernel("lcab_flash", "bwd", 128, "bf16");
    p.scheduler = KernelScheduler::kGridPairedDocuments;
    return KernelCostModel(h100(), p);
  }
  return KernelCostModel(h100(), h100().kernel("lcab_flash", pass, 128, "bf16"));
}

// Per k-tile column counts of one head mask, from MaskTiling's runs.
std::vector<int64_t> column_tiles(const std::vector<Slice>& slices, int64_t seqlen, TileShape shape) {
  const MaskTiling tiling(slices, seqlen, shape);
  std::vector<int64_t> columns(static_cast<size_t>(seqlen / shape.k), 0);
  for (const TileRun& run : tiling.runs())
    for (int64_t c = run.k_tile_begin; c < run.k_tile_end; ++c) ++columns[static_cast<size_t>(c)];
  return columns;
}

TEST(PerfGridItems, GridCountsEqualMaskTiling) {
  for (const char* spec : {"block_sparse:density=0.3,seed=5", "block_sparse:density=0.05,seed=9", "full"}) {
    const Mask mask = make_mask(spec, 8192, 4);
    const TileShape rows_shape{128, 128}, columns_shape{64, 128};
    const auto rows = TileGrid::make(mask, rows_shape, TileGrid::Lines::kRows);
    const auto columns = TileGrid::make(mask, columns_shape, TileGrid::Lines::kColumns);
    ASSERT_TRUE(rows && columns) << spec;
    for (int h = 0; h < mask.num_head_masks(); ++h) {
      const MaskTiling tiling(mask.slices(h), mask.seqlen(), rows_shape);
      EXPECT_EQ(tiling.counts().partial, 0) << spec;
      for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r) {
        ASSERT_EQ(rows->count(h, r, 0, rows->line_length()), tiling.row_tiles(r)) << spec << " head " << h << " row " << r;
        // a part of the row: the runs' tiles in [13, 40)
        int64_t part = 0;
        for (const TileRun* run = tiling.row_begin(r); run != tiling.row_end(r); ++run)
          part += std::max<int64_t>(0, std::min<int64_t>(run->k_tile_end, 40) - std::max<int64_t>(run->k_tile_begin, 13));
        ASSERT_EQ(rows->count(h, r, 13, 40), part) << spec << " head " << h << " row " << r;
      }
      const std::vector<int64_t> expected = column_tiles(mask.slices(h), mask.seqlen(), columns_shape);
      for (int64_t c = 0; c < columns->num_lines(); ++c)
        ASSERT_EQ(columns->count(h, c, 0, columns->line_length()), expected[static_cast<size_t>(c)]) << spec;
    }
  }
}

// TileGrid::bits gives, bit by bit, what count() gives per position, for spans crossing words and of every length
// up to 64; count_word_groups sums the popcounts of each group.
TEST(PerfGridItems, GatheredBitsEqualPerPositionCounts) {
  const Mask mask = make_mask("block_sparse:density=0.3,seed=7", 32768, 2);
  const auto grid = TileGrid::make(mask, {128, 128}, TileGrid::Lines::kRows);
  ASSERT_TRUE(grid);
  uint64_t state = 99;
  std::vector<uint64_t> words;
  std::vector<int64_t> expected;
  for (int n = 0; n < 2000; ++n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const int head = static_cast<int>((state >> 60) % 2);
    const int64_t line = static_cast<int64_t>((state >> 33) % grid->num_lines());
    const int64_t length = 1 + static_cast<int64_t>((state >> 20) % 64);
    const int64_t begin = static_cast<int64_t>((state >> 40) % (grid->line_length() - length + 1));
    const uint64_t bits = grid->bits(head, line, begin, length);
    for (int64_t i = 0; i < 64; ++i)
      ASSERT_EQ((bits >> i) & 1, i < length ? static_cast<uint64_t>(grid->count(head, line, begin + i, begin + i + 1)) : 0)
          << n << " bit " << i;
    words.push_back(bits);
    if (n % 2 == 1) expected.push_back(grid->count(head, line, begin, begin + length) + std::popcount(words[words.size() - 2]));
  }
  std::vector<int64_t> counts(words.size() / 2, -1);
  count_word_groups(words.data(), counts.size(), 2, counts.data());
  std::vector<int64_t> sums;
  for (size_t g = 0; g < counts.size(); ++g)
    sums.push_back(std::popcount(words[2 * g]) + std::popcount(words[2 * g + 1]));
  EXPECT_EQ(counts, sums);
  EXPECT_EQ(counts, expected);
}

TEST(PerfGridItems, OnlyTileAlignedMasksHaveGrids) {
  EXPECT_FALSE(TileGrid::make(make_mask("block_sparse:block=64", 4096, 2), {128, 128}, TileGrid::Lines::kRows));
  EXPECT_FALSE(TileGrid::make(make_mask("causal", 4096), {128, 128}, TileGrid::Lines::kRows));
  EXPECT_FALSE(TileGrid::make(make_mask("variable_block_sparse", 8192, 2), {64, 128}, TileGrid::Lines::kColumns));
  EXPECT_TRUE(TileGrid::make(make_mask("block_sparse:block=64", 4096, 2), {64, 64}, TileGrid::Lines::kRows));
  // A slice off the tiles after thousands of aligned ones (past the slices checked before the bits are made).
  std::vector<Slice> slices;
  for (int64_t q = 0; q < 65536; q += 128)
    for (int64_t k = 0; k < 4096; k += 256) slices.push_back({q, q + 128, k, k + 128, SliceType::kFull});
  ASSERT_GT(slices.size(), size_t{4096});
  const Mask aligned(65536, slices);
  EXPECT_TRUE(TileGrid::aligned(aligned, {128, 128}));
  EXPECT_TRUE(TileGrid::make(aligned, {128, 128}, TileGrid::Lines::kRows));
  EXPECT_TRUE(TileGrid::make(aligned, {64, 128}, TileGrid::Lines::kColumns));
  slices.back().k_end -= 64;
  const Mask late(65536, slices);
  EXPECT_FALSE(TileGrid::aligned(late, {128, 128}));
  EXPECT_FALSE(TileGrid::make(late, {128, 128}, TileGrid::Lines::kRows));
  EXPECT_FALSE(TileGrid::make(late, {64, 128}, TileGrid::Lines::kColumns));
}

// A columns grid read off a rows grid (bit transpose) equals the one made from the slices, bit for bit: block-sparse
// masks whose tile counts are not multiples of 64 (partial transpose blocks, a last word of half a doubled block),
// several heads, `full`; q tiles the same as the rows' or half; other shapes are declined.
TEST(PerfGridItems, ColumnsOfRowsGridEqualColumnsGridMade) {
  int compared = 0;
  for (const auto& [spec, seqlen] : std::vector<std::pair<std::string, int64_t>>{
           {"block_sparse:density=0.2,seed=2", 16384},
           {"block_sparse:density=0.5,seed=3", 128 * 100},
           {"block_sparse:density=0.1,seed=4", 128 * 37},
           {"block_sparse:density=0.3,block=64,seed=5", 64 * 130},
           {"full", 128 * 70}}) {
    const Mask mask = make_mask(spec, seqlen, 3);
    for (const TileShape rows_shape : {TileShape{128, 128}, TileShape{64, 64}, TileShape{128, 64}}) {
      const auto rows = TileGrid::make(mask, rows_shape, TileGrid::Lines::kRows);
      if (!rows) continue;
      for (const int64_t q : {rows_shape.q, rows_shape.q / 2}) {
        const TileShape shape{static_cast<int>(q), rows_shape.k};
        const auto made = TileGrid::make(mask, shape, TileGrid::Lines::kColumns);
        const auto read = TileGrid::columns_of(*rows, shape);
        ASSERT_TRUE(made && read) << spec;
        ASSERT_EQ(made->num_lines(), read->num_lines());
        ASSERT_EQ(made->line_length(), read->line_length());
        ASSERT_EQ(made->heads(), read->heads());
        for (int h = 0; h < made->heads(); ++h)
          for (int64_t line = 0; line < made->num_lines(); ++line)
            for (int64_t at = 0; at < made->line_length(); at += 64) {
              const int64_t n = std::min<int64_t>(64, made->line_length() - at);
              ASSERT_EQ(made->bits(h, line, at, n), read->bits(h, line, at, n))
                  << spec << " " << rows_shape.q << "x" << rows_shape.k << " -> q " << q << " head " << h << " line "
                  << line << " at " << at;
            }
        ++compared;
      }
      EXPECT_FALSE(TileGrid::columns_of(*rows, {static_cast<int>(rows_shape.q), rows_shape.k * 2}));
      EXPECT_FALSE(TileGrid::columns_of(*rows, {static_cast<int>(rows_shape.q) / 4, rows_shape.k}));
    }
  }
  EXPECT_GE(compared, 14);
}

// The cache's backward (columns) grid, read off the forward's rows grid it holds, is the grid made from the slices;
// asked for first, it is made from the slices.
TEST(PerfGridItems, CachedColumnsGridEqualsColumnsGridMade) {
  const auto mask = std::make_shared<const Mask>(make_mask("block_sparse:density=0.2,seed=6", 128 * 90, 8));
  const KernelCostModel fwd = model_of("fwd"), bwd = model_of("bwd");
  ASSERT_NE(bwd.params().work_item, KernelWorkItem::kQRowPerHead);
  const auto made = TileGrid::make(*mask, bwd.params().tile, TileGrid::Lines::kColumns);
  ASSERT_TRUE(made);
  for (const bool rows_first : {true, false}) {
    RingItemCostCache cache;
    if (rows_first) {
      ASSERT_TRUE(cache.grid(mask, fwd));
    }
    const auto cached = cache.grid(mask, bwd);
    ASSERT_TRUE(cached);
    ASSERT_EQ(cached->lines(), TileGrid::Lines::kColumns);
    ASSERT_EQ(cached->num_lines(), made->num_lines());
    ASSERT_EQ(cached->line_length(), made->line_length());
    for (int h = 0; h < made->heads(); ++h)
      for (int64_t line = 0; line < made->num_lines(); ++line)
        for (int64_t at = 0; at < made->line_length(); at += 64) {
          const int64_t n = std::min<int64_t>(64, made->line_length() - at);
          ASSERT_EQ(cached->bits(h, line, at, n), made->bits(h, line, at, n)) << rows_first << " " << line;
        }
  }
}

// The whole mask's counts per head mask, read off its grid; k-tile columns with their first and last q tile (what a
// grid that pairs documents, the lcab_flash backward's, needs).
std::vector<OuterTileCounts> whole_mask_counts(const Mask& mask, const TileGrid& grid, bool columns) {
  std::vector<OuterTileCounts> counts(static_cast<size_t>(mask.num_head_masks()));
  for (int h = 0; h < mask.num_head_masks(); ++h) {
    OuterTileCounts& c = counts[static_cast<size_t>(h)];
    for (int64_t line = 0; line < grid.num_lines(); ++line) {
      c.tiles.push_back(grid.count(h, line, 0, grid.line_length()));
      if (!columns) continue;
      c.first_inner.push_back(static_cast<int32_t>(grid.first(h, line, 0, grid.line_length())));
      const int64_t end = grid.last_end(h, line, 0, grid.line_length());
      c.last_inner.push_back(static_cast<int32_t>(end < 0 ? -1 : end - 1));
    }
    c.area = static_cast<double>(mask.area(h));
  }
  return counts;
}

TEST(PerfGridItems, CostFromTilesEqualsCostOfSlices) {
  const Mask mask = make_mask("block_sparse:density=0.2,seed=2", 16384, 8);
  const AttentionShape shape{1, 64, 8, 128, 2};
  for (const char* pass : {"fwd", "bwd", "bwd_paired"}) {
    const KernelCostModel model = model_of(pass);
    const bool columns = model.params().work_item != KernelWorkItem::kQRowPerHead;
    const auto grid = TileGrid::make(mask, model.params().tile,
                                     columns ? TileGrid::Lines::kColumns : TileGrid::Lines::kRows);
    ASSERT_TRUE(grid);
    const std::vector<OuterTileCounts> counts = whole_mask_counts(mask, *grid, columns);
    const KernelCost a = model.cost(mask, shape);
    const KernelCost b = model.cost_from_tiles(counts, mask.seqlen(), mask.seqlen(), shape);
    EXPECT_EQ(a.time_us, b.time_us) << pass;
    EXPECT_EQ(a.flops, b.flops) << pass;
    EXPECT_EQ(a.full_tiles, b.full_tiles) << pass;
    EXPECT_EQ(a.work_items, b.work_items) << pass;
    EXPECT_EQ(a.slots.makespan_us, b.slots.makespan_us) << pass;
  }
}

TEST(PerfGridItems, CostFromTilesEqualsCostWithCallLevelTerms) {
  // K/V expansion, sustained-load clocks and the host floor depend on the shape and the call's GPU time only:
  // tile counts still determine the cost, bit for bit.
  const Mask mask = make_mask("block_sparse:density=0.2,seed=2", 16384, 8);
  const AttentionShape shape{1, 64, 8, 128, 2};
  for (const char* pass : {"fwd", "bwd"}) {
    KernelParams p = h100().kernel("lcab_flash", pass, 128, "bf16");
    p.kv_expand_bytes_per_element = Sourced{4.5, "test"};
    p.sustained_slowdown = Sourced{0.25, "test"};
    p.sustained_rate_per_us = Sourced{1e-4, "test"};
    for (double floor_us : {10.0, 1e6}) {
      p.host_floor_us = Sourced{floor_us, "test"};
      const KernelCostModel model(h100(), p);
      ASSERT_TRUE(model.tile_counts_determine_cost());
      const bool columns = p.work_item != KernelWorkItem::kQRowPerHead;
      const auto grid = TileGrid::make(mask, p.tile, columns ? TileGrid::Lines::kColumns : TileGrid::Lines::kRows);
      ASSERT_TRUE(grid);
      const std::vector<OuterTileCounts> counts = whole_mask_counts(mask, *grid, columns);
      const KernelCost a = model.cost(mask, shape);
      const KernelCost b = model.cost_from_tiles(counts, mask.seqlen(), mask.seqlen(), shape);
      EXPECT_EQ(a.time_us, b.time_us) << pass << " floor " << floor_us;
      EXPECT_GT(a.sustained_us + a.host_wait_us, 0) << pass;
    }
  }
}

// Counts carry no slices: a kernel whose cost reads slices beyond their tiling refuses them. cuDNN's whole-sequence
// band widens the slices before tiling; per-slice boundary masking (slice_us) needs each boundary tile's slices, and
// idle key halves (idle_half_tile_us) each boundary tile's idle halves.
TEST(PerfGridItems, CostFromTilesRefusesCountsThatCannotDetermineTheCost) {
  const AttentionShape shape{1, 8, 8, 128, 2};
  OuterTileCounts aligned{{2, 1}, {}, 128.0 * 384, {}};  // two 128-key columns, no boundary tiles
  OuterTileCounts with_boundary{{2, 1}, {1, 0}, 128.0 * 320, {}};
  KernelParams p = model_of("bwd").params();
  // The refusal is the term's, whatever a refit puts in it (the H100's refit of 2026-11-25 fitted it at 0).
  p.slice_us = Sourced{0.5, "test"};
  const KernelCostModel sliced(p, 132, 3.35e12);
  EXPECT_TRUE(sliced.tile_counts_determine_cost());
  EXPECT_GT(sliced.cost_from_tiles(std::span(&aligned, 1), 128, 256, shape).time_us, 0);
  EXPECT_THROW(sliced.cost_from_tiles(std::span(&with_boundary, 1), 128, 256, shape), lcab::Error);
  p.slice_us.reset();
  // Boundary tiles with an idle key half cost their own (idle_half_tile_us): counts must say how many there are.
  p.idle_half_tile_us = Sourced{1.0, "test"};
  EXPECT_THROW(KernelCostModel(p, 132, 3.35e12).cost_from_tiles(std::span(&with_boundary, 1), 128, 256, shape),
               lcab::Error);
  OuterTileCounts with_halves = with_boundary;
  with_halves.idle_half = {1, 0};
  EXPECT_NO_THROW(KernelCostModel(p, 132, 3.35e12).cost_from_tiles(std::span(&with_halves, 1), 128, 256, shape));
  EXPECT_GT(KernelCostModel(p, 132, 3.35e12).cost_from_tiles(std::span(&aligned, 1), 128, 256, shape).time_us, 0);
  p.idle_half_tile_us.reset();
  EXPECT_NO_THROW(KernelCostModel(p, 132, 3.35e12).cost_from_tiles(std::span(&with_boundary, 1), 128, 256, shape));
  p.whole_sequence_band = true;
  const KernelCostModel band(p, 132, 3.35e12);
  EXPECT_FALSE(band.tile_counts_determine_cost());
  EXPECT_THROW(band.cost_from_tiles(std::span(&aligned, 1), 128, 256, shape), lcab::Error);
}

cp::CpConfig ring_config(const std::string& method, int64_t gpus, int64_t ulysses, std::shared_ptr<const Mask> mask) {
  cp::CpConfig c;
  c.method = method;
  c.gpus = gpus;
  c.gpus_per_node = 8;
  c.ulysses_degree = ulysses;
  c.workload.kv_heads = mask->is_per_kv_head() ? mask->num_head_masks() : 4;  // GQA 4
  c.workload.heads = 4 * c.workload.kv_heads;
  c.workload.mask = std::move(mask);
  return cp::normalize_config(c);
}

TEST(PerfGridItems, RingTablesOnGridsEqualResolvedTables) {
  const KernelCostModel fwd = model_of("fwd"), bwd = model_of("bwd");
  const double rate = h100().executor_pass_rate();
  int compared = 0;
  for (const char* spec : {"block_sparse:density=0.2,seed=4", "block_sparse:density=0.6,seed=8", "full"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    const std::array<std::shared_ptr<const TileGrid>, 2> grids{
        TileGrid::make(*mask, fwd.params().tile, TileGrid::Lines::kRows),
        TileGrid::make(*mask, bwd.params().tile, TileGrid::Lines::kColumns)};
    for (const auto& [method, gpus, ulysses] :
         std::vector<std::tuple<std::string, int64_t, int64_t>>{{"ring", 2, 0}, {"ring", 8, 0}, {"ring", 16, 0},
                                                                {"ulysses", 4, 0}, {"usp", 8, 2}, {"usp", 16, 4}}) {
      const cp::CpConfig config = ring_config(method, gpus, ulysses, mask);
      const cp::UlyssesRingProgram program(config, cp::Pass::kBackward);
      const RingItemCosts resolved(program, &fwd, &bwd, rate);
      const RingItemCosts counted(program, &fwd, &bwd, rate, grids);
      std::ostringstream where;
      where << spec << " " << method << " P=" << gpus << " U=" << ulysses;
      ASSERT_FALSE(resolved.counted_on_grids()) << where.str();
      ASSERT_TRUE(counted.counted_on_grids()) << where.str();
      ASSERT_EQ(resolved.groups(), counted.groups());
      const int64_t R = resolved.positions();
      for (int g = 0; g < resolved.groups(); ++g)
        for (int64_t pos = 0; pos < R; ++pos)
          for (int64_t source = 0; source < R; ++source)
            for (cp::RingItemPart part : {cp::RingItemPart::kWhole, cp::RingItemPart::kOwnHead,
                                          cp::RingItemPart::kOwnTail}) {
              if (part != cp::RingItemPart::kWhole && (source != pos || !program.cuts_own_block())) continue;
              const auto a = resolved.key_rows(g, pos, source, part);
              const auto b = counted.key_rows(g, pos, source, part);
              ASSERT_EQ(a.has_value(), b.has_value()) << where.str() << " g" << g << " " << pos << "<-" << source;
              if (!a) continue;
              EXPECT_EQ(*a, *b) << where.str();
              for (cp::Pass pass : {cp::Pass::kForward, cp::Pass::kBackward}) {
                const RingItemCosts::Cost& x = resolved.cost(pass, g, pos, source, part);
                const RingItemCosts::Cost& y = counted.cost(pass, g, pos, source, part);
                ASSERT_EQ(x.time_us, y.time_us) << where.str() << " g" << g << " " << pos << "<-" << source;
                ASSERT_EQ(x.flops, y.flops) << where.str();
                ASSERT_EQ(x.workspace_bytes, y.workspace_bytes) << where.str();
                ++compared;
              }
            }
    }
  }
  EXPECT_GT(compared, 1000);
}

// Tables of 16K items that rarely repeat (random blocks at 128K tokens and R = 128): lookups stop after the probe (LookupGate), and
// every item is still what costing it alone gives: the table from slices against each item resolved and costed by
// KernelCostModel::cost, the table on grids against the one from slices, whole items, both passes, exactly.
TEST(PerfGridItems, TablesPastTheLookupGateEqualItemByItemCosts) {
  const KernelCostModel fwd = model_of("fwd"), bwd = model_of("bwd");
  const std::array<const KernelCostModel*, 2> models{&fwd, &bwd};
  const double rate = h100().executor_pass_rate();
  for (const char* spec : {"variable_block_sparse", "block_sparse:density=0.3,seed=3"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 131072, 4));
    const cp::CpConfig config = ring_config("ring", 128, 0, mask);
    const cp::UlyssesRingProgram program(config, cp::Pass::kForward);
    const RingItemCosts resolved(program, &fwd, &bwd, rate);
    const std::array<std::shared_ptr<const TileGrid>, 2> grids{
        TileGrid::make(*mask, fwd.params().tile, TileGrid::Lines::kRows),
        TileGrid::make(*mask, bwd.params().tile, TileGrid::Lines::kColumns)};
    std::optional<RingItemCosts> counted;
    if (grids[0] && grids[1]) counted.emplace(program, &fwd, &bwd, rate, grids);
    cp::MaskResolver resolver(*mask);
    const int64_t R = resolved.positions();
    int items = 0;
    for (int64_t pos = 0; pos < R; ++pos) {
      resolver.resolve(program.sharding().positions[static_cast<size_t>(pos)], program.index_of_positions());
      for (int64_t source = 0; source < R; ++source) {
        const std::optional<cp::ComputeItem> item = program.item(resolver, 0, source);
        ASSERT_EQ(item.has_value(), resolved.key_rows(0, pos, source).has_value()) << spec << " " << pos;
        if (counted) {
          ASSERT_EQ(counted->key_rows(0, pos, source), resolved.key_rows(0, pos, source));
        }
        if (!item) continue;
        ++items;
        for (cp::Pass pass : {cp::Pass::kForward, cp::Pass::kBackward}) {
          const KernelCostModel& m = *models[static_cast<size_t>(pass)];
          const int64_t q = item->q_rows.length(), k = item->k_rows.length();
          const KernelCost c = m.cost(item->slices, q, k, item_shape(*item, config.workload));
          const RingItemCosts::Cost& x = resolved.cost(pass, 0, pos, source);
          ASSERT_EQ(x.time_us, compute_op_us(c.time_us, *item, pass, config.workload, rate)) << spec << " " << pos
                                                                                              << "<-" << source;
          ASSERT_EQ(x.flops, c.flops);
          if (!counted) continue;
          const RingItemCosts::Cost& y = counted->cost(pass, 0, pos, source);
          ASSERT_EQ(x.time_us, y.time_us) << spec << " " << pos << "<-" << source;
          ASSERT_EQ(x.flops, y.flops);
          ASSERT_EQ(x.workspace_bytes, y.workspace_bytes);
        }
      }
    }
    EXPECT_GT(items, 2 * LookupGate::kProbeLookups) << spec;
    EXPECT_EQ(counted.has_value(), std::string(spec).starts_with("block_sparse")) << spec;
  }
}

// Lookups stop for good after the probe when fewer than one in kMinHitShare found a kept content.
TEST(PerfGridItems, LookupGateClosesOnRareHits) {
  LookupGate rare, frequent;
  for (int64_t n = 0; n < LookupGate::kProbeLookups; ++n) {
    EXPECT_TRUE(rare.open());
    rare.record(n % (2 * LookupGate::kMinHitShare) == 0);
    frequent.record(n % LookupGate::kMinHitShare == 0);
  }
  EXPECT_FALSE(rare.open());
  EXPECT_TRUE(frequent.open());
}

// Every item of a table made for one pass only (the tiler's main grid is then that pass's: rows for the forward,
// columns for the backward) equals the resolved table's.
TEST(PerfGridItems, OnePassRingTablesOnGridsEqualResolvedTables) {
  const KernelCostModel fwd = model_of("fwd"), bwd = model_of("bwd");
  const double rate = h100().executor_pass_rate();
  int compared = 0;
  for (const char* spec : {"block_sparse:density=0.2,seed=5", "block_sparse:density=0.05,seed=9"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    const std::array<std::shared_ptr<const TileGrid>, 2> grids{
        TileGrid::make(*mask, fwd.params().tile, TileGrid::Lines::kRows),
        TileGrid::make(*mask, bwd.params().tile, TileGrid::Lines::kColumns)};
    for (const auto& [method, gpus, ulysses] :
         std::vector<std::tuple<std::string, int64_t, int64_t>>{{"ring", 8, 0}, {"usp", 16, 2}}) {
      const cp::UlyssesRingProgram program(ring_config(method, gpus, ulysses, mask), cp::Pass::kBackward);
      for (cp::Pass pass : {cp::Pass::kForward, cp::Pass::kBackward}) {
        const bool f = pass == cp::Pass::kForward;
        const RingItemCosts resolved(program, f ? &fwd : nullptr, f ? nullptr : &bwd, rate);
        const RingItemCosts counted(program, f ? &fwd : nullptr, f ? nullptr : &bwd, rate,
                                    {f ? grids[0] : nullptr, f ? nullptr : grids[1]});
        ASSERT_TRUE(counted.counted_on_grids()) << spec << " " << method;
        const int64_t R = resolved.positions();
        for (int g = 0; g < resolved.groups(); ++g)
          for (int64_t pos = 0; pos < R; ++pos)
            for (int64_t source = 0; source < R; ++source)
              for (cp::RingItemPart part :
                   {cp::RingItemPart::kWhole, cp::RingItemPart::kOwnHead, cp::RingItemPart::kOwnTail}) {
                if (part != cp::RingItemPart::kWhole && (source != pos || !program.cuts_own_block())) continue;
                const auto a = resolved.key_rows(g, pos, source, part);
                const auto b = counted.key_rows(g, pos, source, part);
                ASSERT_EQ(a.has_value(), b.has_value()) << spec << " " << method << " " << pos << "<-" << source;
                if (!a) continue;
                EXPECT_EQ(*a, *b);
                const RingItemCosts::Cost& x = resolved.cost(pass, g, pos, source, part);
                const RingItemCosts::Cost& y = counted.cost(pass, g, pos, source, part);
                ASSERT_EQ(x.time_us, y.time_us) << spec << " " << method << " " << pos << "<-" << source;
                ASSERT_EQ(x.flops, y.flops);
                ASSERT_EQ(x.workspace_bytes, y.workspace_bytes);
                ++compared;
              }
      }
    }
  }
  EXPECT_GT(compared, 500);
}

// UlyssesRingProgram::item_into with one output reused over every (position, member, source) gives what a fresh
// item() gives, every field (per-kv-head and shared masks, one and two Ulysses members, items without a cell).
TEST(PerfGridItems, RingItemIntoEqualsFreshItem) {
  int compared = 0, empty = 0;
  for (const char* spec : {"variable_block_sparse:density=0.3,seed=2", "causal_document:seed=3"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    for (const auto& [method, gpus, ulysses] :
         std::vector<std::tuple<std::string, int64_t, int64_t>>{{"ring", 8, 0}, {"usp", 8, 2}}) {
      const cp::UlyssesRingProgram program(ring_config(method, gpus, ulysses, mask), cp::Pass::kForward);
      cp::MaskResolver resolver(*mask);
      cp::ComputeItem reused;
      const int64_t R = program.layout().ring;
      for (int64_t pos = 0; pos < R; ++pos) {
        resolver.resolve(program.sharding().positions[static_cast<size_t>(pos)], program.index_of_positions());
        for (int64_t u = 0; u < program.layout().ulysses; ++u)
          for (int64_t source = 0; source < R; ++source) {
            const std::optional<cp::ComputeItem> fresh = program.item(resolver, u, source);
            const bool got = program.item_into(resolver, u, source, reused);
            ASSERT_EQ(fresh.has_value(), got) << spec << " " << pos << " " << source;
            if (!got) {
              ++empty;
              continue;
            }
            EXPECT_EQ(fresh->q_rows, reused.q_rows);
            EXPECT_EQ(fresh->k_rows, reused.k_rows);
            EXPECT_EQ(fresh->q_heads.begin, reused.q_heads.begin);
            EXPECT_EQ(fresh->q_heads.end, reused.q_heads.end);
            EXPECT_EQ(fresh->kv_heads.begin, reused.kv_heads.begin);
            EXPECT_EQ(fresh->kv_heads.end, reused.kv_heads.end);
            EXPECT_EQ(fresh->slices, reused.slices) << spec << " " << pos << " " << source;
            EXPECT_EQ(fresh->pairs, reused.pairs);
            EXPECT_EQ(fresh->q_buffer, reused.q_buffer);
            EXPECT_EQ(fresh->k_buffer, reused.k_buffer);
            EXPECT_EQ(fresh->q_side, reused.q_side);
            EXPECT_EQ(fresh->q_map, reused.q_map);
            EXPECT_EQ(fresh->k_map, reused.k_map);
            EXPECT_EQ(fresh->grad_buffer, reused.grad_buffer);
            EXPECT_EQ(fresh->grad_row_begin, reused.grad_row_begin);
            ++compared;
          }
      }
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(empty, 0);
}

// item_into with one scratch and one output reused over items of every size (and items without a cell) gives
// what a fresh item() gives, for tilers of both passes and of each pass alone.
TEST(PerfGridItems, ReusedBuffersGiveWhatFreshOnesGive) {
  const KernelCostModel fwd = model_of("fwd"), bwd = model_of("bwd");
  const auto mask = std::make_shared<const Mask>(make_mask("block_sparse:density=0.05,seed=3", 16384, 4));
  const auto rows = TileGrid::make(*mask, fwd.params().tile, TileGrid::Lines::kRows);
  const auto columns = TileGrid::make(*mask, bwd.params().tile, TileGrid::Lines::kColumns);
  const cp::UlyssesRingProgram program(ring_config("ring", 8, 0, mask), cp::Pass::kBackward);
  const std::vector<cp::TokenMap>& maps = program.sharding().positions;
  const int64_t length = program.sharding().rows_per_position;
  int compared = 0, empty = 0;
  for (const std::array<const TileGrid*, 2>& grids : std::vector<std::array<const TileGrid*, 2>>{
           {rows.get(), columns.get()}, {rows.get(), nullptr}, {nullptr, columns.get()}}) {
    const GridItemTiler tiler(grids, {false, true});
    GridItemScratch scratch;
    GridItem reused;
    uint64_t state = 12345;
    for (int n = 0; n < 400; ++n) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const size_t q = (state >> 33) % maps.size(), k = (state >> 40) % maps.size();
      const int64_t a = static_cast<int64_t>((state >> 20) % 5) * 128;
      // One q tile against two k chunks of a sparse mask every other time: some items have no cell.
      const int64_t cut = static_cast<int64_t>((state >> 50) % 5) * 128;
      const int64_t b = n % 2 ? a + 128 : std::max<int64_t>(a + 128, length - cut);
      const std::vector<int> heads =
          n % 3 == 0 ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{static_cast<int>(n % 4)};
      const std::optional<GridItem> fresh = tiler.item(maps[q], a, b, maps[k], heads);
      const bool got = tiler.item_into(maps[q], a, b, maps[k], heads, reused, scratch);
      ASSERT_EQ(fresh.has_value(), got) << n;
      if (!got) {
        ++empty;
        continue;
      }
      EXPECT_EQ(fresh->q_rows, reused.q_rows) << n;
      EXPECT_EQ(fresh->k_rows, reused.k_rows) << n;
      for (int p = 0; p < 2; ++p) {
        ASSERT_EQ(fresh->counts[p].size(), reused.counts[p].size()) << n;
        for (size_t h = 0; h < fresh->counts[p].size(); ++h) {
          EXPECT_EQ(fresh->counts[p][h].tiles, reused.counts[p][h].tiles) << n << " pass " << p;
          EXPECT_EQ(fresh->counts[p][h].partial, reused.counts[p][h].partial) << n;
          EXPECT_EQ(fresh->counts[p][h].partial_slices, reused.counts[p][h].partial_slices) << n;
          EXPECT_EQ(fresh->counts[p][h].area, reused.counts[p][h].area) << n;
        }
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 600);
  EXPECT_GT(empty, 0);
}

// The spans a pairing backward reads (OuterTileCounts::first_inner, last_inner) on every path of the tiler: words
// gathered from the columns grid itself or from the forward's rows grid, and the grid searched per column, against
// each column's first and last touched q tile found tile by tile in the columns grid. A mask of documents (their k
// tiles share their last q tile) and a block-sparse one, items of one ring position's rows against another's keys
// (short runs: gathered) and against all keys of a token map (long runs: searched).
TEST(PerfGridItems, SpansOfEveryPathAreEachColumnsFirstAndLastQTile) {
  const KernelCostModel fwd = model_of("fwd"), bwd = model_of("bwd");
  int checked = 0, with_shared_last = 0;
  for (const char* spec : {"block_causal_document:seed=3", "block_sparse:density=0.1,seed=4"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    const auto rows = TileGrid::make(*mask, fwd.params().tile, TileGrid::Lines::kRows);
    const auto columns = TileGrid::make(*mask, bwd.params().tile, TileGrid::Lines::kColumns);
    const int64_t tq = bwd.params().tile.q, tk = bwd.params().tile.k;
    const cp::UlyssesRingProgram program(ring_config("ring", 4, 0, mask), cp::Pass::kBackward);
    const std::vector<cp::TokenMap>& maps = program.sharding().positions;
    cp::TokenMap all_keys;
    all_keys.append({0, 16384, false});
    for (const std::array<const TileGrid*, 2>& grids :
         std::vector<std::array<const TileGrid*, 2>>{{rows.get(), columns.get()}, {nullptr, columns.get()}}) {
      const GridItemTiler tiler(grids, {false, true}, {false, true});
      const bool both = grids[0] != nullptr;  // gathered: the columns from the forward's rows grid's words
      for (size_t q = 0; q < maps.size(); ++q)
        for (size_t k = 0; k <= maps.size(); ++k) {
          const cp::TokenMap& k_map = k < maps.size() ? maps[k] : all_keys;
          std::vector<int> heads;
          for (int h = 0; h < mask->num_head_masks(); ++h) heads.push_back(h);
          const std::optional<GridItem> item = tiler.item(maps[q], 0, maps[q].rows(), k_map, heads);
          if (!item) continue;
          const std::vector<OuterTileCounts>& counts = item->counts[1];
          ASSERT_EQ(counts.size(), heads.size());
          for (size_t h = 0; h < heads.size(); ++h) {
            const OuterTileCounts& c = counts[h];
            ASSERT_EQ(c.first_inner.size(), c.tiles.size()) << spec;
            ASSERT_EQ(c.last_inner.size(), c.tiles.size()) << spec;
            bool shared = false;
            for (size_t o = 0; o < c.tiles.size(); ++o) {
              // The column's global k tile and, over the item's q tiles in order, the first and last touched one.
              const int64_t key = k_map.global_of(item->k_rows.begin + static_cast<int64_t>(o) * tk);
              int32_t first = -1, last = -1;
              for (int64_t j = 0; j < item->q_rows.length() / tq; ++j) {
                const int64_t row = maps[q].global_of(item->q_rows.begin + j * tq);
                if (key < 0 || row < 0 || columns->count(heads[h], key / tk, row / tq, row / tq + 1) == 0) continue;
                if (first < 0) first = static_cast<int32_t>(j);
                last = static_cast<int32_t>(j);
              }
              EXPECT_EQ(c.last_inner[o], last) << spec << " column " << o << (both ? " (both passes' grids)" : "");
              shared = shared || (o > 0 && last >= 0 && c.last_inner[o - 1] == last);
              ++checked;
            }
            if (!shared) continue;  // no pair can be made: the first ones may be given as the last ones
            ++with_shared_last;
            for (size_t o = 0; o < c.tiles.size(); ++o) {
              const int64_t key = k_map.global_of(item->k_rows.begin + static_cast<int64_t>(o) * tk);
              int32_t first = -1;
              for (int64_t j = 0; j < item->q_rows.length() / tq && first < 0; ++j) {
                const int64_t row = maps[q].global_of(item->q_rows.begin + j * tq);
                if (key >= 0 && row >= 0 && columns->count(heads[h], key / tk, row / tq, row / tq + 1) > 0)
                  first = static_cast<int32_t>(j);
              }
              EXPECT_EQ(c.first_inner[o], first) << spec << " column " << o << (both ? " (both passes' grids)" : "");
            }
          }
        }
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(with_shared_last, 10);
}

TEST(PerfGridItems, UnalignedShardingsFallBackToSlices) {
  // 2R chunks of 4096 / 64 = 64 tokens: not on the 128-row tiles, so the table resolves slices.
  const KernelCostModel fwd = model_of("fwd"), bwd = model_of("bwd");
  const auto mask = std::make_shared<const Mask>(make_mask("block_sparse", 4096, 4));
  const std::array<std::shared_ptr<const TileGrid>, 2> grids{
      TileGrid::make(*mask, fwd.params().tile, TileGrid::Lines::kRows),
      TileGrid::make(*mask, bwd.params().tile, TileGrid::Lines::kColumns)};
  const cp::UlyssesRingProgram program(ring_config("ring", 32, 0, mask), cp::Pass::kForward);
  EXPECT_FALSE(RingItemCosts(program, &fwd, &bwd, h100().executor_pass_rate(), grids).counted_on_grids());
}

TEST(PerfGridItems, AllgatherSchedulesOnGridsEqualResolvedSchedules) {
  int compared = 0;
  // block_causal_document: documents whose k tiles the paired backward pairs, on items of whole key rows (the grid
  // searched per column, not gathered).
  for (const char* spec : {"block_sparse:density=0.2,seed=6", "full", "block_causal_document:seed=3"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 4));
    for (int64_t gpus : {2, 8, 32}) {
      const cp::CpConfig config = ring_config("allgather", gpus, 0, mask);
      const cp::CpMethod& method = cp::builtin_cp_methods().find("allgather");
      for (const char* pass_name : {"fwd", "bwd", "bwd_paired"}) {
        const KernelCostModel model = model_of(pass_name);
        const cp::Pass pass = std::string(pass_name) == "fwd" ? cp::Pass::kForward : cp::Pass::kBackward;
        const bool columns = model.params().work_item != KernelWorkItem::kQRowPerHead;
        const auto grid = TileGrid::make(*mask, model.params().tile,
                                         columns ? TileGrid::Lines::kColumns : TileGrid::Lines::kRows);
        const std::optional<GridSchedule> counted = build_on_grid(method, config, pass, model, grid);
        ASSERT_TRUE(counted) << spec << " P=" << gpus;
        const cp::Schedule resolved = cp::build_schedule(config, pass);
        ASSERT_EQ(resolved.ranks.size(), counted->schedule.ranks.size());
        for (size_t r = 0; r < resolved.ranks.size(); ++r) {
          const auto& a = resolved.ranks[r];
          const auto& b = counted->schedule.ranks[r];
          ASSERT_EQ(a.ops.size(), b.ops.size()) << spec << " P=" << gpus << " rank " << r;
          ASSERT_EQ(a.items.size(), b.items.size());
          ASSERT_EQ(a.items.size(), counted->item_costs[r].size());
          for (size_t n = 0; n < a.items.size(); ++n) {
            const cp::ComputeItem& x = a.items[n];
            const cp::ComputeItem& y = b.items[n];
            EXPECT_EQ(x.q_rows, y.q_rows);
            EXPECT_EQ(x.k_rows, y.k_rows);
            EXPECT_EQ(x.pairs, y.pairs);
            EXPECT_EQ(x.grad_row_begin, y.grad_row_begin);
            const KernelCost c = model.cost(x.slices, x.q_rows.length(), x.k_rows.length(),
                                            AttentionShape{1, 16, 4, 128, 2});
            EXPECT_EQ(c.time_us, counted->item_costs[r][n].time_us) << spec << " P=" << gpus << " rank " << r;
            EXPECT_EQ(c.flops, counted->item_costs[r][n].flops);
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 100);
  // Off the tiles (chunks of 16384 / 256 = 64 tokens): no grid schedule.
  const auto mask = std::make_shared<const Mask>(make_mask("block_sparse", 16384, 4));
  const KernelCostModel model = model_of("fwd");
  EXPECT_FALSE(build_on_grid(cp::builtin_cp_methods().find("allgather"), ring_config("allgather", 128, 0, mask),
                             cp::Pass::kForward, model, TileGrid::make(*mask, model.params().tile, TileGrid::Lines::kRows)));
}

TEST(PerfGridItems, AllgatherPredictionsOnGridsEqualResolved) {
  // The predictor's grid path (summaries) against the materialized schedules it keeps for timelines.
  const auto mask = std::make_shared<const Mask>(make_mask("block_sparse:density=0.3,seed=1", 32768, 8));
  CpPredictor predictor(h100(), {16, 8});
  const cp::CpConfig config = ring_config("allgather", 16, 0, mask);
  const std::vector<cp::Pass> passes{cp::Pass::kForward, cp::Pass::kBackward};
  const CpPrediction fast = predictor.predict(config, {}, passes, PredictOptions{false, false, false});
  const CpPrediction kept = predictor.predict(config, {}, passes, PredictOptions{false, true, false});
  ASSERT_EQ(fast.passes.size(), kept.passes.size());
  for (size_t n = 0; n < fast.passes.size(); ++n) {
    EXPECT_EQ(fast.passes[n].simulation.time_us, kept.passes[n].simulation.time_us);
    EXPECT_EQ(fast.passes[n].simulation.flops(), kept.passes[n].simulation.flops());
    EXPECT_EQ(fast.passes[n].simulation.peak_mem_bytes(), kept.passes[n].simulation.peak_mem_bytes());
  }
  const CpBound bound = predictor.bound(config, {}, passes);
  EXPECT_LE(bound.time_lower_bound_us, fast.time_us());
  EXPECT_EQ(bound.peak_mem_bytes, fast.peak_mem_bytes());
}

TEST(PerfGridItems, PlansSharingACacheEqualPlansWithout) {
  const auto mask = std::make_shared<const Mask>(make_mask("block_sparse", 32768, 8));
  PlanRequest request;
  request.workload.mask = mask;
  request.one_config_per_method = true;
  request.prune = false;
  request.threads = 2;
  auto shared = std::make_shared<RingItemCostCache>();
  request.item_cache = nullptr;
  const std::vector<Plan> together = make_plans(h100(), {{8, 8}, {16, 8}, {64, 8}}, request);
  ASSERT_EQ(together.size(), 3u);
  size_t point = 0;
  for (int64_t gpus : {8, 16, 64}) {
    request.item_cache = nullptr;
    const Plan alone = make_plan(h100(), {gpus, 8}, request);
    request.item_cache = shared;
    const Plan cached = make_plan(h100(), {gpus, 8}, request);
    ASSERT_EQ(alone.entries.size(), cached.entries.size());
    const Plan& parallel = together[point++];
    ASSERT_EQ(alone.entries.size(), parallel.entries.size());
    for (size_t n = 0; n < alone.entries.size(); ++n) {
      EXPECT_EQ(describe_config(alone.entries[n].prediction.config), describe_config(cached.entries[n].prediction.config));
      EXPECT_EQ(alone.entries[n].prediction.time_us(), cached.entries[n].prediction.time_us());
      EXPECT_EQ(describe_config(alone.entries[n].prediction.config),
                describe_config(parallel.entries[n].prediction.config));
      EXPECT_EQ(alone.entries[n].prediction.time_us(), parallel.entries[n].prediction.time_us());
    }
  }
}

// Allgather off the tile grids (and masks of other slices): the predictor builds the schedules once for bound and
// prediction, costs the resolved items for both passes at once and drops their slices; that prediction equals the
// one simulated on the materialized schedules with their slices (kept for timelines), rank by rank, bit for bit,
// whether bound() ran first or not, and the bound is the one made without the kept builds.
TEST(PerfGridItems, AllgatherBuiltOnceEqualsMaterialized) {
  const std::vector<cp::Pass> both{cp::Pass::kForward, cp::Pass::kBackward};
  const std::vector<cp::Pass> backward{cp::Pass::kBackward};
  for (const char* spec : {"variable_block_sparse", "block_sparse:block=64,density=0.3,seed=2", "causal_document",
                           "causal"}) {
    const auto mask = std::make_shared<const Mask>(make_mask(spec, 16384, 8));
    for (int64_t gpus : {8, 16}) {
      for (const std::vector<cp::Pass>* passes : {&both, &backward}) {
        const cp::CpConfig config = ring_config("allgather", gpus, 0, mask);
        CpPredictor kept_predictor(h100(), {gpus, 8});
        const CpPrediction kept = kept_predictor.predict(config, {}, *passes, PredictOptions{false, true, false});
        CpPredictor fresh(h100(), {gpus, 8});
        const CpPrediction direct = fresh.predict(config, {}, *passes, PredictOptions{false, false, false});
        CpPredictor bounded(h100(), {gpus, 8});
        const CpBound bound = bounded.bound(config, {}, *passes);
        const CpPrediction after_bound = bounded.predict(config, {}, *passes, PredictOptions{false, false, false});
        const CpBound again = bounded.bound(config, {}, *passes);
        EXPECT_EQ(bound.time_lower_bound_us, again.time_lower_bound_us) << spec;
        EXPECT_LE(bound.time_lower_bound_us, kept.time_us()) << spec;
        EXPECT_EQ(bound.peak_mem_bytes, kept.peak_mem_bytes()) << spec;
        for (const CpPrediction* fast : {&direct, &after_bound}) {
          ASSERT_EQ(fast->passes.size(), kept.passes.size());
          for (size_t n = 0; n < kept.passes.size(); ++n) {
            const CpSimulation& a = fast->passes[n].simulation;
            const CpSimulation& b = kept.passes[n].simulation;
            EXPECT_EQ(a.time_us, b.time_us) << spec << " " << gpus << " pass " << n;
            EXPECT_EQ(a.flops(), b.flops()) << spec;
            EXPECT_EQ(a.peak_mem_bytes(), b.peak_mem_bytes()) << spec;
            ASSERT_EQ(a.ranks.size(), b.ranks.size());
            for (size_t r = 0; r < a.ranks.size(); ++r) {
              EXPECT_EQ(a.ranks[r].end_us, b.ranks[r].end_us) << spec << " rank " << r;
              EXPECT_EQ(a.ranks[r].compute_us, b.ranks[r].compute_us) << spec << " rank " << r;
            }
          }
        }
      }
    }
  }
}

// Plans of several masks and lengths as one queue (make_plan_groups): handed over in order, each group's plans
// equal to make_plans' of its request, and so to plans made one by one.
TEST(PerfGridItems, PlanGroupsEqualPlansGroupByGroup) {
  const std::vector<std::pair<const char*, int64_t>> groups{
      {"block_sparse", 32768}, {"causal", 16384}, {"variable_block_sparse", 16384}, {"causal_document", 8192},
      {"full", 4096}};
  const std::vector<ClusterShape> clusters{{8, 8}, {16, 8}, {64, 8}};
  PlanRequest base;
  base.one_config_per_method = true;
  const auto request_of = [&](size_t g) {
    PlanRequest r = base;
    r.workload.mask = std::make_shared<const Mask>(make_mask(groups[g].first, groups[g].second, 8));
    return r;
  };
  for (int threads : {1, 2, 3}) {
    std::vector<size_t> handed;
    std::vector<std::vector<Plan>> queued;
    make_plan_groups(h100(), clusters, groups.size(), threads, request_of, [&](size_t g, std::vector<Plan> plans) {
      handed.push_back(g);
      queued.push_back(std::move(plans));
    });
    ASSERT_EQ(handed.size(), groups.size());
    for (size_t g = 0; g < groups.size(); ++g) {
      EXPECT_EQ(handed[g], g);
      PlanRequest r = request_of(g);
      r.threads = threads;
      const std::vector<Plan> expected = make_plans(h100(), clusters, r);
      ASSERT_EQ(queued[g].size(), expected.size());
      for (size_t c = 0; c < expected.size(); ++c) {
        ASSERT_EQ(queued[g][c].entries.size(), expected[c].entries.size()) << g << " " << c;
        EXPECT_EQ(queued[g][c].pruned(), expected[c].pruned());
        const Plan alone = make_plan(h100(), clusters[c], r);
        ASSERT_EQ(alone.entries.size(), expected[c].entries.size());
        for (size_t n = 0; n < expected[c].entries.size(); ++n) {
          const PlanEntry& a = queued[g][c].entries[n];
          for (const PlanEntry* b : {&expected[c].entries[n], &alone.entries[n]}) {
            EXPECT_EQ(describe_config(a.prediction.config), describe_config(b->prediction.config)) << g << " " << c;
            EXPECT_EQ(a.prediction.config.gpus, b->prediction.config.gpus);
            EXPECT_EQ(a.pruned, b->pruned);
            EXPECT_EQ(a.bound.time_lower_bound_us, b->bound.time_lower_bound_us);
            EXPECT_EQ(a.prediction.time_us(), b->prediction.time_us());
          }
        }
      }
    }
  }
}

// A worker that draws a plan of a group whose request the other worker is still making goes on to later groups
// instead of waiting: group 0's request is only made once group 1's has started (which, were the second worker to
// wait for group 0, would never happen: it gives up after 10 s and the test fails). A request that throws stops the
// queue without leaving the worker that set plans aside waiting.
TEST(PerfGridItems, PlanGroupsGoOnWhileARequestIsMade) {
  const std::vector<std::pair<const char*, int64_t>> groups{{"causal", 4096}, {"full", 4096}, {"causal_document", 4096}};
  const std::vector<ClusterShape> clusters{{8, 8}, {16, 8}};
  std::mutex mutex;
  std::condition_variable started;
  bool second_started = false;
  bool overlapped = false;
  PlanRequest base;
  base.one_config_per_method = true;
  const auto request_of = [&](size_t g) {
    if (g == 0) {
      std::unique_lock<std::mutex> lock(mutex);
      overlapped = started.wait_for(lock, std::chrono::seconds(10), [&] { return second_started; });
    } else if (g == 1) {
      std::lock_guard<std::mutex> lock(mutex);
      second_started = true;
      started.notify_all();
    }
    PlanRequest r = base;
    r.workload.mask = std::make_shared<const Mask>(make_mask(groups[g].first, groups[g].second, 8));
    return r;
  };
  std::vector<size_t> handed;
  make_plan_groups(h100(), clusters, groups.size(), 2, request_of, [&](size_t g, std::vector<Plan> plans) {
    handed.push_back(g);
    EXPECT_EQ(plans.size(), clusters.size());
  });
  EXPECT_TRUE(overlapped);
  EXPECT_EQ(handed, (std::vector<size_t>{0, 1, 2}));

  const auto failing = [&](size_t g) -> PlanRequest {
    if (g == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the other worker sets plans aside
    if (g == 1) throw std::runtime_error("no mask");
    PlanRequest r = base;
    r.workload.mask = std::make_shared<const Mask>(make_mask(groups[g].first, groups[g].second, 8));
    return r;
  };
  EXPECT_THROW(make_plan_groups(h100(), clusters, groups.size(), 2, failing, [](size_t, std::vector<Plan>) {}),
               std::runtime_error);
}

}  // namespace
}  // namespace lcab::perf
