// lcab-report: HTML+SVG figures, markdown/CSV tables and Chrome-trace timelines from records (and the model).
#include <exception>
#include <iostream>

#include <boost/program_options/errors.hpp>

#include "apps/lcab_report/report_command.h"
#include "model/error.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return lcab::report_app::run_report(args);
  } catch (const lcab::Error& e) {
    std::cerr << "lcab-report: error: " << e.what() << "\n";
  } catch (const boost::program_options::error& e) {
    std::cerr << "lcab-report: error: " << e.what() << "; see lcab-report --help\n";
  } catch (const std::exception& e) {
    std::cerr << "lcab-report: error: " << e.what() << "\n";
  }
  return 1;
}
