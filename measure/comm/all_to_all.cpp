// All-to-all: rank i sends its j-th share to rank j (grouped send/recv). busbw = algbw * (n - 1) / n.
#include "measure/comm/collective.h"
#include "cp/nccl_check.h"

namespace lcab::measure {

namespace {
class AllToAll final : public Collective {
 public:
  std::string name() const override { return "all_to_all"; }
  std::string description() const override { return "all-to-all: share j of every rank to rank j"; }
  CollectiveBuffers buffers(size_t bytes, int) const override { return {bytes, bytes}; }
  size_t chunk_bytes(size_t bytes, int ranks) const override { return bytes / static_cast<size_t>(ranks); }
  double bus_factor(int ranks) const override { return static_cast<double>(ranks - 1) / ranks; }
  bool splits_over_ranks() const override { return true; }
  void run(const void* send, void* recv, size_t bytes, int, int ranks, ncclComm_t comm,
           cudaStream_t stream) const override {
    const size_t share = bytes / static_cast<size_t>(ranks);
    const size_t count = share / kCommElementBytes;
    LCAB_NCCL_CHECK(ncclGroupStart());
    for (int peer = 0; peer < ranks; ++peer) {
      LCAB_NCCL_CHECK(ncclSend(static_cast<const char*>(send) + peer * share, count, ncclBfloat16, peer, comm, stream));
      LCAB_NCCL_CHECK(ncclRecv(static_cast<char*>(recv) + peer * share, count, ncclBfloat16, peer, comm, stream));
    }
    LCAB_NCCL_CHECK(ncclGroupEnd());
  }
};
}  // namespace

std::unique_ptr<Collective> make_all_to_all() { return std::make_unique<AllToAll>(); }

}  // namespace lcab::measure
