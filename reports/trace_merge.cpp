#include "reports/trace_merge.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include "model/error.h"

namespace lcab::report {
namespace {

const nlohmann::json& events_of(const nlohmann::json& trace, const char* which) {
  LCAB_CHECK(trace.is_object() && trace.contains("traceEvents") && trace["traceEvents"].is_array(),
             which << " timeline is not a Chrome-trace document (an object with a \"traceEvents\" array)");
  return trace["traceEvents"];
}

int64_t pid_of(const nlohmann::json& event) {
  const auto it = event.find("pid");
  return it != event.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

/// Copies the events of one trace, shifting pids, renaming processes "<label> rank N" (keeping other names
/// prefixed) and setting sort indices so that rank r of trace `slot` (0 or 1) comes at 2r + slot.
void append_renamed(const nlohmann::json& events, const std::string& label, int64_t pid_offset, int slot,
                    nlohmann::json& out) {
  std::map<int64_t, bool> named;
  for (const nlohmann::json& e : events) {
    const int64_t pid = pid_of(e);
    const std::string name = e.value("name", "");
    const std::string phase = e.value("ph", "");
    if (phase == "M" && name == "process_sort_index") continue;  // replaced below
    nlohmann::json copy = e;
    copy["pid"] = pid + pid_offset;
    if (phase == "M" && name == "process_name") {
      const std::string original = e.contains("args") ? e["args"].value("name", "") : "";
      copy["args"]["name"] = label + " " + (original.empty() ? "rank " + std::to_string(pid) : original);
      named[pid] = true;
    }
    named.emplace(pid, false);
    out.push_back(std::move(copy));
  }
  for (const auto& [pid, has_name] : named) {
    if (!has_name) {
      out.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid + pid_offset}, {"tid", 0},
                     {"args", {{"name", label + " rank " + std::to_string(pid)}}}});
    }
    out.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid + pid_offset}, {"tid", 0},
                   {"args", {{"sort_index", 2 * pid + slot}}}});
  }
}

}  // namespace

nlohmann::json side_by_side_traces(const nlohmann::json& measured, const nlohmann::json& predicted) {
  const nlohmann::json& measured_events = events_of(measured, "measured");
  const nlohmann::json& predicted_events = events_of(predicted, "predicted");
  int64_t max_pid = 0;
  for (const nlohmann::json& e : measured_events) max_pid = std::max(max_pid, pid_of(e));
  nlohmann::json events = nlohmann::json::array();
  append_renamed(measured_events, "measured", 0, 0, events);
  append_renamed(predicted_events, "predicted", max_pid + 1, 1, events);
  nlohmann::json other = nlohmann::json::object();
  if (measured.contains("otherData")) other["measured"] = measured["otherData"];
  if (predicted.contains("otherData")) other["predicted"] = predicted["otherData"];
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}, {"otherData", std::move(other)}};
}

nlohmann::json read_chrome_trace(const std::string& path) {
  std::ifstream in(path);
  LCAB_CHECK(in.good(), "cannot open trace '" << path << "'");
  nlohmann::json trace = nlohmann::json::parse(in, nullptr, false);
  LCAB_CHECK(!trace.is_discarded(), "trace '" << path << "' is not valid JSON");
  events_of(trace, ("'" + path + "'").c_str());
  return trace;
}

}  // namespace lcab::report
