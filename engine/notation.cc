// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/notation.h"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/absl_view.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/position.h"
#include "engine/types.h"

namespace khet {
namespace {

std::string_view TrimWhitespace(std::string_view s) {
  while (!s.empty() && absl::ascii_isspace(static_cast<unsigned char>(s[0]))) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         absl::ascii_isspace(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> SplitWhitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() &&
           absl::ascii_isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    }
    const size_t start = i;
    while (i < s.size() &&
           !absl::ascii_isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    }
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

bool IsScarabLike(PieceType t) {
  return t == PieceType::kScarab || t == PieceType::kEye;
}

constexpr std::array<std::string_view, 4> kPyramidAttr = {"ne", "se", "sw",
                                                          "nw"};
constexpr std::array<std::string_view, 4> kDirectionAttr = {"n", "e", "s", "w"};
// A Scarab's or Eye's physical facing, by orientation (types.h).
constexpr std::array<std::string_view, 4> kScarabFacingAttr = {"nw", "ne", "se",
                                                               "sw"};
constexpr std::array<std::string_view, 4> kDirectionWord = {"north", "east",
                                                            "south", "west"};

char PieceLetter(PieceType t) {
  switch (t) {
    case PieceType::kPharaoh:
      return 'K';
    case PieceType::kPyramid:
      return 'P';
    case PieceType::kScarab:
      return 'S';
    case PieceType::kAnubis:
      return 'A';
    case PieceType::kSphinx:
      return 'X';
    case PieceType::kObelisk:
      return 'O';
    case PieceType::kEye:
      return 'E';
    case PieceType::kNone:
      break;
  }
  return '?';
}

std::optional<PieceType> PieceTypeFromLetter(char upper) {
  switch (upper) {
    case 'K':
      return PieceType::kPharaoh;
    case 'P':
      return PieceType::kPyramid;
    case 'S':
      return PieceType::kScarab;
    case 'A':
      return PieceType::kAnubis;
    case 'X':
      return PieceType::kSphinx;
    case 'O':
      return PieceType::kObelisk;
    case 'E':
      return PieceType::kEye;
    default:
      return std::nullopt;
  }
}

// The attribute that follows a piece's letter in the position notation.
std::string PieceAttribute(Piece p, bool physical_facings) {
  const int o = p.orientation();
  if (physical_facings) {
    if (p.type() == PieceType::kPharaoh) return std::string(kDirectionAttr[o]);
    if (IsScarabLike(p.type())) return std::string(kScarabFacingAttr[o]);
  }
  switch (p.type()) {
    case PieceType::kPyramid:
      return std::string(kPyramidAttr[o]);
    case PieceType::kAnubis:
    case PieceType::kSphinx:
      return std::string(kDirectionAttr[o]);
    case PieceType::kScarab:
    case PieceType::kEye:
      return (o & 1) == kSlash ? "/" : "\\";
    case PieceType::kObelisk:
      return std::string(1, static_cast<char>('0' + p.height()));
    case PieceType::kPharaoh:
    case PieceType::kNone:
      break;
  }
  return "";
}

// "e4", or for a point just off the board, where it lies: "below j1".
std::string PointName(BeamPoint p) {
  if (IsOnBoard(p.file, p.rank)) return SquareName(MakeSquare(p.file, p.rank));
  const int file = p.file < 0 ? 0 : (p.file >= kFiles ? kFiles - 1 : p.file);
  const int rank = p.rank < 0 ? 0 : (p.rank >= kRanks ? kRanks - 1 : p.rank);
  const std::string edge = SquareName(MakeSquare(file, rank));
  if (p.rank < 0) return absl::StrCat("below ", edge);
  if (p.rank >= kRanks) return absl::StrCat("above ", edge);
  if (p.file < 0) return absl::StrCat("left of ", edge);
  return absl::StrCat("right of ", edge);
}

std::string SquareOrNone(Square s) {
  return s >= 0 && s < kSquares ? SquareName(s) : std::string("?");
}

}  // namespace

// ---- Squares ---------------------------------------------------------------

absl::StatusOr<Square> ParseSquare(std::string_view text) {
  if (text.empty()) return absl::InvalidArgumentError("empty square name");
  if (text.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        QuotedText(text), ": a square is a file a..j and a rank 1..8"));
  }
  if (text[0] < 'a' || text[0] > 'j') {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(text), ": file must be a..j"));
  }
  if (text[1] < '1' || text[1] > '8') {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(text), ": rank must be 1..8"));
  }
  return MakeSquare(text[0] - 'a', text[1] - '1');
}

// ---- Moves -----------------------------------------------------------------

std::string FormatMove(const Position& pos, Move move) {
  if (move.is_null()) return "(none)";
  const std::string from = SquareName(move.from());
  switch (move.kind()) {
    case MoveKind::kRotateClockwise:
      return from + "R";
    case MoveKind::kRotateAnticlockwise:
      return from + "L";
    case MoveKind::kMoveTop:
      return absl::StrCat(from, "^", SquareName(move.to()));
    case MoveKind::kMove:
      break;
  }
  const bool swap = move.to() >= 0 && move.to() < kSquares &&
                    IsScarabLike(pos.at(move.from()).type()) &&
                    !pos.at(move.to()).empty();
  return absl::StrCat(from, swap ? "=" : "-", SquareName(move.to()));
}

absl::StatusOr<Move> ParseMove(const Position& pos, std::string_view text) {
  const std::string_view t = TrimWhitespace(text);
  const std::string usage =
      "a move is written e4-e5 (step), e4=f5 (swap), d1^d2 (top obelisk), "
      "e4R or e4L (turn)";
  if (t.size() == 3) {
    absl::StatusOr<Square> square = ParseSquare(t.substr(0, 2));
    if (!square.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(QuotedText(t), ": ", square.status().message()));
    }
    const char turn = t[2];
    if (turn == 'R' || turn == 'r') return Move::Rotate(*square, true);
    if (turn == 'L' || turn == 'l') return Move::Rotate(*square, false);
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t),
                     ": a turn ends in R (clockwise) or L "
                     "(anticlockwise)"));
  }
  if (t.size() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": not a move; ", usage));
  }
  const char sep = t[2];
  if (sep != '-' && sep != '=' && sep != '^') {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": ", QuotedText(t.substr(2, 1)),
                     " is not -, = or ^; ", usage));
  }
  absl::StatusOr<Square> from = ParseSquare(t.substr(0, 2));
  if (!from.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": ", from.status().message()));
  }
  absl::StatusOr<Square> to = ParseSquare(t.substr(3, 2));
  if (!to.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": ", to.status().message()));
  }
  if (*from == *to || !Contains(Neighbours(*from), *to)) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": ", SquareName(*to), " is not next to ",
                     SquareName(*from)));
  }
  if (sep == '=' && pos.at(*to).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuotedText(t), ": nothing on ", SquareName(*to),
                     " to swap with; a step is written ", SquareName(*from),
                     "-", SquareName(*to)));
  }
  return Move(*from, *to, sep == '^' ? MoveKind::kMoveTop : MoveKind::kMove);
}

// ---- Positions -------------------------------------------------------------

std::string FormatPosition(const Position& pos) {
  std::string out;
  out.reserve(128);  // a full setup's text is about 80 characters
  for (int rank = kRanks - 1; rank >= 0; --rank) {
    int empty_run = 0;
    for (int file = 0; file < kFiles; ++file) {
      const Piece p = pos.at(MakeSquare(file, rank));
      if (p.empty()) {
        ++empty_run;
        continue;
      }
      if (empty_run > 0) absl::StrAppend(&out, empty_run);
      empty_run = 0;
      out += PieceToken(p, pos.physical_facings());
    }
    if (empty_run > 0) absl::StrAppend(&out, empty_run);
    if (rank > 0) out.push_back('/');
  }
  out += pos.side_to_move() == Color::kSilver ? " s" : " r";
  out += pos.edition() == Edition::kKhet1 ? " 1" : " 2";
  if (pos.physical_facings()) out += " f";
  return out;
}

absl::StatusOr<Position> ParsePosition(std::string_view text) {
  const std::vector<std::string_view> fields = SplitWhitespace(text);
  const bool physical = fields.size() == 4;
  if (physical && fields[3] != "f") {
    return absl::InvalidArgumentError(
        absl::StrCat("a position's fourth field, if any, is \"f\" (physical "
                     "facings), got ",
                     QuotedText(fields[3])));
  }
  if (fields.size() != 3 && !physical) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a position has 3 fields, \"<ranks> <side> <edition>\", got ",
        fields.size(), " in ", QuotedText(TrimWhitespace(text))));
  }
  Position pos;
  pos.SetPhysicalFacings(physical);  // on the empty board: only the form
  if (fields[2] == "1") {
    pos.set_edition(Edition::kKhet1);
  } else if (fields[2] == "2") {
    pos.set_edition(Edition::kKhet2);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("position edition must be \"1\" or \"2\", got ",
                     QuotedText(fields[2])));
  }
  if (fields[1] == "s") {
    pos.set_side_to_move(Color::kSilver);
  } else if (fields[1] == "r") {
    pos.set_side_to_move(Color::kRed);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("position side to move must be \"s\" or \"r\", got ",
                     QuotedText(fields[1])));
  }

  // Reads the ranks left to right. "/" separates ranks except right after a
  // Scarab's or Eye's letter in two-state facings, where it is the piece's
  // diagonal.
  const std::string_view board = fields[0];
  size_t j = 0;
  for (int rank = kRanks - 1; rank >= 0; --rank) {
    int file = 0;  // counts on past the board to report the width
    // Where a piece at `file` is: "position e3", or the rank past the edge.
    auto where = [&](int f) {
      return f < kFiles
                 ? absl::StrCat("position ", SquareName(MakeSquare(f, rank)))
                 : absl::StrCat("position rank ", rank + 1);
    };
    while (j < board.size() && board[j] != '/') {
      const char c = board[j];
      if (absl::ascii_isdigit(static_cast<unsigned char>(c))) {
        size_t k = j;
        while (k < board.size() &&
               absl::ascii_isdigit(static_cast<unsigned char>(board[k]))) {
          ++k;
        }
        int run = 0;
        if (!absl::SimpleAtoi(Av(board.substr(j, k - j)), &run) || run < 1 ||
            run > kFiles) {
          return absl::InvalidArgumentError(
              absl::StrCat("position rank ", rank + 1, ": ",
                           QuotedText(board.substr(j, k - j)),
                           " is not a run of 1..10 empty squares"));
        }
        file += run;
        j = k;
        continue;
      }
      const std::optional<PieceType> type = PieceTypeFromLetter(
          absl::ascii_toupper(static_cast<unsigned char>(c)));
      if (!type.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat(
            where(file), ": ", QuotedText(board.substr(j, 1)),
            " is not a piece letter (K, P, A, X, S, E, O) or a number"));
      }
      const Color color = absl::ascii_isupper(static_cast<unsigned char>(c))
                              ? Color::kSilver
                              : Color::kRed;
      ++j;
      int orientation = 0;
      // Reads the attribute: one of `choices`, each `length` characters.
      auto read_attribute = [&](const auto& choices, size_t length,
                                std::string_view what) -> absl::Status {
        const std::string_view attr = board.substr(j, length);
        for (size_t o = 0; o < choices.size(); ++o) {
          if (attr == choices[o]) {
            orientation = static_cast<int>(o);
            j += length;
            return absl::OkStatus();
          }
        }
        std::string list;
        for (size_t o = 0; o < choices.size(); ++o) {
          absl::StrAppend(&list,
                          o == 0                    ? ""
                          : o + 1 == choices.size() ? " or "
                                                    : ", ",
                          Av(choices[o]));
        }
        return absl::InvalidArgumentError(absl::StrCat(
            where(file), ": ", QuotedText(board.substr(j - 1, length + 1)),
            ": the letter ", std::string(1, c), " needs ", Av(what), " ",
            list));
      };
      absl::Status status;
      switch (*type) {
        case PieceType::kPharaoh:
          if (physical) {
            status = read_attribute(kDirectionAttr, 1, "a facing");
          }
          break;
        case PieceType::kPyramid:
          status = read_attribute(kPyramidAttr, 2, "a mirror facing");
          break;
        case PieceType::kAnubis:
        case PieceType::kSphinx:
          status = read_attribute(kDirectionAttr, 1, "a facing");
          break;
        case PieceType::kScarab:
        case PieceType::kEye: {
          constexpr std::array<std::string_view, 2> kDiagonals = {"/", "\\"};
          status = physical ? read_attribute(kScarabFacingAttr, 2, "a facing")
                            : read_attribute(kDiagonals, 1, "a diagonal");
          break;
        }
        case PieceType::kObelisk: {
          constexpr std::array<std::string_view, 2> kHeights = {"1", "2"};
          status = read_attribute(kHeights, 1, "a stack height");
          break;
        }
        case PieceType::kNone:
          break;
      }
      if (!status.ok()) return status;
      if (file < kFiles) {
        pos.Set(MakeSquare(file, rank), Piece(color, *type, orientation));
      }
      ++file;
    }
    if (file != kFiles) {
      return absl::InvalidArgumentError(absl::StrCat(
          "position rank ", rank + 1, " has ", file, " files, needs ", kFiles));
    }
    if (rank > 0) {
      if (j == board.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "position has ", kRanks - rank, " ranks, needs ", kRanks));
      }
      ++j;  // the "/"
    }
  }
  if (j != board.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "position has more than ", kRanks,
        " ranks: ", QuotedText(board.substr(j)), " follows rank 1"));
  }
  if (absl::Status status = pos.Validate(); !status.ok()) return status;
  return pos;
}

// ---- Pieces and beam traces ------------------------------------------------

std::string PieceToken(Piece piece, bool physical_facings) {
  if (piece.empty()) return "";
  char letter = PieceLetter(piece.type());
  if (piece.color() == Color::kRed) letter = absl::ascii_tolower(letter);
  return std::string(1, letter) + PieceAttribute(piece, physical_facings);
}

std::string DescribePiece(Piece piece, Edition edition) {
  if (piece.empty()) return "nothing";
  const std::string color(ColorName(piece.color()));
  const int o = piece.orientation();
  switch (piece.type()) {
    case PieceType::kPharaoh:
      return color + " Pharaoh";
    case PieceType::kPyramid:
      return absl::StrCat(color, " Pyramid ",
                          absl::AsciiStrToUpper(Av(kPyramidAttr[o])));
    case PieceType::kScarab:
      return absl::StrCat(color,
                          edition == Edition::kKhet1 ? " Djed " : " Scarab ",
                          (o & 1) == kSlash ? "/" : "\\");
    case PieceType::kAnubis:
      return absl::StrCat(color, " Anubis ",
                          absl::AsciiStrToUpper(Av(kDirectionAttr[o])));
    case PieceType::kSphinx:
      return absl::StrCat(color, " Sphinx ",
                          absl::AsciiStrToUpper(Av(kDirectionAttr[o])));
    case PieceType::kObelisk:
      return color + (piece.height() >= 2 ? " Obelisk stack" : " Obelisk");
    case PieceType::kEye:
      return absl::StrCat(color, " Eye of Horus ",
                          (o & 1) == kSlash ? "/" : "\\");
    case PieceType::kNone:
      break;
  }
  return color + " piece";
}

std::string FormatTrace(const BeamTrace& trace) {
  // A Khet 1.0 laser starts off the board; a Sphinx's on it. The edition
  // only changes the name of the Scarab/Djed.
  Edition edition = Edition::kKhet2;
  for (const BeamSegment& seg : trace.segments) {
    if (seg.beam == 0) {
      if (!IsOnBoard(seg.from.file, seg.from.rank)) edition = Edition::kKhet1;
      break;
    }
  }
  std::string out;
  for (const Beam& beam : trace.beams) {
    absl::StrAppend(&out, "beam ", beam.id);
    if (beam.parent >= 0)
      absl::StrAppend(&out, " (split from ", beam.parent, ")");
    bool first = true;
    for (const BeamSegment& seg : trace.segments) {
      if (seg.beam != beam.id) continue;
      if (first) absl::StrAppend(&out, " from ", PointName(seg.from), ":");
      absl::StrAppend(&out, first ? " " : ", ",
                      Av(kDirectionWord[static_cast<int>(seg.travel)]));
      if (IsOnBoard(seg.to.file, seg.to.rank)) {
        absl::StrAppend(&out, " to ",
                        SquareName(MakeSquare(seg.to.file, seg.to.rank)));
      } else {
        absl::StrAppend(&out, " off the board");
      }
      first = false;
    }
    out += first ? ": " : "; ";
    const std::string on = absl::StrCat(" on ", SquareOrNone(beam.end_square));
    const std::string piece = DescribePiece(beam.end_piece, edition);
    switch (beam.end) {
      case BeamEnd::kLeftBoard:
        out += "left the board";
        break;
      case BeamEnd::kHit:
        absl::StrAppend(&out, "hit ", piece, on);
        break;
      case BeamEnd::kAbsorbed:
        absl::StrAppend(&out, "absorbed by ", piece, on);
        break;
      case BeamEnd::kBlocked:
        absl::StrAppend(&out, "blocked by ", piece, " front", on);
        break;
      case BeamEnd::kSplit:
        absl::StrAppend(&out, "split", on);
        break;
      case BeamEnd::kLooped:
        absl::StrAppend(&out, "looped", on);
        break;
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace khet
