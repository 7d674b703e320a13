#include "measure/comm/collective.h"

#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::measure {

size_t Collective::round_bytes(size_t bytes, int ranks) const {
  const size_t unit = kCommElementBytes * (splits_over_ranks() ? static_cast<size_t>(ranks) : 1);
  return std::max(unit, bytes / unit * unit);
}

void CollectiveRegistry::add(std::unique_ptr<Collective> collective) {
  for (const auto& c : collectives_) {
    LCAB_CHECK(c->name() != collective->name(), "collective '" << collective->name() << "' registered twice");
  }
  collectives_.push_back(std::move(collective));
}

const Collective& CollectiveRegistry::find(const std::string& name) const {
  for (const auto& c : collectives_) {
    if (c->name() == name) return *c;
  }
  LCAB_THROW("unknown communication op '" << name << "'; valid: " << join(names()));
}

std::vector<std::string> CollectiveRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& c : collectives_) names.push_back(c->name());
  return names;
}

void register_all(CollectiveRegistry& registry) {
  registry.add(make_send_recv());
  registry.add(make_all_to_all());
  registry.add(make_all_gather());
  registry.add(make_reduce_scatter());
  registry.add(make_all_reduce());
}

}  // namespace lcab::measure
