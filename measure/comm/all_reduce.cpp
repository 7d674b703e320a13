// All-reduce (sum) of a `bytes` buffer. busbw = algbw * 2 (n - 1) / n.
#include "measure/comm/collective.h"
#include "cp/nccl_check.h"

namespace lcab::measure {

namespace {
class AllReduce final : public Collective {
 public:
  std::string name() const override { return "all_reduce"; }
  std::string description() const override { return "all-reduce (sum) of the whole buffer"; }
  CollectiveBuffers buffers(size_t bytes, int) const override { return {bytes, bytes}; }
  size_t chunk_bytes(size_t bytes, int) const override { return bytes; }
  double bus_factor(int ranks) const override { return 2.0 * (ranks - 1) / ranks; }
  bool splits_over_ranks() const override { return false; }
  void run(const void* send, void* recv, size_t bytes, int, int, ncclComm_t comm,
           cudaStream_t stream) const override {
    LCAB_NCCL_CHECK(ncclAllReduce(send, recv, bytes / kCommElementBytes, ncclBfloat16, ncclSum, comm, stream));
  }
};
}  // namespace

std::unique_ptr<Collective> make_all_reduce() { return std::make_unique<AllReduce>(); }

}  // namespace lcab::measure
