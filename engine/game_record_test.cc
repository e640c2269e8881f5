// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "engine/game_record.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/game.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "engine/test_positions.h"
#include "gtest/gtest.h"

namespace khet {
namespace {

using ::khet::testing_positions::ErrorOf;
using ::khet::testing_positions::Parsed;
using ::khet::testing_positions::Start;

// AddressSanitizer's CI stage runs these tests too, some ten times slower:
// it plays fewer random games.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kRandomGamesPerSetup = 40;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int kRandomGamesPerSetup = 40;
#else
constexpr int kRandomGamesPerSetup = 250;
#endif
#else
constexpr int kRandomGamesPerSetup = 250;
#endif

std::string Error(std::string_view text) {
  return ErrorOf(ParseGameRecord(text));
}

absl::StatusOr<Move> PlayText(Game* game, std::string_view text) {
  absl::StatusOr<Move> move = ParseMove(game->position(), text);
  if (!move.ok()) return move.status();
  absl::StatusOr<MoveEffects> effects = game->Play(*move);
  if (!effects.ok()) return effects.status();
  return effects->move;
}

void PlayAll(Game* game, std::initializer_list<std::string_view> moves) {
  for (std::string_view text : moves) {
    absl::StatusOr<Move> move = PlayText(game, text);
    ASSERT_TRUE(move.ok()) << text << ": " << move.status();
  }
}

GameRecord Replayed(std::string_view text) {
  absl::StatusOr<GameRecord> record = ParseGameRecord(text);
  EXPECT_TRUE(record.ok()) << record.status() << "\n" << text;
  if (!record.ok()) return GameRecord{{}, Game(Start("classic-2")), {}};
  return *std::move(record);
}

void ExpectSameGame(const Game& a, const Game& b) {
  EXPECT_EQ(a.start(), b.start());
  EXPECT_EQ(a.moves(), b.moves());
  EXPECT_EQ(a.position(), b.position());
  EXPECT_EQ(a.result(), b.result());
  EXPECT_EQ(a.options(), b.options());
}

// `comments` as a record read back holds them: one list per ply and one
// before the first move.
GameComments Normalized(GameComments comments, const Game& game) {
  comments.resize(game.ply() + 1);
  return comments;
}

// ---- Writing ---------------------------------------------------------------

TEST(GameRecordTest, FormatGolden) {
  Game game(Start("classic-2"));
  PlayAll(&game, {"e4-e3", "f5-f6", "j1L"});
  // j1L: the Sphinx turns west and shoots its own Anubis on f1.
  EXPECT_EQ(FormatGameRecord(game, {{"TimeControl", "fischer 300+5"},
                                    {"Round", "3"},
                                    {"Red", "bob \"the\" \\ builder"},
                                    {"Result", "1-0"},
                                    {"Silver", "alice"},
                                    {"Setup", "isis"},
                                    {"Date", "2024.05.01"},
                                    {"Silver", "carol"},
                                    {"Event", "club night"}}),
            "[Event \"club night\"]\n"
            "[Date \"2024.05.01\"]\n"
            "[Silver \"alice\"]\n"
            "[Red \"bob \\\"the\\\" \\\\ builder\"]\n"
            "[Setup \"classic-2\"]\n"
            "[Edition \"Khet 2.0\"]\n"
            "[BothPharaohsHit \"mover loses\"]\n"
            "[Repetition \"claim\"]\n"
            "[PlyLimit \"0\"]\n"
            "[TimeControl \"fischer 300+5\"]\n"
            "[Round \"3\"]\n"
            "[Result \"*\"]\n"
            "\n"
            "1. e4-e3 f5-f6 2. j1L {Silver Anubis on f1 hit} *\n");
  EXPECT_TRUE(game.position().at(MakeSquare(5, 0)).empty());
}

TEST(GameRecordTest, CommentsGolden) {
  Game game(Start("classic-2"));
  PlayAll(&game, {"e4-e3", "f5-f6", "j1L", "f6-f5"});
  const GameComments comments = {
      {"from the book"},         {},
      {"Red {mirrors} \\ back"}, {"oops", "what a hit"},
      {"multi\nline"},           {"past the last move: ignored"}};
  const std::string text = FormatGameRecord(game, {}, comments);
  EXPECT_TRUE(absl::EndsWith(
      text,
      "[Result \"*\"]\n\n"
      "{from the book} 1. e4-e3 f5-f6 {Red {mirrors\\} \\\\ back} 2. j1L\n"
      "{Silver Anubis on f1 hit} {oops} {\\what a hit} 2... f6-f5 {multi\n"
      "line} *\n"))
      << text;
  const GameRecord record = Replayed(text);
  ExpectSameGame(record.game, game);
  EXPECT_EQ(record.comments, (GameComments{{"from the book"},
                                           {},
                                           {"Red {mirrors} \\ back"},
                                           {"oops", "what a hit"},
                                           {"multi\nline"}}));
  EXPECT_EQ(FormatGameRecord(record), text);
}

TEST(GameRecordTest, HitCommentsNameEveryHit) {
  // Classic 2b: Silver's beam splits on the Eye of Horus on f5; one half
  // takes a Red Pyramid, the other the Red Pharaoh.
  const Position split = Parsed(
      "xs3askas3/7pse2/1psw1Pnw6/pne1Pnw1s\\e/1pse1Pnw/pse4S\\3Psw/5E/"
      "psepne2/7Pne2/2PnwAnKAn3Xn s 2");
  absl::StatusOr<Move> move = ParseMove(split, "c5-d4");
  ASSERT_TRUE(move.ok()) << move.status();
  EXPECT_EQ(HitComment(split, *move),
            "beam split on f5; Red Pyramid on h5 and Red Pharaoh on f8 hit");

  // Classic 1b: two splits, three hits, named in square order.
  const Position three = Parsed(
      "10/4Pnwk4/3pne6/4pne1Pne3/1S\\2pseO14/1s\\pnwe/E/O14/5psw4/"
      "1PneO1Pne1K3Psw s 1");
  move = ParseMove(three, "f1-g2");
  ASSERT_TRUE(move.ok()) << move.status();
  EXPECT_EQ(HitComment(three, *move),
            "beam split on d3 and e3; Silver Obelisk on f3, Silver Obelisk "
            "on f4 and Red Pyramid on d6 hit");

  // Dynasty 1: a stack of two Obelisks loses its top.
  const Position stack = Parsed(
      "4pswo2pse3/5k4/pne3pswo2s/3/psw1s\\3Pse3/4Pnw2S/1Pnw/3S/O2Pne3Psw/"
      "4K5/3PnwO2Pne4 s 1");
  move = ParseMove(stack, "g5-g4");
  ASSERT_TRUE(move.ok()) << move.status();
  EXPECT_EQ(HitComment(stack, *move), "top of the Red Obelisk stack on f6 hit");

  // Nothing hit: no comment.
  const Position classic = Start("classic-2");
  move = ParseMove(classic, "e4-e3");
  ASSERT_TRUE(move.ok()) << move.status();
  EXPECT_EQ(HitComment(classic, *move), "");

  // In records: written after the move, checked when read.
  Game game(split);
  ASSERT_TRUE(game.Play(*ParseMove(split, "c5-d4")).ok());
  const std::string text = FormatGameRecord(game, {});
  EXPECT_TRUE(absl::EndsWith(text,
                             "1. c5-d4 {beam split on f5; Red Pyramid on h5 "
                             "and Red Pharaoh on f8 hit} 1-0\n"))
      << text;
  ExpectSameGame(Replayed(text).game, game);
  std::string lie = text;
  lie.replace(lie.find("h5"), 2, "h6");
  EXPECT_TRUE(absl::StrContains(
      Error(lie),
      ": move 1. c5-d4: the comment \"beam split on f5; Red Pyramid on h6 "
      "and Red Pharaoh on f8 hit\" disagrees with the replay: \"beam split "
      "on f5; Red Pyramid on h5 and Red Pharaoh on f8 hit\""))
      << Error(lie);
}

TEST(GameRecordTest, RoundTripKeepsHeadersOptionsAndMoves) {
  RuleOptions options;
  options.both_pharaohs_hit_draws = true;
  options.automatic_repetition_draw = true;
  options.ply_limit = 300;
  Game game(Start("classic-1"), options);
  PlayAll(&game, {"d1^d2", "e8^d7", "d2-d3", "e5=d6"});
  const GameHeaders headers = {
      {"Silver", "alice"}, {"Venue", "pub"}, {"Event", "club night"}};
  const std::string text = FormatGameRecord(game, headers);
  const GameRecord record = Replayed(text);
  ExpectSameGame(record.game, game);
  const GameHeaders expected = {{"Event", "club night"},
                                {"Silver", "alice"},
                                {"Setup", "classic-1"},
                                {"Edition", "Khet 1.0"},
                                {"BothPharaohsHit", "draw"},
                                {"Repetition", "automatic"},
                                {"PlyLimit", "300"},
                                {"Venue", "pub"},
                                {"Result", "*"}};
  EXPECT_EQ(record.headers, expected);
  EXPECT_EQ(record.line, 1);
  EXPECT_EQ(FormatGameRecord(record), text);
}

// RuleOptions::physical_facings: a Facings header, absent when off; a named
// setup takes the option's starting facings, a written start keeps its own.
TEST(GameRecordTest, PhysicalFacingsRoundTrip) {
  RuleOptions options;
  options.physical_facings = true;
  Game game(Start("classic-2"), options);
  PlayAll(&game, {"e1R", "f8L", "e4L", "e5R", "e1L"});
  EXPECT_EQ(game.moves()[2], Move::Rotate(MakeSquare(4, 3), false));
  const std::string text = FormatGameRecord(game, {});
  EXPECT_TRUE(absl::StrContains(text, "[Setup \"classic-2\"]\n")) << text;
  EXPECT_TRUE(
      absl::StrContains(text, "[PlyLimit \"0\"]\n[Facings \"physical\"]"))
      << text;
  EXPECT_TRUE(absl::StrContains(text, "1. e1R f8L 2. e4L e5R 3. e1L")) << text;
  const GameRecord record = Replayed(text);
  ExpectSameGame(record.game, game);
  EXPECT_TRUE(record.game.options().physical_facings);
  EXPECT_EQ(FormatGameRecord(record), text);

  // A start that is no setup's: its facings in the Position header.
  Game custom(game.position(), options);
  PlayAll(&custom, {"f8R", "e1R"});
  const std::string custom_text = FormatGameRecord(custom, {});
  EXPECT_TRUE(absl::StrContains(
      custom_text,
      absl::StrCat("[Position \"", FormatPosition(game.position()), "\"]")))
      << custom_text;
  EXPECT_TRUE(absl::StrContains(custom_text, " r 2 f\"]")) << custom_text;
  const GameRecord custom_record = Replayed(custom_text);
  ExpectSameGame(custom_record.game, custom);
  EXPECT_EQ(FormatGameRecord(custom_record), custom_text);

  // Without the option no Facings header, and a Pharaoh does not turn.
  Game plain(Start("classic-2"));
  EXPECT_FALSE(absl::StrContains(FormatGameRecord(plain, {}), "Facings"));
  EXPECT_FALSE(PlayText(&plain, "e1R").ok());
}

TEST(GameRecordTest, PhysicalFacingsErrors) {
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Facings \"four\"]\n\n*"),
            "line 2: header Facings \"four\": must be \"physical\" (left out: "
            "two-state facings)");
  // A written start must have the Facings header's facings.
  Position turned = Start("classic-2");
  turned.SetPhysicalFacings(true);
  const std::string physical =
      Error(absl::StrCat("[Position \"", FormatPosition(turned), "\"]\n\n*"));
  EXPECT_TRUE(absl::StartsWith(physical, "line 1: header Position "))
      << physical;
  EXPECT_TRUE(absl::EndsWith(
      physical,
      ": has physical facings (\"f\"), but there is no Facings header"))
      << physical;
  // Imhotep's Scarabs are all '/', so its text needs no escapes here.
  const std::string plain =
      Error(absl::StrCat("[Position \"", FormatPosition(Start("imhotep-2")),
                         "\"]\n[Facings \"physical\"]\n\n*"));
  EXPECT_TRUE(absl::StartsWith(plain, "line 1: header Position ")) << plain;
  EXPECT_TRUE(absl::EndsWith(plain,
                             ": has two-state facings, but the Facings header "
                             "is \"physical\""))
      << plain;
  // Without the header a Pharaoh's turn is illegal.
  EXPECT_TRUE(absl::StrContains(Error("[Setup \"classic-2\"]\n\n1. e1R *"),
                                "Pharaoh does not rotate"));
}

TEST(GameRecordTest, HeaderLineBreaksBecomeSpaces) {
  const Game game(Start("isis"));
  const GameRecord record =
      Replayed(FormatGameRecord(game, {{"Annotator", "two\nlines"}}));
  EXPECT_EQ(record.headers[5],
            (std::pair<std::string, std::string>("Annotator", "two lines")));
}

TEST(GameRecordTest, PharaohHitFromACustomStartWithRedToMove) {
  // Red to move. Red's Sphinx fires south down the a-file into the Pyramid
  // on a1, which turned from NW to NE sends the beam east along rank 1 into
  // the Silver Pharaoh on e1.
  const Position start = Parsed("xs4k4/10/10/10/10/10/10/pnw3K4Xn r 2");
  Game game(start);
  PlayAll(&game, {"a1R"});
  ASSERT_TRUE(game.over());
  EXPECT_EQ(game.result(),
            (GameResult{Outcome::kRedWins, ResultReason::kPharaohHit}));
  const std::string text = FormatGameRecord(game, {});
  EXPECT_EQ(text,
            "[Position \"xs4k4/10/10/10/10/10/10/pnw3K4Xn r 2\"]\n"
            "[Edition \"Khet 2.0\"]\n"
            "[BothPharaohsHit \"mover loses\"]\n"
            "[Repetition \"claim\"]\n"
            "[PlyLimit \"0\"]\n"
            "[Result \"0-1\"]\n"
            "[Termination \"pharaoh hit\"]\n"
            "\n"
            "1... a1R {Silver Pharaoh on e1 hit} 0-1\n");
  ExpectSameGame(Replayed(text).game, game);
}

TEST(GameRecordTest, Resignation) {
  Game game(Start("classic-2"));
  PlayAll(&game, {"e4-e3", "f5-f6"});
  ASSERT_TRUE(game.Resign(Color::kSilver).ok());
  const std::string text = FormatGameRecord(game, {});
  EXPECT_TRUE(absl::StrContains(text,
                                "[Result \"0-1\"]\n"
                                "[Termination \"resignation\"]\n"
                                "\n"
                                "1. e4-e3 f5-f6 0-1\n"))
      << text;
  const GameRecord record = Replayed(text);
  EXPECT_EQ(record.game.result(),
            (GameResult{Outcome::kRedWins, ResultReason::kResignation}));
  ExpectSameGame(record.game, game);
}

TEST(GameRecordTest, TimeForfeit) {
  Game game(Start("classic-2"));
  PlayAll(&game, {"e4-e3"});
  ASSERT_TRUE(game.LoseOnTime(Color::kRed).ok());
  EXPECT_FALSE(game.LoseOnTime(Color::kSilver).ok());  // already over
  const std::string text =
      FormatGameRecord(game, {{"TimeControl", "fischer 300+5"}});
  EXPECT_TRUE(absl::StrContains(text,
                                "[TimeControl \"fischer 300+5\"]\n"
                                "[Result \"1-0\"]\n"
                                "[Termination \"time forfeit\"]\n"
                                "\n"
                                "1. e4-e3 1-0\n"))
      << text;
  const GameRecord record = Replayed(text);
  EXPECT_EQ(record.game.result(),
            (GameResult{Outcome::kSilverWins, ResultReason::kTimeForfeit}));
  ExpectSameGame(record.game, game);
  // Whose time ran out is read from the result, which must name a winner.
  std::string drawn = text;
  drawn.replace(drawn.find("[Result \"1-0\"]"), 14, "[Result \"1/2-1/2\"]");
  drawn.replace(drawn.rfind("1-0"), 3, "1/2-1/2");
  EXPECT_TRUE(absl::StrContains(Error(drawn), "to say whose time ran out"))
      << Error(drawn);
}

TEST(GameRecordTest, AgreedDraw) {
  Game game(Start("dynasty-2"));
  PlayAll(&game, {"e2-d2"});
  ASSERT_TRUE(game.AgreeDraw().ok());
  const GameRecord record = Replayed(FormatGameRecord(game, {}));
  EXPECT_EQ(record.game.result(),
            (GameResult{Outcome::kDraw, ResultReason::kAgreedDraw}));
  ExpectSameGame(record.game, game);
}

TEST(GameRecordTest, ClaimedRepetition) {
  Game game(Start("classic-2"));
  // Both Scarabs step out and back twice: the start occurs a third time.
  PlayAll(&game, {"e4-e3", "f5-f6", "e3-e4", "f6-f5", "e4-e3", "f5-f6", "e3-e4",
                  "f6-f5"});
  ASSERT_EQ(game.RepetitionCount(), 3);
  ASSERT_TRUE(game.ClaimRepetitionDraw(Color::kSilver).ok());
  const std::string text = FormatGameRecord(game, {});
  EXPECT_TRUE(absl::StrContains(
      text,
      "[Termination \"repetition claimed\"]\n\n"
      "1. e4-e3 f5-f6 2. e3-e4 f6-f5 3. e4-e3 f5-f6 4. e3-e4 f6-f5 1/2-1/2\n"))
      << text;
  const GameRecord record = Replayed(text);
  EXPECT_EQ(record.game.result(),
            (GameResult{Outcome::kDraw, ResultReason::kRepetitionClaimed}));
  ExpectSameGame(record.game, game);

  // Claimed one move too early, the replay refuses it.
  EXPECT_TRUE(absl::StartsWith(
      Error("[Setup \"classic-2\"]\n[Result \"1/2-1/2\"]\n"
            "[Termination \"repetition claimed\"]\n\n"
            "1. e4-e3 f5-f6 2. e3-e4 f6-f5 3. e4-e3 f5-f6 4. e3-e4 1/2-1/2\n"),
      "line 3: header Termination \"repetition claimed\": after the last "
      "move: "));
}

TEST(GameRecordTest, PlyLimitDraw) {
  const GameRecord record = Replayed(
      "[Setup \"imhotep-2\"]\n[PlyLimit \"2\"]\n[Result \"1/2-1/2\"]\n"
      "[Termination \"ply limit\"]\n\n1. e4-e3 f5-f6 1/2-1/2\n");
  EXPECT_EQ(record.game.result(),
            (GameResult{Outcome::kDraw, ResultReason::kPlyLimit}));
  EXPECT_EQ(record.game.options().ply_limit, 2);
}

// ---- Reading ---------------------------------------------------------------

TEST(GameRecordTest, LenientReading) {
  // No move numbers, numbers glued to moves, no blank line, extra spaces, no
  // result token, no Result header, unknown headers kept, a comment glued
  // to a move and one between a number and its move, hit comments left out.
  const GameRecord record = Replayed(
      "  [Setup \"classic-2\"]  \n[Venue \"the \\\"pub\\\"\"]\n"
      "e4-e3{a}   f5-f6\n2.e3-e4 2... {b} f6-f5 j1L\n");
  EXPECT_EQ(record.game.ply(), 5);
  const GameHeaders expected = {{"Setup", "classic-2"},
                                {"Venue", "the \"pub\""}};
  EXPECT_EQ(record.headers, expected);
  EXPECT_EQ(record.comments, (GameComments{{}, {"a"}, {}, {"b"}, {}, {}}));
  EXPECT_TRUE(absl::EndsWith(FormatGameRecord(record),
                             "\n\n1. e4-e3 {a} 1... f5-f6 2. e3-e4 {b} 2... "
                             "f6-f5 3. j1L {Silver Anubis on f1 hit}\n*\n"))
      << FormatGameRecord(record);
}

TEST(GameRecordTest, SeveralRecordsInOneText) {
  Game first(Start("classic-2"));
  PlayAll(&first, {"e4-e3", "f5-f6"});
  ASSERT_TRUE(first.Resign(Color::kRed).ok());
  Game second(Start("osiris"));
  Game third(Start("dynasty-1"));
  PlayAll(&third, {"e2-f2"});
  const std::vector<GameRecord> records = {
      {{{"Event", "one"}}, first, {{}, {"a\nb"}}, 1},
      {{{"Event", "two"}}, second, {{"not started"}}, 1},
      {{}, third, {}, 1}};
  const std::string text = FormatGameRecords(records);
  EXPECT_TRUE(absl::StrContains(text, "1. e4-e3 {a\nb} 1... f5-f6 1-0\n\n"))
      << text;
  absl::StatusOr<std::vector<GameRecord>> read = ParseGameRecords(text);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 3u);
  // Each starts at its first header: the first has 8 header lines, a
  // blank, its moves on two lines and a blank line after it; the second 7
  // header lines, a blank, its moves and a blank.
  EXPECT_EQ((*read)[0].line, 1);
  EXPECT_EQ((*read)[1].line, 13);
  EXPECT_EQ((*read)[2].line, 23);
  for (size_t i = 0; i < records.size(); ++i) {
    ExpectSameGame((*read)[i].game, records[i].game);
    EXPECT_EQ((*read)[i].comments,
              Normalized(records[i].comments, records[i].game));
  }
  EXPECT_EQ(FormatGameRecords(*read), text);

  EXPECT_EQ(ErrorOf(ParseGameRecord(text)),
            "line 13: a second game record starts here; ParseGameRecords "
            "reads several");
  absl::StatusOr<std::vector<GameRecord>> none = ParseGameRecords(" \n\n ");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());

  // An error in the second record names its line in the whole text.
  std::string broken = text;
  broken.replace(broken.find("[Setup \"osiris\"]"), 16,
                 "[Setup \"osiris\"]\n[Setup \"isis\"]");
  EXPECT_EQ(ErrorOf(ParseGameRecords(broken)),
            "line 15: header Setup appears twice");
  broken = text;
  broken.replace(broken.find("e2-f2"), 5, "e2-e1");
  EXPECT_TRUE(absl::StartsWith(ErrorOf(ParseGameRecords(broken)),
                               "line 30: move 1. e2-e1: illegal: "))
      << ErrorOf(ParseGameRecords(broken));
}

TEST(GameRecordTest, LongTokensAreQuotedAndCut) {
  const std::string error =
      Error("[Setup \"classic-2\"]\n\n1. " + std::string(10000, 'x'));
  EXPECT_TRUE(absl::StartsWith(
      error,
      "line 3: move 1. \"" + std::string(64, 'x') + "\"... (10000 bytes): "))
      << error;
  EXPECT_LT(error.size(), 400u);
}

TEST(GameRecordTest, ErrorsNameLineAndProblem) {
  const std::string head = "[Setup \"classic-2\"]\n\n";
  EXPECT_EQ(Error(""),
            "line 1: no game record: a record starts with its "
            "headers");
  // Moves and move numbers.
  EXPECT_TRUE(absl::StartsWith(Error(head + "1. e4-e3\ne3-e2"),
                               "line 4: move 1... e3-e2: illegal: "))
      << Error(head + "1. e4-e3\ne3-e2");
  EXPECT_EQ(Error(head + "1. e4-e3 zz"),
            "line 3: move 1... zz: \"zz\": not a move; a move is written "
            "e4-e5 (step), e4=f5 (swap), d1^d2 (top obelisk), e4R or e4L "
            "(turn)");
  EXPECT_EQ(Error(head + "2. e4-e3"),
            "line 3: move number \"2.\" where 1 was expected");
  EXPECT_EQ(Error(head + "1. e4-e3 f5-f6\n2. *"),
            "line 4: move number \"2.\" has no move after it");
  EXPECT_EQ(Error(head + "1. e4-e3 f5-f6 2. 3. e3-e4"),
            "line 3: move number \"2.\" has no move after it");
  EXPECT_EQ(Error(head + "1. e4-e3 f5-f6 2."),
            "line 3: move number \"2.\" has no move after it");
  EXPECT_EQ(Error(head + "1x. e4-e3"),
            "line 3: \"1x.\" after move 0 is neither a move number (\"3.\"), "
            "a move nor a result");
  EXPECT_TRUE(absl::StartsWith(
      Error("[Position \"xs4k4/10/10/10/10/10/10/pnw3K4Xn r 2\"]\n\n"
            "1... a1R 2. j1L"),
      "line 3: move 2. j1L: the game is over"));
  // Comments.
  EXPECT_EQ(Error(head + "1. e4-e3 {a comment\nthat goes on"),
            "line 3: the comment \"{a comment\\x0athat goes on\" is not "
            "closed with \"}\"");
  EXPECT_EQ(Error(head + "1. e4-e3 {ends with an escaped brace\\}"),
            "line 3: the comment \"{ends with an escaped brace\\\\}\" is not "
            "closed with \"}\"");
  EXPECT_EQ(Error(head + "1. e4-e3\n}"),
            "line 4: \"}\" without a \"{\" before it");
  EXPECT_EQ(Error(head + "1. e4-e3 {Red Pyramid on e5 hit}"),
            "line 3: move 1. e4-e3: the comment \"Red Pyramid on e5 hit\" "
            "disagrees with the replay: the laser hit nothing");
  EXPECT_EQ(Error(head + "1. e4-e3 f5-f6\n2. j1L {Red Pharaoh on e8 hit}"),
            "line 4: move 2. j1L: the comment \"Red Pharaoh on e8 hit\" "
            "disagrees with the replay: \"Silver Anubis on f1 hit\"");
  EXPECT_EQ(Error(head + "1. e4-e3 f5-f6 2. j1L {note}\n"
                         "{Silver Anubis on f1 hit}"),
            "line 4: move 2. j1L: the comment \"Silver Anubis on f1 hit\" "
            "reads as a hit comment, which comes first after its move");
  EXPECT_EQ(Error(head + "1. e4-e3 f5-f6 2. j1L {Silver Anubis on f1 hit}\n"
                         "{Silver Anubis on f1 hit}"),
            "line 4: move 2. j1L: the comment \"Silver Anubis on f1 hit\" "
            "reads as a hit comment, which comes first after its move");
  EXPECT_EQ(Error(head + "{a big hit} 1. e4-e3"),
            "line 3: the comment \"a big hit\" reads as a hit comment, but "
            "no move has been played");
  // Results.
  EXPECT_EQ(Error(head + "1. e4-e3 * f5-f6"),
            "line 3: \"f5-f6\" after the result: a record ends with its "
            "result token, the next one starts with its headers");
  EXPECT_EQ(Error(head + "1. e4-e3 *\n{late}"),
            "line 4: \"{late}\" after the result: a record ends with its "
            "result token, the next one starts with its headers");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Result \"1-0\"]\n\n1. e4-e3\n0-1"),
            "line 5: the moves end in \"0-1\" but header Result is \"1-0\"");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Result \"1-0\"]\n\n1. e4-e3"),
            "line 2: the record gives the result \"1-0\" but replaying it "
            "gives \"*\" (the game is still going)");
  EXPECT_EQ(Error(head + "1. e4-e3\n\n1-0"),
            "line 5: the record gives the result \"1-0\" but replaying it "
            "gives \"*\" (the game is still going)");
  // Headers.
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Result \"x\"]\n"),
            "line 2: header Result \"x\": must be \"1-0\", \"0-1\", "
            "\"1/2-1/2\" or \"*\"");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Termination \"boredom\"]\n"),
            "line 2: header Termination \"boredom\": not a known reason "
            "(\"none\", \"pharaoh hit\", \"both pharaohs hit\", "
            "\"resignation\", \"agreed draw\", \"repetition claimed\", "
            "\"repetition\", \"ply limit\", \"time forfeit\")");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Termination \"resignation\"]\n"
                  "[Result \"1/2-1/2\"]\n"),
            "line 2: header Termination \"resignation\": needs a result of "
            "\"1-0\" or \"0-1\" to say who resigned");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Termination \"pharaoh hit\"]\n"),
            "line 2: header Termination \"pharaoh hit\": the moves end with "
            "the game still going");
  EXPECT_EQ(Error("\n\n[Event \"x\"]\n\n1. e4-e3"),
            "line 3: a game record needs a Setup or a Position header for "
            "its start");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Position \"x\"]\n"),
            "line 2: a game record has either a Setup or a Position header, "
            "not both");
  EXPECT_TRUE(absl::StartsWith(Error("[Setup \"classic-9\"]\n"),
                               "line 1: header Setup \"classic-9\": "));
  EXPECT_EQ(Error("[Position \"10/10 s 2\"]\n"),
            "line 1: header Position \"10/10 s 2\": position has 2 ranks, "
            "needs 8");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Edition \"Khet 1.0\"]\n"),
            "line 2: header Edition \"Khet 1.0\": disagrees with the start, "
            "which is Khet 2.0");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Edition \"3\"]\n"),
            "line 2: header Edition \"3\": must be \"Khet 1.0\" or \"Khet "
            "2.0\"");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[PlyLimit \"-1\"]\n"),
            "line 2: header PlyLimit \"-1\": must be a whole number, 0 for no "
            "limit");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Repetition \"never\"]\n"),
            "line 2: header Repetition \"never\": must be \"claim\" or "
            "\"automatic\"");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[BothPharaohsHit \"x\"]\n"),
            "line 2: header BothPharaohsHit \"x\": must be \"mover loses\" "
            "or \"draw\"");
  EXPECT_EQ(Error("[Setup \"classic-2\"]\n[Setup \"classic-2\"]\n"),
            "line 2: header Setup appears twice");
  EXPECT_EQ(Error("[Setup classic-2]\n"),
            "line 1: header \"[Setup classic-2]\": the value must be in "
            "double quotes");
  EXPECT_EQ(Error("[Setup \"classic-2\n"),
            "line 1: header \"[Setup \\\"classic-2\": a header is written "
            "[Name \"value\"] on a line of its own");
  EXPECT_EQ(Error("[ \"classic-2\"]\n"),
            "line 1: header \"[ \\\"classic-2\\\"]\": the header has no name");
  EXPECT_EQ(Error("[Setup \"a\"b\"]\n"),
            "line 1: header \"[Setup \\\"a\\\"b\\\"]\": a \" inside the value "
            "must be written \\\"");
  EXPECT_EQ(Error("[Setup \"a\\\"]\n"),
            "line 1: header \"[Setup \\\"a\\\\\\\"]\": the value ends with a "
            "lone \\");
  EXPECT_EQ(Error(head + "1. e4-e3\n[Red \"bob\"]\n"),
            "line 4: header \"[Red \\\"bob\\\"]\" comes after the moves; a "
            "record ends with its result token before the next one's "
            "headers");
}

// ---- Random games ----------------------------------------------------------

// Comment text from pieces that exercise the escapes and the hit rule.
std::string RandomComment(std::mt19937& random) {
  static constexpr std::string_view kPieces[] = {
      "good", "e4-e5",       " ",   "{",
      "}",    "\\",          "\n",  "\"",
      " hit", "hit",         "1-0", "[Event \"x\"]",
      "3...", "caf\xc3\xa9", "\t",  "Red Pyramid on e5 hit"};
  std::string out;
  for (int n = random() % 5; n > 0; --n) {
    out += kPieces[random() % std::size(kPieces)];
  }
  return out;
}

// A game of random legal moves from a setup or, now and then, from it with
// Red to move; played to its end or cut short, some ended by a resignation
// or an agreed draw, a repetition claimed when one may be.
Game RandomGame(std::mt19937& random, const SetupInfo& setup) {
  Position start = Start(setup.id);
  if (random() % 8 == 0) start.FlipSideToMove();
  RuleOptions options;
  options.both_pharaohs_hit_draws = random() % 2 == 0;
  options.automatic_repetition_draw = random() % 2 == 0;
  if (random() % 4 == 0) options.ply_limit = 1 + random() % 80;
  Game game(start, options);
  const int plies = random() % 3 == 0 ? 1000 : random() % 120;
  while (!game.over() && game.ply() < plies) {
    if (game.RepetitionCount() >= 3 && random() % 2 == 0) {
      EXPECT_TRUE(
          game.ClaimRepetitionDraw(game.position().side_to_move()).ok());
      break;
    }
    MoveList moves;
    GenerateMoves(game.position(), &moves);
    EXPECT_GT(moves.size, 0);
    if (moves.size == 0) break;
    EXPECT_TRUE(game.Play(moves.moves[random() % moves.size]).ok());
  }
  if (!game.over()) {
    switch (random() % 10) {
      case 0:
        EXPECT_TRUE(
            game.Resign(random() % 2 == 0 ? Color::kSilver : Color::kRed).ok());
        break;
      case 1:
        EXPECT_TRUE(game.AgreeDraw().ok());
        break;
      default:
        break;
    }
  }
  return game;
}

GameRecord RandomRecord(std::mt19937& random, const SetupInfo& setup) {
  static const GameHeaders kHeaders = {{"Event", "club \"night\""},
                                       {"Site", "Cairo"},
                                       {"Date", "2024.05.01"},
                                       {"Silver", "alice"},
                                       {"Red", "bob \\ b"},
                                       {"TimeControl", "fischer 300+5"},
                                       {"Round", "3"},
                                       {"Annotator", "khet-engine depth 6"}};
  GameRecord record{{}, RandomGame(random, setup), {}, 1};
  for (const auto& header : kHeaders) {
    if (random() % 2 == 0) record.headers.push_back(header);
  }
  std::shuffle(record.headers.begin(), record.headers.end(), random);
  record.comments.resize(random() % (record.game.ply() + 2));
  for (std::vector<std::string>& comments : record.comments) {
    if (random() % 6 != 0) continue;
    for (int n = 1 + random() % 2; n > 0; --n) {
      comments.push_back(RandomComment(random));
    }
  }
  return record;
}

// Every header the caller gave is read back with its value.
void ExpectHeadersKept(const GameHeaders& given, const GameHeaders& read) {
  for (const auto& header : given) {
    EXPECT_NE(std::find(read.begin(), read.end(), header), read.end())
        << header.first;
  }
}

TEST(GameRecordTest, RandomGamesRoundTripInFilesOfSeveral) {
  std::mt19937 random(20240601);
  std::vector<int> reasons(8);
  int hit_comments = 0, split_comments = 0, stack_comments = 0;
  for (const SetupInfo& setup : AllSetups()) {
    for (int played = 0; played < kRandomGamesPerSetup;) {
      std::vector<GameRecord> records;
      for (int n = 1 + random() % 4; n > 0; --n, ++played) {
        records.push_back(RandomRecord(random, setup));
        ++reasons[static_cast<int>(records.back().game.result().reason)];
      }
      const std::string text = FormatGameRecords(records);
      absl::StatusOr<std::vector<GameRecord>> read = ParseGameRecords(text);
      ASSERT_TRUE(read.ok()) << read.status() << "\n" << text;
      ASSERT_EQ(read->size(), records.size()) << text;
      int line = 1;
      for (size_t i = 0; i < records.size(); ++i) {
        const GameRecord& record = (*read)[i];
        ExpectSameGame(record.game, records[i].game);
        EXPECT_EQ(record.comments,
                  Normalized(records[i].comments, records[i].game));
        ExpectHeadersKept(records[i].headers, record.headers);
        EXPECT_EQ(record.line, line);
        const std::string one = FormatGameRecord(record);
        EXPECT_EQ(one, FormatGameRecord(records[i].game, records[i].headers,
                                        records[i].comments));
        line += static_cast<int>(std::count(one.begin(), one.end(), '\n')) + 1;
        hit_comments += absl::StrContains(one, " hit}");
        split_comments += absl::StrContains(one, "{beam split on ");
        stack_comments += absl::StrContains(one, " stack on ");
      }
      ASSERT_EQ(FormatGameRecords(*read), text);
    }
  }
  // The games covered what they are meant to.
  EXPECT_GT(reasons[static_cast<int>(ResultReason::kNone)], 0);
  EXPECT_GT(reasons[static_cast<int>(ResultReason::kPharaohHit)], 0);
  EXPECT_GT(reasons[static_cast<int>(ResultReason::kResignation)], 0);
  EXPECT_GT(reasons[static_cast<int>(ResultReason::kAgreedDraw)], 0);
  EXPECT_GT(reasons[static_cast<int>(ResultReason::kPlyLimit)], 0);
  EXPECT_GT(hit_comments, 0);
  EXPECT_GT(split_comments, 0);
  EXPECT_GT(stack_comments, 0);
}

}  // namespace
}  // namespace khet
