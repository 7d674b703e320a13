#include "model/doclen.h"

#include <algorithm>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "model/cli_values.h"
#include "model/error.h"

namespace lcab {
namespace detail {
extern const std::string_view kDoclenDistributionsJson;
}

DoclenDistribution::DoclenDistribution(std::string name, std::vector<DoclenBucket> buckets)
    : name_(std::move(name)), buckets_(std::move(buckets)) {
  LCAB_CHECK(!buckets_.empty(), "document-length distribution '" << name_ << "' has no buckets");
  double sum = 0;
  for (const DoclenBucket& b : buckets_) {
    LCAB_CHECK(b.hi > b.lo && b.lo >= 0 && b.weight >= 0,
               "distribution '" << name_ << "': bad bucket [" << b.lo << ", " << b.hi << ", " << b.weight << "]");
    sum += b.weight;
    cumulative_.push_back(sum);
  }
  LCAB_CHECK(sum > 0, "distribution '" << name_ << "' has zero total weight");
}

int64_t DoclenDistribution::sample(Rng& rng) const {
  const double u = rng.uniform01() * cumulative_.back();
  size_t b = static_cast<size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin());
  b = std::min(b, buckets_.size() - 1);
  return std::max<int64_t>(1, rng.uniform_int(buckets_[b].lo, buckets_[b].hi));
}

double DoclenDistribution::mean() const {
  double total = 0;
  for (const DoclenBucket& b : buckets_) {
    const double lo = static_cast<double>(std::max<int64_t>(b.lo, 1));
    const double hi = static_cast<double>(b.hi - 1);
    total += b.weight * 0.5 * (lo + std::max(lo, hi));
  }
  return total / cumulative_.back();
}

namespace {
const std::map<std::string, DoclenDistribution>& all_distributions() {
  static const std::map<std::string, DoclenDistribution> all = [] {
    std::map<std::string, DoclenDistribution> m;
    const nlohmann::json j = nlohmann::json::parse(detail::kDoclenDistributionsJson);
    for (auto& [name, buckets] : j.at("distributions").items()) {
      std::vector<DoclenBucket> list;
      for (const auto& b : buckets) list.push_back({b[0].get<int64_t>(), b[1].get<int64_t>(), b[2].get<double>()});
      m.emplace(name, DoclenDistribution(name, std::move(list)));
    }
    return m;
  }();
  return all;
}
}  // namespace

std::vector<std::string> doclen_distribution_names() {
  std::vector<std::string> names;
  for (const auto& [name, d] : all_distributions()) names.push_back(name);
  return names;
}

const DoclenDistribution& doclen_distribution(const std::string& name) {
  const auto& all = all_distributions();
  auto it = all.find(name);
  LCAB_CHECK(it != all.end(), "unknown document-length distribution '" << name << "'; valid: "
                                                                        << join(doclen_distribution_names()));
  return it->second;
}

std::string default_doclen_distribution(int64_t seqlen) {
  if (seqlen <= 12 * 1024) return "pile";
  if (seqlen <= 64 * 1024) return "prolong64k";
  return "prolong512k";
}

std::vector<int64_t> sample_document_lengths(const DoclenDistribution& dist, int64_t tokens, Rng& rng) {
  std::vector<int64_t> lengths;
  int64_t filled = 0;
  while (filled < tokens) {
    const int64_t len = std::min(dist.sample(rng), tokens - filled);
    lengths.push_back(len);
    filled += len;
  }
  return lengths;
}

}  // namespace lcab
