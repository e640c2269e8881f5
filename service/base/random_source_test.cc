// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/base/random_source.h"

#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

// Without the rule, about one id in 32 would start with '-' or '_'.
TEST(SystemRandomTest, SessionIdsStartWithALetterOrDigit) {
  std::set<std::string> seen;
  for (int i = 0; i < 2000; ++i) {
    const std::string id = SystemRandom()->NewSessionId();
    ASSERT_EQ(id.size(), 12u) << id;
    EXPECT_TRUE(absl::ascii_isalnum(static_cast<unsigned char>(id[0]))) << id;
    for (const char c : id) {
      EXPECT_TRUE(absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
                  c == '-' || c == '_')
          << id;
    }
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 2000u);
}

TEST(SystemRandomTest, TokensAreLongAndUrlSafe) {
  const std::string token = SystemRandom()->NewToken();
  EXPECT_EQ(token.size(), 43u);
  EXPECT_NE(token, SystemRandom()->NewToken());
}

TEST(SystemRandomTest, TokensAreWellFormed) {
  for (int i = 0; i < 2000; ++i) {
    const std::string token = SystemRandom()->NewToken();
    EXPECT_EQ(token.size(), kTokenLength) << token;
    EXPECT_TRUE(IsWellFormedToken(token)) << token;
  }
}

TEST(TokenShapeTest, OnlyFortyThreeUrlSafeCharactersAreATokensShape) {
  const std::string good(kTokenLength, 'a');
  EXPECT_TRUE(IsWellFormedToken(good));
  EXPECT_TRUE(IsWellFormedToken("AZaz09-_" + std::string(35, 'x')));
  EXPECT_FALSE(IsWellFormedToken(""));
  EXPECT_FALSE(IsWellFormedToken("x"));
  EXPECT_FALSE(IsWellFormedToken("!!!"));
  EXPECT_FALSE(IsWellFormedToken(good.substr(1)));
  EXPECT_FALSE(IsWellFormedToken(good + "a"));
  EXPECT_FALSE(IsWellFormedToken(std::string(10240, 'a')));
  for (const char bad : {'=', '+', '/', '.', ' ', '!', '\x7f', '\0'}) {
    std::string token = good;
    token[20] = bad;
    EXPECT_FALSE(IsWellFormedToken(token)) << int{bad};
  }
  EXPECT_FALSE(IsWellFormedToken(std::string(41, 'a') + "\xc3\xa9"));
}

}  // namespace
}  // namespace khet
