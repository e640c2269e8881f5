// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/names.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace khet {

std::string SquareName(Square s) {
  if (s < 0 || s >= kSquares) return absl::StrCat("square #", s);
  return {static_cast<char>('a' + FileOf(s)),
          static_cast<char>('1' + RankOf(s))};
}

const char* ColorName(Color c) {
  return c == Color::kSilver ? "Silver" : "Red";
}

const char* PieceTypeName(PieceType t, Edition edition) {
  switch (t) {
    case PieceType::kPharaoh:
      return "Pharaoh";
    case PieceType::kPyramid:
      return "Pyramid";
    case PieceType::kScarab:
      return edition == Edition::kKhet1 ? "Djed" : "Scarab";
    case PieceType::kAnubis:
      return "Anubis";
    case PieceType::kSphinx:
      return "Sphinx";
    case PieceType::kObelisk:
      return "Obelisk";
    case PieceType::kEye:
      return "Eye of Horus";
    case PieceType::kNone:
      break;
  }
  return "nothing";
}

std::string QuotedText(std::string_view text) {
  constexpr int kMaxCharacters = 64;
  std::string out = "\"";
  int characters = 0;
  int continuation = 0;  // bytes still expected in the current character
  size_t i = 0;
  for (; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80 && continuation > 0) {
      --continuation;
    } else {
      if (characters++ == kMaxCharacters) break;
      continuation = (c & 0xE0) == 0xC0   ? 1
                     : (c & 0xF0) == 0xE0 ? 2
                     : (c & 0xF8) == 0xF0 ? 3
                                          : 0;
    }
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", static_cast<unsigned>(c));
    }
  }
  out.push_back('"');
  if (i < text.size()) absl::StrAppend(&out, "... (", text.size(), " bytes)");
  return out;
}

}  // namespace khet
