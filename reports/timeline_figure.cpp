#include "reports/timeline_figure.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "reports/axis.h"
#include "reports/svg_canvas.h"
#include "reports/svg_plot.h"

namespace lcab::report {

Figure timeline_figure(const perf::Timeline& timeline, const std::string& id, const std::string& title,
                       int max_ranks) {
  std::set<int> ranks;
  std::vector<std::string> streams;  // in order of first appearance, as the trace writer numbers them
  for (const perf::TimelineEvent& e : timeline.events) {
    ranks.insert(e.rank);
    if (std::find(streams.begin(), streams.end(), e.stream) == streams.end()) streams.push_back(e.stream);
  }
  std::vector<int> shown(ranks.begin(), ranks.end());
  if (static_cast<int>(shown.size()) > max_ranks) shown.resize(static_cast<size_t>(max_ranks));
  std::map<std::pair<int, std::string>, int> row_of;
  for (int rank : shown) {
    for (const std::string& s : streams) row_of.emplace(std::pair{rank, s}, static_cast<int>(row_of.size()));
  }

  constexpr double kRowPx = 16, kLeftPx = 150, kRightPx = 16, kTopPx = 58, kBottomPx = 48, kWidthPx = 1000;
  const double height_px = kTopPx + kBottomPx + kRowPx * std::max<size_t>(1, row_of.size());
  const double span_ms = std::max(timeline.span_us() / 1000.0, 1e-6);
  const Axis x(make_axis("time", "ms", AxisScale::kLinear, TickFormat::kNumber, true), {0.0, span_ms}, kLeftPx,
               kWidthPx - kRightPx);

  SvgCanvas canvas(kWidthPx, height_px, title);
  canvas.text(kLeftPx, 22, title, {.size_px = 16, .anchor = TextAnchor::kStart, .bold = true});
  const std::string subtitle = std::to_string(ranks.size()) + " ranks" +
                               (shown.size() < ranks.size() ? ", the first " + std::to_string(shown.size()) + " shown" : "") +
                               "; one row per rank and stream; " + std::to_string(timeline.events.size()) + " events";
  canvas.text(kLeftPx, 41, subtitle, {.size_px = 12, .anchor = TextAnchor::kStart, .colour = "#555555"});
  const double plot_bottom = height_px - kBottomPx;
  for (const Tick& t : x.ticks()) {
    const double px = x.to_pixel(t.value);
    canvas.line(px, kTopPx, px, plot_bottom, Paint::stroked("#e3e3e3", 1));
    canvas.text(px, plot_bottom + 16, t.label, {.size_px = 11, .anchor = TextAnchor::kMiddle, .colour = "#444444"});
  }
  canvas.text((kLeftPx + kWidthPx - kRightPx) / 2, height_px - 12, axis_title(x.spec()),
              {.size_px = 13, .anchor = TextAnchor::kMiddle});
  for (const auto& [row_key, row] : row_of) {
    const double y = kTopPx + row * kRowPx;
    canvas.text(kLeftPx - 8, y + kRowPx / 2, "rank " + std::to_string(row_key.first) + " " + row_key.second,
                {.size_px = 11, .anchor = TextAnchor::kEnd, .centre_vertically = true});
  }
  for (const perf::TimelineEvent& e : timeline.events) {
    const auto it = row_of.find({e.rank, e.stream});
    if (it == row_of.end()) continue;
    const size_t colour = static_cast<size_t>(std::find(streams.begin(), streams.end(), e.stream) - streams.begin());
    const double x0 = x.to_pixel(e.start_us / 1000.0);
    const double width = std::max(0.6, x.to_pixel(e.end_us() / 1000.0) - x0);
    canvas.rect(x0, kTopPx + it->second * kRowPx + 2, width, kRowPx - 4, Paint::filled(palette_colour(colour), 0.85));
  }
  canvas.rect(kLeftPx, kTopPx, kWidthPx - kRightPx - kLeftPx, plot_bottom - kTopPx, Paint::stroked("#555555", 1));
  return {id, title, "Bars: events of each rank's streams (colour per stream); the Chrome trace has every rank.",
          canvas.finish()};
}

}  // namespace lcab::report
