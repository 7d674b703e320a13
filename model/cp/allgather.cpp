#include "model/cp/allgather.h"

#include "model/cp/method_common.h"
#include "model/cp/schedule_builder.h"
#include "model/cp/sharding.h"
#include "model/error.h"

namespace lcab::cp {

namespace {

// The compute items of an allgather schedule resolved from the mask, rank by rank: rank r's rows against its own
// block (step 0) and against every other rank's block in the gathered buffer (step 1). Ranks are asked for in
// increasing order (each rank's rows are resolved when it is first asked for).
class ResolvedItems {
 public:
  ResolvedItems(const CpConfig& config, PositionSharding sharding)
      : sharding_(std::move(sharding)),
        resolver_(*config.workload.mask),
        index_(sharding_.positions),
        lists_of_(head_lists_for(resolver_, HeadRange{0, config.workload.kv_heads})),
        heads_(config.workload.heads),
        kv_heads_(config.workload.kv_heads) {}

  std::optional<ComputeItem> item(int rank, int step) {
    if (rank != resolved_rank_) {
      resolver_.resolve(sharding_.positions[static_cast<size_t>(rank)], index_);
      resolved_rank_ = rank;
    }
    const int64_t P = static_cast<int64_t>(sharding_.positions.size()), t = sharding_.rows_per_position;
    std::vector<std::vector<Slice>> lists;
    for (int h : lists_of_) {
      const auto& blocks = resolver_.result()[h];
      std::vector<Slice> list;
      if (step == 0) {
        list = blocks[rank];
      } else {
        for (int j = 0; j < P; ++j) {
          if (j == rank) continue;
          for (Slice sl : blocks[j]) {
            sl.k_begin += j * t;
            sl.k_end += j * t;
            list.push_back(sl);
          }
        }
      }
      lists.push_back(std::move(list));
    }
    return make_item(std::move(lists), HeadRange{0, heads_}, HeadRange{0, kv_heads_}, resolver_.per_kv_head(), heads_,
                     kv_heads_);
  }

 private:
  PositionSharding sharding_;
  MaskResolver resolver_;
  KeyBlockIndex index_;
  std::vector<int> lists_of_;
  int64_t heads_, kv_heads_;
  int resolved_rank_ = -1;
};

// The key maps of step 1 with a maker, rank by rank: the gathered buffer's rows with rank r's own rows as one pad,
// exactly as appending every block's segments in order (a pad of t rows for block r) makes them, without appending
// all P blocks for every rank. The blocks before r are kept appended as the ranks go (asked for in increasing order);
// the blocks after r are, from the first block whose first segment did not merge into the one before it in the whole
// gathered map, that map's tail: appending its first segment (it may merge into what is before it, as it did not in
// the whole map only when that differs) and copying the others, which no append would merge (they did not merge in
// the whole map, and each one's predecessor there ends where the one here does).
class KeysBesideOwnBlock {
 public:
  KeysBesideOwnBlock(const std::vector<TokenMap>& blocks, int64_t t) : blocks_(blocks), t_(t) {
    for (const TokenMap& block : blocks_) {
      const size_t before = whole_.segments.size();
      bool starts = false;  // the block's first segment starts a segment of the whole map (did not merge)
      for (const Segment& seg : block.segments) {
        const bool first = &seg == &block.segments.front();
        whole_.append(seg);
        if (first) starts = seg.length > 0 && whole_.segments.size() > before;
      }
      tail_from_.push_back(starts ? before : kMerged);
    }
  }

  TokenMap of(int r) {
    LCAB_CHECK(r >= next_, "KeysBesideOwnBlock: ranks are asked for in increasing order");
    for (; next_ < r; ++next_)
      for (const Segment& seg : blocks_[static_cast<size_t>(next_)].segments) before_.append(seg);
    TokenMap out;
    out.segments.reserve(whole_.segments.size() + 1);
    out.segments = before_.segments;
    out.append(Segment{-1, t_, true});
    for (size_t j = static_cast<size_t>(r) + 1; j < blocks_.size(); ++j) {
      if (tail_from_[j] == kMerged) {
        for (const Segment& seg : blocks_[j].segments) out.append(seg);
        continue;
      }
      const auto first = whole_.segments.begin() + static_cast<std::ptrdiff_t>(tail_from_[j]);
      out.append(*first);
      out.segments.insert(out.segments.end(), first + 1, whole_.segments.end());
      break;
    }
    return out;
  }

 private:
  static constexpr size_t kMerged = static_cast<size_t>(-1);
  const std::vector<TokenMap>& blocks_;
  int64_t t_;
  TokenMap whole_;                // every block appended
  std::vector<size_t> tail_from_;  // per block: index in whole_ of its first segment, or kMerged
  TokenMap before_;               // blocks [0, next_) appended
  int next_ = 0;
};

PositionSharding allgather_sharding(const CpConfig& config) {
  return shard_sequence(*config.workload.mask, config.gpus, 1, config.sharding, config.min_document_chunk_tokens);
}

// maker: null to resolve the mask.
Schedule build(const CpConfig& config, Pass pass, const ComputeItemMaker* maker) {
  const Workload& wl = config.workload;
  LCAB_CHECK(wl.mask, "CP config has no mask");
  const int64_t P = config.gpus;
  Schedule s;
  s.config = config;
  s.pass = pass;
  s.layout = {1, P, 1, config.placement};
  const PositionSharding sharding = allgather_sharding(config);
  s.sharding = sharding.kind;
  const int64_t t = sharding.rows_per_position;
  s.local_tokens = t;
  s.pad_tokens = sharding.pad_tokens;
  const bool fwd = pass == Pass::kForward;
  const int64_t H = wl.heads, Hk = wl.kv_heads, D = wl.head_dim, dt = wl.dtype_bytes, gab = wl.grad_accum_bytes;
  constexpr int64_t kFp32 = 4;

  ScheduleBuilder sb(s);
  for (const TokenMap& m : sharding.positions) sb.add_token_map(m);
  const int gathered_map = sb.add_token_map(concatenate(sharding.positions));
  std::vector<int> all(P);
  for (int r = 0; r < P; ++r) all[r] = r;
  const int world = sb.add_group(GroupKind::kWorld, all);

  const int q = sb.add_buffer(make_buffer("q", BufferRole::kQ, t, H, D, 1, dt, false));
  const int kv = sb.add_buffer(make_buffer("kv", BufferRole::kKV, t, Hk, D, 2, dt, false));
  const int kv_all = sb.add_buffer(make_buffer("kv_gathered", BufferRole::kKV, P * t, Hk, D, 2, dt, false));
  const int out = sb.add_buffer(make_buffer("out", BufferRole::kOut, t, H, D, 1, kFp32, fwd));
  const int lse = sb.add_buffer(make_buffer("lse", BufferRole::kLse, t, H, 1, 1, kFp32, fwd));
  QSide side{q, out, lse, -1, -1};
  int dkv_all = -1, dkv = -1;
  if (!fwd) {
    side.dout = sb.add_buffer(make_buffer("dout", BufferRole::kDOut, t, H, D, 1, dt, false));
    side.dq = sb.add_buffer(make_buffer("dq", BufferRole::kDQ, t, H, D, 1, kFp32, true));
    dkv_all = sb.add_buffer(make_buffer("dkv_gathered", BufferRole::kDKV, P * t, Hk, D, 2, gab, true));
    dkv = sb.add_buffer(make_buffer("dkv", BufferRole::kDKV, t, Hk, D, 2, gab, false));
  }
  const int q_side = sb.add_q_side(side);

  std::vector<RankBuilder> ranks;
  ranks.reserve(P);
  for (int r = 0; r < P; ++r) ranks.push_back(sb.rank(r));
  std::optional<ResolvedItems> resolved;
  if (!maker) resolved.emplace(config, sharding);
  // The keys of step 1 with a maker: the gathered buffer's rows, the rank's own rows as pads.
  std::optional<KeysBesideOwnBlock> others;
  if (maker) others.emplace(sharding.positions, t);
  const int64_t kv_chunk = wl.batch * 2 * t * Hk * D * dt;
  for (int r = 0; r < P; ++r) {
    RankBuilder& rb = ranks[r];
    rb.collective(OpKind::kAllGather, world, {kv, 0, t}, {kv_all, 0, P * t}, kv_chunk, 0, "kv");
    // step 0: own block, overlapping the all-gather; step 1: every other block of the gathered buffer
    for (int step = 0; step < 2; ++step) {
      std::optional<ComputeItem> item =
          maker ? (*maker)(r, step, sharding.positions[r], step == 0 ? sharding.positions[r] : others->of(r))
                : resolved->item(r, step);
      if (!item) continue;
      const int k_buffer = step == 0 ? kv : kv_all;
      item->q_buffer = q;
      item->k_buffer = k_buffer;
      item->q_side = q_side;
      item->q_map = r;
      item->k_map = step == 0 ? r : gathered_map;
      if (fwd) {
        rb.compute(std::move(*item), step, {q, k_buffer}, {out, lse});
      } else {
        item->grad_buffer = dkv_all;
        item->grad_row_begin = (step == 0 ? r * t : 0) + item->k_rows.begin;
        rb.compute(std::move(*item), step, {q, k_buffer, out, lse, side.dout}, {side.dq, dkv_all});
      }
    }
    if (!fwd)
      rb.collective(OpKind::kReduceScatter, world, {dkv_all, 0, P * t}, {dkv, 0, t}, wl.batch * 2 * t * Hk * D * gab,
                    1, "dkv");
  }
  sb.finish(ranks);
  return s;
}

}  // namespace

Schedule build_allgather_schedule(const CpConfig& config, Pass pass) { return build(config, pass, nullptr); }

Schedule build_allgather_schedule_with(const CpConfig& config, Pass pass, const ComputeItemMaker& make_item) {
  return build(config, pass, &make_item);
}

ComputeItemMaker allgather_resolving_maker(const CpConfig& config) {
  auto items = std::make_shared<ResolvedItems>(config, allgather_sharding(config));
  return [items](int rank, int step, const TokenMap&, const TokenMap&) { return items->item(rank, step); };
}

}  // namespace lcab::cp
