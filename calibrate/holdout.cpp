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

/// splitmix64's finalizer: FNV-1a's low bits follow the key's last characters too closely to be taken modulo K.
uint64_t mix_bits(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
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
    // The fold is a function of the record's key alone, so adding records to the inputs never moves other
    // records between folds (a rank among all keys' hashes did: one new file reshuffled every group's folds).
    for (size_t n = 0; n < records.size(); ++n) {
      const uint64_t hash = mix_bits(stable_hash(records[n].kind + key_id(records[n].key)));
      assignment.fold_of_record[n] = static_cast<int>(hash % static_cast<uint64_t>(spec.folds));
    }
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
