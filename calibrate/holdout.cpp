#include "calibrate/holdout.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>

#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::calibrate {

namespace {

/// FNV-1a: stable across compilers and runs (std::hash is not).
uint64_t stable_hash(std::string_view text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

/// The value a record is held out by, or "" when it has none.
std::string holdout_value(const Record& record, HoldoutKind kind) {
  if (kind == HoldoutKind::kSeqlen) {
    if (record.key.seqlen) return "S=" + format_tokens(*record.key.seqlen);
    if (record.key.bytes) return std::to_string(*record.key.bytes) + " B";
    return "";
  }
  return record.key.mask;
}

}  // namespace

HoldoutSpec parse_holdout(std::string_view text) {
  HoldoutSpec spec;
  if (text == "seqlen") {
    spec.kind = HoldoutKind::kSeqlen;
  } else if (text == "mask") {
    spec.kind = HoldoutKind::kMask;
  } else if (text == "kfold" || text.rfind("kfold:", 0) == 0) {
    spec.kind = HoldoutKind::kKFold;
    if (text.size() > 5) {
      int64_t folds = 0;
      try {
        folds = parse_int(text.substr(6));
      } catch (const Error&) {
        folds = 0;
      }
      LCAB_CHECK(folds >= 2 && folds <= 1000, "--holdout '" << text << "': K must be an integer from 2 to 1000");
      spec.folds = static_cast<int>(folds);
    }
  } else {
    LCAB_THROW("--holdout '" << text << "' is not valid; valid: seqlen, mask, kfold, kfold:K");
  }
  return spec;
}

std::string to_string(const HoldoutSpec& spec) {
  switch (spec.kind) {
    case HoldoutKind::kSeqlen: return "seqlen";
    case HoldoutKind::kMask: return "mask";
    case HoldoutKind::kKFold: return "kfold:" + std::to_string(spec.folds);
  }
  return "?";
}

FoldAssignment assign_folds(const std::vector<Record>& records, const HoldoutSpec& spec) {
  FoldAssignment assignment;
  assignment.fold_of_record.assign(records.size(), -1);
  if (spec.kind == HoldoutKind::kKFold) {
    std::vector<size_t> order(records.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::vector<uint64_t> hashes(records.size());
    for (size_t n = 0; n < records.size(); ++n) hashes[n] = stable_hash(records[n].kind + key_id(records[n].key));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return hashes[a] < hashes[b]; });
    for (size_t n = 0; n < order.size(); ++n) assignment.fold_of_record[order[n]] = static_cast<int>(n % spec.folds);
    for (int f = 0; f < spec.folds; ++f)
      assignment.fold_names.push_back("fold " + std::to_string(f + 1) + "/" + std::to_string(spec.folds));
    return assignment;
  }
  std::map<std::string, int> fold_of_value;
  for (size_t n = 0; n < records.size(); ++n) {
    const std::string value = holdout_value(records[n], spec.kind);
    if (value.empty()) continue;
    auto [it, inserted] = fold_of_value.try_emplace(value, static_cast<int>(assignment.fold_names.size()));
    if (inserted) assignment.fold_names.push_back(value);
    assignment.fold_of_record[n] = it->second;
  }
  return assignment;
}

}  // namespace lcab::calibrate
