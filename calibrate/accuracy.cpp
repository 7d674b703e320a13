#include "calibrate/accuracy.h"

#include <map>

#include "calibrate/measurements.h"
#include "model/error.h"

namespace lcab::calibrate {

double AccuracyPoint::measured_ms() const { return measured_time_ms(measured); }

double AccuracyPoint::error_pct() const {
  LCAB_CHECK(predicted_ms.has_value(), "point " << describe_point(measured) << " has no prediction");
  return (*predicted_ms - measured_ms()) / measured_ms() * 100.0;
}

namespace {

GroupAccuracy summarize(const std::string& name, const std::vector<const AccuracyPoint*>& points) {
  GroupAccuracy group;
  group.group = name;
  group.points = static_cast<int64_t>(points.size());
  std::vector<double> predicted, measured;
  std::vector<const AccuracyPoint*> used;
  for (const AccuracyPoint* point : points) {
    if (!point->predicted_ms) {
      if (group.first_failure.empty()) group.first_failure = describe_point(point->measured) + ": " + point->failure;
      continue;
    }
    predicted.push_back(*point->predicted_ms);
    measured.push_back(point->measured_ms());
    used.push_back(point);
  }
  group.predicted = static_cast<int64_t>(used.size());
  group.stats = residual_stats(predicted, measured);
  if (group.stats.worst_index >= 0)
    group.worst_point = describe_point(used[static_cast<size_t>(group.stats.worst_index)]->measured);
  return group;
}

std::string total_group_name(const Record& record) {
  if (record.kind == "comm")
    return record.key.bytes.value_or(0) >= kCommTargetMinBytes ? "all comm >= 1 MiB" : "";
  return "all " + record.kind;
}

}  // namespace

std::vector<GroupAccuracy> summarize_accuracy(const std::vector<AccuracyPoint>& points) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const AccuracyPoint*>> by_group;
  std::vector<std::string> total_order;
  std::map<std::string, std::vector<const AccuracyPoint*>> by_total;
  std::map<std::string, std::map<std::string, bool>> groups_in_total;
  for (const AccuracyPoint& point : points) {
    const std::string group = report_group(point.measured);
    if (by_group.find(group) == by_group.end()) order.push_back(group);
    by_group[group].push_back(&point);
    const std::string total = total_group_name(point.measured);
    if (total.empty()) continue;
    if (by_total.find(total) == by_total.end()) total_order.push_back(total);
    by_total[total].push_back(&point);
    groups_in_total[total][group] = true;
  }
  std::vector<GroupAccuracy> summary;
  for (const std::string& group : order) summary.push_back(summarize(group, by_group[group]));
  for (const std::string& total : total_order)
    if (groups_in_total[total].size() > 1) summary.push_back(summarize(total, by_total[total]));
  return summary;
}

namespace {
/// Failure reasons can be long (they list valid names); a table cell keeps the start.
std::string shortened(const std::string& text, size_t max_chars = 110) {
  return text.size() <= max_chars ? text : text.substr(0, max_chars - 3) + "...";
}
}  // namespace

Table accuracy_table(const std::vector<GroupAccuracy>& groups) {
  Table table({"group", "points", "predicted", "MAPE %", "p90 %", "worst %", "bias %", "worst point"});
  for (const GroupAccuracy& g : groups) {
    const bool any = g.predicted > 0;
    auto percent = [any](double value) { return any ? format_fixed(value, 2) : std::string("-"); };
    table.add_row({g.group, std::to_string(g.points), std::to_string(g.predicted), percent(g.stats.mape_pct),
                   percent(g.stats.p90_pct), percent(g.stats.worst_pct), percent(g.stats.bias_pct),
                   any ? g.worst_point : shortened(g.first_failure)});
  }
  return table;
}

Table point_table(const std::vector<AccuracyPoint>& points) {
  bool with_fold = false;
  for (const AccuracyPoint& point : points) with_fold = with_fold || !point.fold.empty();
  std::vector<std::string> columns = {"point"};
  if (with_fold) columns.push_back("held out");
  for (const char* c : {"measured ms", "predicted ms", "error %"}) columns.emplace_back(c);
  Table table(columns);
  for (const AccuracyPoint& point : points) {
    std::vector<std::string> row = {describe_point(point.measured)};
    if (with_fold) row.push_back(point.fold);
    row.push_back(format_fixed(point.measured_ms(), 4));
    if (point.predicted_ms) {
      row.push_back(format_fixed(*point.predicted_ms, 4));
      row.push_back(format_fixed(point.error_pct(), 2));
    } else {
      row.push_back("-");
      row.push_back(point.failure);
    }
    table.add_row(row);
  }
  return table;
}

}  // namespace lcab::calibrate
