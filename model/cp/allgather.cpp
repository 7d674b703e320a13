#include "model/cp/allgather.h"

#include "model/cp/method_common.h"
#include "model/cp/schedule_builder.h"
#include "model/cp/sharding.h"
#include "model/error.h"

namespace lcab::cp {

namespace {

// maker: null to resolve the mask.
Schedule build(const CpConfig& config, Pass pass, const ComputeItemMaker* maker) {
  const Workload& wl = config.workload;
  LCAB_CHECK(wl.mask, "CP config has no mask");
  const int64_t P = config.gpus;
  Schedule s;
  s.config = config;
  s.pass = pass;
  s.layout = {1, P, 1, config.placement};
  const PositionSharding sharding = shard_sequence(*wl.mask, P, 1, config.sharding, config.min_document_chunk_tokens);
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
  std::optional<MaskResolver> resolver;
  std::optional<KeyBlockIndex> index;
  const HeadRange q_heads{0, H}, kv_heads{0, Hk};
  std::vector<int> lists_of;
  if (!maker) {
    resolver.emplace(*wl.mask);
    index.emplace(sharding.positions);
    lists_of = head_lists_for(*resolver, kv_heads);
  }
  // The keys of step 1 with a maker: the gathered buffer's rows, the rank's own rows as pads.
  // (Appended segment by segment: concatenate() of a copy of every block would allocate P maps per rank.)
  const auto others_of = [&](int r) {
    TokenMap others;
    for (int j = 0; j < P; ++j) {
      if (j == r) {
        others.append(Segment{-1, t, true});
        continue;
      }
      for (const Segment& seg : sharding.positions[static_cast<size_t>(j)].segments) others.append(seg);
    }
    return others;
  };
  // The item of rank r at `step` from the resolved mask (the resolver holds rank r's rows).
  const auto resolved_item = [&](int r, int step) {
    std::vector<std::vector<Slice>> lists;
    for (int h : lists_of) {
      const auto& blocks = resolver->result()[h];
      std::vector<Slice> list;
      if (step == 0) {
        list = blocks[r];
      } else {
        for (int j = 0; j < P; ++j) {
          if (j == r) continue;
          for (Slice sl : blocks[j]) {
            sl.k_begin += j * t;
            sl.k_end += j * t;
            list.push_back(sl);
          }
        }
      }
      lists.push_back(std::move(list));
    }
    return make_item(std::move(lists), q_heads, kv_heads, resolver->per_kv_head(), H, Hk);
  };
  const int64_t kv_chunk = wl.batch * 2 * t * Hk * D * dt;
  for (int r = 0; r < P; ++r) {
    RankBuilder& rb = ranks[r];
    if (resolver) resolver->resolve(sharding.positions[r], *index);
    rb.collective(OpKind::kAllGather, world, {kv, 0, t}, {kv_all, 0, P * t}, kv_chunk, 0, "kv");
    // step 0: own block, overlapping the all-gather; step 1: every other block of the gathered buffer
    for (int step = 0; step < 2; ++step) {
      std::optional<ComputeItem> item =
          maker ? (*maker)(r, step, sharding.positions[r], step == 0 ? sharding.positions[r] : others_of(r))
                : resolved_item(r, step);
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

}  // namespace lcab::cp
