// Building schedules: buffers, groups and token maps of a Schedule, and per-rank op lists whose cross-stream
// dependencies are derived from the buffers each op reads and writes (read-after-write, write-after-write,
// write-after-read), so that methods only say what each op touches and never hand-write a dependency.
// Internal to model/cp (methods use it; executors read the finished Schedule).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "model/cp/schedule.h"

namespace lcab::cp {

class ScheduleBuilder;

/// Appends ops to one rank's schedule.
class RankBuilder {
 public:
  /// A compute item; reads and writes name the buffers it touches (q side, k buffer, accumulators).
  int compute(ComputeItem item, int step, std::initializer_list<int> reads, std::initializer_list<int> writes);
  int zero(BufferRegion dst, int step);
  int add(BufferRegion dst, BufferRegion src, int step);
  int send(int peer, BufferRegion src, int64_t bytes, Stream stream, int step, std::string what);
  int recv(int peer, BufferRegion dst, int64_t bytes, Stream stream, int step, std::string what);
  /// A collective over `group`; chunk_bytes as CommOp documents; bytes_sent/received follow from the kind and
  /// the group size (ring-style algorithms: (n - 1) chunks each way).
  int collective(OpKind kind, int group, BufferRegion src, BufferRegion dst, int64_t chunk_bytes, int step,
                 std::string what, A2ALayout layout = A2ALayout::kNone);
  int rank() const { return rank_; }
  /// Capacity hints (avoid regrowth for long rings).
  void reserve(size_t ops, size_t items, size_t comms);

 private:
  friend class ScheduleBuilder;
  RankBuilder(ScheduleBuilder& owner, int rank);
  int append(OpKind kind, Stream stream, int step, int index, std::initializer_list<int> reads,
             std::initializer_list<int> writes);
  struct Hazards {
    int last_writer = -1;
    std::vector<int> readers;  ///< since the last write
  };
  /// Point-to-point ops with one peer, in issue order (NCCL matches the k-th send with the k-th receive).
  struct PeerQueue {
    int peer;
    std::vector<int> ops;
  };
  static std::vector<int>& queue_of(std::vector<PeerQueue>& queues, int peer);
  ScheduleBuilder* owner_;
  int rank_;
  RankSchedule* out_;
  std::vector<Hazards> hazards_;      ///< per buffer
  std::vector<int> collective_seq_;   ///< per group
  std::vector<PeerQueue> sends_, recvs_;
};

class ScheduleBuilder {
 public:
  /// The schedule to fill: config, pass and layout set by the caller; ranks sized here.
  explicit ScheduleBuilder(Schedule& schedule);
  int add_buffer(Buffer buffer);
  int add_group(GroupKind kind, std::vector<int> ranks);
  int add_token_map(TokenMap map);
  int add_q_side(QSide side);
  /// Builder for rank r (call once per rank, after every buffer and group is added).
  RankBuilder rank(int r);
  /// Matches sends with receives (k-th send r->p with k-th receive on p from r; bytes and labels must agree)
  /// and sets num_steps. Throws lcab::Error on an unmatched message.
  void finish(std::vector<RankBuilder>& ranks);
  Schedule& schedule() { return *schedule_; }

 private:
  Schedule* schedule_;
};

}  // namespace lcab::cp
