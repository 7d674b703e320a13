// Cross-validation folds (`--holdout seqlen|mask|kfold[:K]`): which records each fit leaves out.
//
// - seqlen: one fold per distinct sequence length (comm records: per message size); every record is predicted
//   by a fit that saw no record of its length.
// - mask:   one fold per distinct mask spec; records without a mask (comm) stay in every training set and are
//   not evaluated.
// - kfold:K (K defaults to 5): a record's fold is a stable hash of its kind and key modulo K, so the same key is
//   in the same fold whatever other records the inputs hold (folds are balanced only statistically).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/record.h"

namespace lcab::calibrate {

enum class HoldoutKind { kSeqlen, kMask, kKFold };

struct HoldoutSpec {
  HoldoutKind kind = HoldoutKind::kKFold;
  int folds = 5;  ///< kfold only
};

/// "seqlen", "mask", "kfold", "kfold:K" (K >= 2); throws lcab::Error listing the valid forms.
HoldoutSpec parse_holdout(std::string_view text);
std::string to_string(const HoldoutSpec& spec);

struct FoldAssignment {
  /// Per record: the fold that holds it out, or -1 when it is never held out (always trained on).
  std::vector<int> fold_of_record;
  /// Per fold: what it holds out ("S=16K", "causal", "fold 3/5").
  std::vector<std::string> fold_names;
};

FoldAssignment assign_folds(const std::vector<Record>& records, const HoldoutSpec& spec);

}  // namespace lcab::calibrate
