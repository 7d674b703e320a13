#include "model/cli_values.h"

#include <algorithm>

#include <cerrno>
#include <charconv>
#include <cstdlib>

#include "model/error.h"

namespace lcab {
namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
}  // namespace

int64_t parse_token_count(std::string_view text) {
  std::string_view t = trim(text);
  LCAB_CHECK(!t.empty(), "expected a token count such as 4096, 4k or 1M, got an empty value");
  int64_t multiplier = 1;
  if (t.back() == 'k' || t.back() == 'K') {
    multiplier = 1024;
    t.remove_suffix(1);
  } else if (t.back() == 'M') {
    multiplier = 1024 * 1024;
    t.remove_suffix(1);
  }
  int64_t value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  LCAB_CHECK(ec == std::errc() && end == t.data() + t.size() && !t.empty(),
             "'" << text << "' is not a token count; use an integer with an optional k/K (x1024) or M (x1048576) "
                    "suffix, e.g. 4096, 4k, 1M");
  LCAB_CHECK(value <= INT64_MAX / multiplier, "'" << text << "' is too large");
  return value * multiplier;
}

int64_t parse_int(std::string_view text) { return parse_token_count(text); }

double parse_double(std::string_view text) {
  const std::string t(trim(text));
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(t.c_str(), &end);
  LCAB_CHECK(!t.empty() && end == t.c_str() + t.size() && errno == 0, "'" << text << "' is not a number");
  return value;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view item = trim(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    LCAB_CHECK(!item.empty(), "empty element in list '" << text << "'");
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

std::vector<int64_t> parse_token_list(std::string_view text) {
  std::vector<int64_t> values;
  for (const std::string& item : split_list(text)) values.push_back(parse_token_count(item));
  return values;
}

std::string format_tokens(int64_t tokens) {
  if (tokens > 0 && tokens % (1024 * 1024) == 0) return std::to_string(tokens / (1024 * 1024)) + "M";
  if (tokens > 0 && tokens % 1024 == 0) return std::to_string(tokens / 1024) + "K";
  return std::to_string(tokens);
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (size_t n = 0; n < items.size(); ++n) {
    if (n) out += separator;
    out += items[n];
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> group_by_label(
    const std::vector<std::pair<std::string, std::string>>& label_items) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& [label, item] : label_items) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == label; });
    if (it == groups.end()) it = groups.insert(groups.end(), {label, {}});
    it->second.push_back(item);
  }
  return groups;
}

}  // namespace lcab
