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

}  // namespace
}  // namespace khet
