// What a report holds, independent of how it is written: sections of figures and tables, notes on where the
// numbers came from, and Chrome-trace timelines. html_report.h renders it; report_writer.h writes its files.
#pragma once

#include <string>
#include <vector>

#include "reports/figures.h"
#include "reports/report_tables.h"

namespace lcab::report {

struct ReportSection {
  std::string id;     ///< HTML anchor
  std::string title;
  std::string intro;  ///< one paragraph, plain text
  std::vector<Figure> figures;
  std::vector<NamedTable> tables;
};

/// A Chrome-trace JSON document (chrome://tracing, https://ui.perfetto.dev) written next to the report.
struct TraceFile {
  std::string id;       ///< file stem; the file is `id`.trace.json
  std::string title;
  std::string caption;
  std::string json;     ///< the whole document
};

struct ReportContent {
  std::string title;
  std::vector<std::string> notes;  ///< provenance: inputs, record counts, profile, generation time
  std::vector<ReportSection> sections;
  std::vector<TraceFile> traces;
};

}  // namespace lcab::report
