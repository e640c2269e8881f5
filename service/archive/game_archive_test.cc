// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The archive of games through SessionService: what is archived when,
// GetGameRecord, ListGames, GetPosition, CreateSession from a record, and
// their errors.
#include "service/archive/game_archive.h"

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/game_record.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "service/base/clock.h"
#include "service/base/status_or_matchers.h"
#include "service/core/session_service.h"
#include "service/search/test_fakes.h"
#include "service/store/memory_store.h"

namespace khet {
namespace {

using ::google::protobuf::util::MessageDifferencer;

// A seeded game policy: a move that hits the enemy Pharaoh if there is
// one, else one that does not hit the mover's own.
Move ChooseMove(const Position& pos, std::mt19937& rng) {
  const Color me = pos.side_to_move();
  MoveList moves;
  GenerateMoves(pos, &moves);
  std::vector<Move> safe;
  for (Move m : moves) {
    Position child = pos;
    const PharaohsHit hit = MakeMove(&child, m);
    if (PharaohWasHit(hit, me)) continue;
    if (PharaohWasHit(hit, Opponent(me))) return m;
    safe.push_back(m);
  }
  if (safe.empty()) return moves.moves[0];
  return safe[std::uniform_int_distribution<size_t>(0, safe.size() - 1)(rng)];
}

class GameArchiveTest : public ::testing::Test {
 protected:
  struct Board {
    std::string id;
    std::string owner;
    std::string silver;
    std::string red;
  };
  // What the live game showed after each ply (index 0: the start).
  struct Seen {
    std::vector<v1::Board> boards;
    std::vector<v1::LaserShot> shots;  // shots[0] unused
    std::vector<std::vector<std::string>> legal;
  };

  void SetUp() override { service_ = NewService(); }

  std::unique_ptr<SessionService> NewService() {
    ServiceOptions options;
    options.store = &store_;
    options.clock = &clock_;
    options.random = &random_;
    absl::StatusOr<std::unique_ptr<SessionService>> s =
        SessionService::Create(options);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *std::move(s) : nullptr;
  }

  Board NewBoard(const std::string& silver_name = "Ann",
                 const std::string& red_name = "Bob",
                 const std::string& setup_id = "classic-2") {
    Board b;
    v1::CreateSessionRequest create;
    create.set_name("archive board");
    create.set_setup_id(setup_id);
    absl::StatusOr<v1::CreateSessionResponse> created =
        service_->CreateSession(create);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return b;
    b.id = created->session().id();
    b.owner = created->owner_token();
    b.silver = Join(b.id, v1::SILVER, silver_name);
    b.red = Join(b.id, v1::RED, red_name);
    return b;
  }

  std::string Join(const std::string& id, v1::Color color,
                   const std::string& name) {
    v1::JoinSeatRequest join;
    join.set_session_id(id);
    join.set_color(color);
    join.set_player_name(name);
    absl::StatusOr<v1::JoinSeatResponse> joined = service_->JoinSeat(join);
    EXPECT_TRUE(joined.ok()) << joined.status();
    return joined.ok() ? joined->player_token() : "";
  }

  v1::Session Get(const std::string& id) {
    v1::GetSessionRequest get;
    get.set_session_id(id);
    absl::StatusOr<v1::Session> s = service_->GetSession(get);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *s : v1::Session();
  }

  std::vector<std::string> LegalMoves(const std::string& id) {
    v1::ListLegalMovesRequest list;
    list.set_session_id(id);
    absl::StatusOr<v1::ListLegalMovesResponse> moves =
        service_->ListLegalMoves(list);
    EXPECT_TRUE(moves.ok()) << moves.status();
    std::vector<std::string> out;
    if (moves.ok()) {
      for (const v1::Move& m : moves->moves()) out.push_back(m.notation());
    }
    return out;
  }

  absl::StatusOr<v1::MakeMoveResponse> Play(const Board& b,
                                            const std::string& notation) {
    const v1::Session s = Get(b.id);
    v1::MakeMoveRequest move;
    move.set_session_id(b.id);
    move.mutable_move()->set_notation(notation);
    return service_->MakeMove(
        move,
        Caller{s.board().side_to_move() == v1::SILVER ? b.silver : b.red});
  }

  // Plays up to `plies` moves of a seeded game (fewer if it ends), noting
  // what the live game showed.
  Seen PlayGame(const Board& b, int plies, unsigned seed = 7) {
    std::mt19937 rng(seed);
    Seen seen;
    seen.boards.push_back(Get(b.id).board());
    seen.shots.emplace_back();
    seen.legal.push_back(LegalMoves(b.id));
    for (int i = 0; i < plies; ++i) {
      const v1::Session s = Get(b.id);
      if (s.status() != v1::IN_PROGRESS) break;
      absl::StatusOr<Position> pos = ParsePosition(s.board().position());
      EXPECT_TRUE(pos.ok()) << pos.status();
      if (!pos.ok()) break;
      const Move m = ChooseMove(*pos, rng);
      absl::StatusOr<v1::MakeMoveResponse> made = Play(b, FormatMove(*pos, m));
      EXPECT_TRUE(made.ok()) << made.status();
      if (!made.ok()) break;
      seen.boards.push_back(made->board());
      seen.shots.push_back(made->shot());
      seen.legal.push_back(LegalMoves(b.id));
    }
    return seen;
  }

  void Reset(const Board& b) {
    v1::ResetGameRequest reset;
    reset.set_session_id(b.id);
    ASSERT_OK(service_->ResetGame(reset, Caller{b.owner}));
  }

  absl::StatusOr<v1::ListGamesResponse> List(const std::string& session_id,
                                             const std::string& player = "",
                                             const std::string& setup_id = "",
                                             const std::string& result = "",
                                             int page_size = 0,
                                             const std::string& token = "") {
    v1::ListGamesRequest list;
    list.set_session_id(session_id);
    list.set_player(player);
    list.set_setup_id(setup_id);
    list.set_result(result);
    list.set_page_size(page_size);
    list.set_page_token(token);
    return service_->ListGames(list);
  }

  std::vector<std::string> ListIds(const std::string& session_id,
                                   const std::string& player = "",
                                   const std::string& setup_id = "",
                                   const std::string& result = "") {
    absl::StatusOr<v1::ListGamesResponse> listed =
        List(session_id, player, setup_id, result);
    EXPECT_TRUE(listed.ok()) << listed.status();
    std::vector<std::string> ids;
    if (listed.ok()) {
      for (const v1::GameSummary& g : listed->games()) ids.push_back(g.id());
    }
    return ids;
  }

  absl::StatusOr<v1::GetGameRecordResponse> Record(
      const std::string& session_id, const std::string& game_id) {
    v1::GetGameRecordRequest get;
    get.set_session_id(session_id);
    get.set_game_id(game_id);
    return service_->GetGameRecord(get);
  }

  absl::StatusOr<v1::GetPositionResponse> PositionAt(
      const std::string& session_id, const std::string& game_id, int ply) {
    v1::GetPositionRequest get;
    get.set_session_id(session_id);
    get.set_game_id(game_id);
    get.set_ply(ply);
    return service_->GetPosition(get);
  }

  absl::StatusOr<v1::CreateSessionResponse> FromRecord(
      const std::string& record, int ply = 0) {
    v1::CreateSessionRequest create;
    create.set_name("imported");
    create.set_record(record);
    create.set_ply(ply);
    return service_->CreateSession(create);
  }

  MemoryStore store_;
  FlakyStore flaky_;  // for tests that make writes fail
  FakeClock clock_;
  FakeRandom random_;
  std::unique_ptr<SessionService> service_;
};

TEST_F(GameArchiveTest, AFinishedGameIsArchivedWithItsRecord) {
  const Board b = NewBoard();
  const std::string game_id = Get(b.id).game_id();
  EXPECT_EQ(game_id, b.id + "-g1");
  EXPECT_TRUE(ListIds(b.id).empty());  // nothing while it goes on
  PlayGame(b, 400);
  const v1::Session finished = Get(b.id);
  ASSERT_EQ(finished.status(), v1::FINISHED);
  EXPECT_EQ(finished.game_id(), game_id);

  absl::StatusOr<v1::ListGamesResponse> listed = List(b.id);
  ASSERT_OK(listed);
  ASSERT_EQ(listed->games_size(), 1);
  const v1::GameSummary& g = listed->games(0);
  EXPECT_EQ(g.id(), game_id);
  EXPECT_EQ(g.session_id(), b.id);
  EXPECT_EQ(g.silver_player(), "Ann");
  EXPECT_EQ(g.red_player(), "Bob");
  EXPECT_EQ(g.setup_id(), "classic-2");
  EXPECT_EQ(g.result(), finished.result().outcome() == v1::SILVER_WINS ? "1-0"
                        : finished.result().outcome() == v1::RED_WINS
                            ? "0-1"
                            : "1/2-1/2");
  EXPECT_EQ(g.ending(), "pharaoh hit");
  EXPECT_EQ(g.plies(), finished.moves_size());
  EXPECT_TRUE(g.archived());
  EXPECT_EQ(g.started_at().seconds(), 1'700'000'000);
  EXPECT_EQ(g.ended_at().seconds(), 1'700'000'000);

  absl::StatusOr<v1::GetGameRecordResponse> record = Record(b.id, game_id);
  ASSERT_OK(record);
  absl::StatusOr<GameRecord> parsed = ParseGameRecord(record->text());
  ASSERT_OK(parsed);
  ASSERT_EQ(parsed->game.ply(), finished.moves_size());
  ASSERT_EQ(record->moves_size(), finished.moves_size());
  for (int i = 0; i < finished.moves_size(); ++i) {
    EXPECT_EQ(record->moves(i).notation(), finished.moves(i)) << "ply " << i;
    EXPECT_EQ(record->moves(i).ply(), i + 1);
  }
  EXPECT_EQ(record->result().outcome(), finished.result().outcome());
  bool has_silver = false;
  for (const v1::RecordHeader& h : record->headers()) {
    has_silver |= h.name() == "Silver" && h.value() == "Ann";
  }
  EXPECT_TRUE(has_silver) << record->text();

  // The current game is that game, marked archived, with the same record.
  absl::StatusOr<v1::GetGameRecordResponse> current = Record(b.id, "current");
  ASSERT_OK(current);
  EXPECT_TRUE(current->game().archived());
  EXPECT_EQ(current->text(), record->text());
}

TEST_F(GameArchiveTest, AResetArchivesAnUnfinishedGameAndStartsTheNext) {
  const Board b = NewBoard();
  PlayGame(b, 3);
  clock_.Advance(absl::Minutes(5));
  Reset(b);
  absl::StatusOr<v1::ListGamesResponse> listed = List(b.id);
  ASSERT_OK(listed);
  ASSERT_EQ(listed->games_size(), 1);
  const v1::GameSummary& g = listed->games(0);
  EXPECT_EQ(g.id(), b.id + "-g1");
  EXPECT_EQ(g.result(), "*");
  EXPECT_EQ(g.ending(), "abandoned");
  EXPECT_EQ(g.plies(), 3);
  EXPECT_EQ(g.silver_player(), "Ann");  // the seats before the reset
  EXPECT_EQ(g.ended_at().seconds() - g.started_at().seconds(), 300);
  EXPECT_EQ(Get(b.id).game_id(), b.id + "-g2");

  // A reset of a game with no moves archives nothing and keeps the number.
  Reset(b);
  EXPECT_EQ(ListIds(b.id).size(), 1u);
  EXPECT_EQ(Get(b.id).game_id(), b.id + "-g2");
}

TEST_F(GameArchiveTest, ATimeoutArchivesTheGameItResets) {
  const Board b = NewBoard();
  PlayGame(b, 2);
  clock_.Advance(absl::Hours(2));  // past the default 3600 s
  EXPECT_EQ(service_->SweepTimeouts(), 1);
  EXPECT_EQ(ListIds(b.id), std::vector<std::string>{b.id + "-g1"});
  EXPECT_EQ(Get(b.id).game_id(), b.id + "-g2");
}

TEST_F(GameArchiveTest, ChoosingASetupAfterAFinishedGameArchivesItOnce) {
  const Board b = NewBoard();
  v1::ResignRequest resign;
  resign.set_session_id(b.id);
  PlayGame(b, 2);
  ASSERT_OK(service_->Resign(resign, Caller{b.red}));
  ASSERT_EQ(ListIds(b.id), std::vector<std::string>{b.id + "-g1"});
  absl::StatusOr<v1::ListGamesResponse> listed = List(b.id);
  ASSERT_OK(listed);
  EXPECT_EQ(listed->games(0).result(), "1-0");
  EXPECT_EQ(listed->games(0).ending(), "resignation");

  // Both seats are taken: the chosen setup starts game 2 at once.
  v1::ChooseSetupRequest choose;
  choose.set_session_id(b.id);
  choose.set_setup_id("dynasty-2");
  ASSERT_OK(service_->ChooseSetup(choose, Caller{b.owner}));
  EXPECT_EQ(ListIds(b.id).size(), 1u);
  EXPECT_EQ(Get(b.id).game_id(), b.id + "-g2");
  PlayGame(b, 2);
  Reset(b);
  EXPECT_EQ(ListIds(b.id),
            (std::vector<std::string>{b.id + "-g2", b.id + "-g1"}));
  EXPECT_EQ(ListIds(b.id, "", "dynasty-2"),
            std::vector<std::string>{b.id + "-g2"});
}

TEST_F(GameArchiveTest, ListGamesFiltersAndPagesOverTheService) {
  const Board one = NewBoard("Ann", "Bob");
  PlayGame(one, 2);
  Reset(one);  // one-g1: Ann v Bob, "*"
  const Board two = NewBoard("Cy", "Ann");
  PlayGame(two, 400);  // two-g1: Cy v Ann, finished
  const Board three = NewBoard("Dee", "Eve", "dynasty-2");
  PlayGame(three, 1);
  Reset(three);  // three-g1: Dee v Eve, dynasty, "*"

  EXPECT_EQ(ListIds(""),
            (std::vector<std::string>{three.id + "-g1", two.id + "-g1",
                                      one.id + "-g1"}));
  EXPECT_EQ(ListIds("", "Ann"),
            (std::vector<std::string>{two.id + "-g1", one.id + "-g1"}));
  EXPECT_EQ(ListIds("", "", "dynasty-2"),
            std::vector<std::string>{three.id + "-g1"});
  EXPECT_EQ(ListIds("", "", "", "*"),
            (std::vector<std::string>{three.id + "-g1", one.id + "-g1"}));
  EXPECT_EQ(ListIds(two.id), std::vector<std::string>{two.id + "-g1"});
  EXPECT_TRUE(ListIds(two.id, "Bob").empty());

  std::vector<std::string> paged;
  std::string token;
  for (int page = 0; page < 5; ++page) {
    absl::StatusOr<v1::ListGamesResponse> listed =
        List("", "", "", "", 1, token);
    ASSERT_OK(listed);
    ASSERT_EQ(listed->games_size(), 1);
    paged.push_back(listed->games(0).id());
    token = listed->next_page_token();
    if (token.empty()) break;
  }
  EXPECT_EQ(paged, (std::vector<std::string>{three.id + "-g1", two.id + "-g1",
                                             one.id + "-g1"}));

  EXPECT_ERROR(List("nope"), kNotFound, "nope");
  EXPECT_ERROR(List("", "", "", "2-0"), kInvalidArgument, "result \"2-0\"");
  EXPECT_ERROR(List("", "", "", "", -1), kInvalidArgument, "page_size");
  EXPECT_ERROR(List("", "", "", "", 0, "xyz"), kInvalidArgument,
               "page_token \"xyz\"");
  EXPECT_ERROR(List("", "", "", "", 0, "g-3"), kInvalidArgument, "page_token");
  EXPECT_ERROR(List("", std::string(1000, 'a')), kInvalidArgument, "player");
}

TEST_F(GameArchiveTest, GetPositionEqualsTheLiveGameAtEveryPly) {
  const Board b = NewBoard();
  const Seen seen = PlayGame(b, 400, /*seed=*/11);
  const v1::Session finished = Get(b.id);
  ASSERT_EQ(finished.status(), v1::FINISHED);
  const int plies = finished.moves_size();
  ASSERT_EQ(static_cast<int>(seen.boards.size()), plies + 1);
  for (const std::string& game : {std::string("current"), b.id + "-g1"}) {
    for (int ply = 0; ply <= plies; ++ply) {
      absl::StatusOr<v1::GetPositionResponse> at = PositionAt(b.id, game, ply);
      ASSERT_OK(at);
      EXPECT_EQ(at->plies(), plies);
      EXPECT_TRUE(MessageDifferencer::Equals(at->board(), seen.boards[ply]))
          << game << " ply " << ply;
      std::vector<std::string> legal;
      for (const v1::Move& m : at->legal_moves()) legal.push_back(m.notation());
      EXPECT_EQ(legal, seen.legal[ply]) << game << " ply " << ply;
      if (ply > 0) {
        EXPECT_EQ(at->move().notation(), finished.moves(ply - 1));
        EXPECT_TRUE(MessageDifferencer::Equals(at->shot(), seen.shots[ply]))
            << game << " ply " << ply;
      } else {
        EXPECT_FALSE(at->has_move());
      }
      EXPECT_EQ(at->result().outcome(),
                ply == plies ? finished.result().outcome() : v1::ONGOING);
    }
  }
}

TEST_F(GameArchiveTest, ReadingAGameFailsClearly) {
  const Board b = NewBoard();
  PlayGame(b, 2);
  Reset(b);
  const Board other = NewBoard();
  EXPECT_ERROR(Record("nope", ""), kNotFound, "nope");
  EXPECT_ERROR(Record(b.id, "nope-g9"), kNotFound, "nope-g9");
  // Another session's game is not this one's.
  EXPECT_ERROR(Record(other.id, b.id + "-g1"), kNotFound, b.id + "-g1");
  EXPECT_ERROR(PositionAt(b.id, b.id + "-g1", -1), kInvalidArgument,
               "ply -1 is out of range");
  EXPECT_ERROR(PositionAt(b.id, b.id + "-g1", 3), kInvalidArgument,
               "plies 0 to 2");
  EXPECT_ERROR(PositionAt("nope", "", 0), kNotFound, "nope");
  EXPECT_ERROR(PositionAt(b.id, "nope-g1", 0), kNotFound, "nope-g1");
}

TEST_F(GameArchiveTest, ACreatedSessionGoesOnFromItsRecord) {
  const Board b = NewBoard();
  PlayGame(b, 6, /*seed=*/5);
  const v1::Session original = Get(b.id);
  ASSERT_EQ(original.moves_size(), 6);
  absl::StatusOr<v1::GetGameRecordResponse> record = Record(b.id, "");
  ASSERT_OK(record);

  absl::StatusOr<v1::CreateSessionResponse> created =
      FromRecord(record->text(), 4);
  ASSERT_OK(created);
  const v1::Session& s = created->session();
  EXPECT_EQ(s.status(), v1::IN_PROGRESS);
  EXPECT_EQ(s.setup_id(), "classic-2");
  ASSERT_EQ(s.moves_size(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(s.moves(i), original.moves(i));
  EXPECT_FALSE(s.seats(0).occupied());
  EXPECT_FALSE(s.seats(1).occupied());
  absl::StatusOr<v1::GetPositionResponse> at4 = PositionAt(b.id, "", 4);
  ASSERT_OK(at4);
  EXPECT_TRUE(MessageDifferencer::Equals(s.board(), at4->board()));

  // Players join the game under way and play the original's fifth move.
  Board imported{s.id(), created->owner_token(), "", ""};
  imported.silver = Join(s.id(), v1::SILVER, "Sam");
  imported.red = Join(s.id(), v1::RED, "Ria");
  EXPECT_EQ(Get(s.id()).status(), v1::IN_PROGRESS);
  absl::StatusOr<v1::MakeMoveResponse> fifth =
      Play(imported, original.moves(4));
  ASSERT_OK(fifth);
  absl::StatusOr<v1::GetPositionResponse> at5 = PositionAt(b.id, "", 5);
  ASSERT_OK(at5);
  EXPECT_TRUE(MessageDifferencer::Equals(fifth->board(), at5->board()));
  EXPECT_EQ(Get(s.id()).moves_size(), 5);

  // To the end (ply 0): all six moves.
  absl::StatusOr<v1::CreateSessionResponse> whole = FromRecord(record->text());
  ASSERT_OK(whole);
  EXPECT_EQ(whole->session().moves_size(), 6);
}

TEST_F(GameArchiveTest, ARecordEndingByResignationReplaysFinished) {
  const Board b = NewBoard();
  PlayGame(b, 3);
  v1::ResignRequest resign;
  resign.set_session_id(b.id);
  ASSERT_OK(service_->Resign(resign, Caller{b.silver}));
  absl::StatusOr<v1::GetGameRecordResponse> record = Record(b.id, "");
  ASSERT_OK(record);
  absl::StatusOr<v1::CreateSessionResponse> created =
      FromRecord(record->text());
  ASSERT_OK(created);
  EXPECT_EQ(created->session().status(), v1::FINISHED);
  EXPECT_EQ(created->session().result().outcome(), v1::RED_WINS);
  EXPECT_EQ(created->session().result().reason(), v1::RESIGNATION);
  // Up to ply 3 only: the game goes on.
  absl::StatusOr<v1::CreateSessionResponse> before =
      FromRecord(record->text(), 3);
  ASSERT_OK(before);
  EXPECT_EQ(before->session().status(), v1::IN_PROGRESS);
}

TEST_F(GameArchiveTest, CreatingFromABadRecordFailsClearly) {
  const std::string good = "[Setup \"classic-2\"]\n\n1. e1-e2 *\n";
  EXPECT_ERROR(FromRecord("[Setup \"classic-2\"]\n\n1. a1-a9 *\n"),
               kInvalidArgument, "record: line 3: move 1. a1-a9");
  EXPECT_ERROR(FromRecord("[Setup \"nope\"]\n\n*\n"), kInvalidArgument,
               "record: line 1");
  EXPECT_ERROR(FromRecord(good, 5), kInvalidArgument,
               "ply 5 is beyond the record's");
  EXPECT_ERROR(FromRecord(good, -1), kInvalidArgument, "ply must not");
  EXPECT_ERROR(FromRecord("", 2), kInvalidArgument, "ply 2 needs a record");
  v1::CreateSessionRequest both;
  both.set_name("x");
  both.set_record(good);
  both.set_setup_id("classic-2");
  EXPECT_ERROR(service_->CreateSession(both), kInvalidArgument,
               "give a record or setup_id");
  EXPECT_ERROR(FromRecord(std::string(2 << 20, ' ')), kInvalidArgument,
               "at most");
  v1::CreateSessionRequest unnamed;
  unnamed.set_record(good);
  absl::StatusOr<v1::CreateSessionResponse> named =
      service_->CreateSession(unnamed);
  ASSERT_OK(named);
  EXPECT_EQ(named->session().name(), "Classic 2 game from a record");
}

// The headers of a record as a map, for comparing; every name once.
std::map<std::string, std::string> HeaderMap(const GameHeaders& headers) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : headers) {
    EXPECT_TRUE(out.emplace(name, value).second) << name << " twice";
  }
  return out;
}

TEST_F(GameArchiveTest, AnImportedRecordKeepsItsHeadersAndComments) {
  const std::string text =
      "[Event \"club night\"]\n[Site \"the pub\"]\n[Date \"2024.05.01\"]\n"
      "[Silver \"ann\"]\n[Red \"bob\"]\n[Setup \"classic-2\"]\n"
      "[Round \"3\"]\n[Board \"old board\"]\n[Session \"old\"]\n"
      "[Game \"old-g1\"]\n\n"
      "{opening words} 1. j4-j3 {a quiet start} 1... g3-h3 2. f4-g4 {bold} *\n";
  absl::StatusOr<v1::CreateSessionResponse> created = FromRecord(text);
  ASSERT_OK(created);
  const std::string id = created->session().id();
  absl::StatusOr<v1::GetGameRecordResponse> exported = Record(id, "current");
  ASSERT_OK(exported);
  absl::StatusOr<GameRecord> parsed = ParseGameRecord(exported->text());
  ASSERT_OK(parsed);
  std::map<std::string, std::string> headers = HeaderMap(parsed->headers);
  EXPECT_EQ(headers["Event"], "club night") << exported->text();
  EXPECT_EQ(headers["Site"], "the pub");
  EXPECT_EQ(headers["Date"], "2024.05.01");
  EXPECT_EQ(headers["Silver"], "ann");
  EXPECT_EQ(headers["Red"], "bob");
  EXPECT_EQ(headers["Round"], "3");
  // The session's own: its name and ids, not the record's old ones.
  EXPECT_EQ(headers["Board"], "imported");
  EXPECT_EQ(headers["Session"], id);
  EXPECT_EQ(headers["Game"], id + "-g1");
  const GameComments comments = {
      {"opening words"}, {"a quiet start"}, {}, {"bold"}};
  EXPECT_EQ(parsed->comments, comments);

  // Imported again, the export gives the same back.
  absl::StatusOr<v1::CreateSessionResponse> again =
      FromRecord(exported->text());
  ASSERT_OK(again);
  absl::StatusOr<v1::GetGameRecordResponse> second =
      Record(again->session().id(), "current");
  ASSERT_OK(second);
  absl::StatusOr<GameRecord> reparsed = ParseGameRecord(second->text());
  ASSERT_OK(reparsed);
  std::map<std::string, std::string> second_headers =
      HeaderMap(reparsed->headers);
  second_headers.erase("Session");
  second_headers.erase("Game");
  headers.erase("Session");
  headers.erase("Game");
  EXPECT_EQ(second_headers, headers);
  EXPECT_EQ(reparsed->comments, comments);

  // Replayed to ply 1: the comments up to it. Players seated name the game.
  absl::StatusOr<v1::CreateSessionResponse> partial = FromRecord(text, 1);
  ASSERT_OK(partial);
  Board b{partial->session().id(), partial->owner_token(), "", ""};
  b.silver = Join(b.id, v1::SILVER, "Sam");
  b.red = Join(b.id, v1::RED, "Ria");
  ASSERT_OK(Play(b, "h4-i4"));
  absl::StatusOr<v1::GetGameRecordResponse> went_on = Record(b.id, "current");
  ASSERT_OK(went_on);
  absl::StatusOr<GameRecord> went_on_record = ParseGameRecord(went_on->text());
  ASSERT_OK(went_on_record);
  EXPECT_EQ(went_on_record->comments,
            GameComments({{"opening words"}, {"a quiet start"}, {}}));
  EXPECT_EQ(HeaderMap(went_on_record->headers)["Silver"], "Sam");
  EXPECT_EQ(HeaderMap(went_on_record->headers)["Event"], "club night");

  // The next game on that board is the board's own: no Event, no comments.
  Reset(b);
  absl::StatusOr<v1::GetGameRecordResponse> next = Record(b.id, "current");
  ASSERT_OK(next);
  EXPECT_FALSE(absl::StrContains(next->text(), "Event")) << next->text();
  EXPECT_FALSE(absl::StrContains(next->text(), "{"));
  EXPECT_TRUE(absl::StrContains(next->text(), "[Board \"imported\"]"));
}

TEST_F(GameArchiveTest, DeletingASessionDeletesItsGames) {
  const Board b = NewBoard();
  PlayGame(b, 2);
  Reset(b);
  const Board other = NewBoard();
  PlayGame(other, 2);
  Reset(other);
  v1::DeleteSessionRequest del;
  del.set_session_id(b.id);
  ASSERT_OK(service_->DeleteSession(del, Caller{b.owner}));
  EXPECT_EQ(ListIds(""), std::vector<std::string>{other.id + "-g1"});
}

TEST_F(GameArchiveTest, ArchivedGamesAndNumbersSurviveARestart) {
  const Board b = NewBoard();
  PlayGame(b, 2);
  Reset(b);
  absl::StatusOr<v1::GetGameRecordResponse> before = Record(b.id, b.id + "-g1");
  ASSERT_OK(before);
  service_ = NewService();
  EXPECT_EQ(Get(b.id).game_id(), b.id + "-g2");
  absl::StatusOr<v1::GetGameRecordResponse> after = Record(b.id, b.id + "-g1");
  ASSERT_OK(after);
  EXPECT_EQ(after->text(), before->text());
  Board again = b;  // the reset emptied the seats
  again.silver = Join(b.id, v1::SILVER, "Ann");
  again.red = Join(b.id, v1::RED, "Bob");
  PlayGame(again, 1);
  Reset(again);
  EXPECT_EQ(ListIds(b.id),
            (std::vector<std::string>{b.id + "-g2", b.id + "-g1"}));
}

TEST_F(GameArchiveTest, AFailedWriteArchivesNothing) {
  ServiceOptions options;
  options.store = &flaky_;
  options.clock = &clock_;
  options.random = &random_;
  absl::StatusOr<std::unique_ptr<SessionService>> created =
      SessionService::Create(options);
  ASSERT_OK(created);
  service_ = *std::move(created);
  const Board b = NewBoard();
  PlayGame(b, 2);
  flaky_.fail_writes = true;
  v1::ResetGameRequest reset;
  reset.set_session_id(b.id);
  EXPECT_ERROR(service_->ResetGame(reset, Caller{b.owner}), kUnavailable,
               "disk on fire");
  flaky_.fail_writes = false;
  EXPECT_TRUE(ListIds(b.id).empty());
  EXPECT_EQ(Get(b.id).game_id(), b.id + "-g1");
  Reset(b);  // now it is written, and the game with it
  EXPECT_EQ(ListIds(b.id), std::vector<std::string>{b.id + "-g1"});
}

}  // namespace
}  // namespace khet
