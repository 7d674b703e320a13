#include "reports/figures.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "model/cli_values.h"
#include "reports/record_metrics.h"
#include "reports/svg_plot.h"
#include "reports/table.h"

namespace lcab::report {

std::string shape_label(const RecordKey& key) {
  std::vector<std::string> parts;
  if (key.head_dim) parts.push_back("hd" + std::to_string(*key.head_dim));
  if (key.heads) {
    parts.push_back(std::to_string(*key.heads) + (key.kv_heads ? "/" + std::to_string(*key.kv_heads) : "") +
                    " heads");
  }
  if (!key.dtype.empty()) parts.push_back(key.dtype);
  if (key.batch) parts.push_back("batch " + std::to_string(*key.batch));
  return join(parts);
}

std::string slug(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (keep) {
      out += c;
    } else if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (c == '.') {
      out += 'p';
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "x" : out;
}

namespace {

/// Stable colours: index of a name in the sorted set of names over measured and predicted records.
class ColourIndex {
 public:
  void add(const std::string& name) { names_.insert(name); }
  size_t of(const std::string& name) const {
    return static_cast<size_t>(std::distance(names_.begin(), names_.find(name)));
  }

 private:
  std::set<std::string> names_;
};

/// Devices the measured records of a figure ran on ("NVIDIA H100 80GB HBM3"), or "" when none says.
std::string devices_of(const std::vector<const Record*>& records) {
  std::set<std::string> names;
  for (const Record* r : records) {
    if (r->source == "measured" && r->device && !r->device->name.empty()) names.insert(r->device->name);
  }
  return join(std::vector<std::string>(names.begin(), names.end()));
}

/// Measured and predicted series of one implementation or method.
struct SeriesPair {
  std::map<double, double> measured;   ///< x -> y
  std::map<double, double> predicted;
};

void add_series(PlotSpec& plot, const std::string& name, const SeriesPair& pair, size_t colour) {
  auto points = [](const std::map<double, double>& m) {
    std::vector<PlotPoint> p;
    for (const auto& [x, y] : m) p.push_back({x, y});
    return p;
  };
  if (!pair.measured.empty()) {
    plot.series.push_back({name + " measured", points(pair.measured), palette_colour(colour), LineStyle::kSolid,
                           marker_for(colour), true});
  }
  if (!pair.predicted.empty()) {
    // A single predicted point has no line to show: it gets the series' marker.
    const MarkerShape marker = pair.predicted.size() == 1 ? marker_for(colour) : MarkerShape::kNone;
    plot.series.push_back({name + " predicted", points(pair.predicted), palette_colour(colour), LineStyle::kDashed,
                           marker, true});
  }
}

std::string unique_id(std::set<std::string>& used, const std::string& wanted) {
  std::string id = wanted;
  for (int n = 2; !used.insert(id).second; ++n) id = wanted + "-" + std::to_string(n);
  return id;
}

std::string marks_caption(bool any_measured, bool any_predicted) {
  if (any_measured && any_predicted) return "Markers and solid lines: measured; dashed lines: predicted by the model.";
  if (any_measured) return "Measured (no prediction available for these cases).";
  return "Predicted by the model (no measurement of these cases).";
}

}  // namespace

std::vector<Figure> kernel_figures(const RecordSet& records) {
  // Group: (pass, mask, shape) -> impl -> series.
  using GroupKey = std::tuple<std::string, std::string, std::string>;
  std::map<GroupKey, std::map<std::string, SeriesPair>> groups;
  std::map<GroupKey, std::vector<const Record*>> members;
  ColourIndex colours;
  for (const std::vector<Record>* source : {&records.measured(), &records.predicted()}) {
    for (const Record& r : *source) {
      if (r.kind != "kernel" || !r.key.seqlen) continue;
      const std::optional<double> tflops = total_tflops(r);
      if (!tflops) continue;
      const GroupKey g{r.key.pass, r.key.mask, shape_label(r.key)};
      SeriesPair& pair = groups[g][r.key.impl];
      (r.source == "measured" ? pair.measured : pair.predicted)[static_cast<double>(*r.key.seqlen)] = *tflops;
      members[g].push_back(&r);
      colours.add(r.key.impl);
    }
  }
  std::vector<Figure> figures;
  std::set<std::string> used;
  for (const auto& [g, by_impl] : groups) {
    const auto& [pass, mask, shape] = g;
    PlotSpec plot;
    plot.title = "Kernel throughput: " + mask + " (" + pass + ")";
    const std::string devices = devices_of(members[g]);
    plot.subtitle = shape + (devices.empty() ? "" : "; measured on " + devices);
    plot.x = make_axis("sequence length", "tokens", AxisScale::kLog2, TickFormat::kTokens);
    plot.y = make_axis("throughput", "TFLOP/s", AxisScale::kLinear, TickFormat::kNumber, true);
    bool any_measured = false, any_predicted = false;
    for (const auto& [impl, pair] : by_impl) {
      add_series(plot, impl, pair, colours.of(impl));
      any_measured = any_measured || !pair.measured.empty();
      any_predicted = any_predicted || !pair.predicted.empty();
    }
    figures.push_back({unique_id(used, "kernel-" + slug(pass) + "-" + slug(mask)), plot.title,
                       marks_caption(any_measured, any_predicted) + " TFLOP/s = FLOPs / median time (fwd 4·area·Hq·D, "
                       "bwd 2.5× fwd).",
                       render_svg(plot)});
  }
  return figures;
}

std::vector<Figure> cp_figures(const RecordSet& records) {
  // Group: (pass, mask, seqlen, shape) -> method -> series (best configuration per GPU count).
  using GroupKey = std::tuple<std::string, std::string, int64_t, std::string>;
  std::map<GroupKey, std::map<std::string, SeriesPair>> groups;
  std::map<GroupKey, std::vector<const Record*>> members;
  ColourIndex colours;
  for (const std::vector<Record>* source : {&records.measured(), &records.predicted()}) {
    for (const Record& r : *source) {
      if (r.kind != "cp" || !r.key.seqlen || !r.key.gpus) continue;
      const std::optional<double> tflops = per_gpu_tflops(r);
      if (!tflops) continue;
      const GroupKey g{r.key.pass, r.key.mask, *r.key.seqlen, shape_label(r.key)};
      SeriesPair& pair = groups[g][r.key.method];
      double& best = (r.source == "measured" ? pair.measured : pair.predicted)[static_cast<double>(*r.key.gpus)];
      best = std::max(best, *tflops);
      members[g].push_back(&r);
      colours.add(r.key.method);
    }
  }
  std::vector<Figure> figures;
  std::set<std::string> used;
  for (const auto& [g, by_method] : groups) {
    const auto& [pass, mask, seqlen, shape] = g;
    PlotSpec plot;
    plot.title = "CP scaling: " + mask + ", S = " + format_tokens(seqlen) + " (" + pass + ")";
    const std::string devices = devices_of(members[g]);
    plot.subtitle = shape + (devices.empty() ? "" : "; measured on " + devices);
    plot.x = make_axis("number of GPUs", "", AxisScale::kLog2, TickFormat::kNumber);
    plot.y = make_axis("throughput per GPU", "TFLOP/s", AxisScale::kLinear, TickFormat::kNumber, true);
    bool any_measured = false, any_predicted = false;
    for (const auto& [method, pair] : by_method) {
      add_series(plot, method, pair, colours.of(method));
      any_measured = any_measured || !pair.measured.empty();
      any_predicted = any_predicted || !pair.predicted.empty();
    }
    figures.push_back({unique_id(used, "cp-" + slug(pass) + "-" + slug(mask) + "-" + slug(format_tokens(seqlen))),
                       plot.title,
                       marks_caption(any_measured, any_predicted) +
                           " The total sequence is fixed; each point is the method's best configuration (degrees, "
                           "placement) at that GPU count; TFLOP/s per GPU = FLOPs / (slowest rank's time × GPUs).",
                       render_svg(plot)});
  }
  return figures;
}

Figure accuracy_figure(const std::vector<Comparison>& comparisons, double band_fraction) {
  PlotSpec plot;
  plot.title = "Model accuracy: predicted against measured time";
  plot.subtitle = std::to_string(comparisons.size()) + " measured cases with a prediction";
  plot.x = make_axis("measured median time", "ms", AxisScale::kLog10, TickFormat::kNumber);
  plot.y = make_axis("predicted time", "ms", AxisScale::kLog10, TickFormat::kNumber);
  plot.identity_line = true;
  plot.error_band_fraction = band_fraction;
  plot.empty_message = "no measured case has a prediction";
  std::map<std::string, std::vector<PlotPoint>> by_kind;
  for (const Comparison& c : comparisons) by_kind[c.measured.kind].push_back({c.measured_ms, c.predicted_ms});
  const std::vector<std::string> order = {"kernel", "cp", "comm"};
  size_t index = 0;
  for (const auto& [kind, points] : by_kind) {
    const auto pos = std::find(order.begin(), order.end(), kind);
    const size_t colour = pos == order.end() ? order.size() + index : static_cast<size_t>(pos - order.begin());
    plot.series.push_back({kind + " (" + std::to_string(points.size()) + ")", points, palette_colour(colour),
                           LineStyle::kNone, marker_for(colour), true});
    ++index;
  }
  return {"accuracy", plot.title,
          "Each marker is one measured case; the diagonal is a perfect prediction, the shaded band is within ±" +
              format_fixed(band_fraction * 100, 0) + "%.",
          render_svg(plot)};
}

}  // namespace lcab::report
