// The project's SVG plotting module: line and scatter plots with titled axes (ticks, unit labels, linear or
// log scales), lines, markers, a legend, and for predicted-against-measured scatters the y = x line with a
// shaded error band. Output is a standalone <svg> element that can be saved as a file or inlined in HTML; it
// needs no script, no font download and no network.
//
// Colours come from the Okabe-Ito palette (distinguishable with the common colour-vision deficiencies); series
// also differ by marker shape and line style so that figures read in greyscale too.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/axis.h"

namespace lcab::report {

/// Okabe-Ito colours in the order series use them (yellow last: weak on white).
const std::vector<std::string>& palette();
/// Palette colour for a series index (wraps around).
const std::string& palette_colour(size_t index);

enum class MarkerShape { kNone, kCircle, kSquare, kTriangle, kDiamond, kCross };
enum class LineStyle { kNone, kSolid, kDashed, kDotted };

/// Marker shape for a series index (cycles through the filled shapes and the cross).
MarkerShape marker_for(size_t index);

struct PlotPoint {
  double x = 0;
  double y = 0;
};

struct Series {
  std::string name;               ///< legend text
  std::vector<PlotPoint> points;  ///< drawn in the given order; points a log axis cannot show are skipped
  std::string colour = "#0072B2";
  LineStyle line = LineStyle::kSolid;
  MarkerShape marker = MarkerShape::kCircle;
  bool in_legend = true;
};

struct PlotSpec {
  std::string title;
  std::string subtitle;  ///< one line under the title (workload, units of the case), optional
  AxisSpec x;
  AxisSpec y;
  std::vector<Series> series;
  /// Draw y = x (for predicted-against-measured scatters).
  bool identity_line = false;
  /// With identity_line: shade y within x * (1 +- error_band_fraction) and name it in the legend.
  std::optional<double> error_band_fraction;
  double width_px = 660;   ///< whole figure, legend included
  double height_px = 420;
  std::string empty_message = "no data";  ///< written in the plot area when no series has a drawable point
};

/// Renders the plot as an <svg> element. Throws lcab::Error on an invalid spec (negative band, bad size).
std::string render_svg(const PlotSpec& plot);

}  // namespace lcab::report
