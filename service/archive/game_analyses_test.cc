// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// AnalyzeGame through SessionService: a finished game analysed in the
// background, kept in the store and shown in the record; its limits and
// errors; a service that ends while an analysis runs.
#include "service/archive/game_analyses.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "engine/game_record.h"
#include "engine/search.h"
#include "gtest/gtest.h"
#include "service/base/clock.h"
#include "service/base/status_or_matchers.h"
#include "service/core/session_service.h"
#include "service/search/test_fakes.h"
#include "service/store/memory_store.h"

namespace khet {
namespace {

// A fixed-depth search, the same answer every run, whatever the budget.
SearchFunction DepthThree() {
  return [](const Position& pos, const SearchLimits&, const SearchStyle& style,
            const std::atomic<bool>* stop) {
    SearchLimits limits;
    limits.max_depth = 3;
    return Search(pos, limits, style, stop);
  };
}

class GameAnalysesTest : public ::testing::Test {
 protected:
  struct Board {
    std::string id;
    std::string owner;
    std::string silver;
    std::string red;
  };

  std::unique_ptr<SessionService> NewService(SearchFunction search,
                                             int max_running = 2) {
    ServiceOptions options;
    options.store = &store_;
    options.clock = &clock_;
    options.random = &random_;
    options.search = std::move(search);
    options.limits.max_concurrent_analyses = max_running;
    absl::StatusOr<std::unique_ptr<SessionService>> s =
        SessionService::Create(options);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *std::move(s) : nullptr;
  }

  Board NewBoard(SessionService& service) {
    Board b;
    v1::CreateSessionRequest create;
    create.set_name("analysis board");
    create.set_setup_id("classic-2");
    absl::StatusOr<v1::CreateSessionResponse> created =
        service.CreateSession(create);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return b;
    b.id = created->session().id();
    b.owner = created->owner_token();
    for (v1::Color c : {v1::SILVER, v1::RED}) {
      v1::JoinSeatRequest join;
      join.set_session_id(b.id);
      join.set_color(c);
      join.set_player_name(c == v1::SILVER ? "Ann" : "Bob");
      absl::StatusOr<v1::JoinSeatResponse> joined = service.JoinSeat(join);
      EXPECT_TRUE(joined.ok()) << joined.status();
      if (joined.ok()) {
        (c == v1::SILVER ? b.silver : b.red) = joined->player_token();
      }
    }
    return b;
  }

  void Play(SessionService& service, const Board& b,
            const std::vector<std::string>& moves) {
    bool silver = true;
    for (const std::string& notation : moves) {
      v1::MakeMoveRequest move;
      move.set_session_id(b.id);
      move.mutable_move()->set_notation(notation);
      absl::StatusOr<v1::MakeMoveResponse> made =
          service.MakeMove(move, Caller{silver ? b.silver : b.red});
      ASSERT_TRUE(made.ok()) << notation << ": " << made.status();
      silver = !silver;
    }
  }

  // Classic 2: Silver shoots its own Pyramid (j5L), Red's e5-f6 opens its
  // Pharaoh to Silver's laser, j5-j6 hits it.
  Board ShortFinishedGame(SessionService& service) {
    Board b = NewBoard(service);
    Play(service, b, {"j5L", "e5-f6", "j5-j6"});
    return b;
  }

  static absl::StatusOr<v1::GameAnalysis> Analyze(
      SessionService& service, const std::string& session_id,
      const std::string& game_id = "current", int ms_per_ply = 0) {
    v1::AnalyzeGameRequest request;
    request.set_session_id(session_id);
    request.set_game_id(game_id);
    request.set_ms_per_ply(ms_per_ply);
    return service.AnalyzeGame(request);
  }

  // Asks until the analysis is DONE (at most 30 s).
  static v1::GameAnalysis AnalyzeToTheEnd(SessionService& service,
                                          const std::string& session_id,
                                          const std::string& game_id) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    for (;;) {
      absl::StatusOr<v1::GameAnalysis> a =
          Analyze(service, session_id, game_id);
      EXPECT_TRUE(a.ok()) << a.status();
      if (!a.ok() || a->state() == v1::GameAnalysis::DONE ||
          absl::Now() > deadline) {
        return a.ok() ? *a : v1::GameAnalysis();
      }
      absl::SleepFor(absl::Milliseconds(5));
    }
  }

  MemoryStore store_;
  FakeClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  FakeRandom random_;
};

TEST_F(GameAnalysesTest, AFinishedGameIsAnalysedInTheBackgroundAndKept) {
  std::unique_ptr<SessionService> service = NewService(DepthThree());
  const Board b = ShortFinishedGame(*service);
  absl::StatusOr<v1::GameAnalysis> first = Analyze(*service, b.id);
  ASSERT_OK(first);
  EXPECT_EQ(first->state(), v1::GameAnalysis::RUNNING);
  EXPECT_EQ(first->game_id(), b.id + "-g1");
  EXPECT_EQ(first->plies(), 3);
  EXPECT_EQ(first->ms_per_ply(), kDefaultAnalysisMsPerPly);

  const v1::GameAnalysis done = AnalyzeToTheEnd(*service, b.id, "current");
  ASSERT_EQ(done.state(), v1::GameAnalysis::DONE);
  EXPECT_EQ(done.plies_analyzed(), 3);
  ASSERT_EQ(done.moves_size(), 3);
  EXPECT_EQ(done.moves(0).played(), "j5L");
  EXPECT_EQ(done.moves(1).played(), "e5-f6");
  EXPECT_EQ(done.moves(1).mover(), v1::RED);
  EXPECT_EQ(done.moves(1).judgement(), v1::BLUNDER);
  EXPECT_FALSE(done.moves(1).best_move().empty());
  EXPECT_EQ(done.moves(1).loss(),
            done.moves(1).best_score() - done.moves(1).played_score());
  EXPECT_EQ(done.moves(2).played(), "j5-j6");
  EXPECT_EQ(done.moves(2).judgement(), v1::GOOD);
  EXPECT_EQ(done.moves(2).best_move(), "");
  EXPECT_EQ(done.moves(2).played_score(), kMateScore - 1);

  // Kept in the store: the archived game has it, and so does its record,
  // which names the blunder and still reads as a record.
  absl::StatusOr<ArchivedGame> archived = store_.GetGame(b.id + "-g1");
  ASSERT_OK(archived);
  v1::GameAnalysis kept;
  ASSERT_TRUE(kept.ParseFromString(archived->analysis));
  EXPECT_EQ(kept.SerializeAsString(), done.SerializeAsString());
  v1::GetGameRecordRequest get;
  get.set_session_id(b.id);
  get.set_game_id(b.id + "-g1");
  absl::StatusOr<v1::GetGameRecordResponse> record =
      service->GetGameRecord(get);
  ASSERT_OK(record);
  EXPECT_EQ(record->analysis().SerializeAsString(), done.SerializeAsString());
  EXPECT_TRUE(absl::StrContains(record->text(), "{computer analysis, 200 ms"))
      << record->text();
  EXPECT_TRUE(absl::StrContains(record->text(),
                                absl::StrCat("{?? blunder: loses in 1; better ",
                                             done.moves(1).best_move(), ", ")))
      << record->text();
  ASSERT_EQ(record->moves_size(), 3);
  ASSERT_EQ(record->moves(1).comments_size(), 1);
  EXPECT_TRUE(absl::StartsWith(record->moves(1).comments(0), "?? blunder"));
  EXPECT_TRUE(ParseGameRecord(record->text()).ok());

  // A later call, by a new service on the same store too, answers at once.
  service.reset();
  service = NewService(DepthThree());
  absl::StatusOr<v1::GameAnalysis> again =
      Analyze(*service, b.id, b.id + "-g1");
  ASSERT_OK(again);
  EXPECT_EQ(again->SerializeAsString(), done.SerializeAsString());
}

TEST_F(GameAnalysesTest, ProgressIsAnsweredWhileItRuns) {
  ControlledSearch search;
  std::unique_ptr<SessionService> service = NewService(search.Function());
  const Board b = ShortFinishedGame(*service);
  ASSERT_OK(Analyze(*service, b.id, "current", 20));
  ASSERT_TRUE(search.WaitForStarts(1));
  absl::StatusOr<v1::GameAnalysis> running = Analyze(*service, b.id);
  ASSERT_OK(running);
  EXPECT_EQ(running->state(), v1::GameAnalysis::RUNNING);
  EXPECT_EQ(running->ms_per_ply(), 20);  // the first call's budget
  EXPECT_EQ(running->plies_analyzed(), 0);
  search.Release();
  const v1::GameAnalysis done = AnalyzeToTheEnd(*service, b.id, "current");
  EXPECT_EQ(done.state(), v1::GameAnalysis::DONE);
  EXPECT_EQ(done.moves_size(), 3);
  EXPECT_EQ(search.starts(), 3);  // the start and two positions after it:
                                  // the last move ended the game
}

TEST_F(GameAnalysesTest, TooManyAtOnceAreRefusedButTheRunningOneAnswers) {
  ControlledSearch search;
  std::unique_ptr<SessionService> service =
      NewService(search.Function(), /*max_running=*/1);
  const Board a = ShortFinishedGame(*service);
  const Board b = ShortFinishedGame(*service);
  ASSERT_OK(Analyze(*service, a.id));
  EXPECT_ERROR(Analyze(*service, b.id), kResourceExhausted,
               "too many games are being analysed");
  EXPECT_EQ(Analyze(*service, a.id)->state(), v1::GameAnalysis::RUNNING);
  search.Release();
  EXPECT_EQ(AnalyzeToTheEnd(*service, a.id, "current").state(),
            v1::GameAnalysis::DONE);
  EXPECT_EQ(AnalyzeToTheEnd(*service, b.id, "current").state(),
            v1::GameAnalysis::DONE);
}

TEST_F(GameAnalysesTest, BadRequestsAreRefusedAndChangeNothing) {
  std::unique_ptr<SessionService> service = NewService(DepthThree());
  const Board going = NewBoard(*service);
  Play(*service, going, {"j5L"});
  EXPECT_ERROR(Analyze(*service, going.id), kFailedPrecondition,
               "is still going");
  const Board fresh = NewBoard(*service);
  EXPECT_ERROR(Analyze(*service, fresh.id), kFailedPrecondition,
               "is still going");
  EXPECT_ERROR(Analyze(*service, "nope"), kNotFound, "nope");
  EXPECT_ERROR(Analyze(*service, going.id, "nope-g7"), kNotFound, "nope-g7");
  const Board done = ShortFinishedGame(*service);
  EXPECT_ERROR(Analyze(*service, done.id, "current", 5), kInvalidArgument,
               "ms_per_ply must be 10 to 2000");
  EXPECT_ERROR(Analyze(*service, done.id, "current", 2001), kInvalidArgument,
               "not 2001");
  EXPECT_ERROR(Analyze(*service, done.id, "current", -1), kInvalidArgument,
               "not -1");
  // Another session's game is not this one's.
  EXPECT_ERROR(Analyze(*service, going.id, done.id + "-g1"), kNotFound,
               done.id + "-g1");
  absl::StatusOr<ArchivedGame> archived = store_.GetGame(done.id + "-g1");
  ASSERT_OK(archived);
  EXPECT_EQ(archived->analysis, "");
}

TEST_F(GameAnalysesTest, AnAbandonedGameCanBeReviewed) {
  std::unique_ptr<SessionService> service = NewService(DepthThree());
  const Board b = NewBoard(*service);
  Play(*service, b, {"j5L", "e5-f6"});
  v1::ResetGameRequest reset;
  reset.set_session_id(b.id);
  ASSERT_OK(service->ResetGame(reset, Caller{b.owner}));
  const v1::GameAnalysis done = AnalyzeToTheEnd(*service, b.id, b.id + "-g1");
  EXPECT_EQ(done.state(), v1::GameAnalysis::DONE);
  ASSERT_EQ(done.moves_size(), 2);
  // Red's step gives Silver a win in one.
  EXPECT_EQ(done.moves(1).judgement(), v1::BLUNDER);
}

TEST_F(GameAnalysesTest, EndingTheServiceStopsAnAnalysisAndKeepsNothing) {
  ControlledSearch search;  // never released: stopped by the service
  std::unique_ptr<SessionService> service = NewService(search.Function());
  const Board b = ShortFinishedGame(*service);
  ASSERT_OK(Analyze(*service, b.id));
  ASSERT_TRUE(search.WaitForStarts(1));
  service.reset();  // returns once the analysis has stopped
  absl::StatusOr<ArchivedGame> archived = store_.GetGame(b.id + "-g1");
  ASSERT_OK(archived);
  EXPECT_EQ(archived->analysis, "");
}

TEST_F(GameAnalysesTest, ADeletedSessionDropsItsAnalysis) {
  ControlledSearch search;
  std::unique_ptr<SessionService> service = NewService(search.Function());
  const Board b = ShortFinishedGame(*service);
  ASSERT_OK(Analyze(*service, b.id));
  ASSERT_TRUE(search.WaitForStarts(1));
  v1::DeleteSessionRequest del;
  del.set_session_id(b.id);
  ASSERT_TRUE(service->DeleteSession(del, Caller{b.owner}).ok());
  search.Release();
  // The analysis ends quietly; the game is gone with its session.
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (search.starts() < 3 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(store_.GetGame(b.id + "-g1").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_ERROR(Analyze(*service, b.id), kNotFound, b.id);
}

TEST(RecordWithAnalysisTest, AMismatchedAnalysisLeavesTheRecordAlone) {
  const std::string text = "[Setup \"classic-2\"]\n\n1. e4-e3 *\n";
  v1::GameAnalysis analysis;  // no plies: not this game's
  analysis.set_ms_per_ply(50);
  EXPECT_EQ(RecordWithAnalysis(text, analysis), text);
  EXPECT_EQ(RecordWithAnalysis("not a record", analysis), "not a record");
}

}  // namespace
}  // namespace khet
