#include "model/perf/kernel_cost.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "model/error.h"
#include "model/mask_tiling.h"
#include "model/perf/backward_pairs.h"
#include "model/perf/backward_tail.h"
#include "model/perf/first_painter.h"
#include "model/perf/grid_launch_order.h"
#include "model/perf/stable_sort_small.h"

namespace lcab::perf {
namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

uint64_t attention_call_hash(std::span<const std::vector<Slice>> slices, int64_t sq, int64_t sk,
                             const AttentionShape& s) {
  uint64_t h = mix(mix(0, static_cast<uint64_t>(sq)), static_cast<uint64_t>(sk));
  for (int64_t v : {s.batch, s.heads, s.kv_heads, s.head_dim, s.dtype_bytes}) h = mix(h, static_cast<uint64_t>(v));
  for (const std::vector<Slice>& list : slices) {
    h = mix(h, list.size());
    for (const Slice& x : list) {
      h = mix(h, static_cast<uint64_t>(x.q_begin));
      h = mix(h, static_cast<uint64_t>(x.q_end));
      h = mix(h, static_cast<uint64_t>(x.k_begin));
      h = mix(h, static_cast<uint64_t>(x.k_end));
      h = mix(h, static_cast<uint64_t>(x.type));
    }
  }
  return h;
}

namespace {

constexpr size_t kLaunchCacheEntries = 256;

/// True when the kernel's (main) items are k-tile columns.
bool is_column_item(KernelWorkItem item) { return item != KernelWorkItem::kQRowPerHead; }
/// True when the kernel's grid pairs documents' k-tile columns (perf::backward_launch).
bool pairs_documents(KernelScheduler scheduler) { return scheduler == KernelScheduler::kGridPairedDocuments; }
/// True when the kernel's grid keeps its items with their keys for perf::grid_launch_order.
bool long_items_first(KernelScheduler scheduler) {
  return scheduler == KernelScheduler::kGridLongItemsFirst || pairs_documents(scheduler);
}
/// True when the kernel also has q-tile row items for dQ (FlexAttention's backward).
bool has_dq_rows(KernelWorkItem item) { return item == KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead; }

void push_cost(std::vector<CostRun>& runs, double cost_us) {
  if (!runs.empty() && runs.back().cost_us == cost_us) ++runs.back().count;
  else runs.push_back({cost_us, 1});
}

/// Slices of `list` meeting each q-tile row (what the kernel's boundary-tile masking walks), by a difference
/// array over the rows: O(slices + rows).
std::vector<double> slices_per_q_tile_row(const std::vector<Slice>& list, int64_t rows, int tile_q) {
  std::vector<double> count(static_cast<size_t>(rows + 1), 0);
  for (const Slice& s : list) {
    if (s.q_end <= s.q_begin) continue;
    count[static_cast<size_t>(s.q_begin / tile_q)] += 1;
    count[static_cast<size_t>((s.q_end - 1) / tile_q + 1)] -= 1;
  }
  double running = 0;
  for (int64_t r = 0; r < rows; ++r) {
    running += count[static_cast<size_t>(r)];
    count[static_cast<size_t>(r)] = running;
  }
  count.pop_back();
  return count;
}

/// One outer tile as a work item: its tiles, boundary tiles, and the slices its boundary tiles test.
struct OuterTile {
  int64_t tiles = 0;
  int64_t partial = 0;
  double partial_slices = 0;  ///< sum over its boundary tiles of the slices meeting their q-tile row
  int32_t first_inner = -1;   ///< k-tile columns of a pairing grid: first and last q-tile row (-1: none, or not
  int32_t last_inner = -1;    ///< counted)
  int64_t idle_half = 0;      ///< of its boundary tiles, those with an idle key half (KernelParams::idle_half_tile_us)
};

/// What one tile of an item costs (per q head of the item), and its per-item overhead.
struct TileCosts {
  double full_us = 0, partial_us = 0, slice_us = 0, kv_us = 0, outer_us = 0;
  double idle_half_us = 0;  ///< a boundary tile with an idle key half (partial_us where the kernel has no such tile)
  /// How many times an item pays outer_us: once per q head it computes, or once (lcab_flash's backward CTA loads
  /// K/V and stores dK/dV once for its whole GQA group).
  double outer_times = 1;
};

/// The tile costs of the kernel's main items (q-tile rows, or k-tile columns); `kv_share`: the q heads that read
/// each K/V tile together; `full_tile_us`: an unmasked tile's cost in this call (KernelParams::unmasked_tile_us).
TileCosts main_tile_costs(const KernelParams& p, double kv_share, double full_tile_us) {
  TileCosts c;
  c.full_us = full_tile_us;
  c.partial_us = p.partial_tile_us.value;
  c.idle_half_us = p.idle_half_tile_us ? p.idle_half_tile_us->value : c.partial_us;
  c.outer_us = p.row_us.value;
  c.slice_us = p.slice_us ? p.slice_us->value : 0.0;
  // K/V tiles are streamed per tile only by q-row items (a column item loads its K/V tile once).
  c.kv_us = p.kv_tile_us && !is_column_item(p.work_item) ? p.kv_tile_us->value / kv_share : 0.0;
  return c;
}

/// The tile costs of the dQ items of KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead: dq_tile_fraction of a dK/dV
/// item's tile, the same per-item overhead.
TileCosts dq_tile_costs(const KernelParams& p, double full_tile_us) {
  const double f = p.dq_tile_fraction ? p.dq_tile_fraction->value : 0.0;
  TileCosts c;
  c.full_us = f * full_tile_us;
  c.partial_us = f * p.partial_tile_us.value;
  c.idle_half_us = c.partial_us;  // FlexAttention's dQ items (idle halves are lcab_flash's)
  c.slice_us = f * (p.slice_us ? p.slice_us->value : 0.0);
  c.outer_us = p.row_us.value;
  return c;
}

/// One outer tile's item: its tiles times the q heads it computes, and its overhead.
double outer_item_cost(const TileCosts& c, const OuterTile& t, double heads_in_item) {
  return (static_cast<double>(t.tiles - t.partial) * c.full_us +
          static_cast<double>(t.partial - t.idle_half) * c.partial_us +
          static_cast<double>(t.idle_half) * c.idle_half_us + t.partial_slices * c.slice_us +
          static_cast<double>(t.tiles) * c.kv_us) *
             heads_in_item +
         c.outer_us * c.outer_times;
}

/// One item of a costliest-first grid: its ordering key (4 x tiles + boundary tiles, the work list's cost: a boundary
/// tile weighs 1.25) and its cost.
struct GridItem {
  int64_t key = 0;
  double cost_us = 0;
};

/// Costs of one head's outer tiles (q-tile rows, or k-tile columns: the transpose of the same tiling) in launch
/// order, times the q heads one item computes. A persistent kernel has no item for an outer tile with no tiles;
/// a costliest-first grid launches them in the work list's order (kernels/flash_work.cpp: tiles + 1/4 per
/// boundary tile, stable, empty ones last); with `keyed`, its items go there (with their keys) instead of `out`.
/// for_each_outer(visit) calls visit(OuterTile) for every outer tile in position order. `outer`: a buffer (reused).
template <class ForEachOuter>
void append_outer_costs(const KernelParams& p, const TileCosts& c, ForEachOuter&& for_each_outer, bool grid,
                        double heads_in_item, std::vector<CostRun>& out, std::vector<OuterTile>& outer,
                        std::vector<GridItem>* keyed = nullptr) {
  const auto item_cost = [&](const OuterTile& t) { return outer_item_cost(c, t, heads_in_item); };
  if (p.scheduler != KernelScheduler::kGridCostliestFirst && !long_items_first(p.scheduler)) {
    for_each_outer([&](const OuterTile& t) {
      if (t.tiles == 0 && !grid) return;
      push_cost(out, item_cost(t));
    });
    return;
  }
  outer.clear();
  for_each_outer([&](const OuterTile& t) { outer.push_back(t); });
  const auto key = [](const OuterTile& t) { return 4 * t.tiles + t.partial; };
  stable_sort_by_key_descending(outer, key);
  for (const OuterTile& t : outer) {
    if (keyed) keyed->push_back({key(t), item_cost(t)});
    push_cost(out, item_cost(t));
  }
}

/// The items of a grid of long items first (KernelScheduler::kGridLongItemsFirst) per head mask: each mask's items
/// costliest first, and how many heads (CTAs per outer tile) launch that list one after the other.
struct GridMaskItems {
  std::vector<GridItem> items;  ///< every mask's list, concatenated
  std::vector<size_t> offsets{0};
  std::vector<int64_t> heads;   ///< per mask
  void clear() {
    items.clear();
    offsets.assign(1, 0);
    heads.clear();
  }
};

/// The buffers of one cost_of_masks call, kept per thread between calls: a CP item table costs millions of small
/// calls, whose vectors were otherwise allocated and grown in each. Every user clears what it uses first.
struct CostScratch {
  std::vector<CostRun> runs;           ///< persistent: all items
  std::vector<CostRun> ordered;        ///< grid: the whole launch order
  std::vector<CostRun> per_mask_runs;  ///< one head's outer tiles, in launch order
  std::vector<CostRun> promoted;       ///< a grid of long items first's launch when it moves items ahead
  std::vector<OuterTile> outer;        ///< one head's outer tiles, sorted costliest first
  GridMaskItems grid_items;
  std::vector<std::vector<KTileSpan>> spans;  ///< a pairing grid: per head mask, its columns in position order
  std::vector<std::vector<double>> span_costs;  ///< and their items' costs
  std::vector<int64_t> keys;
  std::vector<double> costs;
  std::vector<int32_t> order, short_items;
};

CostScratch& cost_scratch() {
  thread_local CostScratch scratch;
  return scratch;
}

/// The whole launch of a grid of long items first in grid_launch_order when it moves long items ahead (head-major:
/// batch element, then mask, then head, each head's items costliest first), into scratch.promoted. False when no
/// item is long enough: the launch stays head-major, as the caller's runs have it. (The caller keeps those merged
/// runs beside the keyed items so that most calls, which promote nothing, never spell out one item per CTA: doing
/// so for every call took the 1024-GPU plan from 0.22 to 0.39 s.)
bool promoted_launch(const GridMaskItems& grid, int64_t batch, int64_t slots, CostScratch& scratch) {
  int64_t max_key = 0, total = 0;
  for (size_t m = 0; m + 1 < grid.offsets.size(); ++m) {
    int64_t sum = 0;
    for (size_t n = grid.offsets[m]; n < grid.offsets[m + 1]; ++n) {
      max_key = std::max(max_key, grid.items[n].key);
      sum += grid.items[n].key;
    }
    total += sum * grid.heads[m];
  }
  if (!grid_launch_promotes(max_key, total * batch, slots)) return false;
  std::vector<int64_t>& keys = scratch.keys;
  std::vector<double>& costs = scratch.costs;
  keys.clear();
  costs.clear();
  for (int64_t b = 0; b < batch; ++b) {
    for (size_t m = 0; m + 1 < grid.offsets.size(); ++m) {
      for (int64_t h = 0; h < grid.heads[m]; ++h) {
        for (size_t n = grid.offsets[m]; n < grid.offsets[m + 1]; ++n) {
          keys.push_back(grid.items[n].key);
          costs.push_back(grid.items[n].cost_us);
        }
      }
    }
  }
  grid_launch_order_into(keys, slots, scratch.order, scratch.short_items);
  std::vector<CostRun>& out = scratch.promoted;
  out.clear();
  for (int32_t n : scratch.order) push_cost(out, costs[static_cast<size_t>(n)]);
  return true;
}

/// perf::backward_launch of the call's columns, kept per thread for the calls that follow: the launch depends on
/// the columns' spans and keys, the batch, the CTA heads and the slots only, not on what a tile costs, and a fit
/// (lcab-calibrate) costs the same records again for every trial of the parameters. A direct-mapped cache of
/// kLaunchCacheEntries launches whose buffers are reused (a sweep's calls rarely repeat: there it only saves the
/// allocations); entries compare the spans themselves, not only their hash.
const BackwardLaunch& cached_backward_launch(const std::vector<std::vector<KTileSpan>>& spans, int64_t batch,
                                             int64_t cta_heads, int64_t slots) {
  struct Entry {
    bool valid = false;
    uint64_t hash = 0;
    std::vector<std::vector<KTileSpan>> spans;
    int64_t batch = 0, cta_heads = 0, slots = 0;
    BackwardLaunch launch;
  };
  thread_local std::vector<Entry> cache(kLaunchCacheEntries);
  uint64_t h = mix(mix(mix(0, static_cast<uint64_t>(batch)), static_cast<uint64_t>(cta_heads)),
                   static_cast<uint64_t>(slots));
  for (const std::vector<KTileSpan>& list : spans) {
    h = mix(h, list.size());
    for (const KTileSpan& t : list)
      h = mix(mix(mix(h, static_cast<uint64_t>(t.first_q_tile)), static_cast<uint64_t>(t.last_q_tile)),
              static_cast<uint64_t>(t.key));
  }
  const auto same_span = [](const KTileSpan& u, const KTileSpan& v) {
    return u.first_q_tile == v.first_q_tile && u.last_q_tile == v.last_q_tile && u.key == v.key;
  };
  const auto same = [&](const std::vector<std::vector<KTileSpan>>& a) {
    return std::equal(a.begin(), a.end(), spans.begin(), spans.end(), [&](const auto& x, const auto& y) {
      return std::equal(x.begin(), x.end(), y.begin(), y.end(), same_span);
    });
  };
  Entry& e = cache[h % kLaunchCacheEntries];
  if (e.valid && e.hash == h && e.batch == batch && e.cta_heads == cta_heads && e.slots == slots && same(e.spans))
    return e.launch;
  e.valid = true;
  e.hash = h;
  e.spans = spans;
  e.batch = batch;
  e.cta_heads = cta_heads;
  e.slots = slots;
  backward_launch_into(spans, batch, cta_heads, slots, true, e.launch);
  return e.launch;
}

/// Per k-tile column of `tiling`, the first (`from_last`: the last) q-tile row with a tile in it, -1 for none: the
/// rows in that order paint the columns of their runs (FirstPainter).
std::vector<int32_t> first_rows_of_columns(const MaskTiling& tiling, int64_t columns, bool from_last) {
  FirstPainter painter;
  painter.reset(columns);
  const int64_t rows = tiling.num_q_tile_rows();
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t r = from_last ? rows - 1 - i : i;
    for (const TileRun* run = tiling.row_begin(r); run != tiling.row_end(r); ++run)
      painter.paint(run->k_tile_begin, run->k_tile_end, static_cast<int32_t>(r));
  }
  return std::move(painter.values());
}

/// Calls visit(OuterTile) for every outer tile of `tiling` (the tiling of `list`) in position order; the slices
/// its boundary tiles test are counted only when the kernel charges them (slice_us).
/// `table_width` >= 0: every boundary tile tests that many slices (KernelParams::slices_by_table_width).
/// For a kernel with idle key halves (KernelParams::idle_half_tile_us) `tiling` was built with_idle_halves, and
/// each outer tile counts its tiles with one idle half.
template <class Visit>
void for_each_outer_tile(const KernelParams& p, bool by_column, const std::vector<Slice>& list,
                         const MaskTiling& tiling, int64_t seqlen_k, double table_width, Visit&& visit) {
  const bool halves = p.has_idle_halves();
  const int64_t rows = tiling.num_q_tile_rows();
  const bool count_slices = p.slice_us && p.slice_us->value > 0;
  const std::vector<double> row_slices =
      !count_slices        ? std::vector<double>(static_cast<size_t>(rows), 0)
      : table_width >= 0   ? std::vector<double>(static_cast<size_t>(rows), table_width)
                           : slices_per_q_tile_row(list, rows, p.tile.q);
  if (!by_column) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t partial = tiling.row_partial_tiles(r);
      OuterTile tile{tiling.row_tiles(r), partial, static_cast<double>(partial) * row_slices[static_cast<size_t>(r)]};
      if (halves) tile.idle_half = tiling.row_idle_half_tiles(r);
      visit(tile);
    }
    return;
  }
  // Per k-tile column: tiles and partial tiles, from the rows' runs by difference arrays (O(runs + columns)).
  const int64_t columns = (seqlen_k + p.tile.k - 1) / p.tile.k;
  std::vector<int64_t> touched(static_cast<size_t>(columns + 1), 0), partial(static_cast<size_t>(columns + 1), 0);
  std::vector<double> slices(static_cast<size_t>(columns + 1), 0);
  for (int64_t r = 0; r < rows; ++r) {
    for (const TileRun* run = tiling.row_begin(r); run != tiling.row_end(r); ++run) {
      std::vector<int64_t>& counter = run->partial ? partial : touched;
      ++counter[static_cast<size_t>(run->k_tile_begin)];
      --counter[static_cast<size_t>(run->k_tile_end)];
      if (run->partial) {
        slices[static_cast<size_t>(run->k_tile_begin)] += row_slices[static_cast<size_t>(r)];
        slices[static_cast<size_t>(run->k_tile_end)] -= row_slices[static_cast<size_t>(r)];
      }
    }
  }
  // Idle-half tiles per column.
  std::vector<int64_t> idle;
  if (halves) {
    idle.assign(static_cast<size_t>(columns), 0);
    for (int64_t r = 0; r < rows; ++r)
      for (const int64_t* c = tiling.idle_half_begin(r); c != tiling.idle_half_end(r); ++c)
        ++idle[static_cast<size_t>(*c)];
  }
  // A pairing grid's columns: their first and last q-tile rows (each column painted once per direction).
  std::vector<int32_t> first, last;
  if (pairs_documents(p.scheduler)) {
    first = first_rows_of_columns(tiling, columns, false);
    last = first_rows_of_columns(tiling, columns, true);
  }
  int64_t t = 0, q = 0;
  double sl = 0;
  for (int64_t c = 0; c < columns; ++c) {
    t += touched[static_cast<size_t>(c)];
    q += partial[static_cast<size_t>(c)];
    sl += slices[static_cast<size_t>(c)];
    OuterTile tile{t + q, q, sl};
    if (halves) tile.idle_half = idle[static_cast<size_t>(c)];
    if (!first.empty()) {
      tile.first_inner = first[static_cast<size_t>(c)];
      tile.last_inner = last[static_cast<size_t>(c)];
    }
    visit(tile);
  }
}

/// The slices a kernel with KernelParams::whole_sequence_band visits. A sequence is a run of tokens that no slice
/// crosses (a packed document, or the whole mask), as cuDNN's ragged batch cuts it: slices whose token spans
/// [min(q, k) begin, max(q, k) end) overlap, transitively. Every sequence with a key right of some row's diagonal
/// becomes one unmasked rectangle, its bounding box; other sequences keep their slices. The diagonal is
/// bottom-right aligned (k = q + seqlen_k - seqlen_q).
std::vector<Slice> whole_sequence_band_slices(std::vector<Slice> list, int64_t seqlen_q, int64_t seqlen_k) {
  const auto span_begin = [](const Slice& s) { return std::min(s.q_begin, s.k_begin); };
  const auto span_end = [](const Slice& s) { return std::max(s.q_end, s.k_end); };
  std::sort(list.begin(), list.end(), [&](const Slice& a, const Slice& b) { return span_begin(a) < span_begin(b); });
  const int64_t offset = seqlen_k - seqlen_q;
  const auto right_of_diagonal = [&](const Slice& s) {
    for (int64_t q : {s.q_begin, s.q_end - 1}) {
      const TokenRange keys = s.keys_of_row(q);
      if (keys.end > keys.begin && keys.end - 1 > q + offset) return true;
    }
    return false;
  };
  std::vector<Slice> out;
  size_t n = 0;
  while (n < list.size()) {
    Slice box = list[n];
    int64_t end = span_end(list[n]);
    bool right = right_of_diagonal(list[n]);
    size_t m = n + 1;
    for (; m < list.size() && span_begin(list[m]) < end; ++m) {
      end = std::max(end, span_end(list[m]));
      box.q_begin = std::min(box.q_begin, list[m].q_begin);
      box.q_end = std::max(box.q_end, list[m].q_end);
      box.k_begin = std::min(box.k_begin, list[m].k_begin);
      box.k_end = std::max(box.k_end, list[m].k_end);
      right = right || right_of_diagonal(list[m]);
    }
    if (right) {
      box.type = SliceType::kFull;
      out.push_back(box);
    } else {
      out.insert(out.end(), list.begin() + static_cast<std::ptrdiff_t>(n), list.begin() + static_cast<std::ptrdiff_t>(m));
    }
    n = m;
  }
  return out;
}

/// One sequence of a ragged batch: its first token and length in the call, and its slices from its first token.
struct RaggedSequence {
  int64_t begin = 0, length = 0;
  std::vector<Slice> slices;
};

/// The sequences a ragged batch cuts `list` into (KernelParams::ragged_sequences): runs of tokens no slice crosses
/// (slices whose spans [min(q, k) begin, max(q, k) end) overlap, transitively), each a square block on the diagonal
/// (its q and k ranges equal) covering the call's tokens without gaps; empty when the call is not such a batch of at
/// least two sequences (then it is one sequence, tiled as given).
std::vector<RaggedSequence> ragged_sequences(std::vector<Slice> list, int64_t seqlen_q, int64_t seqlen_k) {
  if (seqlen_q != seqlen_k || list.size() < 2) return {};
  const auto span_begin = [](const Slice& s) { return std::min(s.q_begin, s.k_begin); };
  const auto span_end = [](const Slice& s) { return std::max(s.q_end, s.k_end); };
  std::sort(list.begin(), list.end(), [&](const Slice& a, const Slice& b) { return span_begin(a) < span_begin(b); });
  std::vector<RaggedSequence> out;
  size_t n = 0;
  int64_t next_token = 0;
  while (n < list.size()) {
    int64_t q_begin = list[n].q_begin, q_end = list[n].q_end, k_begin = list[n].k_begin, k_end = list[n].k_end;
    int64_t end = span_end(list[n]);
    size_t m = n + 1;
    for (; m < list.size() && span_begin(list[m]) < end; ++m) {
      end = std::max(end, span_end(list[m]));
      q_begin = std::min(q_begin, list[m].q_begin);
      q_end = std::max(q_end, list[m].q_end);
      k_begin = std::min(k_begin, list[m].k_begin);
      k_end = std::max(k_end, list[m].k_end);
    }
    if (q_begin != k_begin || q_end != k_end || q_begin != next_token) return {};
    RaggedSequence sequence{q_begin, q_end - q_begin, {}};
    for (size_t i = n; i < m; ++i) {
      Slice s = list[i];
      s.q_begin -= q_begin;
      s.q_end -= q_begin;
      s.k_begin -= q_begin;
      s.k_end -= q_begin;
      sequence.slices.push_back(s);
    }
    out.push_back(std::move(sequence));
    next_token = q_end;
    n = m;
  }
  if (out.size() < 2 || next_token != seqlen_q) return {};
  return out;
}

/// The intervals FlexAttention's mask_mod (the peers' MaskTables) tests per element of a boundary block: 1 for a
/// mask of full slices whose corners lie on a grid of at least 64 tokens (a block table, one lookup), otherwise the
/// interval table's width: the most slices covering one row, over all rows and head masks.
double mask_table_width(std::span<const std::vector<Slice>> slices, int64_t seqlen_q, int64_t seqlen_k) {
  int64_t granule = std::gcd(seqlen_q, seqlen_k);
  bool all_full = true;
  for (const std::vector<Slice>& list : slices)
    for (const Slice& s : list) {
      all_full = all_full && s.type == SliceType::kFull;
      for (int64_t corner : {s.q_begin, s.q_end, s.k_begin, s.k_end}) granule = std::gcd(granule, corner);
    }
  if (all_full && granule >= 64) return 1.0;
  int64_t width = 0;
  std::vector<int32_t> starts(static_cast<size_t>(seqlen_q + 1));
  for (const std::vector<Slice>& list : slices) {
    std::fill(starts.begin(), starts.end(), 0);
    for (const Slice& s : list) {
      if (s.q_end <= s.q_begin) continue;
      ++starts[static_cast<size_t>(s.q_begin)];
      --starts[static_cast<size_t>(s.q_end)];
    }
    int64_t covering = 0;
    for (int64_t q = 0; q < seqlen_q; ++q) {
      covering += starts[static_cast<size_t>(q)];
      width = std::max(width, covering);
    }
  }
  return static_cast<double>(width);
}

bool same_shape(const AttentionShape& a, const AttentionShape& b) {
  return a.batch == b.batch && a.heads == b.heads && a.kv_heads == b.kv_heads && a.head_dim == b.head_dim &&
         a.dtype_bytes == b.dtype_bytes;
}
}  // namespace

KernelCostModel::KernelCostModel(KernelParams params, int sms, double hbm_bytes_per_s)
    : params_(std::move(params)),
      pass_(params_.pass == "bwd" ? KernelPass::kBackward : KernelPass::kForward),
      slots_(static_cast<int64_t>(std::llround(sms * params_.ctas_per_sm.value))) {
  LCAB_CHECK(sms > 0, "the GPU must have at least one SM, got " << sms);
  LCAB_CHECK(slots_ > 0, "kernel " << params_.impl << ": sms x ctas_per_sm must be at least 1");
  const double pass_bytes = params_.q_pass_bytes_per_element.value;
  LCAB_CHECK(pass_bytes == 0 || hbm_bytes_per_s > 0,
             "kernel " << params_.impl << " " << params_.pass << ": q_pass_bytes_per_element needs the HBM bandwidth");
  if (pass_bytes > 0) q_pass_us_per_element_ = pass_bytes / hbm_bytes_per_s * 1e6;
  const double expand_bytes = params_.kv_expand_bytes_per_element ? params_.kv_expand_bytes_per_element->value : 0.0;
  LCAB_CHECK(expand_bytes == 0 || hbm_bytes_per_s > 0,
             "kernel " << params_.impl << " " << params_.pass << ": kv_expand_bytes_per_element needs the HBM bandwidth");
  if (expand_bytes > 0) kv_expand_us_per_element_ = expand_bytes / hbm_bytes_per_s * 1e6;
  const double tail_bytes = params_.tail_pass_bytes_per_element ? params_.tail_pass_bytes_per_element->value : 0.0;
  LCAB_CHECK(tail_bytes == 0 || hbm_bytes_per_s > 0,
             "kernel " << params_.impl << " " << params_.pass << ": tail_pass_bytes_per_element needs the HBM bandwidth");
  LCAB_CHECK(tail_bytes == 0 || params_.scheduler != KernelScheduler::kPersistentLongestFirst,
             "kernel " << params_.impl << " " << params_.pass << ": tail_pass_bytes_per_element needs a grid scheduler");
  // All slots converting at once stream at the HBM bandwidth: one slot's share of it each.
  if (tail_bytes > 0) tail_pass_slot_us_per_element_ = tail_bytes / hbm_bytes_per_s * 1e6 * static_cast<double>(slots_);
}

KernelCostModel::KernelCostModel(const HardwareProfile& profile, KernelParams params)
    : KernelCostModel(std::move(params), profile.sms(), profile.gpu.hbm_bytes_per_s.value) {}

namespace {
// One head mask of a call as cost_of_masks reads it: from the tiling of its slices (those the kernel visits:
// whole_sequence_band widens them; the area stays the given slices') ...
class SliceHeadTiles {
 public:
  SliceHeadTiles(const std::vector<Slice>& given, int64_t seqlen_q, int64_t seqlen_k, const KernelParams& p,
                 double table_width)
      : given_(given), seqlen_k_(seqlen_k), params_(p), table_width_(table_width) {
    for (const Slice& s : given) area_ += static_cast<double>(s.area());
    if (p.whole_sequence_band) visited_ = whole_sequence_band_slices(given, seqlen_q, seqlen_k);
    if (p.ragged_sequences) sequences_ = ragged_sequences(list(), seqlen_q, seqlen_k);
    const auto add_tiling = [&](const std::vector<Slice>& slices, int64_t sq, int64_t sk) {
      tilings_.emplace_back(slices, sq, sk, p.tile, /*with_row_slices=*/false, p.has_idle_halves());
      full_ += tilings_.back().counts().full;
      partial_ += tilings_.back().counts().partial;
      idle_half_ += tilings_.back().counts().idle_half;
    };
    if (!sequences_.empty()) {
      // A ragged batch: each sequence tiled from its own first token, in order.
      for (const RaggedSequence& s : sequences_) add_tiling(s.slices, s.length, s.length);
    } else if (!given.empty()) {
      add_tiling(list(), seqlen_q, seqlen_k);
    }
  }
  double area() const { return area_; }
  bool empty() const { return given_.empty(); }
  int64_t full() const { return full_; }
  int64_t partial() const { return partial_; }
  int64_t idle_half() const { return idle_half_; }
  template <class Visit>
  void for_each_outer(Visit&& visit) const { for_each_tiling(is_column_item(params_.work_item), visit); }
  /// The q-tile rows, for the dQ items of KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead.
  template <class Visit>
  void for_each_q_row(Visit&& visit) const { for_each_tiling(false, visit); }

 private:
  const std::vector<Slice>& list() const { return params_.whole_sequence_band ? visited_ : given_; }
  template <class Visit>
  void for_each_tiling(bool by_column, Visit&& visit) const {
    if (sequences_.empty()) {
      for_each_outer_tile(params_, by_column, list(), tilings_.front(), seqlen_k_, table_width_, visit);
      return;
    }
    for (size_t n = 0; n < sequences_.size(); ++n)
      for_each_outer_tile(params_, by_column, sequences_[n].slices, tilings_[n], sequences_[n].length, table_width_,
                          visit);
  }
  const std::vector<Slice>& given_;
  std::vector<Slice> visited_;
  std::vector<RaggedSequence> sequences_;  ///< empty: one sequence, the call's grid
  int64_t seqlen_k_;
  const KernelParams& params_;
  double table_width_;  ///< < 0: boundary tiles test the slices meeting their q-tile row
  double area_ = 0;
  int64_t full_ = 0, partial_ = 0, idle_half_ = 0;
  std::vector<MaskTiling> tilings_;  ///< one per sequence (or one for the call)
};

// ... or from counts known without slices (OuterTileCounts).
class CountedHeadTiles {
 public:
  explicit CountedHeadTiles(const OuterTileCounts& c) : c_(c) {
    for (size_t n = 0; n < c.tiles.size(); ++n) {
      touched_ += c.tiles[n];
      if (!c.partial.empty()) partial_ += c.partial[n];
      if (!c.idle_half.empty()) idle_half_ += c.idle_half[n];
    }
  }
  double area() const { return c_.area; }
  bool empty() const { return touched_ == 0; }
  int64_t full() const { return touched_ - partial_; }
  int64_t partial() const { return partial_; }
  int64_t idle_half() const { return idle_half_; }
  template <class Visit>
  void for_each_outer(Visit&& visit) const {
    const bool spans = c_.first_inner.size() == c_.tiles.size() && c_.last_inner.size() == c_.tiles.size();
    for (size_t n = 0; n < c_.tiles.size(); ++n)
      visit(OuterTile{c_.tiles[n], c_.partial.empty() ? 0 : c_.partial[n],
                      c_.partial_slices.empty() ? 0.0 : c_.partial_slices[n], spans ? c_.first_inner[n] : -1,
                      spans ? c_.last_inner[n] : -1, c_.idle_half.empty() ? 0 : c_.idle_half[n]});
  }
  /// Counts hold one kind of outer tile only: a kernel with both kinds never gets here (tile_counts_determine_cost).
  template <class Visit>
  void for_each_q_row(Visit&&) const {
    LCAB_CHECK(false, "tile counts of one kind of outer tile cannot cost a kernel with both k-column and q-row items");
  }

 private:
  const OuterTileCounts& c_;
  int64_t touched_ = 0;
  int64_t partial_ = 0;
  int64_t idle_half_ = 0;
};
}  // namespace

KernelCost KernelCostModel::cost(std::span<const std::vector<Slice>> slices, int64_t seqlen_q, int64_t seqlen_k,
                                 const AttentionShape& shape) const {
  LCAB_CHECK(!slices.empty(), "an attention call needs a slice list (one shared, or one per kv head)");
  bool unmasked = true;
  for (const std::vector<Slice>& list : slices) {
    double area = 0;
    for (const Slice& s : list) area += static_cast<double>(s.area());
    unmasked = unmasked && area == static_cast<double>(seqlen_q) * static_cast<double>(seqlen_k);
  }
  const double table_width = params_.slices_by_table_width ? mask_table_width(slices, seqlen_q, seqlen_k) : -1.0;
  // Interval tests beyond the registers add to every boundary tile of the call.
  const double spill_us = params_.has_slice_spills() ? params_.spilled_slice_us->value *
                                                           std::max(0.0, table_width - params_.register_slices->value)
                                                     : 0.0;
  return cost_of_masks(static_cast<int64_t>(slices.size()), seqlen_q, seqlen_k, shape, unmasked, spill_us,
                       CostDetail::kAll,
                       [&](int64_t m) {
                         return SliceHeadTiles(slices[static_cast<size_t>(m)], seqlen_q, seqlen_k, params_,
                                               table_width);
                       });
}

KernelCost KernelCostModel::cost_from_tiles(std::span<const OuterTileCounts> per_mask, int64_t seqlen_q,
                                            int64_t seqlen_k, const AttentionShape& shape, CostDetail detail) const {
  LCAB_CHECK(!per_mask.empty(), "an attention call needs tile counts (one shared mask, or one per kv head)");
  LCAB_CHECK(tile_counts_determine_cost(), "kernel " << params_.impl << " " << params_.pass
                                                     << ": its cost needs the slices, not tile counts (whole-sequence "
                                                        "band, both k-column and q-row items, or the mask table's "
                                                        "width)");
  const int64_t outer = is_column_item(params_.work_item) ? (seqlen_k + params_.tile.k - 1) / params_.tile.k
                                                          : (seqlen_q + params_.tile.q - 1) / params_.tile.q;
  for (const OuterTileCounts& c : per_mask)
    LCAB_CHECK(static_cast<int64_t>(c.tiles.size()) == outer &&
                   (c.partial.empty() || c.partial.size() == c.tiles.size()) &&
                   (c.partial_slices.empty() || c.partial_slices.size() == c.tiles.size()) &&
                   (c.idle_half.empty() || c.idle_half.size() == c.tiles.size()),
               "tile counts need one entry per outer tile of the call: " << outer << ", got " << c.tiles.size());
  if (params_.slice_us && params_.slice_us->value > 0) {
    // Boundary tiles pay per slice of their q-tile row: counts without partial_slices are exact only without
    // boundary tiles (tile-aligned full blocks, what the grid tilers produce).
    for (const OuterTileCounts& c : per_mask)
      if (c.partial_slices.empty())
        for (int64_t partial : c.partial)
          LCAB_CHECK(partial == 0, "kernel " << params_.impl << " " << params_.pass
                                             << " charges boundary tiles per slice (slice_us): tile counts with "
                                                "boundary tiles need their partial_slices or cost() on the slices");
  }
  if (params_.has_idle_halves()) {
    // Boundary tiles with an idle key half cost their own: counts without idle_half are exact only without
    // boundary tiles.
    for (const OuterTileCounts& c : per_mask)
      if (c.idle_half.empty())
        for (int64_t partial : c.partial)
          LCAB_CHECK(partial == 0, "kernel " << params_.impl << " " << params_.pass
                                             << " charges boundary tiles with an idle key half (idle_half_tile_us): "
                                                "tile counts with boundary tiles need their idle_half or cost() on "
                                                "the slices");
  }
  bool unmasked = true;
  for (const OuterTileCounts& c : per_mask)
    unmasked = unmasked && c.area == static_cast<double>(seqlen_q) * static_cast<double>(seqlen_k);
  return cost_of_masks(static_cast<int64_t>(per_mask.size()), seqlen_q, seqlen_k, shape, unmasked, 0.0, detail,
                       [&](int64_t m) { return CountedHeadTiles(per_mask[static_cast<size_t>(m)]); });
}

template <class HeadTilesOf>
KernelCost KernelCostModel::cost_of_masks(int64_t masks, int64_t seqlen_q, int64_t seqlen_k,
                                          const AttentionShape& shape, bool unmasked, double spill_us,
                                          CostDetail detail, HeadTilesOf&& head_tiles_of) const {
  LCAB_CHECK(masks == 1 || masks == shape.kv_heads,
             "per-kv-head slices need one list per kv head: got " << masks << " lists for " << shape.kv_heads
                                                                  << " kv heads");
  LCAB_CHECK(shape.heads > 0 && shape.kv_heads > 0 && shape.heads % shape.kv_heads == 0 && shape.batch > 0,
             "heads (" << shape.heads << ") must be a positive multiple of kv_heads (" << shape.kv_heads
                       << ") and batch positive");
  const int64_t heads_per_mask = shape.heads / masks;
  const bool grid = params_.scheduler != KernelScheduler::kPersistentLongestFirst;
  // Items per head mask: per q head, or per kv head with the GQA group's q heads in one item.
  const bool per_kv_head = params_.work_item == KernelWorkItem::kKColumnPerKvHead ||
                           params_.work_item == KernelWorkItem::kKColumnPerKvHeadAndQRowPerHead;
  const bool dq_rows = has_dq_rows(params_.work_item);
  const int64_t group = shape.heads / shape.kv_heads;
  const int64_t items_per_outer = per_kv_head ? heads_per_mask / group : heads_per_mask;
  const double heads_in_item = per_kv_head ? static_cast<double>(group) : 1.0;
  // A call whose mask masks nothing pays unmasked_tile_us per unmasked tile where the kernel has it.
  const double full_tile_us = unmasked && params_.unmasked_tile_us ? params_.unmasked_tile_us->value
                                                                    : params_.full_tile_us.value;
  TileCosts main_costs = main_tile_costs(params_, static_cast<double>(group), full_tile_us);
  TileCosts dq_costs = dq_tile_costs(params_, full_tile_us);
  main_costs.partial_us += spill_us;
  dq_costs.partial_us += (params_.dq_tile_fraction ? params_.dq_tile_fraction->value : 0.0) * spill_us;
  // FlexAttention's dK/dV CTAs are left paying their overhead per q head (as fitted so far).
  main_costs.outer_times = params_.work_item == KernelWorkItem::kKColumnPerKvHead ? 1.0 : heads_in_item;

  const auto outer_tiles = [&](int64_t sq, int64_t sk) {
    return is_column_item(params_.work_item) ? (sk + params_.tile.k - 1) / params_.tile.k
                                             : (sq + params_.tile.q - 1) / params_.tile.q;
  };
  KernelCost result;
  CostScratch& scratch = cost_scratch();
  std::vector<CostRun>& runs = scratch.runs;
  std::vector<CostRun>& ordered = scratch.ordered;
  std::vector<CostRun>& per_mask_runs = scratch.per_mask_runs;
  runs.clear();
  ordered.clear();
  // A grid of long items first keeps its items with their keys (head-major, one batch element) for
  // grid_launch_order.
  const bool keyed = long_items_first(params_.scheduler);
  // A pairing grid keeps every head mask's columns in position order too (perf::backward_launch pairs by them);
  // with counts that lack the columns' q-tile rows it is launched unpaired.
  const bool pairing = pairs_documents(params_.scheduler);
  bool spans_known = pairing;
  if (pairing) {
    scratch.spans.resize(static_cast<size_t>(masks));
    scratch.span_costs.resize(static_cast<size_t>(masks));
  }
  LCAB_CHECK(!(keyed && dq_rows), "kernel " << params_.impl << ": a grid of long items first has no dQ row items");
  GridMaskItems& grid_items = scratch.grid_items;
  grid_items.clear();
  for (int64_t m = 0; m < masks; ++m) {
    const auto head = head_tiles_of(m);
    const double area = head.area();
    result.pairs += area * static_cast<double>(heads_per_mask * shape.batch);
    per_mask_runs.clear();
    // A pairing grid: the head mask's columns in position order, recorded as the costs below visit them.
    std::vector<KTileSpan>* spans = pairing ? &scratch.spans[static_cast<size_t>(m)] : nullptr;
    std::vector<double>* span_costs = pairing ? &scratch.span_costs[static_cast<size_t>(m)] : nullptr;
    if (pairing) {
      spans->clear();
      span_costs->clear();
      if (head.empty()) {
        spans->assign(static_cast<size_t>(outer_tiles(seqlen_q, seqlen_k)), KTileSpan{});
        span_costs->assign(spans->size(), params_.row_us.value * main_costs.outer_times);
      }
    }
    const auto for_each_column = [&](auto&& visit) {
      head.for_each_outer([&](const OuterTile& t) {
        if (spans) {
          spans_known = spans_known && (t.tiles == 0 || t.first_inner >= 0);
          spans->push_back({t.first_inner, t.last_inner, 4 * t.tiles + t.partial});
          span_costs->push_back(outer_item_cost(main_costs, t, heads_in_item));
        }
        visit(t);
      });
    };
    if (head.empty()) {
      if (keyed) {
        grid_items.items.insert(grid_items.items.end(), static_cast<size_t>(outer_tiles(seqlen_q, seqlen_k)),
                                GridItem{0, params_.row_us.value * main_costs.outer_times});
      }
      if (grid) {
        per_mask_runs.push_back({params_.row_us.value * main_costs.outer_times, outer_tiles(seqlen_q, seqlen_k)});
        if (dq_rows) per_mask_runs.push_back({params_.row_us.value, group * ((seqlen_q + params_.tile.q - 1) / params_.tile.q)});
      }
    } else {
      result.full_tiles += head.full() * heads_per_mask * shape.batch;
      result.partial_tiles += head.partial() * heads_per_mask * shape.batch;
      result.idle_half_tiles += head.idle_half() * heads_per_mask * shape.batch;
      append_outer_costs(params_, main_costs, for_each_column, grid, heads_in_item, per_mask_runs, scratch.outer,
                         keyed ? &grid_items.items : nullptr);
      if (dq_rows) {
        // After the kv head's dK/dV columns, the dQ rows of each q head of its group (q-tile row fastest).
        const size_t dq_begin = per_mask_runs.size();
        append_outer_costs(params_, dq_costs, [&](auto&& visit) { head.for_each_q_row(visit); }, grid, 1.0,
                           per_mask_runs, scratch.outer);
        const size_t dq_end = per_mask_runs.size();
        for (int64_t h = 1; h < group; ++h)
          for (size_t n = dq_begin; n < dq_end; ++n) per_mask_runs.push_back(per_mask_runs[n]);
      }
    }
    if (keyed) {
      grid_items.offsets.push_back(grid_items.items.size());
      grid_items.heads.push_back(items_per_outer);
    }
    if (grid) {
      // Launch order: outer tile fastest, then head; the heads of this mask are consecutive.
      for (int64_t h = 0; h < items_per_outer; ++h)
        ordered.insert(ordered.end(), per_mask_runs.begin(), per_mask_runs.end());
    } else {
      for (CostRun r : per_mask_runs) {
        r.count *= items_per_outer * shape.batch;
        runs.push_back(r);
      }
    }
  }
  result.flops = 4.0 * result.pairs * static_cast<double>(shape.head_dim) * (pass_ == KernelPass::kBackward ? 2.5 : 1.0);
  result.peak_mem_bytes = attention_peak_bytes(shape, seqlen_q, seqlen_k, pass_);
  if (result.full_tiles + result.partial_tiles == 0) return result;  // nothing to compute: never launched
  // The launch order of a grid of long items first can change the makespan only when some slot runs two items.
  bool order_matters = detail == CostDetail::kAll;
  if (keyed && !order_matters) {
    int64_t items = 0;
    for (size_t m = 0; m + 1 < grid_items.offsets.size(); ++m)
      items += static_cast<int64_t>(grid_items.offsets[m + 1] - grid_items.offsets[m]) * grid_items.heads[m];
    order_matters = items * shape.batch > slots_;
  }
  // The grid's tail pass: chunk items after the tile items (backward_tail.h's chunks, of equal cost on average).
  CostRun tail;
  if (tail_pass_slot_us_per_element_ > 0) {
    const int64_t units = shape.kv_heads * shape.batch;
    const int64_t rows = backward_tail_chunk_rows(seqlen_q, units, group, shape.head_dim, slots_);
    tail.count = backward_tail_chunks_per_head(seqlen_q, rows) * units;
    if (tail.count > 0) {
      const double q_elements = static_cast<double>(seqlen_q * shape.heads * shape.head_dim * shape.batch);
      tail.cost_us = tail_pass_slot_us_per_element_ * q_elements / static_cast<double>(tail.count);
    }
  }
  const auto with_tail = [&](std::vector<CostRun>& launch) -> std::vector<CostRun>& {
    if (tail.count > 0) launch.push_back(tail);
    return launch;
  };
  const BackwardLaunch* paired = nullptr;
  if (pairing && spans_known && order_matters && pairs_possible(scratch.spans)) {
    const int64_t cta_heads = masks == 1 ? items_per_outer : masks;  // per batch element
    paired = &cached_backward_launch(scratch.spans, shape.batch, cta_heads, slots_);
    if (!paired->paired) paired = nullptr;  // the unpaired launch: the same order as the branch below
  }
  if (paired) {
    std::vector<CostRun>& launch = scratch.promoted;
    launch.clear();
    const int64_t cta_heads = masks == 1 ? items_per_outer : masks;
    for (const BackwardLaunch::Cta& cta : paired->ctas) {
      const size_t mask = masks == 1 ? 0 : static_cast<size_t>(cta.head % cta_heads);
      push_cost(launch, scratch.span_costs[mask][static_cast<size_t>(cta.tile)]);
    }
    result.slots = schedule_in_order(with_tail(launch), slots_);
  } else if (keyed && order_matters && promoted_launch(grid_items, shape.batch, slots_, scratch)) {
    result.slots = schedule_in_order(with_tail(scratch.promoted), slots_);
  } else if (grid) {
    const size_t one_batch = ordered.size();
    for (int64_t b = 1; b < shape.batch; ++b) ordered.insert(ordered.end(), ordered.begin(), ordered.begin() + one_batch);
    result.slots = schedule_in_order(with_tail(ordered), slots_);
  } else {
    result.slots = schedule_longest_first_in_place(runs, slots_);
  }
  result.work_items = result.slots.items - tail.count;  // the tile items (the tail's chunks are in the slots' loads)
  result.launch_us = params_.launch_us.value;
  const double q_elements = static_cast<double>(seqlen_q * shape.heads * shape.head_dim * shape.batch);
  result.q_pass_us = q_pass_us_per_element_ * q_elements;
  if (shape.heads > shape.kv_heads) result.q_pass_us += kv_expand_us_per_element_ * q_elements;
  const double gpu_us = result.launch_us + result.slots.makespan_us + result.q_pass_us;
  result.time_us = gpu_us;
  if (params_.has_sustained_clocks()) {
    const double rt = params_.sustained_rate_per_us->value * gpu_us;
    result.sustained_us = gpu_us * params_.sustained_slowdown->value * rt / (1.0 + rt);
    result.time_us += result.sustained_us;
  }
  if (params_.host_floor_us && params_.host_floor_us->value > result.time_us) {
    result.host_wait_us = params_.host_floor_us->value - result.time_us;
    result.time_us = params_.host_floor_us->value;
  }
  return result;
}

KernelCost KernelCostModel::cost(const Mask& mask, const AttentionShape& shape) const {
  std::vector<std::vector<Slice>> lists;
  for (int h = 0; h < mask.num_head_masks(); ++h) lists.push_back(mask.slices(h));
  LCAB_CHECK(!mask.is_per_kv_head() || mask.num_head_masks() == shape.kv_heads,
             "the mask was built for " << mask.num_head_masks() << " kv heads but the shape has " << shape.kv_heads);
  return cost(lists, mask.seqlen(), mask.seqlen(), shape);
}

const KernelCost& KernelCostModel::cached_cost(std::span<const std::vector<Slice>> slices, int64_t seqlen_q,
                                               int64_t seqlen_k, const AttentionShape& shape) const {
  size_t total_slices = 0;
  for (const std::vector<Slice>& list : slices) total_slices += list.size();
  if (total_slices > kMaxCachedSlices) {
    // Large local masks (block-sparse) rarely repeat; keeping copies of them would only cost memory.
    uncached_ = cost(slices, seqlen_q, seqlen_k, shape);
    return uncached_;
  }
  std::vector<CacheEntry>& bucket = cache_[attention_call_hash(slices, seqlen_q, seqlen_k, shape)];
  for (const CacheEntry& e : bucket) {
    if (e.seqlen_q == seqlen_q && e.seqlen_k == seqlen_k && same_shape(e.shape, shape) &&
        std::equal(e.slices.begin(), e.slices.end(), slices.begin(), slices.end()))
      return *e.cost;
  }
  CacheEntry entry{{slices.begin(), slices.end()}, seqlen_q, seqlen_k, shape,
                   std::make_unique<KernelCost>(cost(slices, seqlen_q, seqlen_k, shape))};
  bucket.push_back(std::move(entry));
  ++cache_size_;
  return *bucket.back().cost;
}

}  // namespace lcab::perf
