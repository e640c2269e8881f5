// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/text/unicode_text.h"

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace khet {
namespace {

struct Range {
  char32_t first;
  char32_t last;
};

bool InRanges(char32_t c, std::initializer_list<Range> ranges) {
  for (const Range& r : ranges) {
    if (c >= r.first && c <= r.last) return true;
  }
  return false;
}

constexpr char32_t kZeroWidthJoiner = 0x200D;
constexpr char32_t kEmojiPresentation = 0xFE0F;

// Trimmed from the ends of names: ASCII whitespace and the Unicode space
// separators (Zs).
bool IsSpace(char32_t c) {
  return InRanges(c, {{0x09, 0x0D},
                      {0x20, 0x20},
                      {0xA0, 0xA0},
                      {0x1680, 0x1680},
                      {0x2000, 0x200A},
                      {0x202F, 0x202F},
                      {0x205F, 0x205F},
                      {0x3000, 0x3000}});
}

absl::Status BadName(std::string_view field, std::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat(absl::string_view(field.data(), field.size()), " ",
                   absl::string_view(problem.data(), problem.size())));
}

}  // namespace

std::optional<char32_t> NextCodePoint(std::string_view text, size_t* pos) {
  const unsigned char lead = static_cast<unsigned char>(text[*pos]);
  ++*pos;
  if (lead < 0x80) return lead;
  int extra = 0;
  char32_t c = 0;
  char32_t smallest = 0;  // below it the form is overlong
  if ((lead & 0xE0) == 0xC0) {
    extra = 1;
    c = lead & 0x1F;
    smallest = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2;
    c = lead & 0x0F;
    smallest = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3;
    c = lead & 0x07;
    smallest = 0x10000;
  } else {
    return std::nullopt;
  }
  size_t i = *pos;
  for (int k = 0; k < extra; ++k, ++i) {
    if (i >= text.size()) return std::nullopt;
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if ((b & 0xC0) != 0x80) return std::nullopt;
    c = (c << 6) | (b & 0x3F);
  }
  if (c < smallest || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
    return std::nullopt;
  }
  *pos = i;
  return c;
}

bool IsHiddenCharacter(char32_t c) {
  return InRanges(c, {
                         // Cc
                         {0x00, 0x1F},
                         {0x7F, 0x9F},
                         // Cf
                         {0xAD, 0xAD},
                         {0x600, 0x605},
                         {0x61C, 0x61C},
                         {0x6DD, 0x6DD},
                         {0x70F, 0x70F},
                         {0x890, 0x891},
                         {0x8E2, 0x8E2},
                         {0x180E, 0x180E},
                         {0x200B, 0x200F},
                         {0x202A, 0x202E},
                         {0x2060, 0x206F},
                         {0xFEFF, 0xFEFF},
                         {0xFFF9, 0xFFFB},
                         {0x110BD, 0x110BD},
                         {0x110CD, 0x110CD},
                         {0x13430, 0x1343F},
                         {0x1BCA0, 0x1BCA3},
                         {0x1D173, 0x1D17A},
                         {0xE0000, 0xE007F},
                         // Zl, Zp
                         {0x2028, 0x2029},
                         // Blank fillers
                         {0x34F, 0x34F},
                         {0x115F, 0x1160},
                         {0x17B4, 0x17B5},
                         {0x3164, 0x3164},
                         {0xFFA0, 0xFFA0},
                     });
}

bool IsPictograph(char32_t c) {
  return InRanges(c, {{0x2190, 0x21FF},
                      {0x2300, 0x23FF},
                      {0x25A0, 0x27BF},
                      {0x2900, 0x297F},
                      {0x2B00, 0x2BFF},
                      {0x1F000, 0x1FAFF}});
}

absl::StatusOr<std::string> CheckDisplayName(std::string_view field,
                                             std::string_view name,
                                             int max_characters) {
  std::vector<char32_t> chars;
  std::vector<size_t> starts;  // of each character in `name`
  for (size_t pos = 0; pos < name.size();) {
    const size_t start = pos;
    const std::optional<char32_t> c = NextCodePoint(name, &pos);
    if (!c.has_value()) {
      return BadName(
          field,
          absl::StrFormat("is not valid UTF-8: byte %d (0x%02x) does not "
                          "begin a well-formed character",
                          start + 1, static_cast<unsigned char>(name[start])));
    }
    chars.push_back(*c);
    starts.push_back(start);
  }
  size_t first = 0;
  size_t last = chars.size();  // one past
  while (first < last && IsSpace(chars[first])) ++first;
  while (last > first && IsSpace(chars[last - 1])) --last;
  for (size_t i = first; i < last; ++i) {
    const char32_t c = chars[i];
    if (c == kZeroWidthJoiner) {
      size_t before = i;  // the joined character, past one U+FE0F
      if (before > first && chars[before - 1] == kEmojiPresentation) --before;
      const bool joins = before > first && IsPictograph(chars[before - 1]) &&
                         i + 1 < last && IsPictograph(chars[i + 1]);
      if (joins) continue;
      return BadName(field,
                     absl::StrFormat("holds U+200D (zero width joiner) at "
                                     "character %d outside an emoji sequence; "
                                     "it may only join two emoji",
                                     i + 1));
    }
    if (IsHiddenCharacter(c)) {
      return BadName(field,
                     absl::StrFormat("holds U+%04X at character %d: control "
                                     "characters and invisible or formatting "
                                     "characters are not allowed",
                                     static_cast<uint32_t>(c), i + 1));
    }
  }
  if (first == last) return BadName(field, "is empty");
  const size_t count = last - first;
  if (count > static_cast<size_t>(max_characters)) {
    return BadName(field, absl::StrCat("has ", count, " characters; at most ",
                                       max_characters, " are allowed"));
  }
  const size_t begin = starts[first];
  const size_t end = last < starts.size() ? starts[last] : name.size();
  return std::string(name.substr(begin, end - begin));
}

}  // namespace khet
