#include "kernels/flash_work.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "model/error.h"
#include "model/perf/backward_pairs.h"
#include "model/perf/backward_tail.h"

namespace lcab::kernels {
namespace {

constexpr int32_t kPartialBit = int32_t(1) << 31;

int32_t to_i32(int64_t value) {
  LCAB_CHECK(value >= 0 && value < (int64_t(1) << 31), "lcab_flash indexes with 32-bit integers; " << value
                                                            << " does not fit");
  return static_cast<int32_t>(value);
}

// The outer tile's cost as the work list orders it: 4 x tiles + partial tiles (a partial tile weighs 1.25: masking
// code; empty outer tiles cost nothing and come last). The model orders by the same key (kernel_cost.cpp).
int64_t run_key(const std::vector<DeviceRun>& runs, size_t begin, size_t end) {
  int64_t key = 0;
  for (size_t n = begin; n < end; ++n) {
    const int64_t tiles = (runs[n].end_and_partial & kRunEndMask) - runs[n].begin;
    key += tiles * ((runs[n].end_and_partial & kPartialBit) ? 5 : 4);
  }
  return key;
}

const std::vector<Slice>& mask_slices(const AttentionProblem& problem, int32_t mask) {
  return problem.slices[static_cast<size_t>(mask)];
}

// Appends the row slice lists of one tiling.
void append_row_slices(const std::vector<Slice>& slices, const MaskTiling& tiling, FlashPassWork& work) {
  for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r) {
    for (int32_t n : tiling.row_slices(r)) work.slices.push_back(to_device_slice(slices[static_cast<size_t>(n)]));
    work.slice_offsets.push_back(to_i32(static_cast<int64_t>(work.slices.size())));
  }
}

// Orders outer tiles [mask_run_base, ...) of one mask by cost, costliest first (stable for equal costs); returns
// each outer tile's key (run_key), by tile index.
std::vector<int64_t> append_order(FlashPassWork& work, size_t offsets_base) {
  std::vector<int64_t> cost(static_cast<size_t>(work.outer_tiles));
  for (int32_t t = 0; t < work.outer_tiles; ++t) {
    cost[t] = run_key(work.runs, static_cast<size_t>(work.run_offsets[offsets_base + t]),
                      static_cast<size_t>(work.run_offsets[offsets_base + t + 1]));
  }
  std::vector<int32_t> order(static_cast<size_t>(work.outer_tiles));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return cost[a] > cost[b]; });
  work.outer_order.insert(work.outer_order.end(), order.begin(), order.end());
  return cost;
}

int32_t clamp_bound(int64_t value) {
  return static_cast<int32_t>(std::clamp<int64_t>(value, -kRunMaskClamp, kRunMaskClamp));
}

// Three bounds clamped to +-kRunMaskClamp as 10-bit two's complement fields at bits 0, 10 and 20 (run_mask.h).
uint32_t pack_bounds(int64_t a, int64_t b, int64_t c) {
  return (static_cast<uint32_t>(clamp_bound(a)) & 0x3ffu) | ((static_cast<uint32_t>(clamp_bound(b)) & 0x3ffu) << 10) |
         ((static_cast<uint32_t>(clamp_bound(c)) & 0x3ffu) << 20);
}

void push_run(std::vector<DeviceRun>& runs, size_t row_first_run, int64_t begin, int64_t end, bool partial,
              int32_t idle_halves);

// Which way a run mask runs: the forward's per query row (row-major), the backward's per key (key-major).
enum class MaskMajor { kRows, kKeys };

// The run mask (run_mask.h) of slice `s` on the tile whose first query is q0 and first key k0.
DeviceRunMask make_run_mask(const DeviceSlice& s, int64_t q0, int64_t k0, TileShape shape, MaskMajor major) {
  const bool lo_diagonal = s.flags & 1, hi_diagonal = s.flags & 2;
  DeviceRunMask mask;
  if (major == MaskMajor::kRows) {
    // Row i = q - q_begin sees keys [k_begin + (lo_diagonal ? i : 0), hi_diagonal ? min(k_end, k_begin + i + offset)
    // : k_end): slice_row_keys of flash_common.cuh, relative to (q0, k0).
    const int64_t row_begin = std::clamp<int64_t>(s.q_begin - q0, 0, shape.q);
    const int64_t row_end = std::clamp<int64_t>(s.q_end - q0, 0, shape.q);
    mask.bounds = static_cast<int32_t>(
        pack_bounds(s.k_begin - k0 + (lo_diagonal ? q0 - s.q_begin : 0), s.k_end - k0,
                    hi_diagonal ? s.k_begin + q0 - s.q_begin + s.diagonal_offset - k0 : kRunMaskClamp) |
        (lo_diagonal ? 1u << 30 : 0u));
    mask.rows = static_cast<int32_t>(row_begin | (row_end << 8));
  } else {
    // Key j = k - k_begin is seen by rows [q_begin + (hi_diagonal ? max(0, j - offset + 1) : 0), q_begin +
    // (lo_diagonal ? min(rows, j + 1) : rows)): slice_key_rows of flash_common.cuh, relative to (q0, k0).
    const int64_t key_begin = std::clamp<int64_t>(s.k_begin - k0, 0, shape.k);
    const int64_t key_end = std::clamp<int64_t>(s.k_end - k0, 0, shape.k);
    const int64_t diagonal_at_0 = s.q_begin - q0 + k0 - s.k_begin;  // key 0's row on the slice's main diagonal
    mask.bounds = static_cast<int32_t>(pack_bounds(
        s.q_begin - q0, hi_diagonal ? diagonal_at_0 - s.diagonal_offset + 1 : -kRunMaskClamp, s.q_end - q0));
    mask.rows = static_cast<int32_t>(
        (static_cast<uint32_t>(clamp_bound(lo_diagonal ? diagonal_at_0 + 1 : kRunMaskClamp)) & 0x3ffu) |
        (static_cast<uint32_t>(key_begin) << 10) | (static_cast<uint32_t>(key_end) << 19));
  }
  return mask;
}

// Whether a run mask (one slice) makes any (query, key) pair of the tile visible.
bool run_mask_sees_any(const DeviceRunMask& mask, TileShape shape, MaskMajor major) {
  const bool rows = major == MaskMajor::kRows;
  for (int n = 0; n < (rows ? shape.q : shape.k); ++n) {
    int lo = 0, hi = 0;
    if (rows) {
      flash::run_mask_row_keys(mask.bounds, mask.rows, n, lo, hi);
    } else {
      flash::run_mask_key_rows(mask.bounds, mask.rows, n, lo, hi);
    }
    if (std::max(lo, 0) < std::min<int64_t>(hi, rows ? shape.k : shape.q)) return true;
  }
  return false;
}

// The visits of one partial tile (q tile `q_tile`, whose row's slices the tiling lists, and k tile `k_tile`): the
// slices that make some pair of it visible, in order, two to a visit where the second's rows (kRows) or keys (kKeys)
// all follow the first's, otherwise one (slices do not overlap, so the visits of one tile see each visible pair once).
std::vector<DeviceRunMask> tile_visits(const std::vector<Slice>& slices, const MaskTiling& tiling, int64_t q_tile,
                                       int64_t k_tile, TileShape shape, MaskMajor major) {
  // The run mask's first and last row (kRows) or key (kKeys), from its rows word.
  const bool by_rows = major == MaskMajor::kRows;
  const auto first = [&](int32_t rows) { return by_rows ? rows & 0xff : (rows >> 10) & 0x1ff; };
  const auto last = [&](int32_t rows) { return by_rows ? (rows >> 8) & 0x1ff : (rows >> 19) & 0x1ff; };
  std::vector<DeviceRunMask> visits;
  const int64_t q0 = q_tile * shape.q, k0 = k_tile * shape.k;
  for (int32_t n : tiling.row_slices(q_tile)) {
    const DeviceSlice d = to_device_slice(slices[static_cast<size_t>(n)]);
    if (d.k_end <= k0 || d.k_begin >= k0 + shape.k) continue;
    const DeviceRunMask mask = make_run_mask(d, q0, k0, shape, major);
    if (!run_mask_sees_any(mask, shape, major)) continue;
    auto it = std::find_if(visits.begin(), visits.end(),
                           [&](const DeviceRunMask& v) { return v.rows2 < 0 && last(v.rows) <= first(mask.rows); });
    if (it != visits.end()) {
      it->bounds2 = mask.bounds;
      it->rows2 = mask.rows;
    } else {
      visits.push_back(mask);
    }
  }
  return visits;
}

// The runs of q-tile row `row` for ForwardMasking::kRunMasks: whole runs as the tiling has them; every partial tile
// as single-tile runs, one per visit (tile_visits, row-major).
void append_run_mask_row(const std::vector<Slice>& slices, const MaskTiling& tiling, int64_t row,
                         FlashPassWork& work) {
  const size_t first = work.runs.size();
  for (const TileRun* run = tiling.row_begin(row); run != tiling.row_end(row); ++run) {
    if (!run->partial) {
      const size_t before = work.runs.size();
      push_run(work.runs, first, run->k_tile_begin, run->k_tile_end, false, 0);
      if (work.runs.size() > before) work.run_masks.push_back(DeviceRunMask{});
      continue;
    }
    for (int64_t tile = run->k_tile_begin; tile < run->k_tile_end; ++tile) {
      for (const DeviceRunMask& v : tile_visits(slices, tiling, row, tile, work.shape, MaskMajor::kRows)) {
        work.runs.push_back({to_i32(tile), to_i32(tile + 1) | kPartialBit});
        work.run_masks.push_back(v);
      }
    }
  }
}

void push_run(std::vector<DeviceRun>& runs, size_t row_first_run, int64_t begin, int64_t end, bool partial,
              int32_t idle_halves) {
  LCAB_CHECK(end <= kRunEndMask, "lcab_flash's runs end below tile " << kRunEndMask << ", not at " << end);
  const int32_t flags = (partial ? kPartialBit : 0) | (idle_halves << kIdleHalfShift);
  if (runs.size() > row_first_run && idle_halves == 0) {
    DeviceRun& last = runs.back();
    if ((last.end_and_partial & kRunEndMask) == begin && (last.end_and_partial & ~kRunEndMask) == flags) {
      last.end_and_partial = to_i32(end) | flags;
      return;
    }
  }
  runs.push_back({to_i32(begin), to_i32(end) | flags});
}

// Bit h set when the visit's keys [64 h, 64 h + 64) of a 128-key tile see none of its queries (a key-major run
// mask of up to two slices, run_mask.h).
int32_t idle_key_halves(const DeviceRunMask& visit, TileShape shape) {
  int32_t idle = 3;
  for (int c = 0; c < shape.k; ++c) {
    int lo = 0, hi = 0;
    flash::run_mask_pair_key_rows(visit.bounds, visit.rows, visit.bounds2, visit.rows2, c, lo, hi);
    if (std::max(lo, 0) < std::min(hi, shape.q)) idle &= ~(1 << (c / 64));
  }
  return idle;
}

FlashPassWork start_work(const AttentionProblem& problem, TileShape shape) {
  problem.validate();
  FlashPassWork work;
  work.shape = shape;
  work.num_masks = static_cast<int32_t>(problem.slices.size());
  work.q_tile_rows = to_i32((problem.seqlen_q + shape.q - 1) / shape.q);
  work.slice_offsets.push_back(0);
  work.run_offsets.push_back(0);
  return work;
}

}  // namespace

DeviceSlice to_device_slice(const Slice& slice) {
  DeviceSlice d;
  d.q_begin = to_i32(slice.q_begin);
  d.q_end = to_i32(slice.q_end);
  d.k_begin = to_i32(slice.k_begin);
  d.k_end = to_i32(slice.k_end);
  const bool lo_diagonal = slice.type == SliceType::kInvCausal || slice.type == SliceType::kBiCausal;
  const bool hi_diagonal = slice.type == SliceType::kCausal || slice.type == SliceType::kBiCausal;
  d.flags = (lo_diagonal ? 1 : 0) | (hi_diagonal ? 2 : 0);
  const int64_t offset = slice.k_length() - slice.q_length() + 1;
  LCAB_CHECK(offset > -(int64_t(1) << 31) && offset < (int64_t(1) << 31), "slice diagonal offset out of range");
  d.diagonal_offset = static_cast<int32_t>(offset);
  return d;
}

FlashPassWork build_forward_work(const AttentionProblem& problem, TileShape shape, ForwardMasking masking) {
  FlashPassWork work = start_work(problem, shape);
  LCAB_CHECK(masking == ForwardMasking::kSlices || (shape.q <= 128 && shape.k <= 128),
             "run masks hold tiles of at most 128 x 128 (kRunMaskClamp), not " << shape.q << " x " << shape.k);
  work.outer_tiles = work.q_tile_rows;
  work.section_heads = to_i32(problem.heads / problem.kv_heads *
                              forward_kv_heads_per_section(problem.kv_heads, problem.seqlen_k, problem.head_dim,
                                                           dtype_bytes(problem.dtype)));
  for (int32_t m = 0; m < work.num_masks; ++m) {
    const auto& slices = mask_slices(problem, m);
    const MaskTiling tiling(slices, problem.seqlen_q, problem.seqlen_k, shape, /*with_row_slices=*/true);
    const size_t offsets_base = work.run_offsets.size() - 1;
    for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r) {
      if (masking == ForwardMasking::kRunMasks) {
        append_run_mask_row(slices, tiling, r, work);
      } else {
        const size_t first = work.runs.size();
        for (const TileRun* run = tiling.row_begin(r); run != tiling.row_end(r); ++run) {
          push_run(work.runs, first, run->k_tile_begin, run->k_tile_end, run->partial, 0);
        }
      }
      work.run_offsets.push_back(to_i32(static_cast<int64_t>(work.runs.size())));
    }
    append_order(work, offsets_base);
    append_row_slices(slices, tiling, work);
    work.touched_tiles += tiling.counts().touched;
    work.partial_tiles += tiling.counts().partial;
  }
  return work;
}

namespace {

// The k tiles of one head mask as the backward's pairing reads them (perf::backward_launch): first and last q tile
// touching each, and its key.
std::vector<perf::KTileSpan> k_tile_spans(const FlashPassWork& work, size_t offsets_base,
                                          const std::vector<int64_t>& keys) {
  std::vector<perf::KTileSpan> spans(static_cast<size_t>(work.outer_tiles));
  for (size_t t = 0; t < spans.size(); ++t) {
    const int32_t begin = work.run_offsets[offsets_base + t], end = work.run_offsets[offsets_base + t + 1];
    spans[t].key = keys[t];
    if (begin == end) continue;
    spans[t].first_q_tile = work.runs[static_cast<size_t>(begin)].begin;
    spans[t].last_q_tile = (work.runs[static_cast<size_t>(end) - 1].end_and_partial & kRunEndMask) - 1;
  }
  return spans;
}

// Per k tile: kWalkFromSharedEnd where the last q tile touching it is also the last one of a neighbouring k tile
// (the tiles of one document, or of a causal or full mask), the default walk otherwise.
void append_walks(const std::vector<perf::KTileSpan>& spans, FlashPassWork& work) {
  for (size_t t = 0; t < spans.size(); ++t)
    work.outer_walk.push_back(perf::walks_from_shared_end(spans, t) ? kWalkFromSharedEnd : int8_t{0});
}

// The CTAs' launch order and walks (perf::backward_launch: head-major units, long ones first, each pair's parts back
// to back on one SM; a pair's first part walks down from the shared end, its second up from its first q tile).
void append_cta_items(const AttentionProblem& problem, const std::vector<std::vector<perf::KTileSpan>>& spans,
                      FlashPassWork& work, int64_t slots, bool pair_documents) {
  const perf::BackwardLaunch launch = perf::backward_launch(spans, problem.batch, problem.kv_heads, slots,
                                                            pair_documents);
  for (const perf::BackwardLaunch::Cta& cta : launch.ctas) {
    const int64_t mask = work.num_masks == 1 ? 0 : cta.head % problem.kv_heads;
    work.cta_items.push_back(to_i32(cta.head * work.outer_tiles + cta.tile));
    work.cta_walks.push_back(!cta.paired ? work.outer_walk[static_cast<size_t>(mask * work.outer_tiles + cta.tile)]
                             : cta.part == 0 ? kWalkFromSharedEnd
                                             : kWalkHeadsInner);
  }
  work.pairs_documents = launch.paired;
  // The heads by the position of their last CTA in the launch order.
  const int32_t heads = to_i32(problem.batch * problem.kv_heads);
  std::vector<int32_t> last(static_cast<size_t>(heads), -1);
  for (size_t n = 0; n < work.cta_items.size(); ++n) {
    last[static_cast<size_t>(work.cta_items[n] / work.outer_tiles)] = to_i32(static_cast<int64_t>(n));
  }
  work.tail_heads.resize(static_cast<size_t>(heads));
  std::iota(work.tail_heads.begin(), work.tail_heads.end(), 0);
  std::stable_sort(work.tail_heads.begin(), work.tail_heads.end(),
                   [&](int32_t a, int32_t b) { return last[static_cast<size_t>(a)] < last[static_cast<size_t>(b)]; });
  const int64_t group = problem.heads / problem.kv_heads;
  work.tail_chunk_rows =
      to_i32(perf::backward_tail_chunk_rows(problem.seqlen_q, heads, group, problem.head_dim, slots));
}

}  // namespace

FlashPassWork build_backward_work(const AttentionProblem& problem, TileShape shape, int64_t slots,
                                  bool pair_documents, BackwardMasking masking, bool idle_halves) {
  FlashPassWork work = start_work(problem, shape);
  idle_halves = idle_halves && shape.k == 128 && backward_idle_halves_built(problem.head_dim, masking);
  LCAB_CHECK(masking == BackwardMasking::kSlices || (shape.q <= 128 && shape.k <= 128),
             "run masks hold tiles of at most 128 x 128 (kRunMaskClamp), not " << shape.q << " x " << shape.k);
  work.outer_tiles = to_i32((problem.seqlen_k + shape.k - 1) / shape.k);
  std::vector<std::vector<perf::KTileSpan>> spans;  // per mask
  for (int32_t m = 0; m < work.num_masks; ++m) {
    const auto& slices = mask_slices(problem, m);
    // The slice-walking lists' idle key halves come from the tiling, from the same key ranges as its tiles (and
    // the cost model's count of them, perf::KernelParams::idle_half_tile_us); run-mask lists mark theirs per visit.
    const bool tiling_halves = idle_halves && masking == BackwardMasking::kSlices;
    const MaskTiling tiling(slices, problem.seqlen_q, problem.seqlen_k, shape, /*with_row_slices=*/true,
                            tiling_halves);
    LCAB_CHECK(tiling.num_q_tile_rows() <= kRunEndMask, "lcab_flash's lists hold at most " << kRunEndMask
                                                            << " q tiles, not " << tiling.num_q_tile_rows());
    // Transpose: per k tile, the q tiles (in increasing order) that touch it, each with its full/partial flag and
    // idle halves as a DeviceRun's end_and_partial holds them.
    std::vector<std::vector<int32_t>> column(static_cast<size_t>(work.outer_tiles));
    for (int64_t r = 0; r < tiling.num_q_tile_rows(); ++r) {
      const int64_t* idle = tiling.idle_half_begin(r);
      const uint8_t* idle_bits = tiling.idle_half_bits_begin(r);
      for (const TileRun* run = tiling.row_begin(r); run != tiling.row_end(r); ++run) {
        for (int64_t c = run->k_tile_begin; c < run->k_tile_end; ++c) {
          LCAB_CHECK(c < work.outer_tiles, "tiling produced k tile " << c << " beyond " << work.outer_tiles);
          int32_t entry = to_i32(r) | (run->partial ? kPartialBit : 0);
          if (idle != tiling.idle_half_end(r) && *idle == c) {  // (ascending, every one a partial tile's)
            entry |= static_cast<int32_t>(*idle_bits++) << kIdleHalfShift;
            ++idle;
          }
          column[static_cast<size_t>(c)].push_back(entry);
        }
      }
      LCAB_CHECK(idle == tiling.idle_half_end(r), "q tile row " << r << " has idle-half tiles outside its runs");
    }
    const size_t offsets_base = work.run_offsets.size() - 1;
    for (size_t k_tile = 0; k_tile < column.size(); ++k_tile) {
      const size_t first = work.runs.size();
      for (int32_t e : column[k_tile]) {
        const int64_t q_tile = e & kRunEndMask;
        const bool partial = (e & kPartialBit) != 0;
        if (masking == BackwardMasking::kSlices) {
          push_run(work.runs, first, q_tile, q_tile + 1, partial, (e >> kIdleHalfShift) & 3);
        } else if (!partial) {
          const size_t before = work.runs.size();
          push_run(work.runs, first, q_tile, q_tile + 1, false, 0);
          if (work.runs.size() > before) work.run_masks.push_back(DeviceRunMask{});
        } else {
          for (const DeviceRunMask& v : tile_visits(slices, tiling, q_tile, static_cast<int64_t>(k_tile), work.shape,
                                                    MaskMajor::kKeys)) {
            const int32_t idle = idle_halves ? idle_key_halves(v, work.shape) : 0;
            work.runs.push_back({to_i32(q_tile), to_i32(q_tile + 1) | kPartialBit | (idle << kIdleHalfShift)});
            work.run_masks.push_back(v);
          }
        }
      }
      work.run_offsets.push_back(to_i32(static_cast<int64_t>(work.runs.size())));
    }
    const std::vector<int64_t> keys = append_order(work, offsets_base);
    spans.push_back(k_tile_spans(work, offsets_base, keys));
    append_walks(spans.back(), work);
    append_row_slices(slices, tiling, work);
    work.touched_tiles += tiling.counts().touched;
    work.partial_tiles += tiling.counts().partial;
  }
  append_cta_items(problem, spans, work, slots, pair_documents);
  return work;
}

std::pair<int32_t, int32_t> backward_cta_chunks(const FlashPassWork& work, int32_t item, int64_t chunks_per_head) {
  const size_t outer = static_cast<size_t>((item / work.outer_tiles % work.num_masks) * work.outer_tiles +
                                           item % work.outer_tiles);
  const int32_t begin = work.run_offsets[outer], end = work.run_offsets[outer + 1];
  if (begin == end) return {0, -1};
  const int64_t first_row = int64_t{work.runs[static_cast<size_t>(begin)].begin} * work.shape.q;
  const int64_t end_row = int64_t{work.runs[static_cast<size_t>(end) - 1].end_and_partial & kRunEndMask} * work.shape.q;
  return {to_i32(std::min(chunks_per_head - 1, first_row / work.tail_chunk_rows)),
          to_i32(std::min(chunks_per_head - 1, (end_row - 1) / work.tail_chunk_rows))};
}

void count_backward_conversion_needs(FlashPassWork& work, int64_t heads, int64_t chunks_per_head) {
  work.tail_needs.assign(static_cast<size_t>(heads * chunks_per_head), 0);
  for (int32_t item : work.cta_items) {
    const auto [first, last] = backward_cta_chunks(work, item, chunks_per_head);
    const int64_t head = item / work.outer_tiles;
    for (int32_t c = first; c <= last; ++c) ++work.tail_needs[static_cast<size_t>(head * chunks_per_head + c)];
  }
}

void interleave_backward_conversion(FlashPassWork& work, int64_t chunks_per_head, int64_t delay_ctas) {
  const int64_t ctas = static_cast<int64_t>(work.cta_items.size());
  const int64_t heads = static_cast<int64_t>(work.tail_heads.size());
  count_backward_conversion_needs(work, heads, chunks_per_head);
  std::vector<int64_t> last(static_cast<size_t>(heads), -1);
  for (int64_t n = 0; n < ctas; ++n) last[static_cast<size_t>(work.cta_items[static_cast<size_t>(n)] / work.outer_tiles)] = n;
  // Per dK/dV position, the heads (in tail_heads order) whose conversion follows it; ctas: after the last.
  std::vector<std::vector<int64_t>> after(static_cast<size_t>(ctas) + 1);
  for (int64_t rank = 0; rank < heads; ++rank) {
    const int64_t at = delay_ctas < 0 ? ctas : std::min(ctas, last[static_cast<size_t>(work.tail_heads[rank])] + 1 + delay_ctas);
    after[static_cast<size_t>(at)].push_back(rank);
  }
  work.grid_items.clear();
  work.grid_walks.clear();
  for (int64_t n = 0; n <= ctas; ++n) {
    for (int64_t rank : after[static_cast<size_t>(n)]) {
      for (int64_t chunk = 0; chunk < chunks_per_head; ++chunk) {
        work.grid_items.push_back(-1 - to_i32(rank * chunks_per_head + chunk));
        work.grid_walks.push_back(0);
      }
    }
    if (n < ctas) {
      work.grid_items.push_back(work.cta_items[static_cast<size_t>(n)]);
      work.grid_walks.push_back(work.cta_walks[static_cast<size_t>(n)]);
    }
  }
}

bool backward_conversion_after_heads(const FlashPassWork& work) {
  const int64_t ctas = static_cast<int64_t>(work.cta_items.size());
  if (ctas == 0) return false;
  // Each CTA's cost as the launch order weighs it (run_key), its k tile's under per-kv-head masks.
  std::vector<int64_t> keys(static_cast<size_t>(ctas), 0);
  for (int64_t n = 0; n < ctas; ++n) {
    const int32_t item = work.cta_items[static_cast<size_t>(n)];
    const size_t outer = static_cast<size_t>((item / work.outer_tiles % work.num_masks) * work.outer_tiles +
                                             item % work.outer_tiles);
    keys[static_cast<size_t>(n)] = run_key(work.runs, static_cast<size_t>(work.run_offsets[outer]),
                                           static_cast<size_t>(work.run_offsets[outer + 1]));
  }
  const int64_t longest = *std::max_element(keys.begin(), keys.end());
  const int64_t near_longest = std::count_if(keys.begin(), keys.end(), [&](int64_t t) {
    return static_cast<double>(t) >= (1.0 - kBackwardConversionUniformTolerance) * static_cast<double>(longest);
  });
  return longest > 0 && static_cast<double>(near_longest) >= kBackwardConversionUniformShare * static_cast<double>(ctas);
}

bool backward_warpgroups_decoupled(const FlashPassWork& w) {
  return w.touched_tiles > 0 &&
         static_cast<double>(w.partial_tiles) >= kBackwardDecoupledPartialShare * static_cast<double>(w.touched_tiles);
}

double slices_per_partial_tile(const FlashPassWork& w) {
  int64_t partial = 0, slices = 0;
  for (int32_t m = 0; m < w.num_masks; ++m) {
    for (int32_t k = 0; k < w.outer_tiles; ++k) {
      const int32_t outer = m * w.outer_tiles + k;
      for (int32_t n = w.run_offsets[outer]; n < w.run_offsets[outer + 1]; ++n) {
        const DeviceRun& run = w.runs[static_cast<size_t>(n)];
        if ((run.end_and_partial & kPartialBit) == 0) continue;
        for (int32_t q = run.begin; q < (run.end_and_partial & kRunEndMask); ++q) {
          const int32_t row = m * w.q_tile_rows + q;
          slices += w.slice_offsets[row + 1] - w.slice_offsets[row];
          ++partial;
        }
      }
    }
  }
  return partial == 0 ? 0.0 : static_cast<double>(slices) / static_cast<double>(partial);
}

int32_t forward_kv_heads_per_section(int64_t kv_heads, int64_t seqlen_k, int64_t head_dim, int64_t element_bytes) {
  LCAB_CHECK(kv_heads > 0 && seqlen_k >= 0 && head_dim > 0 && element_bytes > 0,
             "forward sections need positive kv heads, head dim and element size");
  const int64_t kv_head_bytes = 2 * seqlen_k * head_dim * element_bytes;  // K and V
  for (int64_t n = kv_heads; n > 1; --n) {
    if (kv_heads % n == 0 && n * kv_head_bytes <= kForwardKvSectionBytes) return static_cast<int32_t>(n);
  }
  return 1;
}

}  // namespace lcab::kernels
