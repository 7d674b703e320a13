// Context-parallel schedules (DESIGN.md sections 1 and 4): the one description of a CP method that both
// executors play — the CUDA/NCCL executor in cp/ and the simulator in model/.
//
// A Schedule says, for every rank, an ordered list of operations (Op): compute items (attention of a range of
// the rank's local queries against a key buffer, with the mask resolved to slices in local coordinates),
// local memory operations (zero, add) and communication (send/recv with an explicit matching op on the peer,
// all-gather, reduce-scatter, all-to-all over an explicit rank group). Every op runs on one stream of its rank;
// ops of one stream run in list order; cross-stream dependencies are explicit (Op::deps).
//
// How to play a schedule (both executors):
//   for each rank, walk ops in list order; op k may start when
//     (a) the previous op on the same stream has finished (streams are FIFO), and
//     (b) every op in deps(k) (indices into the same rank's ops, always < k) has finished, and
//     (c) for communication: a send/recv pair completes when both sides have started (Op::peer_op names the
//         partner); a collective completes when every member of its group has started it (members issue the
//         group's collectives in the same order; CommOp::collective_seq numbers them).
//   CUDA mapping: one cudaStream_t per Stream value, one event per op recorded after it, cudaStreamWaitEvent for
//   each dep. deps never name an op on the same stream (FIFO order already implies it).
//
// Buffers: every rank allocates the same set of buffers (Schedule::buffers), each a [tokens, heads, head_dim]
// tensor (times `tensors`: 2 for K+V pairs), row-major by token as in kernels/attention.h. Buffers flagged
// zero_at_start are zero-filled (and lse set to -inf) before the pass; later reuse as an accumulation target
// is preceded by an explicit kZero op. Memory use of a rank = the sum of Buffer::bytes().
//
// Accumulation semantics of a compute item (the executor keeps accumulators in fp32):
//   forward:  its partial (out, lse) for rows q_rows and heads q_heads is merged (online softmax, NaN-free for
//             rows that have seen no key) into the out and lse buffers of its QSide (same rows);
//   backward: reads out, lse, dout of its QSide; dQ += into the QSide's dq (same rows); dK, dV += into
//             grad_buffer rows [grad_row_begin, grad_row_begin + k_rows.length()).
// Inputs a backward pass reads in head-split layout (Ulysses: q, k, v, out, lse) are those the forward pass
// left there; a backward schedule only moves dout in and the gradients out.
//
// Element types on the wire: q, k, v, out, dout, dq and Ulysses' dkv all-to-all move dtype elements (an fp32
// accumulator such as out_heads or dq_heads is converted before it is sent); dK, dV partials that travel around
// a ring or are reduce-scattered move Workload::grad_accum_bytes elements. CommOp::chunk_bytes is what moves.
//
// Tokens and padding: buffers hold tokens in the order given by a TokenMap (global token ranges and pad runs).
// Pads take memory and bytes on the wire but are never in a slice, so never counted as work or FLOPs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/mask.h"

namespace lcab::cp {

// ---- configuration ----------------------------------------------------------------------------------------------

enum class Pass : uint8_t { kForward = 0, kBackward = 1 };
std::string_view to_string(Pass pass);  ///< "fwd" | "bwd"
Pass parse_pass(std::string_view name);  ///< throws lcab::Error listing the valid names

/// Which degree of a 2-D method (usp, loongtrain) is laid out within a node.
enum class Placement : uint8_t {
  kUlyssesIntra = 0,  ///< Ulysses groups are U consecutive ranks; ring groups are strided by U
  kRingIntra = 1,     ///< ring groups are R consecutive ranks; Ulysses groups are strided by R
};
std::string_view to_string(Placement placement);  ///< "ulysses_intra" | "ring_intra"
Placement parse_placement(std::string_view name);

/// How the sequence is split over ring positions (see sharding.h).
enum class ShardingKind : uint8_t {
  kAuto = 0,             ///< the method's default: zigzag (per document for masks with documents) or contiguous
  kContiguous = 1,       ///< position p holds tokens [p*t, (p+1)*t)
  kZigzag = 2,           ///< 2R chunks; position p holds chunks p and 2R-1-p
  kZigzagDocuments = 3,  ///< zigzag inside every document (tiny documents grouped into units), padded
};
std::string_view to_string(ShardingKind kind);  ///< "auto" | "contiguous" | "zigzag" | "zigzag_documents"
ShardingKind parse_sharding(std::string_view name);

/// The attention problem being parallelized (one layer's attention, self-attention over S tokens).
struct Workload {
  std::shared_ptr<const Mask> mask;  ///< global mask over S = mask->seqlen() tokens (shared or per kv head)
  int64_t batch = 1;
  int64_t heads = 64;     ///< q heads Hq
  int64_t kv_heads = 8;   ///< Hk; Hq % Hk == 0 (GQA: q head h reads kv head h / (Hq / Hk))
  int64_t head_dim = 128;
  int64_t dtype_bytes = 2;       ///< q, k, v, out, dout, dq, dk, dv elements (bf16/fp16)
  int64_t grad_accum_bytes = 4;  ///< dK, dV partials that travel between ranks (ring) or are reduce-scattered
  int64_t seqlen() const { return mask ? mask->seqlen() : 0; }
};

/// A CP configuration: method, GPUs, degrees, placement, workload. Degrees left at 0 are filled by the method
/// (ring/allgather: U = 1, R = P; ulysses: U = P, R = 1; usp/loongtrain need at least one of U, R).
struct CpConfig {
  std::string method;         ///< registered name: ring, allgather, ulysses, usp, loongtrain
  int64_t gpus = 1;           ///< P
  int64_t gpus_per_node = 8;  ///< P must be <= gpus_per_node or a multiple of it
  int64_t ulysses_degree = 0; ///< U
  int64_t ring_degree = 0;    ///< R; U * R == P
  int64_t windows = 1;        ///< W (loongtrain): the ring of R is split into W windows of R / W positions
  Placement placement = Placement::kUlyssesIntra;
  ShardingKind sharding = ShardingKind::kAuto;
  /// kZigzagDocuments: documents are grouped into units of at least 2R * this many tokens before zigzagging,
  /// so that tiny documents do not create tiny chunks (and millions of compute slices).
  int64_t min_document_chunk_tokens = 256;
  /// Backward of the ring engine (ring, usp, loongtrain; R > 1): the tail of the rank's own KV block (its q rows
  /// holding a share g / (e + g) of the block's pairs, e = dtype bytes, g = grad_accum_bytes) is computed after
  /// the last ring step, while the final dK,dV hop comes home, instead of at the first step; the hop then lands
  /// in a free dK,dV buffer that is added into dkv. false: the whole own block at the first step, the final hop
  /// straight into dkv (after the last compute, so nothing overlaps it).
  bool overlap_dkv_home_hop = true;
  Workload workload;
};

// ---- token maps and sharding ----------------------------------------------------------------------------------

/// A run of consecutive rows of a buffer: `length` global tokens starting at global_begin, or `length` pad rows.
struct Segment {
  int64_t global_begin = 0;  ///< unused (-1) for pads
  int64_t length = 0;
  bool pad = false;
  friend bool operator==(const Segment&, const Segment&) = default;
};

/// The global token held by each row of a buffer: segments in row order.
struct TokenMap {
  std::vector<Segment> segments;
  int64_t rows() const;       ///< total rows, pads included
  int64_t real_tokens() const;  ///< rows that are not pads
  /// Rows from the first row that is not a pad to the last one, both included (0 when every row is a pad): the
  /// most rows an item over this map's rows can span, since pads are never in a slice.
  int64_t real_row_span() const;
  /// Global token of local row r, or -1 for a pad row. O(segments).
  int64_t global_of(int64_t row) const;
  /// Appends a segment, merging it with the last one when contiguous (pads with pads).
  void append(Segment segment);
};

// ---- buffers, groups ----------------------------------------------------------------------------------------------

/// What a buffer holds (for executors' allocation and for memory reports).
enum class BufferRole : uint8_t {
  kQ,           ///< queries (input, or the head-split copy made by an all-to-all)
  kKV,          ///< keys and values (tensors = 2)
  kOut,         ///< attention output accumulator (fp32 in the executor; bytes counted at dtype)
  kLse,         ///< log-sum-exp per (head, row), fp32, heads x tokens
  kDOut,        ///< output gradient
  kDQ,          ///< query gradient accumulator
  kDKV,         ///< key and value gradients (tensors = 2)
};
std::string_view to_string(BufferRole role);

struct Buffer {
  int id = 0;             ///< index in Schedule::buffers
  std::string name;       ///< e.g. "kv", "kv_ring[1]", "q_heads", "dkv_scratch"
  BufferRole role = BufferRole::kQ;
  int64_t tokens = 0;     ///< rows
  int64_t heads = 0;      ///< heads per row (q heads or kv heads held)
  int64_t head_dim = 0;
  int64_t tensors = 1;    ///< 2 for K+V / dK+dV pairs (stored as two tensors of the same shape)
  int64_t element_bytes = 2;
  bool zero_at_start = false;  ///< accumulators: zero (lse: -inf) before the pass
  int64_t row_bytes() const { return heads * head_dim * tensors * element_bytes; }  ///< per token, per batch
  int64_t bytes(int64_t batch = 1) const { return batch * tokens * row_bytes(); }
};

/// Half-open range of heads [begin, end), global head indices.
struct HeadRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t count() const { return end - begin; }
  friend bool operator==(const HeadRange&, const HeadRange&) = default;
};

/// What a group is for; the simulator and executor create one communicator per distinct rank list.
enum class GroupKind : uint8_t { kWorld, kUlysses, kRing, kWindow };
std::string_view to_string(GroupKind kind);

struct Group {
  GroupKind kind = GroupKind::kWorld;
  std::vector<int> ranks;  ///< explicit global ranks, in group order (member i of a collective is ranks[i])
};

// ---- operations -------------------------------------------------------------------------------------------------

/// The stream an op runs on. One CUDA stream each in the executor; one timeline each in the simulator.
enum class Stream : uint8_t {
  kCompute = 0,     ///< attention kernels and local memory ops (zero, add)
  kSend = 1,        ///< point-to-point sends of the (inner) ring
  kRecv = 2,        ///< point-to-point receives of the (inner) ring
  kCollective = 3,  ///< all-gather, reduce-scatter, all-to-all
  kOuterSend = 4,   ///< loongtrain: sends between windows (outer ring)
  kOuterRecv = 5,   ///< loongtrain: receives between windows
};
inline constexpr int kNumStreams = 6;
std::string_view to_string(Stream stream);

enum class OpKind : uint8_t {
  kCompute = 0,        ///< an attention ComputeItem (Op::index into RankSchedule::items)
  kZero = 1,           ///< zero a region (Op::index into RankSchedule::memory_ops)
  kAdd = 2,            ///< dst region += src region, elementwise (memory_ops)
  kSend = 3,           ///< CommOp (Op::index into RankSchedule::comms)
  kRecv = 4,
  kAllGather = 5,      ///< every member contributes chunk_bytes; all receive every chunk, in group order
  kReduceScatter = 6,  ///< every member contributes group-size chunks; member i receives the sum of chunks i
  kAllToAll = 7,       ///< member i sends chunk j to member j; chunk_bytes per (i, j) pair
};
std::string_view to_string(OpKind kind);
inline bool is_communication(OpKind kind) {
  return kind != OpKind::kCompute && kind != OpKind::kZero && kind != OpKind::kAdd;
}

/// Rows [row_begin, row_begin + rows) of a buffer (all its heads unless stated otherwise by the op).
struct BufferRegion {
  int buffer = -1;
  int64_t row_begin = 0;
  int64_t rows = 0;
};

/// Attention of local queries against one key buffer; the mask resolved against the global mask.
struct ComputeItem {
  int q_buffer = -1;        ///< buffer holding the queries (role kQ)
  TokenRange q_rows;        ///< rows of q_buffer (kernel seqlen_q = q_rows.length())
  int k_buffer = -1;        ///< buffer holding K and V (role kKV)
  TokenRange k_rows;        ///< rows of k_buffer (kernel seqlen_k = k_rows.length())
  HeadRange q_heads;        ///< global q heads computed (the q/out buffers hold exactly these, in order)
  HeadRange kv_heads;       ///< global kv heads read (the k buffer holds exactly these, in order)
  int q_side = -1;          ///< Schedule::q_sides index: the out/lse/dout/dq buffers that go with q_buffer
  /// Mask in coordinates local to this item: rows [0, q_rows.length()), keys [0, k_rows.length()); sorted,
  /// non-overlapping. One list shared by all heads, or one per kv head of kv_heads (per-kv-head masks; a
  /// head's list may be empty), exactly as kernels' AttentionProblem::slices. Items with no slice at all are
  /// never emitted (fully masked work is dropped).
  std::vector<std::vector<Slice>> slices;
  int64_t pairs = 0;        ///< unmasked (q, k) pairs summed over q_heads, per batch element (exact)
  int q_map = -1;           ///< Schedule::token_maps index: global tokens of q_buffer's rows (for checks)
  int k_map = -1;           ///< the same for k_buffer's rows at this step
  /// Backward: where dK, dV of k_rows accumulate (rows grad_row_begin ...); -1 in forward.
  int grad_buffer = -1;
  int64_t grad_row_begin = 0;
  /// FLOPs of this item, FlashAttention convention (fwd 4 * pairs * D, bwd 2.5x), times batch.
  double flops(Pass pass, int64_t head_dim, int64_t batch) const;
};

/// A local memory operation on the compute stream: kZero fills dst; kAdd does dst += src (same shape).
struct MemoryOp {
  BufferRegion dst;
  BufferRegion src;  ///< kAdd only
  int64_t bytes = 0; ///< bytes written to dst (the simulator charges memory traffic from this)
};

/// All-to-all layout change (Ulysses).
enum class A2ALayout : uint8_t {
  kNone = 0,
  kSeqToHead = 1,  ///< in: [t tokens, all heads]; member j receives heads block j of every member's tokens,
                   ///< out: [group tokens in member order, heads block of this member]
  kHeadToSeq = 2,  ///< the inverse; for kv gradients with Hk < U the U/Hk replicas of a kv head are summed
};

struct CommOp {
  int peer = -1;             ///< send/recv: the other rank
  int peer_op = -1;          ///< send/recv: index of the matching op in the peer's RankSchedule::ops
  int group = -1;            ///< collectives: Schedule::groups index
  int collective_seq = -1;   ///< collectives: n-th collective of this group (equal on every member)
  BufferRegion src;          ///< what is read (send, collectives' input)
  BufferRegion dst;          ///< what is filled (recv, collectives' output)
  A2ALayout layout = A2ALayout::kNone;
  int64_t chunk_bytes = 0;   ///< send/recv: message; all-gather: per member contribution; reduce-scatter:
                             ///< per member output; all-to-all: per (sender, receiver) pair
  int64_t bytes_sent = 0;    ///< bytes this rank puts on links (self-chunks excluded), per pass
  int64_t bytes_received = 0;
  std::string what;          ///< "kv", "dkv", "q", "out", ... (trace labels and checks)
};

struct Op {
  OpKind kind = OpKind::kCompute;
  Stream stream = Stream::kCompute;
  int step = 0;             ///< the method's step this op belongs to, 0 .. num_steps-1 (see each method)
  int index = -1;           ///< into items (kCompute), memory_ops (kZero/kAdd) or comms (the rest)
  int32_t deps_begin = 0;   ///< deps are RankSchedule::dep_pool[deps_begin, deps_begin + deps_count)
  int32_t deps_count = 0;
};

struct RankSchedule {
  int rank = 0;
  std::vector<Op> ops;             ///< issue order
  std::vector<ComputeItem> items;
  std::vector<MemoryOp> memory_ops;
  std::vector<CommOp> comms;
  std::vector<int32_t> dep_pool;
  /// Cross-stream dependencies of op k: indices of earlier ops of this rank on other streams.
  std::span<const int32_t> deps(int op) const {
    return {dep_pool.data() + ops[op].deps_begin, static_cast<size_t>(ops[op].deps_count)};
  }
  int64_t bytes_sent() const;     ///< summed over comms
  int64_t compute_pairs() const;  ///< summed over items
};

/// The buffers that go with one q buffer (ids into Schedule::buffers; -1 where the pass has none).
struct QSide {
  int q = -1;
  int out = -1;   ///< forward: output accumulator (merged by items); backward: saved output (read)
  int lse = -1;   ///< forward: written; backward: read
  int dout = -1;  ///< backward only
  int dq = -1;    ///< backward only: accumulator
};

/// The 2-D layout of a method: rank -> (Ulysses member u, ring position p = window a * (R/W) + index i).
struct GridLayout {
  int64_t ulysses = 1;  ///< U
  int64_t ring = 1;     ///< R
  int64_t windows = 1;  ///< W
  Placement placement = Placement::kUlyssesIntra;
  int64_t window_size() const { return ring / windows; }
  int rank_of(int64_t u, int64_t p) const {  ///< ulysses_intra: p*U + u; ring_intra: u*R + p
    return static_cast<int>(placement == Placement::kUlyssesIntra ? p * ulysses + u : u * ring + p);
  }
  int64_t ulysses_index(int rank) const { return placement == Placement::kUlyssesIntra ? rank % ulysses : rank / ring; }
  int64_t ring_position(int rank) const { return placement == Placement::kUlyssesIntra ? rank / ulysses : rank % ring; }
};

struct Schedule {
  CpConfig config;              ///< normalized (degrees filled in)
  Pass pass = Pass::kForward;
  GridLayout layout;
  ShardingKind sharding = ShardingKind::kContiguous;  ///< the one actually used
  int64_t local_tokens = 0;     ///< t: rows of each rank's input shard (pads included), equal on all ranks
  int64_t pad_tokens = 0;       ///< pad rows over all ranks
  std::vector<TokenMap> token_maps;  ///< [0, P): rank r's input shard; more maps for gathered/head buffers
  std::vector<Buffer> buffers;       ///< allocated on every rank
  std::vector<Group> groups;
  std::vector<RankSchedule> ranks;   ///< index = global rank
  int num_steps = 0;                 ///< max step + 1
  std::vector<QSide> q_sides;        ///< the buffers that go with each q buffer

  int gpus() const { return static_cast<int>(ranks.size()); }
  int64_t total_pairs() const;  ///< over all ranks: equals Hq * mask area (shared) for a correct schedule
  int64_t peak_buffer_bytes() const;  ///< sum of buffers' bytes (per rank, batch included)
};

}  // namespace lcab::cp
