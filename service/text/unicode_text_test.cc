// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/text/unicode_text.h"

#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

// The code points of `text`, 0xFFFFFFFF for a bad byte.
std::u32string Decode(std::string_view text) {
  std::u32string out;
  for (size_t pos = 0; pos < text.size();) {
    out.push_back(NextCodePoint(text, &pos).value_or(0xFFFFFFFF));
  }
  return out;
}

TEST(NextCodePointTest, DecodesEveryLength) {
  EXPECT_EQ(Decode("a\u00e9\u20ac\U0001F600"),
            (std::u32string{U'a', 0xE9, 0x20AC, 0x1F600}));
}

TEST(NextCodePointTest, RejectsMalformedSequencesOneByteAtATime) {
  constexpr char32_t kBad = 0xFFFFFFFF;
  EXPECT_EQ(Decode("\x80"), (std::u32string{kBad}));
  EXPECT_EQ(Decode("\xc0\xaf"), (std::u32string{kBad, kBad}));  // overlong
  EXPECT_EQ(Decode("\xed\xa0\x80"),
            (std::u32string{kBad, kBad, kBad}));  // surrogate
  EXPECT_EQ(Decode("\xf4\x90\x80\x80"),
            (std::u32string{kBad, kBad, kBad, kBad}));  // beyond U+10FFFF
  EXPECT_EQ(Decode("\xe2\x82z"), (std::u32string{kBad, kBad, U'z'}));
  EXPECT_EQ(Decode("\xff"), (std::u32string{kBad}));
}

TEST(IsHiddenCharacterTest, ControlFormatAndSeparators) {
  for (uint32_t c :
       {0x00,    0x1F,   0x7F,   0x85,   0x9F,   0xAD,   0x61C,   0x180E,
        0x200B,  0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202E,  0x2060,
        0x2064,  0x2066, 0x206F, 0xFEFF, 0xFFF9, 0xFFFB, 0xE0001, 0xE0020,
        0xE007F, 0x2028, 0x2029, 0x3164, 0x115F}) {
    EXPECT_TRUE(IsHiddenCharacter(c)) << std::hex << c;
  }
  for (uint32_t c : {0x61, 0x20, 0xE9, 0xDF, 0x436, 0x6E21, 0x634, 0xFE0F,
                     0xFE00, 0xE0100, 0x1F600, 0x1F3FD, 0x2764}) {
    EXPECT_FALSE(IsHiddenCharacter(c)) << std::hex << c;
  }
}

TEST(CheckDisplayNameTest, KeepsLettersOfEveryScriptAndEmoji) {
  for (const char* name : {"alice",
                           "Zoë",
                           "José María",
                           "Ævar",
                           "Дмитрий",
                           "渡辺",
                           "محمد",
                           "דוד",
                           "प्रिया",
                           "김민준",
                           "👍",
                           "👍🏽",
                           "❤️",
                           "👩🏽‍💻",
                           "👨‍👩‍👧",
                           "🏳️‍🌈",
                           "❤️‍🔥",
                           "🐻‍❄️",
                           "👨‍⚕️",
                           "alice 👋"}) {
    absl::StatusOr<std::string> checked =
        CheckDisplayName("player_name", name, 64);
    ASSERT_TRUE(checked.ok()) << name << ": " << checked.status();
    EXPECT_EQ(*checked, name);
  }
}

TEST(CheckDisplayNameTest, TrimsSpacesOfEveryKind) {
  EXPECT_EQ(*CheckDisplayName("name", "  bob\t", 64), "bob");
  EXPECT_EQ(*CheckDisplayName("name", "\u00a0bob\u3000", 64), "bob");
  EXPECT_EQ(*CheckDisplayName("name", "b o b", 64), "b o b");
}

TEST(CheckDisplayNameTest, RejectsHiddenCharactersNamingTheFieldOnly) {
  for (const char* name :
       {"a\nb",           "a\x01",         "\x7f",        "a\u0085b",
        "bob\u202Eecila", "al\u200Bice",   "al\u200Cice", "al\u200Dice",
        "\u200Dbob",      "bob\u200D",     "👍\u200D",     "\u200D👍",
        "👍\u200D\u200D👍", "a\u200D👍",      "\uFEFFbob",   "b\u00ADob",
        "\u061Cbob",      "a\u180Eb",      "a\u2066b",    "a\u2060b",
        "a\uFFF9b",       "\U000E0041bob", "a\u2028b",    "a\u2029b",
        "\u3164",         "a\u115Fb"}) {
    const absl::Status status =
        CheckDisplayName("player_name", name, 64).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_TRUE(absl::StartsWith(status.message(), "player_name holds U+"))
        << status;
    EXPECT_FALSE(absl::StrContains(status.message(), "bob")) << status;
  }
  EXPECT_EQ(CheckDisplayName("name", "bob\u202E", 64).status().message(),
            "name holds U+202E at character 4: control characters and "
            "invisible or formatting characters are not allowed");
}

TEST(CheckDisplayNameTest, RejectsMalformedUtf8EmptyAndLong) {
  EXPECT_EQ(CheckDisplayName("name", "bo\xff", 64).status().message(),
            "name is not valid UTF-8: byte 3 (0xff) does not begin a "
            "well-formed character");
  EXPECT_FALSE(CheckDisplayName("name", "\xed\xa0\x80", 64).ok());
  EXPECT_EQ(CheckDisplayName("name", "", 64).status().message(),
            "name is empty");
  EXPECT_EQ(CheckDisplayName("name", " \u3000 ", 64).status().message(),
            "name is empty");
  std::string emoji;
  for (int i = 0; i < 64; ++i) emoji += "😀";
  EXPECT_TRUE(CheckDisplayName("name", emoji, 64).ok());
  EXPECT_EQ(CheckDisplayName("name", emoji + "😀", 64).status().message(),
            "name has 65 characters; at most 64 are allowed");
}

}  // namespace
}  // namespace khet
