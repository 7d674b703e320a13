// A minimal SVG writer: shapes and text in user units (pixels), escaped, with numbers printed compactly.
// Used by the plotting module (svg_plot.h); knows nothing about axes or data.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lcab::report {

/// Escapes the five XML special characters (& < > " ') for text nodes and attribute values.
std::string xml_escape(std::string_view text);

/// A number as SVG wants it: at most two decimals, no trailing zeros ("12.5", "3", "-0.25").
std::string svg_number(double value);

/// How a stroke or a fill looks. Empty strings leave the attribute out.
struct Paint {
  std::string stroke;          ///< "#0072B2"
  double stroke_width_px = 1;
  std::string dash;            ///< stroke-dasharray, e.g. "6 4"
  std::string fill = "none";   ///< "none" or a colour
  double opacity = 1;          ///< fill-opacity and stroke-opacity

  /// An outline only.
  static Paint stroked(std::string colour, double width_px, std::string dash = "");
  /// A fill only.
  static Paint filled(std::string colour, double opacity = 1);
};

enum class TextAnchor { kStart, kMiddle, kEnd };

struct TextStyle {
  double size_px = 12;
  TextAnchor anchor = TextAnchor::kStart;
  bool bold = false;
  std::string colour = "#222222";
  double rotate_deg = 0;  ///< rotation about the text's anchor point
  /// Vertical alignment of (x, y): true centres the text on y (dominant-baseline: central), false puts the
  /// baseline at y.
  bool centre_vertically = false;
};

/// Builds one <svg> document. Calls append elements in order (later ones draw on top).
class SvgCanvas {
 public:
  SvgCanvas(double width_px, double height_px, std::string_view title);

  void line(double x1, double y1, double x2, double y2, const Paint& paint);
  void polyline(const std::vector<std::pair<double, double>>& points, const Paint& paint);
  void polygon(const std::vector<std::pair<double, double>>& points, const Paint& paint);
  void rect(double x, double y, double width, double height, const Paint& paint);
  void circle(double cx, double cy, double radius, const Paint& paint);
  void text(double x, double y, std::string_view content, const TextStyle& style);

  /// Defines a rectangular clip path named `id`; shapes drawn between begin_clip and end_clip are clipped.
  void define_clip_rect(std::string_view id, double x, double y, double width, double height);
  void begin_clip(std::string_view id);
  void end_clip();

  /// The finished document (an XML declaration is not included, so it can be inlined in HTML as is).
  std::string finish() const;

 private:
  std::string paint_attributes(const Paint& paint) const;
  std::string points_attribute(const std::vector<std::pair<double, double>>& points) const;

  double width_px_;
  double height_px_;
  std::string title_;
  std::string defs_;
  std::string body_;
  int open_groups_ = 0;
};

}  // namespace lcab::report
