// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/notation.h"

#include <random>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "engine/test_positions.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

using ::khet::testing_positions::ErrorOf;
using ::khet::testing_positions::Parsed;
using ::khet::testing_positions::Sq;
using ::khet::testing_positions::Start;

constexpr std::string_view kClassic2 =
    "xs3askaspse2/2psw7/3Pnw6/pne1Psw1s\\s/1pse1Pnw/pse1Pnw1S/S\\1pne1Psw/"
    "6pse3/7Pne2/2PnwAnKAn3Xn s 2";

// ---- Squares ---------------------------------------------------------------

TEST(SquareNotationTest, EverySquareRoundTrips) {
  EXPECT_EQ(SquareName(0), "a1");
  EXPECT_EQ(SquareName(9), "j1");
  EXPECT_EQ(SquareName(Sq("e4")), "e4");
  EXPECT_EQ(SquareName(79), "j8");
  for (Square s = 0; s < kSquares; ++s) {
    absl::StatusOr<Square> parsed = ParseSquare(SquareName(s));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, s);
  }
}

TEST(SquareNotationTest, ErrorsNameTheTextAndTheProblem) {
  EXPECT_EQ(ErrorOf(ParseSquare("")), "empty square name");
  EXPECT_EQ(ErrorOf(ParseSquare("e9")), "\"e9\": rank must be 1..8");
  EXPECT_EQ(ErrorOf(ParseSquare("e0")), "\"e0\": rank must be 1..8");
  EXPECT_EQ(ErrorOf(ParseSquare("k1")), "\"k1\": file must be a..j");
  EXPECT_EQ(ErrorOf(ParseSquare("E4")), "\"E4\": file must be a..j");
  EXPECT_EQ(ErrorOf(ParseSquare("e10")),
            "\"e10\": a square is a file a..j and a rank 1..8");
  EXPECT_EQ(ErrorOf(ParseSquare("e")),
            "\"e\": a square is a file a..j and a rank 1..8");
}

// ---- Moves -----------------------------------------------------------------

TEST(MoveNotationTest, FormatsEachKind) {
  const Position classic = Start("classic-2");
  EXPECT_EQ(FormatMove(classic, Move(Sq("e4"), Sq("e3"), MoveKind::kMove)),
            "e4-e3");
  // A Scarab moving onto a Pyramid swaps with it.
  EXPECT_EQ(FormatMove(classic, Move(Sq("f4"), Sq("g3"), MoveKind::kMove)),
            "f4=g3");
  EXPECT_EQ(FormatMove(classic, Move::Rotate(Sq("j1"), false)), "j1L");
  EXPECT_EQ(FormatMove(classic, Move::Rotate(Sq("c1"), true)), "c1R");
  EXPECT_EQ(FormatMove(classic, Move()), "(none)");
  const Position classic1 = Start("classic-1");
  EXPECT_EQ(FormatMove(classic1, Move(Sq("d1"), Sq("d2"), MoveKind::kMoveTop)),
            "d1^d2");
  EXPECT_EQ(FormatMove(classic1, Move(Sq("d1"), Sq("d2"), MoveKind::kMove)),
            "d1-d2");
}

TEST(MoveNotationTest, ParseAcceptsTheVariants) {
  const Position classic = Start("classic-2");
  const Move swap(Sq("f4"), Sq("g3"), MoveKind::kMove);
  for (std::string_view text : {"f4=g3", "f4-g3", "  f4=g3\n"}) {
    absl::StatusOr<Move> move = ParseMove(classic, text);
    ASSERT_TRUE(move.ok()) << text << ": " << move.status();
    EXPECT_EQ(*move, swap) << text;
  }
  for (std::string_view text : {"e4R", "e4r"}) {
    absl::StatusOr<Move> move = ParseMove(classic, text);
    ASSERT_TRUE(move.ok()) << move.status();
    EXPECT_EQ(*move, Move::Rotate(Sq("e4"), true));
  }
  for (std::string_view text : {"e4L", "e4l"}) {
    absl::StatusOr<Move> move = ParseMove(classic, text);
    ASSERT_TRUE(move.ok()) << move.status();
    EXPECT_EQ(*move, Move::Rotate(Sq("e4"), false));
  }
  absl::StatusOr<Move> top = ParseMove(Start("classic-1"), "d1^d2");
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_EQ(*top, Move(Sq("d1"), Sq("d2"), MoveKind::kMoveTop));
}

TEST(MoveNotationTest, ErrorsNameTheTextAndTheProblem) {
  const Position classic = Start("classic-2");
  const std::string usage =
      "a move is written e4-e5 (step), e4=f5 (swap), d1^d2 (top obelisk), "
      "e4R or e4L (turn)";
  EXPECT_EQ(ErrorOf(ParseMove(classic, "")), "\"\": not a move; " + usage);
  EXPECT_EQ(ErrorOf(ParseMove(classic, "e4")), "\"e4\": not a move; " + usage);
  EXPECT_EQ(ErrorOf(ParseMove(classic, "e4-e5-e6")),
            "\"e4-e5-e6\": not a move; " + usage);
  EXPECT_EQ(ErrorOf(ParseMove(classic, "e4x")),
            "\"e4x\": a turn ends in R (clockwise) or L (anticlockwise)");
  EXPECT_EQ(ErrorOf(ParseMove(classic, "k4R")),
            "\"k4R\": \"k4\": file must be a..j");
  EXPECT_EQ(ErrorOf(ParseMove(classic, "e4*e5")),
            "\"e4*e5\": \"*\" is not -, = or ^; " + usage);
  EXPECT_EQ(ErrorOf(ParseMove(classic, "e9-e8")),
            "\"e9-e8\": \"e9\": rank must be 1..8");
  EXPECT_EQ(ErrorOf(ParseMove(classic, "e4-e0")),
            "\"e4-e0\": \"e0\": rank must be 1..8");
  EXPECT_EQ(ErrorOf(ParseMove(classic, "e4-e6")),
            "\"e4-e6\": e6 is not next to e4");
  EXPECT_EQ(ErrorOf(ParseMove(classic, "e4-e4")),
            "\"e4-e4\": e4 is not next to e4");
  EXPECT_EQ(ErrorOf(ParseMove(classic, "j4-a5")),
            "\"j4-a5\": a5 is not next to j4");
  EXPECT_EQ(ErrorOf(ParseMove(classic, "e4=e3")),
            "\"e4=e3\": nothing on e3 to swap with; a step is written e4-e3");
}

TEST(MoveNotationTest, ErrorsQuoteLongOrOddTextBounded) {
  const Position classic = Start("classic-2");
  const std::string huge(60000, 'e');
  const std::string error = ErrorOf(ParseMove(classic, huge));
  EXPECT_TRUE(absl::StartsWith(
      error, "\"" + std::string(64, 'e') + "\"... (60000 bytes): not a move"))
      << error;
  EXPECT_LT(error.size(), 300u);
  // Control characters and non-ASCII bytes are escaped, never echoed.
  EXPECT_EQ(ErrorOf(ParseMove(classic, "e4\x01")),
            "\"e4\\x01\": a turn ends in R (clockwise) or L (anticlockwise)");
  EXPECT_EQ(ErrorOf(ParseSquare("\xe2\x80\xae")),
            "\"\\xe2\\x80\\xae\": a square is a file a..j and a rank 1..8");
  EXPECT_EQ(ErrorOf(ParseSquare("\"1")), "\"\\\"1\": file must be a..j");
}

TEST(QuotedTextTest, QuotesEscapesAndCutsBetweenCharacters) {
  EXPECT_EQ(QuotedText(""), "\"\"");
  EXPECT_EQ(QuotedText("e4-e5"), "\"e4-e5\"");
  EXPECT_EQ(QuotedText("a\"b\\c\n\x7f"), "\"a\\\"b\\\\c\\x0a\\x7f\"");
  EXPECT_EQ(QuotedText(std::string(64, 'a')),
            "\"" + std::string(64, 'a') + "\"");
  EXPECT_EQ(QuotedText(std::string(65, 'a')),
            "\"" + std::string(64, 'a') + "\"... (65 bytes)");
  // 63 letters and a three-byte character make 64 characters: all shown.
  // One letter more, and the character is left out whole.
  const std::string arrow = "\xe2\x86\x92";  // U+2192
  EXPECT_EQ(QuotedText(std::string(63, 'a') + arrow),
            "\"" + std::string(63, 'a') + "\\xe2\\x86\\x92\"");
  EXPECT_EQ(QuotedText(std::string(64, 'a') + arrow),
            "\"" + std::string(64, 'a') + "\"... (67 bytes)");
  // Stray continuation bytes count one character each, so they are cut too.
  EXPECT_EQ(
      QuotedText(std::string(100, '\x80')), "\"" + [] {
        std::string s;
        for (int i = 0; i < 64; ++i) s += "\\x80";
        return s;
      }() + "\"... (100 bytes)");
}

TEST(MoveNotationTest, EveryLegalMoveOfEverySetupRoundTrips) {
  for (const SetupInfo& info : AllSetups()) {
    const Position pos = Start(info.id);
    MoveList moves;
    GenerateMoves(pos, &moves);
    ASSERT_GT(moves.size, 0) << info.id;
    for (Move m : moves) {
      const std::string text = FormatMove(pos, m);
      absl::StatusOr<Move> parsed = ParseMove(pos, text);
      ASSERT_TRUE(parsed.ok())
          << info.id << " " << text << ": " << parsed.status();
      EXPECT_EQ(*parsed, m) << info.id << " " << text;
    }
  }
}

// ---- Positions -------------------------------------------------------------

TEST(PositionNotationTest, ClassicGolden) {
  EXPECT_EQ(FormatPosition(Start("classic-2")), kClassic2);
  EXPECT_EQ(Parsed(kClassic2), Start("classic-2"));
  EXPECT_EQ(FormatPosition(Start("classic-1")),
            "4o2ko2pse2/2psw7/3Pnw6/pne1Psw1s\\s/1pse1Pnw/pse1Pnw1S/"
            "S\\1pne1Psw/6pse3/7Pne2/2PnwO2KO24 s 1");
  // Fields may be separated by any whitespace.
  EXPECT_EQ(
      Parsed("  " + std::string(kClassic2.substr(0, kClassic2.size() - 4)) +
             "\t s\n 2 "),
      Start("classic-2"));
}

TEST(PositionNotationTest, EverySetupRoundTrips) {
  for (const SetupInfo& info : AllSetups()) {
    const Position pos = Start(info.id);
    const std::string text = FormatPosition(pos);
    const Position parsed = Parsed(text);
    EXPECT_EQ(parsed, pos) << info.id << ": " << text;
    EXPECT_EQ(parsed.hash(), pos.hash()) << info.id;
    EXPECT_EQ(FormatPosition(parsed), text);
  }
}

// Physical facings: a fourth field "f", a facing after every Pharaoh,
// Scarab and Eye; the option's starting facings face the opponent.
constexpr std::string_view kClassic2Physical =
    "xs3asksaspse2/2psw7/3Pnw6/pne1Psw1sswsse1pse1Pnw/pse1Pnw1SnwSne1pne1Psw/"
    "6pse3/7Pne2/2PnwAnKnAn3Xn s 2 f";

Position Physical(Position pos) {
  pos.SetPhysicalFacings(true);
  return pos;
}

TEST(PositionNotationTest, PhysicalFacingsGolden) {
  EXPECT_EQ(FormatPosition(Physical(Start("classic-2"))), kClassic2Physical);
  const Position parsed = Parsed(kClassic2Physical);
  EXPECT_TRUE(parsed.physical_facings());
  EXPECT_EQ(parsed, Physical(Start("classic-2")));
  EXPECT_EQ(parsed.at(Sq("e1")), Piece(Color::kSilver, PieceType::kPharaoh,
                                       static_cast<int>(Direction::kNorth)));
  EXPECT_EQ(parsed.at(Sq("f5")),
            Piece(Color::kRed, PieceType::kScarab, kFrontSE));
  // Any facing reads back, an Eye's too.
  const std::string custom = "xs4kw4/10/10/4Ese5/4enw5/10/10/4Ke2Ssw1Xn r 2 f";
  const Position pos = Parsed(custom);
  EXPECT_EQ(pos.at(Sq("f8")), Piece(Color::kRed, PieceType::kPharaoh,
                                    static_cast<int>(Direction::kWest)));
  EXPECT_EQ(pos.at(Sq("e5")), Piece(Color::kSilver, PieceType::kEye, kFrontSE));
  EXPECT_EQ(pos.at(Sq("e4")), Piece(Color::kRed, PieceType::kEye, kFrontNW));
  EXPECT_EQ(pos.at(Sq("h1")),
            Piece(Color::kSilver, PieceType::kScarab, kFrontSW));
  EXPECT_EQ(FormatPosition(pos), custom);
  EXPECT_EQ(PieceToken(pos.at(Sq("h1")), true), "Ssw");
  EXPECT_EQ(PieceToken(pos.at(Sq("h1"))), "S\\");
}

TEST(PositionNotationTest, PhysicalFacingsErrors) {
  // Each form's pieces only in its own form.
  EXPECT_EQ(ErrorOf(ParsePosition("xs4k4/10/10/10/10/10/10/4K4Xn s 2 x")),
            "a position's fourth field, if any, is \"f\" (physical facings), "
            "got \"x\"");
  EXPECT_EQ(ErrorOf(ParsePosition("xs4k4/10/10/10/10/10/10/4K4Xn s 2 f")),
            "position f8: \"k4\": the letter k needs a facing n, e, s or w");
  EXPECT_EQ(
      ErrorOf(ParsePosition("xs4ks4/10/10/4S/5/10/10/10/4Kn4Xn s 2 f")),
      "position e5: \"S/5\": the letter S needs a facing nw, ne, se or sw");
  EXPECT_EQ(ErrorOf(ParsePosition("xs4ks4/10/10/10/10/10/10/4Kn4Xn s 2")),
            "position g8: \"s4\": the letter s needs a diagonal / or \\");
}

TEST(PositionNotationTest, PhysicalFacingsEverySetupRoundTrips) {
  for (const SetupInfo& info : AllSetups()) {
    const Position pos = Physical(Start(info.id));
    const std::string text = FormatPosition(pos);
    EXPECT_TRUE(absl::EndsWith(text, " f")) << text;
    const Position parsed = Parsed(text);
    EXPECT_EQ(parsed, pos) << info.id << ": " << text;
    EXPECT_EQ(parsed.hash(), pos.hash()) << info.id;
    EXPECT_EQ(FormatPosition(parsed), text);
  }
}

// Turns with physical facings: a Pharaoh's "e1R" and "e1L", a Scarab's
// "e4L" kept apart from "e4R"; positions and moves of random games
// round-trip.
TEST(MoveNotationTest, PhysicalFacingsTurnsRoundTrip) {
  const Position classic = Physical(Start("classic-2"));
  EXPECT_EQ(*ParseMove(classic, "e1R"), Move::Rotate(Sq("e1"), true));
  EXPECT_EQ(*ParseMove(classic, "e1L"), Move::Rotate(Sq("e1"), false));
  EXPECT_EQ(FormatMove(classic, Move::Rotate(Sq("e4"), false)), "e4L");
  EXPECT_EQ(*CheckMove(classic, *ParseMove(classic, "e4L")),
            Move::Rotate(Sq("e4"), false));
  std::mt19937 rng(99);
  for (const SetupInfo& info : AllSetups()) {
    Position pos = Physical(Start(info.id));
    for (int ply = 0; ply < 40; ++ply) {
      EXPECT_EQ(Parsed(FormatPosition(pos)), pos) << FormatPosition(pos);
      MoveList moves;
      GenerateMoves(pos, &moves);
      if (moves.size == 0) break;
      for (Move m : moves) {
        const absl::StatusOr<Move> parsed = ParseMove(pos, FormatMove(pos, m));
        ASSERT_TRUE(parsed.ok()) << FormatMove(pos, m);
        EXPECT_EQ(*parsed, m) << FormatMove(pos, m);
      }
      if (MakeMove(&pos, moves.moves[rng() % moves.size]) != 0) break;
    }
  }
}

TEST(PositionNotationTest, RedToMoveAndEveryPieceKind) {
  // Khet 1.0 with single Obelisks, a stack and an Eye; Red to move.
  const std::string text = "4o1k4/10/10/4E\\5/4e/5/10/10/3O1KO2O13 r 1";
  const Position pos = Parsed(text);
  EXPECT_EQ(pos.side_to_move(), Color::kRed);
  EXPECT_EQ(pos.edition(), Edition::kKhet1);
  EXPECT_EQ(pos.at(Sq("e8")), Piece(Color::kRed, PieceType::kObelisk, 0));
  EXPECT_EQ(pos.at(Sq("f1")), Piece(Color::kSilver, PieceType::kObelisk, 1));
  EXPECT_EQ(pos.at(Sq("e5")),
            Piece(Color::kSilver, PieceType::kEye, kBackslash));
  EXPECT_EQ(pos.at(Sq("e4")), Piece(Color::kRed, PieceType::kEye, kSlash));
  EXPECT_EQ(FormatPosition(pos), text);
}

TEST(PositionNotationTest, ErrorsNameTheRankOrSquareAndTheProblem) {
  const std::string board(kClassic2.substr(0, kClassic2.size() - 4));
  auto with = [&](std::string_view from, std::string_view to) {
    std::string text(kClassic2);
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  EXPECT_EQ(ErrorOf(ParsePosition("")),
            "a position has 3 fields, \"<ranks> <side> <edition>\", got 0 in "
            "\"\"");
  // The board is longer than a quote shows: cut after 64 characters, its
  // backslashes escaped.
  EXPECT_EQ(ErrorOf(ParsePosition(board)),
            "a position has 3 fields, \"<ranks> <side> <edition>\", got 1 in "
            "\"xs3askaspse2/2psw7/3Pnw6/pne1Psw1s\\\\s/1pse1Pnw/pse1Pnw1S/"
            "S\\\\1pne1P\"... (" +
                std::to_string(board.size()) + " bytes)");
  EXPECT_EQ(ErrorOf(ParsePosition(board + " x 2")),
            "position side to move must be \"s\" or \"r\", got \"x\"");
  EXPECT_EQ(ErrorOf(ParsePosition(board + " s 3")),
            "position edition must be \"1\" or \"2\", got \"3\"");
  EXPECT_EQ(ErrorOf(ParsePosition(with("3Xn", "4Xn"))),
            "position rank 1 has 11 files, needs 10");
  EXPECT_EQ(ErrorOf(ParsePosition(with("3Xn", "3XnK"))),
            "position rank 1 has 11 files, needs 10");
  EXPECT_EQ(ErrorOf(ParsePosition(with("2psw7", "2psw6"))),
            "position rank 7 has 9 files, needs 10");
  EXPECT_EQ(ErrorOf(ParsePosition(with("/7Pne2", ""))),
            "position has 7 ranks, needs 8");
  EXPECT_EQ(ErrorOf(ParsePosition(with("3Xn", "3Xn/10"))),
            "position has more than 8 ranks: \"/10\" follows rank 1");
  EXPECT_EQ(ErrorOf(ParsePosition(with("/2PnwAn", "/0PnwAn"))),
            "position rank 1: \"0\" is not a run of 1..10 empty squares");
  EXPECT_EQ(ErrorOf(ParsePosition(with("/2PnwAn", "/11PnwAn"))),
            "position rank 1: \"11\" is not a run of 1..10 empty squares");
  EXPECT_EQ(ErrorOf(ParsePosition(with("AnK", "AnQ"))),
            "position e1: \"Q\" is not a piece letter (K, P, A, X, S, E, O) or "
            "a number");
  EXPECT_EQ(ErrorOf(ParsePosition(with("7Pne2", "7Pqe2"))),
            "position h2: \"Pqe\": the letter P needs a mirror facing ne, se, "
            "sw or nw");
  EXPECT_EQ(ErrorOf(ParsePosition(with("2PnwAn", "2PNWAn"))),
            "position c1: \"PNW\": the letter P needs a mirror facing ne, se, "
            "sw or nw");
  EXPECT_EQ(ErrorOf(ParsePosition(with("3Xn", "3Xx"))),
            "position j1: \"Xx\": the letter X needs a facing n, e, s or w");
  EXPECT_EQ(ErrorOf(ParsePosition(board.substr(0, board.size() - 1) + " s 2")),
            "position j1: \"X\": the letter X needs a facing n, e, s or w");
  EXPECT_EQ(ErrorOf(ParsePosition(with("S\\1pne", "S|1pne"))),
            "position f4: \"S|\": the letter S needs a diagonal / or \\");
  EXPECT_EQ(ErrorOf(ParsePosition("4o3k4/10/10/10/10/10/10/3O1KO24 s 1")),
            "position e8: \"o3\": the letter o needs a stack height 1 or 2");
  // A position that parses but breaks the rules fails Position::Validate.
  EXPECT_FALSE(ParsePosition("10/10/10/10/10/10/10/10 s 2").ok());
  EXPECT_FALSE(ParsePosition(
                   std::string(kClassic2.substr(0, kClassic2.size() - 1)) + "1")
                   .ok());  // Anubis and Sphinxes in Khet 1.0
}

TEST(PositionNotationTest, PositionsAndMovesOfRandomGamesRoundTrip) {
  std::mt19937 random(20240601);
  for (const SetupInfo& info : AllSetups()) {
    for (int game = 0; game < 3; ++game) {
      Position pos = Start(info.id);
      for (int ply = 0; ply < 60; ++ply) {
        const std::string text = FormatPosition(pos);
        absl::StatusOr<Position> parsed = ParsePosition(text);
        ASSERT_TRUE(parsed.ok()) << info.id << " ply " << ply << ": " << text
                                 << ": " << parsed.status();
        EXPECT_EQ(*parsed, pos) << text;
        MoveList moves;
        GenerateMoves(pos, &moves);
        if (moves.size == 0) break;
        for (Move m : moves) {
          absl::StatusOr<Move> back = ParseMove(pos, FormatMove(pos, m));
          ASSERT_TRUE(back.ok()) << back.status();
          EXPECT_EQ(*back, m) << FormatMove(pos, m) << " in " << text;
        }
        const Move m = moves.moves[random() % moves.size];
        if (MakeMove(&pos, m) != 0) break;  // a Pharaoh was hit
      }
    }
  }
}

// ---- Pieces and traces -----------------------------------------------------

TEST(DescribePieceTest, NamesDependOnTheEdition) {
  EXPECT_EQ(DescribePiece(Piece(Color::kSilver, PieceType::kPyramid, kNE),
                          Edition::kKhet2),
            "Silver Pyramid NE");
  EXPECT_EQ(DescribePiece(Piece(Color::kRed, PieceType::kScarab, kSlash),
                          Edition::kKhet2),
            "Red Scarab /");
  EXPECT_EQ(DescribePiece(Piece(Color::kRed, PieceType::kScarab, kBackslash),
                          Edition::kKhet1),
            "Red Djed \\");
  EXPECT_EQ(DescribePiece(Piece(Color::kSilver, PieceType::kAnubis, 2),
                          Edition::kKhet2),
            "Silver Anubis S");
  EXPECT_EQ(
      DescribePiece(Piece(Color::kRed, PieceType::kSphinx, 1), Edition::kKhet2),
      "Red Sphinx E");
  EXPECT_EQ(DescribePiece(Piece(Color::kSilver, PieceType::kEye, kBackslash),
                          Edition::kKhet1),
            "Silver Eye of Horus \\");
  EXPECT_EQ(DescribePiece(Piece(Color::kSilver, PieceType::kPharaoh),
                          Edition::kKhet2),
            "Silver Pharaoh");
  EXPECT_EQ(DescribePiece(Piece(Color::kRed, PieceType::kObelisk, 0),
                          Edition::kKhet1),
            "Red Obelisk");
  EXPECT_EQ(DescribePiece(Piece(Color::kRed, PieceType::kObelisk, 1),
                          Edition::kKhet1),
            "Red Obelisk stack");
  EXPECT_EQ(DescribePiece(Piece(), Edition::kKhet2), "nothing");
}

TEST(FormatTraceTest, ClassicStart) {
  EXPECT_EQ(FormatTrace(TraceLaser(Start("classic-2"), Color::kSilver)),
            "beam 0 from j1: north to j4, west to h4, north to h5, east to j5, "
            "north off the board; left the board\n");
  EXPECT_EQ(FormatTrace(TraceLaser(Start("classic-2"), Color::kRed)),
            "beam 0 from a8: south to a5, east to c5, south to c4, west to a4, "
            "south off the board; left the board\n");
}

TEST(FormatTraceTest, Khet1EmittersStartOffTheBoard) {
  EXPECT_EQ(FormatTrace(TraceLaser(Start("classic-1"), Color::kSilver)),
            "beam 0 from below j1: north to j4, west to h4, north to h5, east "
            "to j5, north off the board; left the board\n");
  EXPECT_EQ(FormatTrace(TraceLaser(Start("classic-1"), Color::kRed)),
            "beam 0 from above a8: south to a5, east to c5, south to c4, west "
            "to a4, south off the board; left the board\n");
  // A Silver Djed on j4 turns the beam west into a Red Obelisk stack.
  const Position pos = Parsed("3k6/10/10/10/o28S\\/10/10/4K5 s 1");
  EXPECT_EQ(FormatTrace(TraceLaser(pos, Color::kSilver)),
            "beam 0 from below j1: north to j4, west to a4; hit Red Obelisk "
            "stack on a4\n");
}

TEST(FormatTraceTest, SplitBeams) {
  // Osiris: Silver's beam splits on its Eye on f4, again on Red's Eye on e5,
  // comes back into f4 and loops.
  EXPECT_EQ(FormatTrace(TraceLaser(Start("osiris"), Color::kSilver)),
            "beam 0 from j1: north to j4, west to f4; split on f4\n"
            "beam 1 (split from 0) from f4: south off the board; left the "
            "board\n"
            "beam 2 (split from 0) from f4: west to e4, north to e5; split on "
            "e5\n"
            "beam 3 (split from 2) from e5: east to f5, south to f4; split on "
            "f4\n"
            "beam 4 (split from 2) from e5: north off the board; left the "
            "board\n"
            "beam 5 (split from 3) from f4: west to e4; looped on e4\n"
            "beam 6 (split from 3) from f4: south off the board; left the "
            "board\n");
  // One beam splits in two that end differently.
  const Position pos = Parsed("xs4k4/10/10/10/an8E\\/10/10/4K4Xn s 2");
  EXPECT_EQ(FormatTrace(TraceLaser(pos, Color::kSilver)),
            "beam 0 from j1: north to j4; split on j4\n"
            "beam 1 (split from 0) from j4: west to a4; hit Red Anubis N on "
            "a4\n"
            "beam 2 (split from 0) from j4: north off the board; left the "
            "board\n");
}

TEST(FormatTraceTest, EveryEnding) {
  // North up the j-file, west along rank 8 at the Pyramid on j8.
  EXPECT_EQ(FormatTrace(TraceLaser(
                Parsed("xs8Psw/4k5/10/10/10/10/10/4K4Xn s 2"), Color::kSilver)),
            "beam 0 from j1: north to j8, west to a8; absorbed by Red Sphinx S "
            "on a8\n");
  EXPECT_EQ(
      FormatTrace(TraceLaser(Parsed("xs1ae6Psw/4k5/10/10/10/10/10/4K4Xn s 2"),
                             Color::kSilver)),
      "beam 0 from j1: north to j8, west to c8; blocked by Red Anubis E "
      "front on c8\n");
  EXPECT_EQ(
      FormatTrace(TraceLaser(Parsed("xs1an6Psw/4k5/10/10/10/10/10/4K4Xn s 2"),
                             Color::kSilver)),
      "beam 0 from j1: north to j8, west to c8; hit Red Anubis N on c8\n");
  EXPECT_EQ(
      FormatTrace(TraceLaser(Parsed("xs3k4Psw/10/10/10/10/10/10/4K4Xn s 2"),
                             Color::kSilver)),
      "beam 0 from j1: north to j8, west to e8; hit Red Pharaoh on e8\n");
}

}  // namespace
}  // namespace khet
