// Progress of a long sweep on stderr: "[3/40] lcab_flash fwd causal S=32K ...: 1.234 ms, 456.7 TFLOP/s".
// On a terminal the line is rewritten in place; otherwise (logs, CI) every step is a plain line.
#pragma once

#include <ostream>
#include <string>

namespace lcab::measure {

class Progress {
 public:
  /// `total` steps; `interactive` chooses in-place updates (default: whether stderr is a terminal).
  explicit Progress(int total, std::ostream& out, bool interactive);
  explicit Progress(int total);
  ~Progress();
  /// Reports that step `index` (0-based) is running.
  void start(int index, const std::string& what);
  /// Reports the outcome of step `index`; always kept on screen.
  void finish(int index, const std::string& what, const std::string& outcome);
  /// A message between steps (skips, warnings), on its own line.
  void note(const std::string& message);

 private:
  std::string prefix(int index) const;
  void clear_line();
  int total_;
  std::ostream& out_;
  bool interactive_;
  bool line_open_ = false;
};

}  // namespace lcab::measure
