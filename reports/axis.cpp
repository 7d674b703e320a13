#include "reports/axis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/error.h"

namespace lcab::report {

AxisSpec make_axis(std::string label, std::string unit, AxisScale scale, TickFormat format, bool include_zero) {
  AxisSpec spec;
  spec.label = std::move(label);
  spec.unit = std::move(unit);
  spec.scale = scale;
  spec.format = format;
  spec.include_zero = include_zero;
  return spec;
}

std::string axis_title(const AxisSpec& spec) {
  return spec.unit.empty() ? spec.label : spec.label + " (" + spec.unit + ")";
}

std::string format_tick(double value, TickFormat format) {
  if (format == TickFormat::kTokens && value >= 1024) {
    const double rounded = std::round(value);
    const char* suffixes[] = {"K", "M", "G"};
    double scaled = rounded;
    int s = -1;
    while (s < 2 && scaled >= 1024 && std::fmod(scaled, 1024.0) == 0) {
      scaled /= 1024;
      ++s;
    }
    if (s >= 0) return format_tick(scaled, TickFormat::kNumber) + suffixes[s];
  }
  char buffer[64];
  const double magnitude = std::fabs(value);
  if (value == 0) return "0";
  if (magnitude >= 1e6 || magnitude < 1e-3) {
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
  }
  // Enough decimals to tell ticks apart, no trailing zeros.
  std::snprintf(buffer, sizeof buffer, "%.4f", value);
  std::string text = buffer;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

Axis::Axis(const AxisSpec& spec, const std::vector<double>& values, double pixel_begin, double pixel_end)
    : spec_(spec), pixel_begin_(pixel_begin), pixel_end_(pixel_end) {
  const bool log = spec.scale != AxisScale::kLinear;
  double low = INFINITY;
  double high = -INFINITY;
  for (double v : values) {
    if (!std::isfinite(v) || (log && v <= 0)) continue;
    low = std::min(low, v);
    high = std::max(high, v);
  }
  if (spec.min) low = *spec.min;
  if (spec.max) high = *spec.max;
  if (!std::isfinite(low) || !std::isfinite(high)) {
    low = log ? 1 : 0;
    high = log ? 2 : 1;
  }
  LCAB_CHECK(low <= high, "axis '" << spec.label << "': range [" << low << ", " << high << "] is empty");
  LCAB_CHECK(!log || low > 0, "axis '" << spec.label << "': a log axis needs a positive range, got [" << low << ", "
                                       << high << "]");
  if (spec.scale == AxisScale::kLinear) {
    if (spec.include_zero) {
      low = std::min(low, 0.0);
      high = std::max(high, 0.0);
    }
    choose_linear(low, high);
  } else {
    choose_log(low, high, spec.scale == AxisScale::kLog2 ? 2.0 : 10.0);
  }
}

void Axis::choose_linear(double low, double high) {
  if (high == low) {
    const double pad = low == 0 ? 1 : std::fabs(low) * 0.1;
    low -= pad;
    high += pad;
    if (spec_.include_zero && low < 0 && high - pad >= 0) low = 0;
  }
  // A "nice" step (1, 2 or 5 times a power of ten) giving about five intervals.
  const double raw_step = (high - low) / 5;
  const double power = std::pow(10.0, std::floor(std::log10(raw_step)));
  double step = power;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * power;
    if (raw_step <= step) break;
  }
  min_ = spec_.min ? low : std::floor(low / step) * step;
  max_ = spec_.max ? high : std::ceil(high / step) * step;
  ticks_.clear();
  for (double v = std::ceil(min_ / step) * step; v <= max_ + step * 1e-9; v += step) {
    const double clean = std::fabs(v) < step * 1e-9 ? 0.0 : v;
    ticks_.push_back({clean, format_tick(clean, spec_.format)});
  }
}

void Axis::choose_log(double low, double high, double base) {
  const double lb = std::log(base);
  double first = std::floor(std::log(low) / lb + 1e-9);
  double last = std::ceil(std::log(high) / lb - 1e-9);
  if (first == last) {
    // A single power: show one power below and above only when data sits exactly on it.
    first -= 1;
    last += 1;
  }
  min_ = spec_.min ? low : std::pow(base, first);
  max_ = spec_.max ? high : std::pow(base, last);
  // At most about eight labelled ticks: skip powers when the range is wide.
  const int powers = static_cast<int>(last - first) + 1;
  const int stride = std::max(1, (powers + 7) / 8);
  ticks_.clear();
  for (double p = first; p <= last; p += stride) {
    const double v = std::pow(base, p);
    if (v < min_ * (1 - 1e-9) || v > max_ * (1 + 1e-9)) continue;
    ticks_.push_back({v, format_tick(v, spec_.format)});
  }
  // Decades with only one or two ticks read poorly: add 2x and 5x ticks for short log10 axes.
  if (base == 10 && ticks_.size() <= 2) {
    std::vector<Tick> more;
    for (double p = first - 1; p <= last; ++p) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, p);
        if (v >= min_ * (1 - 1e-9) && v <= max_ * (1 + 1e-9)) more.push_back({v, format_tick(v, spec_.format)});
      }
    }
    ticks_ = more;
  }
}

bool Axis::drawable(double value) const {
  return std::isfinite(value) && (spec_.scale == AxisScale::kLinear || value > 0);
}

double Axis::transform(double value) const {
  switch (spec_.scale) {
    case AxisScale::kLinear: return value;
    case AxisScale::kLog2: return std::log2(value);
    case AxisScale::kLog10: return std::log10(value);
  }
  return value;
}

double Axis::to_pixel(double value) const {
  LCAB_CHECK(drawable(value), "axis '" << spec_.label << "': value " << value << " cannot be drawn on this scale");
  const double t0 = transform(min_);
  const double t1 = transform(max_);
  const double fraction = t1 == t0 ? 0.5 : (transform(value) - t0) / (t1 - t0);
  return pixel_begin_ + fraction * (pixel_end_ - pixel_begin_);
}

}  // namespace lcab::report
