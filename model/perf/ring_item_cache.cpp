#include "model/perf/ring_item_cache.h"

#include <algorithm>
#include <sstream>

namespace lcab::perf {
namespace {

// Everything a table's items and costs depend on (not placement or windows: items are per ring position).
std::string key_of(const cp::UlyssesRingProgram& program, const std::string& kernel, bool forward, bool backward,
                   double pass_bytes_per_s) {
  const cp::CpConfig& c = program.skeleton().config;
  const cp::Workload& w = c.workload;
  std::ostringstream key;
  key << static_cast<const void*>(w.mask.get()) << ' ' << c.ulysses_degree << 'x' << c.ring_degree << ' '
      << cp::to_string(c.sharding) << ' ' << c.min_document_chunk_tokens << ' ' << w.batch << ' ' << w.heads << '/'
      << w.kv_heads << ' ' << w.head_dim << ' ' << w.dtype_bytes << ' ' << w.grad_accum_bytes << ' '
      << program.cuts_own_block() << ' ' << kernel << ' ' << forward << backward << ' ' << std::hexfloat << pass_bytes_per_s;
  return key.str();
}

}  // namespace

std::shared_ptr<const RingItemCosts> RingItemCostCache::get(const cp::UlyssesRingProgram& program,
                                                            const std::string& kernel, const KernelCostModel* forward,
                                                            const KernelCostModel* backward,
                                                            double pass_bytes_per_s) {
  const std::string key = key_of(program, kernel, forward != nullptr, backward != nullptr, pass_bytes_per_s);
  std::promise<std::shared_ptr<const RingItemCosts>> promise;
  std::shared_future<std::shared_ptr<const RingItemCosts>> table;
  bool build = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = tables_.find(key);
    if (it != tables_.end()) {
      table = it->second.table;
    } else {
      build = true;
      table = promise.get_future().share();
      tables_.emplace(key, Entry{program.skeleton().config.workload.mask, table});
      order_.push_back(key);
      if (order_.size() > kMaxTables) {
        tables_.erase(order_.front());
        order_.pop_front();
      }
    }
  }
  if (build) {  // outside the lock: other keys proceed meanwhile, askers of this one wait on the future
    try {
      const std::shared_ptr<const Mask>& mask = program.skeleton().config.workload.mask;
      std::array<std::shared_ptr<const TileGrid>, 2> grids;
      if (forward) grids[0] = grid(mask, *forward);
      if (backward) grids[1] = grid(mask, *backward);
      promise.set_value(std::make_shared<const RingItemCosts>(program, forward, backward, pass_bytes_per_s, grids));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return table.get();  // rethrows what a failed build threw
}

std::shared_ptr<const TileGrid> RingItemCostCache::grid(const std::shared_ptr<const Mask>& mask,
                                                        const KernelCostModel& model) {
  const KernelParams& p = model.params();
  const TileGrid::Lines lines =
      p.work_item == KernelWorkItem::kQRowPerHead ? TileGrid::Lines::kRows : TileGrid::Lines::kColumns;
  std::ostringstream key_text;
  key_text << static_cast<const void*>(mask.get()) << ' ' << p.tile.q << 'x' << p.tile.k << ' '
           << static_cast<int>(lines);
  const std::string key = key_text.str();
  std::promise<std::shared_ptr<const TileGrid>> promise;
  std::shared_future<std::shared_ptr<const TileGrid>> grid;
  bool build = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = grids_.find(key);
    if (it != grids_.end()) {
      grid = it->second.grid;
    } else {
      build = true;
      grid = promise.get_future().share();
      grids_.emplace(key, GridEntry{mask, grid});
      if (std::find(grid_masks_.begin(), grid_masks_.end(), mask.get()) == grid_masks_.end()) {
        grid_masks_.push_back(mask.get());
        if (grid_masks_.size() > kMaxGridMasks) {
          const Mask* oldest = grid_masks_.front();
          grid_masks_.pop_front();
          std::erase_if(grids_, [&](const auto& e) { return e.second.mask.get() == oldest; });
        }
      }
    }
  }
  if (build) {
    try {
      promise.set_value(TileGrid::make(*mask, p.tile, lines));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return grid.get();
}

}  // namespace lcab::perf
