// The SVG plotting module: axis ranges and ticks, escaping, well-formed output, error bands.
#include <cmath>

#include <gtest/gtest.h>

#include "model/error.h"
#include "reports/axis.h"
#include "reports/svg_canvas.h"
#include "reports/svg_plot.h"
#include "reports/timeline_figure.h"
#include "xml_check.h"

namespace lcab::report {
namespace {

std::vector<std::string> labels(const Axis& axis) {
  std::vector<std::string> out;
  for (const Tick& t : axis.ticks()) out.push_back(t.label);
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Axis, Log2TokenTicksArePowersOfTwoWithSuffixes) {
  const Axis axis(make_axis("sequence length", "tokens", AxisScale::kLog2, TickFormat::kTokens),
                  {4096, 8192, 32768, 131072}, 0, 100);
  EXPECT_EQ(labels(axis), (std::vector<std::string>{"4K", "8K", "16K", "32K", "64K", "128K"}));
  EXPECT_DOUBLE_EQ(axis.to_pixel(4096), 0);
  EXPECT_DOUBLE_EQ(axis.to_pixel(131072), 100);
  EXPECT_DOUBLE_EQ(axis.to_pixel(16384), 40);  // 2 of 5 doublings
}

TEST(Axis, Log2WideRangeThinsTicks) {
  const Axis axis(make_axis("seq", "tokens", AxisScale::kLog2, TickFormat::kTokens), {1024, 16777216}, 0, 1);
  EXPECT_LE(axis.ticks().size(), 9u);
  EXPECT_EQ(axis.ticks().front().label, "1K");
}

TEST(Axis, LinearTicksAreNiceAndIncludeZero) {
  const Axis axis(make_axis("throughput", "TFLOP/s", AxisScale::kLinear, TickFormat::kNumber, true), {302.9, 563.6},
                  400, 0);
  EXPECT_DOUBLE_EQ(axis.min(), 0);
  EXPECT_DOUBLE_EQ(axis.max(), 600);
  EXPECT_EQ(labels(axis), (std::vector<std::string>{"0", "200", "400", "600"}));
  EXPECT_DOUBLE_EQ(axis.to_pixel(300), 200);  // y axis drawn upwards
}

TEST(Axis, Log10ShortRangeGetsIntermediateTicks) {
  const Axis axis(make_axis("time", "ms", AxisScale::kLog10), {0.6, 0.9}, 0, 1);
  EXPECT_EQ(labels(axis), (std::vector<std::string>{"0.1", "0.2", "0.5", "1"}));
}

TEST(Axis, LogAxisIgnoresNonPositiveValuesAndRejectsBadForcedRange) {
  const Axis axis(make_axis("gpus", "", AxisScale::kLog2), {0, -4, 8, 64}, 0, 1);
  EXPECT_DOUBLE_EQ(axis.min(), 8);
  EXPECT_FALSE(axis.drawable(0));
  AxisSpec bad = make_axis("gpus", "", AxisScale::kLog2);
  bad.min = 0;
  EXPECT_THROW(Axis(bad, {1, 2}, 0, 1), Error);
}

TEST(Axis, TickFormats) {
  EXPECT_EQ(format_tick(1048576, TickFormat::kTokens), "1M");
  EXPECT_EQ(format_tick(1536, TickFormat::kTokens), "1536");  // exact forms only, as format_tokens
  EXPECT_EQ(format_tick(3000, TickFormat::kTokens), "3000");
  EXPECT_EQ(format_tick(0.25, TickFormat::kNumber), "0.25");
  EXPECT_EQ(format_tick(64, TickFormat::kNumber), "64");
  EXPECT_EQ(axis_title(make_axis("throughput", "TFLOP/s", AxisScale::kLinear)), "throughput (TFLOP/s)");
}

TEST(SvgCanvas, EscapesTextAndFormatsNumbers) {
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(svg_number(12.5), "12.5");
  EXPECT_EQ(svg_number(3.0), "3");
  EXPECT_EQ(svg_number(-0.001), "0");
  EXPECT_THROW(svg_number(std::nan("")), Error);
  SvgCanvas canvas(100, 50, "t <1>");
  canvas.text(1, 2, "x & y", TextStyle{});
  const std::string svg = canvas.finish();
  EXPECT_EQ(testing::xml_problem(svg), "");
  EXPECT_NE(svg.find("x &amp; y"), std::string::npos);
}

TEST(SvgCanvas, UnbalancedClipGroupsAreErrors) {
  SvgCanvas canvas(10, 10, "t");
  EXPECT_THROW(canvas.end_clip(), Error);
  canvas.begin_clip("c");
  EXPECT_THROW((void)canvas.finish(), Error);
}

PlotSpec line_plot() {
  PlotSpec plot;
  plot.title = "Kernel throughput: sliding_window:window=1024 <fwd> & more";
  plot.subtitle = "hd128";
  plot.x = make_axis("sequence length", "tokens", AxisScale::kLog2, TickFormat::kTokens);
  plot.y = make_axis("throughput", "TFLOP/s", AxisScale::kLinear, TickFormat::kNumber, true);
  plot.series.push_back({"impl<a> measured", {{4096, 300}, {8192, 350}, {0, 1}}, palette_colour(0),
                         LineStyle::kSolid, MarkerShape::kCircle, true});
  plot.series.push_back({"impl<a> predicted", {{4096, 310}, {65536, 400}}, palette_colour(0), LineStyle::kDashed,
                         MarkerShape::kNone, true});
  plot.series.push_back({"other", {{8192, 100}}, palette_colour(1), LineStyle::kNone, MarkerShape::kDiamond, true});
  return plot;
}

TEST(SvgPlot, LinePlotIsWellFormedWithTitleAxesAndLegend) {
  const std::string svg = render_svg(line_plot());
  EXPECT_EQ(testing::xml_problem(svg), "") << svg;
  EXPECT_NE(svg.find("sliding_window:window=1024 &lt;fwd&gt; &amp; more"), std::string::npos);
  EXPECT_NE(svg.find("sequence length (tokens)"), std::string::npos);
  EXPECT_NE(svg.find("throughput (TFLOP/s)"), std::string::npos);
  EXPECT_NE(svg.find(">64K<"), std::string::npos);
  EXPECT_NE(svg.find("impl&lt;a&gt; predicted"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 2u);  // the x = 0 point is dropped on the log axis; "other" has no line
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("http://", svg.find("xmlns") + 40), std::string::npos);  // no external reference
}

TEST(SvgPlot, ScatterHasIdentityLineBandAndSharedRange) {
  PlotSpec plot;
  plot.title = "accuracy";
  plot.x = make_axis("measured", "ms", AxisScale::kLog10);
  plot.y = make_axis("predicted", "ms", AxisScale::kLog10);
  plot.identity_line = true;
  plot.error_band_fraction = 0.2;
  plot.series.push_back({"kernel", {{0.5, 0.55}, {12, 10}}, palette_colour(0), LineStyle::kNone,
                         MarkerShape::kCircle, true});
  const std::string svg = render_svg(plot);
  EXPECT_EQ(testing::xml_problem(svg), "");
  EXPECT_NE(svg.find("within ±20%"), std::string::npos);
  EXPECT_NE(svg.find("y = x"), std::string::npos);
  EXPECT_EQ(count(svg, "<polygon"), 1u);  // the band (circles are markers)
  plot.error_band_fraction = 1.5;
  EXPECT_THROW(render_svg(plot), Error);
}

TEST(SvgPlot, EmptyPlotSaysSo) {
  PlotSpec plot;
  plot.title = "nothing";
  plot.x = make_axis("x", "", AxisScale::kLog2);
  plot.y = make_axis("y", "", AxisScale::kLinear);
  plot.empty_message = "no data here";
  const std::string svg = render_svg(plot);
  EXPECT_EQ(testing::xml_problem(svg), "");
  EXPECT_NE(svg.find("no data here"), std::string::npos);
}

TEST(SvgPlot, PaletteIsOkabeItoAndMarkersCycle) {
  EXPECT_EQ(palette().size(), 8u);
  EXPECT_EQ(palette_colour(0), "#0072B2");
  EXPECT_EQ(palette_colour(8), palette_colour(0));
  EXPECT_NE(marker_for(0), marker_for(1));
}

TEST(TimelineFigure, DrawsTheFirstRanksRowByStream) {
  perf::Timeline timeline;
  for (int rank = 0; rank < 6; ++rank) {
    timeline.events.push_back({rank, "compute", "step 0 attn", 0, 900});
    timeline.events.push_back({rank, "send", "step 0 send kv", 100, 300});
  }
  const Figure figure = timeline_figure(timeline, "t", "ring <4>", 4);
  EXPECT_EQ(testing::xml_problem(figure.svg), "");
  EXPECT_NE(figure.svg.find("6 ranks, the first 4 shown"), std::string::npos);
  EXPECT_NE(figure.svg.find(">rank 3 send<"), std::string::npos);
  EXPECT_EQ(figure.svg.find(">rank 4 compute<"), std::string::npos);
  EXPECT_NE(figure.svg.find("time (ms)"), std::string::npos);
}

}  // namespace
}  // namespace lcab::report
