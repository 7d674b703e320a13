#include "model/perf/kernel_cost.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "model/error.h"
#include "model/mask_tiling.h"

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

bool is_column_item(KernelWorkItem item) { return item != KernelWorkItem::kQRowPerHead; }

void push_cost(std::vector<CostRun>& runs, double cost_us) {
  if (!runs.empty() && runs.back().cost_us == cost_us) ++runs.back().count;
  else runs.push_back({cost_us, 1});
}

/// Costs of one head's outer tiles (q-tile rows, or k-tile columns: the transpose of the same tiling) in launch
/// order, times the q heads one item computes. A persistent kernel has no item for an outer tile with no tiles.
/// for_each_outer(visit) calls visit(tiles, partial) for every outer tile in launch order.
template <class ForEachOuter>
void append_outer_costs(const KernelParams& p, ForEachOuter&& for_each_outer, bool grid, double heads_in_item,
                        std::vector<CostRun>& out) {
  const double full_us = p.full_tile_us.value;
  const double partial_us = p.partial_tile_us.value;
  const double outer_us = p.row_us.value;
  const auto item_cost = [&](int64_t tiles, int64_t partial) {
    return (static_cast<double>(tiles - partial) * full_us + static_cast<double>(partial) * partial_us + outer_us) *
           heads_in_item;
  };
  for_each_outer([&](int64_t tiles, int64_t partial) {
    if (tiles == 0 && !grid) return;
    push_cost(out, item_cost(tiles, partial));
  });
}

/// Calls visit(tiles, partial) for every outer tile of `tiling` in launch order.
template <class Visit>
void for_each_outer_tile(const KernelParams& p, const MaskTiling& tiling, int64_t seqlen_k, Visit&& visit) {
  if (!is_column_item(p.work_item)) {
    for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r) visit(tiling.row_tiles(r), tiling.row_partial_tiles(r));
    return;
  }
  // Per k-tile column: tiles and partial tiles, from the rows' runs by difference arrays (O(runs + columns)).
  const int64_t columns = (seqlen_k + p.tile.k - 1) / p.tile.k;
  std::vector<int64_t> touched(static_cast<size_t>(columns + 1), 0), partial(static_cast<size_t>(columns + 1), 0);
  for (const TileRun& run : tiling.runs()) {
    std::vector<int64_t>& counter = run.partial ? partial : touched;
    ++counter[static_cast<size_t>(run.k_tile_begin)];
    --counter[static_cast<size_t>(run.k_tile_end)];
  }
  int64_t t = 0, q = 0;
  for (int64_t c = 0; c < columns; ++c) {
    t += touched[static_cast<size_t>(c)];
    q += partial[static_cast<size_t>(c)];
    visit(t + q, q);
  }
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
}

KernelCostModel::KernelCostModel(const HardwareProfile& profile, KernelParams params)
    : KernelCostModel(std::move(params), profile.sms(), profile.gpu.hbm_bytes_per_s.value) {}

namespace {
// One head mask of a call as cost_of_masks reads it: from the tiling of its slices ...
class SliceHeadTiles {
 public:
  SliceHeadTiles(const std::vector<Slice>& list, int64_t seqlen_q, int64_t seqlen_k, const KernelParams& p)
      : list_(list), seqlen_k_(seqlen_k), params_(p) {
    for (const Slice& s : list) area_ += static_cast<double>(s.area());
    if (!list.empty()) tiling_.emplace(list, seqlen_q, seqlen_k, p.tile);
  }
  double area() const { return area_; }
  bool empty() const { return list_.empty(); }
  int64_t full() const { return tiling_->counts().full; }
  int64_t partial() const { return tiling_->counts().partial; }
  template <class Visit>
  void for_each_outer(Visit&& visit) const { for_each_outer_tile(params_, *tiling_, seqlen_k_, visit); }

 private:
  const std::vector<Slice>& list_;
  int64_t seqlen_k_;
  const KernelParams& params_;
  double area_ = 0;
  std::optional<MaskTiling> tiling_;
};

// ... or from counts known without slices (OuterTileCounts).
class CountedHeadTiles {
 public:
  explicit CountedHeadTiles(const OuterTileCounts& c) : c_(c) {
    for (size_t n = 0; n < c.tiles.size(); ++n) {
      touched_ += c.tiles[n];
      if (!c.partial.empty()) partial_ += c.partial[n];
    }
  }
  double area() const { return c_.area; }
  bool empty() const { return touched_ == 0; }
  int64_t full() const { return touched_ - partial_; }
  int64_t partial() const { return partial_; }
  template <class Visit>
  void for_each_outer(Visit&& visit) const {
    for (size_t n = 0; n < c_.tiles.size(); ++n) visit(c_.tiles[n], c_.partial.empty() ? 0 : c_.partial[n]);
  }

 private:
  const OuterTileCounts& c_;
  int64_t touched_ = 0;
  int64_t partial_ = 0;
};
}  // namespace

KernelCost KernelCostModel::cost(std::span<const std::vector<Slice>> slices, int64_t seqlen_q, int64_t seqlen_k,
                                 const AttentionShape& shape) const {
  LCAB_CHECK(!slices.empty(), "an attention call needs a slice list (one shared, or one per kv head)");
  return cost_of_masks(static_cast<int64_t>(slices.size()), seqlen_q, seqlen_k, shape, [&](int64_t m) {
    return SliceHeadTiles(slices[static_cast<size_t>(m)], seqlen_q, seqlen_k, params_);
  });
}

KernelCost KernelCostModel::cost_from_tiles(std::span<const OuterTileCounts> per_mask, int64_t seqlen_q,
                                            int64_t seqlen_k, const AttentionShape& shape) const {
  LCAB_CHECK(!per_mask.empty(), "an attention call needs tile counts (one shared mask, or one per kv head)");
  const int64_t outer = is_column_item(params_.work_item) ? (seqlen_k + params_.tile.k - 1) / params_.tile.k
                                                          : (seqlen_q + params_.tile.q - 1) / params_.tile.q;
  for (const OuterTileCounts& c : per_mask)
    LCAB_CHECK(static_cast<int64_t>(c.tiles.size()) == outer &&
                   (c.partial.empty() || c.partial.size() == c.tiles.size()),
               "tile counts need one entry per outer tile of the call: " << outer << ", got " << c.tiles.size());
  return cost_of_masks(static_cast<int64_t>(per_mask.size()), seqlen_q, seqlen_k, shape,
                       [&](int64_t m) { return CountedHeadTiles(per_mask[static_cast<size_t>(m)]); });
}

template <class HeadTilesOf>
KernelCost KernelCostModel::cost_of_masks(int64_t masks, int64_t seqlen_q, int64_t seqlen_k,
                                          const AttentionShape& shape, HeadTilesOf&& head_tiles_of) const {
  LCAB_CHECK(masks == 1 || masks == shape.kv_heads,
             "per-kv-head slices need one list per kv head: got " << masks << " lists for " << shape.kv_heads
                                                                  << " kv heads");
  LCAB_CHECK(shape.heads > 0 && shape.kv_heads > 0 && shape.heads % shape.kv_heads == 0 && shape.batch > 0,
             "heads (" << shape.heads << ") must be a positive multiple of kv_heads (" << shape.kv_heads
                       << ") and batch positive");
  const int64_t heads_per_mask = shape.heads / masks;
  const bool grid = params_.scheduler == KernelScheduler::kGridWaves;
  // Items per head mask: per q head, or per kv head with the GQA group's q heads in one item.
  const bool per_kv_head = params_.work_item == KernelWorkItem::kKColumnPerKvHead;
  const int64_t group = shape.heads / shape.kv_heads;
  const int64_t items_per_outer = per_kv_head ? heads_per_mask / group : heads_per_mask;
  const double heads_in_item = per_kv_head ? static_cast<double>(group) : 1.0;

  const auto outer_tiles = [&](int64_t sq, int64_t sk) {
    return is_column_item(params_.work_item) ? (sk + params_.tile.k - 1) / params_.tile.k
                                             : (sq + params_.tile.q - 1) / params_.tile.q;
  };
  KernelCost result;
  std::vector<CostRun> runs;          // persistent: all items
  std::vector<CostRun> ordered;       // grid: the whole launch order
  std::vector<CostRun> per_mask_runs; // one head's outer tiles, in launch order
  for (int64_t m = 0; m < masks; ++m) {
    const auto head = head_tiles_of(m);
    const double area = head.area();
    result.pairs += area * static_cast<double>(heads_per_mask * shape.batch);
    per_mask_runs.clear();
    if (head.empty()) {
      if (grid) per_mask_runs.push_back({params_.row_us.value * heads_in_item, outer_tiles(seqlen_q, seqlen_k)});
    } else {
      result.full_tiles += head.full() * heads_per_mask * shape.batch;
      result.partial_tiles += head.partial() * heads_per_mask * shape.batch;
      append_outer_costs(params_, [&](auto&& visit) { head.for_each_outer(visit); }, grid, heads_in_item,
                         per_mask_runs);
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
  if (grid) {
    const size_t one_batch = ordered.size();
    for (int64_t b = 1; b < shape.batch; ++b) ordered.insert(ordered.end(), ordered.begin(), ordered.begin() + one_batch);
    result.slots = schedule_in_order(ordered, slots_);
  } else {
    result.slots = schedule_longest_first(std::move(runs), slots_);
  }
  result.work_items = result.slots.items;
  result.launch_us = params_.launch_us.value;
  result.q_pass_us = q_pass_us_per_element_ * static_cast<double>(seqlen_q * shape.heads * shape.head_dim * shape.batch);
  result.time_us = result.launch_us + result.slots.makespan_us + result.q_pass_us;
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
