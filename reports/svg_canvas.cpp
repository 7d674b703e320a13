#include "reports/svg_canvas.h"

#include <cmath>
#include <cstdio>

#include "model/error.h"

namespace lcab::report {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string svg_number(double value) {
  LCAB_CHECK(std::isfinite(value), "SVG coordinate is not finite (" << value << ")");
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  std::string text = buffer;
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

Paint Paint::stroked(std::string colour, double width_px, std::string dash) {
  Paint paint;
  paint.stroke = std::move(colour);
  paint.stroke_width_px = width_px;
  paint.dash = std::move(dash);
  return paint;
}

Paint Paint::filled(std::string colour, double opacity) {
  Paint paint;
  paint.fill = std::move(colour);
  paint.opacity = opacity;
  return paint;
}

SvgCanvas::SvgCanvas(double width_px, double height_px, std::string_view title)
    : width_px_(width_px), height_px_(height_px), title_(title) {
  LCAB_CHECK(width_px > 0 && height_px > 0, "SVG size must be positive, got " << width_px << " x " << height_px);
}

std::string SvgCanvas::paint_attributes(const Paint& paint) const {
  std::string a;
  if (!paint.stroke.empty()) {
    a += " stroke=\"" + xml_escape(paint.stroke) + "\" stroke-width=\"" + svg_number(paint.stroke_width_px) + "\"";
    if (!paint.dash.empty()) a += " stroke-dasharray=\"" + xml_escape(paint.dash) + "\"";
  }
  a += " fill=\"" + xml_escape(paint.fill.empty() ? std::string("none") : paint.fill) + "\"";
  if (paint.opacity < 1) {
    a += " fill-opacity=\"" + svg_number(paint.opacity) + "\" stroke-opacity=\"" + svg_number(paint.opacity) + "\"";
  }
  return a;
}

std::string SvgCanvas::points_attribute(const std::vector<std::pair<double, double>>& points) const {
  std::string a;
  for (const auto& [x, y] : points) a += (a.empty() ? "" : " ") + svg_number(x) + "," + svg_number(y);
  return a;
}

void SvgCanvas::line(double x1, double y1, double x2, double y2, const Paint& paint) {
  body_ += "<line x1=\"" + svg_number(x1) + "\" y1=\"" + svg_number(y1) + "\" x2=\"" + svg_number(x2) +
           "\" y2=\"" + svg_number(y2) + "\"" + paint_attributes(paint) + "/>\n";
}

void SvgCanvas::polyline(const std::vector<std::pair<double, double>>& points, const Paint& paint) {
  if (points.empty()) return;
  body_ += "<polyline points=\"" + points_attribute(points) + "\"" + paint_attributes(paint) +
           " stroke-linejoin=\"round\"/>\n";
}

void SvgCanvas::polygon(const std::vector<std::pair<double, double>>& points, const Paint& paint) {
  if (points.empty()) return;
  body_ += "<polygon points=\"" + points_attribute(points) + "\"" + paint_attributes(paint) + "/>\n";
}

void SvgCanvas::rect(double x, double y, double width, double height, const Paint& paint) {
  body_ += "<rect x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" width=\"" + svg_number(width) +
           "\" height=\"" + svg_number(height) + "\"" + paint_attributes(paint) + "/>\n";
}

void SvgCanvas::circle(double cx, double cy, double radius, const Paint& paint) {
  body_ += "<circle cx=\"" + svg_number(cx) + "\" cy=\"" + svg_number(cy) + "\" r=\"" + svg_number(radius) + "\"" +
           paint_attributes(paint) + "/>\n";
}

void SvgCanvas::text(double x, double y, std::string_view content, const TextStyle& style) {
  static const char* anchors[] = {"start", "middle", "end"};
  std::string a = "<text x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" font-size=\"" +
                  svg_number(style.size_px) + "\" text-anchor=\"" + anchors[static_cast<int>(style.anchor)] +
                  "\" fill=\"" + xml_escape(style.colour) + "\"";
  if (style.bold) a += " font-weight=\"bold\"";
  if (style.centre_vertically) a += " dominant-baseline=\"central\"";
  if (style.rotate_deg != 0) {
    a += " transform=\"rotate(" + svg_number(style.rotate_deg) + " " + svg_number(x) + " " + svg_number(y) + ")\"";
  }
  body_ += a + ">" + xml_escape(content) + "</text>\n";
}

void SvgCanvas::define_clip_rect(std::string_view id, double x, double y, double width, double height) {
  defs_ += "<clipPath id=\"" + xml_escape(id) + "\"><rect x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) +
           "\" width=\"" + svg_number(width) + "\" height=\"" + svg_number(height) + "\"/></clipPath>\n";
}

void SvgCanvas::begin_clip(std::string_view id) {
  body_ += "<g clip-path=\"url(#" + xml_escape(id) + ")\">\n";
  ++open_groups_;
}

void SvgCanvas::end_clip() {
  LCAB_CHECK(open_groups_ > 0, "end_clip without begin_clip");
  body_ += "</g>\n";
  --open_groups_;
}

std::string SvgCanvas::finish() const {
  LCAB_CHECK(open_groups_ == 0, open_groups_ << " clip group(s) still open when finishing the SVG");
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_number(width_px_) + "\" height=\"" +
                    svg_number(height_px_) + "\" viewBox=\"0 0 " + svg_number(width_px_) + " " +
                    svg_number(height_px_) + "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"" +
                    " role=\"img\">\n<title>" + xml_escape(title_) + "</title>\n";
  if (!defs_.empty()) out += "<defs>\n" + defs_ + "</defs>\n";
  out += "<rect x=\"0\" y=\"0\" width=\"" + svg_number(width_px_) + "\" height=\"" + svg_number(height_px_) +
         "\" fill=\"#ffffff\"/>\n";
  return out + body_ + "</svg>\n";
}

}  // namespace lcab::report
