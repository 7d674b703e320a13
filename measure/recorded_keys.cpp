#include "measure/recorded_keys.h"

#include <filesystem>

namespace lcab::measure {

RecordedKeys RecordedKeys::load(const std::string& path, const std::string& kind) {
  RecordedKeys keys;
  if (path.empty() || path == "-" || !std::filesystem::exists(path)) return keys;
  RecordReadResult read = read_records(path);
  for (const Record& record : read.records) {
    if (record.kind == kind) keys.insert(record.key);
  }
  keys.problems_ = std::move(read.problems);
  return keys;
}

}  // namespace lcab::measure
