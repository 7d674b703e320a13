#include "model/perf/comm_cost.h"

#include <algorithm>
#include <unordered_map>

#include "model/error.h"

namespace lcab::perf {

void validate_cluster(const ClusterShape& c) {
  LCAB_CHECK(c.gpus > 0, "--gpus must be positive, got " << c.gpus);
  LCAB_CHECK(c.gpus_per_node > 0, "--gpus-per-node must be positive, got " << c.gpus_per_node);
  LCAB_CHECK(c.gpus <= c.gpus_per_node || c.gpus % c.gpus_per_node == 0,
             c.gpus << " GPUs do not fill whole nodes of " << c.gpus_per_node << "; valid: at most "
                    << c.gpus_per_node << " GPUs or a multiple of " << c.gpus_per_node);
}

CommCostModel::CommCostModel(const HardwareProfile& profile, ClusterShape cluster) : cluster_(cluster) {
  validate_cluster(cluster_);
  for (CollectiveOp op : kAllCollectiveOps)
    for (LinkClass link : {LinkClass::kIntraNode, LinkClass::kInterNode})
      params_[static_cast<int>(op)][static_cast<int>(link)] = &profile.collective(op, link);
  hop_latency_us_[0] = profile.node.intra_latency_us.value;
  hop_latency_us_[1] = profile.network.latency_us.value;
}

double line_us(const CollectiveParams& p, double volume_bytes, double members) {
  const double simple = p.latency_us.value + volume_bytes * p.simple_us_per_byte(std::max(members, 2.0));
  if (!p.has_low_latency_line()) return simple;
  return std::min(simple, p.ll_latency_us.value + volume_bytes / p.ll_bytes_per_s.value * 1e6);
}

LinkClass CommCostModel::link_between(int64_t a, int64_t b) const {
  return cluster_.node_of(a) == cluster_.node_of(b) ? LinkClass::kIntraNode : LinkClass::kInterNode;
}

GroupSpan CommCostModel::span(std::span<const int> ranks) const {
  GroupSpan s;
  s.members = static_cast<int64_t>(ranks.size());
  std::unordered_map<int64_t, int64_t> per_node;
  for (int r : ranks) ++per_node[cluster_.node_of(r)];
  s.nodes = static_cast<int64_t>(per_node.size());
  for (const auto& [node, count] : per_node) s.max_per_node = std::max(s.max_per_node, count);
  return s;
}

double CommCostModel::send_recv_us(int64_t a, int64_t b, int64_t bytes) const {
  const CollectiveParams& p = *params_[static_cast<int>(CollectiveOp::kSendRecv)][static_cast<int>(link_between(a, b))];
  return line_us(p, static_cast<double>(bytes));
}

double CommCostModel::collective_us(CollectiveOp op, std::span<const int> ranks, int64_t chunk_bytes) const {
  return collective_us(op, span(ranks), chunk_bytes);
}

double CommCostModel::collective_us(CollectiveOp op, const GroupSpan& s, int64_t chunk_bytes) const {
  LCAB_CHECK(s.members > 0, "a collective needs at least one member");
  if (s.members == 1) return 0;  // nothing leaves the GPU
  const double n = static_cast<double>(s.members);
  const double bytes = static_cast<double>(chunk_bytes);
  const int link = static_cast<int>(s.link());
  const CollectiveParams& p = *params_[static_cast<int>(op)][link];
  const double extra_steps_latency = (n - 2) * hop_latency_us_[link];
  switch (op) {
    case CollectiveOp::kSendRecv:
      return line_us(p, bytes);
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
      return line_us(p, bytes * (n - 1), n) + extra_steps_latency;
    case CollectiveOp::kAllReduce:
      return line_us(p, 2 * bytes * (n - 1) / n, n) + 2 * extra_steps_latency;
    case CollectiveOp::kAllToAll: {
      const CollectiveParams& intra = *params_[static_cast<int>(op)][0];
      const double g = static_cast<double>(s.max_per_node);
      double time = g > 1 ? line_us(intra, bytes * (g - 1), g) : 0;
      if (s.nodes > 1) time = std::max(time, line_us(p, bytes * (n - g), n));
      return time;
    }
  }
  LCAB_THROW("unknown collective op");
}

}  // namespace lcab::perf
