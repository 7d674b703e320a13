// The communication operations of `lcab-measure comm`, one file each (as in nccl-tests), behind one small
// interface: the message size convention, the buffers, the bus-bandwidth factor and the call. Registered by
// name (the record's key.op, matching the collectives of model/perf/profile.h).
//
// Sizes follow nccl-tests: `bytes` is the size nccl-tests prints for the operation (all-gather: the gathered
// output; reduce-scatter: the input; all-to-all: what each rank sends in all; all-reduce: the buffer;
// send/recv: the message each rank sends). algbw = bytes / time, busbw = algbw * bus_factor(ranks).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nccl.h>

typedef struct CUstream_st* cudaStream_t;

namespace lcab::measure {

/// Elements move as bf16 (the attention tensors' type); reductions sum in bf16.
inline constexpr size_t kCommElementBytes = 2;

struct CollectiveBuffers {
  size_t send_bytes = 0;
  size_t recv_bytes = 0;
};

class Collective {
 public:
  virtual ~Collective() = default;
  /// Record key op: "send_recv", "all_to_all", "all_gather", "reduce_scatter", "all_reduce".
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  /// Per-rank buffers for a size of `bytes` over `ranks` ranks.
  virtual CollectiveBuffers buffers(size_t bytes, int ranks) const = 0;
  /// The bytes per member that model/perf/profile.h calls B (CommOp::chunk_bytes).
  virtual size_t chunk_bytes(size_t bytes, int ranks) const = 0;
  virtual double bus_factor(int ranks) const = 0;
  /// Whether `bytes` must be a multiple of ranks * element size (every member's share whole).
  virtual bool splits_over_ranks() const = 0;
  /// Issues the operation on `stream`. rank/ranks are those of `comm`.
  virtual void run(const void* send, void* recv, size_t bytes, int rank, int ranks, ncclComm_t comm,
                   cudaStream_t stream) const = 0;

  /// The largest size <= bytes that the operation moves evenly (at least one element per share).
  size_t round_bytes(size_t bytes, int ranks) const;
};

class CollectiveRegistry {
 public:
  void add(std::unique_ptr<Collective> collective);
  /// Throws lcab::Error listing the valid names when unknown.
  const Collective& find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<Collective>> collectives_;
};

std::unique_ptr<Collective> make_send_recv();
std::unique_ptr<Collective> make_all_to_all();
std::unique_ptr<Collective> make_all_gather();
std::unique_ptr<Collective> make_reduce_scatter();
std::unique_ptr<Collective> make_all_reduce();

/// Registers the five operations above.
void register_all(CollectiveRegistry& registry);

}  // namespace lcab::measure
