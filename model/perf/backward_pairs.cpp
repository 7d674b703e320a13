#include "model/perf/backward_pairs.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "model/error.h"
#include "model/perf/grid_launch_order.h"

namespace lcab::perf {

bool walks_from_shared_end(std::span<const KTileSpan> tiles, size_t t) {
  const int32_t last = tiles[t].last_q_tile;
  return last >= 0 && ((t > 0 && tiles[t - 1].last_q_tile == last) ||
                       (t + 1 < tiles.size() && tiles[t + 1].last_q_tile == last));
}

namespace {

// The units of one head mask into `units` (costliest first, stable); `paired`: a buffer.
void units_into(std::span<const KTileSpan> tiles, bool pair, std::vector<BackwardUnit>& units,
                std::vector<uint8_t>& paired) {
  const size_t n = tiles.size();
  units.clear();
  paired.assign(n, 0);
  for (size_t begin = 0; pair && begin < n;) {
    if (!walks_from_shared_end(tiles, begin)) {
      ++begin;
      continue;
    }
    const int32_t last = tiles[begin].last_q_tile;
    size_t end = begin + 1;
    while (end < n && walks_from_shared_end(tiles, end) && tiles[end].last_q_tile == last) ++end;
    // k tiles [begin, end) end on the same q tile and start later with the index: pair i (long) with j (short),
    // from the outside in, while the pairs' first q tiles keep the outermost pair's sum (the pairs stay in step).
    const int64_t first_sum = int64_t{tiles[begin].first_q_tile} + tiles[end - 1].first_q_tile;
    for (size_t i = begin, j = end - 1; i < j; ++i, --j) {
      if (tiles[i].first_q_tile == tiles[j].first_q_tile) break;
      if (int64_t{tiles[i].first_q_tile} + tiles[j].first_q_tile != first_sum) break;
      BackwardUnit unit;
      unit.parts = 2;
      unit.tiles[0] = static_cast<int32_t>(j);
      unit.keys[0] = tiles[j].key;
      unit.tiles[1] = static_cast<int32_t>(i);
      unit.keys[1] = tiles[i].key;
      units.push_back(unit);
      paired[i] = paired[j] = 1;
    }
    begin = end;
  }
  for (size_t t = 0; t < n; ++t) {
    if (paired[t]) continue;
    BackwardUnit unit;
    unit.tiles[0] = static_cast<int32_t>(t);
    unit.keys[0] = tiles[t].key;
    units.push_back(unit);
  }
  std::stable_sort(units.begin(), units.end(),
                   [](const BackwardUnit& a, const BackwardUnit& b) { return a.key() > b.key(); });
}

// One launch: the units of every (batch element, kv head), head-major, and their launch order (grid_launch_order:
// long units of every head first).
struct LaunchUnits {
  std::vector<const BackwardUnit*> units;
  std::vector<int64_t> heads;  // per unit: its CTA head (batch x kv_heads + kv head)
  std::vector<int64_t> keys;
  std::vector<int32_t> order, short_items;
};

void launch_units(const std::vector<std::vector<BackwardUnit>>& units_of_mask, size_t masks, int64_t batch,
                  int64_t kv_heads, int64_t slots, LaunchUnits& launch) {
  launch.units.clear();
  launch.heads.clear();
  launch.keys.clear();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t kv = 0; kv < kv_heads; ++kv) {
      for (const BackwardUnit& unit : units_of_mask[masks == 1 ? 0 : static_cast<size_t>(kv)]) {
        launch.keys.push_back(unit.key());
        launch.units.push_back(&unit);
        launch.heads.push_back(b * kv_heads + kv);
      }
    }
  }
  grid_launch_order_into(launch.keys, slots, launch.order, launch.short_items);
}

// The buffers of one thread's launches.
struct LaunchScratch {
  std::vector<std::vector<BackwardUnit>> singles, pairs;
  std::vector<uint8_t> paired;
  LaunchUnits single_launch, pair_launch;
  std::vector<int64_t> free_at, second_part_of;
  std::vector<uint64_t> heap;
};

LaunchScratch& launch_scratch() {
  thread_local LaunchScratch scratch;
  return scratch;
}

// Plays the GPU's dispatch of the units in launch order (the next CTA of the grid goes to the first SM that frees
// up, the lowest on ties; the keys are the durations) and lists the CTAs so that a slot whose pair's first part ends
// takes the pair's second part next: the GPU then runs each pair on one SM back to back. Once every unit has
// started, a slot that frees up with no second part of its own (the GPU hands it the next CTA of the grid all the
// same) takes the one waiting for the slot that frees last, so that the slots freeing before that one still find
// their own. Calls emit(unit, CTA head, part) in grid order and returns the makespan in key units.
template <class Emit>
int64_t play_dispatch(const LaunchUnits& launch, int64_t slots, LaunchScratch& scratch, Emit&& emit) {
  const size_t n_slots = static_cast<size_t>(std::max<int64_t>(slots, 1));
  std::vector<int64_t>& free_at = scratch.free_at;
  std::vector<int64_t>& second_part_of = scratch.second_part_of;  // per slot: the unit whose second part it runs next
  free_at.assign(n_slots, 0);
  second_part_of.assign(n_slots, -1);
  // The first free slot, the lowest index on ties: a min-heap of free_at x 2^16 + slot (one integer compare).
  LCAB_CHECK(n_slots < (size_t(1) << 16), "the backward's dispatch plays at most 65535 slots, got " << n_slots);
  std::vector<uint64_t>& heap = scratch.heap;
  heap.clear();
  for (size_t s = 0; s < n_slots; ++s) heap.push_back(s);
  const auto later = std::greater<>();
  size_t next = 0, waiting = 0;
  int64_t makespan = 0;
  while (next < launch.order.size() || waiting > 0) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const size_t slot = static_cast<size_t>(heap.back() & 0xffffu);
    heap.pop_back();
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
    const BackwardUnit& unit = *launch.units[static_cast<size_t>(unit_index)];
    if (part == 0 && unit.parts == 2) {
      second_part_of[slot] = unit_index;
      ++waiting;
    }
    emit(unit, launch.heads[static_cast<size_t>(unit_index)], part);
    free_at[slot] += std::max<int64_t>(unit.keys[part], 1);
    makespan = std::max(makespan, free_at[slot]);
    heap.push_back((static_cast<uint64_t>(free_at[slot]) << 16) | slot);
    std::push_heap(heap.begin(), heap.end(), later);
  }
  return makespan;
}

}  // namespace

bool pairs_possible(std::span<const std::vector<KTileSpan>> tiles_of_mask) {
  for (const std::vector<KTileSpan>& tiles : tiles_of_mask)
    for (size_t t = 0; t + 1 < tiles.size(); ++t)
      if (tiles[t].last_q_tile >= 0 && tiles[t + 1].last_q_tile == tiles[t].last_q_tile &&
          tiles[t + 1].first_q_tile != tiles[t].first_q_tile)
        return true;
  return false;
}

BackwardLaunch backward_launch(std::span<const std::vector<KTileSpan>> tiles_of_mask, int64_t batch,
                               int64_t kv_heads, int64_t slots, bool pair_documents) {
  BackwardLaunch launch;
  backward_launch_into(tiles_of_mask, batch, kv_heads, slots, pair_documents, launch);
  return launch;
}

void backward_launch_into(std::span<const std::vector<KTileSpan>> tiles_of_mask, int64_t batch, int64_t kv_heads,
                          int64_t slots, bool pair_documents, BackwardLaunch& out) {
  LCAB_CHECK(!tiles_of_mask.empty() && (tiles_of_mask.size() == 1 || static_cast<int64_t>(tiles_of_mask.size()) == kv_heads),
             "the backward's launch needs one k-tile list shared by all kv heads or one per kv head, got "
                 << tiles_of_mask.size() << " for " << kv_heads);
  LaunchScratch& scratch = launch_scratch();
  const size_t masks = tiles_of_mask.size();
  out.ctas.clear();
  out.paired = false;
  const auto singles = [&] {
    scratch.singles.resize(masks);
    for (size_t m = 0; m < masks; ++m) units_into(tiles_of_mask[m], false, scratch.singles[m], scratch.paired);
    launch_units(scratch.singles, masks, batch, kv_heads, slots, scratch.single_launch);
  };
  // The unpaired launch: its units in launch order (no second parts to place).
  const auto emit_singles = [&] {
    const LaunchUnits& launch = scratch.single_launch;
    for (int32_t n : launch.order)
      out.ctas.push_back({launch.heads[static_cast<size_t>(n)], launch.units[static_cast<size_t>(n)]->tiles[0], 0,
                          false});
  };
  // The unpaired launch's played makespan is at least the mean load per slot and the longest unit (in keys).
  int64_t total = 0, longest = 0;
  bool any_pair = false;
  scratch.pairs.resize(masks);
  const bool try_pairs = pair_documents && pairs_possible(tiles_of_mask);
  for (size_t m = 0; try_pairs && m < masks; ++m) {
    const std::vector<KTileSpan>& tiles = tiles_of_mask[m];
    int64_t sum = 0;
    for (const KTileSpan& t : tiles) {
      sum += std::max<int64_t>(t.key, 1);
      longest = std::max(longest, std::max<int64_t>(t.key, 1));
    }
    total += sum * (masks == 1 ? kv_heads : 1) * batch;
    units_into(tiles, true, scratch.pairs[m], scratch.paired);
    any_pair = any_pair || scratch.pairs[m].size() < tiles.size();
  }
  if (!any_pair) {
    singles();
    emit_singles();
    return;
  }
  launch_units(scratch.pairs, masks, batch, kv_heads, slots, scratch.pair_launch);
  const int64_t played = play_dispatch(scratch.pair_launch, slots, scratch,
                                       [&](const BackwardUnit& unit, int64_t head, int part) {
                                         out.ctas.push_back({head, unit.tiles[part], part, unit.parts == 2});
                                       });
  const auto within = [&](int64_t unpaired) {
    return static_cast<double>(played) <= kBackwardPairMakespanRatio * static_cast<double>(unpaired);
  };
  out.paired = true;
  if (within(std::max(longest, (total + slots - 1) / std::max<int64_t>(slots, 1)))) return;
  singles();
  if (within(play_dispatch(scratch.single_launch, slots, scratch, [](const BackwardUnit&, int64_t, int) {}))) return;
  out.paired = false;
  out.ctas.clear();
  emit_singles();
}

}  // namespace lcab::perf
