#include "measure/comm/comm_plan.h"

#include <cctype>

#include "model/cli_values.h"
#include "model/error.h"

namespace lcab::measure {

int64_t parse_byte_size(const std::string& text) {
  std::string t = text;
  if (!t.empty() && (t.back() == 'B' || t.back() == 'b')) t.pop_back();
  LCAB_CHECK(!t.empty(), "byte size '" << text << "' is empty; use e.g. 8, 64K, 1M, 1G");
  int64_t multiplier = 1;
  switch (std::toupper(static_cast<unsigned char>(t.back()))) {
    case 'K': multiplier = int64_t{1} << 10; break;
    case 'M': multiplier = int64_t{1} << 20; break;
    case 'G': multiplier = int64_t{1} << 30; break;
    default: break;
  }
  if (multiplier != 1) t.pop_back();
  for (char c : t) {
    LCAB_CHECK(std::isdigit(static_cast<unsigned char>(c)), "byte size '" << text << "' is not valid; use e.g. 8, 64K, 1M, 1G");
  }
  LCAB_CHECK(!t.empty() && t.size() < 13, "byte size '" << text << "' is not valid; use e.g. 8, 64K, 1M, 1G");
  return std::stoll(t) * multiplier;
}

std::vector<int64_t> message_sizes(int64_t min_bytes, int64_t max_bytes, int64_t factor, int64_t increment) {
  LCAB_CHECK(min_bytes > 0, "-b/--minbytes must be positive, got " << min_bytes);
  LCAB_CHECK(max_bytes >= min_bytes, "-e/--maxbytes " << max_bytes << " is below -b/--minbytes " << min_bytes);
  LCAB_CHECK(factor >= 2 || (factor == 0 && increment > 0),
             "-f/--stepfactor must be at least 2 (or 0 with -i/--stepbytes > 0), got " << factor);
  std::vector<int64_t> sizes;
  for (int64_t s = min_bytes; s <= max_bytes; s = factor ? s * factor : s + increment) sizes.push_back(s);
  return sizes;
}

GroupLayout GroupLayout::parse(const std::string& text) {
  const std::string valid = "valid: world, contiguous:N, strided:N";
  if (text == "world") return {};
  const size_t colon = text.find(':');
  LCAB_CHECK(colon != std::string::npos, "--group '" << text << "' is not valid; " << valid);
  const std::string name = text.substr(0, colon);
  GroupLayout layout;
  if (name == "contiguous") layout.kind = Kind::kContiguous;
  else if (name == "strided") layout.kind = Kind::kStrided;
  else LCAB_THROW("--group '" << text << "' is not valid; " << valid);
  try {
    layout.group_size = static_cast<int>(parse_int(text.substr(colon + 1)));
  } catch (const Error&) {
    LCAB_THROW("--group '" << text << "': group size is not an integer; " << valid);
  }
  LCAB_CHECK(layout.group_size >= 1, "--group '" << text << "': group size must be at least 1");
  return layout;
}

std::string GroupLayout::to_string() const {
  switch (kind) {
    case Kind::kWorld: return "world";
    case Kind::kContiguous: return "contiguous:" + std::to_string(group_size);
    case Kind::kStrided: return "strided:" + std::to_string(group_size);
  }
  return "world";
}

void GroupLayout::validate(int world_size) const {
  if (kind == Kind::kWorld) return;
  LCAB_CHECK(group_size <= world_size && world_size % group_size == 0,
             "--group " << to_string() << " needs a group size that divides the " << world_size << " ranks");
}

int GroupLayout::color(int rank, int world_size) const {
  switch (kind) {
    case Kind::kWorld: return 0;
    case Kind::kContiguous: return rank / group_size;
    case Kind::kStrided: return rank % (world_size / group_size);
  }
  return 0;
}

int GroupLayout::rank_in_group(int rank, int world_size) const {
  switch (kind) {
    case Kind::kWorld: return rank;
    case Kind::kContiguous: return rank % group_size;
    case Kind::kStrided: return rank / (world_size / group_size);
  }
  return rank;
}

}  // namespace lcab::measure
