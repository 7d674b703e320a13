// Communication cost model (DESIGN.md section 6): latency + bytes / bandwidth per operation and link class,
// composed hierarchically for groups that span nodes. Parameters and their meaning: model/perf/profile.h.
//
// Ranks are laid out node by node: rank r lives on node r / gpus_per_node.
//   send/recv a -> b:   the link class of (a, b): intra-node when both share a node, else inter-node.
//   all-gather, reduce-scatter, all-reduce over n ranks (NCCL's ring): the op's formula with the parameters of
//     the slowest hop: intra-node when the group sits in one node, else inter-node (a ring that leaves a node
//     runs every step at the network's speed). Each ring step after the first adds one hop latency (the node's
//     link latency, or the network's when the group spans nodes).
//   all-to-all over n ranks, g of them on the busiest node: every rank sends chunk x (g - 1) over NVLink and
//     chunk x (n - g) through its NIC at the same time; the slower of the two decides:
//       time = max(lat_intra + chunk (g - 1) / bw_intra,  lat_inter + chunk (n - g) / bw_inter)
//     (peers are posted together, so latency does not grow with n).
// Every "latency + volume / bandwidth" above is the smaller of the entry's two protocol lines when it has a
// low-latency line (profile.h): line_us(params, volume, members). The Simple line's bus bandwidth grows with the
// group's size where the entry has small_group_us_per_byte (profile.h): members = n for the ring collectives, g
// (the ranks on the busiest node) for all-to-all's NVLink part, 2 for send/recv.
#pragma once

#include <cstdint>
#include <span>

#include "model/perf/profile.h"

namespace lcab::perf {

/// The time of moving `volume_bytes` (bus bytes, profile.h) under one collective entry in a group of `members`
/// ranks: latency + volume x the Simple line's time per byte at that size, or the smaller of that and the
/// low-latency protocol's line when the entry has one.
double line_us(const CollectiveParams& params, double volume_bytes, double members = 2);

/// Nodes x GPUs per node.
struct ClusterShape {
  int64_t gpus = 8;
  int64_t gpus_per_node = 8;
  int64_t nodes() const { return (gpus + gpus_per_node - 1) / gpus_per_node; }
  int64_t node_of(int64_t rank) const { return rank / gpus_per_node; }
};
/// Throws lcab::Error unless gpus > 0, gpus_per_node > 0 and gpus <= gpus_per_node or a multiple of it.
void validate_cluster(const ClusterShape& cluster);

/// How a group of ranks lies on the cluster.
struct GroupSpan {
  int64_t members = 0;
  int64_t nodes = 0;             ///< distinct nodes
  int64_t max_per_node = 0;      ///< members on the busiest node
  LinkClass link() const { return nodes > 1 ? LinkClass::kInterNode : LinkClass::kIntraNode; }
};

class CommCostModel {
 public:
  CommCostModel(const HardwareProfile& profile, ClusterShape cluster);

  const ClusterShape& cluster() const { return cluster_; }
  LinkClass link_between(int64_t a, int64_t b) const;
  GroupSpan span(std::span<const int> ranks) const;

  /// One message of `bytes` from rank a to rank b.
  double send_recv_us(int64_t a, int64_t b, int64_t bytes) const;
  /// A collective over `ranks` with CommOp::chunk_bytes semantics (all-gather: per member contribution;
  /// reduce-scatter: per member output; all-to-all: per sender-receiver pair; all-reduce: the buffer).
  double collective_us(CollectiveOp op, std::span<const int> ranks, int64_t chunk_bytes) const;
  /// The same from a precomputed span.
  double collective_us(CollectiveOp op, const GroupSpan& span, int64_t chunk_bytes) const;

 private:
  const CollectiveParams* params_[5][2];
  double hop_latency_us_[2];
  ClusterShape cluster_;
};

}  // namespace lcab::perf
