#include "model/perf/comm_overlap.h"

#include <algorithm>
#include <map>
#include <utility>

#include "model/error.h"

namespace lcab::perf {

CommOverlap comm_overlap(std::vector<TimeInterval> compute, std::vector<TimeInterval> transfers) {
  const std::vector<TimeInterval> busy = merge(std::move(compute));
  const std::vector<TimeInterval> comm = merge(std::move(transfers));
  CommOverlap split;
  split.compute = length(busy);
  split.comm = length(comm);
  split.exposed = minus_length(comm, busy);
  return split;
}

double hidden_fraction(std::span<const CommOverlap> ranks) {
  double comm = 0, exposed = 0;
  for (const CommOverlap& r : ranks) {
    comm += r.comm;
    exposed += r.exposed;
  }
  return comm > 0 ? 1.0 - exposed / comm : 1.0;
}

namespace {

// The latest start among every member's op of each (group, collective sequence number).
std::map<std::pair<int, int>, double> collective_arrivals(const cp::Schedule& s,
                                                          const std::vector<std::vector<TimeInterval>>& ops) {
  std::map<std::pair<int, int>, double> latest;
  for (int r = 0; r < s.gpus(); ++r)
    for (size_t k = 0; k < s.ranks[r].ops.size(); ++k) {
      const cp::Op& op = s.ranks[r].ops[k];
      if (!cp::is_communication(op.kind) || op.kind == cp::OpKind::kSend || op.kind == cp::OpKind::kRecv) continue;
      const cp::CommOp& c = s.ranks[r].comms[op.index];
      auto [it, fresh] = latest.emplace(std::make_pair(c.group, c.collective_seq), ops[r][k].begin);
      if (!fresh) it->second = std::max(it->second, ops[r][k].begin);
    }
  return latest;
}

}  // namespace

std::vector<TimeInterval> transfer_intervals(const cp::Schedule& s, const std::vector<std::vector<TimeInterval>>& ops,
                                             int rank) {
  LCAB_CHECK(static_cast<int>(ops.size()) == s.gpus(), "op intervals for " << ops.size() << " ranks, schedule has "
                                                                           << s.gpus());
  for (int r = 0; r < s.gpus(); ++r)
    LCAB_CHECK(ops[r].size() == s.ranks[r].ops.size(), "rank " << r << ": " << ops[r].size()
                                                               << " op intervals for " << s.ranks[r].ops.size()
                                                               << " ops");
  const cp::RankSchedule& mine = s.ranks.at(rank);
  std::map<std::pair<int, int>, double> arrivals;
  bool arrivals_known = false;
  std::vector<TimeInterval> transfers;
  for (size_t k = 0; k < mine.ops.size(); ++k) {
    const cp::Op& op = mine.ops[k];
    if (!cp::is_communication(op.kind)) continue;
    const cp::CommOp& c = mine.comms[op.index];
    double start = ops[rank][k].begin;
    if (op.kind == cp::OpKind::kSend || op.kind == cp::OpKind::kRecv) {
      start = std::max(start, ops.at(c.peer).at(c.peer_op).begin);
    } else {
      if (!arrivals_known) arrivals = collective_arrivals(s, ops);
      arrivals_known = true;
      start = std::max(start, arrivals.at({c.group, c.collective_seq}));
    }
    transfers.push_back({std::min(start, ops[rank][k].end), ops[rank][k].end});
  }
  return transfers;
}

}  // namespace lcab::perf
