// Timelines of per-rank, per-stream events and their Chrome-trace JSON writer (chrome://tracing, Perfetto).
// Predicted timelines (the CP simulator) and measured ones (lcab-measure --trace) use the same type and writer,
// so the two open side by side. Independent of the simulator.
//
// Trace layout: one process per rank ("rank N"), one thread per stream (ids in order of first appearance, equal
// across ranks), complete events ("ph": "X") with ts and dur in microseconds with three decimals.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lcab::perf {

struct TimelineEvent {
  int rank = 0;
  std::string stream;  ///< "compute", "send", "recv", "collective", ...
  std::string name;    ///< "step 3 attn", "send kv -> 5", ...
  double start_us = 0;
  double duration_us = 0;
  nlohmann::json args = nlohmann::json::object();  ///< shown in the viewer's detail pane (bytes, flops, ...)
  double end_us() const { return start_us + duration_us; }
};

struct Timeline {
  std::vector<TimelineEvent> events;
  /// Latest end over all events (0 when empty).
  double span_us() const;
};

/// Writes {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": metadata}.
void write_chrome_trace(const Timeline& timeline, std::ostream& out,
                        const nlohmann::json& metadata = nlohmann::json::object());
/// The same into a file; throws lcab::Error when it cannot be written.
void write_chrome_trace_file(const Timeline& timeline, const std::string& path,
                             const nlohmann::json& metadata = nlohmann::json::object());

}  // namespace lcab::perf
