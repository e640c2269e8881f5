// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Hostile gRPC traffic against a real khetd: thousands of idle Watch
// streams, retries with another caller's request_id, a 60 KB move, and
// inputs that are not what they claim (a version from the future, an enum
// value that does not exist, names with hidden characters). Each test
// names the finding it guards.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "gtest/gtest.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tests/hostile/hostile_test_base.h"
#include "tools/load/common/grpc_call.h"
#include "tools/load/common/raw_http.h"

namespace khet::hostile {
namespace {

using ::testing::HasSubstr;

using GrpcHostileTest = HostileTest;

std::chrono::system_clock::time_point In(absl::Duration duration) {
  return std::chrono::system_clock::now() + absl::ToChronoSeconds(duration);
}

// A context with a 10 s deadline and, if given, the caller's token.
std::unique_ptr<grpc::ClientContext> Context(const std::string& token = "") {
  return CallContext(absl::Seconds(10), token);
}

// A session with both seats taken: its id and the tokens.
struct Game {
  std::string id, owner, silver, red;
};

Game NewGame(v1::KhetService::Stub& stub) {
  Game game;
  v1::CreateSessionRequest create;
  create.set_name("hostile");
  v1::CreateSessionResponse created;
  grpc::Status status = stub.CreateSession(Context().get(), create, &created);
  EXPECT_TRUE(status.ok()) << Describe(status);
  game.id = created.session().id();
  game.owner = created.owner_token();
  for (const v1::Color color : {v1::SILVER, v1::RED}) {
    v1::JoinSeatRequest join;
    join.set_session_id(game.id);
    join.set_color(color);
    join.set_player_name(color == v1::SILVER ? "alice" : "bob");
    v1::JoinSeatResponse joined;
    status = stub.JoinSeat(Context().get(), join, &joined);
    EXPECT_TRUE(status.ok()) << Describe(status);
    (color == v1::SILVER ? game.silver : game.red) = joined.player_token();
  }
  return game;
}

// The legal moves' notations in session `id` now.
std::vector<std::string> LegalMoves(v1::KhetService::Stub& stub,
                                    const std::string& id) {
  v1::ListLegalMovesRequest request;
  request.set_session_id(id);
  v1::ListLegalMovesResponse response;
  const grpc::Status status =
      stub.ListLegalMoves(Context().get(), request, &response);
  EXPECT_TRUE(status.ok()) << Describe(status);
  std::vector<std::string> moves;
  for (const v1::Move& move : response.moves())
    moves.push_back(move.notation());
  return moves;
}

int64_t Version(v1::KhetService::Stub& stub, const std::string& id) {
  v1::GetSessionRequest request;
  request.set_session_id(id);
  v1::Session session;
  const grpc::Status status =
      stub.GetSession(Context().get(), request, &session);
  EXPECT_TRUE(status.ok()) << Describe(status);
  return session.version();
}

grpc::Status Move(v1::KhetService::Stub& stub, const std::string& id,
                  const std::string& token, const std::string& notation,
                  const std::string& request_id,
                  v1::MakeMoveResponse* response) {
  v1::MakeMoveRequest request;
  request.set_session_id(id);
  request.mutable_move()->set_notation(notation);
  request.set_request_id(request_id);
  return stub.MakeMove(Context(token).get(), request, response);
}

// Many Watch streams opened through a completion queue from one thread,
// over `channels` connections; each is open once its first event (the
// session's history) has come. Cancelled and finished when destroyed.
class Watchers {
 public:
  Watchers(const std::string& address, int channels) {
    for (int i = 0; i < channels; ++i) {
      grpc::ChannelArguments args;
      args.SetInt("khet.hostile.channel", i);  // a connection of its own
      stubs_.push_back(v1::KhetService::NewStub(grpc::CreateCustomChannel(
          address, grpc::InsecureChannelCredentials(), args)));
    }
  }
  ~Watchers() {
    for (auto& call : calls_) call->context.TryCancel();
    for (auto& call : calls_) {
      if (call->state == State::kOpen) Finish(call.get());
    }
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (done_ < static_cast<int>(calls_.size()) && Next(deadline)) {
    }
    queue_.Shutdown();
    void* tag;
    bool ok;
    while (queue_.Next(&tag, &ok)) {
    }
  }

  // Starts a watch of `session_id` from the start of its history.
  void Add(const std::string& session_id) {
    auto call = std::make_unique<Call>();
    v1::WatchRequest request;
    request.set_session_id(session_id);
    call->reader = stubs_[calls_.size() % stubs_.size()]->PrepareAsyncWatch(
        &call->context, request, &queue_);
    call->reader->StartCall(call.get());
    calls_.push_back(std::move(call));
  }

  // Waits until every watch has its first event, or one has ended, or the
  // deadline; how many have their first event.
  int AwaitFirstEvents(absl::Time deadline) {
    while (open_ < static_cast<int>(calls_.size()) && ended_ == nullptr &&
           Next(deadline)) {
    }
    return open_;
  }

  // The status of a watch that ended before its first event; OK if none.
  grpc::Status Ended() const {
    return ended_ == nullptr ? grpc::Status::OK : ended_->status;
  }

 private:
  enum class State { kStarting, kReading, kOpen, kFinishing, kDone };
  struct Call {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientAsyncReader<v1::Event>> reader;
    v1::Event event;
    grpc::Status status;
    State state = State::kStarting;
  };

  void Finish(Call* call) {
    call->state = State::kFinishing;
    call->reader->Finish(&call->status, call);
  }

  // Handles the next completion; false if none came by `deadline`.
  bool Next(absl::Time deadline) {
    void* tag;
    bool ok;
    if (queue_.AsyncNext(&tag, &ok, absl::ToChronoTime(deadline)) !=
        grpc::CompletionQueue::GOT_EVENT) {
      return false;
    }
    Call* call = static_cast<Call*>(tag);
    switch (call->state) {
      case State::kStarting:
        if (!ok) return Finish(call), true;
        call->state = State::kReading;
        call->reader->Read(&call->event, call);
        return true;
      case State::kReading:
        if (!ok) return Finish(call), true;
        call->state = State::kOpen;
        ++open_;
        return true;
      case State::kFinishing:
        call->state = State::kDone;
        ++done_;
        if (ended_ == nullptr &&
            call->status.error_code() != grpc::StatusCode::CANCELLED) {
          ended_ = call;
        }
        return true;
      case State::kOpen:
      case State::kDone:
        return true;
    }
    return true;
  }

  std::vector<std::unique_ptr<v1::KhetService::Stub>> stubs_;
  grpc::CompletionQueue queue_;
  std::vector<std::unique_ptr<Call>> calls_;
  int open_ = 0;
  int done_ = 0;
  const Call* ended_ = nullptr;
};

// Finding: 2,000 gRPC Watch streams took 2,000 threads and 121% of a core
// while idle, with no overall cap. Now they add at most 64 threads and use
// under 20% of a core over 2 s of idleness.
TEST_F(GrpcHostileTest, ManyIdleWatchStreamsCostFewThreadsAndLittleCpu) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({}));
  std::unique_ptr<v1::KhetService::Stub> stub = NewStub();
  constexpr int kSessions = 40;  // 50 watchers each, under the per-session 64
  constexpr int kWatchers = 2000;
  std::vector<std::string> sessions;
  for (int i = 0; i < kSessions; ++i) sessions.push_back(NewGame(*stub).id);
  Watchers watchers(khetd().address(), 20);
  const int threads_before = Threads();
  for (int i = 0; i < kWatchers; ++i) watchers.Add(sessions[i % kSessions]);
  const int open = watchers.AwaitFirstEvents(absl::Now() + absl::Seconds(60));
  ASSERT_EQ(open, kWatchers) << Describe(watchers.Ended());

  absl::SleepFor(absl::Milliseconds(500));  // settled
  const int threads = Threads();
  const int64_t cpu_start = CpuNanos();
  absl::SleepFor(absl::Seconds(2));
  const int64_t cpu = CpuNanos() - cpu_start;
  EXPECT_LE(threads - threads_before, 64)
      << threads_before << " threads before, " << threads << " with "
      << kWatchers << " watchers";
  EXPECT_LT(cpu, 400'000'000)
      << "khetd used " << cpu / 1e6 << " ms of CPU in 2 s with idle watchers";
}

// Finding (no overall cap on Watch streams): beyond --max_watchers in all
// sessions, a watch is RESOURCE_EXHAUSTED; when one ends, its place is
// free again.
TEST_F(GrpcHostileTest, WatchersBeyondTheGlobalCapAreRefused) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({"--max_watchers=10"}));
  std::unique_ptr<v1::KhetService::Stub> stub = NewStub();
  const std::string a = NewGame(*stub).id;
  const std::string b = NewGame(*stub).id;
  {
    Watchers watchers(khetd().address(), 2);
    for (int i = 0; i < 10; ++i) watchers.Add(i % 2 == 0 ? a : b);
    ASSERT_EQ(watchers.AwaitFirstEvents(absl::Now() + absl::Seconds(10)), 10)
        << Describe(watchers.Ended());
    Watchers one_more(khetd().address(), 1);
    one_more.Add(a);
    EXPECT_EQ(one_more.AwaitFirstEvents(absl::Now() + absl::Seconds(10)), 0);
    const grpc::Status refused = one_more.Ended();
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << Describe(refused);
  }
  // The ten were cancelled: ten new ones fit again once khetd has seen it.
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  int open = 0;
  while (open < 10 && absl::Now() < deadline) {
    Watchers watchers(khetd().address(), 2);
    for (int i = 0; i < 10; ++i) watchers.Add(i % 2 == 0 ? a : b);
    open = watchers.AwaitFirstEvents(absl::Now() + absl::Seconds(5));
    if (open < 10) absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_EQ(open, 10);
}

// Finding: a session's event log grew for ever: one caller holding both
// seats could leave and join (or play and reset) without end, and the store
// kept every event. Now it keeps about --max_session_events of them, and a
// watch from the start begins at the oldest kept.
TEST_F(GrpcHostileTest, ASessionKeepsABoundedHistory) {
  const std::string data_dir = testing::TempDir() + "/bounded_history";
  std::filesystem::remove_all(data_dir);
  ASSERT_NO_FATAL_FAILURE(
      StartKhetd({"--store=sqlite", "--data_dir=" + data_dir,
                  "--max_session_events=100"}));
  std::unique_ptr<v1::KhetService::Stub> stub = NewStub();
  Game game = NewGame(*stub);
  for (int i = 0; i < 150; ++i) {
    v1::LeaveSeatRequest leave;
    leave.set_session_id(game.id);
    v1::Session left;
    grpc::Status status =
        stub->LeaveSeat(Context(game.red).get(), leave, &left);
    ASSERT_TRUE(status.ok()) << Describe(status);
    v1::JoinSeatRequest join;
    join.set_session_id(game.id);
    join.set_color(v1::RED);
    join.set_player_name("bob");
    v1::JoinSeatResponse joined;
    status = stub->JoinSeat(Context().get(), join, &joined);
    ASSERT_TRUE(status.ok()) << Describe(status);
    game.red = joined.player_token();
  }
  const int64_t version = Version(*stub, game.id);
  ASSERT_GE(version, 300);
  v1::WatchRequest watch;
  watch.set_session_id(game.id);
  watch.set_after_version(0);
  std::unique_ptr<grpc::ClientContext> context = Context();
  std::unique_ptr<grpc::ClientReader<v1::Event>> reader =
      stub->Watch(context.get(), watch);
  v1::Event first;
  ASSERT_TRUE(reader->Read(&first));
  EXPECT_GT(first.version(), version - 199);
  EXPECT_LE(first.version(), version - 99);
  context->TryCancel();
  reader->Finish().IgnoreError();
  // The session plays on.
  const std::vector<std::string> moves = LegalMoves(*stub, game.id);
  ASSERT_FALSE(moves.empty());
  v1::MakeMoveResponse moved;
  const grpc::Status status =
      Move(*stub, game.id, game.silver, moves.front(), "", &moved);
  EXPECT_TRUE(status.ok()) << Describe(status);
  EXPECT_EQ(moved.version(), version + 1);
}

// Finding: MakeMove by another player, or after a reset, with a request_id
// known from an earlier move got that move's stored reply back as OK, and
// the new move was not played. Now another caller's known request_id is
// INVALID_ARGUMENT naming it, the same caller's exact retry gets its first
// answer, and in a new game the request_id is a new request.
TEST_F(GrpcHostileTest, RequestIdOfAnotherCallerOrAnEarlierGameIsNotReplayed) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({}));
  std::unique_ptr<v1::KhetService::Stub> stub = NewStub();
  Game game = NewGame(*stub);
  const std::vector<std::string> openings = LegalMoves(*stub, game.id);
  ASSERT_GE(openings.size(), 2u);

  v1::MakeMoveResponse first;
  grpc::Status status =
      Move(*stub, game.id, game.silver, openings[0], "retry-1", &first);
  ASSERT_TRUE(status.ok()) << Describe(status);
  const int64_t version = first.version();

  // Red with Silver's request_id: refused, naming it, and nothing played.
  const std::vector<std::string> replies = LegalMoves(*stub, game.id);
  ASSERT_FALSE(replies.empty());
  v1::MakeMoveResponse other;
  status = Move(*stub, game.id, game.red, replies[0], "retry-1", &other);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << Describe(status);
  EXPECT_THAT(status.error_message(), HasSubstr("retry-1"));
  EXPECT_EQ(Version(*stub, game.id), version);

  // Silver's exact retry: the first answer, nothing new played.
  v1::MakeMoveResponse retried;
  status = Move(*stub, game.id, game.silver, openings[0], "retry-1", &retried);
  ASSERT_TRUE(status.ok()) << Describe(status);
  EXPECT_EQ(retried.version(), version);
  EXPECT_EQ(Version(*stub, game.id), version);

  // A new game (reset, seats taken again): the same request_id with
  // another move is a new request, and that move is played.
  v1::ResetGameRequest reset;
  reset.set_session_id(game.id);
  v1::Session after_reset;
  status = stub->ResetGame(Context(game.owner).get(), reset, &after_reset);
  ASSERT_TRUE(status.ok()) << Describe(status);
  for (const v1::Color color : {v1::SILVER, v1::RED}) {
    v1::JoinSeatRequest join;
    join.set_session_id(game.id);
    join.set_color(color);
    join.set_player_name(color == v1::SILVER ? "carol" : "dave");
    v1::JoinSeatResponse joined;
    status = stub->JoinSeat(Context().get(), join, &joined);
    ASSERT_TRUE(status.ok()) << Describe(status);
    (color == v1::SILVER ? game.silver : game.red) = joined.player_token();
  }
  const int64_t new_game = Version(*stub, game.id);
  v1::MakeMoveResponse played;
  status = Move(*stub, game.id, game.silver, openings[1], "retry-1", &played);
  ASSERT_TRUE(status.ok()) << Describe(status);
  EXPECT_EQ(played.move().notation(), openings[1]);
  EXPECT_EQ(played.version(), new_game + 1);
  EXPECT_EQ(Version(*stub, game.id), new_game + 1);
}

// Finding: a 60 KB move string came back whole in the error (the client
// saw RESOURCE_EXHAUSTED) and made a 60 KB log line. Now it is
// INVALID_ARGUMENT with a short message, over gRPC and HTTP, and every log
// line stays short.
TEST_F(GrpcHostileTest, HugeMoveGetsAShortErrorAndAShortLogLine) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({}));
  std::unique_ptr<v1::KhetService::Stub> stub = NewStub();
  const Game game = NewGame(*stub);
  const std::string huge(60000, 'e');
  v1::MakeMoveResponse response;
  const grpc::Status status =
      Move(*stub, game.id, game.silver, huge, "", &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << status.error_code();
  EXPECT_LT(status.error_message().size(), 300u)
      << status.error_message().substr(0, 300);

  absl::StatusOr<RawResponse> answer = Exchange(
      PostRequest(absl::StrCat("/v1/sessions/", game.id, ":move"),
                  absl::StrCat(R"({"move":{"notation":")", huge, R"("}})"),
                  absl::StrCat("X-Khet-Token: ", game.silver, "\r\n")));
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->status, 400);
  EXPECT_LT(answer->body.size(), 1024u) << answer->body.substr(0, 1024);

  // Both requests are logged, each in a short line.
  std::vector<std::string> lines;
  for (const absl::Time deadline = absl::Now() + absl::Seconds(5);
       absl::Now() < deadline; absl::SleepFor(absl::Milliseconds(50))) {
    lines = absl::StrSplit(khetd().log(), '\n', absl::SkipEmpty());
    int logged = 0;
    for (const std::string& line : lines) {
      logged += absl::StrContains(line, "MakeMove") ||
                absl::StrContains(line, ":move");
    }
    if (logged >= 2) break;
  }
  int moves = 0;
  for (const std::string& line : lines) {
    EXPECT_LT(line.size(), 1024u) << line.substr(0, 300);
    moves +=
        absl::StrContains(line, "MakeMove") || absl::StrContains(line, ":move");
  }
  EXPECT_EQ(moves, 2) << khetd().log().substr(0, 4000);
}

// Finding: Watch after_version=2^63-1 was accepted (and never answered),
// ListSessions(status=99) was OK and empty, and names with right-to-left
// override or zero-width characters were accepted. Each is now
// INVALID_ARGUMENT naming the field.
TEST_F(GrpcHostileTest, ImpossibleVersionsEnumsAndHiddenCharactersAreRefused) {
  ASSERT_NO_FATAL_FAILURE(StartKhetd({}));
  std::unique_ptr<v1::KhetService::Stub> stub = NewStub();
  const Game game = NewGame(*stub);

  v1::WatchRequest watch;
  watch.set_session_id(game.id);
  watch.set_after_version(std::numeric_limits<int64_t>::max());
  grpc::ClientContext watching;
  watching.set_deadline(In(absl::Seconds(5)));
  std::unique_ptr<grpc::ClientReader<v1::Event>> reader =
      stub->Watch(&watching, watch);
  v1::Event event;
  EXPECT_FALSE(reader->Read(&event));
  grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << Describe(status);
  EXPECT_THAT(status.error_message(), HasSubstr("after_version"));

  v1::ListSessionsRequest list;
  list.set_status(static_cast<v1::GameStatus>(99));
  v1::ListSessionsResponse listed;
  status = stub->ListSessions(Context().get(), list, &listed);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << Describe(status);
  EXPECT_THAT(status.error_message(), HasSubstr("status"));

  // U+202E RIGHT-TO-LEFT OVERRIDE, U+200B ZERO WIDTH SPACE.
  for (const std::string hidden : {"\xE2\x80\xAE", "\xE2\x80\x8B"}) {
    v1::CreateSessionRequest create;
    create.set_name(absl::StrCat("lobby", hidden, "gpj.exe"));
    v1::CreateSessionResponse created;
    status = stub->CreateSession(Context().get(), create, &created);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << Describe(status);
    EXPECT_THAT(status.error_message(), HasSubstr("name"));

    v1::CreateSessionRequest plain;
    plain.set_name("plain");
    status = stub->CreateSession(Context().get(), plain, &created);
    ASSERT_TRUE(status.ok()) << Describe(status);
    v1::JoinSeatRequest join;
    join.set_session_id(created.session().id());
    join.set_player_name(absl::StrCat("ali", hidden, "ce"));
    v1::JoinSeatResponse joined;
    status = stub->JoinSeat(Context().get(), join, &joined);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << Describe(status);
    EXPECT_THAT(status.error_message(), HasSubstr("player_name"));
  }

  // The same over HTTP: a long poll from the future is 400 at once.
  absl::StatusOr<RawResponse> poll = Exchange(
      GetRequest(absl::StrCat("/v1/sessions/", game.id,
                              "/events?afterVersion=9223372036854775807&"
                              "waitSeconds=10")),
      "", absl::Seconds(5));
  ASSERT_TRUE(poll.ok()) << poll.status();
  EXPECT_EQ(poll->status, 400) << poll->body;
  EXPECT_THAT(poll->body, HasSubstr("after"));
}

}  // namespace
}  // namespace khet::hostile
