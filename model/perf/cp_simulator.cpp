#include "model/perf/cp_simulator.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <string>

#include "model/error.h"
#include "model/perf/full_slice_tiles.h"

namespace lcab::perf {
namespace {

using cp::OpKind;

constexpr double kUnknown = -1.0;

// The durations of every op, independent of timing (compute without overlap slowdown).
struct OpCosts {
  std::vector<std::vector<double>> duration_us;  // [rank][op]
  std::vector<std::vector<double>> attention_flops;
};

OpCosts op_costs(const cp::Schedule& schedule, const CpCostModels& m) {
  OpCosts c;
  FullSliceTiler tiler;
  const int ranks = schedule.gpus();
  c.duration_us.resize(ranks);
  c.attention_flops.resize(ranks);
  std::vector<GroupSpan> spans;
  for (const cp::Group& g : schedule.groups) spans.push_back(m.comm->span(g.ranks));
  for (int r = 0; r < ranks; ++r) {
    const cp::RankSchedule& rs = schedule.ranks[r];
    std::vector<double>& d = c.duration_us[r];
    d.resize(rs.ops.size());
    c.attention_flops[r].assign(rs.ops.size(), 0);
    for (size_t k = 0; k < rs.ops.size(); ++k) {
      const cp::Op& op = rs.ops[k];
      switch (op.kind) {
        case OpKind::kCompute: {
          const cp::ComputeItem& item = rs.items[op.index];
          const KernelCost cost =
              m.item_kernel_costs
                  ? (*m.item_kernel_costs).at(static_cast<size_t>(r)).at(static_cast<size_t>(op.index))
                  : item_kernel_cost(*m.kernel, item, item_shape(item, schedule.config.workload), tiler);
          d[k] = compute_op_us(cost.time_us, item, schedule.pass, schedule.config.workload, m.hbm_bytes_per_s);
          c.attention_flops[r][k] = cost.flops;
          break;
        }
        case OpKind::kZero:
        case OpKind::kAdd: d[k] = memory_op_us(m, op.kind, rs.memory_ops[op.index].bytes); break;
        case OpKind::kSend:
        case OpKind::kRecv: {
          const cp::CommOp& comm = rs.comms[op.index];
          d[k] = m.comm->send_recv_us(r, comm.peer, comm.chunk_bytes);
          break;
        }
        default: {
          const cp::CommOp& comm = rs.comms[op.index];
          LCAB_CHECK(comm.group >= 0 && comm.group < static_cast<int>(spans.size()),
                     "rank " << r << " op " << k << ": collective names group " << comm.group << " of "
                             << spans.size());
          d[k] = collective_op_us(m, schedule, op.kind, spans[comm.group], comm);
        }
      }
    }
  }
  return c;
}

// The dependency graph of a schedule, flattened over ranks (op k of rank r is node offset[r] + k): each node's
// predecessors are the previous op of its stream and its deps; successors are stored as CSR for release.
struct OpGraph {
  std::vector<int64_t> offset;        // [rank] -> first node
  std::vector<int32_t> rank_of;       // [node]
  std::vector<int32_t> predecessors;  // [node] count
  std::vector<int64_t> succ_begin;    // [node + 1]
  std::vector<int64_t> succ;          // node ids
  std::vector<int64_t> partner;       // send/recv: the peer's node; else -1
  int64_t nodes() const { return static_cast<int64_t>(rank_of.size()); }
};

OpGraph build_graph(const cp::Schedule& s) {
  OpGraph g;
  const int ranks = s.gpus();
  g.offset.resize(ranks + 1, 0);
  for (int r = 0; r < ranks; ++r) g.offset[r + 1] = g.offset[r] + static_cast<int64_t>(s.ranks[r].ops.size());
  const int64_t n = g.offset[ranks];
  g.rank_of.resize(n);
  g.predecessors.assign(n, 0);
  g.partner.assign(n, -1);
  std::vector<int64_t> succ_count(n, 0);
  std::vector<std::pair<int64_t, int64_t>> edges;  // (from, to)
  edges.reserve(static_cast<size_t>(n) * 2);
  for (int r = 0; r < ranks; ++r) {
    const cp::RankSchedule& rs = s.ranks[r];
    std::array<int64_t, cp::kNumStreams> last;
    last.fill(-1);
    for (size_t k = 0; k < rs.ops.size(); ++k) {
      const int64_t node = g.offset[r] + static_cast<int64_t>(k);
      g.rank_of[node] = r;
      const cp::Op& op = rs.ops[k];
      int64_t& prev = last[static_cast<int>(op.stream)];
      if (prev >= 0) edges.push_back({prev, node});
      prev = node;
      for (int32_t dep : rs.deps(static_cast<int>(k))) {
        LCAB_CHECK(dep >= 0 && dep < static_cast<int32_t>(k),
                   "rank " << r << " op " << k << ": dependency " << dep << " must name an earlier op");
        edges.push_back({g.offset[r] + dep, node});
      }
      if (op.kind == OpKind::kSend || op.kind == OpKind::kRecv) {
        const cp::CommOp& comm = rs.comms[op.index];
        LCAB_CHECK(comm.peer >= 0 && comm.peer < ranks && comm.peer_op >= 0 &&
                       comm.peer_op < static_cast<int>(s.ranks[comm.peer].ops.size()),
                   "rank " << r << " op " << k << ": send/recv names peer " << comm.peer << " op " << comm.peer_op);
        g.partner[node] = g.offset[comm.peer] + comm.peer_op;
      }
    }
  }
  for (const auto& [from, to] : edges) {
    ++succ_count[from];
    ++g.predecessors[to];
  }
  g.succ_begin.assign(n + 1, 0);
  for (int64_t v = 0; v < n; ++v) g.succ_begin[v + 1] = g.succ_begin[v] + succ_count[v];
  g.succ.resize(edges.size());
  std::vector<int64_t> fill(g.succ_begin.begin(), g.succ_begin.end() - 1);
  for (const auto& [from, to] : edges) g.succ[fill[from]++] = to;
  return g;
}

// One play of the schedule with given op durations: event-driven over the dependency graph, O(ops + deps).
class Player {
 public:
  Player(const cp::Schedule& s, const OpGraph& g, const std::vector<std::vector<double>>& durations)
      : s_(s), g_(g), dur_(durations) {}

  std::vector<std::vector<OpTiming>> play() {
    const int64_t n = g_.nodes();
    remaining_ = g_.predecessors;
    issue_.assign(n, 0.0);
    start_.assign(n, kUnknown);
    end_.assign(n, kUnknown);
    issued_.assign(n, 0);
    last_arrival_.assign(n, {-1, -1});
    pending_.assign(s_.groups.size(), {});
    std::vector<int64_t> ready;
    for (int64_t v = 0; v < n; ++v)
      if (remaining_[v] == 0) ready.push_back(v);
    while (!ready.empty()) {
      const int64_t v = ready.back();
      ready.pop_back();
      issue(v, ready);
    }
    std::vector<std::vector<OpTiming>> timing(s_.gpus());
    for (int r = 0; r < s_.gpus(); ++r) {
      timing[r].resize(s_.ranks[r].ops.size());
      for (size_t k = 0; k < timing[r].size(); ++k) {
        const int64_t v = g_.offset[r] + static_cast<int64_t>(k);
        if (end_[v] == kUnknown) {
          const cp::Op& op = s_.ranks[r].ops[k];
          LCAB_THROW("the schedule cannot finish: rank " << r << " op " << k << " (" << cp::to_string(op.kind)
                                                          << " on stream " << cp::to_string(op.stream) << ", step "
                                                          << op.step << ") waits forever for its "
                                                          << (issued_[v] ? "communication partner" : "dependencies"));
        }
        timing[r][k] = {issue_[v], start_[v], end_[v]};
      }
    }
    return timing;
  }
  /// For each op: the op (rank, index) whose arrival started its transfer (communication only).
  std::vector<std::vector<PathOp>> last_arrivals() const {
    std::vector<std::vector<PathOp>> out(s_.gpus());
    for (int r = 0; r < s_.gpus(); ++r)
      out[r].assign(last_arrival_.begin() + g_.offset[r], last_arrival_.begin() + g_.offset[r + 1]);
    return out;
  }

 private:
  struct Pending {
    int arrived = 0;
    double start_us = 0;
    double duration_us = 0;
    PathOp last{-1, -1};
    std::vector<int64_t> members;
  };

  PathOp path_op(int64_t v) const {
    const int r = g_.rank_of[v];
    return {r, static_cast<int>(v - g_.offset[r])};
  }
  double duration(int64_t v) const {
    const int r = g_.rank_of[v];
    return dur_[r][static_cast<size_t>(v - g_.offset[r])];
  }

  void finish(int64_t v, double start, double end, std::vector<int64_t>& ready) {
    start_[v] = start;
    end_[v] = end;
    for (int64_t e = g_.succ_begin[v]; e < g_.succ_begin[v + 1]; ++e) {
      const int64_t w = g_.succ[e];
      issue_[w] = std::max(issue_[w], end);
      if (--remaining_[w] == 0) ready.push_back(w);
    }
  }

  void issue(int64_t v, std::vector<int64_t>& ready) {
    issued_[v] = 1;
    const double at = issue_[v];
    const PathOp me = path_op(v);
    const cp::RankSchedule& rs = s_.ranks[me.rank];
    const cp::Op& op = rs.ops[me.op];
    if (!cp::is_communication(op.kind)) {
      finish(v, at, at + duration(v), ready);
      return;
    }
    if (op.kind == OpKind::kSend || op.kind == OpKind::kRecv) {
      const int64_t w = g_.partner[v];
      if (!issued_[w]) return;
      const double start = std::max(at, issue_[w]);
      const double end = start + std::max(duration(v), duration(w));
      const PathOp later = at >= issue_[w] ? me : path_op(w);
      last_arrival_[v] = later;
      last_arrival_[w] = later;
      finish(v, start, end, ready);
      finish(w, start, end, ready);
      return;
    }
    const cp::CommOp& comm = rs.comms[op.index];
    LCAB_CHECK(comm.group >= 0 && comm.group < static_cast<int>(s_.groups.size()) && comm.collective_seq >= 0,
               "rank " << me.rank << " op " << me.op << ": collective names group " << comm.group << " seq "
                       << comm.collective_seq);
    std::vector<Pending>& by_seq = pending_[comm.group];
    if (static_cast<int>(by_seq.size()) <= comm.collective_seq) by_seq.resize(comm.collective_seq + 1);
    Pending& p = by_seq[comm.collective_seq];
    if (p.arrived == 0 || at >= p.start_us) {
      p.start_us = std::max(p.start_us, at);
      p.last = me;
    }
    p.duration_us = std::max(p.duration_us, duration(v));
    p.members.push_back(v);
    if (++p.arrived < static_cast<int>(s_.groups[comm.group].ranks.size())) return;
    for (int64_t m : p.members) {
      last_arrival_[m] = p.last;
      finish(m, p.start_us, p.start_us + p.duration_us, ready);
    }
    std::vector<int64_t>().swap(p.members);
  }

  const cp::Schedule& s_;
  const OpGraph& g_;
  const std::vector<std::vector<double>>& dur_;
  std::vector<int32_t> remaining_;
  std::vector<double> issue_, start_, end_;
  std::vector<uint8_t> issued_;
  std::vector<PathOp> last_arrival_;
  std::vector<std::vector<Pending>> pending_;  // [group][collective_seq]
};

std::vector<std::vector<TimeInterval>> comm_unions(const cp::Schedule& s, const std::vector<std::vector<OpTiming>>& t) {
  std::vector<std::vector<TimeInterval>> out(s.gpus());
  for (int r = 0; r < s.gpus(); ++r) {
    std::vector<TimeInterval> v;
    for (size_t k = 0; k < t[r].size(); ++k)
      if (cp::is_communication(s.ranks[r].ops[k].kind)) v.push_back({t[r][k].start_us, t[r][k].end_us});
    out[r] = merge(std::move(v));
  }
  return out;
}

// Walks back from the last op to finish, each time to the op whose end decided this op's start.
std::vector<PathOp> critical_path(const cp::Schedule& s, const std::vector<std::vector<OpTiming>>& t,
                                  const std::vector<std::vector<PathOp>>& last_arrival, int last_rank, int last_op) {
  std::vector<PathOp> path;
  PathOp at{last_rank, last_op};
  const size_t limit = [&] {
    size_t n = 0;
    for (const auto& r : t) n += r.size();
    return n + 1;
  }();
  while (at.rank >= 0 && path.size() < limit) {
    path.push_back(at);
    const cp::RankSchedule& rs = s.ranks[at.rank];
    const cp::Op& op = rs.ops[at.op];
    PathOp from = at;
    if (cp::is_communication(op.kind) && last_arrival[at.rank][at.op].rank >= 0)
      from = last_arrival[at.rank][at.op];  // the party that arrived last started the transfer
    const cp::RankSchedule& fs = s.ranks[from.rank];
    const double issue = t[from.rank][from.op].issue_us;
    PathOp next{-1, -1};
    if (from.rank != at.rank || from.op != at.op) {
      path.push_back(from);
    }
    // the predecessor on the same stream, or a dependency, whose end equals the issue time
    const cp::Stream stream = fs.ops[from.op].stream;
    for (int k = from.op - 1; k >= 0; --k) {
      if (fs.ops[k].stream == stream) {
        if (t[from.rank][k].end_us == issue && issue > 0) next = {from.rank, k};
        break;
      }
    }
    for (int32_t dep : fs.deps(from.op))
      if (next.rank < 0 && t[from.rank][dep].end_us == issue && issue > 0) next = {from.rank, dep};
    at = next;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

KernelCost item_kernel_cost(const KernelCostModel& model, const cp::ComputeItem& item, const AttentionShape& shape,
                            FullSliceTiler& tiler) {
  std::optional<KernelCost> counted = tiler.cost(model, item.slices, item.q_rows.length(), item.k_rows.length(), shape);
  if (counted) return std::move(*counted);
  return model.cached_cost(item.slices, item.q_rows.length(), item.k_rows.length(), shape);
}

double CpSimulation::compute_max_us() const {
  double m = 0;
  for (const RankSummary& r : ranks) m = std::max(m, r.compute_us);
  return m;
}
double CpSimulation::compute_mean_us() const {
  double total = 0;
  for (const RankSummary& r : ranks) total += r.compute_us;
  return ranks.empty() ? 0 : total / static_cast<double>(ranks.size());
}
double CpSimulation::imbalance() const {
  const double mean = compute_mean_us();
  return mean > 0 ? compute_max_us() / mean : 1.0;
}
int64_t CpSimulation::peak_mem_bytes() const {
  int64_t m = 0;
  for (const RankSummary& r : ranks) m = std::max(m, r.peak_mem_bytes);
  return m;
}
double CpSimulation::comm_hidden_fraction() const {
  std::vector<CommOverlap> per_rank;
  for (const RankSummary& r : ranks) per_rank.push_back({r.compute_us, r.comm_us, r.exposed_comm_us});
  return hidden_fraction(per_rank);
}
double CpSimulation::flops() const {
  double total = 0;
  for (const RankSummary& r : ranks) total += r.flops;
  return total;
}

CpSimulation simulate(const cp::Schedule& schedule, const CpCostModels& models, SimulationOptions options) {
  LCAB_CHECK(models.kernel && models.comm, "simulate needs a kernel and a communication cost model");
  const cp::Pass want = models.kernel->pass() == KernelPass::kBackward ? cp::Pass::kBackward : cp::Pass::kForward;
  LCAB_CHECK(schedule.pass == want, "the kernel model is for the " << models.kernel->params().pass
                                                                  << " pass but the schedule is "
                                                                  << cp::to_string(schedule.pass));
  LCAB_CHECK(models.comm->cluster().gpus >= schedule.gpus(),
             "the schedule has " << schedule.gpus() << " ranks but the cluster " << models.comm->cluster().gpus);
  const OpCosts costs = op_costs(schedule, models);
  const int ranks = schedule.gpus();

  const OpGraph graph = build_graph(schedule);
  Player first(schedule, graph, costs.duration_us);
  std::vector<std::vector<OpTiming>> timing = first.play();
  std::vector<std::vector<PathOp>> last_arrival = first.last_arrivals();
  if (models.overlap_slowdown > 1.0) {
    const std::vector<std::vector<TimeInterval>> comm = comm_unions(schedule, timing);
    std::vector<std::vector<double>> slowed = costs.duration_us;
    for (int r = 0; r < ranks; ++r) {
      for (size_t k = 0; k < slowed[r].size(); ++k) {
        if (schedule.ranks[r].ops[k].kind != OpKind::kCompute) continue;
        const double overlap = covered(comm[r], timing[r][k].start_us, timing[r][k].end_us);
        slowed[r][k] += (models.overlap_slowdown - 1.0) * overlap;
      }
    }
    Player second(schedule, graph, slowed);
    timing = second.play();
    last_arrival = second.last_arrivals();
  }

  CpSimulation sim;
  sim.ranks.resize(ranks);
  sim.steps.resize(ranks);
  int64_t buffers = schedule.peak_buffer_bytes();
  int last_op = -1;
  for (int r = 0; r < ranks; ++r) {
    const cp::RankSchedule& rs = schedule.ranks[r];
    RankSummary& sum = sim.ranks[r];
    std::vector<TimeInterval> compute, transfers;
    int64_t workspace = 0;
    sim.steps[r].resize(std::max(schedule.num_steps, 1));
    for (size_t k = 0; k < rs.ops.size(); ++k) {
      const OpTiming& t = timing[r][k];
      const cp::Op& op = rs.ops[k];
      sum.end_us = std::max(sum.end_us, t.end_us);
      if (t.end_us >= sim.time_us) {
        sim.time_us = t.end_us;
        sim.slowest_rank = r;
        last_op = static_cast<int>(k);
      }
      if (cp::is_communication(op.kind)) transfers.push_back({t.start_us, t.end_us});
      if (!cp::is_communication(op.kind)) {
        compute.push_back({t.start_us, t.end_us});
        if (op.kind == OpKind::kCompute) {
          sum.attention_us += t.end_us - t.start_us;
          sum.flops += costs.attention_flops[r][k];
          const cp::ComputeItem& item = rs.items[op.index];
          workspace = std::max(workspace, attention_workspace_bytes(item_shape(item, schedule.config.workload),
                                                                    item.q_rows.length(), item.k_rows.length(),
                                                                    models.kernel->pass()));
        }
      }
      if (op.step >= 0 && op.step < static_cast<int>(sim.steps[r].size())) {
        StepTiming& st = sim.steps[r][op.step];
        st.start_us = st.present ? std::min(st.start_us, t.start_us) : t.start_us;
        st.end_us = st.present ? std::max(st.end_us, t.end_us) : t.end_us;
        st.present = true;
      }
    }
    const CommOverlap overlap = comm_overlap(std::move(compute), std::move(transfers));
    sum.compute_us = overlap.compute;
    sum.comm_us = overlap.comm;
    sum.exposed_comm_us = overlap.exposed;
    sum.peak_mem_bytes = buffers + workspace;
  }
  if (options.critical_path && last_op >= 0) {
    sim.critical_path = critical_path(schedule, timing, last_arrival, sim.slowest_rank, last_op);
    for (const PathOp& p : sim.critical_path) {
      const OpTiming& t = timing[p.rank][p.op];
      const double d = t.end_us - t.start_us;
      if (cp::is_communication(schedule.ranks[p.rank].ops[p.op].kind)) sim.critical_comm_us += d;
      else sim.critical_compute_us += d;
    }
  }
  if (options.keep_timings) sim.ops = std::move(timing);
  else sim.steps.clear();
  return sim;
}

PassBound bound(const cp::Schedule& schedule, const CpCostModels& models) {
  LCAB_CHECK(models.kernel && models.comm, "bound needs a kernel and a communication cost model");
  const OpCosts costs = op_costs(schedule, models);
  PassBound b;
  const double least_speed = std::min(1.0, models.overlap_slowdown);
  for (int r = 0; r < schedule.gpus(); ++r) {
    const cp::RankSchedule& rs = schedule.ranks[r];
    std::array<double, cp::kNumStreams> busy_us{};  // streams run their ops one at a time
    int64_t workspace = 0;
    for (size_t k = 0; k < rs.ops.size(); ++k) {
      const cp::Op& op = rs.ops[k];
      const double d = costs.duration_us[r][k];
      busy_us[static_cast<int>(op.stream)] += op.kind == OpKind::kCompute ? least_speed * d : d;
      if (op.kind != OpKind::kCompute) continue;
      const cp::ComputeItem& item = rs.items[op.index];
      workspace = std::max(workspace, attention_workspace_bytes(item_shape(item, schedule.config.workload),
                                                                item.q_rows.length(), item.k_rows.length(),
                                                                models.kernel->pass()));
    }
    for (double us : busy_us) b.time_lower_bound_us = std::max(b.time_lower_bound_us, us);
    b.peak_mem_bytes = std::max(b.peak_mem_bytes, workspace);
  }
  b.peak_mem_bytes += schedule.peak_buffer_bytes();
  return b;
}

void append_timeline(const cp::Schedule& schedule, const CpSimulation& sim, Timeline& timeline, double offset_us) {
  const std::string pass(cp::to_string(schedule.pass));
  for (int r = 0; r < schedule.gpus(); ++r) {
    const cp::RankSchedule& rs = schedule.ranks[r];
    for (size_t k = 0; k < rs.ops.size(); ++k) {
      const cp::Op& op = rs.ops[k];
      const OpTiming& t = sim.ops[r][k];
      TimelineEvent e;
      e.rank = r;
      e.stream = std::string(cp::to_string(op.stream));
      e.start_us = t.start_us + offset_us;
      e.duration_us = t.end_us - t.start_us;
      std::string name = pass + " step " + std::to_string(op.step) + " " + std::string(cp::to_string(op.kind));
      if (op.kind == OpKind::kCompute) {
        const cp::ComputeItem& item = rs.items[op.index];
        e.args = {{"q_rows", item.q_rows.length()}, {"k_rows", item.k_rows.length()}, {"pairs", item.pairs}};
      } else if (cp::is_communication(op.kind)) {
        const cp::CommOp& comm = rs.comms[op.index];
        name += " " + comm.what;
        if (comm.peer >= 0) name += (op.kind == OpKind::kSend ? " -> " : " <- ") + std::to_string(comm.peer);
        e.args = {{"chunk_bytes", comm.chunk_bytes}, {"bytes_sent", comm.bytes_sent}, {"issue_us", t.issue_us + offset_us}};
      }
      e.name = std::move(name);
      timeline.events.push_back(std::move(e));
    }
  }
}

}  // namespace lcab::perf
