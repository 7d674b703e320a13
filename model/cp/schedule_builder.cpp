#include "model/cp/schedule_builder.h"

#include <algorithm>

#include "model/error.h"

namespace lcab::cp {
std::vector<int>& RankBuilder::queue_of(std::vector<PeerQueue>& queues, int peer) {
  for (PeerQueue& q : queues)
    if (q.peer == peer) return q.ops;
  queues.push_back({peer, {}});
  return queues.back().ops;
}

RankBuilder::RankBuilder(ScheduleBuilder& owner, int rank)
    : owner_(&owner),
      rank_(rank),
      out_(&owner.schedule().ranks[rank]),
      hazards_(owner.schedule().buffers.size()),
      collective_seq_(owner.schedule().groups.size(), 0) {
  out_->rank = rank;
}

void RankBuilder::reserve(size_t ops, size_t items, size_t comms) {
  out_->ops.reserve(ops);
  out_->items.reserve(items);
  out_->comms.reserve(comms);
  out_->dep_pool.reserve(2 * ops);
}

int RankBuilder::append(OpKind kind, Stream stream, int step, int index, std::initializer_list<int> reads,
                        std::initializer_list<int> writes) {
  const int op = static_cast<int>(out_->ops.size());
  std::vector<int32_t>& pool = out_->dep_pool;
  const int32_t begin = static_cast<int32_t>(pool.size());
  auto depend = [&](int other) {
    if (other >= 0 && out_->ops[other].stream != stream) pool.push_back(other);
  };
  for (int b : reads) depend(hazards_.at(b).last_writer);
  for (int b : writes) {
    depend(hazards_.at(b).last_writer);
    for (int reader : hazards_[b].readers) depend(reader);
  }
  std::sort(pool.begin() + begin, pool.end());
  pool.erase(std::unique(pool.begin() + begin, pool.end()), pool.end());
  for (int b : reads) hazards_[b].readers.push_back(op);
  for (int b : writes) {
    hazards_[b].last_writer = op;
    hazards_[b].readers.clear();
  }
  out_->ops.push_back({kind, stream, step, index, begin, static_cast<int32_t>(pool.size()) - begin});
  return op;
}

int RankBuilder::compute(ComputeItem item, int step, std::initializer_list<int> reads,
                         std::initializer_list<int> writes) {
  out_->items.push_back(std::move(item));
  return append(OpKind::kCompute, Stream::kCompute, step, static_cast<int>(out_->items.size()) - 1, reads, writes);
}

int RankBuilder::zero(BufferRegion dst, int step) {
  const Buffer& b = owner_->schedule().buffers.at(dst.buffer);
  out_->memory_ops.push_back({dst, {}, owner_->schedule().config.workload.batch * dst.rows * b.row_bytes()});
  return append(OpKind::kZero, Stream::kCompute, step, static_cast<int>(out_->memory_ops.size()) - 1, {},
                {dst.buffer});
}

int RankBuilder::add(BufferRegion dst, BufferRegion src, int step) {
  const Buffer& b = owner_->schedule().buffers.at(dst.buffer);
  out_->memory_ops.push_back({dst, src, owner_->schedule().config.workload.batch * dst.rows * b.row_bytes()});
  return append(OpKind::kAdd, Stream::kCompute, step, static_cast<int>(out_->memory_ops.size()) - 1,
                {src.buffer}, {dst.buffer});
}

int RankBuilder::send(int peer, BufferRegion src, int64_t bytes, Stream stream, int step, std::string what) {
  CommOp c;
  c.peer = peer;
  c.src = src;
  c.chunk_bytes = bytes;
  c.bytes_sent = bytes;
  c.what = std::move(what);
  out_->comms.push_back(std::move(c));
  const int op = append(OpKind::kSend, stream, step, static_cast<int>(out_->comms.size()) - 1, {src.buffer}, {});
  queue_of(sends_, peer).push_back(op);
  return op;
}

int RankBuilder::recv(int peer, BufferRegion dst, int64_t bytes, Stream stream, int step, std::string what) {
  CommOp c;
  c.peer = peer;
  c.dst = dst;
  c.chunk_bytes = bytes;
  c.bytes_received = bytes;
  c.what = std::move(what);
  out_->comms.push_back(std::move(c));
  const int op = append(OpKind::kRecv, stream, step, static_cast<int>(out_->comms.size()) - 1, {}, {dst.buffer});
  queue_of(recvs_, peer).push_back(op);
  return op;
}

int RankBuilder::collective(OpKind kind, int group, BufferRegion src, BufferRegion dst, int64_t chunk_bytes,
                            int step, std::string what, A2ALayout layout) {
  LCAB_CHECK(kind == OpKind::kAllGather || kind == OpKind::kReduceScatter || kind == OpKind::kAllToAll,
             "op kind " << to_string(kind) << " is not a collective; valid: all_gather, reduce_scatter, all_to_all");
  const int64_t members = static_cast<int64_t>(owner_->schedule().groups.at(group).ranks.size());
  CommOp c;
  c.group = group;
  c.collective_seq = collective_seq_.at(group)++;
  c.src = src;
  c.dst = dst;
  c.layout = layout;
  c.chunk_bytes = chunk_bytes;
  c.bytes_sent = (members - 1) * chunk_bytes;
  c.bytes_received = (members - 1) * chunk_bytes;
  c.what = std::move(what);
  out_->comms.push_back(std::move(c));
  return append(kind, Stream::kCollective, step, static_cast<int>(out_->comms.size()) - 1, {src.buffer},
                {dst.buffer});
}

ScheduleBuilder::ScheduleBuilder(Schedule& schedule) : schedule_(&schedule) {
  schedule.ranks.assign(schedule.config.gpus, {});
}

int ScheduleBuilder::add_buffer(Buffer buffer) {
  buffer.id = static_cast<int>(schedule_->buffers.size());
  schedule_->buffers.push_back(std::move(buffer));
  return schedule_->buffers.back().id;
}

int ScheduleBuilder::add_group(GroupKind kind, std::vector<int> ranks) {
  schedule_->groups.push_back({kind, std::move(ranks)});
  return static_cast<int>(schedule_->groups.size()) - 1;
}

int ScheduleBuilder::add_token_map(TokenMap map) {
  schedule_->token_maps.push_back(std::move(map));
  return static_cast<int>(schedule_->token_maps.size()) - 1;
}

int ScheduleBuilder::add_q_side(QSide side) {
  schedule_->q_sides.push_back(side);
  return static_cast<int>(schedule_->q_sides.size()) - 1;
}

RankBuilder ScheduleBuilder::rank(int r) { return RankBuilder(*this, r); }

void ScheduleBuilder::finish(std::vector<RankBuilder>& ranks) {
  LCAB_CHECK(static_cast<int>(ranks.size()) == schedule_->gpus(),
             "schedule built for " << ranks.size() << " of " << schedule_->gpus() << " ranks");
  for (RankBuilder& rb : ranks) {
    RankSchedule& me = schedule_->ranks[rb.rank_];
    for (RankBuilder::PeerQueue& sends : rb.sends_) {
      RankSchedule& other = schedule_->ranks[sends.peer];
      const std::vector<int>& recvs = RankBuilder::queue_of(ranks.at(sends.peer).recvs_, rb.rank_);
      LCAB_CHECK(recvs.size() == sends.ops.size(), "rank " << rb.rank_ << " sends " << sends.ops.size()
                                                            << " messages to rank " << sends.peer << ", which receives "
                                                            << recvs.size());
      for (size_t k = 0; k < recvs.size(); ++k) {
        CommOp& send = me.comms[me.ops[sends.ops[k]].index];
        CommOp& recv = other.comms[other.ops[recvs[k]].index];
        LCAB_CHECK(send.chunk_bytes == recv.chunk_bytes && send.what == recv.what,
                   "send " << send.what << " (" << send.chunk_bytes << " B) from rank " << rb.rank_
                           << " meets receive " << recv.what << " (" << recv.chunk_bytes << " B) on rank "
                           << sends.peer);
        send.peer_op = recvs[k];
        recv.peer_op = sends.ops[k];
      }
    }
  }
  for (RankBuilder& rb : ranks) {
    const RankSchedule& me = schedule_->ranks[rb.rank_];
    for (const RankBuilder::PeerQueue& recvs : rb.recvs_)
      for (int op : recvs.ops)
        LCAB_CHECK(me.comms[me.ops[op].index].peer_op >= 0,
                   "receive on rank " << rb.rank_ << " from rank " << recvs.peer << " has no send");
  }
  int steps = 0;
  for (const RankSchedule& r : schedule_->ranks)
    for (const Op& op : r.ops) steps = std::max(steps, op.step + 1);
  schedule_->num_steps = steps;
}

}  // namespace lcab::cp
