#include "model/perf/lockstep_simulator.h"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "model/error.h"
#include "model/perf/intervals.h"

namespace lcab::perf {
namespace {

using cp::OpKind;
using cp::Stream;

constexpr int kMaxBuffers = 32;
constexpr int kMaxPendingReaders = 3;

uint32_t buffer_bit(int buffer) { return uint32_t{1} << buffer; }
uint32_t buffer_bits(std::initializer_list<int> buffers) {
  uint32_t bits = 0;
  for (int b : buffers) bits |= buffer_bit(b);
  return bits;
}

template <class Visit>
void for_each_bit(uint32_t bits, Visit&& visit) {
  for (; bits != 0; bits &= bits - 1) visit(__builtin_ctz(bits));
}

// When the last op in some role (a stream's last op, a buffer's last writer) ends, as a time >= 0, or, while that
// op is a transfer of the current step not matched yet, -(its index among the step's ops + 1).
using Mark = double;
Mark pending_mark(int32_t op) { return -1.0 - static_cast<double>(op); }
bool is_pending(Mark m) { return m < 0; }

// A buffer's hazards: its last writer, and its readers since then (the latest end among those done, and the
// transfers still pending; -1 marks a free slot).
struct BufferHazards {
  Mark writer = 0;
  double readers_end_us = 0;
  std::array<int32_t, kMaxPendingReaders> pending_readers{-1, -1, -1};
  bool readers_pending() const {
    for (int32_t r : pending_readers)
      if (r >= 0) return true;
    return false;
  }
};

// A rank's hazard state: what ScheduleBuilder's hazards and the streams' FIFO order make its next op wait for.
struct RankState {
  std::array<Mark, cp::kNumStreams> stream{};
  std::array<BufferHazards, kMaxBuffers> buffers{};
  std::vector<std::pair<int, int>> collective_seq;  // (group, collectives issued on it so far)
};

struct StepOp {
  double duration_us = 0;
  double issue_us = 0;
  double start_us = 0;
  double end_us = 0;
  const RingItemCosts::Cost* cost = nullptr;  // attention ops
  uint32_t reads = 0, writes = 0;             // buffer bits
  int32_t rank = 0;                           // played-rank index
  int32_t peer = -1;     // send/recv: played-rank index of the peer; collective: its group
  int32_t partner = -1;  // send/recv: the matching op of the step; collective: its n-th on the group
  OpKind kind = OpKind::kCompute;
  Stream stream = Stream::kCompute;
  bool issued = false, done = false;
};

// An attention op of the first play: its times and duration, for the overlap slowdown.
struct AttentionTiming {
  double start_us;
  double end_us;
  double duration_us;
};

// What a play keeps of one played rank.
struct RankRecord {
  IntervalUnion comm;                        // transfers and collectives
  std::vector<Interval> busy;                // final play: union of the compute stream's ops (they run in order)
  std::vector<AttentionTiming> attention;    // first play: attention ops, in order
  bool any = false;
  double end_us = 0;
  double attention_total_us = 0;             // final play, in op order as simulate() sums them
  double flops = 0;
  int64_t workspace_bytes = 0;
};

// Collective members of the current step that have arrived.
struct Gathering {
  int arrived = 0;
  double start_us = 0;
  double duration_us = 0;
  std::vector<int32_t> members;
};

// What collective_op_us reads of a collective the program emits.
cp::CommOp collective_op(int group, const cp::BufferRegion& src, const cp::BufferRegion& dst, int64_t chunk_bytes,
                         cp::A2ALayout layout) {
  cp::CommOp comm;
  comm.group = group;
  comm.src = src;
  comm.dst = dst;
  comm.layout = layout;
  comm.chunk_bytes = chunk_bytes;
  return comm;
}

// What the ops of a ulysses/ring program cost, as simulate() charges them: items from the table, memory ops by
// their bytes, transfers by their link, collectives by their group's span.
class RingOpCosts {
 public:
  RingOpCosts(const cp::UlyssesRingProgram& program, const RingItemCosts& items, const CpCostModels& models)
      : schedule_(program.skeleton()), items_(items), models_(models), pass_(schedule_.pass) {
    for (const cp::Group& g : schedule_.groups) spans_.push_back(models_.comm->span(g.ranks));
    for (const cp::Buffer& b : schedule_.buffers) row_bytes_.push_back(b.row_bytes());
  }
  // The item (part) of a member of `group` at `position` on the KV block of `source`, or null when it has no cell.
  const RingItemCosts::Cost* item(int group, int64_t position, int64_t source, cp::RingItemPart part,
                                  std::optional<TokenRange>& rows) const {
    rows = items_.key_rows(group, position, source, part);
    return rows ? &items_.cost(pass_, group, position, source, part) : nullptr;
  }
  double memory_us(OpKind kind, const cp::BufferRegion& dst) const {
    return memory_op_us(models_, kind, schedule_.config.workload.batch * dst.rows * row_bytes_[dst.buffer]);
  }
  double transfer_us(int rank, int peer, int64_t bytes) const { return models_.comm->send_recv_us(rank, peer, bytes); }
  // A collective as simulate() charges it; comm holds what the cost reads (group, buffers, layout, chunk bytes).
  double collective_us(OpKind kind, const cp::CommOp& comm) const {
    const int group = comm.group;
    LCAB_CHECK(group >= 0 && group < static_cast<int>(spans_.size()),
               "collective names group " << group << " of " << spans_.size());
    return collective_op_us(models_, schedule_, kind, spans_[group], comm);
  }

 private:
  const cp::Schedule& schedule_;
  const RingItemCosts& items_;
  const CpCostModels& models_;
  cp::Pass pass_;
  std::vector<GroupSpan> spans_;    // per group
  std::vector<int64_t> row_bytes_;  // per buffer
};

// The busy time of each stream of one rank, its ops summed as they are emitted (streams run their ops one at a
// time, so no rank finishes before any of its streams has run them all).
class StreamTotals final : public cp::RingOpSink {
 public:
  StreamTotals(const RingOpCosts& costs, int group, int64_t position, int rank)
      : costs_(costs), group_(group), position_(position), rank_(rank) {}
  std::optional<TokenRange> item_key_rows(int64_t source, cp::RingItemPart part) override {
    std::optional<TokenRange> rows;
    item_ = costs_.item(group_, position_, source, part, rows);
    return rows;
  }
  void compute(const cp::RingComputeOp&, int, std::initializer_list<int>, std::initializer_list<int>) override {
    attention_us += item_->time_us;
  }
  void zero(const cp::BufferRegion& dst, int) override { memory_us += costs_.memory_us(OpKind::kZero, dst); }
  void add(const cp::BufferRegion& dst, const cp::BufferRegion&, int) override {
    memory_us += costs_.memory_us(OpKind::kAdd, dst);
  }
  void send(int peer, const cp::BufferRegion&, int64_t bytes, Stream stream, int, const char*) override {
    stream_us[static_cast<int>(stream)] += costs_.transfer_us(rank_, peer, bytes);
  }
  void recv(int peer, const cp::BufferRegion&, int64_t bytes, Stream stream, int, const char*) override {
    stream_us[static_cast<int>(stream)] += costs_.transfer_us(rank_, peer, bytes);
  }
  void collective(OpKind kind, int group, const cp::BufferRegion& src, const cp::BufferRegion& dst,
                  int64_t chunk_bytes, int, const char*, cp::A2ALayout layout) override {
    stream_us[static_cast<int>(Stream::kCollective)] +=
        costs_.collective_us(kind, collective_op(group, src, dst, chunk_bytes, layout));
  }
  double attention_us = 0, memory_us = 0;           // the compute stream
  std::array<double, cp::kNumStreams> stream_us{};  // the communication streams

 private:
  const RingOpCosts& costs_;
  int group_;
  int64_t position_;
  int rank_;
  const RingItemCosts::Cost* item_ = nullptr;
};

class LockstepPlay final : public cp::RingOpSink {
 public:
  // slowed: per played rank, the durations of its attention ops in order (the second play), or null.
  LockstepPlay(const cp::UlyssesRingProgram& program, const RingItemCosts& items, const CpCostModels& models,
               const std::vector<int>& played, const std::vector<std::vector<double>>* slowed)
      : program_(program),
        schedule_(program.skeleton()),
        items_(items),
        costs_(program, items, models),
        played_(played),
        slowed_(slowed) {
    LCAB_CHECK(schedule_.buffers.size() <= static_cast<size_t>(kMaxBuffers),
               "the program has " << schedule_.buffers.size() << " buffers; the lock-step simulator tracks "
                                  << kMaxBuffers);
    index_of_.assign(schedule_.gpus(), -1);
    for (size_t i = 0; i < played_.size(); ++i) index_of_[played_[i]] = static_cast<int32_t>(i);
    for (int r : played_) {
      group_.push_back(items_.group_of(program_.layout().ulysses_index(r)));
      position_.push_back(program_.layout().ring_position(r));
    }
    for (const cp::Group& g : schedule_.groups) {
      int members = 0;
      for (int r : g.ranks) members += index_of_[r] >= 0 ? 1 : 0;
      played_members_.push_back(members);
    }
  }

  // Plays every step; `final_play` keeps the summaries' intervals, else those the overlap slowdown needs.
  std::vector<RankRecord> run(bool final_play) {
    final_ = final_play;
    const size_t n = played_.size();
    states_.assign(n, RankState{});
    transfer_memo_.assign(n, {});
    records_.assign(n, RankRecord{});
    attention_cursor_.assign(n, 0);
    range_.assign(n, {0, 0});
    cursor_.assign(n, 0);
    parked_.assign(n, 0);
    for (int step = 0; step < program_.num_steps(); ++step) {
      ops_.clear();
      gatherings_.clear();
      gathering_of_.clear();
      // Each rank is played as soon as its ops are emitted (they are still in cache); a rank that waits for a
      // peer emitted later resumes when that peer's side is issued.
      for (size_t i = 0; i < n; ++i) {
        current_ = static_cast<int32_t>(i);
        range_[i].first = static_cast<int32_t>(ops_.size());
        program_.emit(played_[i], step, *this);
        range_[i].second = static_cast<int32_t>(ops_.size());
        link_transfers(current_);
        cursor_[i] = range_[i].first;
        advance(current_);
        while (!worklist_.empty()) {
          const int32_t r = worklist_.back();
          worklist_.pop_back();
          advance(r);
        }
      }
      check_finished(step);
      if (step == 1) reserve_records();
    }
    return std::move(records_);
  }

  // ---- RingOpSink: ops of played rank current_ arrive here ----
  std::optional<TokenRange> item_key_rows(int64_t source, cp::RingItemPart part) override {
    std::optional<TokenRange> rows;
    item_ = costs_.item(group_[current_], position_[current_], source, part, rows);
    return rows;
  }
  void compute(const cp::RingComputeOp&, int, std::initializer_list<int> reads,
               std::initializer_list<int> writes) override {
    LCAB_CHECK(item_, "a compute op came without its item");
    StepOp& op = push(OpKind::kCompute, Stream::kCompute, buffer_bits(reads), buffer_bits(writes));
    op.cost = item_;
    op.duration_us = slowed_ ? (*slowed_)[current_][attention_cursor_[current_]++] : item_->time_us;
    item_ = nullptr;
  }
  void zero(const cp::BufferRegion& dst, int) override {
    push(OpKind::kZero, Stream::kCompute, 0, buffer_bit(dst.buffer)).duration_us = costs_.memory_us(OpKind::kZero, dst);
  }
  void add(const cp::BufferRegion& dst, const cp::BufferRegion& src, int) override {
    push(OpKind::kAdd, Stream::kCompute, buffer_bit(src.buffer), buffer_bit(dst.buffer)).duration_us =
        costs_.memory_us(OpKind::kAdd, dst);
  }
  void send(int peer, const cp::BufferRegion& src, int64_t bytes, Stream stream, int, const char*) override {
    transfer(OpKind::kSend, peer, bytes, stream, buffer_bit(src.buffer), 0);
  }
  void recv(int peer, const cp::BufferRegion& dst, int64_t bytes, Stream stream, int, const char*) override {
    transfer(OpKind::kRecv, peer, bytes, stream, 0, buffer_bit(dst.buffer));
  }
  void collective(OpKind kind, int group, const cp::BufferRegion& src, const cp::BufferRegion& dst,
                  int64_t chunk_bytes, int, const char*, cp::A2ALayout layout) override {
    StepOp& op = push(kind, Stream::kCollective, buffer_bit(src.buffer), buffer_bit(dst.buffer));
    op.duration_us = costs_.collective_us(kind, collective_op(group, src, dst, chunk_bytes, layout));
    op.peer = group;
    op.partner = next_collective_seq(states_[current_], group);
  }

 private:
  StepOp& push(OpKind kind, Stream stream, uint32_t reads, uint32_t writes) {
    StepOp& op = ops_.emplace_back();
    op.kind = kind;
    op.stream = stream;
    op.reads = reads;
    op.writes = writes;
    op.rank = current_;
    return op;
  }
  void transfer(OpKind kind, int peer, int64_t bytes, Stream stream, uint32_t reads, uint32_t writes) {
    LCAB_CHECK(peer >= 0 && peer < schedule_.gpus() && index_of_[peer] >= 0,
               "rank " << played_[current_] << " exchanges with rank " << peer << ", which is not played");
    StepOp& op = push(kind, stream, reads, writes);
    op.peer = index_of_[peer];
    op.duration_us = transfer_us(peer, bytes);
  }
  // send_recv_us, remembered per played rank: a rank talks to a few peers in a few sizes, step after step.
  double transfer_us(int peer, int64_t bytes) {
    std::array<TransferCost, kTransferMemo>& memo = transfer_memo_[current_];
    for (const TransferCost& t : memo)
      if (t.peer == peer && t.bytes == bytes) return t.us;
    const double us = costs_.transfer_us(played_[current_], peer, bytes);
    std::rotate(memo.rbegin(), memo.rbegin() + 1, memo.rend());
    memo[0] = {peer, bytes, us};
    return us;
  }
  static int next_collective_seq(RankState& state, int group) {
    for (auto& [g, count] : state.collective_seq)
      if (g == group) return count++;
    state.collective_seq.emplace_back(group, 1);
    return 0;
  }
  // Room for every step like the last one, so that records grow without copying.
  void reserve_records() {
    for (size_t i = 0; i < played_.size(); ++i) {
      RankRecord& r = records_[i];
      const size_t steps = static_cast<size_t>(program_.num_steps());
      r.comm.reserve(r.comm.size() * steps + 2);
      if (!final_) r.attention.reserve(steps + 1);
    }
  }

  // The k-th send from a to b in this step meets the k-th receive on b from a (the whole schedule matches the
  // k-th of each; programs keep every pair inside one step, which check_finished checks). Pairs are linked when
  // their second side is emitted: here, the transfers of rank i with peers emitted before it.
  void link_transfers(int32_t i) {
    for (int32_t k = range_[i].first; k < range_[i].second; ++k) {
      StepOp& op = ops_[k];
      if ((op.kind != OpKind::kSend && op.kind != OpKind::kRecv) || op.peer >= i) continue;
      const OpKind other_kind = op.kind == OpKind::kSend ? OpKind::kRecv : OpKind::kSend;
      int ordinal = 0;
      for (int32_t e = range_[i].first; e < k; ++e) ordinal += ops_[e].kind == op.kind && ops_[e].peer == op.peer;
      for (int32_t e = range_[op.peer].first; e < range_[op.peer].second; ++e) {
        StepOp& other = ops_[e];
        if (other.kind != other_kind || other.peer != i || ordinal-- != 0) continue;
        op.partner = e;
        other.partner = k;
        break;
      }
    }
  }

  void check_finished(int step) {
    for (size_t i = 0; i < played_.size(); ++i) {
      for (int32_t k = range_[i].first; k < range_[i].second; ++k) {
        const StepOp& op = ops_[k];
        if (op.done) continue;
        const bool transfer = op.kind == OpKind::kSend || op.kind == OpKind::kRecv;
        LCAB_THROW("the schedule cannot finish: rank "
                   << played_[i] << " (" << cp::to_string(op.kind) << " on stream " << cp::to_string(op.stream)
                   << ", step " << step << ") waits forever for "
                   << (transfer && op.partner < 0 ? "a matching transfer in the same step"
                                                  : (op.issued ? "its communication partner" : "its dependencies")));
      }
    }
  }

  // Issues the rank's ops in order until one waits for a transfer of this step that is not matched yet.
  void advance(int32_t i) {
    parked_[i] = 0;
    RankState& state = states_[i];
    while (cursor_[i] < range_[i].second) {
      const int32_t id = cursor_[i];
      StepOp& op = ops_[id];
      double ready = 0;
      if (!ready_time(state, op, ready)) {
        parked_[i] = 1;
        return;
      }
      ++cursor_[i];
      op.issued = true;
      op.issue_us = ready;
      if (!cp::is_communication(op.kind)) {
        op.start_us = ready;
        op.end_us = ready + op.duration_us;
        op.done = true;
        settle(state, op);
        record(op);
        continue;
      }
      await(state, id);
      if (op.kind == OpKind::kSend || op.kind == OpKind::kRecv) {
        if (op.partner < 0 || !ops_[op.partner].issued) continue;  // the peer's side comes later
        const StepOp& other = ops_[op.partner];
        const double start = std::max(op.issue_us, other.issue_us);
        const double end = start + std::max(op.duration_us, other.duration_us);
        complete(id, start, end);
        complete(op.partner, start, end);
        continue;
      }
      gather(id);
    }
  }

  // A collective is done when every played member has issued it (the others have the same timeline).
  void gather(int32_t id) {
    const StepOp& op = ops_[id];
    const int64_t key = static_cast<int64_t>(op.peer) * 1024 * 1024 + op.partner;
    auto [it, fresh] = gathering_of_.try_emplace(key, static_cast<int>(gatherings_.size()));
    if (fresh) gatherings_.emplace_back();
    Gathering& g = gatherings_[it->second];
    g.start_us = std::max(g.start_us, op.issue_us);
    g.duration_us = std::max(g.duration_us, op.duration_us);
    g.members.push_back(id);
    if (++g.arrived < played_members_[op.peer]) return;
    const std::vector<int32_t> members = std::move(g.members);
    for (int32_t m : members) complete(m, g.start_us, g.start_us + g.duration_us);
  }

  // When the op could be issued: its stream's last op and its buffer hazards done; false while one is in transfer.
  static bool ready_time(const RankState& state, const StepOp& op, double& ready) {
    double t = state.stream[static_cast<int>(op.stream)];
    bool waits = is_pending(t);
    for_each_bit(op.reads | op.writes, [&](int b) {
      const Mark w = state.buffers[b].writer;
      waits = waits || is_pending(w);
      t = std::max(t, w);
    });
    for_each_bit(op.writes, [&](int b) {
      const BufferHazards& h = state.buffers[b];
      waits = waits || h.readers_pending();
      t = std::max(t, h.readers_end_us);
    });
    ready = std::max(0.0, t);
    return !waits;
  }

  // A compute-stream op done at issue: it becomes its stream's last op, a reader or the last writer of buffers.
  static void settle(RankState& state, const StepOp& op) {
    state.stream[static_cast<int>(op.stream)] = op.end_us;
    for_each_bit(op.reads, [&](int b) {
      BufferHazards& h = state.buffers[b];
      h.readers_end_us = std::max(h.readers_end_us, op.end_us);
    });
    for_each_bit(op.writes, [&](int b) { state.buffers[b] = BufferHazards{op.end_us}; });
  }

  // A communication op issued but not done: the same roles, pending until complete().
  static void await(RankState& state, const StepOp& op, int32_t id) {
    state.stream[static_cast<int>(op.stream)] = pending_mark(id);
    for_each_bit(op.reads, [&](int b) {
      std::array<int32_t, kMaxPendingReaders>& slots = state.buffers[b].pending_readers;
      int32_t* free = std::find(slots.begin(), slots.end(), -1);
      LCAB_CHECK(free != slots.end(), "more than " << kMaxPendingReaders << " transfers read one buffer at once");
      *free = id;
    });
    for_each_bit(op.writes, [&](int b) { state.buffers[b] = BufferHazards{pending_mark(id)}; });
  }
  void await(RankState& state, int32_t id) { await(state, ops_[id], id); }

  void complete(int32_t id, double start, double end) {
    StepOp& op = ops_[id];
    op.start_us = start;
    op.end_us = end;
    op.done = true;
    RankState& state = states_[op.rank];
    const Mark pending = pending_mark(id);
    Mark& s = state.stream[static_cast<int>(op.stream)];
    if (s == pending) s = end;
    for_each_bit(op.writes, [&](int b) {
      if (state.buffers[b].writer == pending) state.buffers[b].writer = end;
    });
    for_each_bit(op.reads, [&](int b) {
      BufferHazards& h = state.buffers[b];
      for (int32_t& slot : h.pending_readers) {
        if (slot != id) continue;
        slot = -1;
        h.readers_end_us = std::max(h.readers_end_us, end);
        break;
      }
    });
    record(op);
    if (parked_[op.rank]) {
      parked_[op.rank] = 0;
      worklist_.push_back(op.rank);
    }
  }

  void record(const StepOp& op) {
    RankRecord& r = records_[op.rank];
    r.any = true;
    r.end_us = std::max(r.end_us, op.end_us);
    if (cp::is_communication(op.kind)) {
      r.comm.add({op.start_us, op.end_us});
      return;
    }
    const bool attention = op.kind == OpKind::kCompute;
    if (!final_) {
      if (attention) r.attention.push_back({op.start_us, op.end_us, op.duration_us});
      return;
    }
    append_sorted(r.busy, {op.start_us, op.end_us});
    if (attention) {
      r.attention_total_us += op.end_us - op.start_us;
      r.flops += op.cost->flops;
      r.workspace_bytes = std::max(r.workspace_bytes, op.cost->workspace_bytes);
    }
  }

  const cp::UlyssesRingProgram& program_;
  const cp::Schedule& schedule_;
  const RingItemCosts& items_;
  const RingOpCosts costs_;
  const std::vector<int>& played_;
  const std::vector<std::vector<double>>* slowed_;
  std::vector<int32_t> index_of_;      // global rank -> played index, -1 when not played
  std::vector<int> group_;             // per played rank: its item group
  std::vector<int64_t> position_;      // per played rank: its ring position
  std::vector<int> played_members_;    // per group
  bool final_ = true;
  std::vector<RankState> states_;
  std::vector<RankRecord> records_;
  struct TransferCost {
    int peer = -1;
    int64_t bytes = 0;
    double us = 0;
  };
  static constexpr int kTransferMemo = 8;
  std::vector<std::array<TransferCost, kTransferMemo>> transfer_memo_;
  std::vector<size_t> attention_cursor_;
  // the current step
  int32_t current_ = 0;
  const RingItemCosts::Cost* item_ = nullptr;
  std::vector<StepOp> ops_;
  std::vector<std::pair<int32_t, int32_t>> range_;  // per played rank: its ops [first, second)
  std::vector<int32_t> cursor_;
  std::vector<uint8_t> parked_;
  std::vector<int32_t> worklist_;
  std::vector<Gathering> gatherings_;
  std::unordered_map<int64_t, int> gathering_of_;
};

// The kRing groups of the skeleton, one per Ulysses member, in member order.
std::vector<const cp::Group*> ring_groups(const cp::Schedule& schedule) {
  std::vector<const cp::Group*> out;
  for (const cp::Group& g : schedule.groups)
    if (g.kind == cp::GroupKind::kRing) out.push_back(&g);
  return out;
}

// Nodes of a group's ranks, numbered by first appearance: equal labels mean the same same-node relation.
std::vector<int64_t> node_pattern(const cp::Group& group, const CommCostModel& comm) {
  std::vector<int64_t> nodes, labels;
  for (int r : group.ranks) {
    const int64_t node = comm.cluster().node_of(r);
    const auto it = std::find(nodes.begin(), nodes.end(), node);
    labels.push_back(it - nodes.begin());
    if (it == nodes.end()) nodes.push_back(node);
  }
  return labels;
}

}  // namespace

bool ulysses_members_equivalent(const cp::UlyssesRingProgram& program, const RingItemCosts& items,
                                const CommCostModel& comm) {
  const cp::GridLayout& layout = program.layout();
  for (int64_t u = 1; u < layout.ulysses; ++u)
    if (items.group_of(u) != items.group_of(0)) return false;
  const std::vector<const cp::Group*> rings = ring_groups(program.skeleton());
  if (rings.empty()) return true;
  const std::vector<int64_t> first = node_pattern(*rings.front(), comm);
  for (size_t n = 1; n < rings.size(); ++n)
    if (node_pattern(*rings[n], comm) != first) return false;
  return true;
}

namespace {

// bound_lockstep over the positions `items` costs: on a complete table the bound itself; on a sample, a time not
// above it (the largest row total of fewer positions; the streams of positions 0 and R - 1 summed alike) and the
// largest workspace of the sampled items (`workspace`) in peak_mem_bytes.
PassBound bound_over_costed_positions(const cp::UlyssesRingProgram& program, const RingItemCosts& items,
                                      const CpCostModels& models, int64_t& workspace) {
  const cp::Pass pass = program.skeleton().pass;
  LCAB_CHECK(items.has_pass(pass), "the item costs were not made for the " << cp::to_string(pass) << " pass");
  const cp::GridLayout& layout = program.layout();
  LCAB_CHECK(items.costs_position(0) && items.costs_position(layout.ring - 1),
             "a bound needs the items of the first and last ring position");
  std::vector<uint8_t> group_used(items.groups(), 0);
  for (int64_t u = 0; u < layout.ulysses; ++u) group_used[items.group_of(u)] = 1;
  PassBound b;
  const double least_speed = std::min(1.0, models.overlap_slowdown);
  workspace = 0;
  // Each position's items summed in source order, the own block as head and tail where the backward cuts it
  // (RingItemCosts::row_total).
  const bool cut_own = pass == cp::Pass::kBackward && program.cuts_own_block();
  for (int g = 0; g < items.groups(); ++g) {
    if (!group_used[g]) continue;
    for (const int64_t position : items.costed_positions()) {
      const RingItemCosts::RowTotal& row = items.row_total(pass, g, position, cut_own);
      workspace = std::max(workspace, row.workspace_bytes);
      b.time_lower_bound_us = std::max(b.time_lower_bound_us, least_speed * row.attention_us);
    }
  }
  b.peak_mem_bytes = program.skeleton().peak_buffer_bytes() + workspace;
  // Every stream of every rank bounds the pass too; the first and last ring position of member 0 (their hops
  // cover both link classes of a ring that leaves a node) are summed op by op.
  const RingOpCosts costs(program, items, models);
  for (int64_t position : {int64_t{0}, layout.ring - 1}) {
    const int rank = layout.rank_of(0, position);
    StreamTotals totals(costs, items.group_of(0), position, rank);
    for (int step = 0; step < program.num_steps(); ++step) program.emit(rank, step, totals);
    b.time_lower_bound_us = std::max(b.time_lower_bound_us, least_speed * totals.attention_us + totals.memory_us);
    for (double us : totals.stream_us) b.time_lower_bound_us = std::max(b.time_lower_bound_us, us);
  }
  return b;
}

}  // namespace

PassBound bound_lockstep(const cp::UlyssesRingProgram& program, const RingItemCosts& items,
                         const CpCostModels& models) {
  LCAB_CHECK(items.complete(), "bound_lockstep needs every ring position's items (a sample gives "
                               "sampled_bound_lockstep)");
  int64_t workspace = 0;
  return bound_over_costed_positions(program, items, models, workspace);
}

std::optional<PassBound> sampled_bound_lockstep(const cp::UlyssesRingProgram& program, const RingItemCosts& items,
                                                const CpCostModels& models) {
  int64_t workspace = 0;
  const PassBound b = bound_over_costed_positions(program, items, models, workspace);
  if (workspace != items.workspace_limit(program.skeleton().pass)) return std::nullopt;
  return b;
}

CpSimulation simulate_lockstep(const cp::UlyssesRingProgram& program, const RingItemCosts& items,
                               const CpCostModels& models) {
  LCAB_CHECK(models.kernel && models.comm, "simulate_lockstep needs a kernel and a communication cost model");
  const cp::Schedule& schedule = program.skeleton();
  const cp::Pass want = models.kernel->pass() == KernelPass::kBackward ? cp::Pass::kBackward : cp::Pass::kForward;
  LCAB_CHECK(schedule.pass == want, "the kernel model is for the " << models.kernel->params().pass
                                                                  << " pass but the program is "
                                                                  << cp::to_string(schedule.pass));
  LCAB_CHECK(items.has_pass(schedule.pass), "the item costs were not made for the " << cp::to_string(schedule.pass)
                                                                                     << " pass");
  LCAB_CHECK(items.complete(), "simulate_lockstep needs every ring position's items, not a sample");
  LCAB_CHECK(models.comm->cluster().gpus >= schedule.gpus(),
             "the schedule has " << schedule.gpus() << " ranks but the cluster " << models.comm->cluster().gpus);
  const cp::GridLayout& layout = program.layout();
  const bool collapse = ulysses_members_equivalent(program, items, *models.comm);
  std::vector<int> played;
  for (int r = 0; r < schedule.gpus(); ++r)
    if (!collapse || layout.ulysses_index(r) == 0) played.push_back(r);

  std::vector<RankRecord> records;
  if (models.overlap_slowdown > 1.0) {
    std::vector<RankRecord> first = LockstepPlay(program, items, models, played, nullptr).run(false);
    std::vector<std::vector<double>> slowed(played.size());
    for (size_t i = 0; i < played.size(); ++i) {
      const std::vector<Interval>& comm = first[i].comm.pieces();
      size_t cursor = 0;  // attention ops run in order on the compute stream
      slowed[i].reserve(first[i].attention.size());
      for (const AttentionTiming& t : first[i].attention)
        slowed[i].push_back(t.duration_us +
                            (models.overlap_slowdown - 1.0) * covered_from(comm, cursor, t.start_us, t.end_us));
    }
    first.clear();
    records = LockstepPlay(program, items, models, played, &slowed).run(true);
  } else {
    records = LockstepPlay(program, items, models, played, nullptr).run(true);
  }

  CpSimulation sim;
  sim.ranks.resize(schedule.gpus());
  std::vector<uint8_t> has_ops(schedule.gpus(), 0);
  const int64_t buffers = schedule.peak_buffer_bytes();
  for (size_t i = 0; i < played.size(); ++i) {
    RankRecord& rec = records[i];
    RankSummary sum;
    const std::vector<Interval>& busy = rec.busy;
    const std::vector<Interval>& comm = rec.comm.pieces();
    sum.end_us = rec.end_us;
    sum.compute_us = length(busy);
    sum.attention_us = rec.attention_total_us;
    sum.comm_us = length(comm);
    sum.exposed_comm_us = minus_length(comm, busy);
    sum.peak_mem_bytes = buffers + rec.workspace_bytes;
    sum.flops = rec.flops;
    const int64_t position = layout.ring_position(played[i]);
    for (int64_t u = 0; u < (collapse ? layout.ulysses : 1); ++u) {
      const int rank = collapse ? layout.rank_of(u, position) : played[i];
      sim.ranks[rank] = sum;
      has_ops[rank] = rec.any;
    }
  }
  for (int r = 0; r < schedule.gpus(); ++r) {
    if (has_ops[r] && sim.ranks[r].end_us >= sim.time_us) {
      sim.time_us = sim.ranks[r].end_us;
      sim.slowest_rank = r;
    }
  }
  return sim;
}

}  // namespace lcab::perf
