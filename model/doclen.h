// Document-length distributions for packed-document masks (data/doclen/doclen-distributions.json, embedded
// at build time). Each distribution is a list of buckets [lo, hi, weight]: a length is drawn by choosing a
// bucket with probability weight / sum(weights), then an integer uniformly in [lo, hi).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/rng.h"

namespace lcab {

struct DoclenBucket {
  int64_t lo = 0;
  int64_t hi = 0;  ///< exclusive
  double weight = 0;
};

class DoclenDistribution {
 public:
  DoclenDistribution(std::string name, std::vector<DoclenBucket> buckets);
  const std::string& name() const { return name_; }
  const std::vector<DoclenBucket>& buckets() const { return buckets_; }
  /// One document length, at least 1.
  int64_t sample(Rng& rng) const;
  /// Expected length under the distribution (lengths of 0 count as 1).
  double mean() const;

 private:
  std::string name_;
  std::vector<DoclenBucket> buckets_;
  std::vector<double> cumulative_;
};

/// "pile", "prolong64k", "prolong512k"; throws lcab::Error listing the valid names.
const DoclenDistribution& doclen_distribution(const std::string& name);
std::vector<std::string> doclen_distribution_names();
/// The default by sequence length (DESIGN.md): pile for S <= 12K, prolong64k for S <= 64K, else prolong512k.
std::string default_doclen_distribution(int64_t seqlen);

/// Documents drawn from dist that fill exactly `tokens` (the last one truncated). Deterministic for rng state.
std::vector<int64_t> sample_document_lengths(const DoclenDistribution& dist, int64_t tokens, Rng& rng);

}  // namespace lcab
