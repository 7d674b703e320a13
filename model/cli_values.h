// Parsing of command-line values shared by every executable: token counts with k/K/M suffixes and
// comma-separated lists (`--seqlen 4k,16k,1M`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lcab {

/// "4096", "4k", "4K" (x1024), "1M" (x1048576). Throws lcab::Error naming the text on anything else.
int64_t parse_token_count(std::string_view text);
/// A plain integer or a token count with suffix.
int64_t parse_int(std::string_view text);
/// A decimal number.
double parse_double(std::string_view text);
/// Splits on commas, trims spaces, drops nothing: an empty element is an error.
std::vector<std::string> split_list(std::string_view text);
/// Comma-separated token counts.
std::vector<int64_t> parse_token_list(std::string_view text);
/// "4096" -> "4K", "1048576" -> "1M", 3000 -> "3000": the shortest exact form.
std::string format_tokens(int64_t tokens);
/// Joins with ", ".
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");
/// (label, item) pairs gathered per label, labels in the order first seen, items in their order: for messages that
/// say each distinct reason or source once, with what it applies to.
std::vector<std::pair<std::string, std::vector<std::string>>> group_by_label(
    const std::vector<std::pair<std::string, std::string>>& label_items);

}  // namespace lcab
