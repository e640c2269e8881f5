// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/text/quoted_input.h"

#include <string>

#include "gtest/gtest.h"

namespace khet {
namespace {

TEST(QuoteInputTest, ShortTextIsQuotedWhole) {
  EXPECT_EQ(QuoteInput(""), "\"\"");
  EXPECT_EQ(QuoteInput("s0001"), "\"s0001\"");
  // Letters of other scripts and emoji stay readable.
  EXPECT_EQ(QuoteInput("Zoë 渡辺 👍🏽"), "\"Zoë 渡辺 👍🏽\"");
}

TEST(QuoteInputTest, EscapesQuotesControlsHiddenAndBadBytes) {
  EXPECT_EQ(QuoteInput("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(QuoteInput("a\nb\r\tc"), "\"a\\nb\\r\\tc\"");
  EXPECT_EQ(QuoteInput(std::string("a\0b", 3)), "\"a\\u{0000}b\"");
  EXPECT_EQ(QuoteInput("\x1b[31m"), "\"\\u{001B}[31m\"");
  // Right-to-left override, zero width space, byte order mark.
  EXPECT_EQ(QuoteInput("ab\u202Ecd"), "\"ab\\u{202E}cd\"");
  EXPECT_EQ(QuoteInput("\u200B\uFEFF"), "\"\\u{200B}\\u{FEFF}\"");
  // Not UTF-8: a lone continuation byte, a cut sequence, an overlong form.
  EXPECT_EQ(QuoteInput("a\x80z"), "\"a\\x80z\"");
  EXPECT_EQ(QuoteInput("a\xe2\x82"), "\"a\\xe2\\x82\"");
  EXPECT_EQ(QuoteInput("\xc0\xaf"), "\"\\xc0\\xaf\"");
}

TEST(QuoteInputTest, LongTextIsCutAfter64CharactersWithItsSize) {
  EXPECT_EQ(QuoteInput(std::string(64, 'x')),
            "\"" + std::string(64, 'x') + "\"");
  const std::string cut = QuoteInput(std::string(60000, 'x'));
  EXPECT_EQ(cut, "\"" + std::string(64, 'x') + "\"... (60000 bytes)");
  // 64 characters of four bytes each: counted as characters, never split.
  std::string emoji;
  for (int i = 0; i < 65; ++i) emoji += "😀";
  std::string want = "\"";
  for (int i = 0; i < 64; ++i) want += "😀";
  EXPECT_EQ(QuoteInput(emoji), want + "\"... (260 bytes)");
  EXPECT_EQ(QuoteInput("😀" + std::string(64, 'x')),
            "\"😀" + std::string(63, 'x') + "\"... (68 bytes)");
}

TEST(LoggedMessageTest, ShortMessagesAreEscapedWhole) {
  EXPECT_EQ(LoggedMessage("no session \"x\"\n"), "no session \\\"x\\\"\\n");
  EXPECT_EQ(LoggedMessage(std::string(256, 'm')), std::string(256, 'm'));
}

TEST(LoggedMessageTest, LongMessagesAreCutWithTheirSize) {
  EXPECT_EQ(LoggedMessage(std::string(60000, 'm')),
            std::string(256, 'm') + "... (60000 bytes)");
  // Escapes are never split: 85 of "\001" (4 bytes each) fit in 340.
  const std::string controls(100, '\x01');
  std::string want;
  for (int i = 0; i < 85; ++i) want += "\\001";
  EXPECT_EQ(LoggedMessage(controls, 340), want + "... (100 bytes)");
  // Short, but long once escaped.
  EXPECT_EQ(LoggedMessage(std::string(200, '\n')).size(),
            256 + std::string("... (200 bytes)").size());
}

}  // namespace
}  // namespace khet
