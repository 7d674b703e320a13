#include "model/perf/counted_kinds.h"

#include <bit>

namespace lcab::perf {

void CountedKinds::make_key(std::vector<int64_t>& key, int64_t q_rows, int64_t k_rows, const AttentionShape& shape,
                            const std::array<std::vector<OuterTileCounts>, 2>& counts) {
  key.assign({q_rows, k_rows, shape.heads, shape.kv_heads});
  for (const std::vector<OuterTileCounts>& per_pass : counts) {
    key.push_back(static_cast<int64_t>(per_pass.size()));
    for (const OuterTileCounts& c : per_pass) {
      key.push_back(static_cast<int64_t>(c.tiles.size()));
      key.insert(key.end(), c.tiles.begin(), c.tiles.end());
      key.push_back(static_cast<int64_t>(c.partial.size()));
      key.insert(key.end(), c.partial.begin(), c.partial.end());
      key.push_back(static_cast<int64_t>(c.partial_slices.size()));
      for (double s : c.partial_slices) key.push_back(std::bit_cast<int64_t>(s));
      key.push_back(static_cast<int64_t>(c.idle_half.size()));
      key.insert(key.end(), c.idle_half.begin(), c.idle_half.end());
      key.push_back(std::bit_cast<int64_t>(c.area));
    }
  }
}

uint64_t CountedKinds::hash(const std::vector<int64_t>& key) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int64_t v : key) h = (h ^ static_cast<uint64_t>(v)) * 0x100000001b3ULL;
  return h;
}

int32_t CountedKinds::find(const std::vector<int64_t>& key) const {
  const auto it = by_hash_.find(hash(key));
  if (it == by_hash_.end()) return -1;
  for (const auto& [kept, kind] : it->second)
    if (kept == key) return kind;
  return -1;
}

void CountedKinds::keep(const std::vector<int64_t>& key, int32_t kind) {
  if (kept_values_ + key.size() > kMaxKeptValues) return;
  kept_values_ += key.size();
  by_hash_[hash(key)].emplace_back(key, kind);
}

}  // namespace lcab::perf
