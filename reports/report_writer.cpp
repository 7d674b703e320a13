#include "reports/report_writer.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/error.h"
#include "reports/html_report.h"

namespace lcab::report {
namespace {

void write_text(const std::filesystem::path& path, const std::string& text, std::vector<std::string>& written) {
  std::ofstream out(path, std::ios::binary);
  LCAB_CHECK(out.good(), "cannot write '" << path.string() << "'");
  out << text;
  out.close();
  LCAB_CHECK(out.good(), "writing '" << path.string() << "' failed");
  written.push_back(path.string());
}

}  // namespace

std::vector<std::string> write_report(const ReportContent& report, const std::string& directory) {
  const std::filesystem::path dir(directory);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  LCAB_CHECK(!ec, "cannot create report directory '" << directory << "': " << ec.message());
  std::vector<std::string> written;
  write_text(dir / "index.html", render_html(report), written);
  for (const ReportSection& section : report.sections) {
    for (const Figure& f : section.figures) {
      write_text(dir / (f.id + ".svg"), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + f.svg, written);
    }
    for (const NamedTable& t : section.tables) {
      std::ostringstream md, csv;
      md << "# " << t.title << "\n\n";
      if (!t.caption.empty()) md << t.caption << "\n\n";
      t.table.print_markdown(md);
      t.table.print_csv(csv);
      write_text(dir / (t.id + ".md"), md.str(), written);
      write_text(dir / (t.id + ".csv"), csv.str(), written);
    }
  }
  for (const TraceFile& t : report.traces) write_text(dir / (t.id + ".trace.json"), t.json, written);
  return written;
}

}  // namespace lcab::report
