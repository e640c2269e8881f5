#include "engine/names.h"

#include "absl/strings/str_cat.h"

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

}  // namespace khet
