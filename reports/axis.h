// Axes of a plot: scale (linear, log2, log10), data range, tick positions and tick labels, and the mapping of
// data values to pixels. Log2 axes suit sequence lengths and GPU counts (ticks at powers of two, labelled "4K",
// "1M", "64"); log10 axes suit times and throughputs that span decades.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace lcab::report {

enum class AxisScale { kLinear, kLog2, kLog10 };

/// How tick values are written.
enum class TickFormat {
  kNumber,  ///< shortest readable decimal ("0.25", "12", "1500")
  kTokens,  ///< token counts with binary suffixes ("512", "4K", "1M")
};

struct AxisSpec {
  std::string label;  ///< what is plotted, e.g. "sequence length"
  std::string unit;   ///< e.g. "tokens", "TFLOP/s per GPU"; shown as "label (unit)"
  AxisScale scale = AxisScale::kLinear;
  TickFormat format = TickFormat::kNumber;
  bool include_zero = false;   ///< linear axes: extend the range to 0
  std::optional<double> min;   ///< forced range ends (data range otherwise)
  std::optional<double> max;
};

/// An axis spec with the data range (no forced ends).
AxisSpec make_axis(std::string label, std::string unit, AxisScale scale, TickFormat format = TickFormat::kNumber,
                   bool include_zero = false);

/// "label (unit)", or just the label when there is no unit.
std::string axis_title(const AxisSpec& spec);

/// A tick: its value and its label.
struct Tick {
  double value = 0;
  std::string label;
};

/// An axis fitted to data: range and ticks chosen, mapping to pixels [pixel_begin, pixel_end] (pixel_end may be
/// smaller than pixel_begin, as for a y axis drawn upwards).
class Axis {
 public:
  /// `values` are the data values the axis must show (non-positive values are ignored on log axes). With no
  /// usable value the range is [1, 2] (log) or [0, 1] (linear). Throws lcab::Error on a forced range that is empty
  /// or not positive on a log axis.
  Axis(const AxisSpec& spec, const std::vector<double>& values, double pixel_begin, double pixel_end);

  const AxisSpec& spec() const { return spec_; }
  double min() const { return min_; }
  double max() const { return max_; }
  const std::vector<Tick>& ticks() const { return ticks_; }
  /// Whether a value can be drawn (finite; positive on a log axis).
  bool drawable(double value) const;
  /// Pixel position of a drawable value (values outside the range map outside the pixel span).
  double to_pixel(double value) const;

 private:
  double transform(double value) const;
  void choose_linear(double low, double high);
  void choose_log(double low, double high, double base);

  AxisSpec spec_;
  double min_ = 0;
  double max_ = 1;
  double pixel_begin_;
  double pixel_end_;
  std::vector<Tick> ticks_;
};

/// A tick label for a value in the given format.
std::string format_tick(double value, TickFormat format);

}  // namespace lcab::report
