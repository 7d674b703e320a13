// A timeline drawn as a Gantt chart: one row per (rank, stream) for the first ranks, a bar per event, coloured
// by stream, time on a linear axis in ms. The interactive view is the Chrome trace; this is the glance.
#pragma once

#include <string>

#include "model/perf/timeline.h"
#include "reports/figures.h"

namespace lcab::report {

/// At most `max_ranks` ranks are drawn (the subtitle says how many there are).
Figure timeline_figure(const perf::Timeline& timeline, const std::string& id, const std::string& title,
                       int max_ranks = 4);

}  // namespace lcab::report
