#include "model/perf/comm_cost.h"

#include <numeric>

#include <gtest/gtest.h>

#include "model/error.h"
#include "tests/model/perf_test_profiles.h"

namespace lcab::perf {
namespace {

// simple_profile: intra 10 us + bytes / 100 GB/s, inter 20 us + bytes / 10 GB/s; hop latency 1 us (NVLink),
// 2 us (network).
const CommCostModel& two_nodes() {
  static const HardwareProfile profile = testing::simple_profile();
  static const CommCostModel model(profile, {16, 8});
  return model;
}

std::vector<int> ranks(int first, int count, int stride = 1) {
  std::vector<int> r;
  for (int n = 0; n < count; ++n) r.push_back(first + n * stride);
  return r;
}

TEST(PerfCommCost, SendRecvUsesTheLinkBetweenTheTwoRanks) {
  EXPECT_DOUBLE_EQ(two_nodes().send_recv_us(0, 1, 1000000), 10 + 10);
  EXPECT_DOUBLE_EQ(two_nodes().send_recv_us(7, 8, 1000000), 20 + 100);
  EXPECT_EQ(two_nodes().link_between(3, 4), LinkClass::kIntraNode);
  EXPECT_EQ(two_nodes().link_between(3, 12), LinkClass::kInterNode);
}

TEST(PerfCommCost, LowLatencyProtocolLineWinsForSmallMessages) {
  // Simple: 10 us + B / 100 GB/s; low-latency: 4 us + B / 25 GB/s. They cross at B = 6 us x 100e9 / 3 = 200 kB.
  HardwareProfile profile = testing::simple_profile();
  for (CollectiveParams& c : profile.collectives) {
    c.ll_latency_us = {4, "test"};
    c.ll_bytes_per_s = {25e9, "test"};
  }
  const CommCostModel model(profile, {8, 8});
  EXPECT_DOUBLE_EQ(model.send_recv_us(0, 1, 100000), 4 + 4);      // low-latency line: 8 < 11
  EXPECT_DOUBLE_EQ(model.send_recv_us(0, 1, 1000000), 10 + 10);   // Simple line: 20 < 44
  EXPECT_DOUBLE_EQ(line_us(profile.collectives[0], 200000), 12);  // both lines at the crossing
  // All-gather over 4 ranks moves 3 chunks: 3 x 50 kB = 150 kB on the low-latency line, plus 2 hop latencies.
  EXPECT_DOUBLE_EQ(model.collective_us(CollectiveOp::kAllGather, ranks(0, 4), 50000), 4 + 6 + 2 * 1);
  // Without the low-latency line only the Simple line exists.
  EXPECT_DOUBLE_EQ(two_nodes().send_recv_us(0, 1, 100000), 10 + 1);
}

TEST(PerfCommCost, AllGatherAndReduceScatterRingVolumes) {
  // 4 ranks in a node, 1 MB each: (n - 1) chunks at bus bandwidth, plus one hop latency per further step.
  EXPECT_DOUBLE_EQ(two_nodes().collective_us(CollectiveOp::kAllGather, ranks(0, 4), 1000000), 10 + 2 * 1 + 3 * 10);
  EXPECT_DOUBLE_EQ(two_nodes().collective_us(CollectiveOp::kReduceScatter, ranks(0, 4), 1000000),
                   10 + 2 * 1 + 3 * 10);
  // A ring that leaves the node runs every step at network speed.
  EXPECT_DOUBLE_EQ(two_nodes().collective_us(CollectiveOp::kAllGather, ranks(0, 2, 8), 1000000), 20 + 100);
  EXPECT_DOUBLE_EQ(two_nodes().collective_us(CollectiveOp::kAllGather, ranks(6, 4), 1000000),
                   20 + 2 * 2 + 3 * 100);
  // all-reduce: 2 (n - 1) / n of the buffer, two passes of hop latencies.
  EXPECT_DOUBLE_EQ(two_nodes().collective_us(CollectiveOp::kAllReduce, ranks(0, 4), 1000000), 10 + 4 + 15);
}

TEST(PerfCommCost, BusBandwidthGrowsWithTheGroupWhereTheEntrySaysSo) {
  // The Simple line's time per bus byte: 1 / 100 GB/s + 10 us per MB x 2 / n, i.e. 20 us per MB at 2 ranks,
  // 15 at 4, 12.5 at 8, approaching 10 (the entry's bytes_per_s) for large groups.
  HardwareProfile profile = testing::simple_profile();
  for (CollectiveParams& c : profile.collectives) c.small_group_us_per_byte = {1e-5, "test"};
  const CommCostModel model(profile, {16, 8});
  EXPECT_DOUBLE_EQ(model.collective_us(CollectiveOp::kAllGather, ranks(0, 2), 1000000), 10 + 20);
  EXPECT_DOUBLE_EQ(model.collective_us(CollectiveOp::kReduceScatter, ranks(0, 4), 1000000), 10 + 2 * 1 + 3 * 15);
  EXPECT_DOUBLE_EQ(model.collective_us(CollectiveOp::kAllReduce, ranks(0, 4), 1000000), 10 + 4 + 1.5 * 15);
  EXPECT_DOUBLE_EQ(model.collective_us(CollectiveOp::kAllToAll, ranks(0, 8), 1000000), 10 + 7 * 12.5);
  EXPECT_DOUBLE_EQ(model.send_recv_us(0, 1, 1000000), 10 + 20);  // a pair: the whole term
  // The low-latency line does not depend on the group: 4 us + B / 25 GB/s wins at 100 kB (8 < 10 + 2).
  profile.collectives[0].ll_latency_us = {4, "test"};
  profile.collectives[0].ll_bytes_per_s = {25e9, "test"};
  EXPECT_DOUBLE_EQ(line_us(profile.collectives[0], 100000, 2), 8);
  EXPECT_DOUBLE_EQ(line_us(profile.collectives[0], 100000, 64), 8);
  // Bus bandwidth (bus bytes / Simple time) grows with n and stays below bytes_per_s: 8..1024 GPUs extrapolate
  // to at most the large-group limit.
  const CollectiveParams& ag = profile.collective(CollectiveOp::kAllGather, LinkClass::kIntraNode);
  double previous = 0;
  for (double n : {2.0, 4.0, 8.0, 64.0, 1024.0}) {
    const double bus = 1e8 / (line_us(ag, 1e8, n) - ag.latency_us.value) * 1e6;
    EXPECT_GT(bus, previous) << n;
    EXPECT_LT(bus, ag.bytes_per_s.value) << n;
    previous = bus;
  }
  EXPECT_NEAR(previous, 100e9 / (1 + 2.0 / 1024), 1e3);
}

TEST(PerfCommCost, AllToAllIsBoundedByTheNicAcrossNodes) {
  // 8 ranks in one node: 7 chunks over NVLink.
  EXPECT_DOUBLE_EQ(two_nodes().collective_us(CollectiveOp::kAllToAll, ranks(0, 8), 1000000), 10 + 7 * 10);
  // 16 ranks on two nodes: 7 chunks over NVLink and 8 through the NIC at once; the NIC decides.
  EXPECT_DOUBLE_EQ(two_nodes().collective_us(CollectiveOp::kAllToAll, ranks(0, 16), 1000000), 20 + 8 * 100);
  // Strided: 2 ranks per node on 2 nodes (4 members): 1 chunk over NVLink, 2 through the NIC.
  const GroupSpan s = two_nodes().span(std::vector<int>{0, 1, 8, 9});
  EXPECT_EQ(s.nodes, 2);
  EXPECT_EQ(s.max_per_node, 2);
  EXPECT_DOUBLE_EQ(two_nodes().collective_us(CollectiveOp::kAllToAll, s, 1000000), 20 + 2 * 100);
}

TEST(PerfCommCost, OneMemberMovesNothing) {
  EXPECT_DOUBLE_EQ(two_nodes().collective_us(CollectiveOp::kAllGather, ranks(3, 1), 1 << 20), 0.0);
}

TEST(PerfCommCost, MoreBandwidthIsNeverSlower) {
  HardwareProfile fast = testing::simple_profile();
  for (CollectiveParams& c : fast.collectives) c.bytes_per_s.value *= 2;
  const CommCostModel quick(fast, {16, 8});
  for (CollectiveOp op : kAllCollectiveOps) {
    for (int count : {2, 4, 8, 16}) {
      const std::vector<int> g = ranks(0, count);
      EXPECT_LE(quick.collective_us(op, g, 1 << 20), two_nodes().collective_us(op, g, 1 << 20));
    }
  }
}

TEST(PerfCommCost, ClusterMustFillWholeNodes) {
  try {
    validate_cluster({12, 8});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 8"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(validate_cluster({4, 8}));
  EXPECT_NO_THROW(validate_cluster({1024, 8}));
}

}  // namespace
}  // namespace lcab::perf
