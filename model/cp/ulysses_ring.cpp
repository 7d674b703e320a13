#include "model/cp/ulysses_ring.h"

#include <array>

#include "model/error.h"
#include "model/cp/schedule_builder.h"
#include "model/cp/ulysses_ring_program.h"

namespace lcab::cp {
namespace {

// Materializes one rank's ops: items from the mask resolved for the rank's ring position. The own block's tail is
// cut once (the program asks for it again after the ring).
class RankScheduleSink final : public RingOpSink {
 public:
  RankScheduleSink(RankBuilder& rb, const UlyssesRingProgram& program, const MaskResolver& resolver, int64_t u)
      : rb_(rb), program_(program), resolver_(resolver), u_(u) {}

  std::optional<TokenRange> item_key_rows(int64_t source, RingItemPart part) override {
    std::optional<ComputeItem>& item = items_[static_cast<int>(part)];
    if (part == RingItemPart::kOwnTail) {
      if (!tail_known_) tail_rows_ = rows_of(item = program_.item(resolver_, u_, source, part));
      tail_known_ = true;
      return tail_rows_;
    }
    return rows_of(item = program_.item(resolver_, u_, source, part));
  }
  void compute(const RingComputeOp& op, int step, std::initializer_list<int> reads,
               std::initializer_list<int> writes) override {
    std::optional<ComputeItem>& announced = items_[static_cast<int>(op.part)];
    LCAB_CHECK(announced, "a compute op came without its item");
    ComputeItem item = std::move(*announced);
    announced.reset();
    item.q_buffer = op.q_buffer;
    item.k_buffer = op.k_buffer;
    item.q_side = op.q_side;
    item.q_map = op.q_map;
    item.k_map = op.k_map;
    item.grad_buffer = op.grad_buffer;
    item.grad_row_begin = op.grad_row_begin;
    rb_.compute(std::move(item), step, reads, writes);
  }
  void zero(const BufferRegion& dst, int step) override { rb_.zero(dst, step); }
  void add(const BufferRegion& dst, const BufferRegion& src, int step) override { rb_.add(dst, src, step); }
  void send(int peer, const BufferRegion& src, int64_t bytes, Stream stream, int step, const char* what) override {
    rb_.send(peer, src, bytes, stream, step, what);
  }
  void recv(int peer, const BufferRegion& dst, int64_t bytes, Stream stream, int step, const char* what) override {
    rb_.recv(peer, dst, bytes, stream, step, what);
  }
  void collective(OpKind kind, int group, const BufferRegion& src, const BufferRegion& dst, int64_t chunk_bytes,
                  int step, const char* what, A2ALayout layout) override {
    rb_.collective(kind, group, src, dst, chunk_bytes, step, what, layout);
  }

 private:
  RankBuilder& rb_;
  const UlyssesRingProgram& program_;
  const MaskResolver& resolver_;
  int64_t u_;
  static std::optional<TokenRange> rows_of(const std::optional<ComputeItem>& item) {
    return item ? std::optional<TokenRange>(item->k_rows) : std::nullopt;
  }
  std::array<std::optional<ComputeItem>, 3> items_;  // the item announced last, per RingItemPart
  bool tail_known_ = false;
  std::optional<TokenRange> tail_rows_;

};

}  // namespace

Schedule build_ulysses_ring_schedule(const CpConfig& config, Pass pass) {
  UlyssesRingProgram program(config, pass);
  Schedule s = program.skeleton();
  const GridLayout& layout = s.layout;
  ScheduleBuilder sb(s);
  std::vector<RankBuilder> ranks;
  ranks.reserve(config.gpus);
  const size_t steps = static_cast<size_t>(layout.ring);
  const bool fwd = pass == Pass::kForward;
  for (int r = 0; r < config.gpus; ++r) {
    ranks.push_back(sb.rank(r));
    ranks.back().reserve((fwd ? 3 : 9) * steps + 4, steps, (fwd ? 2 : 4) * steps + 4);
  }
  MaskResolver resolver(*config.workload.mask);
  for (int64_t pos = 0; pos < layout.ring; ++pos) {
    resolver.resolve(program.sharding().positions[pos], program.index_of_positions());
    for (int64_t u = 0; u < layout.ulysses; ++u) {
      const int rank = layout.rank_of(u, pos);
      RankScheduleSink sink(ranks[rank], program, resolver, u);
      for (int step = 0; step < program.num_steps(); ++step) program.emit(rank, step, sink);
    }
  }
  sb.finish(ranks);
  return s;
}

}  // namespace lcab::cp
