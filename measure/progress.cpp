#include "measure/progress.h"

#include <unistd.h>

#include <iostream>

namespace lcab::measure {

Progress::Progress(int total, std::ostream& out, bool interactive) : total_(total), out_(out), interactive_(interactive) {}

Progress::Progress(int total) : Progress(total, std::cerr, isatty(STDERR_FILENO) != 0) {}

Progress::~Progress() { clear_line(); }

std::string Progress::prefix(int index) const {
  return "[" + std::to_string(index + 1) + "/" + std::to_string(total_) + "] ";
}

void Progress::clear_line() {
  if (interactive_ && line_open_) out_ << "\r\033[K" << std::flush;
  line_open_ = false;
}

void Progress::start(int index, const std::string& what) {
  if (!interactive_) return;  // plain logs get one line per finished step
  clear_line();
  out_ << prefix(index) << what << " ..." << std::flush;
  line_open_ = true;
}

void Progress::finish(int index, const std::string& what, const std::string& outcome) {
  clear_line();
  out_ << prefix(index) << what << ": " << outcome << std::endl;
}

void Progress::note(const std::string& message) {
  clear_line();
  out_ << message << std::endl;
}

}  // namespace lcab::measure
