#include "model/perf/kernel_cost.h"
#include "model/perf/stable_sort_small.h"

#include <algorithm>
#include <queue>

#include <gtest/gtest.h>

#include "model/error.h"
#include "model/mask_spec.h"
#include "model/rng.h"
#include "tests/model/perf_test_profiles.h"

namespace lcab::perf {
namespace {

using testing::simple_kernel;

AttentionShape heads_shape(int64_t heads, int64_t kv_heads) {
  AttentionShape s;
  s.heads = heads;
  s.kv_heads = kv_heads;
  return s;
}

// One item at a time onto the least-loaded slot: the reference the bulk rounds must reproduce.
double naive_greedy(const std::vector<CostRun>& runs, int64_t slots) {
  std::priority_queue<double, std::vector<double>, std::greater<double>> loads;
  for (int64_t s = 0; s < slots; ++s) loads.push(0);
  double max = 0;
  for (const CostRun& r : runs) {
    for (int64_t n = 0; n < r.count; ++n) {
      const double load = loads.top() + r.cost_us;
      loads.pop();
      loads.push(load);
      max = std::max(max, load);
    }
  }
  return max;
}

TEST(PerfSlotScheduler, BulkRoundsEqualItemByItemGreedy) {
  Rng rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<CostRun> runs;
    const int n = 1 + static_cast<int>(rng.uniform_int(0, 20));
    for (int k = 0; k < n; ++k)
      runs.push_back({static_cast<double>(rng.uniform_int(1, 8)) * 0.5, rng.uniform_int(1, 40)});
    const int64_t slots = rng.uniform_int(1, 9);
    EXPECT_DOUBLE_EQ(schedule_in_order(runs, slots).makespan_us, naive_greedy(runs, slots)) << trial;
    std::vector<CostRun> sorted = runs;
    std::sort(sorted.begin(), sorted.end(), [](const CostRun& a, const CostRun& b) { return a.cost_us > b.cost_us; });
    EXPECT_DOUBLE_EQ(schedule_longest_first(runs, slots).makespan_us, naive_greedy(sorted, slots)) << trial;
  }
}

// The scheduler before slots at equal loads were grouped: a min-heap of loads - offset with whole rounds applied
// to the offset, one item per step, exactly as SlotLoads was (the arithmetic the grouped loads must reproduce bit for
// bit, rounding against the offset included).
double heap_greedy(const std::vector<CostRun>& runs, int64_t slots) {
  std::vector<double> heap;
  double offset = 0, max = 0;
  for (const CostRun& r : runs) {
    int64_t left = r.count;
    const double c = r.cost_us;
    while (left > 0) {
      if (static_cast<int64_t>(heap.size()) < slots) {
        const int64_t take = std::min(slots - static_cast<int64_t>(heap.size()), left);
        for (int64_t n = 0; n < take; ++n) {
          heap.push_back(c - offset);
          std::push_heap(heap.begin(), heap.end(), std::greater<double>());
        }
        max = std::max(max, c);
        left -= take;
        continue;
      }
      const double min_load = heap.front() + offset;
      if (left >= slots && max - min_load <= c) {
        const int64_t rounds = left / slots;
        offset += static_cast<double>(rounds) * c;
        max += static_cast<double>(rounds) * c;
        left -= rounds * slots;
        continue;
      }
      const double load = min_load + c;
      std::pop_heap(heap.begin(), heap.end(), std::greater<double>());
      heap.back() = load - offset;
      std::push_heap(heap.begin(), heap.end(), std::greater<double>());
      max = std::max(max, load);
      --left;
    }
  }
  return max;
}

// Slots at equal loads taken together give the item-by-item heap's makespan exactly (==), on kernel-like lists
// (few distinct costs, repeated, many more items than slots) and on costs that round against the rounds' offset.
TEST(PerfSlotScheduler, GroupedLoadsEqualTheItemByItemHeap) {
  Rng rng(11);
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<CostRun> runs;
    const int n = 1 + static_cast<int>(rng.uniform_int(0, 60));
    const bool odd = trial % 2 == 1;  // costs that are not sums of a few binary fractions
    for (int k = 0; k < n; ++k) {
      const double cost = odd ? 0.1 + 0.37 * static_cast<double>(rng.uniform_int(0, 9)) / 3.0
                              : static_cast<double>(rng.uniform_int(0, 8)) * 1.25;
      runs.push_back({cost, rng.uniform_int(0, trial % 3 == 0 ? 300 : 12)});
    }
    const int64_t slots = rng.uniform_int(1, 140);
    EXPECT_EQ(schedule_in_order(runs, slots).makespan_us, heap_greedy(runs, slots)) << trial;
    std::vector<CostRun> sorted = runs;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const CostRun& a, const CostRun& b) { return a.cost_us > b.cost_us; });
    std::vector<CostRun> merged;
    for (const CostRun& r : sorted) {
      if (!merged.empty() && merged.back().cost_us == r.cost_us) merged.back().count += r.count;
      else merged.push_back(r);
    }
    EXPECT_EQ(schedule_longest_first(runs, slots).makespan_us, heap_greedy(merged, slots)) << trial;
    ++checked;
  }
  EXPECT_EQ(checked, 400);
}

// stable_sort_small orders as std::stable_sort does (equal keys in their order), by insertion and above its limit.
TEST(PerfStableSortSmall, EqualsStdStableSort) {
  Rng rng(13);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::pair<int64_t, int>> v;  // (key, original index)
    const int64_t n = rng.uniform_int(0, 2 * static_cast<int64_t>(kInsertionSortMax) + 2);
    for (int i = 0; i < n; ++i) v.push_back({rng.uniform_int(0, 4), i});
    const auto by_key = [](const std::pair<int64_t, int>& a, const std::pair<int64_t, int>& b) {
      return a.first > b.first;
    };
    std::vector<std::pair<int64_t, int>> expected = v;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    stable_sort_small(v, by_key);
    EXPECT_EQ(v, expected) << trial;
  }
}

// stable_sort_by_key_descending orders as std::stable_sort does with key(a) > key(b): by insertion, by counting
// (long lists of keys spanning few values, negative ones included) and by std::stable_sort (keys spanning many).
TEST(PerfStableSortSmall, ByKeyDescendingEqualsStdStableSort) {
  Rng rng(17);
  int counted = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::pair<int64_t, int>> v;  // (key, original index)
    const int64_t n = rng.uniform_int(0, 3000);
    const int64_t width = trial % 3 == 0 ? int64_t{1} << 40 : rng.uniform_int(1, 64);
    const int64_t offset = rng.uniform_int(-100, 100);
    for (int i = 0; i < n; ++i) v.push_back({offset + rng.uniform_int(0, width), i});
    std::vector<std::pair<int64_t, int>> expected = v;
    std::stable_sort(expected.begin(), expected.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    stable_sort_by_key_descending(v, [](const std::pair<int64_t, int>& x) { return x.first; });
    EXPECT_EQ(v, expected) << trial;
    counted += n > static_cast<int64_t>(kInsertionSortMax) && width <= 64;
  }
  EXPECT_GT(counted, 100);
}

// Calls with at most one item per slot (small CP items) take a shortcut: each item on an idle slot of its own.
TEST(PerfSlotScheduler, FewItemsEqualItemByItemGreedy) {
  Rng rng(9);
  int few = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<CostRun> runs;
    const int n = 1 + static_cast<int>(rng.uniform_int(0, 6));
    int64_t items = 0;
    for (int k = 0; k < n; ++k) {
      runs.push_back({static_cast<double>(rng.uniform_int(0, 50)) * 0.37, rng.uniform_int(0, 5)});
      items += runs.back().count;
    }
    const int64_t slots = rng.uniform_int(1, 24);
    if (items > slots) continue;
    ++few;
    double busy = 0;
    for (const CostRun& r : runs) busy += r.cost_us * static_cast<double>(r.count);
    const SlotSchedule s = schedule_in_order(runs, slots);
    EXPECT_EQ(s.makespan_us, naive_greedy(runs, slots)) << trial;
    EXPECT_EQ(s.busy_total_us, busy) << trial;
    EXPECT_EQ(s.items, items) << trial;
    EXPECT_EQ(schedule_longest_first(runs, slots).makespan_us, naive_greedy(runs, slots)) << trial;
  }
  EXPECT_GT(few, 100);
}

TEST(PerfKernelCost, KColumnPerKvHeadRunsTheGqaGroupInSeries) {
  // Causal S = 512 with 128 x 128 tiles: k column 0 is seen by all 4 q-tile rows (3 full + the diagonal), so with
  // GQA 4 q heads per kv head one item costs 4 x (3 x 1 + 2) + 0.5 = 20.5 us (the item's overhead, K/V loaded and
  // dK/dV stored, once for the group); enough slots for every item, so that item alone sets the time. Per q-tile
  // row and q head the longest item is row 3: 3 + 2 + 0.5 = 5.5 us.
  const std::vector<std::vector<Slice>> causal{{Slice{0, 512, 0, 512, SliceType::kCausal}}};
  KernelParams columns = simple_kernel("bwd");
  columns.work_item = KernelWorkItem::kKColumnPerKvHead;
  const KernelCost by_kv_head = KernelCostModel(columns, 100).cost(causal, 512, 512, heads_shape(4, 1));
  EXPECT_DOUBLE_EQ(by_kv_head.time_us, 3.0 + 20.5);
  EXPECT_EQ(by_kv_head.work_items, 4);  // 4 k columns x 1 kv head
  columns.work_item = KernelWorkItem::kKColumnPerHead;
  const KernelCost by_head = KernelCostModel(columns, 100).cost(causal, 512, 512, heads_shape(4, 1));
  EXPECT_DOUBLE_EQ(by_head.time_us, 3.0 + 5.5);
  EXPECT_EQ(by_head.work_items, 16);
  const KernelCost by_row = KernelCostModel(simple_kernel("bwd"), 100).cost(causal, 512, 512, heads_shape(4, 1));
  EXPECT_DOUBLE_EQ(by_row.time_us, 3.0 + 5.5);
  // The same tiles in total: 10 tiles (6 full, 4 partial) per head; the overheads: 4 outer tiles per head for the
  // per-head items, per kv head (here 1) for the group's.
  EXPECT_DOUBLE_EQ(by_kv_head.slots.busy_total_us + 3 * 4 * 0.5, by_row.slots.busy_total_us);
}

TEST(PerfKernelCost, FlexBackwardHasDkDvColumnsOverTheGroupAndDqRowsPerHead) {
  // FlexAttention's backward grid: per kv head, k-column items over the GQA group's 4 q heads (dK, dV), then one
  // q-row item per q head (dQ) whose tiles cost dq_tile_fraction = 0.5 of a dK/dV tile. Causal S = 512, 128 x 128:
  // column 0 = 4 x (3 full + 1 partial + row) = 4 x (3 + 2 + 0.5) = 22 us, the longest item; dQ row 3 =
  // 0.5 x (3 + 2) + 0.5 = 3 us. Per head 6 full and 4 partial tiles: dK/dV 4 x (6 + 8 + 4 x 0.5) = 64 us,
  // dQ 4 x (0.5 x 14 + 4 x 0.5) = 36 us.
  const std::vector<std::vector<Slice>> causal{{Slice{0, 512, 0, 512, SliceType::kCausal}}};
  KernelParams flex = simple_kernel("bwd", KernelScheduler::kGridWaves);
  flex.work_item = KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead;
  flex.dq_tile_fraction = Sourced{0.5, "test"};
  const KernelCost wide = KernelCostModel(flex, 100).cost(causal, 512, 512, heads_shape(4, 1));
  EXPECT_DOUBLE_EQ(wide.time_us, 3.0 + 22.0);
  EXPECT_EQ(wide.work_items, 4 + 4 * 4);  // 4 k columns + 4 q rows x 4 q heads
  EXPECT_DOUBLE_EQ(wide.slots.busy_total_us, 64.0 + 36.0);
  // Launch order on 4 slots: the columns 22, 18, 14, 10 us (4 x (3 - c full + 1 partial + row)) first, then the
  // dQ rows 1.5, 2, 2.5, 3 us of each head, each to the first free slot: loads 26.5, 24, 25.5, 24 (the same items
  // longest first would give 25.5).
  const KernelCost narrow = KernelCostModel(flex, 4).cost(causal, 512, 512, heads_shape(4, 1));
  EXPECT_DOUBLE_EQ(narrow.time_us, 3.0 + 26.5);
  // Without the fraction the dQ items cost their row only; MHA makes every dK/dV item one head's.
  flex.dq_tile_fraction.reset();
  EXPECT_DOUBLE_EQ(KernelCostModel(flex, 100).cost(causal, 512, 512, heads_shape(4, 1)).slots.busy_total_us,
                   64.0 + 16 * 0.5);
  flex.dq_tile_fraction = Sourced{0.5, "test"};
  const KernelCost mha = KernelCostModel(flex, 100).cost(causal, 512, 512, heads_shape(4, 4));
  EXPECT_DOUBLE_EQ(mha.time_us, 3.0 + 5.5);
  EXPECT_EQ(mha.work_items, 4 * 4 + 4 * 4);
  // Tile counts of one kind of outer tile cannot cost it.
  const KernelCostModel model(flex, 100);
  EXPECT_FALSE(model.tile_counts_determine_cost());
  const OuterTileCounts counts{{4, 3, 2, 1}, {1, 1, 1, 1}, 512.0 * 513 / 2, {}};
  EXPECT_THROW(model.cost_from_tiles(std::span(&counts, 1), 512, 512, heads_shape(4, 1)), Error);
}

TEST(PerfKernelCost, QPassesAddBytesOverHbm) {
  // 14 bytes per q element at 1e12 B/s: S = 1024 x 8 heads x hd 128 x 14 B = 14.68 MB -> 14.68 us on top.
  KernelParams k = simple_kernel("bwd");
  k.q_pass_bytes_per_element = {14, "test"};
  const Mask mask = make_mask("full", 1024, 8);
  const KernelCost with = KernelCostModel(k, 4, 1e12).cost(mask, heads_shape(8, 8));
  const KernelCost without = KernelCostModel(simple_kernel("bwd"), 4).cost(mask, heads_shape(8, 8));
  EXPECT_DOUBLE_EQ(with.q_pass_us, 1024.0 * 8 * 128 * 14 / 1e12 * 1e6);
  EXPECT_DOUBLE_EQ(with.time_us, without.time_us + with.q_pass_us);
  EXPECT_THROW(KernelCostModel(k, 4), Error);  // the bandwidth is needed
}

TEST(PerfKernelCost, TailPassFillsTheLastWavesIdleSlotsFirst) {
  // A grid's tail pass (lcab_flash's Hopper backward converting dQ: model/perf/backward_tail.h) is chunks of 512 rows
  // of one kv head's q heads here (at least 256 KiB of fp32 rows of 512 B), two per (batch, kv head) at S = 1024,
  // queued after the items, each at one slot's share of the HBM bandwidth: 6 B x 512 x 128 per chunk at bandwidth /
  // slots, 1 us with these numbers.
  const double chunk_bytes = 6.0 * 512 * 128;
  KernelParams k = simple_kernel("bwd", KernelScheduler::kGridWaves);
  k.tail_pass_bytes_per_element = Sourced{6, "test"};
  const Mask full = make_mask("full", 1024);
  // 3 heads x 8 rows of 8.5 us on 5 slots: the last wave leaves one slot idle for 8.5 us, which takes the 6 chunks
  // (6 us): the call is no longer than without the pass.
  const KernelCost fits = KernelCostModel(k, 5, chunk_bytes * 5 / 1e-6).cost(full, heads_shape(3, 3));
  EXPECT_DOUBLE_EQ(fits.time_us, 3.0 + 5 * 8.5);
  EXPECT_EQ(fits.work_items, 24);  // tile items only
  EXPECT_NEAR(fits.slots.busy_total_us, 24 * 8.5 + 6 * 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(fits.q_pass_us, 0);
  // 4 heads on 4 slots: whole waves, so the 8 chunks follow them, two 1 us rounds.
  const KernelCost follows = KernelCostModel(k, 4, chunk_bytes * 4 / 1e-6).cost(full, heads_shape(4, 4));
  EXPECT_NEAR(follows.time_us, 3.0 + 8 * 8.5 + 2.0, 1e-9);
  // A GQA group's q heads share their kv head's chunks: 8 q heads of 2 kv heads (2 KiB rows: 256 rows make two
  // chunks per slot over the call, 4 per kv head), the same 16 us of conversion in all.
  const KernelCost grouped = KernelCostModel(k, 4, chunk_bytes * 4 / 1e-6).cost(full, heads_shape(8, 2));
  EXPECT_NEAR(grouped.slots.busy_total_us - 64 * 8.5, 8 * 2.0, 1e-9);
  EXPECT_EQ(grouped.slots.items - grouped.work_items, 8);
  // Needs the bandwidth, and a grid (a persistent kernel has no tail of its own).
  EXPECT_THROW(KernelCostModel(k, 4), Error);
  k.scheduler = KernelScheduler::kPersistentLongestFirst;
  EXPECT_THROW(KernelCostModel(k, 4, 1e12), Error);
}

TEST(PerfKernelCost, FullMaskWholeWaves) {
  // S = 1024, 128 x 128 tiles: 8 q-tile rows of 8 full tiles, 8 x 1 + 0.5 = 8.5 us each; 5 heads = 40 items on
  // 4 slots: 10 whole waves.
  const KernelCostModel model(simple_kernel(), 4);
  const Mask mask = make_mask("full", 1024);
  const KernelCost c = model.cost(mask, heads_shape(5, 5));
  EXPECT_EQ(c.work_items, 40);
  EXPECT_EQ(c.full_tiles, 320);
  EXPECT_EQ(c.partial_tiles, 0);
  EXPECT_DOUBLE_EQ(c.time_us, 3.0 + 10 * 8.5);
  EXPECT_DOUBLE_EQ(c.slots.imbalance(), 1.0);
  EXPECT_DOUBLE_EQ(c.waves(), 10.0);
  EXPECT_DOUBLE_EQ(c.flops, 4.0 * 1024 * 1024 * 5 * 128);
}

TEST(PerfKernelCost, WaveQuantizationAndImbalance) {
  // 3 heads x 8 rows = 24 items of 8.5 us on 5 slots: 5 waves (the last one 4/5 full).
  const KernelCostModel model(simple_kernel(), 5);
  const KernelCost c = model.cost(make_mask("full", 1024), heads_shape(3, 1));
  EXPECT_DOUBLE_EQ(c.time_us, 3.0 + 5 * 8.5);
  EXPECT_DOUBLE_EQ(c.slots.busy_mean_us(), 24 * 8.5 / 5);
  EXPECT_DOUBLE_EQ(c.slots.imbalance(), 5 * 8.5 / (24 * 8.5 / 5));
}

TEST(PerfKernelCost, CausalLongestFirstVersusGridOrder) {
  // S = 512 causal: row r has r full tiles and one partial diagonal tile: 2.5, 3.5, 4.5, 5.5 us; 2 slots.
  // Longest first: {5.5, 2.5} and {4.5, 3.5} -> 8. Launch order: {2.5, 4.5} and {3.5, 5.5} -> 9.
  const Mask mask = make_mask("causal", 512);
  const KernelCost lpt = KernelCostModel(simple_kernel(), 2).cost(mask, heads_shape(1, 1));
  EXPECT_EQ(lpt.full_tiles, 6);
  EXPECT_EQ(lpt.partial_tiles, 4);
  EXPECT_DOUBLE_EQ(lpt.time_us, 3.0 + 8.0);
  const KernelCost grid =
      KernelCostModel(simple_kernel("fwd", KernelScheduler::kGridWaves), 2).cost(mask, heads_shape(1, 1));
  EXPECT_DOUBLE_EQ(grid.time_us, 3.0 + 9.0);
}

TEST(PerfKernelCost, GridLaunchPaysForEmptyRows) {
  // Only rows [0, 128) see keys [0, 128): one full tile (1.5 us). A grid launch also runs the three empty rows
  // (0.5 us each) on the one slot; a persistent work list skips them.
  const std::vector<std::vector<Slice>> slices = {{Slice{0, 128, 0, 128, SliceType::kFull}}};
  const KernelCost grid =
      KernelCostModel(simple_kernel("fwd", KernelScheduler::kGridWaves), 1).cost(slices, 512, 512, heads_shape(1, 1));
  EXPECT_DOUBLE_EQ(grid.time_us, 3.0 + 1.5 + 3 * 0.5);
  const KernelCost lpt = KernelCostModel(simple_kernel(), 1).cost(slices, 512, 512, heads_shape(1, 1));
  EXPECT_DOUBLE_EQ(lpt.time_us, 3.0 + 1.5);
}

TEST(PerfKernelCost, PerKvHeadListsAndEmptyCalls) {
  // kv head 0 sees a full 256 x 256 (2 rows of 2 full tiles, 2.5 us), kv head 1 nothing; 2 q heads per kv head.
  const std::vector<std::vector<Slice>> slices = {{Slice{0, 256, 0, 256, SliceType::kFull}}, {}};
  const KernelCost c = KernelCostModel(simple_kernel(), 4).cost(slices, 256, 256, heads_shape(4, 2));
  EXPECT_EQ(c.work_items, 4);
  EXPECT_DOUBLE_EQ(c.time_us, 3.0 + 2.5);
  EXPECT_DOUBLE_EQ(c.pairs, 256.0 * 256 * 2);
  const std::vector<std::vector<Slice>> none = {{}};
  EXPECT_DOUBLE_EQ(KernelCostModel(simple_kernel(), 4).cost(none, 256, 256, heads_shape(4, 2)).time_us, 0.0);
  EXPECT_THROW(KernelCostModel(simple_kernel(), 4).cost(slices, 256, 256, heads_shape(4, 4)), Error);
}

TEST(PerfKernelCost, BackwardCountsTwoAndAHalfForwardFlopsAndMoreMemory) {
  const Mask mask = make_mask("causal", 2048);
  const KernelCost fwd = KernelCostModel(simple_kernel("fwd"), 4).cost(mask, heads_shape(8, 2));
  const KernelCost bwd = KernelCostModel(simple_kernel("bwd"), 4).cost(mask, heads_shape(8, 2));
  EXPECT_DOUBLE_EQ(bwd.flops, 2.5 * fwd.flops);
  EXPECT_GT(bwd.peak_mem_bytes, fwd.peak_mem_bytes);
  // fwd: q, out (8 heads), k, v (2 heads) in bf16 and the fp32 lse.
  EXPECT_EQ(fwd.peak_mem_bytes, 2 * 2048 * 8 * 128 * 2 + 2 * 2048 * 2 * 128 * 2 + 8 * 2048 * 4);
}

TEST(PerfKernelCost, MoreCostlyTilesAreNeverFaster) {
  const Mask mask = make_mask("causal_document", 65536);
  KernelParams slow = simple_kernel();
  double last = 0;
  for (double full_us : {0.5, 1.0, 1.5, 3.0}) {
    slow.full_tile_us.value = full_us;
    const double t = KernelCostModel(slow, 132).cost(mask, heads_shape(64, 8)).time_us;
    EXPECT_GE(t, last);
    last = t;
  }
}

TEST(PerfKernelCost, CachedCostEqualsFreshCost) {
  const KernelCostModel model(simple_kernel("fwd", KernelScheduler::kGridWaves), 7);
  const Mask mask = make_mask("sliding_window_causal:window=300", 4096);
  const std::vector<std::vector<Slice>> lists = {mask.slices()};
  const KernelCost fresh = model.cost(lists, 4096, 4096, heads_shape(4, 2));
  const KernelCost& a = model.cached_cost(lists, 4096, 4096, heads_shape(4, 2));
  const KernelCost& b = model.cached_cost(lists, 4096, 4096, heads_shape(4, 2));
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(model.cache_entries(), 1u);
  EXPECT_DOUBLE_EQ(a.time_us, fresh.time_us);
  model.cached_cost(lists, 4096, 4096, heads_shape(8, 2));
  EXPECT_EQ(model.cache_entries(), 2u);
}

TEST(PerfKernelCost, GridCostliestFirstLaunchesEachHeadsTilesCostliestFirst) {
  // Causal S = 512, 2 q heads (MHA), 3 slots; rows cost 2.5, 3.5, 4.5, 5.5 us per head.
  // Longest first over all items: {5.5, 3.5, 2.5}, {5.5, 3.5, 2.5}, {4.5, 4.5} -> 11.5.
  // Costliest first per head, head after head, each to the first free slot: 5.5 | 4.5 | 3.5, 2.5 (6) | head 1:
  // 5.5 on the slot free at 4.5 (10), 4.5 on the one free at 5.5 (10), 3.5 at 6 (9.5), 2.5 at 9.5 -> 12.
  // The same with the rows long against a slot's share (key 4 x tiles + boundary tiles >= total / (4 x slots) =
  // 88 / 12: the 5.5, 4.5 and 3.5 us rows) of every head first, costliest first (perf::grid_launch_order):
  // 5.5 | 5.5 | 4.5, then 4.5 at 4.5 (9), 3.5 at 5.5 (9), 3.5 at 5.5 (9), 2.5 at 9 (11.5), 2.5 at 9 -> 11.5.
  // Plain launch order (2.5, 3.5, 4.5, 5.5 per head): -> 13.5.
  const Mask mask = make_mask("causal", 512);
  const auto time = [&](KernelScheduler scheduler) {
    return KernelCostModel(simple_kernel("fwd", scheduler), 3).cost(mask, heads_shape(2, 2)).time_us;
  };
  EXPECT_DOUBLE_EQ(time(KernelScheduler::kPersistentLongestFirst), 3.0 + 11.5);
  EXPECT_DOUBLE_EQ(time(KernelScheduler::kGridCostliestFirst), 3.0 + 12.0);
  EXPECT_DOUBLE_EQ(time(KernelScheduler::kGridLongItemsFirst), 3.0 + 11.5);
  EXPECT_DOUBLE_EQ(time(KernelScheduler::kGridWaves), 3.0 + 13.5);
  // A grid launches the empty rows too (last, 0.5 us each).
  const std::vector<std::vector<Slice>> one_tile = {{Slice{0, 128, 0, 128, SliceType::kFull}}};
  EXPECT_DOUBLE_EQ(KernelCostModel(simple_kernel("fwd", KernelScheduler::kGridCostliestFirst), 1)
                       .cost(one_tile, 512, 512, heads_shape(1, 1))
                       .time_us,
                   3.0 + 1.5 + 3 * 0.5);
}

TEST(PerfKernelCost, BoundaryTilesPayForEverySliceOfTheirRow) {
  // One 128 x 128 tile covered by four FULL slices of 32 keys: a boundary tile (no single slice covers it) whose
  // q-tile row meets 4 slices: 2 (partial) + 0.5 (row) + 4 x 0.25 = 3.5 us, as a row item and as a column item.
  std::vector<Slice> four;
  for (int64_t k = 0; k < 128; k += 32) four.push_back(Slice{0, 128, k, k + 32, SliceType::kFull});
  const std::vector<std::vector<Slice>> slices = {four};
  KernelParams k = simple_kernel();
  k.slice_us = Sourced{0.25, "test"};
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 4).cost(slices, 128, 128, heads_shape(1, 1)).time_us, 3.0 + 3.5);
  k.work_item = KernelWorkItem::kKColumnPerHead;
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 4).cost(slices, 128, 128, heads_shape(1, 1)).time_us, 3.0 + 3.5);
  // Unmasked tiles test no slice: full S = 256 costs the same with and without the term.
  const Mask full = make_mask("full", 256);
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 4).cost(full, heads_shape(1, 1)).time_us,
                   KernelCostModel(simple_kernel(), 4).cost(full, heads_shape(1, 1)).time_us);
}

// Tiles of `slices` (Sq x Sk, tiles Bq x Bk) with exactly one key half (Bk / 2 keys, the second possibly past Sk)
// holding no unmasked cell, by testing every cell: what the model counts from the touched tiles of two tilings.
int64_t idle_half_tiles_by_cells(const std::vector<Slice>& slices, int64_t sq, int64_t sk, TileShape tile) {
  int64_t idle = 0;
  for (int64_t q0 = 0; q0 < sq; q0 += tile.q)
    for (int64_t k0 = 0; k0 < sk; k0 += tile.k) {
      int touched_halves = 0;
      for (int h = 0; h < 2; ++h) {
        bool touched = false;
        for (int64_t q = q0; q < std::min(sq, q0 + tile.q) && !touched; ++q)
          for (int64_t k = k0 + h * tile.k / 2; k < std::min(sk, k0 + (h + 1) * tile.k / 2) && !touched; ++k)
            for (const Slice& s : slices) touched = touched || s.contains(q, k);
        touched_halves += touched ? 1 : 0;
      }
      idle += touched_halves == 1 ? 1 : 0;
    }
  return idle;
}

TEST(PerfKernelCost, IdleKeyHalvesAreCountedAsTheCellsHaveThemAndChargedTheirOwnCost) {
  // One slot (1 SM), no passes: the call is the sum of its items, so moving idle_half_tile_us away from
  // partial_tile_us moves the time by the idle-half tiles times the difference, and nothing else.
  KernelParams plain = simple_kernel("bwd", KernelScheduler::kGridWaves);
  plain.tile = {64, 128};
  plain.work_item = KernelWorkItem::kKColumnPerKvHead;
  KernelParams idle = plain;
  idle.idle_half_tile_us = Sourced{0.75, "test"};  // against partial_tile_us = 2
  KernelParams same = plain;
  same.idle_half_tile_us = plain.partial_tile_us;
  struct Case {
    std::string spec;
    int64_t seqlen;
  };
  int64_t idle_seen = 0;
  for (const Case& c : std::vector<Case>{{"causal", 1000},
                                         {"causal", 1024},
                                         {"sliding_window_causal:window=200", 1111},
                                         {"causal_document:seed=3", 2048},
                                         {"sliding_window:window=150", 700},
                                         {"share_question:seed=1", 1500},
                                         {"prefix_lm_causal", 999},
                                         {"full", 900}}) {
    const Mask mask = make_mask(c.spec, c.seqlen);
    const std::vector<std::vector<Slice>> lists = {mask.slices(0)};
    const AttentionShape shape = heads_shape(1, 1);
    const KernelCost base = KernelCostModel(plain, 1).cost(lists, c.seqlen, c.seqlen, shape);
    const KernelCost with = KernelCostModel(idle, 1).cost(lists, c.seqlen, c.seqlen, shape);
    const int64_t expected = idle_half_tiles_by_cells(mask.slices(0), c.seqlen, c.seqlen, plain.tile);
    EXPECT_EQ(with.idle_half_tiles, expected) << c.spec << " " << c.seqlen;
    EXPECT_EQ(base.idle_half_tiles, 0) << "a kernel without idle halves does not count them";
    EXPECT_LE(with.idle_half_tiles, with.partial_tiles);
    EXPECT_NEAR(with.time_us, base.time_us - static_cast<double>(expected) * (2.0 - 0.75), 1e-9 * base.time_us)
        << c.spec;
    EXPECT_NEAR(KernelCostModel(same, 1).cost(lists, c.seqlen, c.seqlen, shape).time_us, base.time_us,
                1e-12 * base.time_us);
    // As q-row items (a forward's): the same tiles.
    KernelParams rows = idle;
    rows.work_item = KernelWorkItem::kQRowPerHead;
    EXPECT_EQ(KernelCostModel(rows, 1).cost(lists, c.seqlen, c.seqlen, shape).idle_half_tiles, expected) << c.spec;
    idle_seen += expected;
  }
  EXPECT_GT(idle_seen, 20) << "the cases must have idle halves to test";
  // Counts without idle_half cannot cost boundary tiles for such a kernel.
  OuterTileCounts counts;
  counts.tiles = {2};
  counts.partial = {1};
  counts.area = 64 * 100;
  EXPECT_THROW(KernelCostModel(idle, 1).cost_from_tiles({&counts, 1}, 128, 128, heads_shape(1, 1)), Error);
  counts.idle_half = {1};
  EXPECT_NO_THROW(KernelCostModel(idle, 1).cost_from_tiles({&counts, 1}, 128, 128, heads_shape(1, 1)));
}

TEST(PerfKernelCost, FlexBoundaryTilesTestEveryIntervalOfTheMaskTable) {
  // q-tile row 0 (rows 0..127) is covered by four FULL slices of 32 keys (one boundary tile); row 1 (rows 128..255)
  // by one CAUSAL slice over keys 128..255 (one boundary tile, the diagonal). The mask table is 4 intervals wide:
  // with slices_by_table_width both boundary tiles test 4 (2 + 0.5 + 4 x 0.25 = 3.5 us each), without it the
  // diagonal tests the 1 slice of its row (2 + 0.5 + 0.25 = 2.75 us).
  std::vector<Slice> mixed;
  for (int64_t k = 0; k < 128; k += 32) mixed.push_back(Slice{0, 128, k, k + 32, SliceType::kFull});
  mixed.push_back(Slice{128, 256, 128, 256, SliceType::kCausal});
  const std::vector<std::vector<Slice>> slices = {mixed};
  KernelParams k = simple_kernel("fwd", KernelScheduler::kGridWaves);
  k.slice_us = Sourced{0.25, "test"};
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 1).cost(slices, 256, 256, heads_shape(1, 1)).time_us, 3.0 + 3.5 + 2.75);
  k.slices_by_table_width = true;
  const KernelCostModel flex(k, 1);
  EXPECT_DOUBLE_EQ(flex.cost(slices, 256, 256, heads_shape(1, 1)).time_us, 3.0 + 3.5 + 3.5);
  // The width is the call's: a second head mask with 6 slices over one row widens the table for both.
  std::vector<Slice> six;
  for (int64_t k0 = 0; k0 < 192; k0 += 32) six.push_back(Slice{0, 128, k0, k0 + 32, SliceType::kFull});
  const std::vector<std::vector<Slice>> per_head = {mixed, six};
  // Head 0: 2 rows of one boundary tile, 2 x (2 + 6 x 0.25 + 0.5) = 8; head 1: row 0 with 2 boundary tiles (keys
  // 0..127, 128..191), 2 x 3.5 + 0.5 = 7.5, and the empty q-tile row 1 of the grid 0.5; one slot.
  EXPECT_DOUBLE_EQ(flex.cost(per_head, 256, 256, heads_shape(2, 2)).time_us, 3.0 + 8.0 + 7.5 + 0.5);
  // Full slices on a 64-token grid are a block table: one lookup per element. Two 64 x 64 blocks on the diagonal
  // of one 128 x 128 tile: a boundary tile testing 1 (2 + 0.5 + 0.25), where its row meets 2 slices.
  const std::vector<std::vector<Slice>> blocks = {
      {Slice{0, 64, 0, 64, SliceType::kFull}, Slice{64, 128, 64, 128, SliceType::kFull}}};
  EXPECT_DOUBLE_EQ(flex.cost(blocks, 128, 128, heads_shape(1, 1)).time_us, 3.0 + 2.75);
  k.slices_by_table_width = false;
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 1).cost(blocks, 128, 128, heads_shape(1, 1)).time_us, 3.0 + 3.0);
  // Intervals beyond the registers: with 2 held in registers, the 4-wide table's 2 further intervals cost
  // 2 x 0.5 more per boundary tile (4.5 us each); a table no wider than the registers pays nothing more.
  k.slices_by_table_width = true;
  k.register_slices = Sourced{2, "test"};
  k.spilled_slice_us = Sourced{0.5, "test"};
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 1).cost(slices, 256, 256, heads_shape(1, 1)).time_us, 3.0 + 4.5 + 4.5);
  k.register_slices->value = 4;
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 1).cost(slices, 256, 256, heads_shape(1, 1)).time_us, 3.0 + 3.5 + 3.5);
  // A property of the whole call's slices: tile counts cannot cost it.
  EXPECT_FALSE(flex.tile_counts_determine_cost());
  const OuterTileCounts counts{{1}, {0}, 128.0 * 128, {}};
  EXPECT_THROW(flex.cost_from_tiles(std::span(&counts, 1), 128, 128, heads_shape(1, 1)), Error);
}

TEST(PerfKernelCost, UnmaskedTileCostAppliesOnlyToCallsThatMaskNothing) {
  // Full S = 256 on 100 slots: a row item is 2 unmasked tiles + 0.5; with unmasked_tile_us = 0.6 it is 1.7 us.
  KernelParams k = simple_kernel("fwd", KernelScheduler::kGridWaves);
  k.unmasked_tile_us = Sourced{0.6, "test"};
  const KernelCostModel model(k, 100);
  EXPECT_DOUBLE_EQ(model.cost(make_mask("full", 256), heads_shape(4, 4)).time_us, 3.0 + 1.7);
  // The same unmasked cells as two slices: still a call that masks nothing.
  const std::vector<std::vector<Slice>> halves = {
      {Slice{0, 256, 0, 128, SliceType::kFull}, Slice{0, 256, 128, 256, SliceType::kFull}}};
  EXPECT_DOUBLE_EQ(model.cost(halves, 256, 256, heads_shape(4, 4)).time_us, 3.0 + 1.7);
  // A mask with a masked cell keeps full_tile_us on its unmasked tiles; so does a call with one unmasked head mask
  // and one masked one: full rows 2 x 2.5, causal rows 2.5 and 3.5.
  const Mask causal = make_mask("causal", 256);
  EXPECT_DOUBLE_EQ(model.cost(causal, heads_shape(4, 4)).time_us,
                   KernelCostModel(simple_kernel("fwd", KernelScheduler::kGridWaves), 100).cost(causal, heads_shape(4, 4)).time_us);
  const std::vector<std::vector<Slice>> mixed = {{Slice{0, 256, 0, 256, SliceType::kFull}},
                                                 {Slice{0, 256, 0, 256, SliceType::kCausal}}};
  EXPECT_DOUBLE_EQ(model.cost(mixed, 256, 256, heads_shape(2, 2)).slots.busy_total_us, 5.0 + 6.0);
  // Tile counts give the same: the call masks nothing when every head mask's area is Sq x Sk.
  EXPECT_TRUE(model.tile_counts_determine_cost());
  const OuterTileCounts full_counts{{2, 2}, {0, 0}, 256.0 * 256, {}};
  EXPECT_DOUBLE_EQ(model.cost_from_tiles(std::span(&full_counts, 1), 256, 256, heads_shape(4, 4)).time_us, 3.0 + 1.7);
  const OuterTileCounts masked_counts{{2, 2}, {0, 0}, 256.0 * 256 - 1, {}};
  EXPECT_DOUBLE_EQ(model.cost_from_tiles(std::span(&masked_counts, 1), 256, 256, heads_shape(4, 4)).time_us,
                   3.0 + 2.5);
}

TEST(PerfKernelCost, RaggedSequencesTileEachDocumentFromItsFirstToken) {
  // Two packed documents [0, 64) and [64, 192), each FULL, 128 x 128 tiles. On the packed grid q-tile row 0 meets
  // both documents (2 boundary tiles: 2 x 2 + 0.5 = 4.5 us) and row 1 two boundary tiles (keys 64..127 of tile 0,
  // and tile 1 cut by the sequence's end): 4.5 us. As a ragged batch each document is one tile of its own: the
  // 128-token one unmasked (1 + 0.5), the 64-token one cut by its end (2 + 0.5).
  const std::vector<std::vector<Slice>> documents = {
      {Slice{0, 64, 0, 64, SliceType::kFull}, Slice{64, 192, 64, 192, SliceType::kFull}}};
  KernelParams k = simple_kernel();
  const KernelCost packed = KernelCostModel(k, 100).cost(documents, 192, 192, heads_shape(1, 1));
  EXPECT_DOUBLE_EQ(packed.time_us, 3.0 + 4.5);
  EXPECT_DOUBLE_EQ(packed.slots.busy_total_us, 9.0);
  k.ragged_sequences = true;
  const KernelCostModel ragged(k, 100);
  const KernelCost batch = ragged.cost(documents, 192, 192, heads_shape(1, 1));
  EXPECT_DOUBLE_EQ(batch.time_us, 3.0 + 2.5);
  EXPECT_DOUBLE_EQ(batch.slots.busy_total_us, 4.0);
  EXPECT_EQ(batch.full_tiles, 1);
  EXPECT_EQ(batch.partial_tiles, 1);
  EXPECT_EQ(batch.work_items, 2);
  // One sequence (causal), or blocks that are not square on the diagonal (a CP step's q chunk against other keys),
  // are tiled as given.
  const Mask causal = make_mask("causal", 384);
  EXPECT_DOUBLE_EQ(ragged.cost(causal, heads_shape(2, 2)).time_us,
                   KernelCostModel(simple_kernel(), 100).cost(causal, heads_shape(2, 2)).time_us);
  const std::vector<std::vector<Slice>> shifted = {
      {Slice{0, 64, 64, 128, SliceType::kFull}, Slice{64, 192, 128, 256, SliceType::kFull}}};
  EXPECT_DOUBLE_EQ(ragged.cost(shifted, 192, 256, heads_shape(1, 1)).time_us,
                   KernelCostModel(simple_kernel(), 100).cost(shifted, 192, 256, heads_shape(1, 1)).time_us);
  EXPECT_FALSE(ragged.tile_counts_determine_cost());
}

TEST(PerfKernelCost, KvTilesAreSharedByTheGqaGroup) {
  // Full S = 256: a row item has 2 tiles, 2 x 1 + 0.5 = 2.5 us, plus 2 x kv_tile_us / (q heads per kv head).
  KernelParams k = simple_kernel();
  k.kv_tile_us = Sourced{0.8, "test"};
  const Mask full = make_mask("full", 256);
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 100).cost(full, heads_shape(4, 1)).time_us, 3.0 + 2.5 + 2 * 0.2);
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 100).cost(full, heads_shape(4, 4)).time_us, 3.0 + 2.5 + 2 * 0.8);
  // A column item loads its K/V tile once: no per-tile K/V term.
  k.work_item = KernelWorkItem::kKColumnPerHead;
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 100).cost(full, heads_shape(4, 4)).time_us, 3.0 + 2.5);
}

TEST(PerfKernelCost, KvExpansionIsChargedUnderGqaOnly) {
  // Full S = 256, 4 q heads, D = 128: 2 rows x 4 heads of 2.5 us on 100 slots: 3 + 2.5 us. Under GQA the K/V
  // expansion moves 4 B per q element (256 x 4 x 128) at 3 TB/s.
  KernelParams k = simple_kernel();
  k.kv_expand_bytes_per_element = Sourced{4.0, "test"};
  const Mask full = make_mask("full", 256);
  const KernelCostModel model(k, 100, 3e12);
  const double expand_us = 256.0 * 4 * 128 * 4.0 / 3e12 * 1e6;
  EXPECT_DOUBLE_EQ(model.cost(full, heads_shape(4, 1)).time_us, 3.0 + 2.5 + expand_us);
  EXPECT_DOUBLE_EQ(model.cost(full, heads_shape(4, 1)).q_pass_us, expand_us);
  EXPECT_DOUBLE_EQ(model.cost(full, heads_shape(4, 4)).time_us, 3.0 + 2.5);  // MHA: the kernel reads K/V as given
  EXPECT_THROW(KernelCostModel(k, 100, 0), Error);                          // bytes need a bandwidth
}

TEST(PerfKernelCost, SustainedClocksStretchLongCallsMore) {
  // T = 3 + 2.5 us (one tile row of full S = 256 per slot); with s = 0.2 and r = 0.01 / us the call takes
  // T (1 + 0.2 r T / (1 + r T)); a 100x longer call is stretched by a larger fraction, towards 1 + s.
  KernelParams k = simple_kernel();
  k.sustained_slowdown = Sourced{0.2, "test"};
  k.sustained_rate_per_us = Sourced{0.01, "test"};
  const Mask full = make_mask("full", 256);
  const double t = 5.5;
  const KernelCost c = KernelCostModel(k, 100).cost(full, heads_shape(4, 4));
  EXPECT_DOUBLE_EQ(c.time_us, t * (1 + 0.2 * 0.01 * t / (1 + 0.01 * t)));
  EXPECT_DOUBLE_EQ(c.sustained_us, c.time_us - t);
  const Mask big = make_mask("full", 256 * 40);
  const KernelCostModel plain(simple_kernel(), 100);
  const double long_t = plain.cost(big, heads_shape(4, 4)).time_us;
  const double long_stretch = KernelCostModel(k, 100).cost(big, heads_shape(4, 4)).time_us / long_t;
  EXPECT_GT(long_stretch, c.time_us / t);
  EXPECT_LT(long_stretch, 1.2);
  // Without the rate, or at s = 0, nothing changes.
  k.sustained_slowdown->value = 0;
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 100).cost(full, heads_shape(4, 4)).time_us, t);
}

TEST(PerfKernelCost, HostFloorBindsOnlyShortCalls) {
  KernelParams k = simple_kernel();
  k.host_floor_us = Sourced{10.0, "test"};
  const Mask full = make_mask("full", 256);
  const KernelCost c = KernelCostModel(k, 100).cost(full, heads_shape(4, 4));
  EXPECT_DOUBLE_EQ(c.time_us, 10.0);  // the GPU's 5.5 us wait for the host's 10
  EXPECT_DOUBLE_EQ(c.host_wait_us, 4.5);
  k.host_floor_us->value = 2.0;
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 100).cost(full, heads_shape(4, 4)).time_us, 5.5);
  // A call with no work is never launched: no floor.
  const std::vector<std::vector<Slice>> none = {{}};
  k.host_floor_us->value = 10.0;
  EXPECT_DOUBLE_EQ(KernelCostModel(k, 100).cost(none, 256, 256, heads_shape(4, 4)).time_us, 0.0);
}

TEST(PerfKernelCost, WholeSequenceBandVisitsEveryTileOfABandRightOfTheDiagonal) {
  KernelParams k = simple_kernel("bwd", KernelScheduler::kGridWaves);
  k.whole_sequence_band = true;
  const KernelCostModel whole(k, 4);
  const KernelCostModel banded(simple_kernel("bwd", KernelScheduler::kGridWaves), 4);
  // A symmetric window sees keys right of the diagonal: all 8 x 8 tiles of S = 1024, unmasked; FLOPs unchanged.
  const Mask window = make_mask("sliding_window:window=128", 1024);
  const KernelCost c = whole.cost(window, heads_shape(1, 1));
  EXPECT_EQ(c.full_tiles, 64);
  EXPECT_EQ(c.partial_tiles, 0);
  EXPECT_DOUBLE_EQ(c.flops, banded.cost(window, heads_shape(1, 1)).flops);
  // Causal (nothing right of the diagonal) and FULL documents (already whole) keep their tiles.
  for (const char* spec : {"causal", "sliding_window_causal:window=128"}) {
    const Mask mask = make_mask(spec, 1024);
    EXPECT_EQ(whole.cost(mask, heads_shape(1, 1)).full_tiles, banded.cost(mask, heads_shape(1, 1)).full_tiles) << spec;
    EXPECT_EQ(whole.cost(mask, heads_shape(1, 1)).partial_tiles, banded.cost(mask, heads_shape(1, 1)).partial_tiles)
        << spec;
  }
  const std::vector<std::vector<Slice>> documents = {
      {Slice{0, 256, 0, 256, SliceType::kFull}, Slice{256, 1024, 256, 1024, SliceType::kFull}}};
  EXPECT_EQ(whole.cost(documents, 1024, 1024, heads_shape(1, 1)).full_tiles, 4 + 36);
}

TEST(PerfKernelCost, BuiltinProfileReproducesItsAnchorAtSixteenK) {
  // Entries the committed calibrations did not fit keep the datasheet layer, whose parameters were solved so that
  // full at 16K gives the published TFLOP/s (cuDNN 9.19 on H200, GQA 64/8: 702; the H200 calibration fits
  // lcab_flash and cudnn in bf16, so cudnn's fp16 entry keeps the datasheet layer).
  const HardwareProfile& p = builtin_profile("h200_sxm");
  const KernelCostModel model(p.kernel("cudnn", "fwd", 128, "fp16"), p.sms());
  const KernelCost c = model.cost(make_mask("full", 16384), heads_shape(64, 8));
  EXPECT_NEAR(c.tflops(), 702, 1.0);
}

TEST(PerfKernelCost, BuiltinH200ProfileReproducesTheMmaSyncPathsMeasuredFigures) {
  // The H200's lcab_flash_sm80 entries (no calibration fits them) are solved from that path's measured figures of
  // 2026-12-04 (model/perf/derive_datasheet_profiles.py LCAB_FLASH_MMA_SYNC_H200): full and causal at 16K, 64 / 8
  // heads, per head dim, and the forward's band1 at 32K (each 128-row block sees its own 128 keys).
  const HardwareProfile& p = builtin_profile("h200_sxm");
  std::vector<Slice> band;
  for (int64_t a = 0; a < 32768 / 128; ++a) {
    band.push_back(Slice{128 * a, 128 * a + 128, 128 * a, 128 * a + 128, SliceType::kFull});
  }
  const std::vector<std::vector<Slice>> band1 = {band};
  struct Figures {
    int64_t head_dim;
    double full_fwd, causal_fwd, band_fwd_ms, full_bwd;
  };
  for (const Figures& f : {Figures{128, 370.4, 365.9, 0.6485, 289.7}, Figures{64, 321.3, 319.7, 0.448, 252.7}}) {
    AttentionShape shape = heads_shape(64, 8);
    shape.head_dim = f.head_dim;
    const KernelCostModel fwd(p, p.kernel("lcab_flash_sm80", "fwd", f.head_dim, "bf16"));
    EXPECT_NEAR(fwd.cost(make_mask("full", 16384), shape).tflops(), f.full_fwd, 0.01 * f.full_fwd) << f.head_dim;
    EXPECT_NEAR(fwd.cost(make_mask("causal", 16384), shape).tflops(), f.causal_fwd, 0.01 * f.causal_fwd) << f.head_dim;
    EXPECT_NEAR(fwd.cost(band1, 32768, 32768, shape).time_us * 1e-3, f.band_fwd_ms, 0.02 * f.band_fwd_ms) << f.head_dim;
    // The backward's solve describes its CTAs as q rows, the model as k columns of a GQA group: full comes within
    // 2% (causal 4.6% fast at hd 128, 2.4% slow at hd 64; the README's entry on these figures).
    const KernelCostModel bwd(p, p.kernel("lcab_flash_sm80", "bwd", f.head_dim, "bf16"));
    EXPECT_NEAR(bwd.cost(make_mask("full", 16384), shape).tflops(), f.full_bwd, 0.02 * f.full_bwd) << f.head_dim;
  }
}

}  // namespace
}  // namespace lcab::perf
