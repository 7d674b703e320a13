#include "model/cp/schedule.h"

#include <algorithm>
#include <array>

#include "model/error.h"

namespace lcab::cp {
namespace {

// Name tables for the enums; parse_* throw listing the valid names.
template <class Enum, size_t N>
Enum parse_named(std::string_view name, const std::array<std::pair<Enum, std::string_view>, N>& table,
                 std::string_view what) {
  for (const auto& [value, text] : table)
    if (text == name) return value;
  std::string valid;
  for (const auto& [value, text] : table) valid += (valid.empty() ? "" : ", ") + std::string(text);
  LCAB_THROW("unknown " << what << " '" << name << "'; valid: " << valid);
}
template <class Enum, size_t N>
std::string_view name_of(Enum value, const std::array<std::pair<Enum, std::string_view>, N>& table) {
  for (const auto& [v, text] : table)
    if (v == value) return text;
  return "?";
}

constexpr std::array<std::pair<Pass, std::string_view>, 2> kPassNames{
    {{Pass::kForward, "fwd"}, {Pass::kBackward, "bwd"}}};
constexpr std::array<std::pair<Placement, std::string_view>, 2> kPlacementNames{
    {{Placement::kUlyssesIntra, "ulysses_intra"}, {Placement::kRingIntra, "ring_intra"}}};
constexpr std::array<std::pair<ShardingKind, std::string_view>, 4> kShardingNames{
    {{ShardingKind::kAuto, "auto"},
     {ShardingKind::kContiguous, "contiguous"},
     {ShardingKind::kZigzag, "zigzag"},
     {ShardingKind::kZigzagDocuments, "zigzag_documents"}}};
constexpr std::array<std::pair<BufferRole, std::string_view>, 7> kRoleNames{
    {{BufferRole::kQ, "q"},
     {BufferRole::kKV, "kv"},
     {BufferRole::kOut, "out"},
     {BufferRole::kLse, "lse"},
     {BufferRole::kDOut, "dout"},
     {BufferRole::kDQ, "dq"},
     {BufferRole::kDKV, "dkv"}}};
constexpr std::array<std::pair<GroupKind, std::string_view>, 4> kGroupNames{
    {{GroupKind::kWorld, "world"}, {GroupKind::kUlysses, "ulysses"}, {GroupKind::kRing, "ring"},
     {GroupKind::kWindow, "window"}}};
constexpr std::array<std::pair<Stream, std::string_view>, kNumStreams> kStreamNames{
    {{Stream::kCompute, "compute"},
     {Stream::kSend, "send"},
     {Stream::kRecv, "recv"},
     {Stream::kCollective, "collective"},
     {Stream::kOuterSend, "outer_send"},
     {Stream::kOuterRecv, "outer_recv"}}};
constexpr std::array<std::pair<OpKind, std::string_view>, 8> kOpNames{
    {{OpKind::kCompute, "compute"},
     {OpKind::kZero, "zero"},
     {OpKind::kAdd, "add"},
     {OpKind::kSend, "send"},
     {OpKind::kRecv, "recv"},
     {OpKind::kAllGather, "all_gather"},
     {OpKind::kReduceScatter, "reduce_scatter"},
     {OpKind::kAllToAll, "all_to_all"}}};

}  // namespace

std::string_view to_string(Pass pass) { return name_of(pass, kPassNames); }
Pass parse_pass(std::string_view name) { return parse_named(name, kPassNames, "pass"); }
std::string_view to_string(Placement placement) { return name_of(placement, kPlacementNames); }
Placement parse_placement(std::string_view name) { return parse_named(name, kPlacementNames, "placement"); }
std::string_view to_string(ShardingKind kind) { return name_of(kind, kShardingNames); }
ShardingKind parse_sharding(std::string_view name) { return parse_named(name, kShardingNames, "sharding"); }
std::string_view to_string(BufferRole role) { return name_of(role, kRoleNames); }
std::string_view to_string(GroupKind kind) { return name_of(kind, kGroupNames); }
std::string_view to_string(Stream stream) { return name_of(stream, kStreamNames); }
std::string_view to_string(OpKind kind) { return name_of(kind, kOpNames); }

int64_t TokenMap::rows() const {
  int64_t n = 0;
  for (const Segment& s : segments) n += s.length;
  return n;
}

int64_t TokenMap::real_tokens() const {
  int64_t n = 0;
  for (const Segment& s : segments)
    if (!s.pad) n += s.length;
  return n;
}

int64_t TokenMap::real_row_span() const {
  int64_t row = 0, first = -1, end = 0;
  for (const Segment& s : segments) {
    if (!s.pad) {
      if (first < 0) first = row;
      end = row + s.length;
    }
    row += s.length;
  }
  return first < 0 ? 0 : end - first;
}

int64_t TokenMap::global_of(int64_t row) const {
  LCAB_CHECK(row >= 0, "row " << row << " is negative");
  int64_t start = 0;
  for (const Segment& s : segments) {
    if (row < start + s.length) return s.pad ? -1 : s.global_begin + (row - start);
    start += s.length;
  }
  LCAB_THROW("row " << row << " lies outside a token map of " << start << " rows");
}

void TokenMap::append(Segment segment) {
  if (segment.length <= 0) return;
  if (segment.pad) segment.global_begin = -1;
  if (!segments.empty()) {
    Segment& last = segments.back();
    if (last.pad && segment.pad) {
      last.length += segment.length;
      return;
    }
    if (!last.pad && !segment.pad && last.global_begin + last.length == segment.global_begin) {
      last.length += segment.length;
      return;
    }
  }
  segments.push_back(segment);
}

double ComputeItem::flops(Pass pass, int64_t head_dim, int64_t batch) const {
  const double forward = 4.0 * static_cast<double>(pairs) * static_cast<double>(head_dim) * static_cast<double>(batch);
  return pass == Pass::kForward ? forward : 2.5 * forward;
}

int64_t RankSchedule::bytes_sent() const {
  int64_t n = 0;
  for (const CommOp& c : comms) n += c.bytes_sent;
  return n;
}

int64_t RankSchedule::compute_pairs() const {
  int64_t n = 0;
  for (const ComputeItem& item : items) n += item.pairs;
  return n;
}

int64_t Schedule::total_pairs() const {
  int64_t n = 0;
  for (const RankSchedule& r : ranks) n += r.compute_pairs();
  return n;
}

int64_t Schedule::peak_buffer_bytes() const {
  int64_t n = 0;
  for (const Buffer& b : buffers) n += b.bytes(config.workload.batch);
  return n;
}

}  // namespace lcab::cp
