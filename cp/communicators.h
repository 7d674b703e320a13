// NCCL communicators of one rank: the world, two point-to-point channels and one communicator per distinct
// rank group of the schedules it runs (DESIGN.md section 4). Host-visible: no CUDA or NCCL header needed.
//
// Every call that creates communicators is collective: all ranks of the world make the same calls in the same
// order (they run the same schedules), as NCCL requires.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "model/cp/schedule.h"

typedef struct ncclComm* ncclComm_t;
typedef struct CUstream_st* cudaStream_t;

namespace lcab::cp {

/// NCCL's unique id as plain bytes (NCCL_UNIQUE_ID_BYTES = 128), so that launchers can ship it around.
struct CommUniqueId {
  std::array<char, 128> bytes{};
};
/// ncclGetUniqueId (with NCCL_COMM_ID set, every process gets the same id from it).
CommUniqueId new_unique_id();

/// Sets NCCL_NVLS_ENABLE=0 in this process unless it is already set (NVLink multicast can take shared GPUs out
/// of service; lcab never needs it). Called before the first communicator is created.
void disable_nvls_unless_set();

/// Which point-to-point communicator a send/recv uses: the inner ring streams and the outer (between windows)
/// streams use separate communicators, so that NCCL never orders one behind the other.
enum class P2pChannel : uint8_t { kInner = 0, kOuter = 1 };

class RankComms {
 public:
  /// ncclCommInitRank on `device` (made current on the calling thread) for rank of world_size.
  RankComms(int rank, int world_size, int device, const CommUniqueId& id);
  ~RankComms();
  RankComms(const RankComms&) = delete;
  RankComms& operator=(const RankComms&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int device() const { return device_; }
  ncclComm_t world() const { return world_; }
  ncclComm_t p2p(P2pChannel channel) const;

  /// Creates (collectively, cached by rank list) the communicators of every group in `groups` that has this
  /// rank; groups with disjoint ranks are split from the world together. Member i of a group is rank i of its
  /// communicator.
  void prepare_groups(const std::vector<Group>& groups);
  /// The communicator of a group prepared before; throws when this rank is not a member.
  ncclComm_t group(const Group& group) const;

  /// Blocks until every rank has reached it (an all-reduce on the world, then a host wait on `stream`).
  void barrier(cudaStream_t stream);
  /// The maximum of value over all ranks (blocking).
  double max_over_ranks(double value, cudaStream_t stream);
  /// Every rank's value, in rank order (blocking).
  std::vector<double> gather_all(double value, cudaStream_t stream);
  /// Every rank's values concatenated in rank order (blocking); every rank passes the same number of values.
  std::vector<double> gather_all(const std::vector<double>& values, cudaStream_t stream);

 private:
  int rank_ = 0;
  int size_ = 1;
  int device_ = 0;
  ncclComm_t world_ = nullptr;
  ncclComm_t outer_ = nullptr;
  std::map<std::vector<int>, ncclComm_t> groups_;
  double* scratch_ = nullptr;  ///< device: size_ doubles for the small reductions above
};

}  // namespace lcab::cp
