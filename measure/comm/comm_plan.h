// What a communication sweep runs, decided on the host: message sizes (-b/-e/-f as in nccl-tests) and the
// group layout (--group world | contiguous:N | strided:N). Host-only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lcab::measure {

/// "8", "64K", "1M", "2G" (x1024 powers; "B" may follow: "64KB"). Throws lcab::Error on anything else.
int64_t parse_byte_size(const std::string& text);

/// Sizes from min to max: multiplied by `factor` each step (nccl-tests -f), or, with factor 0, stepping by
/// `increment` (nccl-tests -i). Throws lcab::Error when min > max, min <= 0, or factor is 1 with no increment.
std::vector<int64_t> message_sizes(int64_t min_bytes, int64_t max_bytes, int64_t factor, int64_t increment = 0);

/// How the world splits into the groups that run the operation at the same time (as CP methods use them):
/// world: one group of every rank; contiguous:N: ranks [0,N), [N,2N), ...; strided:N: groups of N ranks
/// spaced world/N apart ({0, W/N, 2W/N, ...}, {1, 1+W/N, ...}).
struct GroupLayout {
  enum class Kind { kWorld, kContiguous, kStrided };
  Kind kind = Kind::kWorld;
  int group_size = 0;  ///< N; 0 for world

  /// "world", "contiguous:4", "strided:2".
  static GroupLayout parse(const std::string& text);
  std::string to_string() const;
  /// Checks that the layout fits `world_size` ranks (N divides it); throws lcab::Error otherwise.
  void validate(int world_size) const;
  int size(int world_size) const { return kind == Kind::kWorld ? world_size : group_size; }
  /// Which group a rank belongs to (ncclCommSplit color) and its rank inside the group (key).
  int color(int rank, int world_size) const;
  int rank_in_group(int rank, int world_size) const;
};

}  // namespace lcab::measure
