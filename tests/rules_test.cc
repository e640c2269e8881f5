// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The rules, rule by rule: every numbered rule of every seed document in
// /work/shared/seeds and every row and edge case of docs/khet-rules.md (the
// exact specification) has at least one test here, named and commented after
// the rule it checks. Positions are built by hand; the checks go through the
// public engine API only (movegen.h, laser.h, play.h, game.h, setups.h).
//
// Seeds: 000 Second Life manual (unnumbered paragraphs), 001 Khet 2.0 rules
// 1-13, 002 Khet rules 1-13 plus Eye of Horus rule 1, 003 Estonian tournament
// rules 1-12 plus two tournament rules (222-move limit, automatic draw on the
// third repetition), 004 Khet 1.0 booklet rules 1-11.
//
// Coverage index (seed rule -> tests):
//   001/002 rule 1, 003 rule 1, 004 rule 1 (setups):
//       Setups.ClassicImhotepDynastyMatchTheRules, Setups.Khet1Versions...,
//       Setups.OsirisAndIsisMatchTheRules, Setups.EyeVersions...,
//       Setups.CustomPositionsAreValidatedNamingTheSquare
//   001/002 rule 2, 003 rule 2, 004 rule 2 (Silver first, own pieces, all
//       pieces move): Turns.SilverMovesFirstAndPlayersAlternate,
//       Turns.EveryPieceIncludingThePharaohCanMove
//   001/002 rule 3, 003 rule 3 (Sphinx): Sphinx.* tests
//   001/002 rule 4, 003 rule 4, 004 rule 3 (step or quarter turn, not both):
//       Moves.StepOneSquareInAnyOfEightDirections,
//       Rotation.PyramidAndAnubisTurnAQuarterEitherWayNeverMore,
//       Moves.CannotMoveAndRotateInOneTurn
//   001/002 rule 5, 003 rule 5 (+NB), 004 rule 4 (restricted squares):
//       RestrictedSquares.*
//   001/002 rule 6, 003 rule 6, 004 rule 5 (occupied squares):
//       Moves.OnlyScarabDjedOrEyeEntersAnOccupiedSquare
//   001/002 rule 7, 003 rule 7, 004 rule 6, 002 Eye rule 1 (swaps): Swap.*
//   004 rule 7 (Obelisk stacks): Obelisk.*
//   001/002 rule 8, 003 rule 8, 004 rule 8 (laser after the move, 90 degree
//       turns along ranks and files): Laser.FiresOnlyTheMoversLaserOncePerMove,
//       Laser.BeamsRunAlongRanksAndFilesTurningNinetyDegrees,
//       ReflectionTable.*
//   001/002 rule 9, 003 rule 9, 004 rule 9 (non-mirrored face, removal):
//       Laser.HitPieceIsRemovedEvenTheMoversOwn, ReflectionTable.Pyramid*
//   001/002 rule 10, 003 rule 10 (Anubis): ReflectionTable.Anubis...,
//       Laser.AnubisFrontBlocksSideOrBackRemoves
//   001/002 rule 11, 003 rule 11, 004 rule 9 (fired once per turn):
//       Laser.FiresOnlyTheMoversLaserOncePerMove
//   001/002 rule 12, 003 rule 12, 004 rule 10 (Pharaoh hit ends the game):
//       GameEnd.OpponentsPharaohHitWins, GameEnd.OwnPharaohHitLoses
//   001/002 rule 13, 004 rule 11 (third repetition): GameEnd.ThirdRepetition*,
//       GameEnd.RepetitionNeedsTheSameSideToMove,
//       GameEnd.ScarabTurnedTwiceRepeatsThePosition
//   003 tournament rules: GameEnd.PlyLimitDrawsAfter222Plies,
//       GameEnd.PharaohHitOnTheLastPlyIsNotADraw,
//       GameEnd.AutomaticDrawOnTheThirdRepetition; its four facings of the
//       Pharaoh and the Scarab (rule 4 and the "3D" rule, the option
//       RuleOptions::physical_facings): PhysicalFacings.*
//   000 (Second Life manual): the same rules plus the Khet 1.0 / 2.0 extras,
//       the Eye of Horus, "you still lose because you killed yourself"
//       (Eye.BothPharaohsHit*). Its settings (timeout, quiet, scale, colours)
//       and sections 8-9 of khet-rules.md are board/service settings with no
//       engine rule to test.
// Every test also names the khet-rules.md section it checks.

#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/bitboard.h"
#include "engine/game.h"
#include "engine/laser.h"
#include "engine/move.h"
#include "engine/movegen.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "engine/types.h"
#include "gtest/gtest.h"

namespace khet {

// ---------------------------------------------------------------------------
// Printing for failure messages.

namespace {

std::string SquareText(Square s) {
  if (s < 0 || s >= kSquares) return "#" + std::to_string(s);
  return {static_cast<char>('a' + FileOf(s)),
          static_cast<char>('1' + RankOf(s))};
}

std::string PieceText(Piece p) {
  if (p.empty()) return ".";
  static const char kLetters[] = "?KPSAXOE";
  char letter = kLetters[static_cast<int>(p.type())];
  if (p.color() == Color::kRed)
    letter = static_cast<char>(std::tolower(letter));
  std::string text(1, letter);
  const int o = p.orientation();
  switch (p.type()) {
    case PieceType::kPyramid: {
      static const char* const kFacing[] = {"NE", "SE", "SW", "NW"};
      return text + kFacing[o];
    }
    case PieceType::kAnubis:
    case PieceType::kSphinx:
      return text + "NESW"[o];
    case PieceType::kScarab:
    case PieceType::kEye:
      return text + (o == kSlash ? "/" : "\\");
    case PieceType::kObelisk:
      return text + std::to_string(p.height());
    default:
      return text;
  }
}

std::string MoveText(Move m) {
  switch (m.kind()) {
    case MoveKind::kMove:
      return SquareText(m.from()) + "-" + SquareText(m.to());
    case MoveKind::kMoveTop:
      return SquareText(m.from()) + "^" + SquareText(m.to());
    case MoveKind::kRotateClockwise:
      return SquareText(m.from()) + "R" +
             (m.to() == m.from() ? "" : SquareText(m.to()));
    case MoveKind::kRotateAnticlockwise:
      return SquareText(m.from()) + "L" +
             (m.to() == m.from() ? "" : SquareText(m.to()));
  }
  return "?";
}

}  // namespace

void PrintTo(const Piece& p, std::ostream* os) { *os << PieceText(p); }
void PrintTo(const Move& m, std::ostream* os) { *os << MoveText(m); }
void PrintTo(const Position& pos, std::ostream* os) {
  *os << "\n";
  for (int r = kRanks - 1; r >= 0; --r) {
    for (int f = 0; f < kFiles; ++f) {
      const std::string t = PieceText(pos.at(MakeSquare(f, r)));
      *os << t << std::string(4 - t.size(), ' ');
    }
    *os << "\n";
  }
  *os << (pos.side_to_move() == Color::kSilver ? "Silver" : "Red")
      << " to move, Khet " << static_cast<int>(pos.edition()) << ".0\n";
}
void PrintTo(const GameResult& r, std::ostream* os) {
  *os << OutcomeName(r.outcome) << " (" << ResultReasonName(r.reason) << ")";
}

namespace {

constexpr Color kSilver = Color::kSilver;
constexpr Color kRed = Color::kRed;
constexpr Direction kN = Direction::kNorth;
constexpr Direction kE = Direction::kEast;
constexpr Direction kS = Direction::kSouth;
constexpr Direction kW = Direction::kWest;
constexpr Direction kDirections[] = {kN, kE, kS, kW};

// ---------------------------------------------------------------------------
// Squares, pieces, positions and moves by hand.

// "e4" -> 34.
Square Sq(std::string_view name) {
  return MakeSquare(name[0] - 'a', name[1] - '1');
}

// 180-degree turn of the board: (file f, rank r) -> (file j-f, rank 9-r).
Square MirrorSq(Square s) { return kSquares - 1 - s; }

BeamPoint PointOf(Square s) {
  return {static_cast<int8_t>(FileOf(s)), static_cast<int8_t>(RankOf(s))};
}
BeamPoint Pt(std::string_view name) { return PointOf(Sq(name)); }

std::string DirText(Direction d) {
  return std::string(1, "NESW"[static_cast<int>(d)]);
}

// "a4 c7": the squares of b in index order.
std::string Squares(Bitboard b) {
  std::string text;
  for (Square s = 0; s < kSquares; ++s) {
    if (Contains(b, s)) text += (text.empty() ? "" : " ") + SquareText(s);
  }
  return text;
}

Piece Pharaoh(Color c) { return Piece(c, PieceType::kPharaoh); }
Piece Pyramid(Color c, PyramidFacing f) {
  return Piece(c, PieceType::kPyramid, f);
}
Piece Scarab(Color c, Diagonal d) { return Piece(c, PieceType::kScarab, d); }
Piece Eye(Color c, Diagonal d) { return Piece(c, PieceType::kEye, d); }
Piece Anubis(Color c, Direction d) {
  return Piece(c, PieceType::kAnubis, static_cast<int>(d));
}
Piece Sphinx(Color c, Direction d) {
  return Piece(c, PieceType::kSphinx, static_cast<int>(d));
}
Piece Obelisk(Color c, int height) {
  return Piece(c, PieceType::kObelisk, height - 1);
}

std::vector<std::string> Split(std::string_view text, char sep) {
  std::vector<std::string> parts(1);
  for (char ch : text) {
    if (ch == sep) {
      parts.emplace_back();
    } else {
      parts.back() += ch;
    }
  }
  return parts;
}

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  for (const std::string& w : Split(text, ' ')) {
    if (!w.empty()) words.push_back(w);
  }
  return words;
}

// One piece from its letter (Silver upper case, Red lower case) and its
// orientation text: K Pharaoh; P Pyramid NE|SE|SW|NW (the way its mirror
// faces); S Scarab/Djed and E Eye of Horus, / or \; A Anubis and X Sphinx
// N|E|S|W (the way it faces); O Obelisk 1|2 (the height of the stack).
Piece PieceFrom(char letter, const std::string& o) {
  const Color c =
      std::isupper(static_cast<unsigned char>(letter)) ? kSilver : kRed;
  auto dir = [&]() -> Direction {
    const size_t i = std::string("NESW").find(o);
    EXPECT_TRUE(o.size() == 1 && i != std::string::npos) << "direction " << o;
    return static_cast<Direction>(i == std::string::npos ? 0 : i);
  };
  auto diagonal = [&]() -> Diagonal {
    EXPECT_TRUE(o == "/" || o == "\\") << "diagonal " << o;
    return o == "/" ? kSlash : kBackslash;
  };
  switch (std::toupper(static_cast<unsigned char>(letter))) {
    case 'K':
      return Pharaoh(c);
    case 'P': {
      static const char* const kFacing[] = {"NE", "SE", "SW", "NW"};
      for (int i = 0; i < 4; ++i) {
        if (o == kFacing[i]) return Pyramid(c, static_cast<PyramidFacing>(i));
      }
      ADD_FAILURE() << "pyramid facing " << o;
      return Piece();
    }
    case 'S':
      return Scarab(c, diagonal());
    case 'E':
      return Eye(c, diagonal());
    case 'A':
      return Anubis(c, dir());
    case 'X':
      return Sphinx(c, dir());
    case 'O':
      EXPECT_TRUE(o == "1" || o == "2") << "obelisk height " << o;
      return Obelisk(c, o == "2" ? 2 : 1);
  }
  ADD_FAILURE() << "piece letter " << letter;
  return Piece();
}

// Places the pieces of "<letter> <square> [<orientation>]; ..." on a board of
// the given edition.
Position Board(Edition edition, std::string_view pieces,
               Color to_move = kSilver) {
  Position pos;
  pos.set_edition(edition);
  pos.set_side_to_move(to_move);
  for (const std::string& item : Split(pieces, ';')) {
    const std::vector<std::string> w = Words(item);
    if (w.empty()) continue;
    EXPECT_TRUE(w.size() == 2 || w.size() == 3) << "item '" << item << "'";
    pos.Set(Sq(w[1]), PieceFrom(w[0][0], w.size() > 2 ? w[2] : ""));
  }
  return pos;
}
Position Board2(std::string_view pieces, Color to_move = kSilver) {
  return Board(Edition::kKhet2, pieces, to_move);
}
Position Board1(std::string_view pieces, Color to_move = kSilver) {
  return Board(Edition::kKhet1, pieces, to_move);
}

// The board turned 180 degrees with the colours swapped: what the same
// situation looks like from the other side.
Piece Turned(Piece p) {
  if (p.empty()) return p;
  int o = p.orientation();
  if (p.type() == PieceType::kPyramid || p.type() == PieceType::kAnubis ||
      p.type() == PieceType::kSphinx) {
    o = (o + 2) & 3;
  }
  return Piece(Opponent(p.color()), p.type(), o);
}
Position Mirrored(const Position& pos) {
  Position m;
  m.set_edition(pos.edition());
  for (Square s = 0; s < kSquares; ++s) m.Set(MirrorSq(s), Turned(pos.at(s)));
  m.set_side_to_move(Opponent(pos.side_to_move()));
  return m;
}

bool SameBoard(const Position& a, const Position& b) {
  for (Square s = 0; s < kSquares; ++s) {
    if (!(a.at(s) == b.at(s))) return false;
  }
  return a.edition() == b.edition();
}

Move Step(std::string_view from, std::string_view to) {
  return Move(Sq(from), Sq(to), MoveKind::kMove);
}
Move Top(std::string_view from, std::string_view to) {
  return Move(Sq(from), Sq(to), MoveKind::kMoveTop);
}
Move Cw(std::string_view s) { return Move::Rotate(Sq(s), true); }
Move Acw(std::string_view s) { return Move::Rotate(Sq(s), false); }

// The form in which GenerateMoves lists a move: a Scarab's or Eye's
// anticlockwise turn is the same move as its clockwise one.
Move Listed(const Position& pos, Move m) {
  const PieceType t = pos.at(m.from()).type();
  if ((t == PieceType::kScarab || t == PieceType::kEye) &&
      !pos.physical_facings() && m.kind() == MoveKind::kRotateAnticlockwise &&
      m.to() == m.from()) {
    return Move::Rotate(m.from(), true);
  }
  return m;
}

bool ListContains(const MoveList& list, Move m) {
  for (Move x : list) {
    if (x == m) return true;
  }
  return false;
}

std::set<uint16_t> MoveSet(const MoveList& list) {
  std::set<uint16_t> set;
  for (Move m : list) set.insert(m.bits());
  return set;
}
std::set<uint16_t> MoveSet(std::initializer_list<Move> moves) {
  std::set<uint16_t> set;
  for (Move m : moves) set.insert(m.bits());
  return set;
}
std::string MovesText(const std::set<uint16_t>& set) {
  std::string text;
  for (uint16_t bits : set) {
    // Rebuild the move from its bits: from | to << 7 | kind << 14.
    const Move m(bits & 127, (bits >> 7) & 127,
                 static_cast<MoveKind>(bits >> 14));
    text += (text.empty() ? "" : " ") + MoveText(m);
  }
  return text;
}
std::string MovesFrom(const Position& pos, std::string_view from) {
  MoveList list;
  GenerateMovesFrom(pos, Sq(from), &list);
  return MovesText(MoveSet(list));
}
std::string Moves(std::initializer_list<Move> moves) {
  return MovesText(MoveSet(moves));
}

// A legal move: CheckMove accepts it (returning its listed form) and both
// GenerateMoves and GenerateMovesFrom list it.
::testing::AssertionResult Legal(const Position& pos, Move m) {
  const absl::StatusOr<Move> checked = CheckMove(pos, m);
  if (!checked.ok()) {
    return ::testing::AssertionFailure()
           << MoveText(m) << " refused: " << checked.status().message();
  }
  const Move listed = Listed(pos, m);
  if (!(*checked == listed)) {
    return ::testing::AssertionFailure()
           << MoveText(m) << " checked as " << MoveText(*checked)
           << ", expected " << MoveText(listed);
  }
  MoveList all, from;
  GenerateMoves(pos, &all);
  GenerateMovesFrom(pos, m.from(), &from);
  if (!ListContains(all, listed) || !ListContains(from, listed)) {
    return ::testing::AssertionFailure()
           << MoveText(listed) << " accepted but not generated";
  }
  return ::testing::AssertionSuccess();
}

// An illegal move: CheckMove refuses it with INVALID_ARGUMENT and a reason
// containing every one of `words` (squares and the gist of the reason),
// ApplyMove refuses it and changes nothing, and no move list has it.
::testing::AssertionResult Refused(const Position& pos, Move m,
                                   std::initializer_list<std::string> words) {
  const absl::StatusOr<Move> checked = CheckMove(pos, m);
  if (checked.ok()) {
    return ::testing::AssertionFailure() << MoveText(m) << " was accepted";
  }
  if (checked.status().code() != absl::StatusCode::kInvalidArgument) {
    return ::testing::AssertionFailure()
           << MoveText(m) << ": wrong code " << checked.status();
  }
  const std::string reason(checked.status().message());
  for (const std::string& w : words) {
    if (reason.find(w) == std::string::npos) {
      return ::testing::AssertionFailure()
             << MoveText(m) << ": reason \"" << reason << "\" lacks \"" << w
             << "\"";
    }
  }
  Position copy = pos;
  const absl::StatusOr<MoveEffects> applied = ApplyMove(&copy, m);
  if (applied.ok() || !(copy == pos) || copy.hash() != pos.hash()) {
    return ::testing::AssertionFailure()
           << MoveText(m) << ": ApplyMove accepted it or changed the position";
  }
  MoveList all;
  GenerateMoves(pos, &all);
  if (ListContains(all, m)) {
    return ::testing::AssertionFailure()
           << MoveText(m) << " refused but generated";
  }
  return ::testing::AssertionSuccess();
}

// Plays a move with ApplyMove on a copy; the move must be legal.
Position After(const Position& pos, Move m, MoveEffects* effects = nullptr) {
  Position next = pos;
  absl::StatusOr<MoveEffects> e = ApplyMove(&next, m);
  EXPECT_TRUE(e.ok()) << MoveText(m) << ": " << e.status();
  if (e.ok() && effects != nullptr) *effects = *std::move(e);
  return next;
}

std::string RemovalsText(const MoveEffects& e) {
  std::string text;
  for (const Removal& r : e.removals) {
    text += (text.empty() ? "" : " ") + SquareText(r.square) + ":" +
            PieceText(r.before) + ">" + PieceText(r.after);
  }
  return text;
}

// ---------------------------------------------------------------------------
// The reflection table, cell by cell.

// Fires a beam that enters `piece`, standing alone in mid-board, travelling
// `travel`, and says what the piece did to it: "hit", "blocked", "turns E",
// "splits: turns E + straight N". Travel N: Silver's beam up the j-file into
// j4; W: Silver's beam turned west at j3 into e3; S: Red's beam down the
// a-file into a5; E: Red's beam turned east at a6 into e6.
std::string Strike(Piece piece, Direction travel,
                   Edition edition = Edition::kKhet2) {
  Position pos;
  pos.set_edition(edition);
  if (edition == Edition::kKhet2) {
    pos.Set(Sq("j1"), Sphinx(kSilver, kN));
    pos.Set(Sq("a8"), Sphinx(kRed, kS));
  }
  Color shooter = kSilver;
  Square target = Sq("j4");
  switch (travel) {
    case Direction::kNorth:
      break;
    case Direction::kWest:
      pos.Set(Sq("j3"), Pyramid(kSilver, kSW));
      target = Sq("e3");
      break;
    case Direction::kSouth:
      shooter = kRed;
      target = Sq("a5");
      break;
    case Direction::kEast:
      shooter = kRed;
      pos.Set(Sq("a6"), Pyramid(kRed, kNE));
      target = Sq("e6");
      break;
  }
  pos.Set(target, piece);
  const BeamTrace trace = TraceLaser(pos, shooter);
  EXPECT_EQ(Squares(trace.hit), Squares(LaserHits(pos, shooter)));
  int arrived = -1, leaving = -1;
  for (int i = 0; i < static_cast<int>(trace.segments.size()); ++i) {
    const BeamSegment& seg = trace.segments[i];
    if (seg.beam != 0) continue;
    if (seg.to == PointOf(target) && seg.travel == travel) arrived = i;
    if (seg.from == PointOf(target)) leaving = i;
  }
  if (arrived < 0) return "never arrived";
  const Beam& first = trace.beams[0];
  if (first.end != BeamEnd::kLeftBoard && first.end_square == target) {
    switch (first.end) {
      case BeamEnd::kHit:
        return trace.hit == SquareBit(target) ? "hit" : "hit, not listed";
      case BeamEnd::kBlocked:
        return trace.hit == 0 ? "blocked" : "blocked, but hit";
      case BeamEnd::kAbsorbed:
        return "absorbed";
      case BeamEnd::kSplit: {
        if (trace.beams.size() != 3 || trace.hit != 0) return "split badly";
        std::string out = "splits:";
        const char* const kLabel[] = {"", " turns ", " + straight "};
        for (int b = 1; b <= 2; ++b) {
          if (trace.beams[b].parent != 0) return "child with wrong parent";
          for (const BeamSegment& seg : trace.segments) {
            if (seg.beam == b) {
              if (!(seg.from == PointOf(target))) return "child elsewhere";
              out += kLabel[b] + DirText(seg.travel);
              break;
            }
          }
        }
        return out;
      }
      default:
        return "ended there oddly";
    }
  }
  if (leaving < 0) return "vanished";
  if (trace.beams.size() != 1 || first.end != BeamEnd::kLeftBoard ||
      first.end_square != -1 || trace.hit != 0 || leaving != arrived + 1) {
    return "reflected oddly";
  }
  return "turns " + DirText(trace.segments[leaving].travel);
}

// Section 4 table, Pyramid NE row: travel N hit, E hit, S turns E, W turns N.
// Also seed 001/002/003 rule 9, 004 rule 9: a beam on a non-mirrored face of
// a Pyramid removes it; a mirror turns the beam 90 degrees (rule 8).
TEST(ReflectionTable, PyramidNE) {
  for (Edition e : {Edition::kKhet2, Edition::kKhet1}) {
    EXPECT_EQ(Strike(Pyramid(kSilver, kNE), kN, e), "hit");
    EXPECT_EQ(Strike(Pyramid(kSilver, kNE), kE, e), "hit");
    EXPECT_EQ(Strike(Pyramid(kSilver, kNE), kS, e), "turns E");
    EXPECT_EQ(Strike(Pyramid(kSilver, kNE), kW, e), "turns N");
  }
}

// Section 4 table, Pyramid SE row: N turns E, E hit, S hit, W turns S.
TEST(ReflectionTable, PyramidSE) {
  for (Edition e : {Edition::kKhet2, Edition::kKhet1}) {
    EXPECT_EQ(Strike(Pyramid(kRed, kSE), kN, e), "turns E");
    EXPECT_EQ(Strike(Pyramid(kRed, kSE), kE, e), "hit");
    EXPECT_EQ(Strike(Pyramid(kRed, kSE), kS, e), "hit");
    EXPECT_EQ(Strike(Pyramid(kRed, kSE), kW, e), "turns S");
  }
}

// Section 4 table, Pyramid SW row: N turns W, E turns S, S hit, W hit.
TEST(ReflectionTable, PyramidSW) {
  for (Edition e : {Edition::kKhet2, Edition::kKhet1}) {
    EXPECT_EQ(Strike(Pyramid(kSilver, kSW), kN, e), "turns W");
    EXPECT_EQ(Strike(Pyramid(kSilver, kSW), kE, e), "turns S");
    EXPECT_EQ(Strike(Pyramid(kSilver, kSW), kS, e), "hit");
    EXPECT_EQ(Strike(Pyramid(kSilver, kSW), kW, e), "hit");
  }
}

// Section 4 table, Pyramid NW row: N hit, E turns N, S turns W, W hit.
TEST(ReflectionTable, PyramidNW) {
  for (Edition e : {Edition::kKhet2, Edition::kKhet1}) {
    EXPECT_EQ(Strike(Pyramid(kRed, kNW), kN, e), "hit");
    EXPECT_EQ(Strike(Pyramid(kRed, kNW), kE, e), "turns N");
    EXPECT_EQ(Strike(Pyramid(kRed, kNW), kS, e), "turns W");
    EXPECT_EQ(Strike(Pyramid(kRed, kNW), kW, e), "hit");
  }
}

// Section 4 table, Scarab/Djed `\` row: N turns W, E turns S, S turns E, W
// turns N; section 2: never destroyed (both editions: the Djed of 004).
TEST(ReflectionTable, ScarabAndDjedBackslash) {
  for (Edition e : {Edition::kKhet2, Edition::kKhet1}) {
    for (Color c : {kSilver, kRed}) {
      EXPECT_EQ(Strike(Scarab(c, kBackslash), kN, e), "turns W");
      EXPECT_EQ(Strike(Scarab(c, kBackslash), kE, e), "turns S");
      EXPECT_EQ(Strike(Scarab(c, kBackslash), kS, e), "turns E");
      EXPECT_EQ(Strike(Scarab(c, kBackslash), kW, e), "turns N");
    }
  }
}

// Section 4 table, Scarab/Djed `/` row: N turns E, E turns N, S turns W, W
// turns S; never destroyed.
TEST(ReflectionTable, ScarabAndDjedSlash) {
  for (Edition e : {Edition::kKhet2, Edition::kKhet1}) {
    for (Color c : {kSilver, kRed}) {
      EXPECT_EQ(Strike(Scarab(c, kSlash), kN, e), "turns E");
      EXPECT_EQ(Strike(Scarab(c, kSlash), kE, e), "turns N");
      EXPECT_EQ(Strike(Scarab(c, kSlash), kS, e), "turns W");
      EXPECT_EQ(Strike(Scarab(c, kSlash), kW, e), "turns S");
    }
  }
}

// Section 4 table, Anubis row, and seed 001/002 rule 10, 003 rule 10, 000
// ("impervious to the laser from the front"): the beam stops with no effect
// when its travel is opposite to the Anubis's facing (it strikes the front);
// from either side or the back the Anubis is hit.
TEST(ReflectionTable, AnubisFrontBlocksSidesAndBackAreHit) {
  for (Direction facing : kDirections) {
    for (Direction travel : kDirections) {
      SCOPED_TRACE("Anubis facing " + DirText(facing) + ", travel " +
                   DirText(travel));
      EXPECT_EQ(Strike(Anubis(kRed, facing), travel),
                travel == Reverse(facing) ? "blocked" : "hit");
    }
  }
}

// Section 4 table, Pharaoh row; section 2: "hit on any face, its owner
// loses" (both editions).
TEST(ReflectionTable, PharaohIsHitOnEveryFace) {
  for (Edition e : {Edition::kKhet2, Edition::kKhet1}) {
    for (Direction travel : kDirections) {
      EXPECT_EQ(Strike(Pharaoh(kSilver), travel, e), "hit");
      EXPECT_EQ(Strike(Pharaoh(kRed), travel, e), "hit");
    }
  }
}

// Section 4 table, Obelisk row; section 2 (Khet 1.0): no mirror, hit on any
// face, single or stacked.
TEST(ReflectionTable, ObeliskIsHitOnEveryFace) {
  for (Direction travel : kDirections) {
    EXPECT_EQ(Strike(Obelisk(kSilver, 1), travel, Edition::kKhet1), "hit");
    EXPECT_EQ(Strike(Obelisk(kRed, 2), travel, Edition::kKhet1), "hit");
  }
}

// Section 4 table, Sphinx row: absorbed from every travel direction (N and W
// into Red's on a8, S and E into Silver's on j1), whoever fired, and never
// removed (section 2; seed 001/002 rule 3, 003 rule 3: "cannot be eliminated
// from play").
TEST(ReflectionTable, SphinxAbsorbsFromEveryDirection) {
  struct Case {
    const char* pieces;
    Color shooter;
    const char* sphinx;
    Direction travel;
  };
  const Case cases[] = {
      // Silver west along rank 1, north at a1, up the a-file into a8.
      {"X j1 W; x a8 S; p a1 NE", kSilver, "a8", kN},
      // Silver up the j-file, west at j8 along rank 8 into a8.
      {"X j1 N; x a8 S; P j8 SW", kSilver, "a8", kW},
      // Red east along rank 8, south at j8 down the j-file into j1.
      {"X j1 N; x a8 E; P j8 SW", kRed, "j1", kS},
      // Red down the a-file, east at a1 along rank 1 into j1.
      {"X j1 N; x a8 S; p a1 NE", kRed, "j1", kE},
      // Silver's own beam coming back round into its own Sphinx.
      {"X j1 N; x a8 S; P j5 SW; P e5 SE; P e1 NE", kSilver, "j1", kE},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pieces);
    const Position pos = Board2(c.pieces);
    const BeamTrace trace = TraceLaser(pos, c.shooter);
    ASSERT_EQ(trace.beams.size(), 1u);
    EXPECT_EQ(trace.beams[0].end, BeamEnd::kAbsorbed);
    EXPECT_EQ(trace.beams[0].end_square, Sq(c.sphinx));
    ASSERT_FALSE(trace.segments.empty());
    EXPECT_EQ(trace.segments.back().travel, c.travel);
    EXPECT_EQ(trace.segments.back().to, Pt(c.sphinx));
    EXPECT_EQ(Squares(trace.hit), "");
    EXPECT_EQ(Squares(LaserHits(pos, c.shooter)), "");
  }
  // Red turns its Sphinx east and fires into Silver's Sphinx: nothing is
  // removed, the Sphinx stays.
  const Position pos = Board2("X j1 N; x a8 S; K e1; k f6; P j8 SW", kRed);
  MoveEffects effects;
  const Position next = After(pos, Acw("a8"), &effects);
  EXPECT_EQ(Squares(effects.hit), "");
  EXPECT_EQ(next.at(Sq("j1")), Sphinx(kSilver, kN));
}

// Section 4 table, Eye of Horus (section 5): a beam from any direction splits
// into the beam a Scarab of the same diagonal would reflect and one passing
// straight through; the Eye is never hit, in either edition.
TEST(ReflectionTable, EyeSplitsFromEveryDirectionAndIsNeverHit) {
  for (Edition e : {Edition::kKhet2, Edition::kKhet1}) {
    for (Color c : {kSilver, kRed}) {
      EXPECT_EQ(Strike(Eye(c, kBackslash), kN, e),
                "splits: turns W + straight N");
      EXPECT_EQ(Strike(Eye(c, kBackslash), kE, e),
                "splits: turns S + straight E");
      EXPECT_EQ(Strike(Eye(c, kBackslash), kS, e),
                "splits: turns E + straight S");
      EXPECT_EQ(Strike(Eye(c, kBackslash), kW, e),
                "splits: turns N + straight W");
      EXPECT_EQ(Strike(Eye(c, kSlash), kN, e), "splits: turns E + straight N");
      EXPECT_EQ(Strike(Eye(c, kSlash), kE, e), "splits: turns N + straight E");
      EXPECT_EQ(Strike(Eye(c, kSlash), kS, e), "splits: turns W + straight S");
      EXPECT_EQ(Strike(Eye(c, kSlash), kW, e), "splits: turns S + straight W");
    }
  }
}

// ---------------------------------------------------------------------------
// Section 1: board and coordinates.

// Section 1: 10 files a..j, 8 ranks, square index = (rank-1)*10 + file, a1 =
// 0, j8 = 79; north is towards rank 8 (Red's side).
TEST(Board, SquareIndexAndNorth) {
  EXPECT_EQ(Sq("a1"), 0);
  EXPECT_EQ(Sq("b1"), 1);
  EXPECT_EQ(Sq("a2"), 10);
  EXPECT_EQ(Sq("e4"), 34);
  EXPECT_EQ(Sq("j8"), 79);
  EXPECT_EQ(kSquares, 80);
  // Silver's Sphinx facing north fires from j1 towards rank 8 and beyond j8.
  const Position pos = Board2("X j1 N; x a8 S");
  const BeamTrace trace = TraceLaser(pos, kSilver);
  ASSERT_EQ(trace.segments.size(), 1u);
  EXPECT_EQ(trace.segments[0].from, Pt("j1"));
  EXPECT_EQ(trace.segments[0].to, (BeamPoint{9, 8}));
}

// Section 1 "Silver moves first, always"; seed 001/002 rule 2, 003 rule 2,
// 004 rule 2, 000: Silver moves first, players alternate, each moving only
// their own pieces.
TEST(Turns, SilverMovesFirstAndPlayersAlternate) {
  for (const SetupInfo& info : AllSetups()) {
    SCOPED_TRACE(std::string(info.id));
    const absl::StatusOr<Position> start = SetupPosition(info.id);
    ASSERT_TRUE(start.ok()) << start.status();
    EXPECT_EQ(start->side_to_move(), kSilver);
    const Game game(*start);
    EXPECT_EQ(game.position().side_to_move(), kSilver);
    MoveList list;
    GenerateMoves(*start, &list);
    ASSERT_GT(list.size, 0);
    for (Move m : list) EXPECT_EQ(start->at(m.from()).color(), kSilver);
  }
  const Position start = *SetupPosition("classic-2");
  // Red's Pyramid on g3 is not Silver's to move.
  EXPECT_TRUE(Refused(start, Cw("g3"), {"g3", "Red", "Silver is to move"}));
  EXPECT_TRUE(Refused(start, Step("g3", "g2"), {"g3", "Red"}));
  EXPECT_TRUE(Refused(start, Cw("d5"), {"d5", "no piece"}));
  const Position next = After(start, Cw("c4"));
  EXPECT_EQ(next.side_to_move(), kRed);
  EXPECT_TRUE(Refused(next, Acw("c4"), {"c4", "Silver", "Red is to move"}));
  EXPECT_TRUE(Legal(next, Cw("g3")));
  MoveList list;
  GenerateMoves(next, &list);
  for (Move m : list) EXPECT_EQ(next.at(m.from()).color(), kRed);
  EXPECT_EQ(After(next, Cw("g3")).side_to_move(), kSilver);
}

// Seed 001/002 rule 2, 003 rule 2, 004 rule 2: "All the pieces, including
// Pharaohs, can be moved." At the start of Classic, Imhotep and Dynasty
// (both editions) every piece of Silver has a move, the Pharaoh a step.
TEST(Turns, EveryPieceIncludingThePharaohCanMove) {
  for (const char* id : {"classic-2", "imhotep-2", "dynasty-2", "classic-1",
                         "imhotep-1", "dynasty-1"}) {
    SCOPED_TRACE(id);
    const Position pos = *SetupPosition(id);
    for (Bitboard own = pos.occupied(kSilver); own != 0;) {
      const Square s = PopLowest(own);
      MoveList list;
      GenerateMovesFrom(pos, s, &list);
      EXPECT_GT(list.size, 0) << SquareText(s);
    }
    const Square k = pos.PharaohSquare(kSilver);
    MoveList list;
    GenerateMovesFrom(pos, k, &list);
    ASSERT_GT(list.size, 0);
    for (Move m : list) EXPECT_EQ(m.kind(), MoveKind::kMove);
    EXPECT_EQ(After(pos, list.moves[0]).at(list.moves[0].to()),
              Pharaoh(kSilver));
  }
}

// ---------------------------------------------------------------------------
// Section 1: restricted squares.

bool SilverOnly(Square s) {
  return FileOf(s) == 9 || s == Sq("b1") || s == Sq("b8");
}
bool RedOnly(Square s) {
  return FileOf(s) == 0 || s == Sq("i1") || s == Sq("i8");
}
bool ReservedAgainst(Color c, Square s) {
  return c == kSilver ? RedOnly(s) : SilverOnly(s);
}

// Section 1 (Silver only: the j-file, b1, b8; Red only: the a-file, i1, i8);
// seed 001/002 rule 5, 003 rule 5 ("including a Scarab"), 004 rule 4, 000:
// no piece ends a step on a square reserved for the other colour. Every
// square, both colours, every kind of piece (Khet 1.0, where j1 and a8 are
// empty but still restricted, and Khet 2.0 for the Anubis).
TEST(RestrictedSquares, StepsNeverEndOnTheOtherColoursSquares) {
  int refused = 0;
  for (Color c : {kSilver, kRed}) {
    for (Square to = 0; to < kSquares; ++to) {
      // A neighbour the piece may stand on.
      Square from = -1;
      for (Bitboard n = Neighbours(to); n != 0;) {
        const Square s = PopLowest(n);
        if (!ReservedAgainst(c, s)) {
          from = s;
          break;
        }
      }
      ASSERT_GE(from, 0);
      std::vector<std::pair<Edition, Piece>> pieces = {
          {Edition::kKhet1, Pharaoh(c)},
          {Edition::kKhet1, Pyramid(c, kNE)},
          {Edition::kKhet1, Scarab(c, kSlash)},
          {Edition::kKhet1, Eye(c, kBackslash)},
          {Edition::kKhet1, Obelisk(c, 1)},
          {Edition::kKhet1, Obelisk(c, 2)}};
      if (to != Sq("j1") && to != Sq("a8") && from != Sq("j1") &&
          from != Sq("a8")) {
        pieces.push_back({Edition::kKhet2, Anubis(c, kN)});
      }
      for (const auto& [edition, piece] : pieces) {
        Position pos;
        pos.set_edition(edition);
        pos.set_side_to_move(c);
        if (edition == Edition::kKhet2) {
          pos.Set(Sq("j1"), Sphinx(kSilver, kN));
          pos.Set(Sq("a8"), Sphinx(kRed, kS));
        }
        pos.Set(from, piece);
        const Move m(from, to, MoveKind::kMove);
        SCOPED_TRACE(PieceText(piece) + " " + MoveText(m));
        if (ReservedAgainst(c, to)) {
          ++refused;
          EXPECT_TRUE(Refused(pos, m, {SquareText(to), "reserved"}));
          if (piece.type() == PieceType::kObelisk && piece.height() == 2) {
            EXPECT_TRUE(Refused(pos, Move(from, to, MoveKind::kMoveTop),
                                {SquareText(to), "reserved"}));
          }
        } else {
          EXPECT_TRUE(Legal(pos, m));
        }
      }
    }
  }
  // 10 squares are closed to each colour (9 with a Sphinx on its corner).
  EXPECT_EQ(refused, 2 * (10 * 6 + 9));
}

// Seed 002's board diagram: '&' squares only Red may occupy, '?' only
// Silver, '%' the Sphinx corners (nothing else ever enters them in Khet 2.0),
// '+' both. Read literally and checked square by square with a Silver and a
// Red Pyramid stepping onto each square.
TEST(RestrictedSquares, Seed002BoardDiagram) {
  const char* const kDiagram[] = {
      // rank 8 first
      "% ? + + + + + + & ?", "& + + + + + + + + ?", "& + + + + + + + + ?",
      "& + + + + + + + + ?", "& + + + + + + + + ?", "& + + + + + + + + ?",
      "& + + + + + + + + ?", "& ? + + + + + + & %",
  };
  // Red-only and Silver-only as the diagram shows them, checked against
  // section 1 of the rules: the diagram's marks agree with it exactly except
  // at the corners, where the Sphinxes stand.
  for (int row = 0; row < 8; ++row) {
    const std::vector<std::string> marks = Words(kDiagram[row]);
    ASSERT_EQ(marks.size(), 10u);
    for (int f = 0; f < kFiles; ++f) {
      const Square to = MakeSquare(f, 7 - row);
      const char mark = marks[f][0];
      SCOPED_TRACE(SquareText(to) + " '" + mark + "'");
      if (mark != '%') {
        EXPECT_EQ(mark == '&', RedOnly(to));
        EXPECT_EQ(mark == '?', SilverOnly(to));
      }
      for (Color c : {kSilver, kRed}) {
        Square from = -1;
        for (Bitboard n = Neighbours(to); n != 0;) {
          const Square s = PopLowest(n);
          if (!ReservedAgainst(c, s) && s != Sq("j1") && s != Sq("a8")) {
            from = s;
            break;
          }
        }
        ASSERT_GE(from, 0);
        Position pos = Board2("X j1 N; x a8 S", c);
        pos.Set(from, Pyramid(c, kNE));
        const Move m(from, to, MoveKind::kMove);
        const bool may_enter = mark == '+' || (mark == '&' && c == kRed) ||
                               (mark == '?' && c == kSilver);
        if (may_enter) {
          EXPECT_TRUE(Legal(pos, m));
        } else {
          EXPECT_TRUE(Refused(pos, m, {SquareText(to)}));
        }
      }
    }
  }
}

// Section 1 decision ("in a swap, both pieces must land on squares their
// colours may enter"), seed 003 rule 5 NB, section 3.3: a swap is refused if
// either the swapper or the swapped piece would land on a square reserved
// for the other colour.
TEST(RestrictedSquares, BothLandingSquaresOfASwapMustBeAllowed) {
  const char* const kSphinxes = "X j1 N; x a8 S; ";
  auto board = [&](const std::string& pieces, Color c) {
    return Board2(kSphinxes + pieces, c);
  };
  // Silver Scarab b2 onto Red Pyramid b1: the Scarab lands on b1 (Silver
  // only), the Pyramid on b2: both allowed.
  Position pos = board("S b2 /; p b1 NE", kSilver);
  EXPECT_TRUE(Legal(pos, Step("b2", "b1")));
  Position next = After(pos, Step("b2", "b1"));
  EXPECT_EQ(next.at(Sq("b1")), Scarab(kSilver, kSlash));
  EXPECT_EQ(next.at(Sq("b2")), Pyramid(kRed, kNE));
  // Silver Scarab on b1 with a Red Pyramid on c2: the Pyramid would land on
  // b1, Silver's.
  pos = board("S b1 /; p c2 NE", kSilver);
  EXPECT_TRUE(Refused(pos, Step("b1", "c2"), {"b1", "c2", "reserved"}));
  // Silver Scarab b3, Red Pyramid a3: the Scarab would land on the a-file.
  pos = board("S b3 /; p a3 NE", kSilver);
  EXPECT_TRUE(Refused(pos, Step("b3", "a3"), {"a3", "reserved"}));
  // Red Scarab i2, Silver Anubis j2: the Scarab would land on the j-file.
  pos = board("s i2 /; A j2 N", kRed);
  EXPECT_TRUE(Refused(pos, Step("i2", "j2"), {"j2", "reserved"}));
  // Red Scarab i1, Silver Pyramid h2: the Pyramid would land on i1, Red's.
  pos = board("s i1 /; P h2 NE", kRed);
  EXPECT_TRUE(Refused(pos, Step("i1", "h2"), {"i1", "reserved"}));
  // Red Scarab h1, Silver Pyramid i2: h1 and i2 are open to both.
  pos = board("s h1 /; P i2 NE", kRed);
  EXPECT_TRUE(Legal(pos, Step("h1", "i2")));
  // The Eye of Horus obeys the same rule: Red Eye on i8 with a Silver
  // Pyramid on h7, and a Silver Eye h8 with a Red Anubis on i8.
  pos = board("e i8 /; P h7 NE", kRed);
  EXPECT_TRUE(Refused(pos, Step("i8", "h7"), {"i8", "reserved"}));
  pos = board("E h8 /; a i8 S", kSilver);
  EXPECT_TRUE(Refused(pos, Step("h8", "i8"), {"i8", "reserved"}));
  // Khet 1.0: a Red Djed on a3 may not swap a Silver Obelisk stack onto a3;
  // a Silver Djed b2 may swap with a Red single Obelisk on c1.
  pos = Board1("s a3 \\; O b2 2", kRed);
  EXPECT_TRUE(Refused(pos, Step("a3", "b2"), {"a3", "reserved"}));
  pos = Board1("S b2 \\; o c1 1", kSilver);
  EXPECT_TRUE(Legal(pos, Step("b2", "c1")));
}

// ---------------------------------------------------------------------------
// The Sphinx (Khet 2.0).

// Section 1 "Nothing else may ever enter those squares" (a8, j1): no step
// and no swap lands on a Sphinx's square, for either colour.
TEST(Sphinx, ItsSquareIsNeverEntered) {
  Position pos =
      Board2("X j1 N; x a8 S; K e1; k f8; S i2 /; P j2 NW; s b7 /; p a7 SE");
  EXPECT_TRUE(Refused(pos, Step("i2", "j1"), {"i2", "j1", "Sphinx"}));
  EXPECT_TRUE(Refused(pos, Step("j2", "j1"), {"j2", "j1", "occupied"}));
  pos.set_side_to_move(kRed);
  EXPECT_TRUE(Refused(pos, Step("b7", "a8"), {"b7", "a8", "Sphinx"}));
  EXPECT_TRUE(Refused(pos, Step("a7", "a8"), {"a7", "a8", "occupied"}));
  // And no move of any setup's start enters a Sphinx square.
  for (const SetupInfo& info : AllSetups()) {
    if (info.edition != Edition::kKhet2) continue;
    for (Color c : {kSilver, kRed}) {
      Position start = *SetupPosition(info.id);
      start.set_side_to_move(c);
      MoveList list;
      GenerateMoves(start, &list);
      for (Move m : list) {
        if (m.is_rotation()) continue;
        EXPECT_NE(m.to(), Sq("j1")) << info.id << " " << MoveText(m);
        EXPECT_NE(m.to(), Sq("a8")) << info.id << " " << MoveText(m);
      }
    }
  }
}

// Section 2 ("never moves"), seed 001/002 rule 3, 003 rule 3, 000 ("Sphinx
// pieces can be rotated, but cannot be moved"): no step, top move or swap;
// its only move is the turn to its other facing.
TEST(Sphinx, NeverMoves) {
  const Position pos = Board2("X j1 N; x a8 S; K e1; k f8");
  for (const char* to : {"j2", "i2"}) {
    EXPECT_TRUE(Refused(pos, Step("j1", to), {"j1", "never moves"}));
    EXPECT_TRUE(Refused(pos, Top("j1", to), {"j1"}));
  }
  EXPECT_EQ(MovesFrom(pos, "j1"), Moves({Acw("j1")}));
  Position red = pos;
  red.set_side_to_move(kRed);
  for (const char* to : {"a7", "b7"}) {
    EXPECT_TRUE(Refused(red, Step("a8", to), {"a8", "never moves"}));
  }
  EXPECT_EQ(MovesFrom(red, "a8"), Moves({Acw("a8")}));
}

// Section 2 (Silver N or W, Red S or E), section 3.2 ("between its two
// allowed facings only"), seed 001/002 rule 3 ("down either the first column
// or the first row"), 003 rule 3 ("must fire towards the board: two
// positions"), 000 ("can never be pointed off of the board"): Silver turns
// N<->W, Red S<->E; the other direction is refused.
TEST(Sphinx, TurnsOnlyBetweenItsTwoFacings) {
  struct Case {
    Color side;
    const char* sphinx;
    Direction facing;
    bool clockwise_ok;
    Direction after;
    const char* allowed;
  };
  const Case cases[] = {
      {kSilver, "j1", kN, false, kW, "north or west"},
      {kSilver, "j1", kW, true, kN, "north or west"},
      {kRed, "a8", kS, false, kE, "south or east"},
      {kRed, "a8", kE, true, kS, "south or east"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.sphinx) + " facing " + DirText(c.facing));
    Position pos = Board2("K e1; k f8", c.side);
    pos.Set(Sq("j1"), Sphinx(kSilver, c.side == kSilver ? c.facing : kN));
    pos.Set(Sq("a8"), Sphinx(kRed, c.side == kRed ? c.facing : kS));
    const Move good = c.clockwise_ok ? Cw(c.sphinx) : Acw(c.sphinx);
    const Move bad = c.clockwise_ok ? Acw(c.sphinx) : Cw(c.sphinx);
    EXPECT_TRUE(Legal(pos, good));
    EXPECT_TRUE(Refused(pos, bad, {c.sphinx, c.allowed}));
    EXPECT_EQ(MovesFrom(pos, c.sphinx), Moves({good}));
    EXPECT_EQ(After(pos, good).at(Sq(c.sphinx)), Sphinx(c.side, c.after));
  }
}

// Seed 001/002 rule 3, 003 rule 3, section 3.2 ("The Sphinx rotation is a
// whole turn"): turning the Sphinx is the player's whole move, the laser then
// fires in the new direction at once, and the turn passes.
TEST(Sphinx, TurningIsTheWholeMoveAndTheLaserFiresTheNewWay) {
  const Position pos = Board2("X j1 N; x a8 S; K e2; k f8; p d1 SW");
  EXPECT_EQ(Squares(LaserHits(pos, kSilver)), "");
  MoveEffects effects;
  const Position next = After(pos, Acw("j1"), &effects);
  // West along rank 1 into the back of the Red Pyramid on d1.
  EXPECT_EQ(Squares(effects.hit), "d1");
  EXPECT_EQ(RemovalsText(effects), "d1:pSW>.");
  EXPECT_EQ(next.at(Sq("j1")), Sphinx(kSilver, kW));
  EXPECT_EQ(next.side_to_move(), kRed);
}

// ---------------------------------------------------------------------------
// Section 3: moves.

// Section 3.1, seed 001/002 rule 4, 003 rule 4a, 004 rule 3, 000: a step is
// one square in any of the 8 directions (diagonals included), never further.
TEST(Moves, StepOneSquareInAnyOfEightDirections) {
  const Position pos =
      Board2("X j1 N; x a8 S; K h3; k h7; P e4 NE; A e7 N; S c6 /");
  const std::initializer_list<Move> steps = {
      Step("e4", "d3"), Step("e4", "e3"), Step("e4", "f3"), Step("e4", "d4"),
      Step("e4", "f4"), Step("e4", "d5"), Step("e4", "e5"), Step("e4", "f5")};
  std::set<uint16_t> expected = MoveSet(steps);
  expected.insert(Cw("e4").bits());
  expected.insert(Acw("e4").bits());
  EXPECT_EQ(MovesFrom(pos, "e4"), MovesText(expected));
  for (Move m : steps) {
    const Position next = After(pos, m);
    EXPECT_EQ(next.at(m.to()), Pyramid(kSilver, kNE));
    EXPECT_TRUE(next.at(Sq("e4")).empty());
  }
  EXPECT_TRUE(Refused(pos, Step("e4", "e6"), {"e4", "e6", "not next to"}));
  EXPECT_TRUE(Refused(pos, Step("e4", "g6"), {"e4", "g6", "not next to"}));
  EXPECT_TRUE(Refused(pos, Step("e4", "c4"), {"e4", "c4", "not next to"}));
  // The Pharaoh steps the same 8 ways (and has no turn).
  EXPECT_EQ(MovesFrom(pos, "h3"),
            Moves({Step("h3", "g2"), Step("h3", "h2"), Step("h3", "i2"),
                   Step("h3", "g3"), Step("h3", "i3"), Step("h3", "g4"),
                   Step("h3", "h4"), Step("h3", "i4")}));
}

// Section 3.1 ("onto an empty square"), seed 001/002 rule 6, 003 rule 6,
// 004 rule 5, 000 ("Except for the Scarab ... and Horus pieces, no piece can
// move into a square occupied by another piece"): a Pharaoh, Pyramid, Anubis
// or Obelisk never steps onto a piece of either colour (Obelisk stacking,
// 004 rule 7, is the one exception: see Obelisk.*).
TEST(Moves, OnlyScarabDjedOrEyeEntersAnOccupiedSquare) {
  const Position pos = Board2(
      "X j1 N; x a8 S; s d5 \\; p e5 NE; P f5 SE; K d4; P e4 NE; A f4 N; "
      "a d3 S; k e3; P f3 NW; S g4 /; e g5 /");
  int checked = 0;
  for (const char* from : {"d4", "e4", "f4", "f5", "f3"}) {
    for (Bitboard n = Neighbours(Sq(from)) & pos.occupied(); n != 0;) {
      const Square to = PopLowest(n);
      SCOPED_TRACE(std::string(from) + "-" + SquareText(to));
      EXPECT_TRUE(Refused(pos, Move(Sq(from), to, MoveKind::kMove),
                          {from, SquareText(to), "occupied"}));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 5 + 8 + 7 + 5 + 4);
  // Khet 1.0: Pharaoh, Pyramid and Obelisk stack likewise.
  const Position one =
      Board1("K d4; P e4 NE; O f4 2; o e5 1; s d5 /; p f5 SE; k e3; O d3 1");
  EXPECT_TRUE(Refused(one, Step("d4", "e5"), {"d4", "e5", "occupied"}));
  EXPECT_TRUE(Refused(one, Step("d4", "d5"), {"d4", "d5", "occupied"}));
  EXPECT_TRUE(Refused(one, Step("e4", "f4"), {"e4", "f4", "occupied"}));
  EXPECT_TRUE(Refused(one, Step("f4", "e4"), {"f4", "e4", "occupied"}));
  EXPECT_TRUE(Refused(one, Step("f4", "e3"), {"f4", "e3", "occupied"}));
  EXPECT_TRUE(Refused(one, Top("f4", "f5"), {"f4", "f5", "occupied"}));
  EXPECT_TRUE(Refused(one, Step("d3", "e3"), {"d3", "e3", "occupied"}));
}

// Section 3.5, seed 001/002 rule 4, 003 rule 4, 004 rule 3, 000 ("A piece
// cannot be moved and rotated on the same turn"): a step keeps the piece's
// orientation, a turn keeps its square; a turn naming another square is
// refused.
TEST(Moves, CannotMoveAndRotateInOneTurn) {
  const Position pos = Board2("X j1 N; x a8 S; K b2; k h7; P e4 NE; A c6 W");
  for (MoveKind kind :
       {MoveKind::kRotateClockwise, MoveKind::kRotateAnticlockwise}) {
    EXPECT_TRUE(Refused(pos, Move(Sq("e4"), Sq("e5"), kind),
                        {"e4", "stays on its square"}));
    EXPECT_TRUE(Refused(pos, Move(Sq("c6"), Sq("d7"), kind),
                        {"c6", "stays on its square"}));
  }
  MoveList list;
  GenerateMoves(pos, &list);
  for (Move m : list) {
    const Position next = After(pos, m);
    if (m.is_rotation()) {
      EXPECT_EQ(m.to(), m.from());
      EXPECT_EQ(next.at(m.from()).type(), pos.at(m.from()).type());
    } else {
      EXPECT_EQ(next.at(m.to()), pos.at(m.from())) << MoveText(m);
    }
  }
}

// Section 3.2 / 3.5, seed 001/002 rule 4 ("a quarter turn in either
// direction ... not more than a quarter twist"), 003 rule 4b, 004 rule 3:
// a Pyramid and an Anubis turn 90 degrees clockwise or anticlockwise, never
// 180.
TEST(Rotation, PyramidAndAnubisTurnAQuarterEitherWayNeverMore) {
  Position pos = Board2("X j1 N; x a8 S; K b2; k h7; P e4 NE; A c6 N");
  EXPECT_EQ(After(pos, Cw("e4")).at(Sq("e4")), Pyramid(kSilver, kSE));
  EXPECT_EQ(After(pos, Acw("e4")).at(Sq("e4")), Pyramid(kSilver, kNW));
  EXPECT_EQ(After(pos, Cw("c6")).at(Sq("c6")), Anubis(kSilver, kE));
  EXPECT_EQ(After(pos, Acw("c6")).at(Sq("c6")), Anubis(kSilver, kW));
  // Four clockwise turns go NE, SE, SW, NW and back.
  const PyramidFacing cycle[] = {kSE, kSW, kNW, kNE};
  for (PyramidFacing f : cycle) {
    pos = After(pos, Cw("e4"));
    pos.set_side_to_move(kSilver);
    EXPECT_EQ(pos.at(Sq("e4")), Pyramid(kSilver, f));
  }
  // From NE, the facings one move reaches are SE and NW only.
  MoveList list;
  GenerateMovesFrom(pos, Sq("e4"), &list);
  std::set<int> reached;
  for (Move m : list) {
    if (m.is_rotation())
      reached.insert(After(pos, m).at(Sq("e4")).orientation());
  }
  EXPECT_EQ(reached, (std::set<int>{kSE, kNW}));
}

// Section 2 ("facing is cosmetic"; Obelisk orientations: none), section 3.2
// ("the Pharaoh and the Obelisk do not rotate"): both turns are refused and
// neither is listed.
TEST(Rotation, PharaohAndObeliskDoNotRotate) {
  const Position two = Board2("X j1 N; x a8 S; K e4; k h7");
  EXPECT_TRUE(Refused(two, Cw("e4"), {"e4", "Pharaoh does not rotate"}));
  EXPECT_TRUE(Refused(two, Acw("e4"), {"e4", "Pharaoh does not rotate"}));
  const Position one = Board1("K b2; k h7; O e4 1; O f6 2");
  for (const char* s : {"e4", "f6"}) {
    EXPECT_TRUE(Refused(one, Cw(s), {s, "Obelisk does not rotate"}));
    EXPECT_TRUE(Refused(one, Acw(s), {s, "Obelisk does not rotate"}));
  }
  for (const Position* pos : {&two, &one}) {
    MoveList list;
    GenerateMoves(*pos, &list);
    for (Move m : list) {
      const PieceType t = pos->at(m.from()).type();
      if (t == PieceType::kPharaoh || t == PieceType::kObelisk) {
        EXPECT_FALSE(m.is_rotation()) << MoveText(m);
      }
    }
  }
}

// Section 3.2: a Scarab/Djed/Eye has two states, so its clockwise and
// anticlockwise turns are one move: listed once (as clockwise), accepted
// either way, and both give the same position with the diagonal flipped.
TEST(Rotation, ScarabDjedAndEyeTurnListedOnceAcceptedBothWays) {
  const Position positions[] = {
      Board2("X j1 N; x a8 S; K b2; k h7; S e4 /"),
      Board2("X j1 N; x a8 S; K b2; k h7; E e4 \\"),
      Board1("K b2; k h7; S e4 \\"),
      Board1("K b2; k h7; E e4 /"),
  };
  for (const Position& pos : positions) {
    const Piece p = pos.at(Sq("e4"));
    SCOPED_TRACE(PieceText(p));
    MoveList list;
    GenerateMovesFrom(pos, Sq("e4"), &list);
    int rotations = 0;
    for (Move m : list) rotations += m.is_rotation() ? 1 : 0;
    EXPECT_EQ(rotations, 1);
    EXPECT_TRUE(ListContains(list, Cw("e4")));
    EXPECT_FALSE(ListContains(list, Acw("e4")));
    const absl::StatusOr<Move> acw = CheckMove(pos, Acw("e4"));
    ASSERT_TRUE(acw.ok()) << acw.status();
    EXPECT_EQ(*acw, Cw("e4"));
    MoveEffects effects;
    const Position a = After(pos, Cw("e4"));
    const Position b = After(pos, Acw("e4"), &effects);
    EXPECT_EQ(effects.move, Cw("e4"));
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.at(Sq("e4")), p.WithOrientation(p.orientation() ^ 1));
    // Turned twice it is back where it was.
    const Position red_moved = After(a, Step("h7", "h6"));
    const Position twice = After(red_moved, Acw("e4"));
    EXPECT_EQ(twice.at(Sq("e4")), p);
  }
}

// Section 3.2 ("there is no passing: a rotation that changes nothing is not
// a move"): the null move is refused, and in every setup's start every listed
// move changes the board.
TEST(Moves, NoPassing) {
  const Position start = *SetupPosition("classic-2");
  EXPECT_EQ(CheckMove(start, Move()).status().code(),
            absl::StatusCode::kInvalidArgument);
  Position copy = start;
  EXPECT_FALSE(ApplyMove(&copy, Move()).ok());
  for (const SetupInfo& info : AllSetups()) {
    const Position pos = *SetupPosition(info.id);
    MoveList list;
    GenerateMoves(pos, &list);
    for (Move m : list) {
      EXPECT_FALSE(SameBoard(After(pos, m), pos)) << info.id << MoveText(m);
    }
  }
}

// ---------------------------------------------------------------------------
// Section 3.3: swaps.

// Section 3.3, seed 001/002 rule 7, 003 rule 7, 000 (Khet 2.0 extras): a
// Scarab swaps with an adjacent Pyramid or Anubis of either colour, in all 8
// directions; the other piece goes to the Scarab's square; neither rotates.
TEST(Swap, ScarabSwapsWithPyramidOrAnubisOfEitherColour) {
  const Position pos = Board2(
      "X j1 N; x a8 S; K b2; k h7; S e4 /; P d5 NW; p e5 SE; A f5 N; "
      "a d3 W; P f3 SW");
  for (const char* t : {"d5", "e5", "f5", "d3", "f3"}) {
    SCOPED_TRACE(t);
    EXPECT_TRUE(Legal(pos, Step("e4", t)));
    MoveEffects effects;
    const Position next = After(pos, Step("e4", t), &effects);
    EXPECT_EQ(next.at(Sq(t)), Scarab(kSilver, kSlash));
    EXPECT_EQ(next.at(Sq("e4")), pos.at(Sq(t)));
    EXPECT_EQ(RemovalsText(effects), "");
  }
  // Three empty neighbours, five swaps, one turn.
  EXPECT_EQ(MovesFrom(pos, "e4"),
            Moves({Step("e4", "d3"), Step("e4", "e3"), Step("e4", "f3"),
                   Step("e4", "d4"), Step("e4", "f4"), Step("e4", "d5"),
                   Step("e4", "e5"), Step("e4", "f5"), Cw("e4")}));
}

// Section 3.3, seed 001/002 rule 7 ("not with a Pharaoh or another Scarab"),
// 002 Eye rule 1 ("not with a Pharaoh, Scarab, or another Eye of Horus"),
// 000 ("... Horus, or Sphinx"): no swap with a Pharaoh, Scarab, Eye or Sphinx
// of either colour, for a Scarab or an Eye.
TEST(Swap, NoSwapWithPharaohScarabEyeOrSphinx) {
  for (const char* mover : {"S", "E"}) {
    SCOPED_TRACE(mover);
    // On e4, surrounded by both Pharaohs, Scarabs and Eyes of both colours;
    // on i2, next to Silver's Sphinx.
    const std::string m(mover);
    const Position pos =
        Board2(m + " e4 /; " + m + " i2 \\; X j1 N; x a8 S; K d3; k e3; " +
               "s f3 \\; S d4 /; E f4 \\; e d5 /; p h8 SE");
    for (const char* t : {"d3", "e3", "f3", "d4", "f4", "d5"}) {
      EXPECT_TRUE(Refused(pos, Step("e4", t), {"e4", t, "swaps only"}));
    }
    EXPECT_TRUE(Refused(pos, Step("i2", "j1"), {"i2", "j1", "swaps only"}));
    EXPECT_EQ(MovesFrom(pos, "e4"),
              Moves({Step("e4", "e5"), Step("e4", "f5"), Cw("e4")}));
  }
}

// Section 5 ("It moves like a Scarab"), seed 002 Eye of Horus rule 1, 000
// ("look and behave exactly like Scarab pieces"): an Eye in a Scarab's place
// has exactly the Scarab's moves, in both editions.
TEST(Swap, EyeMovesExactlyLikeAScarab) {
  const Position positions[] = {
      Board2("X j1 N; x a8 S; K b2; k h7; S e4 /; P d5 NW; p e5 SE; "
             "A f5 N; a d3 W; k f3; s e3 /"),
      Board1("K b2; k h7; S e4 /; O d5 2; o e5 1; p f5 SE; K f3; e d3 /"),
  };
  for (const Position& scarab : positions) {
    Position eye = scarab;
    eye.Set(Sq("e4"), Eye(kSilver, kSlash));
    EXPECT_EQ(MovesFrom(eye, "e4"), MovesFrom(scarab, "e4"));
    EXPECT_NE(MovesFrom(eye, "e4"), "");
    MoveList list;
    GenerateMovesFrom(eye, Sq("e4"), &list);
    for (Move m : list) {
      if (m.is_rotation()) continue;
      const Position a = After(eye, m), b = After(scarab, m);
      EXPECT_EQ(a.at(m.from()), b.at(m.from())) << MoveText(m);
      EXPECT_EQ(a.at(m.to()).type(), PieceType::kEye) << MoveText(m);
    }
  }
}

// Seed 004 rule 6, 000 (Khet 1.0 extras), section 3.3: the Djed swaps with a
// Pyramid or an Obelisk (single or stack) of either colour, not with a
// Pharaoh, a Djed or an Eye; neither piece rotates; a stack moves whole.
TEST(Swap, DjedSwapsWithPyramidOrObeliskOfEitherColour) {
  const Position pos = Board1(
      "K b2; k f3; S e4 \\; O d5 2; o e5 1; p f5 SW; P d3 NE; S e3 /; "
      "e d4 /; o f4 2");
  for (const char* t : {"d5", "e5", "f5", "d3", "f4"}) {
    SCOPED_TRACE(t);
    EXPECT_TRUE(Legal(pos, Step("e4", t)));
    const Position next = After(pos, Step("e4", t));
    EXPECT_EQ(next.at(Sq(t)), Scarab(kSilver, kBackslash));
    EXPECT_EQ(next.at(Sq("e4")), pos.at(Sq(t)));
  }
  // Swapping with the stacks moves the whole stack: two obelisks on e4.
  EXPECT_EQ(After(pos, Step("e4", "d5")).at(Sq("e4")), Obelisk(kSilver, 2));
  EXPECT_EQ(After(pos, Step("e4", "f4")).at(Sq("e4")), Obelisk(kRed, 2));
  for (const char* t : {"f3", "e3", "d4"}) {
    EXPECT_TRUE(Refused(pos, Step("e4", t), {"e4", t, "swaps only"}));
  }
  // A Djed never moves "the top" of anything.
  EXPECT_TRUE(Refused(pos, Top("e4", "d5"), {"e4", "top"}));
}

// ---------------------------------------------------------------------------
// Section 3.4: Obelisks (Khet 1.0), seed 004 rule 7, 000 (Khet 1.0 extras).

// Seed 004 rule 7 ("Only obelisks of the same color may be stacked"), 000,
// section 3.4: a single Obelisk stacks onto a single Obelisk of its colour,
// never onto the other colour's.
TEST(Obelisk, OnlySameColourStacks) {
  const Position pos = Board1("K b2; k h7; O e4 1; o e5 1; O d4 1");
  EXPECT_TRUE(Refused(pos, Step("e4", "e5"), {"e4", "same colour"}));
  EXPECT_TRUE(Legal(pos, Step("e4", "d4")));
  const Position next = After(pos, Step("e4", "d4"));
  EXPECT_EQ(next.at(Sq("d4")), Obelisk(kSilver, 2));
  EXPECT_TRUE(next.at(Sq("e4")).empty());
  Position red = pos;
  red.set_side_to_move(kRed);
  EXPECT_TRUE(Refused(red, Step("e5", "e4"), {"e5", "same colour"}));
  EXPECT_TRUE(Refused(red, Step("e5", "d4"), {"e5", "same colour"}));
}

// Seed 004 rule 7 ("You can only stack once, so there are no triple or
// quadruple stacks"), section 3.4 ("at most two high"), section 7 (a loaded
// position with a taller stack is rejected).
TEST(Obelisk, AtMostTwoHigh) {
  const Position pos = Board1("K b2; k h7; O e4 1; O e5 2; O d4 2; O f4 1");
  EXPECT_TRUE(Refused(pos, Step("e4", "e5"), {"e4", "at most two"}));
  EXPECT_TRUE(Refused(pos, Step("d4", "e4"), {"d4", "at most two"}));
  EXPECT_TRUE(Refused(pos, Step("d4", "e5"), {"d4", "at most two"}));
  EXPECT_TRUE(Refused(pos, Top("d4", "e5"), {"d4", "at most two"}));
  EXPECT_TRUE(Legal(pos, Step("f4", "e4")));
  EXPECT_EQ(After(pos, Step("f4", "e4")).at(Sq("e4")), Obelisk(kSilver, 2));
  Position tall = Board1("K b2; k h7");
  tall.Set(Sq("e4"), Piece(kSilver, PieceType::kObelisk, 2));  // three high
  const absl::Status status = tall.Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("e4"), std::string::npos)
      << status;
}

// Seed 004 rule 7 example A, 000, section 3.4 ("A stack may step as one
// unit"): the whole stack steps one square in any direction.
TEST(Obelisk, StackStepsAsOneUnit) {
  const Position pos = Board1("K b2; k h7; O e4 2");
  EXPECT_TRUE(Legal(pos, Step("e4", "e5")));
  const Position next = After(pos, Step("e4", "e5"));
  EXPECT_EQ(next.at(Sq("e5")), Obelisk(kSilver, 2));
  EXPECT_TRUE(next.at(Sq("e4")).empty());
  // 8 whole-stack steps and 8 top-only steps, no turns.
  MoveList list;
  GenerateMovesFrom(pos, Sq("e4"), &list);
  EXPECT_EQ(list.size, 16);
  int whole = 0, top = 0;
  for (Move m : list) {
    whole += m.kind() == MoveKind::kMove ? 1 : 0;
    top += m.kind() == MoveKind::kMoveTop ? 1 : 0;
  }
  EXPECT_EQ(whole, 8);
  EXPECT_EQ(top, 8);
}

// Seed 004 rule 7 example B, 000, section 3.4 ("its top obelisk alone may
// step away ... the bottom stays"): only a stack has a top to move.
TEST(Obelisk, TopObeliskStepsAloneAndTheBottomStays) {
  const Position pos = Board1("K b2; k h7; O e4 2; O c4 1");
  EXPECT_TRUE(Legal(pos, Top("e4", "f5")));
  const Position next = After(pos, Top("e4", "f5"));
  EXPECT_EQ(next.at(Sq("e4")), Obelisk(kSilver, 1));
  EXPECT_EQ(next.at(Sq("f5")), Obelisk(kSilver, 1));
  EXPECT_TRUE(Refused(pos, Top("c4", "c5"), {"c4", "only the top"}));
  EXPECT_TRUE(Refused(pos, Top("b2", "b3"), {"b2", "only the top"}));
}

// Section 3.4 ("or onto another single obelisk of its colour"): the top of a
// stack may step onto a neighbouring single Obelisk of its colour, making a
// second stack; a single Obelisk's move list offers the stacking step.
TEST(Obelisk, TopOntoAnotherSingleOfItsColour) {
  const Position pos = Board1("K b2; k h7; O e4 2; O d4 1; o f4 1; O e5 2");
  EXPECT_TRUE(Legal(pos, Top("e4", "d4")));
  const Position next = After(pos, Top("e4", "d4"));
  EXPECT_EQ(next.at(Sq("e4")), Obelisk(kSilver, 1));
  EXPECT_EQ(next.at(Sq("d4")), Obelisk(kSilver, 2));
  EXPECT_TRUE(Refused(pos, Top("e4", "f4"), {"e4", "same colour"}));
  EXPECT_TRUE(Refused(pos, Top("e4", "e5"), {"e4", "at most two"}));
  // The single on d4 may stack onto e4? No: e4 is a stack. It may not.
  EXPECT_TRUE(Refused(pos, Step("d4", "e4"), {"d4", "at most two"}));
  MoveList list;
  GenerateMovesFrom(pos, Sq("e4"), &list);
  EXPECT_TRUE(ListContains(list, Top("e4", "d4")));
  EXPECT_FALSE(ListContains(list, Step("e4", "d4")));
  EXPECT_FALSE(ListContains(list, Top("e4", "f4")));
}

// Seed 004 rule 7 ("If a stacked obelisk is hit, only the top obelisk is
// removed"), 000 ("ablative armor"), section 4: a hit stack loses one
// Obelisk; hit again, the last one goes.
TEST(Obelisk, HitStackLosesOnlyItsTop) {
  Position pos = Board1("K b2; k h7; O j5 2; P d4 NE");
  MoveEffects effects;
  pos = After(pos, Cw("d4"), &effects);  // Silver's laser: up the j-file
  EXPECT_EQ(RemovalsText(effects), "j5:O2>O1");
  EXPECT_EQ(pos.at(Sq("j5")), Obelisk(kSilver, 1));
  pos = After(pos, Step("h7", "h6"));
  pos = After(pos, Cw("d4"), &effects);
  EXPECT_EQ(RemovalsText(effects), "j5:O1>.");
  EXPECT_TRUE(pos.at(Sq("j5")).empty());
}

// ---------------------------------------------------------------------------
// Section 4: the laser.

// Section 4 ("the beam leaves the mover's Sphinx in the direction it
// faces"), seed 001/002 rule 3: each of the four allowed facings.
TEST(Laser, Khet2BeamLeavesTheSphinxTheWayItFaces) {
  struct Case {
    const char* pieces;
    Color shooter;
    Direction travel;
    BeamPoint from, to;
  };
  const Case cases[] = {
      {"X j1 N; x a8 S", kSilver, kN, Pt("j1"), {9, 8}},
      {"X j1 W; x a8 S", kSilver, kW, Pt("j1"), {-1, 0}},
      {"X j1 N; x a8 S", kRed, kS, Pt("a8"), {0, -1}},
      {"X j1 N; x a8 E", kRed, kE, Pt("a8"), {10, 7}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pieces);
    const BeamTrace trace = TraceLaser(Board2(c.pieces), c.shooter);
    ASSERT_EQ(trace.segments.size(), 1u);
    EXPECT_EQ(trace.segments[0].travel, c.travel);
    EXPECT_EQ(trace.segments[0].from, c.from);
    EXPECT_EQ(trace.segments[0].to, c.to);
    EXPECT_EQ(trace.beams[0].end, BeamEnd::kLeftBoard);
  }
}

// Section 4 (Khet 1.0: fixed lasers; Silver's emitter beyond j1 fires north
// up the j-file, Red's beyond a8 south down the a-file), 000 ("fixed lasers
// ... always fired across your protected home row"): the lasers never turn,
// and nothing on j1/a8 is a laser.
TEST(Laser, Khet1FixedLasersFireAlongTheProtectedFiles) {
  const Position pos = Board1("K e1; k f8");
  const BeamTrace silver = TraceLaser(pos, kSilver);
  ASSERT_EQ(silver.segments.size(), 1u);
  EXPECT_EQ(silver.segments[0].from, (BeamPoint{9, -1}));
  EXPECT_EQ(silver.segments[0].to, (BeamPoint{9, 8}));
  EXPECT_EQ(silver.segments[0].travel, kN);
  const BeamTrace red = TraceLaser(pos, kRed);
  ASSERT_EQ(red.segments.size(), 1u);
  EXPECT_EQ(red.segments[0].from, (BeamPoint{0, 8}));
  EXPECT_EQ(red.segments[0].to, (BeamPoint{0, -1}));
  EXPECT_EQ(red.segments[0].travel, kS);
  // No move turns a laser: j1 and a8 hold nothing to move.
  EXPECT_EQ(MovesFrom(pos, "j1"), "");
  Position with_sphinx = pos;
  with_sphinx.Set(Sq("j1"), Sphinx(kSilver, kN));
  const absl::Status status = with_sphinx.Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("j1"), std::string::npos);
}

// Section 4 ("A piece standing on j1 (a8) is the first thing Silver's
// (Red's) beam reaches"): in Khet 1.0 a Pyramid stepping onto j1 is the first
// thing its own laser meets; on a8 likewise for Red; a mirror there turns the
// beam along the home row.
TEST(Laser, Khet1PieceOnTheEmitterSquareIsMetFirst) {
  MoveEffects effects;
  Position pos = Board1("K b2; k h7; P j2 NW; P j6 SE");
  EXPECT_TRUE(Legal(pos, Step("j2", "j1")));
  After(pos, Step("j2", "j1"), &effects);
  EXPECT_EQ(RemovalsText(effects), "j1:PNW>.");  // j6 behind it untouched
  pos = Board1("K b2; k h7; p a7 SE; p a3 NE", kRed);
  EXPECT_TRUE(Legal(pos, Step("a7", "a8")));
  After(pos, Step("a7", "a8"), &effects);
  EXPECT_EQ(RemovalsText(effects), "a8:pSE>.");
  // A mirror on j1 turns Silver's beam west along rank 1.
  pos = Board1("K b3; k h7; P j1 SW; p e1 NW");
  const BeamTrace trace = TraceLaser(pos, kSilver);
  ASSERT_EQ(trace.segments.size(), 2u);
  EXPECT_EQ(trace.segments[0].to, Pt("j1"));
  EXPECT_EQ(trace.segments[1].travel, kW);
  EXPECT_EQ(Squares(trace.hit), "e1");
}

// Section 4 ("stops at the board edge, at a Sphinx, at an Anubis's front, or
// at a non-mirrored face"), seed 001/002 rule 9, 003 rule 9, 004 rule 9, 000
// ("removed from the board (even if it is the player's own piece)"): a
// Pyramid hit on its back is removed even if it is the mover's own, and
// nothing behind it is touched.
TEST(Laser, HitPieceIsRemovedEvenTheMoversOwn) {
  const Position pos = Board2("X j1 N; x a8 S; K b2; k h7; P j3 SW; P j5 SE");
  // The SW mirror sends the beam west along rank 3, off the board.
  EXPECT_EQ(Squares(LaserHits(pos, kSilver)), "");
  // Turned to NW, its back faces the beam: Silver destroys its own Pyramid.
  MoveEffects effects;
  const Position next = After(pos, Cw("j3"), &effects);
  EXPECT_EQ(Squares(effects.hit), "j3");
  EXPECT_EQ(RemovalsText(effects), "j3:PNW>.");
  EXPECT_TRUE(next.at(Sq("j3")).empty());
  EXPECT_EQ(next.at(Sq("j5")), Pyramid(kSilver, kSE));
  EXPECT_EQ(effects.pharaohs_hit, 0);
}

// Seed 001/002 rule 10, 003 rule 10, 000: a beam on an Anubis's front stops
// and the Anubis stays ("the turn is over"); on a side or the back the
// Anubis is removed.
TEST(Laser, AnubisFrontBlocksSideOrBackRemoves) {
  for (Direction facing : kDirections) {
    SCOPED_TRACE(DirText(facing));
    Position pos = Board2("X j1 N; x a8 S; K e2; k h7");
    pos.Set(Sq("d1"), Anubis(kRed, facing));
    MoveEffects effects;
    const Position next = After(pos, Acw("j1"), &effects);  // fire west
    if (facing == kE) {  // west-travelling beam meets its front
      EXPECT_EQ(RemovalsText(effects), "");
      EXPECT_EQ(next.at(Sq("d1")), Anubis(kRed, kE));
    } else {
      EXPECT_EQ(RemovalsText(effects), "d1:a" + DirText(facing) + ">.");
    }
    // The beam stopped at d1 either way: c1..a1 never saw it.
    const BeamTrace before = TraceLaser(
        Board2("X j1 W; x a8 S; K e2; k h7; a d1 " + DirText(facing)), kSilver);
    EXPECT_EQ(before.beams[0].end_square, Sq("d1"));
    EXPECT_EQ(before.beams[0].end,
              facing == kE ? BeamEnd::kBlocked : BeamEnd::kHit);
    EXPECT_EQ(before.segments.back().to, Pt("d1"));
  }
}

// Section 3 ("After every move the mover's laser fires, once"), seed 001/002
// rule 8 and 11, 003 rule 8 and 11, 004 rule 8 and 9, 000 ("The laser is
// fired only once a turn. The turn is over whether a piece is hit or not"):
// only the mover's laser fires, once per move, and the turn passes either
// way.
TEST(Laser, FiresOnlyTheMoversLaserOncePerMove) {
  // Red's beam is aimed at Silver's Pyramid on e3 (down the a-file, east at
  // a3, into its back).
  const Position pos = Board2("X j1 N; x a8 S; K e1; k f8; p a3 NE; P e3 NE");
  EXPECT_EQ(Squares(LaserHits(pos, kRed)), "e3");
  MoveEffects effects;
  const Position after_silver = After(pos, Step("e1", "e2"), &effects);
  EXPECT_EQ(Squares(effects.hit), "");  // Silver's beam: up the j-file
  EXPECT_EQ(after_silver.at(Sq("e3")), Pyramid(kSilver, kNE));
  EXPECT_EQ(after_silver.side_to_move(), kRed);
  const Position after_red = After(after_silver, Step("f8", "f7"), &effects);
  EXPECT_EQ(RemovalsText(effects), "e3:PNE>.");
  EXPECT_EQ(after_red.side_to_move(), kSilver);
  // Once: a stack in the beam loses one Obelisk per move, not two (a second
  // shot would take the bottom one).
  Position one = Board1("K b2; k h7; O j6 2; P d4 NE");
  one = After(one, Cw("d4"), &effects);
  EXPECT_EQ(one.at(Sq("j6")), Obelisk(kSilver, 1));
}

// Seed 001/002 rule 8, 003 rule 8, 004 rule 8 ("it will always make a left
// or right hand turn of 90 degrees ... The beam always travels along the rows
// and columns"), section 4 ("travels along ranks and files, square by
// square"): over random games from every setup, every segment runs along a
// rank or file in its travel direction, each mirror turns it by 90 degrees,
// each child beam starts where its parent ended, and TraceLaser, LaserHits
// and TraceBeamPath agree on what was hit.
TEST(Laser, BeamsRunAlongRanksAndFilesTurningNinetyDegrees) {
  std::mt19937 rng(20240607);
  int traces = 0;
  for (const SetupInfo& info : AllSetups()) {
    Position pos = *SetupPosition(info.id);
    for (int ply = 0; ply < 60; ++ply) {
      for (Color shooter : {kSilver, kRed}) {
        const BeamTrace trace = TraceLaser(pos, shooter);
        ++traces;
        ASSERT_EQ(Squares(trace.hit), Squares(LaserHits(pos, shooter)));
        ASSERT_EQ(Squares(trace.hit),
                  Squares(TraceBeamPath(pos, shooter).hits));
        for (size_t i = 0; i < trace.beams.size(); ++i) {
          ASSERT_EQ(trace.beams[i].id, static_cast<int>(i));
        }
        for (size_t i = 0; i < trace.segments.size(); ++i) {
          const BeamSegment& seg = trace.segments[i];
          const int d = static_cast<int>(seg.travel);
          const int df = seg.to.file - seg.from.file;
          const int dr = seg.to.rank - seg.from.rank;
          const int length = df * kFileStep[d] + dr * kRankStep[d];
          ASSERT_GT(length, 0) << info.id << " segment " << i;
          ASSERT_EQ(df, length * kFileStep[d]);
          ASSERT_EQ(dr, length * kRankStep[d]);
          if (i + 1 < trace.segments.size() &&
              trace.segments[i + 1].beam == seg.beam) {
            const BeamSegment& next = trace.segments[i + 1];
            ASSERT_EQ(next.from, seg.to);
            ASSERT_EQ((static_cast<int>(next.travel) - d) & 1, 1)
                << "not a 90 degree turn";
          }
          if (i > 0 && trace.segments[i - 1].beam != seg.beam) {
            const int parent = trace.beams[seg.beam].parent;
            ASSERT_GE(parent, 0);
            ASSERT_EQ(trace.beams[parent].end, BeamEnd::kSplit);
            ASSERT_EQ(PointOf(trace.beams[parent].end_square), seg.from);
          }
        }
      }
      MoveList list;
      GenerateMoves(pos, &list);
      if (list.size == 0) break;
      std::uniform_int_distribution<int> pick(0, list.size - 1);
      if (MakeMove(&pos, list.moves[pick(rng)]) != 0) break;
    }
  }
  EXPECT_GT(traces, 500);
}

// Section 4's check of the table: at the start of Classic, Silver's beam goes
// j1 north, west at j4, north at h4, east at h5, north at j5 and off beyond
// j8, hitting nothing; by point symmetry Red's beam is its mirror image.
TEST(Laser, ClassicStartMatchesTheRulesCheck) {
  const Position pos = *SetupPosition("classic-2");
  const BeamTrace silver = TraceLaser(pos, kSilver);
  ASSERT_EQ(silver.segments.size(), 5u);
  const char* const corners[] = {"j1", "j4", "h4", "h5", "j5"};
  const Direction travel[] = {kN, kW, kN, kE, kN};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(silver.segments[i].from, Pt(corners[i]));
    EXPECT_EQ(silver.segments[i].travel, travel[i]);
  }
  EXPECT_EQ(silver.segments[4].to, (BeamPoint{9, 8}));
  EXPECT_EQ(Squares(silver.hit), "");
  const BeamTrace red = TraceLaser(pos, kRed);
  ASSERT_EQ(red.segments.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const BeamSegment& s = silver.segments[i];
    const BeamSegment& r = red.segments[i];
    EXPECT_EQ(r.from, (BeamPoint{static_cast<int8_t>(9 - s.from.file),
                                 static_cast<int8_t>(7 - s.from.rank)}));
    EXPECT_EQ(r.to, (BeamPoint{static_cast<int8_t>(9 - s.to.file),
                               static_cast<int8_t>(7 - s.to.rank)}));
    EXPECT_EQ(r.travel, Reverse(s.travel));
  }
  EXPECT_EQ(Squares(red.hit), "");
}

// ---------------------------------------------------------------------------
// Section 5: the Eye of Horus.

// Section 5, seed 001 (expansion pack: "Half of the beam ... reflects, and
// the other half passes through"), 000 ("it will be split into two laser
// beams ... Each laser split has the chance of destroying a piece"): the
// reflected and the straight beam are children of the first, each may hit a
// piece, and the Eye stays.
TEST(Eye, SplitsIntoReflectedAndStraightBeams) {
  const Position pos =
      Board2("X j1 N; x a8 S; K e1; k f8; E j4 \\; p c4 SW; A j7 N");
  const BeamTrace trace = TraceLaser(pos, kSilver);
  ASSERT_EQ(trace.beams.size(), 3u);
  EXPECT_EQ(trace.beams[0].parent, -1);
  EXPECT_EQ(trace.beams[0].end, BeamEnd::kSplit);
  EXPECT_EQ(trace.beams[0].end_square, Sq("j4"));
  // Reflected: west along rank 4 into the back of c4.
  EXPECT_EQ(trace.beams[1].parent, 0);
  EXPECT_EQ(trace.beams[1].end, BeamEnd::kHit);
  EXPECT_EQ(trace.beams[1].end_square, Sq("c4"));
  // Straight on: north into the back of Silver's own Anubis on j7.
  EXPECT_EQ(trace.beams[2].parent, 0);
  EXPECT_EQ(trace.beams[2].end, BeamEnd::kHit);
  EXPECT_EQ(trace.beams[2].end_square, Sq("j7"));
  EXPECT_EQ(Squares(trace.hit), "c4 j7");
  MoveEffects effects;
  const Position next = After(pos, Step("e1", "e2"), &effects);
  EXPECT_EQ(RemovalsText(effects), "c4:pSW>. j7:AN>.");
  EXPECT_EQ(next.at(Sq("j4")), Eye(kSilver, kBackslash));
}

// Section 5 ("Beams can be split again by the other Eye"), seed 001 ("With
// both game pieces in play, the beam can be split twice, blasting three
// lasers around the field"), 000 ("split multiple times"): two Eyes make
// three beam ends, each destroying a piece.
TEST(Eye, SecondEyeSplitsAgain) {
  const Position pos = Board2(
      "X j1 N; x a8 S; K b2; k h8; E j3 \\; e e3 /; p e1 SW; p c3 SW; "
      "A j7 N");
  const BeamTrace trace = TraceLaser(pos, kSilver);
  ASSERT_EQ(trace.beams.size(), 5u);
  const int parents[] = {-1, 0, 0, 1, 1};
  const BeamEnd ends[] = {BeamEnd::kSplit, BeamEnd::kSplit, BeamEnd::kHit,
                          BeamEnd::kHit, BeamEnd::kHit};
  const char* const end_squares[] = {"j3", "e3", "j7", "e1", "c3"};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(trace.beams[i].parent, parents[i]) << i;
    EXPECT_EQ(trace.beams[i].end, ends[i]) << i;
    EXPECT_EQ(trace.beams[i].end_square, Sq(end_squares[i])) << i;
  }
  EXPECT_EQ(Squares(trace.hit), "e1 c3 j7");
  MoveEffects effects;
  After(pos, Step("b2", "b3"), &effects);
  EXPECT_EQ(effects.removals.size(), 3u);
}

// Section 5 ("can loop ... trace with a visited set of (square, travel
// direction), at most 320 states, so tracing always ends"): a beam split at
// e4 runs round four mirrors back into the Eye from both sides; the trace
// ends, the repeated state is cut as kLooped, and the shot can be played.
TEST(Eye, LoopsTerminate) {
  const Position pos = Board2(
      "X j1 N; x a8 S; K h1; k f8; P j4 SW; E e4 /; P e2 NW; P c2 NE; "
      "P c4 SE");
  const BeamTrace trace = TraceLaser(pos, kSilver);
  ASSERT_EQ(trace.beams.size(), 7u);
  const int parents[] = {-1, 0, 0, 1, 1, 2, 2};
  const BeamEnd ends[] = {BeamEnd::kSplit,    BeamEnd::kSplit,
                          BeamEnd::kSplit,    BeamEnd::kLeftBoard,
                          BeamEnd::kAbsorbed, BeamEnd::kLooped,
                          BeamEnd::kLeftBoard};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(trace.beams[i].parent, parents[i]) << i;
    EXPECT_EQ(trace.beams[i].end, ends[i]) << i;
  }
  EXPECT_EQ(trace.beams[5].end_square, Sq("j4"));
  EXPECT_EQ(Squares(trace.hit), "");
  EXPECT_EQ(Squares(LaserHits(pos, kSilver)), "");
  MoveEffects effects;
  After(pos, Step("h1", "h2"), &effects);
  EXPECT_EQ(RemovalsText(effects), "");

  // Random boards crowded with mirrors and both Eyes: every trace ends within
  // the 320-state bound and agrees with LaserHits.
  std::mt19937 rng(7);
  for (int n = 0; n < 300; ++n) {
    Position crowded = Board2("X j1 N; x a8 S; K b2; k h7");
    crowded.Set(Sq("j1"), Sphinx(kSilver, rng() % 2 ? kN : kW));
    crowded.Set(Sq("a8"), Sphinx(kRed, rng() % 2 ? kS : kE));
    for (int i = 0; i < 2; ++i) {
      Square s;
      do {
        s = static_cast<Square>(rng() % kSquares);
      } while (!crowded.at(s).empty());
      crowded.Set(
          s, Eye(i == 0 ? kSilver : kRed, static_cast<Diagonal>(rng() % 2)));
    }
    for (int i = 0; i < 30; ++i) {
      const Square s = static_cast<Square>(rng() % kSquares);
      if (!crowded.at(s).empty()) continue;
      crowded.Set(
          s, rng() % 3 == 0
                 ? Scarab(kRed, static_cast<Diagonal>(rng() % 2))
                 : Pyramid(kSilver, static_cast<PyramidFacing>(rng() % 4)));
    }
    for (Color shooter : {kSilver, kRed}) {
      const BeamTrace t = TraceLaser(crowded, shooter);
      EXPECT_LE(t.beams.size(), 2u * 320 + 1);
      EXPECT_EQ(Squares(t.hit), Squares(LaserHits(crowded, shooter)));
    }
  }
}

// Section 5 ("A piece hit by one beam still reflects another beam that meets
// its mirror"; "All beams of one shot are traced on the unchanged board"):
// e3's NW Pyramid is hit on its back by the beam coming west along rank 3 and
// also turns the beam coming south down the e-file west onto c3.
TEST(Eye, PieceHitByOneBeamStillReflectsAnother) {
  const Position pos = Board2(
      "X j1 N; x a8 S; K b2; k h8; E j3 \\; P j6 SW; p e6 SE; p e3 NW; "
      "p c3 SW");
  const BeamTrace trace = TraceLaser(pos, kSilver);
  EXPECT_EQ(Squares(trace.hit), "c3 e3");
  bool reflected_at_e3 = false;
  for (size_t i = 0; i + 1 < trace.segments.size(); ++i) {
    if (trace.segments[i].to == Pt("e3") &&
        trace.segments[i + 1].beam == trace.segments[i].beam &&
        trace.segments[i + 1].from == Pt("e3")) {
      reflected_at_e3 = true;
      EXPECT_EQ(trace.segments[i].travel, kS);
      EXPECT_EQ(trace.segments[i + 1].travel, kW);
    }
  }
  EXPECT_TRUE(reflected_at_e3);
  MoveEffects effects;
  After(pos, Step("b2", "b3"), &effects);
  EXPECT_EQ(RemovalsText(effects), "c3:pSW>. e3:pNW>.");
}

// Section 5 ("every hit piece is removed at once (a piece hit by several
// beams is removed once; a stack loses one obelisk per shot)"): both halves
// of a split beam strike the same piece.
TEST(Eye, PieceHitByTwoBeamsIsRemovedOnce) {
  // Beam 1 west along rank 3 into e3; beam 2 up the j-file, west at j6,
  // south at e6, down into e3.
  const char* const kLayout = "K b2; k h8; E j3 \\; P j6 SW; p e6 SE; ";
  MoveEffects effects;
  const Position pyramid = Board1(std::string(kLayout) + "p e3 SW");
  const BeamTrace trace = TraceLaser(pyramid, kSilver);
  int beams_ending_on_e3 = 0;
  for (const Beam& b : trace.beams) {
    beams_ending_on_e3 += b.end == BeamEnd::kHit && b.end_square == Sq("e3");
  }
  EXPECT_EQ(beams_ending_on_e3, 2);
  After(pyramid, Step("b2", "b3"), &effects);
  EXPECT_EQ(RemovalsText(effects), "e3:pSW>.");
  const Position stack = Board1(std::string(kLayout) + "o e3 2");
  const Position next = After(stack, Step("b2", "b3"), &effects);
  EXPECT_EQ(RemovalsText(effects), "e3:o2>o1");
  EXPECT_EQ(next.at(Sq("e3")), Obelisk(kRed, 1));
}

// Section 5 ("Both Pharaohs hit in the same shot: the mover loses"), seed 000
// ("you still lose because you killed yourself"), for either mover; the rule
// option both_pharaohs_hit_draws makes it a draw.
TEST(Eye, BothPharaohsHitMoverLosesByDefaultOrDrawsWithTheOption) {
  // Silver's beam splits on j4: west into Red's Pharaoh on c4, north into
  // Silver's own on j7. Silver's move itself is a harmless turn on b3.
  const Position silver =
      Board2("X j1 N; x a8 S; E j4 \\; K j7; k c4; P b3 NE; p f8 SW");
  ASSERT_TRUE(silver.Validate().ok()) << silver.Validate();
  const Position red = Mirrored(silver);
  ASSERT_TRUE(red.Validate().ok()) << red.Validate();
  struct Case {
    const Position* pos;
    Move move;
    Outcome mover_loses;
  };
  const Case cases[] = {
      {&silver, Cw("b3"), Outcome::kRedWins},
      {&red, Move::Rotate(MirrorSq(Sq("b3")), true), Outcome::kSilverWins},
  };
  for (const Case& c : cases) {
    for (bool draws : {false, true}) {
      RuleOptions options;
      options.both_pharaohs_hit_draws = draws;
      Game game(*c.pos, options);
      const absl::StatusOr<MoveEffects> effects = game.Play(c.move);
      ASSERT_TRUE(effects.ok()) << effects.status();
      EXPECT_EQ(effects->pharaohs_hit, 3);
      EXPECT_TRUE(PharaohWasHit(effects->pharaohs_hit, kSilver));
      EXPECT_TRUE(PharaohWasHit(effects->pharaohs_hit, kRed));
      EXPECT_EQ(game.result(),
                (GameResult{draws ? Outcome::kDraw : c.mover_loses,
                            ResultReason::kBothPharaohsHit}));
      EXPECT_TRUE(game.over());
    }
  }
}

// Section 5 ("The expansion is named on setups with a `b` suffix, as in the
// Second Life board's 'Classic 2b'"), 000 ("choose a setup that ends in
// 'b'"): the Eye setups are flagged, named with "b" (or Osiris, Isis), and
// only they hold Eyes, one per side.
TEST(Eye, SetupsWithEyesCarryTheBSuffix) {
  const absl::StatusOr<SetupInfo> classic = FindSetup("classic-2b");
  ASSERT_TRUE(classic.ok()) << classic.status();
  EXPECT_EQ(classic->name, "Classic 2b");
  EXPECT_TRUE(classic->beam_splitter);
  for (const SetupInfo& info : AllSetups()) {
    SCOPED_TRACE(std::string(info.id));
    const Position pos = *SetupPosition(info.id);
    int eyes[2] = {0, 0};
    for (Square s = 0; s < kSquares; ++s) {
      if (pos.at(s).type() == PieceType::kEye) {
        ++eyes[static_cast<int>(pos.at(s).color())];
      }
    }
    EXPECT_EQ(eyes[0], info.beam_splitter ? 1 : 0);
    EXPECT_EQ(eyes[1], info.beam_splitter ? 1 : 0);
    const bool named_b =
        info.name.back() == 'b' || info.id == "osiris" || info.id == "isis";
    EXPECT_EQ(named_b, info.beam_splitter);
  }
  EXPECT_EQ(FindSetup("classic-3").status().code(),
            absl::StatusCode::kNotFound);
}

// ---------------------------------------------------------------------------
// Section 6: end of the game.

// Every way to finish leaves a game that refuses moves, resignations, draw
// offers and claims with FAILED_PRECONDITION and changes nothing.
void ExpectOverAndFrozen(Game& game, Move some_move) {
  ASSERT_TRUE(game.over());
  const GameResult result = game.result();
  const Position position = game.position();
  const int ply = game.ply();
  EXPECT_EQ(game.Play(some_move).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(game.Resign(kSilver).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(game.Resign(kRed).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(game.AgreeDraw().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(game.ClaimRepetitionDraw(position.side_to_move()).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(game.result(), result);
  EXPECT_EQ(game.position(), position);
  EXPECT_EQ(game.ply(), ply);
}

// Section 6 ("A Pharaoh hit ends the game at once; its owner loses"), seed
// 001/002 rule 12, 003 rule 12, 004 rule 10, 000: the mover hits the other
// side's Pharaoh and wins; the game is over.
TEST(GameEnd, OpponentsPharaohHitWins) {
  const Position pos = Board2("X j1 N; x a8 S; K e2; k d1; P b5 NE");
  ASSERT_TRUE(pos.Validate().ok()) << pos.Validate();
  Game game(pos);
  const absl::StatusOr<MoveEffects> effects = game.Play(Acw("j1"));
  ASSERT_TRUE(effects.ok()) << effects.status();
  EXPECT_EQ(effects->pharaohs_hit, 2);
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kSilverWins, ResultReason::kPharaohHit}));
  EXPECT_EQ(game.position().PharaohSquare(kRed), -1);
  ExpectOverAndFrozen(game, Step("e2", "e3"));
  // The same from Red's side.
  Game red(Mirrored(pos));
  ASSERT_TRUE(red.Play(Acw("a8")).ok());
  EXPECT_EQ(red.result(),
            (GameResult{Outcome::kRedWins, ResultReason::kPharaohHit}));
  // Khet 1.0 (seed 004 rule 9 and 10): Silver turns its Pyramid on j3 so the
  // fixed laser is sent west along rank 3 into Red's Pharaoh.
  const Position one = Board1("K b2; k c3; P j3 NW; p h8 SE");
  ASSERT_TRUE(one.Validate().ok()) << one.Validate();
  Game khet1(one);
  ASSERT_TRUE(khet1.Play(Acw("j3")).ok());
  EXPECT_EQ(khet1.result(),
            (GameResult{Outcome::kSilverWins, ResultReason::kPharaohHit}));
  ExpectOverAndFrozen(khet1, Step("h8", "h7"));
}

// Seed 001/002 rule 12 ("A player who illuminates his or her own Pharaoh is
// out of luck"), 004 rule 10, 000, section 4 ("A hit piece is removed even if
// it belongs to the mover"): hitting one's own Pharaoh loses.
TEST(GameEnd, OwnPharaohHitLoses) {
  const Position pos = Board2("X j1 N; x a8 S; K c1; k f8");
  Game game(pos);
  ASSERT_TRUE(game.Play(Acw("j1")).ok());
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kRedWins, ResultReason::kPharaohHit}));
  ExpectOverAndFrozen(game, Step("f8", "f7"));
  Game red(Mirrored(pos));
  ASSERT_TRUE(red.Play(Acw("a8")).ok());
  EXPECT_EQ(red.result(),
            (GameResult{Outcome::kSilverWins, ResultReason::kPharaohHit}));
}

// A quiet board: both lasers run off the board along their home files and
// the Pharaohs step back and forth out of their way.
Position Quiet(Edition edition = Edition::kKhet2) {
  return Board(edition, edition == Edition::kKhet2
                            ? "X j1 N; x a8 S; K e1; k f8"
                            : "K e1; k f8");
}
const Move kCycle[] = {Step("e1", "e2"), Step("f8", "f7"), Step("e2", "e1"),
                       Step("f7", "f8")};

// Two rounds of kCycle bring the start back a second and a third time.
void ExpectThirdRepetitionClaimable(Edition edition) {
  Game game(Quiet(edition));
  EXPECT_EQ(game.RepetitionCount(), 1);
  for (Move m : kCycle) ASSERT_TRUE(game.Play(m).ok());
  EXPECT_EQ(game.RepetitionCount(), 2);
  const absl::Status early = game.ClaimRepetitionDraw(kSilver);
  EXPECT_EQ(early.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string(early.message()).find("2 times"), std::string::npos)
      << early;
  for (Move m : kCycle) ASSERT_TRUE(game.Play(m).ok());
  EXPECT_EQ(game.RepetitionCount(), 3);
  EXPECT_FALSE(game.over());  // the default: a claim, not automatic
  EXPECT_EQ(game.ClaimRepetitionDraw(kRed).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(game.over());
  ASSERT_TRUE(game.ClaimRepetitionDraw(kSilver).ok());
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kDraw, ResultReason::kRepetitionClaimed}));
  ExpectOverAndFrozen(game, kCycle[0]);
}

// Section 6 ("when the same position ... occurs for the third time, the
// player to move may claim a draw"), seed 001/002 rule 13, 004 rule 11: only
// the player to move, only from the third occurrence; by default the game
// goes on otherwise.
TEST(GameEnd, ThirdRepetitionLetsThePlayerToMoveClaimADraw) {
  for (Edition edition : {Edition::kKhet2, Edition::kKhet1}) {
    SCOPED_TRACE(edition == Edition::kKhet2 ? "Khet 2.0" : "Khet 1.0");
    ExpectThirdRepetitionClaimable(edition);
  }
}

// Section 6 ("same pieces, colours, squares, orientations, and the same side
// to move"): the start's board with Red to move is a different position.
TEST(GameEnd, RepetitionNeedsTheSameSideToMove) {
  Game game(Quiet());
  // Silver walks a triangle e1-e2-d1-e1 while Red goes f8-f7-f8.
  for (Move m : {Step("e1", "e2"), Step("f8", "f7"), Step("e2", "d1"),
                 Step("f7", "f8"), Step("d1", "e1")}) {
    ASSERT_TRUE(game.Play(m).ok());
  }
  EXPECT_TRUE(SameBoard(game.position(), game.start()));
  EXPECT_EQ(game.position().side_to_move(), kRed);
  EXPECT_EQ(game.RepetitionCount(), 1);
}

// Section 2 / 3.2 (a Scarab has two states, `/` and `\`): a Scarab turned
// twice is back in the same position, which counts for repetition. (Seed
// 003's tournament note counts four directions for the Pharaoh and the
// Scarab; khet-rules.md decides otherwise and the engine follows it, unless
// the option physical_facings is set: PhysicalFacings.*)
TEST(GameEnd, ScarabTurnedTwiceRepeatsThePosition) {
  const Position pos = Board2("X j1 N; x a8 S; K b2; k h7; S e4 /; s f5 /");
  Game game(pos);
  for (Move m : {Cw("e4"), Cw("f5"), Acw("e4"), Acw("f5")}) {
    ASSERT_TRUE(game.Play(m).ok()) << MoveText(m);
  }
  EXPECT_EQ(game.position(), pos);
  EXPECT_EQ(game.RepetitionCount(), 2);
}

// Seed 003 tournament rule ("automatic draw in the '3D situation'"), section
// 6 option automatic_repetition_draw: the third occurrence draws at once.
TEST(GameEnd, AutomaticDrawOnTheThirdRepetition) {
  RuleOptions options;
  options.automatic_repetition_draw = true;
  Game game(Quiet(), options);
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(game.Play(kCycle[i % 4]).ok());
    EXPECT_FALSE(game.over()) << "ply " << game.ply();
  }
  ASSERT_TRUE(game.Play(kCycle[3]).ok());
  EXPECT_EQ(game.RepetitionCount(), 3);
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kDraw, ResultReason::kRepetition}));
  ExpectOverAndFrozen(game, kCycle[0]);
}

// Seed 003 tournament rule ("a draw if the game has not ended by the basic
// rules after the 222nd move"), section 6 option ply_limit (222 as the
// tournament uses it): ongoing after 221 plies, drawn at 222.
TEST(GameEnd, PlyLimitDrawsAfter222Plies) {
  RuleOptions options;
  options.ply_limit = 222;
  Game game(Quiet(), options);
  for (int i = 0; i < 221; ++i) {
    ASSERT_TRUE(game.Play(kCycle[i % 4]).ok()) << i;
  }
  EXPECT_FALSE(game.over());
  EXPECT_EQ(game.ply(), 221);
  ASSERT_TRUE(game.Play(kCycle[221 % 4]).ok());
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kDraw, ResultReason::kPlyLimit}));
  ExpectOverAndFrozen(game, kCycle[222 % 4]);
}

// Seed 003 tournament rule ("not ended by the basic rules"): a Pharaoh hit on
// the last ply is a win, not a draw by the ply limit.
TEST(GameEnd, PharaohHitOnTheLastPlyIsNotADraw) {
  RuleOptions options;
  options.ply_limit = 4;
  Game game(Board2("X j1 N; x a8 S; K d8; k g3"), options);
  for (Move m : {Step("d8", "d7"), Step("g3", "g2"), Step("d7", "d8")}) {
    ASSERT_TRUE(game.Play(m).ok());
  }
  EXPECT_FALSE(game.over());
  ASSERT_TRUE(game.Play(Acw("a8")).ok());  // Red fires east along rank 8
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kRedWins, ResultReason::kPharaohHit}));
}

// Section 6 ("a service also offers resignation"): the resigning player
// loses.
TEST(GameEnd, Resignation) {
  for (Color loser : {kSilver, kRed}) {
    Game game(Quiet());
    ASSERT_TRUE(game.Play(kCycle[0]).ok());
    ASSERT_TRUE(game.Resign(loser).ok());
    EXPECT_EQ(
        game.result(),
        (GameResult{loser == kSilver ? Outcome::kRedWins : Outcome::kSilverWins,
                    ResultReason::kResignation}));
    ExpectOverAndFrozen(game, kCycle[1]);
  }
}

// Section 6 ("a draw offered by one player and accepted by the other").
TEST(GameEnd, AgreedDraw) {
  Game game(Quiet());
  ASSERT_TRUE(game.AgreeDraw().ok());
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kDraw, ResultReason::kAgreedDraw}));
  ExpectOverAndFrozen(game, kCycle[0]);
}

// Section 6: an illegal move in a game is refused with INVALID_ARGUMENT and
// changes nothing (the game stays on).
TEST(GameEnd, IllegalMovesInAGameChangeNothing) {
  Game game(Quiet());
  const absl::StatusOr<MoveEffects> bad = game.Play(Step("e1", "e3"));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(game.ply(), 0);
  EXPECT_EQ(game.position(), Quiet());
  EXPECT_FALSE(game.over());
}

// ---------------------------------------------------------------------------
// Section 7: starting setups.

// A setup as khet-rules.md lists it, in the Board() notation, with the given
// Scarab squares holding Eyes and, for Khet 1.0, each Anubis a stack of two
// Obelisks, no Sphinx.
Position RulesSetup(const std::string& silver, const std::string& red,
                    Edition edition,
                    std::initializer_list<const char*> eyes = {}) {
  Position pos = Board2(silver + "; " + red);
  for (const char* e : eyes) {
    const Piece p = pos.at(Sq(e));
    EXPECT_EQ(p.type(), PieceType::kScarab) << e;
    pos.Set(Sq(e), Eye(p.color(), static_cast<Diagonal>(p.orientation())));
  }
  if (edition == Edition::kKhet1) {
    pos.set_edition(Edition::kKhet1);
    for (Square s = 0; s < kSquares; ++s) {
      const Piece p = pos.at(s);
      if (p.type() == PieceType::kSphinx) pos.Set(s, Piece());
      if (p.type() == PieceType::kAnubis) pos.Set(s, Obelisk(p.color(), 2));
    }
  }
  return pos;
}

const char* const kClassicSilver =
    "X j1 N; K e1; A d1 N; A f1 N; S e4 /; S f4 \\; P c1 NW; P h2 NE; "
    "P c4 NW; P j4 SW; P c5 SW; P j5 NW; P d6 NW";
const char* const kClassicRed =
    "x a8 S; k f8; a e8 S; a g8 S; s e5 \\; s f5 /; p g3 SE; p a4 SE; "
    "p h4 NE; p a5 NE; p h5 SE; p c7 SW; p h8 SE";
const char* const kImhotepSilver =
    "X j1 N; K e1; A d1 N; A f1 N; S c1 /; S e4 /; P d3 SW; P b4 NW; "
    "P j4 SW; P b5 SW; P e5 SE; P j5 NW; P d6 NW";
const char* const kImhotepRed =
    "x a8 S; k f8; a e8 S; a g8 S; s f5 /; s h8 /; p g3 SE; p a4 SE; "
    "p f4 NW; p i4 NE; p a5 NE; p i5 SE; p g6 NE";
const char* const kDynastySilver =
    "X j1 N; K e2; A e1 N; A e3 N; S d3 /; S h4 \\; P d1 NW; P f1 NE; "
    "P f3 NE; P j3 SW; P j4 NW; P e5 NW; P g5 SE";
const char* const kDynastyRed =
    "x a8 S; k f7; a f6 S; a f8 S; s c5 \\; s g6 /; p d4 NW; p f4 SE; "
    "p a5 SE; p a6 NE; p e6 SW; p e8 SW; p g8 SE";

void ExpectSetup(const char* id, const Position& expected) {
  SCOPED_TRACE(id);
  const absl::StatusOr<Position> pos = SetupPosition(id);
  ASSERT_TRUE(pos.ok()) << pos.status();
  EXPECT_EQ(*pos, expected);
  EXPECT_EQ(pos->side_to_move(), kSilver);
  EXPECT_TRUE(pos->Validate().ok()) << pos->Validate();
  const absl::StatusOr<SetupInfo> info = FindSetup(id);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->edition, expected.edition());
}

// Section 7 (Classic, Imhotep, Dynasty), seed 001/002 rule 1 ("one of the
// three starting positions"), 003 rule 1 (the tournament plays Classic):
// every piece on its square with its facing.
TEST(Setups, ClassicImhotepDynastyMatchTheRules) {
  ExpectSetup("classic-2",
              RulesSetup(kClassicSilver, kClassicRed, Edition::kKhet2));
  ExpectSetup("imhotep-2",
              RulesSetup(kImhotepSilver, kImhotepRed, Edition::kKhet2));
  ExpectSetup("dynasty-2",
              RulesSetup(kDynastySilver, kDynastyRed, Edition::kKhet2));
}

// Section 7 ("Khet 1.0 versions ... each Anubis replaced by a stack of two
// Obelisks, each Scarab by a Djed with the same diagonal, and no Sphinx"),
// seed 004 rule 1, 000 ("Khet 1.0 setups feature a fixed laser and
// Obelisks"), and their "b" versions.
TEST(Setups, Khet1VersionsUseObeliskStacksDjedsAndNoSphinx) {
  ExpectSetup("classic-1",
              RulesSetup(kClassicSilver, kClassicRed, Edition::kKhet1));
  ExpectSetup("imhotep-1",
              RulesSetup(kImhotepSilver, kImhotepRed, Edition::kKhet1));
  ExpectSetup("dynasty-1",
              RulesSetup(kDynastySilver, kDynastyRed, Edition::kKhet1));
  ExpectSetup("classic-1b", RulesSetup(kClassicSilver, kClassicRed,
                                       Edition::kKhet1, {"e4", "f5"}));
  ExpectSetup("imhotep-1b", RulesSetup(kImhotepSilver, kImhotepRed,
                                       Edition::kKhet1, {"e4", "f5"}));
  ExpectSetup("dynasty-1b", RulesSetup(kDynastySilver, kDynastyRed,
                                       Edition::kKhet1, {"h4", "c5"}));
  const Position pos = *SetupPosition("classic-1");
  EXPECT_TRUE(pos.at(Sq("j1")).empty());
  EXPECT_TRUE(pos.at(Sq("a8")).empty());
}

// Section 7 (Classic b, Imhotep b, Dynasty b: the named Scarabs become Eyes
// with the same diagonals), seed 002 rule 1 (imhotep^2, dynasty^2).
TEST(Setups, EyeVersionsReplaceTheNamedScarabs) {
  ExpectSetup("classic-2b", RulesSetup(kClassicSilver, kClassicRed,
                                       Edition::kKhet2, {"e4", "f5"}));
  ExpectSetup("imhotep-2b", RulesSetup(kImhotepSilver, kImhotepRed,
                                       Edition::kKhet2, {"e4", "f5"}));
  ExpectSetup("dynasty-2b", RulesSetup(kDynastySilver, kDynastyRed,
                                       Edition::kKhet2, {"h4", "c5"}));
}

// Section 7 (Osiris, Isis), seed 002 rule 1 ("If using Eye of Horus set up
// ... osiris, isis").
TEST(Setups, OsirisAndIsisMatchTheRules) {
  ExpectSetup(
      "osiris",
      RulesSetup("X j1 N; K d1; A d2 N; A h2 N; S e4 \\; S b8 /; E f4 /; "
                 "P b1 NW; P e1 NE; P c2 NW; P j4 SW; P j5 NW; P g6 NW; "
                 "P j8 SW",
                 "x a8 S; k g8; a c7 S; a g7 S; s i1 /; s f5 \\; e e5 /; "
                 "p a1 NE; p d3 SE; p a4 SE; p a5 NE; p h7 SE; p f8 SW; "
                 "p i8 SE",
                 Edition::kKhet2));
  ExpectSetup(
      "isis",
      RulesSetup("X j1 N; K c1; A d1 N; A c2 N; S h2 \\; S b6 \\; E f5 /; "
                 "P b1 NW; P d2 NE; P j2 SW; P b4 NE; P h4 SW; P j4 SW; "
                 "P e5 NW",
                 "x a8 S; k h8; a g8 S; a h7 S; s i3 \\; s c7 \\; e e4 /; "
                 "p f4 SE; p a5 NE; p c5 NE; p i5 SW; p a7 NE; p g7 SW; "
                 "p i8 SE",
                 Edition::kKhet2));
}

// Section 4 ("Every starting setup is point symmetric: (file f, rank r) maps
// to (file j-f, rank 9-r) with colours swapped and turned 180 degrees"): the
// board and both lasers' hits, for every setup.
TEST(Setups, EverySetupIsPointSymmetric) {
  EXPECT_EQ(AllSetups().size(), 14u);
  for (const SetupInfo& info : AllSetups()) {
    SCOPED_TRACE(std::string(info.id));
    const Position pos = *SetupPosition(info.id);
    EXPECT_TRUE(SameBoard(Mirrored(pos), pos));
    Bitboard mirrored_red_hits = 0;
    const Bitboard red_hits = LaserHits(pos, kRed);
    for (Square s = 0; s < kSquares; ++s) {
      if (Contains(red_hits, s)) mirrored_red_hits |= SquareBit(MirrorSq(s));
    }
    EXPECT_EQ(Squares(LaserHits(pos, kSilver)), Squares(mirrored_red_hits));
  }
}

// Section 7 ("the engine loads any position ... checking it (each side one
// Pharaoh, at most one Sphinx on its corner, pieces only on squares their
// colour may enter, at most two obelisks in a stack), and rejects a bad one
// with a message that names the square and the reason"), seed 001/002 rule 1
// ("invent your own starting configurations").
TEST(Setups, CustomPositionsAreValidatedNamingTheSquare) {
  const Position good = Board2("X j1 W; x a8 E; K c3; k h6; P e4 SW; a b7 E");
  EXPECT_TRUE(good.Validate().ok()) << good.Validate();
  EXPECT_TRUE(Board1("K c3; k h6; O j4 2; o a3 1; S e4 /").Validate().ok());
  struct Case {
    Position pos;
    const char* square;
    const char* why;
  };
  const Case cases[] = {
      {Board2("X j1 N; x a8 S; K c3; k h6; p j3 NE"), "j3", "reserved"},
      {Board2("X j1 N; x a8 S; K c3; k h6; P a5 NE"), "a5", "reserved"},
      {Board2("X j1 N; x a8 S; K c3; k h6; s b8 /"), "b8", "reserved"},
      {Board2("X j1 N; x a8 S; K c3; k h6; P i1 NE"), "i1", "reserved"},
      {Board2("X j1 N; x a8 S; K c3; k h6; K e4"), "e4", "second Pharaoh"},
      {Board2("X j1 N; x a8 S; K c3; k h6; X e4 N"), "e4", "Sphinx"},
      {Board2("X j1 E; x a8 S; K c3; k h6"), "j1", "north or west"},
      {Board2("X j1 N; x a8 W; K c3; k h6"), "a8", "south or east"},
      {Board2("X j1 N; x a8 S; K c3; k h6; O e4 2"), "e4", "Obelisk"},
      {Board1("K c3; k h6; A e4 N"), "e4", "Anubis"},
      {Board1("X j1 N; K c3; k h6"), "j1", "Sphinx"},
      {Board2("x a8 S; K c3; k h6"), "j1", "Sphinx"},
  };
  for (const Case& c : cases) {
    const absl::Status status = c.pos.Validate();
    SCOPED_TRACE(std::string(c.square) + " " + c.why);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    const std::string message(status.message());
    EXPECT_NE(message.find(c.square), std::string::npos) << message;
    EXPECT_NE(message.find(c.why), std::string::npos) << message;
  }
  const absl::Status no_pharaoh = Board2("X j1 N; x a8 S; K c3").Validate();
  EXPECT_EQ(no_pharaoh.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(no_pharaoh.message()).find("Red"), std::string::npos);
}

// ---------------------------------------------------------------------------
// Section 3 as a whole: CheckMove, GenerateMoves, MakeMove and ApplyMove
// agree everywhere.

// For one position: every (from, to, kind) with `from` one of the mover's
// pieces and `to` a neighbour or `from` itself is accepted by CheckMove
// exactly when GenerateMoves lists it (a Scarab/Eye anticlockwise turn
// normalised to clockwise); refusals are INVALID_ARGUMENT naming `from`; the
// lists have no duplicates and the per-square lists partition the whole;
// every listed move gives the same position through MakeMove (both forms)
// and ApplyMove, passes the turn, changes the board (no passing) and never
// lands on a square reserved for the other colour or on a Sphinx's square.
void CheckEveryMove(const Position& pos) {
  MoveList list;
  GenerateMoves(pos, &list);
  const std::set<uint16_t> listed = MoveSet(list);
  ASSERT_EQ(listed.size(), static_cast<size_t>(list.size)) << "duplicates";
  ASSERT_EQ(CountMoves(pos), list.size);
  const Color side = pos.side_to_move();
  std::set<uint16_t> accepted;
  int per_square = 0;
  for (Bitboard own = pos.occupied(side); own != 0;) {
    const Square from = PopLowest(own);
    MoveList from_list;
    GenerateMovesFrom(pos, from, &from_list);
    per_square += from_list.size;
    for (Move m : from_list) {
      ASSERT_EQ(m.from(), from);
      ASSERT_TRUE(listed.count(m.bits())) << MoveText(m);
    }
    for (Bitboard tos = Neighbours(from) | SquareBit(from); tos != 0;) {
      const Square to = PopLowest(tos);
      for (MoveKind kind :
           {MoveKind::kMove, MoveKind::kMoveTop, MoveKind::kRotateClockwise,
            MoveKind::kRotateAnticlockwise}) {
        const Move m(from, to, kind);
        const Move normal = Listed(pos, m);
        const absl::StatusOr<Move> checked = CheckMove(pos, m);
        const bool expected = listed.count(normal.bits()) > 0;
        ASSERT_EQ(checked.ok(), expected)
            << MoveText(m) << ": "
            << (checked.ok() ? std::string("accepted")
                             : std::string(checked.status().message()))
            << ::testing::PrintToString(pos);
        if (checked.ok()) {
          ASSERT_EQ(*checked, normal) << MoveText(m);
          accepted.insert(normal.bits());
        } else if (!m.is_null()) {
          ASSERT_EQ(checked.status().code(),
                    absl::StatusCode::kInvalidArgument);
          ASSERT_NE(
              std::string(checked.status().message()).find(SquareText(from)),
              std::string::npos)
              << checked.status();
        }
      }
    }
  }
  ASSERT_EQ(per_square, list.size);
  ASSERT_EQ(accepted, listed) << "a listed move is not one step or a turn";
  // Nothing of the other side's, nothing from an empty square.
  for (Square s = 0; s < kSquares; ++s) {
    if (pos.at(s).empty() || pos.at(s).color() != side) {
      MoveList none;
      GenerateMovesFrom(pos, s, &none);
      ASSERT_EQ(none.size, 0) << SquareText(s);
      if (s != 0) {
        ASSERT_FALSE(CheckMove(pos, Move::Rotate(s, true)).ok());
      }
    }
  }
  const BeamPath beam = TraceBeamPath(pos, side);
  Position flipped = pos;
  flipped.FlipSideToMove();
  for (Move m : list) {
    Position made = pos, fast = pos, applied = pos;
    const PharaohsHit h1 = MakeMove(&made, m);
    const PharaohsHit h2 = MakeMove(&fast, m, beam);
    const absl::StatusOr<MoveEffects> effects = ApplyMove(&applied, m);
    ASSERT_TRUE(effects.ok()) << MoveText(m) << ": " << effects.status();
    ASSERT_EQ(effects->move, m);
    ASSERT_EQ(made, applied) << MoveText(m);
    ASSERT_EQ(fast, applied) << MoveText(m);
    ASSERT_EQ(made.hash(), applied.hash());
    ASSERT_EQ(applied.hash(), applied.ComputeHash());
    ASSERT_EQ(h1, effects->pharaohs_hit);
    ASSERT_EQ(h2, effects->pharaohs_hit);
    ASSERT_EQ(applied.side_to_move(), Opponent(side));
    ASSERT_FALSE(applied == flipped)
        << "a move changed nothing: " << MoveText(m);
    if (!m.is_rotation()) {
      ASSERT_FALSE(ReservedAgainst(side, m.to())) << MoveText(m);
      ASSERT_FALSE(pos.edition() == Edition::kKhet2 &&
                   (m.to() == Sq("j1") || m.to() == Sq("a8")))
          << MoveText(m);
    }
    const PieceType t = pos.at(m.from()).type();
    if (m.is_rotation() && (t == PieceType::kScarab || t == PieceType::kEye)) {
      // Two states: the other turn is the same move; four facings: not.
      Position other = pos;
      ASSERT_TRUE(ApplyMove(&other, Move::Rotate(m.from(), false)).ok());
      if (pos.physical_facings()) {
        ASSERT_TRUE(m.kind() == MoveKind::kRotateAnticlockwise ||
                    !(other == applied));
      } else {
        ASSERT_EQ(other, applied);
      }
    }
  }
}

// Sections 1-3 together: random legal-move sequences from every setup, a
// seeded std::mt19937, CheckEveryMove at every position.
TEST(Consistency, CheckMoveAcceptsExactlyTheGeneratedMoves) {
  std::mt19937 rng(1234567);
  int positions = 0;
  for (const SetupInfo& info : AllSetups()) {
    SCOPED_TRACE(std::string(info.id));
    const absl::StatusOr<Position> start = SetupPosition(info.id);
    ASSERT_TRUE(start.ok()) << start.status();
    for (int game = 0; game < 4; ++game) {
      Position pos = *start;
      for (int ply = 0; ply < 60; ++ply) {
        SCOPED_TRACE("game " + std::to_string(game) + " ply " +
                     std::to_string(ply));
        CheckEveryMove(pos);
        if (::testing::Test::HasFatalFailure()) return;
        ++positions;
        MoveList list;
        GenerateMoves(pos, &list);
        if (list.size == 0) break;
        std::uniform_int_distribution<int> pick(0, list.size - 1);
        if (MakeMove(&pos, list.moves[pick(rng)]) != 0) break;
      }
    }
  }
  EXPECT_GT(positions, 14 * 20);
}

// ---------------------------------------------------------------------------
// Physical facings: seed 003's "3D" rule counts four directions for the
// Pharaoh and the Scarab, and its rule 4 makes a quarter turn of any piece a
// move. The option RuleOptions::physical_facings (Position::
// physical_facings()); khet-rules.md sections 2, 3.2 and 6 otherwise hold.

Position Physical(Position pos) {
  pos.SetPhysicalFacings(true);
  return pos;
}

// A Silver Pharaoh facing d, for positions with physical facings.
Piece PharaohFacing(Color c, Direction d) {
  return Piece(c, PieceType::kPharaoh, static_cast<int>(d));
}

// The trace as comparable data: beams, segments and hits.
std::string TraceText(const BeamTrace& t) {
  std::string text;
  for (const BeamSegment& s : t.segments) {
    text += std::to_string(s.beam) + ":" + std::to_string(s.from.file) + "," +
            std::to_string(s.from.rank) + ">" + std::to_string(s.to.file) +
            "," + std::to_string(s.to.rank) + " ";
  }
  for (const Beam& b : t.beams) {
    text += "end " + std::to_string(static_cast<int>(b.end)) + "@" +
            std::to_string(b.end_square) + " ";
  }
  return text + "hit " + Squares(t.hit);
}

// Seed 003 rule 4: a Pharaoh turns a quarter either way, two moves, each a
// waiting move: the position's identity (equality, hash) changes, the laser
// does not. Without the option it does not turn (Rotation.PharaohAndObelisk
// DoNotRotate).
TEST(PhysicalFacings, PharaohTurnIsAMoveThatChangesIdentityButNotTheLaser) {
  const Position pos =
      Physical(Board2("X j1 N; x a8 S; K e1; k f8; P e4 NW; P h4 NE"));
  EXPECT_EQ(pos.at(Sq("e1")), PharaohFacing(kSilver, kN));
  EXPECT_EQ(pos.at(Sq("f8")), PharaohFacing(kRed, kS));
  EXPECT_EQ(MovesFrom(pos, "e1"),
            Moves({Step("e1", "d1"), Step("e1", "f1"), Step("e1", "d2"),
                   Step("e1", "e2"), Step("e1", "f2"), Cw("e1"), Acw("e1")}));
  EXPECT_TRUE(Legal(pos, Cw("e1")));
  EXPECT_TRUE(Legal(pos, Acw("e1")));
  const Position cw = After(pos, Cw("e1"));
  const Position acw = After(pos, Acw("e1"));
  EXPECT_EQ(cw.at(Sq("e1")), PharaohFacing(kSilver, kE));
  EXPECT_EQ(acw.at(Sq("e1")), PharaohFacing(kSilver, kW));
  Position waited = pos;  // the same board, Red to move
  waited.FlipSideToMove();
  for (const Position* turned : {&cw, &acw}) {
    EXPECT_FALSE(*turned == waited);
    EXPECT_NE(turned->hash(), waited.hash());
    EXPECT_EQ(turned->hash(), turned->ComputeHash());
    for (Color shooter : {kSilver, kRed}) {
      EXPECT_EQ(TraceText(TraceLaser(*turned, shooter)),
                TraceText(TraceLaser(waited, shooter)));
    }
  }
  EXPECT_FALSE(cw == acw);
}

// Section 2 ("hit on any face"): with physical facings a Pharaoh facing any
// way is hit by a beam from any side.
TEST(PhysicalFacings, PharaohIsHitWhicheverWayItFaces) {
  for (Direction facing : kDirections) {
    // Silver's beam goes north, and the Pyramid on j4 turns it west into
    // Red's Pharaoh on e4.
    Position pos = Physical(Board2("X j1 N; x a8 S; K b2; k e4; P j4 SW"));
    pos.Set(Sq("e4"), PharaohFacing(kRed, facing));
    ASSERT_TRUE(pos.Validate().ok()) << pos.Validate();
    EXPECT_EQ(Squares(LaserHits(pos, kSilver)), "e4") << DirText(facing);
  }
}

// Seed 003's four Scarab facings: a Scarab's (or Eye's) two quarter turns
// are two moves to two positions, whose optics are the same diagonal.
TEST(PhysicalFacings, ScarabAndEyeTwoTurnsAreDifferentMoves) {
  const Position pos =
      Physical(Board2("X j1 N; x a8 S; K b2; k h7; S e4 /; E f3 \\; P j4 SW"));
  EXPECT_EQ(pos.at(Sq("e4")).orientation(), kFrontNW);
  EXPECT_EQ(pos.at(Sq("f3")).orientation(), kFrontNE);
  for (const char* s : {"e4", "f3"}) {
    SCOPED_TRACE(s);
    EXPECT_TRUE(Legal(pos, Cw(s)));
    EXPECT_TRUE(Legal(pos, Acw(s)));
    const absl::StatusOr<Move> checked = CheckMove(pos, Acw(s));
    ASSERT_TRUE(checked.ok());
    EXPECT_EQ(*checked, Acw(s));  // not folded into the clockwise turn
    const Position cw = After(pos, Cw(s));
    const Position acw = After(pos, Acw(s));
    EXPECT_FALSE(cw == acw);
    EXPECT_NE(cw.hash(), acw.hash());
    // Both flip the diagonal, so both reflect the same way.
    EXPECT_NE(ScarabDiagonal(cw.at(Sq(s)).orientation()),
              ScarabDiagonal(pos.at(Sq(s)).orientation()));
    EXPECT_EQ(ScarabDiagonal(cw.at(Sq(s)).orientation()),
              ScarabDiagonal(acw.at(Sq(s)).orientation()));
    for (Color shooter : {kSilver, kRed}) {
      EXPECT_EQ(TraceText(TraceLaser(cw, shooter)),
                TraceText(TraceLaser(acw, shooter)));
    }
  }
  // e4 NW: clockwise NE, anticlockwise SW.
  EXPECT_EQ(After(pos, Cw("e4")).at(Sq("e4")).orientation(), kFrontNE);
  EXPECT_EQ(After(pos, Acw("e4")).at(Sq("e4")).orientation(), kFrontSW);
  // Silver's beam: j1 north, west at j4 to the Scarab on e4. NW ('/')
  // sends it south; after either turn ('\') north.
  EXPECT_EQ(TraceLaser(pos, kSilver).segments[2].travel, kS);
  EXPECT_EQ(TraceLaser(After(pos, Cw("e4")), kSilver).segments[2].travel, kN);
}

// Obelisks still do not turn, and the Sphinx rule is unchanged.
TEST(PhysicalFacings, ObeliskAndSphinxAreUnchanged) {
  const Position one = Physical(Board1("K b2; k h7; O e4 1; O f6 2"));
  for (const char* s : {"e4", "f6"}) {
    EXPECT_TRUE(Refused(one, Cw(s), {s, "Obelisk does not rotate"}));
    EXPECT_TRUE(Refused(one, Acw(s), {s, "Obelisk does not rotate"}));
  }
  const Position two = Physical(Board2("X j1 N; x a8 S; K b2; k h7"));
  EXPECT_EQ(MovesFrom(two, "j1"), Moves({Acw("j1")}));
  EXPECT_TRUE(Refused(two, Cw("j1"), {"j1", "Sphinx"}));
}

// Seed 003's "3D" rule: two positions are the same when every square holds
// the same piece of the same colour facing the same way, four ways for the
// Pharaoh and the Scarab. A Scarab turned twice the same way has its
// diagonal back but not its facing; turned back, the position repeats.
TEST(PhysicalFacings, RepetitionNeedsTheSameFacings) {
  RuleOptions options;
  options.physical_facings = true;
  const Position start =
      Board2("X j1 N; x a8 S; K b2; k h7; S e4 /; s f5 /; P j4 SW");
  {
    Game game(start, options);
    EXPECT_TRUE(game.start().physical_facings());
    for (Move m : {Cw("e4"), Cw("f5"), Cw("e4"), Cw("f5")}) {
      ASSERT_TRUE(game.Play(m).ok()) << MoveText(m);
    }
    // Only the facings differ from the start: not the same position.
    Position now = game.position(), then = game.start();
    now.SetPhysicalFacings(false);
    then.SetPhysicalFacings(false);
    EXPECT_EQ(now, then);
    EXPECT_FALSE(game.position() == game.start());
    EXPECT_NE(game.position().hash(), game.start().hash());
    EXPECT_EQ(game.RepetitionCount(), 1);
    for (Move m : {Acw("e4"), Acw("f5"), Acw("e4"), Acw("f5")}) {
      ASSERT_TRUE(game.Play(m).ok()) << MoveText(m);
    }
    EXPECT_EQ(game.position(), game.start());
    EXPECT_EQ(game.RepetitionCount(), 2);
  }
  {
    // Both Pharaohs turning round: back after four quarter turns each, and
    // with automatic_repetition_draw the third occurrence draws.
    RuleOptions automatic = options;
    automatic.automatic_repetition_draw = true;
    Game game(start, automatic);
    for (int ply = 0; ply < 16; ++ply) {
      const Move m = Cw(ply % 2 == 0 ? "b2" : "h7");
      ASSERT_TRUE(game.Play(m).ok()) << ply;
      // Every eighth position is the same: the start's after eight plies.
      EXPECT_EQ(game.RepetitionCount(), (ply + 1) / 8 + 1) << "ply " << ply;
    }
    EXPECT_EQ(game.result(),
              (GameResult{Outcome::kDraw, ResultReason::kRepetition}));
  }
}

// The starting facings of the option (docs/notation.md, "Physical
// facings"): each piece faces the opponent, a Scarab or Eye keeping its
// diagonal; the lasers are those of the setup; switching back restores it.
TEST(PhysicalFacings, SetupsFaceTheOpponent) {
  const absl::StatusOr<Position> classic = SetupPosition("classic-2");
  ASSERT_TRUE(classic.ok());
  const Position pos = Physical(*classic);
  EXPECT_TRUE(pos.Validate().ok()) << pos.Validate();
  EXPECT_EQ(pos.at(Sq("e1")), PharaohFacing(kSilver, kN));
  EXPECT_EQ(pos.at(Sq("f8")), PharaohFacing(kRed, kS));
  EXPECT_EQ(pos.at(Sq("e4")).orientation(), kFrontNW);  // '/'
  EXPECT_EQ(pos.at(Sq("f4")).orientation(), kFrontNE);  // '\'
  EXPECT_EQ(pos.at(Sq("e5")).orientation(), kFrontSW);  // '\'
  EXPECT_EQ(pos.at(Sq("f5")).orientation(), kFrontSE);  // '/'
  EXPECT_EQ(pos.hash(), pos.ComputeHash());
  EXPECT_FALSE(pos == *classic);
  for (Color shooter : {kSilver, kRed}) {
    EXPECT_EQ(TraceText(TraceLaser(pos, shooter)),
              TraceText(TraceLaser(*classic, shooter)));
  }
  Position back = pos;
  back.SetPhysicalFacings(false);
  EXPECT_EQ(back, *classic);
  EXPECT_EQ(back.hash(), classic->hash());
  // Game brings its start to the option's form.
  RuleOptions options;
  options.physical_facings = true;
  EXPECT_EQ(Game(*classic, options).start(), pos);
  EXPECT_EQ(Game(pos).start(), *classic);
}

// Section 7's check of custom positions: a facing other than 0 for a
// Pharaoh, or a Scarab facing beyond '/' and '\', needs the option.
TEST(PhysicalFacings, FacingsNeedTheOption) {
  Position pos = Board2("X j1 N; x a8 S; K b2; k h7; S e4 /");
  pos.Set(Sq("b2"), PharaohFacing(kSilver, kE));
  EXPECT_FALSE(pos.Validate().ok());
  pos.Set(Sq("b2"), Pharaoh(kSilver));
  pos.Set(Sq("e4"), Piece(kSilver, PieceType::kScarab, kFrontSE));
  EXPECT_FALSE(pos.Validate().ok());
  Position physical = pos;
  physical.SetPhysicalFacings(true);
  physical.Set(Sq("e4"), Piece(kSilver, PieceType::kScarab, kFrontSE));
  physical.Set(Sq("b2"), PharaohFacing(kSilver, kE));
  EXPECT_TRUE(physical.Validate().ok()) << physical.Validate();
}

// Sections 1-3 with the option: the consistency checks of
// CheckMoveAcceptsExactlyTheGeneratedMoves on random games from every setup.
TEST(PhysicalFacings, CheckMoveAcceptsExactlyTheGeneratedMoves) {
  std::mt19937 rng(7654321);
  int positions = 0;
  for (const SetupInfo& info : AllSetups()) {
    SCOPED_TRACE(std::string(info.id));
    const absl::StatusOr<Position> start = SetupPosition(info.id);
    ASSERT_TRUE(start.ok()) << start.status();
    for (int game = 0; game < 2; ++game) {
      Position pos = Physical(*start);
      for (int ply = 0; ply < 60; ++ply) {
        SCOPED_TRACE("game " + std::to_string(game) + " ply " +
                     std::to_string(ply));
        CheckEveryMove(pos);
        if (::testing::Test::HasFatalFailure()) return;
        ++positions;
        MoveList list;
        GenerateMoves(pos, &list);
        if (list.size == 0) break;
        std::uniform_int_distribution<int> pick(0, list.size - 1);
        if (MakeMove(&pos, list.moves[pick(rng)]) != 0) break;
      }
    }
  }
  EXPECT_GT(positions, 14 * 10);
}

}  // namespace
}  // namespace khet
