#include "model/perf/timeline.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "model/error.h"

namespace lcab::perf {
namespace {
std::string micros(double us) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.3f", us);
  return text;
}
}  // namespace

double Timeline::span_us() const {
  double end = 0;
  for (const TimelineEvent& e : events) end = std::max(end, e.end_us());
  return end;
}

void write_chrome_trace(const Timeline& timeline, std::ostream& out, const nlohmann::json& metadata) {
  std::map<std::string, int> stream_ids;
  std::vector<std::string> stream_order;
  std::set<int> ranks;
  for (const TimelineEvent& e : timeline.events) {
    if (stream_ids.emplace(e.stream, static_cast<int>(stream_order.size())).second) stream_order.push_back(e.stream);
    ranks.insert(e.rank);
  }
  out << "{\"traceEvents\":[\n";
  bool first = true;
  auto begin_event = [&]() {
    if (!first) out << ",\n";
    first = false;
  };
  for (int rank : ranks) {
    begin_event();
    out << R"({"name":"process_name","ph":"M","pid":)" << rank << R"(,"tid":0,"args":{"name":"rank )" << rank
        << "\"}}";
    begin_event();
    out << R"({"name":"process_sort_index","ph":"M","pid":)" << rank << R"(,"tid":0,"args":{"sort_index":)" << rank
        << "}}";
    for (size_t t = 0; t < stream_order.size(); ++t) {
      begin_event();
      out << R"({"name":"thread_name","ph":"M","pid":)" << rank << ",\"tid\":" << t
          << R"(,"args":{"name":)" << nlohmann::json(stream_order[t]).dump() << "}}";
    }
  }
  for (const TimelineEvent& e : timeline.events) {
    begin_event();
    out << "{\"name\":" << nlohmann::json(e.name).dump() << R"(,"cat":)" << nlohmann::json(e.stream).dump()
        << R"(,"ph":"X","pid":)" << e.rank << ",\"tid\":" << stream_ids[e.stream] << ",\"ts\":" << micros(e.start_us)
        << ",\"dur\":" << micros(e.duration_us);
    if (!e.args.empty()) out << ",\"args\":" << e.args.dump();
    out << "}";
  }
  out << "\n],\"displayTimeUnit\":\"ms\",\"otherData\":" << metadata.dump() << "}\n";
}

void write_chrome_trace_file(const Timeline& timeline, const std::string& path, const nlohmann::json& metadata) {
  std::ofstream out(path);
  LCAB_CHECK(out.good(), "cannot write trace '" << path << "'");
  write_chrome_trace(timeline, out, metadata);
  LCAB_CHECK(out.good(), "writing trace '" << path << "' failed");
}

}  // namespace lcab::perf
