#include "model/cli_values.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace lcab {
namespace {

TEST(CliValues, TokenCounts) {
  EXPECT_EQ(parse_token_count("4096"), 4096);
  EXPECT_EQ(parse_token_count("4k"), 4096);
  EXPECT_EQ(parse_token_count("16K"), 16384);
  EXPECT_EQ(parse_token_count("1M"), 1048576);
  EXPECT_EQ(parse_token_count(" 2k "), 2048);
  EXPECT_THROW(parse_token_count("4m"), Error);
  EXPECT_THROW(parse_token_count("k"), Error);
  EXPECT_THROW(parse_token_count("4.5k"), Error);
  EXPECT_THROW(parse_token_count(""), Error);
  EXPECT_THROW(parse_token_count("99999999999999999999"), Error);
}

TEST(CliValues, Lists) {
  EXPECT_EQ(parse_token_list("4k,16k,1M"), (std::vector<int64_t>{4096, 16384, 1048576}));
  EXPECT_THROW(parse_token_list("4k,,1M"), Error);
  EXPECT_EQ(split_list("a, b"), (std::vector<std::string>{"a", "b"}));
}

TEST(CliValues, FormatTokens) {
  EXPECT_EQ(format_tokens(4096), "4K");
  EXPECT_EQ(format_tokens(1 << 20), "1M");
  EXPECT_EQ(format_tokens(3000), "3000");
}

}  // namespace
}  // namespace lcab
