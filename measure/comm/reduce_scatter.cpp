// Reduce-scatter (sum): `bytes` is each rank's input; every rank receives its reduced share bytes / n.
// busbw = algbw * (n - 1) / n.
#include "measure/comm/collective.h"
#include "cp/nccl_check.h"

namespace lcab::measure {

namespace {
class ReduceScatter final : public Collective {
 public:
  std::string name() const override { return "reduce_scatter"; }
  std::string description() const override { return "reduce-scatter (sum): rank j receives the sum of share j"; }
  CollectiveBuffers buffers(size_t bytes, int ranks) const override {
    return {bytes, bytes / static_cast<size_t>(ranks)};
  }
  size_t chunk_bytes(size_t bytes, int ranks) const override { return bytes / static_cast<size_t>(ranks); }
  double bus_factor(int ranks) const override { return static_cast<double>(ranks - 1) / ranks; }
  bool splits_over_ranks() const override { return true; }
  void run(const void* send, void* recv, size_t bytes, int, int ranks, ncclComm_t comm,
           cudaStream_t stream) const override {
    const size_t count = bytes / static_cast<size_t>(ranks) / kCommElementBytes;
    LCAB_NCCL_CHECK(ncclReduceScatter(send, recv, count, ncclBfloat16, ncclSum, comm, stream));
  }
};
}  // namespace

std::unique_ptr<Collective> make_reduce_scatter() { return std::make_unique<ReduceScatter>(); }

}  // namespace lcab::measure
