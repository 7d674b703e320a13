// The report's figures, built from a RecordSet:
//   - kernel throughput: TFLOP/s against sequence length, one figure per (pass, mask, shape), a colour per
//     implementation; measured points joined by solid lines, predictions as dashed lines;
//   - CP scaling: TFLOP/s per GPU against GPU count, one figure per (pass, mask, sequence length, shape), a
//     colour per method (the best configuration of a method at each GPU count), measured solid with markers,
//     predicted dashed (often reaching GPU counts nobody measured);
//   - accuracy: predicted against measured median time on log axes, y = x and a shaded error band.
// Colours are fixed per implementation or method across all figures of a report.
#pragma once

#include <string>
#include <vector>

#include "reports/record_set.h"

namespace lcab::report {

struct Figure {
  std::string id;       ///< file stem, unique within a report ("kernel-fwd-causal")
  std::string title;
  std::string caption;  ///< one sentence under the figure: what the marks mean, where the data came from
  std::string svg;      ///< a standalone <svg> element
};

std::vector<Figure> kernel_figures(const RecordSet& records);
std::vector<Figure> cp_figures(const RecordSet& records);
/// band_fraction in (0, 1): the shaded band is |error| <= band_fraction.
Figure accuracy_figure(const std::vector<Comparison>& comparisons, double band_fraction);

/// "hd128, 64/8 heads, bf16, batch 1": the parts of a key that fix a workload's shape.
std::string shape_label(const RecordKey& key);
/// A file-name-safe form of text: letters, digits and '-', lower case ("sliding_window:window=1024" ->
/// "sliding-window-window-1024").
std::string slug(const std::string& text);

}  // namespace lcab::report
