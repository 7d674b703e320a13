#include "model/perf/ring_item_cache.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace lcab::perf {
namespace {

// Everything a table's items and costs depend on (not placement or windows: items are per ring position).
std::string key_of(const cp::UlyssesRingProgram& program, const std::string& kernel, bool forward, bool backward,
                   double pass_bytes_per_s, const std::vector<int64_t>& costed) {
  const cp::CpConfig& c = program.skeleton().config;
  const cp::Workload& w = c.workload;
  std::ostringstream key;
  key << static_cast<const void*>(w.mask.get()) << ' ' << c.ulysses_degree << 'x' << c.ring_degree << ' '
      << cp::to_string(c.sharding) << ' ' << c.min_document_chunk_tokens << ' ' << w.batch << ' ' << w.heads << '/'
      << w.kv_heads << ' ' << w.head_dim << ' ' << w.dtype_bytes << ' ' << w.grad_accum_bytes << ' '
      << program.cuts_own_block() << ' ' << kernel << ' ' << forward << backward << ' ' << std::hexfloat << pass_bytes_per_s;
  for (const int64_t position : costed) key << ' ' << position;
  return key.str();
}

// Made once per key by the first thread that asks, outside the lock: find_or_add(promised future) runs under the
// lock and returns the key's future, or nothing when the key was new and it added the promised one: then this
// asker builds the value with make(), and the others wait on it.
template <class T, class FindOrAdd, class Make>
T made_once(std::mutex& mutex, FindOrAdd&& find_or_add, Make&& make) {
  std::promise<T> promise;
  const std::shared_future<T> promised = promise.get_future().share();
  std::optional<std::shared_future<T>> found;
  {
    std::lock_guard<std::mutex> lock(mutex);
    found = find_or_add(promised);
  }
  if (!found) {  // outside the lock: other keys proceed meanwhile
    try {
      promise.set_value(make());
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return found ? found->get() : promised.get();  // rethrows what a failed build threw
}

}  // namespace

std::shared_ptr<const RingItemCosts> RingItemCostCache::get(const cp::UlyssesRingProgram& program,
                                                            const std::string& kernel, const KernelCostModel* forward,
                                                            const KernelCostModel* backward,
                                                            double pass_bytes_per_s,
                                                            const std::vector<int64_t>& costed) {
  const std::string key = key_of(program, kernel, forward != nullptr, backward != nullptr, pass_bytes_per_s, costed);
  using Table = std::shared_ptr<const RingItemCosts>;
  const std::shared_ptr<const Mask>& mask = program.skeleton().config.workload.mask;
  return made_once<Table>(
      mutex_,
      [&](const std::shared_future<Table>& promised) -> std::optional<std::shared_future<Table>> {
        const auto it = tables_.find(key);
        if (it != tables_.end()) return it->second.table;
        tables_.emplace(key, Entry{mask, promised});
        order_.push_back(key);
        if (order_.size() > kMaxTables) {
          tables_.erase(order_.front());
          order_.pop_front();
        }
        return std::nullopt;
      },
      [&] {
        std::array<std::shared_ptr<const TileGrid>, 2> grids;
        if (forward) grids[0] = grid(mask, *forward);
        if (backward) grids[1] = grid(mask, *backward);
        return std::make_shared<const RingItemCosts>(program, forward, backward, pass_bytes_per_s, grids, costed);
      });
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
  using Grid = std::shared_ptr<const TileGrid>;
  // A columns grid is read off this mask's rows grid of the same k tile and twice (or the same) q tile when one is
  // kept or being made (the backward's grid from the forward's): a bit transpose instead of a pass over the slices.
  std::optional<std::shared_future<Grid>> rows_grid;
  return made_once<Grid>(
      mutex_,
      [&](const std::shared_future<Grid>& promised) -> std::optional<std::shared_future<Grid>> {
        const auto it = grids_.find(key);
        if (it != grids_.end()) return it->second.grid;
        if (lines == TileGrid::Lines::kColumns)
          for (const int64_t rows_q : {2 * p.tile.q, p.tile.q}) {
            std::ostringstream rows_key;
            rows_key << static_cast<const void*>(mask.get()) << ' ' << rows_q << 'x' << p.tile.k << ' '
                     << static_cast<int>(TileGrid::Lines::kRows);
            const auto rows = grids_.find(rows_key.str());
            if (rows == grids_.end()) continue;
            rows_grid = rows->second.grid;
            break;
          }
        grids_.emplace(key, GridEntry{mask, promised});
        if (std::find(grid_masks_.begin(), grid_masks_.end(), mask.get()) == grid_masks_.end()) {
          grid_masks_.push_back(mask.get());
          if (grid_masks_.size() > kMaxGridMasks) {
            const Mask* oldest = grid_masks_.front();
            grid_masks_.pop_front();
            std::erase_if(grids_, [&](const auto& e) { return e.second.mask.get() == oldest; });
          }
        }
        return std::nullopt;
      },
      [&] {
        if (rows_grid)
          if (const Grid rows = rows_grid->get()) return TileGrid::columns_of(*rows, p.tile);
        return TileGrid::make(*mask, p.tile, lines);
      });
}

}  // namespace lcab::perf
