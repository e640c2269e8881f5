// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// End to end: a real khetd on a free loopback port with a temporary data
// directory, driven only through the khetctl binary. The engine picks the
// moves (a Pharaoh hit when one exists, else a seeded random move that does
// not hit the mover's own Pharaoh) and checks every answer against its own
// replay of the game.
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/move.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/position.h"
#include "engine/setups.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "khet/v1/khet_service.pb.h"
#include "tests/support/child_process.h"
#include "tests/support/khetd_child.h"
#include "tests/support/text_file.h"

#ifndef KHETD_PATH
#error "KHETD_PATH must name the khetd binary"
#endif
#ifndef KHETCTL_PATH
#error "KHETCTL_PATH must name the khetctl binary"
#endif

namespace khet {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Generous: sanitizer builds start processes slowly.
constexpr absl::Duration kCallTimeout = absl::Seconds(60);
constexpr absl::Duration kStartTimeout = absl::Seconds(60);

// ---- khetd and khetctl
// --------------------------------------------------------

struct CtlResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs khetctl against `server` with `args` to its end.
CtlResult Ctl(const KhetdChild& server, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {KHETCTL_PATH, "--server", server.address()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::unique_ptr<ChildProcess> process = ChildProcess::Start(argv);
  if (process == nullptr) return {};
  std::optional<ChildProcess::Output> output = process->ReadAll(kCallTimeout);
  if (!output.has_value()) {
    ADD_FAILURE() << "khetctl " << absl::StrJoin(args, " ") << " timed out";
    return {};
  }
  return {output->exit_code, std::move(output->out), std::move(output->err)};
}

template <typename Message>
Message ParseJson(const std::string& json) {
  Message message;
  const auto status =
      google::protobuf::util::JsonStringToMessage(json, &message);
  EXPECT_TRUE(status.ok()) << status.ToString() << " in:\n" << json;
  return message;
}

// Runs khetctl with --json, expects success and parses the answer.
template <typename Message>
Message CtlJson(const KhetdChild& server, std::vector<std::string> args) {
  args.push_back("--json");
  const CtlResult result = Ctl(server, args);
  EXPECT_EQ(result.exit_code, 0)
      << "khetctl " << absl::StrJoin(args, " ") << ": " << result.err;
  return ParseJson<Message>(result.out);
}

// ---- Games
// --------------------------------------------------------------------

// A board with both seats taken, and the game as the test replays it.
struct Board {
  std::string id;
  std::string owner;
  std::string silver;
  std::string red;
  Game game;

  const std::string& token_to_move() const {
    return game.position().side_to_move() == Color::kSilver ? silver : red;
  }
};

Board StartGame(const KhetdChild& server, const std::string& setup_id) {
  const auto created = CtlJson<v1::CreateSessionResponse>(
      server, {"create", "--name", "e2e " + setup_id, "--setup", setup_id});
  const auto silver = CtlJson<v1::JoinSeatResponse>(
      server,
      {"join", created.session().id(), "--name", "alice", "--color", "silver"});
  const auto red = CtlJson<v1::JoinSeatResponse>(
      server,
      {"join", created.session().id(), "--name", "bob", "--color", "red"});
  EXPECT_EQ(silver.color(), v1::SILVER);
  EXPECT_EQ(red.color(), v1::RED);
  EXPECT_EQ(red.session().status(), v1::IN_PROGRESS);
  absl::StatusOr<Position> start = SetupPosition(setup_id);
  EXPECT_TRUE(start.ok()) << start.status();
  return Board{created.session().id(), created.owner_token(),
               silver.player_token(), red.player_token(), Game(*start)};
}

// The test's player: a move that hits the opponent's Pharaoh (and not the
// mover's) if there is one, else a random one that spares the mover's.
Move ChooseMove(const Position& pos, std::mt19937& rng) {
  const Color me = pos.side_to_move();
  MoveList list;
  GenerateMoves(pos, &list);
  std::vector<Move> safe;
  for (const Move move : list) {
    Position after = pos;
    const PharaohsHit hit = MakeMove(&after, move);
    if (PharaohWasHit(hit, me)) continue;
    if (PharaohWasHit(hit, Opponent(me))) return move;
    safe.push_back(move);
  }
  if (safe.empty()) return list.moves[0];
  return safe[std::uniform_int_distribution<size_t>(0, safe.size() - 1)(rng)];
}

// Plays one move through khetctl and checks the answer against the replay.
void PlayOne(const KhetdChild& server, Board& board, std::mt19937& rng) {
  const Position before = board.game.position();
  const Move move = ChooseMove(before, rng);
  const std::string notation = FormatMove(before, move);
  const auto response = CtlJson<v1::MakeMoveResponse>(
      server, {"move", board.id, notation, "--token", board.token_to_move()});
  ASSERT_TRUE(board.game.Play(move).ok()) << notation;
  EXPECT_EQ(response.move().notation(), notation);
  EXPECT_EQ(response.board().position(), FormatPosition(board.game.position()))
      << "after " << notation;
  EXPECT_FALSE(response.shot().text().empty());
}

// Plays until the game ends, at most `max_plies` more plies.
void PlayToTheEnd(const KhetdChild& server, Board& board, std::mt19937& rng,
                  int max_plies = 600) {
  for (int i = 0; i < max_plies && !board.game.over(); ++i) {
    ASSERT_NO_FATAL_FAILURE(PlayOne(server, board, rng));
  }
  ASSERT_TRUE(board.game.over()) << "no result after " << max_plies << " plies";
}

// ---- Fixture
// ------------------------------------------------------------------

class EndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "khet-e2e-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    data_dir_ = dir_ + "/data";
    log_path_ = dir_ + "/khetd.log";
  }

  void TearDown() override {
    server_.reset();
    if (HasFailure()) {
      std::cerr << "khetd log:\n" << ReadTextFile(log_path_);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  void StartServer() {
    absl::StatusOr<std::unique_ptr<KhetdChild>> server =
        KhetdChild::Start(KHETD_PATH,
                          {"--data_dir=" + data_dir_, "--store=sqlite",
                           "--timeout_sweep_seconds=1"},
                          log_path_, {.start_timeout = kStartTimeout});
    ASSERT_TRUE(server.ok()) << server.status() << "; log:\n"
                             << ReadTextFile(log_path_);
    server_ = *std::move(server);
  }

  std::string dir_;
  std::string data_dir_;
  std::string log_path_;
  std::unique_ptr<KhetdChild> server_;
};

// ---- Whole games
// --------------------------------------------------------------

class WholeGameTest : public EndToEndTest,
                      public ::testing::WithParamInterface<const char*> {};

TEST_P(WholeGameTest, PlaysToAPharaohHit) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  Board board = StartGame(*server_, GetParam());
  std::mt19937 rng(1);
  ASSERT_NO_FATAL_FAILURE(PlayToTheEnd(*server_, board, rng));
  ASSERT_EQ(board.game.result().reason, ResultReason::kPharaohHit);

  const auto session = CtlJson<v1::Session>(*server_, {"get", board.id});
  EXPECT_EQ(session.status(), v1::FINISHED);
  EXPECT_EQ(session.result().reason(), v1::PHARAOH_HIT);
  EXPECT_EQ(session.result().outcome(),
            board.game.result().outcome == Outcome::kSilverWins
                ? v1::SILVER_WINS
                : v1::RED_WINS);
  EXPECT_EQ(session.moves_size(), board.game.ply());
  EXPECT_EQ(session.board().position(), FormatPosition(board.game.position()));

  // A finished game takes no more moves.
  MoveList list;
  GenerateMoves(board.game.position(), &list);
  const CtlResult late =
      Ctl(*server_,
          {"move", board.id, FormatMove(board.game.position(), list.moves[0]),
           "--token", board.token_to_move()});
  EXPECT_EQ(late.exit_code, 1);
  EXPECT_THAT(late.err, HasSubstr("is over"));
  EXPECT_THAT(late.err, Not(HasSubstr("FAILED_PRECONDITION")));

  // The human-readable board shows the last laser.
  const CtlResult text = Ctl(*server_, {"board", board.id});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("*"));  // the hit Pharaoh is marked
  // It says who won instead of whose move it would be, and names the pieces.
  EXPECT_THAT(text.out,
              HasSubstr("Game over: " + session.result().text() + " ("));
  EXPECT_THAT(text.out, Not(HasSubstr(" to move, Khet")));
  EXPECT_THAT(text.out, HasSubstr("K Pharaoh"));
}

INSTANTIATE_TEST_SUITE_P(
    Setups, WholeGameTest,
    ::testing::Values("classic-1", "classic-2", "osiris"),
    [](const ::testing::TestParamInfo<const char*>& param) {
      std::string name = param.param;
      for (char& c : name) {
        if (c == '-') c = '_';
      }
      return name;
    });

// ---- Crash and restart
// ----------------------------------------------------------

TEST_F(EndToEndTest, SurvivesSigkillAndRestart) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  Board board = StartGame(*server_, "classic-2");
  const auto settings = CtlJson<v1::Session>(
      *server_, {"settings", board.id, "--quiet", "--timeout_seconds", "900",
                 "--color_scheme", "nile", "--token", board.owner});
  EXPECT_TRUE(settings.settings().quiet());
  std::mt19937 rng(7);
  for (int i = 0; i < 6 && !board.game.over(); ++i) {
    ASSERT_NO_FATAL_FAILURE(PlayOne(*server_, board, rng));
  }
  ASSERT_FALSE(board.game.over()) << "pick a seed whose game lasts longer";
  const auto before = CtlJson<v1::Session>(*server_, {"get", board.id});

  server_->process().Signal(SIGKILL);
  EXPECT_EQ(server_->process().Wait(absl::Seconds(30)), 128 + SIGKILL);
  ASSERT_NO_FATAL_FAILURE(StartServer());  // same data directory, new port

  const auto after = CtlJson<v1::Session>(*server_, {"get", board.id});
  EXPECT_EQ(after.version(), before.version());
  EXPECT_EQ(after.status(), v1::IN_PROGRESS);
  EXPECT_THAT(after.moves(), ::testing::ElementsAreArray(before.moves()));
  EXPECT_EQ(after.board().position(), before.board().position());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      after.settings(), before.settings()))
      << after.settings().DebugString();
  ASSERT_EQ(after.seats_size(), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
        after.seats(i), before.seats(i)))
        << after.seats(i).DebugString();
  }
  // The tokens still work: the game goes on to its end.
  ASSERT_NO_FATAL_FAILURE(PlayToTheEnd(*server_, board, rng));
  const auto finished = CtlJson<v1::Session>(*server_, {"get", board.id});
  EXPECT_EQ(finished.status(), v1::FINISHED);
  EXPECT_EQ(finished.moves_size(), board.game.ply());
}

// ---- The archive of games
// ------------------------------------------------------

TEST_F(EndToEndTest, ArchivedGamesSurviveSigkillAndReplayEveryPly) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  std::mt19937 rng(3);
  Board finished = StartGame(*server_, "classic-2");
  ASSERT_NO_FATAL_FAILURE(PlayToTheEnd(*server_, finished, rng));
  Board abandoned = StartGame(*server_, "classic-2");
  for (int i = 0; i < 4; ++i) {
    ASSERT_NO_FATAL_FAILURE(PlayOne(*server_, abandoned, rng));
  }
  ASSERT_FALSE(abandoned.game.over());
  CtlJson<v1::Session>(*server_,
                       {"reset", abandoned.id, "--token", abandoned.owner});
  const std::string finished_game = finished.id + "-g1";
  const std::string abandoned_game = abandoned.id + "-g1";
  const CtlResult record_before =
      Ctl(*server_, {"record", finished.id, "--game", finished_game});
  ASSERT_EQ(record_before.exit_code, 0) << record_before.err;
  // The abandoned game's analysis, waited for, is kept with it.
  const CtlResult analysed =
      Ctl(*server_, {"analyze", abandoned.id, "--game", abandoned_game,
                     "--ms_per_ply", "10"});
  ASSERT_EQ(analysed.exit_code, 0) << analysed.err;
  EXPECT_THAT(analysed.out, HasSubstr(abandoned_game + ", 4 plies, 10 ms"));

  server_->process().Signal(SIGKILL);
  EXPECT_EQ(server_->process().Wait(absl::Seconds(30)), 128 + SIGKILL);
  ASSERT_NO_FATAL_FAILURE(StartServer());

  // Both games are listed, newest first, and filter by result and player.
  const auto all = CtlJson<v1::ListGamesResponse>(*server_, {"games"});
  ASSERT_EQ(all.games_size(), 2);
  EXPECT_EQ(all.games(0).id(), abandoned_game);
  EXPECT_EQ(all.games(0).result(), "*");
  EXPECT_EQ(all.games(0).plies(), 4);
  EXPECT_EQ(all.games(1).id(), finished_game);
  EXPECT_EQ(all.games(1).plies(), finished.game.ply());
  EXPECT_EQ(all.games(1).silver_player(), "alice");
  const auto unfinished = CtlJson<v1::ListGamesResponse>(
      *server_, {"games", "--result", "*", "--player", "bob"});
  ASSERT_EQ(unfinished.games_size(), 1);
  EXPECT_EQ(unfinished.games(0).id(), abandoned_game);
  const auto of_one =
      CtlJson<v1::ListGamesResponse>(*server_, {"games", finished.id});
  ASSERT_EQ(of_one.games_size(), 1);

  // The record is served unchanged and replays to the game that was played.
  const CtlResult record_after =
      Ctl(*server_, {"record", finished.id, "--game", finished_game});
  ASSERT_EQ(record_after.exit_code, 0) << record_after.err;
  EXPECT_EQ(record_after.out, record_before.out);
  const CtlResult analysed_after =
      Ctl(*server_,
          {"analyze", abandoned.id, "--game", abandoned_game, "--no_wait"});
  ASSERT_EQ(analysed_after.exit_code, 0) << analysed_after.err;
  EXPECT_EQ(analysed_after.out, analysed.out);
  const CtlResult analysed_record =
      Ctl(*server_, {"record", abandoned.id, "--game", abandoned_game});
  EXPECT_THAT(analysed_record.out,
              HasSubstr("{computer analysis, 10 ms a ply"));

  // Every ply of the archived game is the position the live game had.
  absl::StatusOr<Position> start = SetupPosition("classic-2");
  ASSERT_TRUE(start.ok());
  Game replay(*start);
  for (int ply = 0; ply <= finished.game.ply(); ++ply) {
    std::string move;
    if (ply > 0) {
      const Move played = finished.game.moves()[ply - 1];
      move = FormatMove(replay.position(), played);
      ASSERT_TRUE(replay.Play(played).ok());
    }
    const auto at = CtlJson<v1::GetPositionResponse>(
        *server_, {"position", finished.id, "--game", finished_game, "--ply",
                   absl::StrCat(ply)});
    EXPECT_EQ(at.board().position(), FormatPosition(replay.position()))
        << "ply " << ply;
    EXPECT_EQ(at.move().notation(), move) << "ply " << ply;
  }

  // The abandoned game goes on in a new session from its second ply.
  const std::string record_path = dir_ + "/abandoned.khet";
  const CtlResult abandoned_record =
      Ctl(*server_, {"record", abandoned.id, "--game", abandoned_game});
  ASSERT_EQ(abandoned_record.exit_code, 0) << abandoned_record.err;
  {
    std::ofstream out(record_path);
    out << abandoned_record.out;
  }
  const auto created = CtlJson<v1::CreateSessionResponse>(
      *server_,
      {"create", "--record", record_path, "--ply", "2", "--name", "goes on"});
  ASSERT_EQ(created.session().moves_size(), 2);
  EXPECT_EQ(created.session().status(), v1::IN_PROGRESS);
  // As the README has it, without --name: named as the record's board.
  const auto unnamed = CtlJson<v1::CreateSessionResponse>(
      *server_, {"create", "--record", record_path, "--ply", "2"});
  ASSERT_EQ(unnamed.session().moves_size(), 2);
  EXPECT_FALSE(unnamed.session().name().empty());
  EXPECT_THAT(
      abandoned_record.out,
      HasSubstr(absl::StrCat("[Board \"", unnamed.session().name(), "\"]")));
  Board goes_on{created.session().id(), created.owner_token(), "", "",
                Game(*start)};
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(goes_on.game.Play(abandoned.game.moves()[i]).ok());
  }
  goes_on.silver =
      CtlJson<v1::JoinSeatResponse>(*server_, {"join", goes_on.id, "--name",
                                               "carol", "--color", "silver"})
          .player_token();
  goes_on.red =
      CtlJson<v1::JoinSeatResponse>(
          *server_, {"join", goes_on.id, "--name", "dan", "--color", "red"})
          .player_token();
  for (int i = 0; i < 4 && !goes_on.game.over(); ++i) {
    ASSERT_NO_FATAL_FAILURE(PlayOne(*server_, goes_on, rng));
  }

  // Errors name the problem.
  const CtlResult beyond =
      Ctl(*server_, {"position", finished.id, "--game", finished_game, "--ply",
                     absl::StrCat(finished.game.ply() + 1)});
  EXPECT_EQ(beyond.exit_code, 1);
  EXPECT_THAT(beyond.err, HasSubstr("Refused: ply "));
  const CtlResult unknown =
      Ctl(*server_, {"record", finished.id, "--game", "nope-g1"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("Not found: "));
  {
    std::ofstream out(record_path);
    out << "[Setup \"classic-2\"]\n\n1. a1-a9 *\n";
  }
  const CtlResult bad = Ctl(*server_, {"create", "--record", record_path});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("line 3"));
  // A file in Latin-1, not UTF-8: khetctl says where, and sends nothing.
  {
    std::ofstream out(record_path, std::ios::binary);
    out << "[Setup \"classic-2\"]\n[Event \"caf\xe9\"]\n\n1. j4-j3 *\n";
  }
  const CtlResult latin1 = Ctl(*server_, {"create", "--record", record_path});
  EXPECT_EQ(latin1.exit_code, 2);
  EXPECT_THAT(latin1.err, HasSubstr("not UTF-8 text: byte 31 (line 2, column "
                                    "12) is 0xE9"));
  EXPECT_THAT(latin1.err, Not(HasSubstr("does not know this call")));
}

// ---- Concurrent moves
// -----------------------------------------------------------

TEST_F(EndToEndTest, ConcurrentMovesForOneVersionExactlyOneWins) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  Board board = StartGame(*server_, "classic-2");
  for (int round = 0; round < 4; ++round) {
    const auto session = CtlJson<v1::Session>(*server_, {"get", board.id});
    const std::string version = absl::StrCat(session.version());
    // Two different legal moves of the side to move that end nothing.
    const Position& pos = board.game.position();
    MoveList list;
    GenerateMoves(pos, &list);
    std::vector<Move> quiet;
    for (const Move move : list) {
      Position after = pos;
      if (MakeMove(&after, move) == 0) quiet.push_back(move);
    }
    ASSERT_GE(quiet.size(), 2u);
    const Move moves[2] = {quiet[round], quiet[quiet.size() - 1 - round]};
    CtlResult results[2];
    std::thread clients[2];
    for (int i = 0; i < 2; ++i) {
      clients[i] = std::thread([&, i] {
        results[i] = Ctl(*server_, {"move", board.id, FormatMove(pos, moves[i]),
                                    "--expected_version", version, "--token",
                                    board.token_to_move(), "--json"});
      });
    }
    for (std::thread& client : clients) client.join();
    int winners = 0;
    for (int i = 0; i < 2; ++i) {
      if (results[i].exit_code == 0) {
        ++winners;
        const auto response = ParseJson<v1::MakeMoveResponse>(results[i].out);
        EXPECT_EQ(response.version(), session.version() + 1);
        ASSERT_TRUE(board.game.Play(moves[i]).ok());
      } else {
        EXPECT_EQ(results[i].exit_code, 1);
        EXPECT_THAT(results[i].err, HasSubstr("not the expected"))
            << results[i].err;
      }
    }
    ASSERT_EQ(winners, 1) << results[0].err << results[1].err;
    const auto now = CtlJson<v1::Session>(*server_, {"get", board.id});
    EXPECT_EQ(now.version(), session.version() + 1);
    EXPECT_EQ(now.board().position(), FormatPosition(board.game.position()));
  }
}

// ---- Watching
// -------------------------------------------------------------------

TEST_F(EndToEndTest, WatchSeesMovesAndTheDeletion) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  Board board = StartGame(*server_, "classic-2");
  const auto session = CtlJson<v1::Session>(*server_, {"get", board.id});
  const std::string after = absl::StrCat(session.version());
  std::unique_ptr<ChildProcess> text_watch =
      ChildProcess::Start({KHETCTL_PATH, "--server", server_->address(),
                           "watch", board.id, "--after_version", after});
  std::unique_ptr<ChildProcess> json_watch = ChildProcess::Start(
      {KHETCTL_PATH, "--server", server_->address(), "watch", board.id,
       "--after_version", after, "--json"});
  ASSERT_NE(text_watch, nullptr);
  ASSERT_NE(json_watch, nullptr);

  std::mt19937 rng(3);
  std::vector<std::string> played;
  for (int i = 0; i < 4 && !board.game.over(); ++i) {
    const Position before = board.game.position();
    ASSERT_NO_FATAL_FAILURE(PlayOne(*server_, board, rng));
    played.push_back(FormatMove(before, board.game.moves().back()));
  }
  for (size_t i = 0; i < played.size(); ++i) {
    const std::optional<std::string> line = text_watch->ReadLine(kCallTimeout);
    ASSERT_TRUE(line.has_value()) << "move " << i;
    EXPECT_THAT(*line, HasSubstr(absl::StrCat("v", session.version() + 1 + i,
                                              " move: ")));
    EXPECT_THAT(*line, HasSubstr(played[i]));
    EXPECT_THAT(*line, HasSubstr("laser: beam 0"));

    const std::optional<std::string> json = json_watch->ReadLine(kCallTimeout);
    ASSERT_TRUE(json.has_value()) << "move " << i;
    const auto event = ParseJson<v1::Event>(*json);
    EXPECT_EQ(event.version(), session.version() + 1 + static_cast<int>(i));
    ASSERT_EQ(event.kind_case(), v1::Event::kMoveMade);
    EXPECT_EQ(event.move_made().move().notation(), played[i]);
  }

  // Deleting the session ends both watches normally.
  const CtlResult deleted =
      Ctl(*server_, {"delete", board.id, "--token", board.owner});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  const std::optional<std::string> last = text_watch->ReadLine(kCallTimeout);
  ASSERT_TRUE(last.has_value());
  EXPECT_THAT(*last, HasSubstr("session deleted"));
  EXPECT_EQ(text_watch->Wait(kCallTimeout), 0);
  EXPECT_EQ(json_watch->Wait(kCallTimeout), 0);
}

// A flag falls by itself: khetd's flag timer ends the game when the time
// runs out, with no request to make it happen, and watchers hear it.
TEST_F(EndToEndTest, AFlagFallsWithoutARequest) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const auto created = CtlJson<v1::CreateSessionResponse>(
      *server_, {"create", "--name", "blitz", "--fischer", "1.5+0"});
  ASSERT_TRUE(created.session().has_clocks());
  EXPECT_EQ(created.session().clocks().silver_ms(), 1500);
  const std::string id = created.session().id();
  CtlJson<v1::JoinSeatResponse>(
      *server_, {"join", id, "--name", "alice", "--color", "silver"});
  const auto red = CtlJson<v1::JoinSeatResponse>(
      *server_, {"join", id, "--name", "bob", "--color", "red"});
  ASSERT_EQ(red.session().status(), v1::IN_PROGRESS);
  std::unique_ptr<ChildProcess> watch = ChildProcess::Start(
      {KHETCTL_PATH, "--server", server_->address(), "watch", id,
       "--after_version", absl::StrCat(red.session().version())});
  ASSERT_NE(watch, nullptr);
  const absl::Time started = absl::Now();
  const std::optional<std::string> line = watch->ReadLine(absl::Seconds(20));
  ASSERT_TRUE(line.has_value());
  EXPECT_THAT(*line, HasSubstr("game over: Red wins: Silver's time ran out"));
  EXPECT_THAT(*line, HasSubstr("clocks: Silver 0:00, Red 0:01"));
  // Not before the flag (1.5 s after the game began), and not much after.
  EXPECT_GE(absl::Now() - started, absl::Milliseconds(1000));
  const CtlResult get = Ctl(*server_, {"get", id});
  EXPECT_THAT(get.out, HasSubstr("clocks: Silver 0:00, Red 0:01"));
  EXPECT_THAT(get.out, HasSubstr("result: Red wins: Silver's time ran out"));
  watch->Signal(SIGTERM);
  watch->Wait(kCallTimeout);
}

// ---- Interactive play
// -------------------------------------------------------------

TEST_F(EndToEndTest, PlayShowsBothSidesMovesUntilTheGameEnds) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  Board board = StartGame(*server_, "classic-2");
  std::unique_ptr<ChildProcess> play = ChildProcess::Start(
      {KHETCTL_PATH, "--server", server_->address(), "play", "--session",
       board.id, "--token", board.silver, "--color", "silver"},
      {.stdin_pipe = true});
  ASSERT_NE(play, nullptr);
  std::string seen;
  // The prompt ends no line; the help line before it does.
  ASSERT_TRUE(
      play->ReadLineWith("type a move", kCallTimeout, &seen).has_value())
      << seen;
  // Our move, typed in, comes back with its laser and the board.
  ASSERT_TRUE(play->WriteStdin("c1R\n"));
  ASSERT_TRUE(
      play->ReadLineWith("move: Silver c1R", kCallTimeout, &seen).has_value())
      << seen;
  ASSERT_TRUE(
      play->ReadLineWith("Red to move", kCallTimeout, &seen).has_value())
      << seen;
  EXPECT_THAT(seen, HasSubstr("laser: beam 0"));
  // A move out of turn is refused with the reason and the game goes on.
  ASSERT_TRUE(play->WriteStdin("a1-a2\n"));
  ASSERT_TRUE(play->ReadLineWith("Not your turn: it is Red's move.",
                                 kCallTimeout, &seen)
                  .has_value())
      << seen;
  // The opponent's move, made elsewhere, shows up.
  const CtlResult red =
      Ctl(*server_, {"move", board.id, "g3R", "--token", board.red});
  ASSERT_EQ(red.exit_code, 0) << red.err;
  ASSERT_TRUE(
      play->ReadLineWith("move: Red g3R", kCallTimeout, &seen).has_value())
      << seen;
  // Resigning ends the game, and with it the session of play.
  ASSERT_TRUE(play->WriteStdin("resign\n"));
  ASSERT_TRUE(play->ReadLineWith("Game over: Red wins: Silver resigned",
                                 kCallTimeout, &seen)
                  .has_value())
      << seen;
  ASSERT_TRUE(
      play->ReadLineWith("the game is over", kCallTimeout, &seen).has_value())
      << seen;
  EXPECT_EQ(play->Wait(kCallTimeout), 0);
  const auto session = CtlJson<v1::Session>(*server_, {"get", board.id});
  EXPECT_EQ(session.result().outcome(), v1::RED_WINS);
  EXPECT_THAT(session.moves(), ::testing::ElementsAre("c1R", "g3R"));
}

// ---- The computer
// -------------------------------------------------------------

TEST_F(EndToEndTest, TwoComputersPlayAWholeGameWhileWatched) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const auto created = CtlJson<v1::CreateSessionResponse>(
      *server_, {"create", "--name", "machines", "--setup", "classic-2",
                 "--ply_limit", "60"});
  const std::string id = created.session().id();
  std::unique_ptr<ChildProcess> watch = ChildProcess::Start(
      {KHETCTL_PATH, "--server", server_->address(), "watch", id});
  ASSERT_NE(watch, nullptr);
  for (const char* color : {"silver", "red"}) {
    const auto seated = CtlJson<v1::Session>(
        *server_, {"computer", id, "--color", color, "--level", "1", "--token",
                   created.owner_token()});
    EXPECT_EQ(seated.seats(color[0] == 's' ? 0 : 1).computer_level(), 1);
  }
  // The watch shows both seats taken, the start, every move and the end;
  // the test replays the moves as they come.
  Game game(*SetupPosition("classic-2"), RuleOptions{.ply_limit = 60});
  std::string seen;
  while (true) {
    const std::optional<std::string> line = watch->ReadLine(absl::Seconds(120));
    ASSERT_TRUE(line.has_value()) << seen;
    absl::StrAppend(&seen, *line, "\n");
    if (absl::StrContains(*line, " game over: ")) break;
    const size_t at = line->find(" move: ");
    if (at == std::string::npos) continue;
    const std::vector<std::string> words =
        absl::StrSplit(line->substr(at + 7), ' ');
    ASSERT_GE(words.size(), 2u) << *line;
    EXPECT_EQ(words[0], game.position().side_to_move() == Color::kSilver
                            ? "Silver"
                            : "Red");
    EXPECT_THAT(*line, HasSubstr("(computer, level 1) plays " + words[1]));
    absl::StatusOr<Move> move = ParseMove(game.position(), words[1]);
    ASSERT_TRUE(move.ok()) << *line;
    ASSERT_TRUE(game.Play(*move).ok()) << *line;
  }
  EXPECT_THAT(seen, HasSubstr("taken by the computer (level 1, "));
  EXPECT_THAT(seen, HasSubstr("game started"));
  ASSERT_TRUE(game.over()) << seen;
  const auto session = CtlJson<v1::Session>(*server_, {"get", id});
  EXPECT_EQ(session.status(), v1::FINISHED);
  EXPECT_EQ(session.moves_size(), game.ply());
  EXPECT_LE(session.moves_size(), 60);
  EXPECT_EQ(session.board().position(), FormatPosition(game.position()));
  EXPECT_THAT(server_->log(),
              HasSubstr("computer session=" + id + " level=1 outcome=played"));
}

TEST_F(EndToEndTest, AHumanPlaysTheComputerThroughKhetctl) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  std::unique_ptr<ChildProcess> play = ChildProcess::Start(
      {KHETCTL_PATH, "--server", server_->address(), "play", "--vs-computer",
       "1", "--name", "tester", "--ply_limit", "40"},
      {.stdin_pipe = true});
  ASSERT_NE(play, nullptr);
  std::string seen;
  ASSERT_TRUE(
      play->ReadLineWith("type a move", kCallTimeout, &seen).has_value())
      << seen;
  const size_t at = seen.find("created session ");
  ASSERT_NE(at, std::string::npos) << seen;
  const std::string id = seen.substr(at + 16, seen.find('\n', at) - (at + 16));
  EXPECT_THAT(seen, HasSubstr("you play Silver"));
  EXPECT_THAT(seen, HasSubstr("Red: the computer (level 1, "));

  // Up to 8 moves each, unless the game ends first.
  std::mt19937 rng(5);
  bool over = false;
  for (int i = 0; i < 8 && !over; ++i) {
    const auto session = CtlJson<v1::Session>(*server_, {"get", id});
    ASSERT_EQ(session.status(), v1::IN_PROGRESS) << seen;
    ASSERT_EQ(session.board().side_to_move(), v1::SILVER) << seen;
    const Position pos = *ParsePosition(session.board().position());
    const std::string notation = FormatMove(pos, ChooseMove(pos, rng));
    ASSERT_TRUE(play->WriteStdin(notation + "\n"));
    ASSERT_TRUE(
        play->ReadLineWith("move: Silver " + notation, kCallTimeout, &seen)
            .has_value())
        << seen;
    over = CtlJson<v1::Session>(*server_, {"get", id}).status() == v1::FINISHED;
    if (over) break;
    // The computer answers by itself.
    ASSERT_TRUE(
        play->ReadLineWith("move: Red ", kCallTimeout, &seen).has_value())
        << seen;
    EXPECT_THAT(seen, HasSubstr("Red (computer, level 1) plays "));
    over = CtlJson<v1::Session>(*server_, {"get", id}).status() == v1::FINISHED;
  }
  if (over) {
    ASSERT_TRUE(
        play->ReadLineWith("the game is over", kCallTimeout, &seen).has_value())
        << seen;
  } else {
    ASSERT_TRUE(play->WriteStdin("quit\n"));
  }
  EXPECT_EQ(play->Wait(kCallTimeout), 0);
  const auto session = CtlJson<v1::Session>(*server_, {"get", id});
  EXPECT_GE(session.moves_size(), 1);
  EXPECT_EQ(session.seats(0).player_name(), "tester");
  EXPECT_TRUE(session.seats(1).computer());
}

TEST_F(EndToEndTest, SuggestLevelsAndLeaveThroughKhetctl) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const CtlResult levels = Ctl(*server_, {"levels"});
  ASSERT_EQ(levels.exit_code, 0) << levels.err;
  EXPECT_THAT(levels.out, HasSubstr("A'NOOB'IS"));
  EXPECT_THAT(levels.out, HasSubstr("KHET GRANDMASTER"));
  const CtlResult legend = Ctl(*server_, {"legend"});
  ASSERT_EQ(legend.exit_code, 0) << legend.err;
  EXPECT_THAT(legend.out, HasSubstr("Pharaoh"));
  EXPECT_THAT(legend.out, HasSubstr("left (anticlockwise)"));

  Board board = StartGame(*server_, "classic-2");
  const auto suggestion = CtlJson<v1::SuggestMoveResponse>(
      *server_, {"suggest", board.id, "--level", "2"});
  absl::StatusOr<Move> move =
      ParseMove(board.game.position(), suggestion.move().notation());
  ASSERT_TRUE(move.ok()) << suggestion.move().notation();
  const CtlResult text =
      Ctl(*server_, {"suggest", board.id, "--depth", "3", "--nodes", "100000"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("suggestion for Silver: "));
  EXPECT_THAT(text.out, HasSubstr("outlook: "));
  EXPECT_THAT(text.out, HasSubstr("line: "));
  const CtlResult both =
      Ctl(*server_, {"suggest", board.id, "--level", "2", "--depth", "3"});
  EXPECT_EQ(both.exit_code, 2);

  // Red leaves; the owner seats the computer there and takes it out again.
  ASSERT_EQ(Ctl(*server_, {"leave", board.id, "--token", board.red}).exit_code,
            0);
  const CtlResult seated = Ctl(
      *server_, {"computer", board.id, "--level", "1", "--token", board.owner});
  ASSERT_EQ(seated.exit_code, 0) << seated.err;
  EXPECT_THAT(seated.out, HasSubstr("Red: the computer (level 1, A'NOOB'IS)"));
  const CtlResult left = Ctl(
      *server_, {"leave", board.id, "--color", "red", "--token", board.owner});
  ASSERT_EQ(left.exit_code, 0) << left.err;
  EXPECT_THAT(left.out, HasSubstr("Red: (free)"));
}

// ---- Errors and shutdown
// ----------------------------------------------------------

TEST_F(EndToEndTest, ErrorsSayTheReasonInPlainWordsAndExitOne) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  Board board = StartGame(*server_, "classic-2");
  const CtlResult unknown = Ctl(*server_, {"get", "no-such-session"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err,
            "khetctl: Not found: no session \"no-such-session\".\n");

  const CtlResult no_token = Ctl(*server_, {"move", board.id, "j1L"});
  EXPECT_EQ(no_token.exit_code, 1);
  EXPECT_THAT(no_token.err, HasSubstr("--token"));
  EXPECT_THAT(no_token.err, Not(HasSubstr("UNAUTHENTICATED")));

  const CtlResult wrong_turn =
      Ctl(*server_, {"move", board.id, "a8L", "--token", board.red});
  EXPECT_EQ(wrong_turn.exit_code, 1);
  EXPECT_EQ(wrong_turn.err, "khetctl: Not your turn: it is Silver's move.\n");

  const CtlResult illegal =
      Ctl(*server_, {"move", board.id, "a1-a2", "--token", board.silver});
  EXPECT_EQ(illegal.exit_code, 1);
  EXPECT_EQ(illegal.err, "khetctl: Refused: a1: there is no piece there.\n");

  const CtlResult usage = Ctl(*server_, {"move", board.id});
  EXPECT_EQ(usage.exit_code, 2);

  // The log has one line per request and never a token.
  const std::string log = server_->log();
  EXPECT_THAT(log, HasSubstr("method=MakeMove session=" + board.id +
                             " code=UNAUTHENTICATED"));
  for (const std::string& token : {board.owner, board.silver, board.red}) {
    EXPECT_THAT(log, ::testing::Not(HasSubstr(token)));
  }
}

// Takebacks and ratings through khetctl against a real khetd, with the
// ratings read back after a SIGKILL.
TEST_F(EndToEndTest, TakebacksAndRatingsThroughKhetctl) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const auto created = CtlJson<v1::CreateSessionResponse>(
      *server_, {"create", "--name", "rated", "--rated"});
  const std::string id = created.session().id();
  EXPECT_TRUE(created.session().settings().rated());
  const auto silver = CtlJson<v1::JoinSeatResponse>(
      *server_, {"join", id, "--name", "alice", "--color", "silver",
                 "--player_id", "irc:alice"});
  const auto red = CtlJson<v1::JoinSeatResponse>(
      *server_, {"join", id, "--name", "bob", "--player_id", "irc:bob"});
  EXPECT_TRUE(red.session().game_rated());
  ASSERT_EQ(Ctl(*server_, {"move", id, "j1L", "--token", silver.player_token()})
                .exit_code,
            0);
  // A rated game has no takebacks.
  const CtlResult refused =
      Ctl(*server_, {"takeback", id, "--token", silver.player_token()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("rated"));
  ASSERT_EQ(
      Ctl(*server_, {"resign", id, "--token", red.player_token()}).exit_code,
      0);
  const CtlResult player = Ctl(*server_, {"player", "irc:alice"});
  EXPECT_EQ(player.exit_code, 0) << player.err;
  EXPECT_THAT(player.out, HasSubstr("irc:alice (alice): 1"));
  EXPECT_THAT(player.out, HasSubstr("1 games: 1 won, 0 drawn, 0 lost"));

  // A casual board: Bob takes back his move once Alice accepts.
  Board board = StartGame(*server_, "classic-2");
  const auto start = CtlJson<v1::Session>(*server_, {"get", board.id});
  ASSERT_EQ(Ctl(*server_, {"move", board.id, "j1L", "--token", board.silver})
                .exit_code,
            0);
  ASSERT_EQ(
      Ctl(*server_, {"takeback", board.id, "--token", board.silver}).exit_code,
      0);
  const auto back = CtlJson<v1::Session>(
      *server_, {"accept-takeback", board.id, "--token", board.red});
  EXPECT_EQ(back.moves_size(), 0);
  EXPECT_EQ(back.board().position(), start.board().position());

  server_->process().Signal(SIGKILL);
  EXPECT_EQ(server_->process().Wait(absl::Seconds(30)), 128 + SIGKILL);
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const auto players = CtlJson<v1::ListPlayersResponse>(*server_, {"players"});
  ASSERT_EQ(players.players_size(), 2);
  EXPECT_EQ(players.players(0).player_id(), "irc:alice");
  EXPECT_GT(players.players(0).rating(), 1500);
  EXPECT_EQ(players.players(1).player_id(), "irc:bob");
  EXPECT_EQ(players.players(1).losses(), 1);
  const auto after = CtlJson<v1::Session>(*server_, {"get", board.id});
  EXPECT_EQ(after.moves_size(), 0);
}

TEST_F(EndToEndTest, SigtermShutsDownCleanlyWithAWatchOpen) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  Board board = StartGame(*server_, "osiris");
  std::unique_ptr<ChildProcess> watch = ChildProcess::Start(
      {KHETCTL_PATH, "--server", server_->address(), "watch", board.id});
  ASSERT_NE(watch, nullptr);
  // The history arrives: the watch is open on the server.
  ASSERT_TRUE(watch->ReadLine(kCallTimeout).has_value());

  const absl::Time start = absl::Now();
  server_->process().Signal(SIGTERM);
  EXPECT_EQ(server_->process().Wait(absl::Seconds(30)), 0);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_THAT(server_->log(), HasSubstr("khetd: stopped"));
  EXPECT_EQ(watch->Wait(kCallTimeout), 3);  // khetd is gone

  // The data directory opens again.
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const auto session = CtlJson<v1::Session>(*server_, {"get", board.id});
  EXPECT_EQ(session.status(), v1::IN_PROGRESS);
}

TEST_F(EndToEndTest, HealthSaysServingAndFailsWhenTheServerIsGone) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const CtlResult serving = Ctl(*server_, {"health"});
  EXPECT_EQ(serving.exit_code, 0) << serving.err;
  EXPECT_EQ(serving.out, "SERVING\n");
  const CtlResult service =
      Ctl(*server_, {"health", "--service", "khet.v1.KhetService", "--json"});
  EXPECT_EQ(service.exit_code, 0) << service.err;
  EXPECT_EQ(service.out, "{\"status\": \"SERVING\"}\n");
  const CtlResult unknown = Ctl(*server_, {"health", "--service", "no.Such"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("Not found"));
  EXPECT_EQ(Ctl(*server_, {"health", "extra"}).exit_code, 2);

  server_->process().Signal(SIGTERM);
  EXPECT_EQ(server_->process().Wait(absl::Seconds(30)), 0);
  const CtlResult gone = Ctl(*server_, {"health", "--deadline", "2"});
  EXPECT_EQ(gone.exit_code, 3);
  EXPECT_THAT(gone.err, HasSubstr("Cannot reach khetd"));
}

}  // namespace
}  // namespace khet
