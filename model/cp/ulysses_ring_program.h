// The ulysses/ring engine (ulysses_ring.h) as a step program: the ops of any rank at any step, emitted on demand
// to a sink. It is the one description of ring, ulysses, usp and loongtrain; two consumers play it:
//   - build_ulysses_ring_schedule materializes every rank's ops into a Schedule (the CUDA executor and the
//     simulator play that), rank by rank;
//   - the lock-step simulator in model/perf (lockstep_simulator.h) times the ops as they are emitted, step by
//     step over all ranks, without ever holding more than one step of ops: a 1024-GPU ring pass has R^2 = 1M
//     compute ops, which need not exist at once to be timed.
// Both see the same ops in the same per-rank order, so both play the same schedule.
//
// Steps: with U > 1, step 0 is the all-to-all in and step R + 1 the all-to-all out, ring steps are 1..R; with
// U = 1 ring steps are 0..R-1. Every send/recv pair and every collective has both (all) sides in the same step,
// so a step can be played over all ranks before the next one starts.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <vector>

#include "model/cp/method_common.h"
#include "model/cp/schedule.h"
#include "model/cp/sharding.h"

namespace lcab::cp {

/// Which part of a rank's item against a KV block a compute op runs. In the backward pass with
/// CpConfig::overlap_dkv_home_hop (and R > 1) the rank's own KV block is cut by q rows: its head runs at the first
/// ring step, its tail after the last one, while the final dK,dV hop comes home into a free buffer that is then
/// added into dK,dV. The cut keeps everything in the head when either part would have no cell.
enum class RingItemPart : uint8_t {
  kWhole,
  kOwnHead,  ///< the own block's q rows before the cut (the whole block when it is not cut)
  kOwnTail,  ///< the own block's q rows at or past the cut; no item when the block is not cut
};

/// The compute op of one ring step: the rank's queries against the KV block of ring position `source`.
struct RingComputeOp {
  int64_t source = 0;         ///< ring position whose KV block this step holds
  int q_buffer = -1;
  int k_buffer = -1;
  int q_side = -1;
  int q_map = -1;             ///< token maps of the q rows and of the KV block's rows (ComputeItem::q_map, k_map)
  int k_map = -1;
  int grad_buffer = -1;       ///< backward: where dK, dV accumulate; -1 in forward
  int64_t grad_row_begin = 0;
  RingItemPart part = RingItemPart::kWhole;  ///< of the item of `source` (kOwnHead / kOwnTail: source is the rank's)
};

/// Receives the ops of one rank's step, in issue order. Reads and writes name the buffers an op touches (as
/// RankBuilder takes them); comm ops name their peer or group.
class RingOpSink {
 public:
  virtual ~RingOpSink() = default;
  /// Key rows (of the KV block of ring position `source`) that `part` of the rank's queries sees; std::nullopt
  /// when that part has no cell (then no compute op follows). Announces the item of the next compute op; the
  /// program may also ask only to learn whether a part exists (the own block's tail).
  virtual std::optional<TokenRange> item_key_rows(int64_t source, RingItemPart part) = 0;
  /// The compute op of the item announced last (item_key_rows(op.source, op.part)); communication ops may come
  /// between the two.
  virtual void compute(const RingComputeOp& op, int step, std::initializer_list<int> reads,
                       std::initializer_list<int> writes) = 0;
  virtual void zero(const BufferRegion& dst, int step) = 0;
  virtual void add(const BufferRegion& dst, const BufferRegion& src, int step) = 0;
  virtual void send(int peer, const BufferRegion& src, int64_t bytes, Stream stream, int step, const char* what) = 0;
  virtual void recv(int peer, const BufferRegion& dst, int64_t bytes, Stream stream, int step, const char* what) = 0;
  virtual void collective(OpKind kind, int group, const BufferRegion& src, const BufferRegion& dst,
                          int64_t chunk_bytes, int step, const char* what, A2ALayout layout) = 0;
};

struct RingShape;  // degrees, rows and buffer ids shared by all ranks (defined in ulysses_ring_program.cpp)

class UlyssesRingProgram {
 public:
  /// For a normalized, validated config (degrees, windows, sharding filled in): shards the sequence and lays out
  /// buffers, groups and token maps.
  UlyssesRingProgram(const CpConfig& config, Pass pass);

  /// The schedule without ops: config, pass, layout, sharding, buffers, groups, token maps and q sides; `ranks`
  /// holds one empty RankSchedule per rank and num_steps is left to whoever adds the ops.
  const Schedule& skeleton() const { return skeleton_; }
  Schedule& skeleton() { return skeleton_; }
  const PositionSharding& sharding() const { return sharding_; }
  const GridLayout& layout() const { return skeleton_.layout; }
  /// Steps to emit: R ring steps, plus the all-to-all steps 0 and R + 1 when U > 1.
  int num_steps() const { return num_steps_; }

  /// Appends the ops of `rank` at `step` to sink (nothing for a step the rank has no op in).
  void emit(int rank, int step, RingOpSink& sink) const;

  /// True when the backward pass cuts each rank's own KV block (RingItemPart; R > 1 and
  /// CpConfig::overlap_dkv_home_hop). The forward pass never cuts.
  bool cuts_own_block() const { return cuts_own_block_; }
  /// How the own block is cut (cut_for_tail_share in method_common.h, on the q rows of the own item's slices):
  /// the share of its cells that goes to the tail, and the row step of the cut from the block's first row with a
  /// cell: a multiple of every kernel's q tile (lcab_flash: 128 forward, 64 backward), so that both parts keep the
  /// tiles of the uncut rows.
  double own_tail_share() const;
  static constexpr int64_t kOwnCutRowAlign = 128;

  /// q heads and kv heads computed by Ulysses member u.
  HeadRange q_heads(int64_t u) const;
  HeadRange kv_heads(int64_t u) const;
  /// The compute item of Ulysses member u at ring position `position` (the one `resolver` was last resolved for,
  /// against index_of_positions()) on the KV block of ring position `source`, with its local slices, pairs, q and k
  /// rows and heads (buffers and maps are the sink's to set); std::nullopt when fully masked. For kOwnHead and
  /// kOwnTail, source must be that position (the own block) and the part is cut as the backward pass cuts it.
  std::optional<ComputeItem> item(const MaskResolver& resolver, int64_t u, int64_t source,
                                  RingItemPart part = RingItemPart::kWhole) const;
  /// item() of the whole block into `out` (its slice lists' capacity reused, every field set as item() sets it);
  /// false when fully masked (out then unspecified).
  bool item_into(const MaskResolver& resolver, int64_t u, int64_t source, ComputeItem& out) const;
  /// The key-block index every position is resolved against (the KV blocks of all ring positions).
  const KeyBlockIndex& index_of_positions() const { return index_; }

 private:
  std::shared_ptr<const RingShape> shape_;
  Schedule skeleton_;
  PositionSharding sharding_;
  KeyBlockIndex index_;
  int num_steps_ = 0;
  bool cuts_own_block_ = false;
};

}  // namespace lcab::cp
