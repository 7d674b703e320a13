#include "reports/svg_plot.h"

#include <algorithm>
#include <cmath>

#include "model/error.h"
#include "reports/svg_canvas.h"

namespace lcab::report {

const std::vector<std::string>& palette() {
  static const std::vector<std::string> colours = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                   "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return colours;
}

const std::string& palette_colour(size_t index) { return palette()[index % palette().size()]; }

MarkerShape marker_for(size_t index) {
  static const MarkerShape shapes[] = {MarkerShape::kCircle, MarkerShape::kSquare, MarkerShape::kTriangle,
                                       MarkerShape::kDiamond, MarkerShape::kCross};
  return shapes[index % 5];
}

namespace {

constexpr double kMarginLeftPx = 74;
constexpr double kMarginRightPx = 12;
constexpr double kMarginBottomPx = 52;
constexpr double kMarkerRadiusPx = 4.5;
constexpr double kAverageGlyphWidthEm = 0.6;  // DejaVu Sans averages a little under this
const char* const kGridColour = "#e3e3e3";
const char* const kAxisColour = "#555555";

std::string dash_of(LineStyle style) {
  switch (style) {
    case LineStyle::kDashed: return "7 4";
    case LineStyle::kDotted: return "2 3";
    default: return "";
  }
}

void draw_marker(SvgCanvas& canvas, MarkerShape shape, double x, double y, const std::string& colour) {
  const double r = kMarkerRadiusPx;
  Paint filled = Paint::filled(colour);
  filled.stroke = "#ffffff";  // a thin white rim keeps overlapping markers apart
  filled.stroke_width_px = 0.8;
  switch (shape) {
    case MarkerShape::kNone: return;
    case MarkerShape::kCircle: canvas.circle(x, y, r, filled); return;
    case MarkerShape::kSquare: canvas.rect(x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8, filled); return;
    case MarkerShape::kTriangle:
      canvas.polygon({{x, y - r * 1.15}, {x + r, y + r * 0.7}, {x - r, y + r * 0.7}}, filled);
      return;
    case MarkerShape::kDiamond:
      canvas.polygon({{x, y - r * 1.2}, {x + r, y}, {x, y + r * 1.2}, {x - r, y}}, filled);
      return;
    case MarkerShape::kCross: {
      const Paint stroke = Paint::stroked(colour, 2);
      canvas.line(x - r, y - r, x + r, y + r, stroke);
      canvas.line(x - r, y + r, x + r, y - r, stroke);
      return;
    }
  }
}

double text_width_px(std::string_view text, double size_px) {
  return static_cast<double>(text.size()) * size_px * kAverageGlyphWidthEm;
}

struct LegendEntry {
  std::string name;
  std::string colour;
  LineStyle line = LineStyle::kNone;
  MarkerShape marker = MarkerShape::kNone;
  bool band = false;
};

std::vector<LegendEntry> legend_entries(const PlotSpec& plot) {
  std::vector<LegendEntry> entries;
  for (const Series& s : plot.series) {
    if (s.in_legend && !s.points.empty()) entries.push_back({s.name, s.colour, s.line, s.marker, false});
  }
  if (plot.identity_line) {
    entries.push_back({"y = x", kAxisColour, LineStyle::kSolid, MarkerShape::kNone, false});
    if (plot.error_band_fraction) {
      entries.push_back({"within ±" + format_tick(*plot.error_band_fraction * 100, TickFormat::kNumber) + "%",
                         "#9a9a9a", LineStyle::kNone, MarkerShape::kNone, true});
    }
  }
  return entries;
}

}  // namespace

std::string render_svg(const PlotSpec& plot) {
  if (plot.error_band_fraction) {
    LCAB_CHECK(*plot.error_band_fraction > 0 && *plot.error_band_fraction < 1,
               "error band must be a fraction in (0, 1), got " << *plot.error_band_fraction);
  }
  const std::vector<LegendEntry> legend = legend_entries(plot);
  constexpr double kLegendFontPx = 12;
  double legend_width_px = 0;
  for (const LegendEntry& e : legend) legend_width_px = std::max(legend_width_px, text_width_px(e.name, kLegendFontPx));
  if (!legend.empty()) legend_width_px = std::min(legend_width_px + 46, plot.width_px * 0.4);

  const double top_px = plot.subtitle.empty() ? 40 : 58;
  const double plot_left = kMarginLeftPx;
  const double plot_right = plot.width_px - kMarginRightPx - legend_width_px;
  const double plot_top = top_px;
  const double plot_bottom = plot.height_px - kMarginBottomPx;
  LCAB_CHECK(plot_right - plot_left > 80 && plot_bottom - plot_top > 60,
             "plot '" << plot.title << "' is too small (" << plot.width_px << " x " << plot.height_px << " px)");

  // Axis ranges: from the data; a y = x plot shares one range on both axes so that the diagonal is at 45 degrees.
  std::vector<double> xs, ys;
  for (const Series& s : plot.series) {
    for (const PlotPoint& p : s.points) {
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
  }
  AxisSpec x_spec = plot.x;
  AxisSpec y_spec = plot.y;
  if (plot.identity_line) {
    std::vector<double> both = xs;
    both.insert(both.end(), ys.begin(), ys.end());
    const Axis joint(x_spec, both, 0, 1);
    x_spec.min = y_spec.min = joint.min();
    x_spec.max = y_spec.max = joint.max();
  }
  const Axis x_axis(x_spec, xs, plot_left, plot_right);
  const Axis y_axis(y_spec, ys, plot_bottom, plot_top);

  SvgCanvas canvas(plot.width_px, plot.height_px, plot.title);
  canvas.text(plot_left, 22, plot.title, {.size_px = 16, .anchor = TextAnchor::kStart, .bold = true});
  if (!plot.subtitle.empty()) {
    canvas.text(plot_left, 41, plot.subtitle, {.size_px = 12, .anchor = TextAnchor::kStart, .colour = "#555555"});
  }

  // Grid and ticks.
  const Paint grid = Paint::stroked(kGridColour, 1);
  const Paint axis_paint = Paint::stroked(kAxisColour, 1);
  const TextStyle tick_style{.size_px = 11, .anchor = TextAnchor::kMiddle, .colour = "#444444"};
  for (const Tick& t : x_axis.ticks()) {
    const double px = x_axis.to_pixel(t.value);
    canvas.line(px, plot_top, px, plot_bottom, grid);
    canvas.line(px, plot_bottom, px, plot_bottom + 5, axis_paint);
    canvas.text(px, plot_bottom + 18, t.label, tick_style);
  }
  TextStyle y_tick_style = tick_style;
  y_tick_style.anchor = TextAnchor::kEnd;
  y_tick_style.centre_vertically = true;
  for (const Tick& t : y_axis.ticks()) {
    const double py = y_axis.to_pixel(t.value);
    canvas.line(plot_left, py, plot_right, py, grid);
    canvas.line(plot_left - 5, py, plot_left, py, axis_paint);
    canvas.text(plot_left - 8, py, t.label, y_tick_style);
  }
  canvas.rect(plot_left, plot_top, plot_right - plot_left, plot_bottom - plot_top, axis_paint);
  canvas.text((plot_left + plot_right) / 2, plot.height_px - 12, axis_title(plot.x),
              {.size_px = 13, .anchor = TextAnchor::kMiddle});
  canvas.text(18, (plot_top + plot_bottom) / 2, axis_title(plot.y),
              {.size_px = 13, .anchor = TextAnchor::kMiddle, .rotate_deg = -90, .centre_vertically = true});

  // Data, clipped to the plot area (markers on the border stay whole: the clip has a small margin).
  const std::string clip_id = "plot-area";
  canvas.define_clip_rect(clip_id, plot_left - kMarkerRadiusPx - 1, plot_top - kMarkerRadiusPx - 1,
                          plot_right - plot_left + 2 * kMarkerRadiusPx + 2,
                          plot_bottom - plot_top + 2 * kMarkerRadiusPx + 2);
  canvas.begin_clip(clip_id);
  if (plot.identity_line) {
    const double lo = x_axis.min();
    const double hi = x_axis.max();
    auto at = [&](double x, double y) { return std::pair{x_axis.to_pixel(x), y_axis.to_pixel(y)}; };
    if (plot.error_band_fraction) {
      const double f = *plot.error_band_fraction;
      canvas.polygon({at(lo, lo * (1 - f)), at(hi, hi * (1 - f)), at(hi, hi * (1 + f)), at(lo, lo * (1 + f))},
                     Paint::filled("#9a9a9a", 0.22));
    }
    if (x_axis.drawable(lo) && y_axis.drawable(lo)) {
      const auto [x0, y0] = at(lo, lo);
      const auto [x1, y1] = at(hi, hi);
      canvas.line(x0, y0, x1, y1, Paint::stroked(kAxisColour, 1.2));
    }
  }
  bool any_point = false;
  for (const Series& s : plot.series) {
    std::vector<std::pair<double, double>> pixels;
    for (const PlotPoint& p : s.points) {
      if (!x_axis.drawable(p.x) || !y_axis.drawable(p.y)) continue;
      pixels.emplace_back(x_axis.to_pixel(p.x), y_axis.to_pixel(p.y));
    }
    any_point = any_point || !pixels.empty();
    if (s.line != LineStyle::kNone && pixels.size() >= 2) {
      canvas.polyline(pixels, Paint::stroked(s.colour, 2, dash_of(s.line)));
    }
    for (const auto& [px, py] : pixels) draw_marker(canvas, s.marker, px, py, s.colour);
  }
  canvas.end_clip();
  if (!any_point) {
    canvas.text((plot_left + plot_right) / 2, (plot_top + plot_bottom) / 2, plot.empty_message,
                {.size_px = 14, .anchor = TextAnchor::kMiddle, .colour = "#888888", .centre_vertically = true});
  }

  // Legend, right of the plot area.
  double ly = plot_top + 8;
  const double lx = plot_right + 14;
  for (const LegendEntry& e : legend) {
    if (e.band) {
      canvas.rect(lx, ly - 6, 26, 12, Paint::filled(e.colour, 0.35));
    } else if (e.line != LineStyle::kNone) {
      canvas.line(lx, ly, lx + 26, ly, Paint::stroked(e.colour, 2, dash_of(e.line)));
    }
    draw_marker(canvas, e.marker, lx + 13, ly, e.colour);
    canvas.text(lx + 34, ly, e.name, {.size_px = kLegendFontPx, .anchor = TextAnchor::kStart,
                                      .centre_vertically = true});
    ly += 20;
  }
  return canvas.finish();
}

}  // namespace lcab::report
