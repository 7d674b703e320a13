#include "model/perf/timeline.h"

#include <sstream>

#include <gtest/gtest.h>

namespace lcab::perf {
namespace {

TEST(PerfTimeline, ChromeTraceHasOneProcessPerRankAndOneThreadPerStream) {
  Timeline t;
  t.events.push_back({0, "compute", "step 0 attn", 0.0, 12.3456, {{"flops", 1e9}}});
  t.events.push_back({0, "send", "send kv -> 1", 1.0, 5.0, {}});
  t.events.push_back({1, "send", "send kv -> 0", 1.0, 5.0, {}});
  t.events.push_back({1, "compute", "step 0 attn", 0.5, 10.0, {}});
  EXPECT_DOUBLE_EQ(t.span_us(), 12.3456);
  std::ostringstream out;
  write_chrome_trace(t, out, {{"source", "predicted"}});
  const std::string text = out.str();
  EXPECT_NE(text.find("\"ts\":0.000,\"dur\":12.346"), std::string::npos) << text;  // three decimals
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["otherData"]["source"], "predicted");
  int processes = 0, threads = 0, complete = 0;
  for (const nlohmann::json& e : j["traceEvents"]) {
    if (e["name"] == "process_name") ++processes;
    if (e["name"] == "thread_name") ++threads;
    if (e["ph"] == "X") {
      ++complete;
      // the same stream has the same thread id on every rank
      if (e["cat"] == "send") {
        EXPECT_EQ(e["tid"], 1);
      }
      if (e["cat"] == "compute") {
        EXPECT_EQ(e["tid"], 0);
      }
    }
  }
  EXPECT_EQ(processes, 2);
  EXPECT_EQ(threads, 4);
  EXPECT_EQ(complete, 4);
}

}  // namespace
}  // namespace lcab::perf
