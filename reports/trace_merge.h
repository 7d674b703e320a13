// Measured and predicted CP timelines side by side in one Chrome-trace document: the processes of both
// (one per rank, as model/perf/timeline.h writes them) are renamed "measured rank N" and "predicted rank N" and
// sorted so that each rank's measured row sits directly above its predicted row; step names are kept as they
// are, so the same step lines up by name in both.
#pragma once

#include <nlohmann/json.hpp>

namespace lcab::report {

/// Both inputs are Chrome-trace documents ({"traceEvents": [...], ...}); throws lcab::Error naming the
/// problem when one is not. Process ids of `predicted` are shifted past those of `measured`.
nlohmann::json side_by_side_traces(const nlohmann::json& measured, const nlohmann::json& predicted);

/// Parses a Chrome-trace file; throws lcab::Error when it cannot be read or is not a trace document.
nlohmann::json read_chrome_trace(const std::string& path);

}  // namespace lcab::report
