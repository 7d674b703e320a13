#include "model/perf/ring_item_cache.h"

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
      promise.set_value(std::make_shared<const RingItemCosts>(program, forward, backward, pass_bytes_per_s));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return table.get();  // rethrows what a failed build threw
}

}  // namespace lcab::perf
