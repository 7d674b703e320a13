#include "model/perf/cp_simulator.h"

#include <algorithm>
#include <array>
#include <deque>
#include <numeric>
#include <string>

#include "model/error.h"

namespace lcab::perf {
namespace {

using cp::OpKind;

constexpr double kUnknown = -1.0;

struct Interval {
  double begin;
  double end;
};

// Sorted, disjoint union of intervals.
std::vector<Interval> merge(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (i.end <= i.begin) continue;
    if (!out.empty() && i.begin <= out.back().end) out.back().end = std::max(out.back().end, i.end);
    else out.push_back(i);
  }
  return out;
}
double length(const std::vector<Interval>& merged) {
  double total = 0;
  for (const Interval& i : merged) total += i.end - i.begin;
  return total;
}
// Length of [b, e) covered by a merged interval list.
double covered(const std::vector<Interval>& merged, double b, double e) {
  auto it = std::upper_bound(merged.begin(), merged.end(), b, [](double x, const Interval& i) { return x < i.end; });
  double total = 0;
  for (; it != merged.end() && it->begin < e; ++it) total += std::min(e, it->end) - std::max(b, it->begin);
  return total;
}
// |a \ b| for merged lists.
double minus_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double total = 0;
  for (const Interval& i : a) total += (i.end - i.begin) - covered(b, i.begin, i.end);
  return total;
}

AttentionShape item_shape(const cp::ComputeItem& item, const cp::Workload& w) {
  AttentionShape s;
  s.batch = w.batch;
  s.heads = item.q_heads.count();
  s.kv_heads = item.kv_heads.count();
  s.head_dim = w.head_dim;
  s.dtype_bytes = w.dtype_bytes;
  return s;
}

CollectiveOp collective_of(OpKind kind) {
  switch (kind) {
    case OpKind::kAllGather: return CollectiveOp::kAllGather;
    case OpKind::kReduceScatter: return CollectiveOp::kReduceScatter;
    case OpKind::kAllToAll: return CollectiveOp::kAllToAll;
    default: return CollectiveOp::kSendRecv;
  }
}

// The durations of every op, independent of timing (compute without overlap slowdown).
struct OpCosts {
  std::vector<std::vector<double>> duration_us;  // [rank][op]
  std::vector<std::vector<double>> attention_flops;
};

OpCosts op_costs(const cp::Schedule& schedule, const CpCostModels& m) {
  OpCosts c;
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
          const KernelCost& cost = m.kernel->cached_cost(item.slices, item.q_rows.length(), item.k_rows.length(),
                                                         item_shape(item, schedule.config.workload));
          d[k] = cost.time_us;
          c.attention_flops[r][k] = cost.flops;
          break;
        }
        case OpKind::kZero:
        case OpKind::kAdd: {
          const double traffic = static_cast<double>(rs.memory_ops[op.index].bytes) * (op.kind == OpKind::kAdd ? 3 : 1);
          d[k] = m.memory_op_launch_us + traffic / m.hbm_bytes_per_s * 1e6;
          break;
        }
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
          d[k] = m.comm->collective_us(collective_of(op.kind), spans[comm.group], comm.chunk_bytes);
        }
      }
    }
  }
  return c;
}

// One play of the schedule with given op durations.
class Player {
 public:
  Player(const cp::Schedule& s, const std::vector<std::vector<double>>& durations)
      : s_(s), dur_(durations), ranks_(s.gpus()) {
    timing_.resize(ranks_);
    stream_ops_.resize(ranks_);
    cursor_.assign(ranks_, std::array<size_t, cp::kNumStreams>{});
    issued_.resize(ranks_);
    last_arrival_.resize(ranks_);
    for (int r = 0; r < ranks_; ++r) {
      const cp::RankSchedule& rs = s.ranks[r];
      timing_[r].assign(rs.ops.size(), {kUnknown, kUnknown, kUnknown});
      issued_[r].assign(rs.ops.size(), false);
      last_arrival_[r].assign(rs.ops.size(), {-1, -1});
      for (size_t k = 0; k < rs.ops.size(); ++k) stream_ops_[r][static_cast<int>(rs.ops[k].stream)].push_back(static_cast<int>(k));
    }
    pending_.resize(s.groups.size());
  }

  std::vector<std::vector<OpTiming>> play() {
    std::deque<int> queue;
    std::vector<bool> queued(ranks_, true);
    for (int r = 0; r < ranks_; ++r) queue.push_back(r);
    while (!queue.empty()) {
      const int r = queue.front();
      queue.pop_front();
      queued[r] = false;
      touched_.clear();
      scan(r);
      for (int other : touched_) {
        if (!queued[other]) {
          queued[other] = true;
          queue.push_back(other);
        }
      }
    }
    for (int r = 0; r < ranks_; ++r) {
      for (int st = 0; st < cp::kNumStreams; ++st) {
        const std::vector<int>& list = stream_ops_[r][st];
        if (cursor_[r][st] < list.size()) {
          const int k = list[cursor_[r][st]];
          const cp::Op& op = s_.ranks[r].ops[k];
          LCAB_THROW("the schedule cannot finish: rank " << r << " op " << k << " (" << cp::to_string(op.kind)
                                                          << " on stream " << cp::to_string(op.stream) << ", step "
                                                          << op.step << ") waits forever for its "
                                                          << (issued_[r][k] ? "communication partner" : "dependencies"));
        }
      }
    }
    return std::move(timing_);
  }
  const std::vector<std::vector<PathOp>>& last_arrivals() const { return last_arrival_; }

 private:
  struct Pending {
    int arrived = 0;
    double start_us = 0;
    double duration_us = 0;
    PathOp last{-1, -1};
    std::vector<PathOp> members;
  };

  void scan(int r) {
    const cp::RankSchedule& rs = s_.ranks[r];
    bool progress = true;
    while (progress) {
      progress = false;
      for (int st = 0; st < cp::kNumStreams; ++st) {
        const std::vector<int>& list = stream_ops_[r][st];
        while (cursor_[r][st] < list.size()) {
          const int k = list[cursor_[r][st]];
          if (timing_[r][k].end_us != kUnknown) {  // finished (a partner completed it)
            ++cursor_[r][st];
            progress = true;
            continue;
          }
          if (issued_[r][k]) break;  // waiting for partners
          double ready = cursor_[r][st] > 0 ? timing_[r][list[cursor_[r][st] - 1]].end_us : 0.0;
          bool deps_done = true;
          for (int32_t dep : rs.deps(k)) {
            const double e = timing_[r][dep].end_us;
            if (e == kUnknown) {
              deps_done = false;
              break;
            }
            ready = std::max(ready, e);
          }
          if (!deps_done) break;
          issue(r, k, ready);
          progress = true;
        }
      }
    }
  }

  void finish(int r, int k, double start, double end) {
    timing_[r][k].start_us = start;
    timing_[r][k].end_us = end;
    touched_.push_back(r);
  }

  void issue(int r, int k, double ready) {
    issued_[r][k] = true;
    timing_[r][k].issue_us = ready;
    const cp::RankSchedule& rs = s_.ranks[r];
    const cp::Op& op = rs.ops[k];
    const double d = dur_[r][k];
    if (!cp::is_communication(op.kind)) {
      finish(r, k, ready, ready + d);
      return;
    }
    const cp::CommOp& comm = rs.comms[op.index];
    if (op.kind == OpKind::kSend || op.kind == OpKind::kRecv) {
      const int peer = comm.peer;
      const int peer_op = comm.peer_op;
      LCAB_CHECK(peer >= 0 && peer < ranks_ && peer_op >= 0 &&
                     peer_op < static_cast<int>(s_.ranks[peer].ops.size()),
                 "rank " << r << " op " << k << ": send/recv names peer " << peer << " op " << peer_op);
      if (!issued_[peer][peer_op]) return;
      const double peer_issue = timing_[peer][peer_op].issue_us;
      const double start = std::max(ready, peer_issue);
      const double end = start + std::max(d, dur_[peer][peer_op]);
      const PathOp later = ready >= peer_issue ? PathOp{r, k} : PathOp{peer, peer_op};
      last_arrival_[r][k] = later;
      last_arrival_[peer][peer_op] = later;
      finish(r, k, start, end);
      finish(peer, peer_op, start, end);
      return;
    }
    const cp::Group& group = s_.groups[comm.group];
    std::vector<Pending>& by_seq = pending_[comm.group];
    if (static_cast<int>(by_seq.size()) <= comm.collective_seq) by_seq.resize(comm.collective_seq + 1);
    Pending& p = by_seq[comm.collective_seq];
    if (p.arrived == 0 || ready >= p.start_us) {
      p.start_us = std::max(p.start_us, ready);
      p.last = {r, k};
    }
    p.duration_us = std::max(p.duration_us, d);
    p.members.push_back({r, k});
    if (++p.arrived < static_cast<int>(group.ranks.size())) return;
    for (const PathOp& m : p.members) {
      last_arrival_[m.rank][m.op] = p.last;
      finish(m.rank, m.op, p.start_us, p.start_us + p.duration_us);
    }
    p.members.clear();
    p.members.shrink_to_fit();
  }

  const cp::Schedule& s_;
  const std::vector<std::vector<double>>& dur_;
  int ranks_;
  std::vector<std::vector<OpTiming>> timing_;
  std::vector<std::array<std::vector<int>, cp::kNumStreams>> stream_ops_;
  std::vector<std::array<size_t, cp::kNumStreams>> cursor_;
  std::vector<std::vector<bool>> issued_;
  std::vector<std::vector<PathOp>> last_arrival_;
  std::vector<std::vector<Pending>> pending_;  // [group][collective_seq]
  std::vector<int> touched_;
};

std::vector<std::vector<Interval>> comm_unions(const cp::Schedule& s, const std::vector<std::vector<OpTiming>>& t) {
  std::vector<std::vector<Interval>> out(s.gpus());
  for (int r = 0; r < s.gpus(); ++r) {
    std::vector<Interval> v;
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

CpCostModels cost_models(const HardwareProfile& profile, const KernelCostModel& kernel, const CommCostModel& comm) {
  CpCostModels m;
  m.kernel = &kernel;
  m.comm = &comm;
  m.overlap_slowdown = profile.overlap_slowdown.value;
  m.hbm_bytes_per_s = profile.gpu.hbm_bytes_per_s.value;
  m.memory_op_launch_us = kernel.params().launch_us.value;
  return m;
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

  Player first(schedule, costs.duration_us);
  std::vector<std::vector<OpTiming>> timing = first.play();
  std::vector<std::vector<PathOp>> last_arrival = first.last_arrivals();
  if (models.overlap_slowdown > 1.0) {
    const std::vector<std::vector<Interval>> comm = comm_unions(schedule, timing);
    std::vector<std::vector<double>> slowed = costs.duration_us;
    for (int r = 0; r < ranks; ++r) {
      for (size_t k = 0; k < slowed[r].size(); ++k) {
        if (schedule.ranks[r].ops[k].kind != OpKind::kCompute) continue;
        const double overlap = covered(comm[r], timing[r][k].start_us, timing[r][k].end_us);
        slowed[r][k] += (models.overlap_slowdown - 1.0) * overlap;
      }
    }
    Player second(schedule, slowed);
    timing = second.play();
    last_arrival = second.last_arrivals();
  }

  CpSimulation sim;
  sim.ranks.resize(ranks);
  sim.steps.resize(ranks);
  const std::vector<std::vector<Interval>> comm = comm_unions(schedule, timing);
  int64_t buffers = schedule.peak_buffer_bytes();
  int last_op = -1;
  for (int r = 0; r < ranks; ++r) {
    const cp::RankSchedule& rs = schedule.ranks[r];
    RankSummary& sum = sim.ranks[r];
    std::vector<Interval> compute;
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
    const std::vector<Interval> busy = merge(std::move(compute));
    sum.compute_us = length(busy);
    sum.comm_us = length(comm[r]);
    sum.exposed_comm_us = minus_length(comm[r], busy);
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
  sim.ops = std::move(timing);
  return sim;
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
