#include "kernels/flash_work.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "model/error.h"
#include "model/perf/grid_launch_order.h"

namespace lcab::kernels {
namespace {

constexpr int32_t kPartialBit = int32_t(1) << 31;

int32_t to_i32(int64_t value) {
  LCAB_CHECK(value >= 0 && value < (int64_t(1) << 31), "lcab_flash indexes with 32-bit integers; " << value
                                                            << " does not fit");
  return static_cast<int32_t>(value);
}

// The outer tile's cost as the work list orders it: 4 x tiles + partial tiles (a partial tile weighs 1.25: masking
// code; empty outer tiles cost nothing and come last). The model orders by the same key (kernel_cost.cpp).
int64_t run_key(const std::vector<DeviceRun>& runs, size_t begin, size_t end) {
  int64_t key = 0;
  for (size_t n = begin; n < end; ++n) {
    const int64_t tiles = (runs[n].end_and_partial & ~kPartialBit) - runs[n].begin;
    key += tiles * ((runs[n].end_and_partial & kPartialBit) ? 5 : 4);
  }
  return key;
}

const std::vector<Slice>& mask_slices(const AttentionProblem& problem, int32_t mask) {
  return problem.slices[static_cast<size_t>(mask)];
}

// Appends the row slice lists of one tiling.
void append_row_slices(const std::vector<Slice>& slices, const MaskTiling& tiling, FlashPassWork& work) {
  for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r) {
    for (int32_t n : tiling.row_slices(r)) work.slices.push_back(to_device_slice(slices[static_cast<size_t>(n)]));
    work.slice_offsets.push_back(to_i32(static_cast<int64_t>(work.slices.size())));
  }
}

// Orders outer tiles [mask_run_base, ...) of one mask by cost, costliest first (stable for equal costs); returns
// each outer tile's key (run_key), by tile index.
std::vector<int64_t> append_order(FlashPassWork& work, size_t offsets_base) {
  std::vector<int64_t> cost(static_cast<size_t>(work.outer_tiles));
  for (int32_t t = 0; t < work.outer_tiles; ++t) {
    cost[t] = run_key(work.runs, static_cast<size_t>(work.run_offsets[offsets_base + t]),
                      static_cast<size_t>(work.run_offsets[offsets_base + t + 1]));
  }
  std::vector<int32_t> order(static_cast<size_t>(work.outer_tiles));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return cost[a] > cost[b]; });
  work.outer_order.insert(work.outer_order.end(), order.begin(), order.end());
  return cost;
}

// Per k tile: kWalkFromSharedEnd where the last q tile touching it is also the last one of a neighbouring k tile
// (the tiles of one document, or of a causal or full mask), the default walk otherwise.
void append_walks(const std::vector<std::vector<int32_t>>& columns, FlashPassWork& work) {
  const auto last_q_tile = [&](size_t c) { return columns[c].empty() ? -1 : (columns[c].back() & ~kPartialBit); };
  for (size_t c = 0; c < columns.size(); ++c) {
    const int32_t last = last_q_tile(c);
    const bool shared = last >= 0 && ((c > 0 && last_q_tile(c - 1) == last) ||
                                      (c + 1 < columns.size() && last_q_tile(c + 1) == last));
    work.outer_walk.push_back(shared ? kWalkFromSharedEnd : int8_t{0});
  }
}

void push_run(std::vector<DeviceRun>& runs, size_t row_first_run, int64_t begin, int64_t end, bool partial) {
  const int32_t flag = partial ? kPartialBit : 0;
  if (runs.size() > row_first_run) {
    DeviceRun& last = runs.back();
    if ((last.end_and_partial & ~kPartialBit) == begin && (last.end_and_partial & kPartialBit) == flag) {
      last.end_and_partial = to_i32(end) | flag;
      return;
    }
  }
  runs.push_back({to_i32(begin), to_i32(end) | flag});
}

FlashPassWork start_work(const AttentionProblem& problem, TileShape shape) {
  problem.validate();
  FlashPassWork work;
  work.shape = shape;
  work.num_masks = static_cast<int32_t>(problem.slices.size());
  work.q_tile_rows = to_i32((problem.seqlen_q + shape.q - 1) / shape.q);
  work.slice_offsets.push_back(0);
  work.run_offsets.push_back(0);
  return work;
}

}  // namespace

DeviceSlice to_device_slice(const Slice& slice) {
  DeviceSlice d;
  d.q_begin = to_i32(slice.q_begin);
  d.q_end = to_i32(slice.q_end);
  d.k_begin = to_i32(slice.k_begin);
  d.k_end = to_i32(slice.k_end);
  const bool lo_diagonal = slice.type == SliceType::kInvCausal || slice.type == SliceType::kBiCausal;
  const bool hi_diagonal = slice.type == SliceType::kCausal || slice.type == SliceType::kBiCausal;
  d.flags = (lo_diagonal ? 1 : 0) | (hi_diagonal ? 2 : 0);
  const int64_t offset = slice.k_length() - slice.q_length() + 1;
  LCAB_CHECK(offset > -(int64_t(1) << 31) && offset < (int64_t(1) << 31), "slice diagonal offset out of range");
  d.diagonal_offset = static_cast<int32_t>(offset);
  return d;
}

FlashPassWork build_forward_work(const AttentionProblem& problem, TileShape shape) {
  FlashPassWork work = start_work(problem, shape);
  work.outer_tiles = work.q_tile_rows;
  work.section_heads = to_i32(problem.heads / problem.kv_heads *
                              forward_kv_heads_per_section(problem.kv_heads, problem.seqlen_k, problem.head_dim,
                                                           dtype_bytes(problem.dtype)));
  for (int32_t m = 0; m < work.num_masks; ++m) {
    const auto& slices = mask_slices(problem, m);
    const MaskTiling tiling(slices, problem.seqlen_q, problem.seqlen_k, shape, /*with_row_slices=*/true);
    const size_t offsets_base = work.run_offsets.size() - 1;
    for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r) {
      const size_t first = work.runs.size();
      for (const TileRun* run = tiling.row_begin(r); run != tiling.row_end(r); ++run) {
        push_run(work.runs, first, run->k_tile_begin, run->k_tile_end, run->partial);
      }
      work.run_offsets.push_back(to_i32(static_cast<int64_t>(work.runs.size())));
    }
    append_order(work, offsets_base);
    append_row_slices(slices, tiling, work);
    work.touched_tiles += tiling.counts().touched;
    work.partial_tiles += tiling.counts().partial;
  }
  return work;
}

namespace {

// What the GPU runs on one SM back to back: one k tile, or a pair of k tiles of one document.
struct CtaUnit {
  int32_t tiles[2] = {0, 0};
  int8_t walks[2] = {0, 0};
  int64_t keys[2] = {0, 0};
  int32_t parts = 1;
  int64_t key() const { return keys[0] + (parts == 2 ? keys[1] : 0); }
};

int32_t first_q_tile(const FlashPassWork& work, size_t outer) {
  return work.runs[static_cast<size_t>(work.run_offsets[outer])].begin;
}
int32_t last_q_tile(const FlashPassWork& work, size_t outer) {
  return (work.runs[static_cast<size_t>(work.run_offsets[outer + 1]) - 1].end_and_partial & ~kPartialBit) - 1;
}

// The CTA units of one head mask, costliest first (stable). With `pair`, the k tiles of each document (consecutive
// k tiles walking from their shared last q tile) are paired first with last (build_backward_work in flash_work.h);
// documents whose k tiles all see the same q tiles (a full mask) are left alone: their CTAs are equal already.
std::vector<CtaUnit> cta_units(const FlashPassWork& work, const std::vector<int64_t>& keys_by_tile, int32_t mask,
                               bool pair) {
  const size_t base = static_cast<size_t>(mask) * static_cast<size_t>(work.outer_tiles);
  const auto walks_from_end = [&](int32_t t) {
    return work.outer_walk[base + static_cast<size_t>(t)] == kWalkFromSharedEnd;
  };
  std::vector<CtaUnit> units;
  std::vector<bool> paired(static_cast<size_t>(work.outer_tiles), false);
  for (int32_t begin = 0; pair && begin < work.outer_tiles;) {
    if (!walks_from_end(begin)) {
      ++begin;
      continue;
    }
    const int32_t last = last_q_tile(work, base + static_cast<size_t>(begin));
    int32_t end = begin + 1;
    const auto same_document = [&](int32_t t) {
      return walks_from_end(t) && last_q_tile(work, base + static_cast<size_t>(t)) == last;
    };
    while (end < work.outer_tiles && same_document(end)) ++end;
    // k tiles [begin, end) end on the same q tile and start later with the index: pair i (long) with j (short),
    // from the outside in, while the pairs' first q tiles keep the outermost pair's sum (the pairs stay in step).
    const int32_t first_sum = first_q_tile(work, base + static_cast<size_t>(begin)) +
                              first_q_tile(work, base + static_cast<size_t>(end - 1));
    for (int32_t i = begin, j = end - 1; i < j; ++i, --j) {
      const size_t long_tile = base + static_cast<size_t>(i), short_tile = base + static_cast<size_t>(j);
      if (first_q_tile(work, long_tile) == first_q_tile(work, short_tile)) break;
      if (first_q_tile(work, long_tile) + first_q_tile(work, short_tile) != first_sum) break;
      CtaUnit unit;
      unit.parts = 2;
      unit.tiles[0] = j;
      unit.walks[0] = kWalkFromSharedEnd;
      unit.keys[0] = keys_by_tile[short_tile];
      unit.tiles[1] = i;
      unit.walks[1] = kWalkHeadsInner;
      unit.keys[1] = keys_by_tile[long_tile];
      units.push_back(unit);
      paired[static_cast<size_t>(i)] = paired[static_cast<size_t>(j)] = true;
    }
    begin = end;
  }
  for (int32_t t = 0; t < work.outer_tiles; ++t) {
    if (paired[static_cast<size_t>(t)]) continue;
    CtaUnit unit;
    unit.tiles[0] = t;
    unit.walks[0] = work.outer_walk[base + static_cast<size_t>(t)];
    unit.keys[0] = keys_by_tile[base + static_cast<size_t>(t)];
    units.push_back(unit);
  }
  std::stable_sort(units.begin(), units.end(), [](const CtaUnit& a, const CtaUnit& b) { return a.key() > b.key(); });
  return units;
}

// The units of every (batch element, kv head) in head-major order, each with its items' base index, and their
// launch order (perf::grid_launch_order: long units of every head first).
struct LaunchUnits {
  std::vector<std::pair<const CtaUnit*, int64_t>> units;  // unit, item base (batch and kv head)
  std::vector<int32_t> order;
};

LaunchUnits launch_units(const AttentionProblem& problem, const FlashPassWork& work,
                         const std::vector<std::vector<CtaUnit>>& units_of_mask, int64_t slots) {
  LaunchUnits launch;
  std::vector<int64_t> keys;
  const int64_t per_batch = problem.kv_heads * work.outer_tiles;
  for (int64_t b = 0; b < problem.batch; ++b) {
    for (int64_t kv = 0; kv < problem.kv_heads; ++kv) {
      const size_t mask = work.num_masks == 1 ? 0 : static_cast<size_t>(kv);
      for (const CtaUnit& unit : units_of_mask[mask]) {
        keys.push_back(unit.key());
        launch.units.emplace_back(&unit, b * per_batch + kv * work.outer_tiles);
      }
    }
  }
  launch.order = perf::grid_launch_order(keys, slots);
  return launch;
}

// Plays the GPU's dispatch of the units in launch order (the next CTA of the grid goes to the first SM that frees
// up, the lowest on ties; the keys are the durations) and lists the CTAs so that a slot whose pair's first part ends
// takes the pair's second part next: the GPU then runs each pair on one SM back to back. Once every unit has
// started, a slot that frees up with no second part of its own (the GPU hands it the next CTA of the grid all the
// same) takes the one waiting for the slot that frees last, so that the slots freeing before that one still find
// their own. Calls emit(unit, item base, part) in grid order and returns the makespan in key units.
template <class Emit>
int64_t play_dispatch(const LaunchUnits& launch, int64_t slots, Emit&& emit) {
  const size_t n_slots = static_cast<size_t>(std::max<int64_t>(slots, 1));
  std::vector<int64_t> free_at(n_slots, 0);
  std::vector<int64_t> second_part_of(n_slots, -1);  // per slot: the unit whose second part it runs next, or -1
  size_t next = 0, waiting = 0;
  int64_t makespan = 0;
  while (next < launch.order.size() || waiting > 0) {
    const size_t slot = static_cast<size_t>(std::min_element(free_at.begin(), free_at.end()) - free_at.begin());
    int64_t unit_index = -1;
    int part = 0;
    size_t owner = slot;
    if (second_part_of[slot] < 0 && next >= launch.order.size()) {
      // Every unit has started: the waiting second part whose slot frees last.
      for (size_t s = 0; s < n_slots; ++s) {
        if (second_part_of[s] >= 0 && (second_part_of[owner] < 0 || free_at[s] >= free_at[owner])) owner = s;
      }
    }
    if (second_part_of[owner] >= 0) {
      unit_index = second_part_of[owner];
      part = 1;
      second_part_of[owner] = -1;
      --waiting;
    } else {
      unit_index = launch.order[next++];
    }
    const auto& [unit, item_base] = launch.units[static_cast<size_t>(unit_index)];
    if (part == 0 && unit->parts == 2) {
      second_part_of[slot] = unit_index;
      ++waiting;
    }
    emit(*unit, item_base, part);
    free_at[slot] += std::max<int64_t>(unit->keys[part], 1);
    makespan = std::max(makespan, free_at[slot]);
  }
  return makespan;
}

// The CTAs' launch order (head-major units, long ones first, each pair's parts back to back on one SM). Documents
// are paired when that keeps the played makespan within kBackwardPairMakespanRatio of the unpaired launch's.
void append_cta_items(const AttentionProblem& problem, const std::vector<int64_t>& keys_by_tile, FlashPassWork& work,
                      int64_t slots, bool pair_documents) {
  std::vector<std::vector<CtaUnit>> singles, pairs;
  for (int32_t m = 0; m < work.num_masks; ++m) {
    singles.push_back(cta_units(work, keys_by_tile, m, false));
    if (pair_documents) pairs.push_back(cta_units(work, keys_by_tile, m, true));
  }
  const auto nothing = [](const CtaUnit&, int64_t, int) {};
  const LaunchUnits single_launch = launch_units(problem, work, singles, slots);
  const LaunchUnits pair_launch = pair_documents ? launch_units(problem, work, pairs, slots) : LaunchUnits{};
  const auto makespan = [&](const LaunchUnits& launch) {
    return static_cast<double>(play_dispatch(launch, slots, nothing));
  };
  const bool paired = pair_documents && pair_launch.units.size() < single_launch.units.size() &&
                      makespan(pair_launch) <= kBackwardPairMakespanRatio * makespan(single_launch);
  play_dispatch(paired ? pair_launch : single_launch, slots, [&](const CtaUnit& unit, int64_t base, int part) {
    work.cta_items.push_back(to_i32(base + unit.tiles[part]));
    work.cta_walks.push_back(unit.walks[part]);
  });
  work.pairs_documents = paired;
}

}  // namespace

FlashPassWork build_backward_work(const AttentionProblem& problem, TileShape shape, int64_t slots,
                                  bool pair_documents) {
  FlashPassWork work = start_work(problem, shape);
  work.outer_tiles = to_i32((problem.seqlen_k + shape.k - 1) / shape.k);
  std::vector<int64_t> keys_by_tile;
  for (int32_t m = 0; m < work.num_masks; ++m) {
    const auto& slices = mask_slices(problem, m);
    const MaskTiling tiling(slices, problem.seqlen_q, problem.seqlen_k, shape, /*with_row_slices=*/true);
    // Transpose: per k tile, the q tiles (in increasing order) that touch it, with their full/partial flag.
    std::vector<std::vector<int32_t>> column(static_cast<size_t>(work.outer_tiles));
    for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r) {
      for (const TileRun* run = tiling.row_begin(r); run != tiling.row_end(r); ++run) {
        for (int64_t c = run->k_tile_begin; c < run->k_tile_end; ++c) {
          LCAB_CHECK(c < work.outer_tiles, "tiling produced k tile " << c << " beyond " << work.outer_tiles);
          column[static_cast<size_t>(c)].push_back(to_i32(r) | (run->partial ? kPartialBit : 0));
        }
      }
    }
    const size_t offsets_base = work.run_offsets.size() - 1;
    for (const auto& entries : column) {
      const size_t first = work.runs.size();
      for (int32_t e : entries) {
        const int64_t q_tile = e & ~kPartialBit;
        push_run(work.runs, first, q_tile, q_tile + 1, (e & kPartialBit) != 0);
      }
      work.run_offsets.push_back(to_i32(static_cast<int64_t>(work.runs.size())));
    }
    const std::vector<int64_t> keys = append_order(work, offsets_base);
    keys_by_tile.insert(keys_by_tile.end(), keys.begin(), keys.end());
    append_walks(column, work);
    append_row_slices(slices, tiling, work);
    work.touched_tiles += tiling.counts().touched;
    work.partial_tiles += tiling.counts().partial;
  }
  append_cta_items(problem, keys_by_tile, work, slots, pair_documents);
  return work;
}

int32_t forward_kv_heads_per_section(int64_t kv_heads, int64_t seqlen_k, int64_t head_dim, int64_t element_bytes) {
  LCAB_CHECK(kv_heads > 0 && seqlen_k >= 0 && head_dim > 0 && element_bytes > 0,
             "forward sections need positive kv heads, head dim and element size");
  const int64_t kv_head_bytes = 2 * seqlen_k * head_dim * element_bytes;  // K and V
  for (int64_t n = kv_heads; n > 1; --n) {
    if (kv_heads % n == 0 && n * kv_head_bytes <= kForwardKvSectionBytes) return static_cast<int32_t>(n);
  }
  return 1;
}

}  // namespace lcab::kernels
