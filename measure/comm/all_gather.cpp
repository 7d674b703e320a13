// All-gather: `bytes` is the gathered output; every rank contributes bytes / n. busbw = algbw * (n - 1) / n.
#include "measure/comm/collective.h"
#include "cp/nccl_check.h"

namespace lcab::measure {

namespace {
class AllGather final : public Collective {
 public:
  std::string name() const override { return "all_gather"; }
  std::string description() const override { return "all-gather: every rank's share to every rank"; }
  CollectiveBuffers buffers(size_t bytes, int ranks) const override {
    return {bytes / static_cast<size_t>(ranks), bytes};
  }
  size_t chunk_bytes(size_t bytes, int ranks) const override { return bytes / static_cast<size_t>(ranks); }
  double bus_factor(int ranks) const override { return static_cast<double>(ranks - 1) / ranks; }
  bool splits_over_ranks() const override { return true; }
  void run(const void* send, void* recv, size_t bytes, int, int ranks, ncclComm_t comm,
           cudaStream_t stream) const override {
    const size_t count = bytes / static_cast<size_t>(ranks) / kCommElementBytes;
    LCAB_NCCL_CHECK(ncclAllGather(send, recv, count, ncclBfloat16, comm, stream));
  }
};
}  // namespace

std::unique_ptr<Collective> make_all_gather() { return std::make_unique<AllGather>(); }

}  // namespace lcab::measure
