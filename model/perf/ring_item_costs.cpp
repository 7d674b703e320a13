#include "model/perf/ring_item_costs.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "model/error.h"
#include "model/perf/counted_kinds.h"
#include "model/perf/cp_op_cost.h"
#include "model/perf/full_slice_tiles.h"

namespace lcab::perf {
namespace {

// Distinct item contents seen so far, for costing each once; contents are kept within a slice budget.
class ItemKinds {
 public:
  // The kind of an item equal to a kept one, or -1.
  int32_t find(uint64_t hash, const cp::ComputeItem& item, const AttentionShape& shape) const {
    const auto it = by_hash_.find(hash);
    if (it == by_hash_.end()) return -1;
    for (int32_t kind : it->second) {
      const Kept& k = kept_.at(static_cast<size_t>(kind));
      if (k.q_rows == item.q_rows.length() && k.k_rows == item.k_rows.length() && k.shape.heads == shape.heads &&
          k.shape.kv_heads == shape.kv_heads && k.slices == item.slices)
        return k.kind;
    }
    return -1;
  }
  void keep(uint64_t hash, int32_t kind, const cp::ComputeItem& item, const AttentionShape& shape) {
    size_t slices = 0;
    for (const std::vector<Slice>& list : item.slices) slices += list.size();
    if (kept_slices_ + slices > RingItemCosts::kMaxKeptSlices) return;
    kept_slices_ += slices;
    by_hash_[hash].push_back(static_cast<int32_t>(kept_.size()));
    kept_.push_back({item.slices, item.q_rows.length(), item.k_rows.length(), shape, kind});
  }

 private:
  struct Kept {
    std::vector<std::vector<Slice>> slices;
    int64_t q_rows, k_rows;
    AttentionShape shape;
    int32_t kind;
  };
  std::unordered_map<uint64_t, std::vector<int32_t>> by_hash_;  // -> indices into kept_
  std::vector<Kept> kept_;
  size_t kept_slices_ = 0;
};

}  // namespace

RingItemCosts::RingItemCosts(const cp::UlyssesRingProgram& program, const KernelCostModel* forward,
                             const KernelCostModel* backward, double pass_bytes_per_s,
                             std::array<std::shared_ptr<const TileGrid>, 2> grids, std::vector<int64_t> costed)
    : costed_(std::move(costed)) {
  const cp::Workload& wl = program.skeleton().config.workload;
  const cp::GridLayout& layout = program.layout();
  positions_ = layout.ring;
  LCAB_CHECK(program.sharding().rows_per_position < std::numeric_limits<int32_t>::max(),
             "ring positions of " << program.sharding().rows_per_position << " rows are too long for the item table");
  const std::array<const KernelCostModel*, 2> models{forward, backward};
  for (int pass = 0; pass < 2; ++pass) {
    if (!models[pass]) continue;
    has_pass_[pass] = true;
    LCAB_CHECK((models[pass]->pass() == KernelPass::kBackward) == (pass == 1),
               "the kernel model given for the " << cp::to_string(static_cast<cp::Pass>(pass)) << " pass is for "
                                                 << models[pass]->params().pass);
  }
  // Members with the same head lists have identical items (make_item counts pairs per q head they compute).
  const bool per_head = wl.mask->is_per_kv_head();
  std::vector<int64_t> group_key;
  for (int64_t u = 0; u < layout.ulysses; ++u) {
    const int64_t key = per_head ? program.kv_heads(u).begin : 0;
    int g = 0;
    while (g < static_cast<int>(group_key.size()) && group_key[g] != key) ++g;
    if (g == static_cast<int>(group_key.size())) {
      group_key.push_back(key);
      group_members_.push_back(u);
    }
    group_of_member_.push_back(g);
  }
  const int64_t R = positions_;
  set_costed_positions();
  set_workspace_limits(program, models);
  entries_.assign(static_cast<size_t>(groups()) * R * R, Entry{});

  if (program.cuts_own_block()) own_parts_.assign(static_cast<size_t>(groups()) * R * 2, Entry{});
  if (cost_on_grids(program, models, pass_bytes_per_s, grids)) return;

  ItemKinds kinds;
  LookupGate gate;
  FullSliceTiler full_tiler;  // FULL-slice items (block-sparse off the tiles) counted by q bands, not MaskTiling
  std::array<std::vector<OuterTileCounts>, 2> counts;
  // The cost of a new content in `pass`: from its counts when counted by q bands (its slices all FULL), else from
  // its tiling.
  const auto cost_of = [&](const cp::ComputeItem& item, const AttentionShape& shape, int pass, bool counted) {
    const int64_t q_rows = item.q_rows.length(), k_rows = item.k_rows.length();
    if (!counted) return models[pass]->cost(item.slices, q_rows, k_rows, shape);
    return models[pass]->cost_from_tiles(counts[pass], q_rows, k_rows, shape, CostDetail::kTimeAndFlops);
  };
  // The entry of an item (null: fully masked): its kind (costed when its content is new) and key rows.
  const auto entry_of = [&](const cp::ComputeItem* item) {
    if (!item) return Entry{};
    const AttentionShape shape = item_shape(*item, wl);
    const int64_t q_rows = item->q_rows.length(), k_rows = item->k_rows.length();
    const bool look_up = gate.open();
    uint64_t hash = 0;
    int32_t kind = -1;
    if (look_up) {
      hash = attention_call_hash(item->slices, q_rows, k_rows, shape);
      kind = kinds.find(hash, *item, shape);
      gate.record(kind >= 0);
    }
    if (kind < 0) {
      kind = static_cast<int32_t>(kinds_++);
      bool counted = true;
      for (int pass = 0; pass < 2; ++pass)
        counted = counted && (!models[pass] || FullSliceTiler::applies(*models[pass], item->slices));
      if (counted) full_tiler.count(item->slices, q_rows, k_rows, models, counts);  // both passes, bands made once
      for (int pass = 0; pass < 2; ++pass) {
        if (!models[pass]) continue;
        const KernelCost c = cost_of(*item, shape, pass, counted);
        const double us = compute_op_us(c.time_us, *item, static_cast<cp::Pass>(pass), wl, pass_bytes_per_s);
        costs_[pass].push_back({us, c.flops, attention_workspace_bytes(shape, q_rows, k_rows, models[pass]->pass())});
      }
      if (look_up) kinds.keep(hash, kind, *item, shape);
    }
    return Entry{kind, static_cast<int32_t>(item->k_rows.begin), static_cast<int32_t>(item->k_rows.end)};
  };
  cp::MaskResolver resolver(*wl.mask);
  std::vector<std::vector<int>> lists_of;  // per group: the head lists its items read (UlyssesRingProgram::item)
  for (int g = 0; g < groups(); ++g)
    lists_of.push_back(cp::head_lists_for(resolver, program.kv_heads(group_members_[static_cast<size_t>(g)])));
  // An item whose head lists hold no slice has no cell (make_item gives std::nullopt): it is not made at all.
  const auto no_cell = [&](int g, int64_t source) {
    for (int h : lists_of[static_cast<size_t>(g)])
      if (!resolver.result()[static_cast<size_t>(h)][static_cast<size_t>(source)].empty()) return false;
    return true;
  };
  std::vector<int32_t> row_kinds(static_cast<size_t>(R));
  cp::ComputeItem whole;  // every whole item made into this one (its lists' capacity reused)
  const auto whole_item = [&](int g, int64_t source) -> const cp::ComputeItem* {
    return program.item_into(resolver, group_members_[static_cast<size_t>(g)], source, whole) ? &whole : nullptr;
  };
  for (const int64_t pos : costed_) {
    resolver.resolve(program.sharding().positions[pos], program.index_of_positions());
    for (int g = 0; g < groups(); ++g) {
      for (int64_t source = 0; source < R; ++source) {
        const Entry e = no_cell(g, source) ? Entry{} : entry_of(whole_item(g, source));
        entries_[index(g, pos, source)] = e;
        row_kinds[static_cast<size_t>(source)] = e.kind;
      }
      if (!own_parts_.empty())
        for (cp::RingItemPart part : {cp::RingItemPart::kOwnHead, cp::RingItemPart::kOwnTail}) {
          const std::optional<cp::ComputeItem> item = program.item(resolver, group_members_[g], pos, part);
          own_parts_[(static_cast<size_t>(g) * R + pos) * 2 + (part == cp::RingItemPart::kOwnTail ? 1 : 0)] =
              entry_of(item ? &*item : nullptr);
        }
      total_row(g, pos, row_kinds);
    }
  }
}

void RingItemCosts::set_costed_positions() {
  if (costed_.empty()) {
    for (int64_t pos = 0; pos < positions_; ++pos) costed_.push_back(pos);
    return;
  }
  for (size_t n = 0; n < costed_.size(); ++n)
    LCAB_CHECK(costed_[n] >= 0 && costed_[n] < positions_ && (n == 0 || costed_[n - 1] < costed_[n]),
               "the costed ring positions must be ascending, distinct and below " << positions_);
}

void RingItemCosts::set_workspace_limits(const cp::UlyssesRingProgram& program,
                                         const std::array<const KernelCostModel*, 2>& models) {
  const cp::Workload& wl = program.skeleton().config.workload;
  int64_t rows = 0;  // the most rows an item can span: pads hold no cell
  for (const cp::TokenMap& map : program.sharding().positions) rows = std::max(rows, map.real_row_span());
  for (int pass = 0; pass < 2; ++pass) {
    if (!models[pass]) continue;
    for (const int64_t u : group_members_) {
      cp::ComputeItem whole_buffer;  // what the shape reads: the member's heads
      whole_buffer.q_heads = program.q_heads(u);
      whole_buffer.kv_heads = program.kv_heads(u);
      workspace_limit_[pass] =
          std::max(workspace_limit_[pass], attention_workspace_bytes(item_shape(whole_buffer, wl), rows, rows,
                                                                     models[pass]->pass()));
    }
  }
}

bool RingItemCosts::costs_position(int64_t position) const {
  return std::binary_search(costed_.begin(), costed_.end(), position);
}

int64_t RingItemCosts::workspace_limit(cp::Pass pass) const {
  LCAB_CHECK(has_pass(pass), "the item costs were not made for the " << cp::to_string(pass) << " pass");
  return workspace_limit_[static_cast<int>(pass)];
}

void RingItemCosts::total_row(int group, int64_t position, const std::vector<int32_t>& kind_by_source) {
  const int64_t R = positions_;
  const Entry* own = own_parts_.empty() ? nullptr : &own_parts_[(static_cast<size_t>(group) * R + position) * 2];
  for (int pass = 0; pass < 2; ++pass) {
    if (!has_pass_[pass]) continue;
    std::vector<RowTotal>& totals = row_totals_[pass];
    if (totals.empty()) totals.assign(static_cast<size_t>(groups()) * R * 2, RowTotal{});
    const std::vector<Cost>& costs = costs_[pass];
    for (int cut = 0; cut < 2; ++cut) {
      RowTotal t;
      const auto add = [&](int32_t kind) {
        if (kind < 0) return;
        const Cost& c = costs[static_cast<size_t>(kind)];
        t.attention_us += c.time_us;
        t.workspace_bytes = std::max(t.workspace_bytes, c.workspace_bytes);
      };
      for (int64_t source = 0; source < R; ++source) {
        if (cut && source == position && own && own[1].kind >= 0) {
          add(own[0].kind);
          add(own[1].kind);
        } else {
          add(kind_by_source[static_cast<size_t>(source)]);
        }
      }
      totals[(static_cast<size_t>(group) * R + position) * 2 + static_cast<size_t>(cut)] = t;
    }
  }
}

const RingItemCosts::RowTotal& RingItemCosts::row_total(cp::Pass pass, int group, int64_t position,
                                                        bool cut_own) const {
  LCAB_CHECK(has_pass(pass), "the item costs were not made for the " << cp::to_string(pass) << " pass");
  LCAB_CHECK(!cut_own || !own_parts_.empty(), "the item costs hold no own-block parts to cut");
  return row_totals_[static_cast<int>(pass)][(static_cast<size_t>(group) * positions_ + position) * 2 +
                                             (cut_own ? 1 : 0)];
}

size_t RingItemCosts::index(int group, int64_t position, int64_t source) const {
  // By distance: the ranks of a ring step read one distance (a window's ranks two), so a step reads consecutive
  // entries.
  const int64_t distance = position >= source ? position - source : position - source + positions_;
  return (static_cast<size_t>(group) * positions_ + distance) * positions_ + position;
}

const RingItemCosts::Entry& RingItemCosts::entry(int group, int64_t position, int64_t source,
                                                 cp::RingItemPart part) const {
  if (part == cp::RingItemPart::kWhole) return entries_[index(group, position, source)];
  LCAB_CHECK(!own_parts_.empty() && source == position,
             "no own-block part of position " << position << " against the block of " << source);
  return own_parts_[(static_cast<size_t>(group) * positions_ + position) * 2 +
                    (part == cp::RingItemPart::kOwnTail ? 1 : 0)];
}

std::optional<TokenRange> RingItemCosts::key_rows(int group, int64_t position, int64_t source,
                                                  cp::RingItemPart part) const {
  const Entry& e = entry(group, position, source, part);
  if (e.kind < 0) return std::nullopt;
  return TokenRange{e.k_begin, e.k_end};
}

const RingItemCosts::Cost& RingItemCosts::cost(cp::Pass pass, int group, int64_t position, int64_t source,
                                               cp::RingItemPart part) const {
  return costs_[static_cast<int>(pass)][static_cast<size_t>(entry(group, position, source, part).kind)];
}

}  // namespace lcab::perf
