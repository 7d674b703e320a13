#include "model/cp/ulysses_ring.h"

#include <algorithm>
#include <optional>

#include "model/cp/method_common.h"
#include "model/cp/schedule_builder.h"
#include "model/cp/sharding.h"
#include "model/error.h"

namespace lcab::cp {
namespace {

int64_t mod(int64_t a, int64_t n) { return ((a % n) + n) % n; }

// Shapes and buffer ids shared by every rank (all ranks allocate the same buffers).
struct Plan {
  int64_t U, R, W, w, P;
  int64_t t, T;          // rows per rank, rows per position
  int64_t hq, hk;        // q heads and kv heads per Ulysses member
  int64_t batch, D, dt, gab;
  bool overlap_home_hop = true;  // CpConfig::overlap_dkv_home_hop
  // buffers (-1 when absent)
  int q = -1, kv = -1, out = -1, lse = -1, dout = -1, dq = -1, dkv = -1;             // sequence layout
  int q_h = -1, kv_h = -1, out_h = -1, lse_h = -1, dout_h = -1, dq_h = -1, dkv_h = -1;  // head layout (U > 1)
  int kv_inner[2] = {-1, -1}, kv_outer[2] = {-1, -1};
  int dkv_inner[2] = {-1, -1}, dkv_scratch = -1, dkv_window = -1, dkv_outer = -1;
  int q_side = -1;
  std::vector<int> ulysses_group;  // per position
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
};

void add_buffers(ScheduleBuilder& sb, Plan& p, Pass pass, int64_t H, int64_t Hk) {
  const bool fwd = pass == Pass::kForward;
  const int64_t D = p.D, dt = p.dt, gab = p.gab, t = p.t, T = p.T;
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

// q rows of an own-block cut are a multiple of this from the block's first row: a multiple of every kernel's q
// tile (lcab_flash: 128 forward, 64 backward), so both parts keep the tiles of the uncut rows.
constexpr int64_t kCutRowAlign = 128;

// One rank's place in the grid and what its ops need; the emit_* functions append its ops in issue order.
struct RankContext {
  RankBuilder& rb;
  const Plan& p;
  const GridLayout& layout;
  bool fwd = true;
  int64_t u = 0, pos = 0;
  int64_t a = 0, i = 0;  // window, index in the window
  const MaskResolver& resolver;  // resolved for this rank's position
  const std::vector<int>& head_lists;
  HeadRange q_heads, kv_heads;
  int64_t H = 0, Hk = 0;

  int first_ring_step() const { return p.U > 1 ? 1 : 0; }
  int ring_step(int64_t o, int64_t m) const { return first_ring_step() + static_cast<int>(o * p.w + m); }
  int last_ring_step() const { return ring_step(p.W - 1, p.w - 1); }
  int rank_at(int64_t window, int64_t index) const {
    return layout.rank_of(u, mod(window, p.W) * p.w + mod(index, p.w));
  }
  int inner_next() const { return rank_at(a, i + 1); }
  int inner_prev() const { return rank_at(a, i - 1); }
  int outer_next() const { return rank_at(a + 1, i); }
  int outer_prev() const { return rank_at(a - 1, i); }
  int map_of_position(int64_t position) const {
    return static_cast<int>(p.U > 1 ? p.P + position : layout.rank_of(0, position));
  }
  int64_t source_position(int64_t o, int64_t m) const { return mod(a - o, p.W) * p.w + mod(i - m, p.w); }
  static BufferRegion whole(int buffer, int64_t rows) { return BufferRegion{buffer, 0, rows}; }

  /// The resolved slices of this rank's queries against the KV block of `source`, one list per head list.
  std::vector<std::vector<Slice>> lists_of(int64_t source) const {
    std::vector<std::vector<Slice>> lists;
    lists.reserve(head_lists.size());
    for (int h : head_lists) lists.push_back(resolver.result()[h][source]);
    return lists;
  }
  /// A compute item of this rank's queries against `kv_buffer` holding the block of `source`.
  std::optional<ComputeItem> ring_item(std::vector<std::vector<Slice>> lists, int kv_buffer, int64_t source) const {
    std::optional<ComputeItem> item = make_item(std::move(lists), q_heads, kv_heads, resolver.per_kv_head(), H, Hk);
    if (item) {
      item->q_buffer = p.Q();
      item->k_buffer = kv_buffer;
      item->q_side = p.q_side;
      item->q_map = map_of_position(pos);
      item->k_map = map_of_position(source);
    }
    return item;
  }

  void emit_all_to_all_in() const;
  /// The all-to-all of a head-layout result back to the sequence layout, after the ring.
  void emit_all_to_all_out(int buffer_heads, int buffer, int64_t chunk_bytes, const char* what) const;
  int64_t q_chunk_bytes() const { return p.batch * p.t * p.hq * p.D * p.dt; }
  int64_t kv_chunk_bytes() const { return p.batch * 2 * p.t * p.hk * p.D * p.dt; }
  void emit_kv_hops(int64_t o, int64_t m) const;
  /// Backward: dK,dV of `item` (may be absent) into `into`: directly when `direct`, else through dkv_scratch.
  void emit_grads(std::optional<ComputeItem> item, int step, int into, bool direct) const;
  /// Backward: the inner hop of the travelling dKV of step (o, m), if any; a final hop lands in `home`.
  void emit_inner_dkv_hop(int64_t o, int64_t m, int home) const;
  /// Backward, after the last inner step of an outer step (W > 1): the window's share summed with earlier
  /// windows' partial and passed to the next window; the final hop lands in `home`.
  void emit_outer_dkv_hop(int64_t o, int64_t m, int home) const;
};

void RankContext::emit_all_to_all_in() const {
  const int ug = p.ulysses_group[pos];
  const int64_t q_chunk = q_chunk_bytes(), kv_chunk = kv_chunk_bytes();
  if (fwd) {
    rb.collective(OpKind::kAllToAll, ug, whole(p.q, p.t), whole(p.q_h, p.T), q_chunk, 0, "q", A2ALayout::kSeqToHead);
    rb.collective(OpKind::kAllToAll, ug, whole(p.kv, p.t), whole(p.kv_h, p.T), kv_chunk, 0, "kv",
                  A2ALayout::kSeqToHead);
  } else {
    rb.collective(OpKind::kAllToAll, ug, whole(p.dout, p.t), whole(p.dout_h, p.T), q_chunk, 0, "dout",
                  A2ALayout::kSeqToHead);
  }
}

void RankContext::emit_all_to_all_out(int buffer_heads, int buffer, int64_t chunk_bytes, const char* what) const {
  rb.collective(OpKind::kAllToAll, p.ulysses_group[pos], whole(buffer_heads, p.T), whole(buffer, p.t), chunk_bytes,
                last_ring_step() + 1, what, A2ALayout::kHeadToSeq);
}

void RankContext::emit_kv_hops(int64_t o, int64_t m) const {
  const int step = ring_step(o, m);
  const int kv_here = p.kv_block(o, m);
  if (m == 0 && o + 1 < p.W) {  // the next outer block, overlapped with this whole outer step
    rb.send(outer_next(), whole(kv_here, p.T), p.kv_block_bytes(), Stream::kOuterSend, step, "kv");
    rb.recv(outer_prev(), whole(p.kv_outer[(o + 1) % 2], p.T), p.kv_block_bytes(), Stream::kOuterRecv, step, "kv");
  }
  if (m + 1 < p.w) {  // the next inner block, overlapped with this step's compute
    rb.send(inner_next(), whole(kv_here, p.T), p.kv_block_bytes(), Stream::kSend, step, "kv");
    rb.recv(inner_prev(), whole(p.kv_inner[(m + 1) % 2], p.T), p.kv_block_bytes(), Stream::kRecv, step, "kv");
  }
}

void RankContext::emit_grads(std::optional<ComputeItem> item, int step, int into, bool direct) const {
  if (!item) return;
  const TokenRange k_rows = item->k_rows;
  const int kv_buffer = item->k_buffer;
  const int grads = direct ? into : p.dkv_scratch;
  const BufferRegion scratch{p.dkv_scratch, k_rows.begin, k_rows.length()};
  if (!direct) rb.zero(scratch, step);
  item->grad_buffer = grads;
  item->grad_row_begin = k_rows.begin;
  rb.compute(std::move(*item), step, {p.Q(), kv_buffer, p.OUT(), p.LSE(), p.DOUT()}, {p.DQ(), grads});
  if (!direct) rb.add({into, k_rows.begin, k_rows.length()}, scratch, step);
}

void RankContext::emit_inner_dkv_hop(int64_t o, int64_t m, int home) const {
  if (p.w == 1) return;
  // pass the dKV on; after the last inner step it goes to the rank holding the outer block
  const int into = m + 1 < p.w ? p.dkv_inner[(m + 1) % 2] : (p.W == 1 ? home : p.dkv_window);
  rb.send(inner_next(), whole(p.travelling_dkv(m), p.T), p.dkv_block_bytes(), Stream::kSend, ring_step(o, m), "dkv");
  rb.recv(inner_prev(), whole(into, p.T), p.dkv_block_bytes(), Stream::kRecv, ring_step(o, m), "dkv");
}

void RankContext::emit_outer_dkv_hop(int64_t o, int64_t m, int home) const {
  if (m + 1 < p.w || p.W == 1) return;
  // window a's share done: add earlier windows' partial, pass it on
  const int step = ring_step(o, m);
  if (o > 0) rb.add(whole(p.dkv_window, p.T), whole(p.dkv_outer, p.T), step);
  rb.send(outer_next(), whole(p.dkv_window, p.T), p.dkv_block_bytes(), Stream::kOuterSend, step, "dkv");
  const int into = o + 1 < p.W ? p.dkv_outer : home;
  rb.recv(outer_prev(), whole(into, p.T), p.dkv_block_bytes(), Stream::kOuterRecv, step, "dkv");
}

// The rank's own KV block cut by q rows for the backward pass: `head` at the first ring step, `tail` after the
// last one, overlapping the final dKV hop. No cut (everything in head) when either part would have no cell.
struct OwnBlockCut {
  std::vector<std::vector<Slice>> head, tail;
  bool has_tail() const {
    for (const auto& list : tail)
      if (!list.empty()) return true;
    return false;
  }
};

OwnBlockCut cut_own_block(std::vector<std::vector<Slice>> lists, double tail_share) {
  const int64_t at = cut_for_tail_share(lists, CutAxis::kQueries, tail_share, kCutRowAlign);
  CutSlices split = cut_slices(lists, CutAxis::kQueries, at);
  OwnBlockCut cut{std::move(split.before), std::move(split.after)};
  const bool head_empty = std::all_of(cut.head.begin(), cut.head.end(), [](const auto& l) { return l.empty(); });
  if (head_empty || !cut.has_tail()) return {std::move(lists), {}};
  return cut;
}

// Backward: the share of the own block computed after the last ring step. The final hop carries g-byte dK,dV
// and the first KV hop e-byte K,V of the same rows, so a share g / (e + g) gives each hop own-block compute in
// proportion to its bytes.
double own_tail_share(const Plan& p) {
  return static_cast<double>(p.gab) / static_cast<double>(p.dt + p.gab);
}

// Appends one rank's ops (DESIGN.md section 4, the steps in ulysses_ring.h).
void build_rank(const RankContext& rc) {
  const Plan& p = rc.p;
  RankBuilder& rb = rc.rb;
  if (p.U > 1) rc.emit_all_to_all_in();
  const bool cut_own = !rc.fwd && p.R > 1 && p.overlap_home_hop;
  OwnBlockCut own;
  bool tail = false;
  // The own block's tail fills the compute stream while the dKV goes home: after the last inner hop (so that
  // it also covers the wait for it before a window's outer add), else after the last outer hop.
  auto emit_tail = [&] {
    if (tail) rc.emit_grads(rc.ring_item(std::move(own.tail), p.KV(), rc.pos), rc.last_ring_step(), p.DKV(), true);
  };
  for (int64_t o = 0; o < p.W; ++o) {
    for (int64_t m = 0; m < p.w; ++m) {
      const int step = rc.ring_step(o, m);
      const int kv_here = p.kv_block(o, m);
      const int64_t source = rc.source_position(o, m);
      rc.emit_kv_hops(o, m);
      std::vector<std::vector<Slice>> lists = rc.lists_of(source);
      if (cut_own && o == 0 && m == 0) {
        own = cut_own_block(std::move(lists), own_tail_share(p));
        tail = own.has_tail();
        lists = std::move(own.head);
      }
      std::optional<ComputeItem> item = rc.ring_item(std::move(lists), kv_here, source);
      if (rc.fwd) {
        if (item) rb.compute(std::move(*item), step, {p.Q(), kv_here}, {p.OUT(), p.LSE()});
        continue;
      }
      // backward: grads of this KV block into the travelling dKV buffer, then passed on
      const int travelling = p.travelling_dkv(m);
      const bool starts_fresh = m == 0 && travelling != p.DKV();  // DKV (only at R = 1) is zero at start
      if (starts_fresh) rb.zero(RankContext::whole(travelling, p.T), step);
      rc.emit_grads(std::move(item), step, travelling, m == 0);
      const int home = tail ? p.home_landing() : p.DKV();
      const bool last = step == rc.last_ring_step();
      rc.emit_inner_dkv_hop(o, m, home);
      if (last && p.w > 1) emit_tail();
      rc.emit_outer_dkv_hop(o, m, home);
      if (last && p.w == 1) emit_tail();
    }
  }
  if (rc.fwd) {
    if (p.U > 1) rc.emit_all_to_all_out(p.out_h, p.out, rc.q_chunk_bytes(), "out");
    return;
  }
  if (p.U > 1) rc.emit_all_to_all_out(p.dq_h, p.dq, rc.q_chunk_bytes(), "dq");
  if (tail) rb.add(RankContext::whole(p.DKV(), p.T), RankContext::whole(p.home_landing(), p.T), rc.last_ring_step());
  if (p.U > 1) rc.emit_all_to_all_out(p.dkv_h, p.dkv, rc.kv_chunk_bytes(), "dkv");
}

}  // namespace

Schedule build_ulysses_ring_schedule(const CpConfig& config, Pass pass) {
  const Workload& wl = config.workload;
  LCAB_CHECK(wl.mask, "CP config has no mask");
  Schedule s;
  s.config = config;
  s.pass = pass;
  s.layout = {config.ulysses_degree, config.ring_degree, config.windows, config.placement};
  const GridLayout& layout = s.layout;
  Plan p;
  p.U = layout.ulysses;
  p.R = layout.ring;
  p.W = layout.windows;
  p.w = layout.window_size();
  p.P = config.gpus;
  LCAB_CHECK(p.U * p.R == p.P && p.W >= 1 && p.R % p.W == 0,
             "unnormalized CP layout U=" << p.U << " R=" << p.R << " W=" << p.W << " for P=" << p.P);
  p.hq = wl.heads / p.U;
  p.hk = ulysses_kv_heads(0, p.U, wl.heads, wl.kv_heads).count();
  p.batch = wl.batch;
  p.D = wl.head_dim;
  p.dt = wl.dtype_bytes;
  p.gab = wl.grad_accum_bytes;
  p.overlap_home_hop = config.overlap_dkv_home_hop;

  const PositionSharding sharding =
      shard_sequence(*wl.mask, p.R, p.U, config.sharding, config.min_document_chunk_tokens);
  s.sharding = sharding.kind;
  p.T = sharding.rows_per_position;
  p.t = p.T / p.U;
  s.local_tokens = p.t;
  s.pad_tokens = sharding.pad_tokens;

  ScheduleBuilder sb(s);
  for (int r = 0; r < p.P; ++r) {
    const int64_t u = layout.ulysses_index(r);
    sb.add_token_map(slice_rows(sharding.positions[layout.ring_position(r)], u * p.t, (u + 1) * p.t));
  }
  if (p.U > 1)
    for (const TokenMap& m : sharding.positions) sb.add_token_map(m);
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
  add_buffers(sb, p, pass, wl.heads, wl.kv_heads);

  std::vector<RankBuilder> ranks;
  ranks.reserve(p.P);
  const size_t steps = static_cast<size_t>(p.R);
  const bool fwd = pass == Pass::kForward;
  for (int r = 0; r < p.P; ++r) {
    ranks.push_back(sb.rank(r));
    ranks.back().reserve((fwd ? 3 : 9) * steps + 4, steps, (fwd ? 2 : 4) * steps + 4);
  }
  MaskResolver resolver(*wl.mask);
  const KeyBlockIndex index(sharding.positions);
  for (int64_t pos = 0; pos < p.R; ++pos) {
    resolver.resolve(sharding.positions[pos], index);
    for (int64_t u = 0; u < p.U; ++u) {
      const HeadRange q_heads = ulysses_q_heads(u, p.U, wl.heads);
      const HeadRange kv_heads = ulysses_kv_heads(u, p.U, wl.heads, wl.kv_heads);
      const std::vector<int> head_lists = head_lists_for(resolver, kv_heads);
      const RankContext rc{ranks[layout.rank_of(u, pos)], p, layout, fwd, u, pos, pos / p.w, pos % p.w, resolver,
                           head_lists, q_heads, kv_heads, wl.heads, wl.kv_heads};
      build_rank(rc);
    }
  }
  sb.finish(ranks);
  return s;
}

}  // namespace lcab::cp
