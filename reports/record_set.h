// The records a report is built from: measured and predicted, one per case (kind + key), and their pairing.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "model/record.h"

namespace lcab::report {

/// A measured record and the prediction of the same case.
struct Comparison {
  Record measured;
  Record predicted;
  double measured_ms = 0;
  double predicted_ms = 0;
  double error = 0;  ///< (predicted - measured) / measured
};

class RecordSet {
 public:
  RecordSet() = default;
  /// Splits records by source; for each case (kind + key) and source the last record given wins, so that
  /// later files override earlier ones. Records of kind "mask" and sources other than measured/predicted are
  /// ignored.
  explicit RecordSet(const std::vector<Record>& records);

  /// Adds (or replaces) a predicted record.
  void add_predicted(const Record& record);

  const std::vector<Record>& measured() const { return measured_.records; }
  const std::vector<Record>& predicted() const { return predicted_.records; }
  /// Measured and predicted records of one kind ("kernel", "cp", "comm").
  std::vector<Record> of_kind(const std::string& source, const std::string& kind) const;
  /// Every ok measured record with a time that has an ok prediction with a time, in measured order.
  std::vector<Comparison> comparisons() const;

 private:
  struct Indexed {
    std::vector<Record> records;
    std::unordered_map<std::string, size_t> index_of_case;
  };
  static void upsert(Indexed& set, const Record& record);
  Indexed measured_;
  Indexed predicted_;
};

}  // namespace lcab::report
