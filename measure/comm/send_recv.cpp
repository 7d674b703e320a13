// Ring exchange: every rank sends its message to rank + 1 and receives one from rank - 1 at the same time (the
// KV hop of ring attention). busbw = algbw.
#include "measure/comm/collective.h"
#include "cp/nccl_check.h"

namespace lcab::measure {

namespace {
class SendRecvRing final : public Collective {
 public:
  std::string name() const override { return "send_recv"; }
  std::string description() const override { return "ring exchange: send to rank+1, receive from rank-1"; }
  CollectiveBuffers buffers(size_t bytes, int) const override { return {bytes, bytes}; }
  size_t chunk_bytes(size_t bytes, int) const override { return bytes; }
  double bus_factor(int) const override { return 1.0; }
  bool splits_over_ranks() const override { return false; }
  void run(const void* send, void* recv, size_t bytes, int rank, int ranks, ncclComm_t comm,
           cudaStream_t stream) const override {
    const size_t count = bytes / kCommElementBytes;
    LCAB_NCCL_CHECK(ncclGroupStart());
    LCAB_NCCL_CHECK(ncclSend(send, count, ncclBfloat16, (rank + 1) % ranks, comm, stream));
    LCAB_NCCL_CHECK(ncclRecv(recv, count, ncclBfloat16, (rank + ranks - 1) % ranks, comm, stream));
    LCAB_NCCL_CHECK(ncclGroupEnd());
  }
};
}  // namespace

std::unique_ptr<Collective> make_send_recv() { return std::make_unique<SendRecvRing>(); }

}  // namespace lcab::measure
