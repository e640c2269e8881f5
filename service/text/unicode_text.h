// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Client text as Unicode: UTF-8 decoding, the characters that show nothing
// or change how the text around them shows, and the rule for the names
// that other people see (session and player names).
#ifndef KHET_SERVICE_TEXT_UNICODE_TEXT_H_
#define KHET_SERVICE_TEXT_UNICODE_TEXT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace khet {

// The code point starting at text[*pos], with *pos moved past it; nullopt
// for a byte that does not start a well-formed UTF-8 sequence (a stray
// continuation byte, an overlong form, a surrogate, beyond U+10FFFF, a
// sequence cut short), with *pos moved past that one byte.
// REQUIRES: *pos < text.size().
std::optional<char32_t> NextCodePoint(std::string_view text, size_t* pos);

// Characters that show nothing or steer the display of others: control
// characters (Cc), format characters (Cf: U+00AD, U+061C, U+180E,
// U+200B-U+200F, U+202A-U+202E, U+2060-U+206F, U+FEFF, U+FFF9-U+FFFB,
// U+E0000-U+E007F and the rest of the category), the line and paragraph
// separators U+2028 and U+2029, and the blank fillers U+034F, U+115F,
// U+1160, U+17B4, U+17B5, U+3164 and U+FFA0. Variation selectors
// (U+FE00-U+FE0F, U+E0100-U+E01EF) are not hidden: emoji need them.
bool IsHiddenCharacter(char32_t c);

// Emoji and other pictographs that the zero width joiner U+200D combines
// into one emoji (U+1F000-U+1FAFF, with the skin tones, and the symbol
// blocks of U+2190-U+2BFF such as U+2640, U+2695, U+2764, U+2B1B).
bool IsPictograph(char32_t c);

// A name shown to others, checked and trimmed: spaces (ASCII whitespace and
// Unicode space separators) are trimmed from both ends; what is left must
// be well-formed UTF-8 of 1 to max_characters code points holding no
// hidden character (IsHiddenCharacter), except U+200D between two
// pictographs (a variation selector U+FE0F may follow the first), as in
// the emoji sequences of families, professions and flags. Letters of
// every script, digits, punctuation, symbols, emoji with their variation
// selectors and skin tones, and inner spaces are kept. INVALID_ARGUMENT
// naming `field`, the problem and the code point, never the name.
absl::StatusOr<std::string> CheckDisplayName(std::string_view field,
                                             std::string_view name,
                                             int max_characters);

}  // namespace khet

#endif  // KHET_SERVICE_TEXT_UNICODE_TEXT_H_
