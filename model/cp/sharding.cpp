#include "model/cp/sharding.h"

#include <algorithm>

#include "model/error.h"

namespace lcab::cp {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Chunk `index` of `chunks` equal chunks of c tokens over [begin, end): real tokens then pads up to c.
void append_chunk(TokenMap& map, int64_t begin, int64_t end, int64_t chunk_tokens, int64_t index) {
  const int64_t lo = std::min(end, begin + index * chunk_tokens);
  const int64_t hi = std::min(end, lo + chunk_tokens);
  if (hi > lo) map.append({lo, hi - lo, false});
  if (chunk_tokens > hi - lo) map.append({-1, chunk_tokens - (hi - lo), true});
}

// Zigzag over one unit [begin, end): position p gets chunks p and 2R-1-p.
void zigzag_unit(std::vector<TokenMap>& positions, int64_t begin, int64_t end) {
  const int64_t r = static_cast<int64_t>(positions.size());
  const int64_t chunk = ceil_div(end - begin, 2 * r);
  for (int64_t p = 0; p < r; ++p) {
    append_chunk(positions[p], begin, end, chunk, p);
    append_chunk(positions[p], begin, end, chunk, 2 * r - 1 - p);
  }
}

// Consecutive documents grouped into units of at least min_unit tokens; returns unit boundaries.
std::vector<int64_t> document_units(const std::vector<int64_t>& document_lengths, int64_t seqlen,
                                    int64_t min_unit) {
  std::vector<int64_t> bounds{0};
  int64_t pos = 0;
  for (int64_t len : document_lengths) {
    pos += len;
    if (pos - bounds.back() >= min_unit) bounds.push_back(pos);
  }
  if (bounds.back() != seqlen) {
    if (bounds.size() > 1) bounds.back() = seqlen;  // a short remainder joins the last unit
    else bounds.push_back(seqlen);
  }
  return bounds;
}

}  // namespace

PositionSharding shard_sequence(const Mask& mask, int64_t positions, int64_t split, ShardingKind kind,
                                int64_t min_document_chunk_tokens) {
  const int64_t s = mask.seqlen();
  LCAB_CHECK(positions >= 1 && split >= 1, "sharding needs at least one position and one part, got "
                                               << positions << " positions x " << split << " parts");
  if (kind == ShardingKind::kAuto)
    kind = mask.num_documents() > 1 ? ShardingKind::kZigzagDocuments : ShardingKind::kZigzag;
  PositionSharding out;
  out.positions.resize(positions);
  if (kind == ShardingKind::kContiguous) {
    LCAB_CHECK(s >= positions * split, "sequence of " << s << " tokens is too short for " << positions * split
                                                      << " ranks (contiguous sharding needs S >= P)");
    const int64_t chunk = ceil_div(s, positions);
    for (int64_t p = 0; p < positions; ++p) append_chunk(out.positions[p], 0, s, chunk, p);
  } else {
    LCAB_CHECK(s >= 2 * positions, "sequence of " << s << " tokens is too short for zigzag over " << positions
                                                  << " ring positions: 2R = " << 2 * positions
                                                  << " chunks need S >= " << 2 * positions);
    std::vector<int64_t> bounds{0, s};
    if (kind == ShardingKind::kZigzagDocuments && mask.num_documents() > 1) {
      LCAB_CHECK(min_document_chunk_tokens >= 1,
                 "min_document_chunk_tokens must be >= 1, got " << min_document_chunk_tokens);
      bounds = document_units(mask.info().document_lengths, s, 2 * positions * min_document_chunk_tokens);
    }
    out.units = static_cast<int64_t>(bounds.size()) - 1;
    kind = out.units > 1 ? ShardingKind::kZigzagDocuments : ShardingKind::kZigzag;
    for (size_t u = 0; u + 1 < bounds.size(); ++u) zigzag_unit(out.positions, bounds[u], bounds[u + 1]);
  }
  out.kind = kind;
  int64_t rows = out.positions[0].rows();
  const int64_t padded = ceil_div(rows, split) * split;
  for (TokenMap& map : out.positions) {
    if (padded > map.rows()) map.append({-1, padded - map.rows(), true});
  }
  out.rows_per_position = padded;
  out.pad_tokens = padded * positions - s;
  return out;
}

TokenMap slice_rows(const TokenMap& map, int64_t row_begin, int64_t row_end) {
  TokenMap out;
  int64_t row = 0;
  for (const Segment& seg : map.segments) {
    const int64_t lo = std::max(row, row_begin);
    const int64_t hi = std::min(row + seg.length, row_end);
    if (hi > lo) out.append({seg.pad ? -1 : seg.global_begin + (lo - row), hi - lo, seg.pad});
    row += seg.length;
    if (row >= row_end) break;
  }
  return out;
}

TokenMap concatenate(const std::vector<TokenMap>& maps) {
  TokenMap out;
  for (const TokenMap& map : maps)
    for (const Segment& seg : map.segments) out.append(seg);
  return out;
}

KeyBlockIndex::KeyBlockIndex(const std::vector<TokenMap>& blocks) : num_blocks_(static_cast<int>(blocks.size())) {
  for (int b = 0; b < num_blocks_; ++b) {
    int64_t row = 0;
    for (const Segment& seg : blocks[b].segments) {
      if (!seg.pad) entries_.push_back({seg.global_begin, seg.global_begin + seg.length, b, row});
      row += seg.length;
    }
  }
  std::sort(entries_.begin(), entries_.end(),
            [](const Entry& a, const Entry& b) { return a.global_begin < b.global_begin; });
  for (size_t n = 1; n < entries_.size(); ++n)
    LCAB_CHECK(entries_[n].global_begin >= entries_[n - 1].global_end,
               "key blocks overlap at global token " << entries_[n].global_begin);
}

std::pair<const KeyBlockIndex::Entry*, const KeyBlockIndex::Entry*> KeyBlockIndex::overlapping(int64_t begin,
                                                                                              int64_t end) const {
  // first entry whose end > begin
  auto first = std::partition_point(entries_.begin(), entries_.end(),
                                    [&](const Entry& e) { return e.global_end <= begin; });
  auto last = first;
  while (last != entries_.end() && last->global_begin < end) ++last;
  return {entries_.data() + (first - entries_.begin()), entries_.data() + (last - entries_.begin())};
}

}  // namespace lcab::cp
