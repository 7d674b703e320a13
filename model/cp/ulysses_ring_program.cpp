#include "model/cp/ulysses_ring_program.h"

#include <algorithm>

#include "model/cp/schedule_builder.h"
#include "model/error.h"

namespace lcab::cp {
namespace {

// a mod n for a in [-n, 2n) (ring arithmetic of one hop or one step back), without a division.
int64_t wrap(int64_t a, int64_t n) { return a < 0 ? a + n : (a >= n ? a - n : a); }

// The layout is checked before anything is built from it.
PositionSharding shard(const CpConfig& config) {
  LCAB_CHECK(config.workload.mask, "CP config has no mask");
  const int64_t U = config.ulysses_degree, R = config.ring_degree, W = config.windows, P = config.gpus;
  LCAB_CHECK(U >= 1 && R >= 1 && U * R == P && W >= 1 && R % W == 0,
             "unnormalized CP layout U=" << U << " R=" << R << " W=" << W << " for P=" << P);
  return shard_sequence(*config.workload.mask, config.ring_degree, config.ulysses_degree, config.sharding,
                        config.min_document_chunk_tokens);
}

// Division by a fixed positive divisor: a shift and a mask for powers of two (the degrees the planner makes),
// else the division. emit() divides ranks and steps for every op of a million-op ring.
class Divisor {
 public:
  explicit Divisor(int64_t n = 1) : n_(n), shift_(-1) {
    for (int s = 0; s < 62; ++s)
      if (int64_t{1} << s == n) shift_ = s;
  }
  int64_t quotient(int64_t x) const { return shift_ >= 0 ? x >> shift_ : x / n_; }    // x >= 0
  int64_t remainder(int64_t x) const { return shift_ >= 0 ? x & (n_ - 1) : x % n_; }  // x >= 0

 private:
  int64_t n_;
  int shift_;
};

}  // namespace

// Shapes and buffer ids shared by every rank (all ranks allocate the same buffers).
struct RingShape {
  int64_t U, R, W, w, P;
  int64_t t, T;          // rows per rank, rows per position
  int64_t hq, hk;        // q heads and kv heads per Ulysses member
  int64_t H, Hk;         // q heads and kv heads of the workload
  int64_t batch, D, dt, gab;
  bool fwd;
  bool cut_own = false;  // this pass cuts the own KV block (backward, UlyssesRingProgram::cuts_own_block)
  // buffers (-1 when absent)
  int q = -1, kv = -1, out = -1, lse = -1, dout = -1, dq = -1, dkv = -1;             // sequence layout
  int q_h = -1, kv_h = -1, out_h = -1, lse_h = -1, dout_h = -1, dq_h = -1, dkv_h = -1;  // head layout (U > 1)
  int kv_inner[2] = {-1, -1}, kv_outer[2] = {-1, -1};
  int dkv_inner[2] = {-1, -1}, dkv_scratch = -1, dkv_window = -1, dkv_outer = -1;
  int q_side = -1;
  std::vector<int> ulysses_group;  // per position
  Divisor by_U, by_R, by_w;
  // the buffers the ring works on
  int Q() const { return U > 1 ? q_h : q; }
  int KV() const { return U > 1 ? kv_h : kv; }
  int OUT() const { return U > 1 ? out_h : out; }
  int LSE() const { return U > 1 ? lse_h : lse; }
  int DOUT() const { return U > 1 ? dout_h : dout; }
  int DQ() const { return U > 1 ? dq_h : dq; }
  int DKV() const { return U > 1 ? dkv_h : dkv; }
  int64_t kv_block_bytes() const { return batch * 2 * T * hk * D * dt; }
  int64_t dkv_block_bytes() const { return batch * 2 * T * hk * D * gab; }
  int window_result() const { return W == 1 ? DKV() : dkv_window; }
  /// Backward with the own block's tail deferred: the free dKV buffer the final hop lands in (the inner buffer
  /// the second-to-last inner step sent, or the outer buffer the last outer step has added from).
  int home_landing() const { return W == 1 ? dkv_inner[w % 2] : dkv_outer; }
  // dKV buffer the grads of step (o, m) accumulate into (before any transfer)
  int travelling_dkv(int64_t m) const { return w == 1 ? window_result() : dkv_inner[m % 2]; }
  int kv_block(int64_t o, int64_t m) const {
    if (m > 0) return kv_inner[m % 2];
    return o == 0 ? KV() : kv_outer[o % 2];
  }
  int first_ring_step() const { return U > 1 ? 1 : 0; }
  int last_ring_step() const { return first_ring_step() + static_cast<int>(R) - 1; }
  // token map of a ring position's rows (the head-layout map with U > 1, else the rank's own shard)
  int map_of_position(const GridLayout& layout, int64_t position) const {
    return static_cast<int>(U > 1 ? P + position : layout.rank_of(0, position));
  }
};

namespace {

constexpr int64_t kCutRowAlign = UlyssesRingProgram::kOwnCutRowAlign;

// The rank's own KV block cut by q rows for the backward pass (RingItemPart). No cut (everything in head) when
// either part would have no cell.
struct OwnBlockCut {
  std::vector<std::vector<Slice>> head, tail;
};

bool any_cell(const std::vector<std::vector<Slice>>& lists) {
  return std::any_of(lists.begin(), lists.end(), [](const auto& list) { return !list.empty(); });
}

OwnBlockCut cut_own_block(std::vector<std::vector<Slice>> lists, double tail_share) {
  const int64_t at = cut_for_tail_share(lists, CutAxis::kQueries, tail_share, kCutRowAlign);
  CutSlices split = cut_slices(lists, CutAxis::kQueries, at);
  if (!any_cell(split.before) || !any_cell(split.after)) return {std::move(lists), {}};
  return {std::move(split.before), std::move(split.after)};
}

// Backward: the share of the own block computed after the last ring step. The final hop carries g-byte dK,dV
// and the first KV hop e-byte K,V of the same rows, so a share g / (e + g) gives each hop own-block compute in
// proportion to its bytes.
double own_tail_share(const RingShape& p) {
  return static_cast<double>(p.gab) / static_cast<double>(p.dt + p.gab);
}

void add_buffers(ScheduleBuilder& sb, RingShape& p) {
  const bool fwd = p.fwd;
  const int64_t H = p.H, Hk = p.Hk, D = p.D, dt = p.dt, gab = p.gab, t = p.t, T = p.T;
  constexpr int64_t kFp32 = 4;
  const bool split = p.U > 1;
  // Sequence layout: the rank's shard. Accumulators are fp32; with U > 1 the head-layout copies accumulate and
  // the sequence-layout outputs are written by the all-to-all out, in dtype.
  p.q = sb.add_buffer(make_buffer("q", BufferRole::kQ, t, H, D, 1, dt));
  p.kv = sb.add_buffer(make_buffer("kv", BufferRole::kKV, t, Hk, D, 2, dt));
  p.out = sb.add_buffer(make_buffer("out", BufferRole::kOut, t, H, D, 1, split ? dt : kFp32, fwd && !split));
  p.lse = sb.add_buffer(make_buffer("lse", BufferRole::kLse, t, H, 1, 1, kFp32, fwd && !split));
  if (!fwd) {
    p.dout = sb.add_buffer(make_buffer("dout", BufferRole::kDOut, t, H, D, 1, dt));
    p.dq = sb.add_buffer(make_buffer("dq", BufferRole::kDQ, t, H, D, 1, split ? dt : kFp32, !split));
    p.dkv = sb.add_buffer(make_buffer("dkv", BufferRole::kDKV, t, Hk, D, 2, split ? dt : gab, !split));
  }
  if (split) {
    p.q_h = sb.add_buffer(make_buffer("q_heads", BufferRole::kQ, T, p.hq, D, 1, dt));
    p.kv_h = sb.add_buffer(make_buffer("kv_heads", BufferRole::kKV, T, p.hk, D, 2, dt));
    p.out_h = sb.add_buffer(make_buffer("out_heads", BufferRole::kOut, T, p.hq, D, 1, kFp32, fwd));
    p.lse_h = sb.add_buffer(make_buffer("lse_heads", BufferRole::kLse, T, p.hq, 1, 1, kFp32, fwd));
    if (!fwd) {
      p.dout_h = sb.add_buffer(make_buffer("dout_heads", BufferRole::kDOut, T, p.hq, D, 1, dt));
      p.dq_h = sb.add_buffer(make_buffer("dq_heads", BufferRole::kDQ, T, p.hq, D, 1, kFp32, true));
      p.dkv_h = sb.add_buffer(make_buffer("dkv_heads", BufferRole::kDKV, T, p.hk, D, 2, gab, true));
    }
  }
  if (p.w > 1)
    for (int n = 0; n < 2; ++n)
      p.kv_inner[n] = sb.add_buffer(make_buffer("kv_inner[" + std::to_string(n) + "]", BufferRole::kKV, T, p.hk, D, 2, dt));
  if (p.W > 1)
    for (int n = 0; n < 2; ++n)
      p.kv_outer[n] = sb.add_buffer(make_buffer("kv_outer[" + std::to_string(n) + "]", BufferRole::kKV, T, p.hk, D, 2, dt));
  if (!fwd && p.R > 1) {
    if (p.w > 1) {
      for (int n = 0; n < 2; ++n)
        p.dkv_inner[n] =
            sb.add_buffer(make_buffer("dkv_inner[" + std::to_string(n) + "]", BufferRole::kDKV, T, p.hk, D, 2, gab));
      p.dkv_scratch = sb.add_buffer(make_buffer("dkv_scratch", BufferRole::kDKV, T, p.hk, D, 2, gab));
    }
    if (p.W > 1) {
      p.dkv_window = sb.add_buffer(make_buffer("dkv_window", BufferRole::kDKV, T, p.hk, D, 2, gab));
      p.dkv_outer = sb.add_buffer(make_buffer("dkv_outer", BufferRole::kDKV, T, p.hk, D, 2, gab));
    }
  }
  QSide side;
  side.q = p.Q();
  side.out = p.OUT();
  side.lse = p.LSE();
  if (!fwd) {
    side.dout = p.DOUT();
    side.dq = p.DQ();
  }
  p.q_side = sb.add_q_side(side);
}

BufferRegion whole(int buffer, int64_t rows) { return BufferRegion{buffer, 0, rows}; }

// The all-to-alls of step 0 (sequence to heads) and of step R + 1 (heads to sequence).
void emit_all_to_alls(const RingShape& p, int64_t pos, bool in, RingOpSink& sink) {
  const int64_t q_chunk = p.batch * p.t * p.hq * p.D * p.dt;
  const int64_t kv_chunk = p.batch * 2 * p.t * p.hk * p.D * p.dt;
  const int ug = p.ulysses_group[pos];
  if (in) {
    if (p.fwd) {
      sink.collective(OpKind::kAllToAll, ug, whole(p.q, p.t), whole(p.q_h, p.T), q_chunk, 0, "q", A2ALayout::kSeqToHead);
      sink.collective(OpKind::kAllToAll, ug, whole(p.kv, p.t), whole(p.kv_h, p.T), kv_chunk, 0, "kv",
                      A2ALayout::kSeqToHead);
    } else {
      sink.collective(OpKind::kAllToAll, ug, whole(p.dout, p.t), whole(p.dout_h, p.T), q_chunk, 0, "dout",
                      A2ALayout::kSeqToHead);
    }
    return;
  }
  const int last_step = p.first_ring_step() + static_cast<int>(p.R);
  if (p.fwd) {
    sink.collective(OpKind::kAllToAll, ug, whole(p.out_h, p.T), whole(p.out, p.t), q_chunk, last_step, "out",
                    A2ALayout::kHeadToSeq);
  } else {
    sink.collective(OpKind::kAllToAll, ug, whole(p.dq_h, p.T), whole(p.dq, p.t), q_chunk, last_step, "dq",
                    A2ALayout::kHeadToSeq);
    if (p.cut_own && sink.item_key_rows(pos, RingItemPart::kOwnTail))  // the final hop landed aside
      sink.add(whole(p.DKV(), p.T), whole(p.home_landing(), p.T), p.last_ring_step());
    sink.collective(OpKind::kAllToAll, ug, whole(p.dkv_h, p.T), whole(p.dkv, p.t), kv_chunk, last_step, "dkv",
                    A2ALayout::kHeadToSeq);
  }
}

// Backward: the compute op `op` on key rows `k_rows` with its dK,dV into `into`: directly when `direct`, else
// through dkv_scratch (zeroed, then added into `into`).
void emit_grads(const RingShape& p, RingComputeOp op, TokenRange k_rows, int step, int into, bool direct,
                RingOpSink& sink) {
  const BufferRegion scratch{p.dkv_scratch, k_rows.begin, k_rows.length()};
  if (!direct) sink.zero(scratch, step);
  op.grad_buffer = direct ? into : p.dkv_scratch;
  op.grad_row_begin = k_rows.begin;
  sink.compute(op, step, {p.Q(), op.k_buffer, p.OUT(), p.LSE(), p.DOUT()}, {p.DQ(), op.grad_buffer});
  if (!direct) sink.add({into, k_rows.begin, k_rows.length()}, scratch, step);
}

// Ring step (o, m) of the rank at (u, pos).
void emit_ring_step(const RingShape& p, const GridLayout& layout, int64_t u, int64_t pos, int64_t o, int64_t m,
                    RingOpSink& sink) {
  const int64_t a = p.by_w.quotient(pos), i = p.by_w.remainder(pos);
  auto rank_at = [&](int64_t window, int64_t index) {
    return layout.rank_of(u, wrap(window, p.W) * p.w + wrap(index, p.w));
  };
  const int inner_next = rank_at(a, i + 1), inner_prev = rank_at(a, i - 1);
  const int outer_next = rank_at(a + 1, i), outer_prev = rank_at(a - 1, i);
  const int step = p.first_ring_step() + static_cast<int>(o * p.w + m);
  const int kv_here = p.kv_block(o, m);
  if (m == 0 && o + 1 < p.W) {  // the next outer block, overlapped with this whole outer step
    sink.send(outer_next, whole(kv_here, p.T), p.kv_block_bytes(), Stream::kOuterSend, step, "kv");
    sink.recv(outer_prev, whole(p.kv_outer[(o + 1) % 2], p.T), p.kv_block_bytes(), Stream::kOuterRecv, step, "kv");
  }
  if (m + 1 < p.w) {  // the next inner block, overlapped with this step's compute
    sink.send(inner_next, whole(kv_here, p.T), p.kv_block_bytes(), Stream::kSend, step, "kv");
    sink.recv(inner_prev, whole(p.kv_inner[(m + 1) % 2], p.T), p.kv_block_bytes(), Stream::kRecv, step, "kv");
  }
  RingComputeOp op;
  op.source = wrap(a - o, p.W) * p.w + wrap(i - m, p.w);
  op.q_buffer = p.Q();
  op.k_buffer = kv_here;
  op.q_side = p.q_side;
  op.q_map = p.map_of_position(layout, pos);
  op.k_map = p.map_of_position(layout, op.source);
  if (!p.fwd && p.cut_own && step == p.first_ring_step()) op.part = RingItemPart::kOwnHead;
  const std::optional<TokenRange> k_rows = sink.item_key_rows(op.source, op.part);
  if (p.fwd) {
    if (k_rows) sink.compute(op, step, {p.Q(), kv_here}, {p.OUT(), p.LSE()});
    return;
  }
  // backward: grads of this KV block into the travelling dKV buffer
  const int travelling = p.travelling_dkv(m);
  const bool starts_fresh = m == 0 && travelling != p.DKV();  // DKV is zero at start and used once
  if (starts_fresh) sink.zero(whole(travelling, p.T), step);
  if (k_rows) emit_grads(p, op, *k_rows, step, travelling, m == 0, sink);
  // the own block's tail (if cut) fills the compute stream while the dKV goes home: after the last inner hop
  // (so that it also covers the wait for it before a window's outer add), else after the last outer hop
  std::optional<TokenRange> tail_rows;
  RingComputeOp tail = op;
  if (p.cut_own && step == p.last_ring_step()) {
    tail.source = pos;
    tail.k_buffer = p.KV();
    tail.k_map = op.q_map;
    tail.part = RingItemPart::kOwnTail;
    tail_rows = sink.item_key_rows(pos, RingItemPart::kOwnTail);
  }
  const int home = tail_rows ? p.home_landing() : p.DKV();
  if (p.w > 1) {  // pass the dKV on; after the last inner step it goes to the rank holding the outer block
    const int into = m + 1 < p.w ? p.dkv_inner[(m + 1) % 2] : (p.W == 1 ? home : p.dkv_window);
    sink.send(inner_next, whole(travelling, p.T), p.dkv_block_bytes(), Stream::kSend, step, "dkv");
    sink.recv(inner_prev, whole(into, p.T), p.dkv_block_bytes(), Stream::kRecv, step, "dkv");
    if (tail_rows) emit_grads(p, tail, *tail_rows, step, p.DKV(), true, sink);
  }
  if (m + 1 == p.w && p.W > 1) {  // window a's share done: add earlier windows' partial, pass it on
    if (o > 0) sink.add(whole(p.dkv_window, p.T), whole(p.dkv_outer, p.T), step);
    sink.send(outer_next, whole(p.dkv_window, p.T), p.dkv_block_bytes(), Stream::kOuterSend, step, "dkv");
    const int into = o + 1 < p.W ? p.dkv_outer : home;
    sink.recv(outer_prev, whole(into, p.T), p.dkv_block_bytes(), Stream::kOuterRecv, step, "dkv");
  }
  if (tail_rows && p.w == 1) emit_grads(p, tail, *tail_rows, step, p.DKV(), true, sink);
  // the home landing joins dK,dV; with U > 1 after the all-to-all of dQ (emit_all_to_alls)
  if (tail_rows && p.U == 1) sink.add(whole(p.DKV(), p.T), whole(p.home_landing(), p.T), step);
}

}  // namespace

UlyssesRingProgram::UlyssesRingProgram(const CpConfig& config, Pass pass)
    : sharding_(shard(config)), index_(sharding_.positions) {
  const Workload& wl = config.workload;
  Schedule& s = skeleton_;
  s.config = config;
  s.pass = pass;
  s.layout = {config.ulysses_degree, config.ring_degree, config.windows, config.placement};
  const GridLayout& layout = s.layout;
  auto shape = std::make_shared<RingShape>();
  RingShape& p = *shape;
  p.U = layout.ulysses;
  p.R = layout.ring;
  p.W = layout.windows;
  p.w = layout.window_size();
  p.P = config.gpus;
  p.by_U = Divisor(p.U);
  p.by_R = Divisor(p.R);
  p.by_w = Divisor(p.w);
  p.H = wl.heads;
  p.Hk = wl.kv_heads;
  p.hq = wl.heads / p.U;
  p.hk = ulysses_kv_heads(0, p.U, wl.heads, wl.kv_heads).count();
  p.batch = wl.batch;
  p.D = wl.head_dim;
  p.dt = wl.dtype_bytes;
  p.gab = wl.grad_accum_bytes;
  p.fwd = pass == Pass::kForward;
  cuts_own_block_ = p.R > 1 && config.overlap_dkv_home_hop;
  p.cut_own = !p.fwd && cuts_own_block_;

  s.sharding = sharding_.kind;
  p.T = sharding_.rows_per_position;
  p.t = p.T / p.U;
  s.local_tokens = p.t;
  s.pad_tokens = sharding_.pad_tokens;

  ScheduleBuilder sb(s);
  for (int r = 0; r < p.P; ++r) {
    const int64_t u = layout.ulysses_index(r);
    sb.add_token_map(slice_rows(sharding_.positions[layout.ring_position(r)], u * p.t, (u + 1) * p.t));
  }
  if (p.U > 1)
    for (const TokenMap& m : sharding_.positions) sb.add_token_map(m);
  if (p.U > 1) {
    for (int64_t pos = 0; pos < p.R; ++pos) {
      std::vector<int> ranks;
      for (int64_t u = 0; u < p.U; ++u) ranks.push_back(layout.rank_of(u, pos));
      p.ulysses_group.push_back(sb.add_group(GroupKind::kUlysses, std::move(ranks)));
    }
  }
  if (p.R > 1) {
    for (int64_t u = 0; u < p.U; ++u) {
      std::vector<int> ranks;
      for (int64_t pos = 0; pos < p.R; ++pos) ranks.push_back(layout.rank_of(u, pos));
      sb.add_group(GroupKind::kRing, std::move(ranks));
      for (int64_t a = 0; p.W > 1 && a < p.W; ++a) {
        std::vector<int> window;
        for (int64_t i = 0; i < p.w; ++i) window.push_back(layout.rank_of(u, a * p.w + i));
        sb.add_group(GroupKind::kWindow, std::move(window));
      }
    }
  }
  add_buffers(sb, p);
  num_steps_ = static_cast<int>(p.R) + (p.U > 1 ? 2 : 0);
  shape_ = std::move(shape);
}

void UlyssesRingProgram::emit(int rank, int step, RingOpSink& sink) const {
  const RingShape& p = *shape_;
  const GridLayout& layout = skeleton_.layout;
  const bool ulysses_intra = layout.placement == Placement::kUlyssesIntra;  // GridLayout's two layouts
  const int64_t u = ulysses_intra ? p.by_U.remainder(rank) : p.by_R.quotient(rank);
  const int64_t pos = ulysses_intra ? p.by_U.quotient(rank) : p.by_R.remainder(rank);
  if (p.U > 1 && (step == 0 || step == num_steps_ - 1)) {
    emit_all_to_alls(p, pos, step == 0, sink);
    return;
  }
  const int64_t k = step - p.first_ring_step();
  LCAB_CHECK(k >= 0 && k < p.R, "step " << step << " is outside the program's " << num_steps_ << " steps");
  emit_ring_step(p, layout, u, pos, p.by_w.quotient(k), p.by_w.remainder(k), sink);
}

double UlyssesRingProgram::own_tail_share() const { return cp::own_tail_share(*shape_); }

HeadRange UlyssesRingProgram::q_heads(int64_t u) const { return ulysses_q_heads(u, shape_->U, shape_->H); }

HeadRange UlyssesRingProgram::kv_heads(int64_t u) const {
  return ulysses_kv_heads(u, shape_->U, shape_->H, shape_->Hk);
}

std::optional<ComputeItem> UlyssesRingProgram::item(const MaskResolver& resolver, int64_t u, int64_t source,
                                                     RingItemPart part) const {
  const HeadRange kv = kv_heads(u);
  std::vector<std::vector<Slice>> lists;
  for (int h : head_lists_for(resolver, kv)) lists.push_back(resolver.result()[h][source]);
  if (part != RingItemPart::kWhole) {
    OwnBlockCut cut = cut_own_block(std::move(lists), cp::own_tail_share(*shape_));
    lists = part == RingItemPart::kOwnHead ? std::move(cut.head) : std::move(cut.tail);
  }
  return make_item(std::move(lists), q_heads(u), kv, resolver.per_kv_head(), shape_->H, shape_->Hk);
}

bool UlyssesRingProgram::item_into(const MaskResolver& resolver, int64_t u, int64_t source, ComputeItem& out) const {
  const HeadRange kv = kv_heads(u);
  // The head lists of head_lists_for(resolver, kv), without making that list.
  const int64_t first = resolver.per_kv_head() ? kv.begin : 0;
  const int64_t lists = resolver.per_kv_head() ? kv.end - kv.begin : 1;
  out.slices.resize(static_cast<size_t>(lists));
  for (int64_t n = 0; n < lists; ++n) {
    const std::vector<Slice>& given = resolver.result()[static_cast<size_t>(first + n)][static_cast<size_t>(source)];
    out.slices[static_cast<size_t>(n)].assign(given.begin(), given.end());
  }
  return make_item_in_place(out, q_heads(u), kv, resolver.per_kv_head(), shape_->H, shape_->Hk);
}

}  // namespace lcab::cp
