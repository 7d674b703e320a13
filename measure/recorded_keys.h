// Resuming sweeps: the keys already recorded in an output file. A sweep rerun with the same --out skips every
// point whose key is there (whatever its status: a point that poisoned the CUDA context is not retried in a
// loop). Join on key_id (model/record.h) and kind.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/record.h"

namespace lcab::measure {

class RecordedKeys {
 public:
  /// Reads `path` if it exists (a missing file means nothing is recorded yet). Malformed lines are kept in
  /// problems() and otherwise ignored. Records of other kinds than `kind` are ignored.
  static RecordedKeys load(const std::string& path, const std::string& kind);

  bool contains(const RecordKey& key) const { return ids_.count(key_id(key)) > 0; }
  void insert(const RecordKey& key) { ids_.insert(key_id(key)); }
  size_t size() const { return ids_.size(); }
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::set<std::string> ids_;
  std::vector<std::string> problems_;
};

}  // namespace lcab::measure
