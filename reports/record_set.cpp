#include "reports/record_set.h"

#include "reports/record_metrics.h"

namespace lcab::report {

RecordSet::RecordSet(const std::vector<Record>& records) {
  for (const Record& r : records) {
    if (r.kind == "mask") continue;
    if (r.source == "measured") upsert(measured_, r);
    if (r.source == "predicted") upsert(predicted_, r);
  }
}

void RecordSet::upsert(Indexed& set, const Record& record) {
  const auto [it, inserted] = set.index_of_case.emplace(case_id(record), set.records.size());
  if (inserted) {
    set.records.push_back(record);
  } else {
    set.records[it->second] = record;
  }
}

void RecordSet::add_predicted(const Record& record) { upsert(predicted_, record); }

std::vector<Record> RecordSet::of_kind(const std::string& source, const std::string& kind) const {
  std::vector<Record> out;
  for (const Record& r : source == "measured" ? measured() : predicted()) {
    if (r.kind == kind) out.push_back(r);
  }
  return out;
}

std::vector<Comparison> RecordSet::comparisons() const {
  std::vector<Comparison> out;
  for (const Record& m : measured()) {
    const auto it = predicted_.index_of_case.find(case_id(m));
    if (it == predicted_.index_of_case.end()) continue;
    const Record& p = predicted_.records[it->second];
    const std::optional<double> m_ms = median_time_ms(m);
    const std::optional<double> p_ms = median_time_ms(p);
    if (!m_ms || !p_ms) continue;
    out.push_back({m, p, *m_ms, *p_ms, (*p_ms - *m_ms) / *m_ms});
  }
  return out;
}

}  // namespace lcab::report
