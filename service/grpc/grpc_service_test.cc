// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// KhetGrpcService over an in-process channel: every RPC, every error code
// the edge produces or passes on, Watch streaming, cancellation and
// shutdown, health checking and reflection, and the request log.
#include "service/grpc/grpc_service.h"

#include <atomic>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/sync_stream.h"
#include "gtest/gtest.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "service/base/mutex.h"
#include "service/core/session_service.h"
#include "service/grpc/event_bytes.h"
#include "service/grpc/request_log.h"
#include "service/grpc/tsan_hand_over.h"
#include "service/metrics/metrics.h"
#include "service/store/memory_store.h"
#include "service/store/session_store.h"

namespace khet {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr int kMaxMessageBytes = 64 * 1024;

#define EXPECT_CODE(status, code)                           \
  do {                                                      \
    const grpc::Status status_ = (status);                  \
    EXPECT_EQ(status_.error_code(), grpc::StatusCode::code) \
        << StatusCodeName(status_.error_code()) << ": "     \
        << status_.error_message();                         \
  } while (false)

#define ASSERT_GRPC_OK(status)                                                \
  do {                                                                        \
    const grpc::Status status_ = (status);                                    \
    ASSERT_TRUE(status_.ok()) << StatusCodeName(status_.error_code()) << ": " \
                              << status_.error_message();                     \
  } while (false)

// The memory store, except that Update waits while the gate is closed: a
// store whose writes take long. With `later` set it updates_later(), each
// UpdateLater's write (gate and all) and answer on a thread of its own, as
// a database's committer answers.
class GatedStore final : public SessionStore {
 public:
  ~GatedStore() override {
    std::vector<std::thread> writers;
    {
      MutexLock lock(&mu_);
      writers.swap(writers_);
    }
    for (std::thread& writer : writers) writer.join();
  }
  std::atomic<bool> later{false};
  bool updates_later() const override { return later; }
  void UpdateLater(LaterUpdate update,
                   absl::AnyInvocable<void(absl::Status) &&> done) override {
    if (!later) {
      SessionStore::UpdateLater(std::move(update), std::move(done));
      return;
    }
    MutexLock lock(&mu_);
    writers_.emplace_back(
        [this, update = std::move(update), done = std::move(done)]() mutable {
          std::move(done)(
              Update(update.record, update.expected_version, update.events,
                     update.archive.has_value() ? &*update.archive : nullptr));
        });
  }

  void Close() {
    MutexLock lock(&mu_);
    open_ = false;
  }
  void Open() {
    MutexLock lock(&mu_);
    open_ = true;
    opened_.SignalAll();
  }
  // Writes waiting at the gate now.
  int waiting() {
    MutexLock lock(&mu_);
    return waiting_;
  }

  absl::Status Create(const SessionRecord& record,
                      absl::Span<const EventRecord> events) override {
    return store_.Create(record, events);
  }
  using SessionStore::Update;
  absl::Status Update(const SessionRecord& record, int64_t expected_version,
                      absl::Span<const EventRecord> events,
                      const ArchivedGame* archive) override {
    {
      MutexLock lock(&mu_);
      ++waiting_;
      while (!open_) opened_.WaitWithTimeout(&mu_, absl::Seconds(1));
      --waiting_;
    }
    return store_.Update(record, expected_version, events, archive);
  }
  absl::Status Delete(std::string_view id) override {
    return store_.Delete(id);
  }
  absl::StatusOr<SessionRecord> Get(std::string_view id) override {
    return store_.Get(id);
  }
  absl::StatusOr<std::vector<SessionRecord>> LoadAll() override {
    return store_.LoadAll();
  }
  absl::StatusOr<std::vector<EventRecord>> EventsAfter(std::string_view id,
                                                       int64_t after_version,
                                                       int limit) override {
    return store_.EventsAfter(id, after_version, limit);
  }
  absl::StatusOr<bool> TryLease(std::string_view id, std::string_view holder,
                                absl::Time now, absl::Duration ttl) override {
    return store_.TryLease(id, holder, now, ttl);
  }
  absl::StatusOr<ArchivedGame> GetGame(std::string_view game_id) override {
    return store_.GetGame(game_id);
  }
  absl::Status SetGameAnalysis(std::string_view game_id,
                               std::string_view analysis) override {
    return store_.SetGameAnalysis(game_id, analysis);
  }
  absl::StatusOr<std::vector<ArchivedGame>> ListGames(
      const GameQuery& query) override {
    return store_.ListGames(query);
  }

 private:
  MemoryStore store_;
  Mutex mu_;
  CondVar opened_;
  bool open_ ABSL_GUARDED_BY(mu_) = true;
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> writers_ ABSL_GUARDED_BY(mu_);  // UpdateLater's
};

// Every test runs with the calls served on gRPC's callback threads
// (store_threads 0, as khetd does for the memory store) and on the
// service's store threads (as for SQLite): the parameter.
class GrpcServiceTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    ServiceOptions options;
    options.store = &store_;
    options.limits.max_watchers_per_session = 2;
    // Longer than WaitForLog waits: a search that ends by itself does not
    // pass for one that was stopped.
    options.limits.max_suggestion_time = absl::Seconds(30);
    AdjustLimits(options.limits);
    absl::StatusOr<std::unique_ptr<SessionService>> core =
        SessionService::Create(options);
    ASSERT_TRUE(core.ok()) << core.status();
    core_ = std::move(*core);
    KhetGrpcServiceOptions service_options;
    service_options.store_threads = GetParam();
    service_options.log = [this](const std::string& line) {
      MutexLock lock(&log_mu_);
      log_.push_back(line);
    };
    AdjustServiceOptions(service_options);
    service_ = std::make_unique<KhetGrpcService>(core_.get(), service_options);
    EnableHealthCheckingAndReflection();
    grpc::ServerBuilder builder;
    // Tests call in process, or over loopback TCP when they need real
    // connections.
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port_);
    AddKhetService(&builder, service_.get(), kMaxMessageBytes);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ReportServing(server_.get());
    channel_ = server_->InProcessChannel(grpc::ChannelArguments());
    stub_ = v1::KhetService::NewStub(channel_);
  }

  // For fixtures that need other limits or options.
  virtual void AdjustLimits(ServiceLimits&) {}
  virtual void AdjustServiceOptions(KhetGrpcServiceOptions&) {}

  void TearDown() override {
    store_.Open();  // no write waits forever when a test failed
    service_->Shutdown();
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(5));
    // No token ever reaches the log.
    MutexLock lock(&log_mu_);
    for (const std::string& token : tokens_) {
      for (const std::string& line : log_) {
        EXPECT_THAT(line, Not(HasSubstr(token)));
      }
    }
  }

  // A context with a deadline and, if given, the token.
  static std::unique_ptr<grpc::ClientContext> Context(
      const std::string& token = "") {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::seconds(20));
    if (!token.empty()) {
      context->AddMetadata("authorization", "Bearer " + token);
    }
    return context;
  }

  v1::CreateSessionResponse Create(const std::string& setup_id = "classic-2") {
    v1::CreateSessionRequest request;
    request.set_name("test board");
    request.set_setup_id(setup_id);
    v1::CreateSessionResponse response;
    const grpc::Status status =
        stub_->CreateSession(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    tokens_.push_back(response.owner_token());
    return response;
  }

  v1::JoinSeatResponse Join(const std::string& session_id, v1::Color color,
                            const std::string& name) {
    v1::JoinSeatRequest request;
    request.set_session_id(session_id);
    request.set_color(color);
    request.set_player_name(name);
    v1::JoinSeatResponse response;
    const grpc::Status status =
        stub_->JoinSeat(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    tokens_.push_back(response.player_token());
    return response;
  }

  // A board with both seats taken: the game is running, Silver to move.
  struct Game {
    std::string id;
    std::string owner;
    std::string silver;
    std::string red;
  };
  Game StartGame(const std::string& setup_id = "classic-2") {
    Game game;
    const v1::CreateSessionResponse created = Create(setup_id);
    game.id = created.session().id();
    game.owner = created.owner_token();
    game.silver = Join(game.id, v1::SILVER, "alice").player_token();
    game.red = Join(game.id, v1::RED, "bob").player_token();
    return game;
  }

  v1::Session Get(const std::string& id) {
    v1::GetSessionRequest request;
    request.set_session_id(id);
    v1::Session session;
    EXPECT_TRUE(stub_->GetSession(Context().get(), request, &session).ok());
    return session;
  }

  // The first legal move of the side to move, in notation.
  std::string AnyLegalMove(const std::string& id) {
    v1::ListLegalMovesRequest request;
    request.set_session_id(id);
    v1::ListLegalMovesResponse response;
    EXPECT_TRUE(
        stub_->ListLegalMoves(Context().get(), request, &response).ok());
    EXPECT_GT(response.moves_size(), 0);
    return response.moves_size() > 0 ? response.moves(0).notation() : "";
  }

  grpc::Status Move(const std::string& id, const std::string& token,
                    const std::string& notation, v1::MakeMoveResponse* response,
                    std::optional<int64_t> expected_version = std::nullopt) {
    v1::MakeMoveRequest request;
    request.set_session_id(id);
    request.mutable_move()->set_notation(notation);
    if (expected_version.has_value()) {
      request.set_expected_version(*expected_version);
    }
    return stub_->MakeMove(Context(token).get(), request, response);
  }

  // Waits until a log line containing every one of `parts` appears.
  bool WaitForLog(const std::vector<std::string>& parts) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (absl::Now() < deadline) {
      {
        MutexLock lock(&log_mu_);
        for (const std::string& line : log_) {
          bool all = true;
          for (const std::string& part : parts) {
            all = all && absl::StrContains(line, part);
          }
          if (all) return true;
        }
      }
      absl::SleepFor(absl::Milliseconds(5));
    }
    return false;
  }

  GatedStore store_;
  std::unique_ptr<SessionService> core_;
  std::unique_ptr<KhetGrpcService> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;  // on 127.0.0.1
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::KhetService::Stub> stub_;
  std::vector<std::string> tokens_;  // every token handed out
  Mutex log_mu_;
  std::vector<std::string> log_ ABSL_GUARDED_BY(log_mu_);
};

std::string ThreadsName(const ::testing::TestParamInfo<int>& threads) {
  return threads.param == 0 ? std::string("CallbackThreads")
                            : absl::StrCat("StoreThreads", threads.param);
}

INSTANTIATE_TEST_SUITE_P(Threads, GrpcServiceTest, ::testing::Values(0, 4),
                         ThreadsName);

// ---- Every RPC -----------------------------------------------------------

TEST_P(GrpcServiceTest, ListSetupsAndColorSchemes) {
  v1::ListSetupsResponse setups;
  ASSERT_GRPC_OK(
      stub_->ListSetups(Context().get(), v1::ListSetupsRequest(), &setups));
  std::vector<std::string> ids;
  for (const v1::Setup& setup : setups.setups()) ids.push_back(setup.id());
  EXPECT_THAT(ids, ::testing::IsSupersetOf(
                       {"classic-1", "classic-2", "osiris", "classic-2b"}));

  v1::ListColorSchemesResponse schemes;
  ASSERT_GRPC_OK(stub_->ListColorSchemes(
      Context().get(), v1::ListColorSchemesRequest(), &schemes));
  ASSERT_GT(schemes.schemes_size(), 0);
  EXPECT_TRUE(WaitForLog({"method=ListSetups", "code=OK", "latency_ms="}));
}

TEST_P(GrpcServiceTest, CreateGetListDelete) {
  const v1::CreateSessionResponse created = Create("classic-1");
  const std::string id = created.session().id();
  EXPECT_FALSE(id.empty());
  EXPECT_FALSE(created.owner_token().empty());
  EXPECT_EQ(created.session().setup_id(), "classic-1");
  EXPECT_TRUE(WaitForLog({"method=CreateSession", "session=" + id}));

  const v1::Session session = Get(id);
  EXPECT_EQ(session.id(), id);
  EXPECT_EQ(session.name(), "test board");
  EXPECT_EQ(session.status(), v1::WAITING_FOR_PLAYERS);

  v1::ListSessionsResponse list;
  ASSERT_GRPC_OK(
      stub_->ListSessions(Context().get(), v1::ListSessionsRequest(), &list));
  ASSERT_EQ(list.sessions_size(), 1);
  EXPECT_EQ(list.sessions(0).id(), id);

  v1::DeleteSessionRequest remove;
  remove.set_session_id(id);
  v1::DeleteSessionResponse removed;
  ASSERT_GRPC_OK(stub_->DeleteSession(Context(created.owner_token()).get(),
                                      remove, &removed));
  v1::GetSessionRequest get;
  get.set_session_id(id);
  v1::Session gone;
  EXPECT_CODE(stub_->GetSession(Context().get(), get, &gone), NOT_FOUND);
}

// A session needs no name: the core names it after its setup, or after the
// record it came from.
TEST_P(GrpcServiceTest, CreateSessionWithoutANameGetsADefault) {
  auto create = [&](v1::CreateSessionRequest request) {
    v1::CreateSessionResponse response;
    const grpc::Status status =
        stub_->CreateSession(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.session().name();
  };
  EXPECT_EQ(create({}), "Classic 2 game");
  v1::CreateSessionRequest osiris;
  osiris.set_setup_id("osiris");
  EXPECT_EQ(create(osiris), "Osiris game");
  v1::CreateSessionRequest custom;
  custom.set_position("xs4k4/10/10/10/10/10/10/pnw3K4Xn r 2");
  EXPECT_EQ(create(custom), "Custom position game");
  v1::CreateSessionRequest from_record;
  from_record.set_record("[Setup \"classic-2\"]\n\n1. j4-j3 *\n");
  from_record.set_ply(1);
  EXPECT_EQ(create(from_record), "Classic 2 game from a record");
  from_record.set_record(
      "[Event \"club night\"]\n[Setup \"classic-2\"]\n\n1. j4-j3 *\n");
  EXPECT_EQ(create(from_record), "club night");
  from_record.set_record(
      "[Event \"club night\"]\n[Setup \"classic-2\"]\n[Board \"lunch\"]\n\n"
      "1. j4-j3 *\n");
  EXPECT_EQ(create(from_record), "lunch");
}

TEST_P(GrpcServiceTest, JoinStartsTheGameAndLeaveFreesTheSeat) {
  const Game game = StartGame();
  v1::Session session = Get(game.id);
  EXPECT_EQ(session.status(), v1::IN_PROGRESS);
  ASSERT_EQ(session.seats_size(), 2);
  EXPECT_EQ(session.seats(0).player_name(), "alice");
  EXPECT_EQ(session.seats(1).player_name(), "bob");

  v1::LeaveSeatRequest leave;
  leave.set_session_id(game.id);
  ASSERT_GRPC_OK(stub_->LeaveSeat(Context(game.red).get(), leave, &session));
  EXPECT_FALSE(session.seats(1).occupied());
}

TEST_P(GrpcServiceTest, ChooseSetupBeforeTheGame) {
  const v1::CreateSessionResponse created = Create("classic-2");
  v1::ChooseSetupRequest request;
  request.set_session_id(created.session().id());
  request.set_setup_id("osiris");
  request.mutable_rules()->set_ply_limit(300);
  v1::Session session;
  ASSERT_GRPC_OK(stub_->ChooseSetup(Context(created.owner_token()).get(),
                                    request, &session));
  EXPECT_EQ(session.setup_id(), "osiris");
  EXPECT_EQ(session.rules().ply_limit(), 300);
}

TEST_P(GrpcServiceTest, MakeMoveAndListLegalMoves) {
  const Game game = StartGame();
  const int64_t version = Get(game.id).version();

  v1::ListLegalMovesRequest moves_request;
  moves_request.set_session_id(game.id);
  moves_request.set_square("j1");
  v1::ListLegalMovesResponse sphinx_moves;
  ASSERT_GRPC_OK(
      stub_->ListLegalMoves(Context().get(), moves_request, &sphinx_moves));
  ASSERT_EQ(sphinx_moves.moves_size(), 1);
  EXPECT_EQ(sphinx_moves.moves(0).notation(), "j1L");

  v1::MakeMoveResponse response;
  ASSERT_GRPC_OK(Move(game.id, game.silver, "j1L", &response, version));
  EXPECT_EQ(response.move().notation(), "j1L");
  EXPECT_EQ(response.version(), version + 1);
  EXPECT_FALSE(response.announcement().empty());
  EXPECT_EQ(response.board().side_to_move(), v1::RED);
  EXPECT_EQ(Get(game.id).moves_size(), 1);
}

TEST_P(GrpcServiceTest, Resign) {
  const Game game = StartGame();
  v1::ResignRequest request;
  request.set_session_id(game.id);
  v1::Session session;
  ASSERT_GRPC_OK(stub_->Resign(Context(game.red).get(), request, &session));
  EXPECT_EQ(session.status(), v1::FINISHED);
  EXPECT_EQ(session.result().outcome(), v1::SILVER_WINS);
  EXPECT_EQ(session.result().reason(), v1::RESIGNATION);
}

TEST_P(GrpcServiceTest, OfferAndAcceptDraw) {
  const Game game = StartGame();
  v1::OfferDrawRequest offer;
  offer.set_session_id(game.id);
  v1::Session session;
  ASSERT_GRPC_OK(stub_->OfferDraw(Context(game.silver).get(), offer, &session));
  EXPECT_EQ(session.draw_offered_by(), v1::SILVER);

  v1::AcceptDrawRequest accept;
  accept.set_session_id(game.id);
  ASSERT_GRPC_OK(stub_->AcceptDraw(Context(game.red).get(), accept, &session));
  EXPECT_EQ(session.status(), v1::FINISHED);
  EXPECT_EQ(session.result().outcome(), v1::DRAW);
  EXPECT_EQ(session.result().reason(), v1::AGREED_DRAW);
}

TEST_P(GrpcServiceTest, ClaimRepetitionDrawBeforeARepetitionFails) {
  const Game game = StartGame();
  v1::ClaimRepetitionDrawRequest request;
  request.set_session_id(game.id);
  v1::Session session;
  EXPECT_CODE(
      stub_->ClaimRepetitionDraw(Context(game.silver).get(), request, &session),
      FAILED_PRECONDITION);
}

TEST_P(GrpcServiceTest, ClaimRepetitionDrawOnTheThirdOccurrence) {
  const Game game = StartGame();
  // A Pyramid of each side turns and turns back, twice, hitting nothing:
  // the start occurs for the third time.
  const std::vector<std::pair<std::string, std::string>> plies = {
      {game.silver, "c1R"}, {game.red, "g3R"},    {game.silver, "c1L"},
      {game.red, "g3L"},    {game.silver, "c1R"}, {game.red, "g3R"},
      {game.silver, "c1L"}, {game.red, "g3L"}};
  for (const auto& [token, notation] : plies) {
    v1::MakeMoveResponse response;
    ASSERT_GRPC_OK(Move(game.id, token, notation, &response));
  }
  v1::ClaimRepetitionDrawRequest request;
  request.set_session_id(game.id);
  v1::Session session;
  ASSERT_GRPC_OK(stub_->ClaimRepetitionDraw(Context(game.silver).get(), request,
                                            &session));
  EXPECT_EQ(session.result().outcome(), v1::DRAW);
  EXPECT_EQ(session.result().reason(), v1::REPETITION_CLAIMED);
}

TEST_P(GrpcServiceTest, UpdateSettingsAndResetGame) {
  const Game game = StartGame();
  v1::UpdateSettingsRequest update;
  update.set_session_id(game.id);
  update.mutable_settings()->set_quiet(true);
  update.mutable_settings()->set_timeout_seconds(120);
  update.mutable_settings()->set_color_scheme("nile");
  v1::Session session;
  ASSERT_GRPC_OK(
      stub_->UpdateSettings(Context(game.owner).get(), update, &session));
  EXPECT_TRUE(session.settings().quiet());
  EXPECT_EQ(session.settings().timeout_seconds(), 120);
  EXPECT_EQ(session.settings().color_scheme(), "nile");

  v1::ResetGameRequest reset;
  reset.set_session_id(game.id);
  ASSERT_GRPC_OK(stub_->ResetGame(Context(game.owner).get(), reset, &session));
  EXPECT_EQ(session.status(), v1::WAITING_FOR_PLAYERS);
  EXPECT_FALSE(session.seats(0).occupied());
  EXPECT_TRUE(session.settings().quiet());
}

TEST_P(GrpcServiceTest, RenderBoard) {
  const Game game = StartGame();
  v1::MakeMoveResponse moved;
  ASSERT_GRPC_OK(Move(game.id, game.silver, "j1L", &moved));
  v1::RenderBoardRequest request;
  request.set_session_id(game.id);
  v1::RenderBoardResponse with_laser;
  ASSERT_GRPC_OK(stub_->RenderBoard(Context().get(), request, &with_laser));
  EXPECT_THAT(with_laser.text(), HasSubstr("a   b   c"));
  request.set_without_laser(true);
  v1::RenderBoardResponse without_laser;
  ASSERT_GRPC_OK(stub_->RenderBoard(Context().get(), request, &without_laser));
  EXPECT_NE(with_laser.text(), without_laser.text());
}

TEST_P(GrpcServiceTest, GameRecordsArchiveAndPositions) {
  const Game game = StartGame();
  v1::MakeMoveResponse moved;
  ASSERT_GRPC_OK(Move(game.id, game.silver, "j1L", &moved));
  v1::ResetGameRequest reset;
  reset.set_session_id(game.id);
  v1::Session session;
  ASSERT_GRPC_OK(stub_->ResetGame(Context(game.owner).get(), reset, &session));
  EXPECT_EQ(session.game_id(), game.id + "-g2");

  v1::ListGamesRequest list;
  list.set_session_id(game.id);
  v1::ListGamesResponse listed;
  ASSERT_GRPC_OK(stub_->ListGames(Context().get(), list, &listed));
  ASSERT_EQ(listed.games_size(), 1);
  EXPECT_EQ(listed.games(0).id(), game.id + "-g1");

  v1::GetGameRecordRequest get;
  get.set_session_id(game.id);
  get.set_game_id(game.id + "-g1");
  v1::GetGameRecordResponse record;
  ASSERT_GRPC_OK(stub_->GetGameRecord(Context().get(), get, &record));
  EXPECT_THAT(record.text(), HasSubstr("1. j1L"));

  v1::GetPositionRequest at;
  at.set_session_id(game.id);
  at.set_game_id(game.id + "-g1");
  at.set_ply(1);
  v1::GetPositionResponse position;
  ASSERT_GRPC_OK(stub_->GetPosition(Context().get(), at, &position));
  EXPECT_TRUE(MessageDifferencer::Equals(position.board(), moved.board()));
  at.set_ply(2);
  EXPECT_CODE(stub_->GetPosition(Context().get(), at, &position),
              INVALID_ARGUMENT);
  get.set_game_id("nope");
  EXPECT_CODE(stub_->GetGameRecord(Context().get(), get, &record), NOT_FOUND);

  // The abandoned game can be analysed: the first call starts it; the
  // current game, still going, cannot.
  v1::AnalyzeGameRequest analyze;
  analyze.set_session_id(game.id);
  analyze.set_game_id(game.id + "-g1");
  analyze.set_ms_per_ply(10);
  v1::GameAnalysis analysis;
  ASSERT_GRPC_OK(stub_->AnalyzeGame(Context().get(), analyze, &analysis));
  EXPECT_EQ(analysis.game_id(), game.id + "-g1");
  EXPECT_EQ(analysis.plies(), 1);
  analyze.set_game_id("current");
  EXPECT_CODE(stub_->AnalyzeGame(Context().get(), analyze, &analysis),
              FAILED_PRECONDITION);

  v1::CreateSessionRequest create;
  create.set_name("imported");
  create.set_record(record.text());
  v1::CreateSessionResponse created;
  ASSERT_GRPC_OK(stub_->CreateSession(Context().get(), create, &created));
  EXPECT_EQ(created.session().moves_size(), 1);
  create.set_record("[Setup \"classic-2\"]\n\n1. a1-a9 *\n");
  const grpc::Status bad =
      stub_->CreateSession(Context().get(), create, &created);
  EXPECT_CODE(bad, INVALID_ARGUMENT);
  EXPECT_THAT(bad.error_message(), HasSubstr("line 3"));
}

// ---- Error codes ---------------------------------------------------------

TEST_P(GrpcServiceTest, UnauthenticatedWithoutToken) {
  const Game game = StartGame();
  v1::MakeMoveResponse response;
  const grpc::Status status = Move(game.id, "", "j1L", &response);
  EXPECT_CODE(status, UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("authorization"));
  EXPECT_TRUE(WaitForLog(
      {"method=MakeMove", "session=" + game.id, "code=UNAUTHENTICATED"}));

  v1::DeleteSessionRequest remove;
  remove.set_session_id(game.id);
  v1::DeleteSessionResponse removed;
  EXPECT_CODE(stub_->DeleteSession(Context().get(), remove, &removed),
              UNAUTHENTICATED);
}

TEST_P(GrpcServiceTest, UnauthenticatedWithMalformedAuthorization) {
  const Game game = StartGame();
  for (const std::string& value : std::vector<std::string>{
           "Basic " + game.silver, game.silver, "Bearer ", "Bearer two words",
           "Bearer x", "Bearer !!!", "Bearer " + std::string(10240, 'a'),
           "Bearer " + game.silver + "x",
           "Bearer " + game.silver.substr(1) + "="}) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", value);
    v1::MakeMoveRequest request;
    request.set_session_id(game.id);
    request.mutable_move()->set_notation("j1L");
    v1::MakeMoveResponse response;
    const grpc::Status status = stub_->MakeMove(&context, request, &response);
    SCOPED_TRACE(value.substr(0, 40));
    EXPECT_CODE(status, UNAUTHENTICATED);
    EXPECT_THAT(status.error_message(), Not(HasSubstr(game.silver)));
  }
  // The scheme is case-insensitive.
  grpc::ClientContext context;
  context.AddMetadata("authorization", "bearer " + game.silver);
  v1::MakeMoveRequest request;
  request.set_session_id(game.id);
  request.mutable_move()->set_notation("j1L");
  v1::MakeMoveResponse response;
  ASSERT_GRPC_OK(stub_->MakeMove(&context, request, &response));
}

TEST_P(GrpcServiceTest, PermissionDeniedWithWrongToken) {
  const Game game = StartGame();
  v1::MakeMoveResponse response;
  // Well formed, but not a token of this session.
  EXPECT_CODE(Move(game.id, std::string(43, 'x'), "j1L", &response),
              PERMISSION_DENIED);
  // A player's token is not the owner's.
  v1::ResetGameRequest reset;
  reset.set_session_id(game.id);
  v1::Session session;
  EXPECT_CODE(stub_->ResetGame(Context(game.silver).get(), reset, &session),
              PERMISSION_DENIED);
}

TEST_P(GrpcServiceTest, NotFound) {
  v1::GetSessionRequest get;
  get.set_session_id("no-such-session");
  v1::Session session;
  const grpc::Status status = stub_->GetSession(Context().get(), get, &session);
  EXPECT_CODE(status, NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("no-such-session"));

  v1::MakeMoveResponse response;
  EXPECT_CODE(Move("no-such-session", std::string(43, 't'), "j1L", &response),
              NOT_FOUND);
  v1::WatchRequest watch;
  watch.set_session_id("no-such-session");
  auto context = Context();
  auto reader = stub_->Watch(context.get(), watch);
  v1::Event event;
  EXPECT_FALSE(reader->Read(&event));
  EXPECT_CODE(reader->Finish(), NOT_FOUND);
}

TEST_P(GrpcServiceTest, InvalidArgumentForAnIllegalMove) {
  const Game game = StartGame();
  v1::MakeMoveResponse response;
  const grpc::Status status = Move(game.id, game.silver, "a1-a2", &response);
  EXPECT_CODE(status, INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("a1"));
  EXPECT_CODE(Move(game.id, game.silver, "e4-e9", &response), INVALID_ARGUMENT);
}

TEST_P(GrpcServiceTest, AHugeMoveIsInvalidArgumentWithAShortMessageAndLog) {
  const Game game = StartGame();
  v1::MakeMoveResponse response;
  const std::string huge(60000, 'e');
  const grpc::Status status = Move(game.id, game.silver, huge, &response);
  EXPECT_CODE(status, INVALID_ARGUMENT);
  EXPECT_LT(status.error_message().size(), 300u) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("... (60000 bytes)"));
  ASSERT_TRUE(WaitForLog({"method=MakeMove", "code=INVALID_ARGUMENT"}));
  MutexLock lock(&log_mu_);
  for (const std::string& line : log_) {
    EXPECT_LT(line.size(), 512u) << line.substr(0, 100);
  }
}

TEST_P(GrpcServiceTest, ARequestIdOfAnotherPlayerIsInvalidArgument) {
  const Game game = StartGame();
  v1::MakeMoveRequest request;
  request.set_session_id(game.id);
  request.set_request_id("move-1");
  request.mutable_move()->set_notation("j1L");
  v1::MakeMoveResponse first;
  ASSERT_GRPC_OK(stub_->MakeMove(Context(game.silver).get(), request, &first));
  // Silver's retry gets the first answer back.
  v1::MakeMoveResponse again;
  ASSERT_GRPC_OK(stub_->MakeMove(Context(game.silver).get(), request, &again));
  EXPECT_EQ(again.SerializeAsString(), first.SerializeAsString());
  // Red with the same request_id: refused, and nothing is played.
  request.mutable_move()->set_notation("a8L");
  v1::MakeMoveResponse stolen;
  const grpc::Status status =
      stub_->MakeMove(Context(game.red).get(), request, &stolen);
  EXPECT_CODE(status, INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("request_id \"move-1\""));
  const v1::Session session = Get(game.id);
  EXPECT_EQ(session.version(), first.version());
  EXPECT_EQ(session.moves_size(), 1);
}

TEST_P(GrpcServiceTest, UnknownEnumValuesAndFutureVersionsAreInvalidArgument) {
  const Game game = StartGame();
  v1::ListSessionsRequest list;
  list.set_status(static_cast<v1::GameStatus>(99));
  v1::ListSessionsResponse listed;
  const grpc::Status status =
      stub_->ListSessions(Context().get(), list, &listed);
  EXPECT_CODE(status, INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("status is 99"));
  // A watch beyond the current version ends at once instead of waiting
  // for events that never come.
  v1::WatchRequest watch;
  watch.set_session_id(game.id);
  watch.set_after_version(std::numeric_limits<int64_t>::max());
  auto context = Context();
  auto reader = stub_->Watch(context.get(), watch);
  v1::Event event;
  EXPECT_FALSE(reader->Read(&event));
  const grpc::Status watched = reader->Finish();
  EXPECT_CODE(watched, INVALID_ARGUMENT);
  EXPECT_THAT(watched.error_message(), HasSubstr("after_version"));
}

TEST_P(GrpcServiceTest, FailedPreconditionForTheWrongTurn) {
  const Game game = StartGame();
  v1::MakeMoveResponse response;
  EXPECT_CODE(Move(game.id, game.red, "a8L", &response), FAILED_PRECONDITION);
}

TEST_P(GrpcServiceTest, FailedPreconditionAfterTheGame) {
  const Game game = StartGame();
  v1::ResignRequest resign;
  resign.set_session_id(game.id);
  v1::Session session;
  ASSERT_GRPC_OK(stub_->Resign(Context(game.silver).get(), resign, &session));
  v1::MakeMoveResponse response;
  EXPECT_CODE(Move(game.id, game.silver, "j1L", &response),
              FAILED_PRECONDITION);
}

TEST_P(GrpcServiceTest, AbortedForAStaleVersion) {
  const Game game = StartGame();
  const int64_t version = Get(game.id).version();
  v1::MakeMoveResponse response;
  const grpc::Status status =
      Move(game.id, game.silver, "j1L", &response, version - 1);
  EXPECT_CODE(status, ABORTED);
  EXPECT_THAT(status.error_message(), HasSubstr(std::to_string(version)));
}

TEST_P(GrpcServiceTest, ResourceExhaustedForAnOversizedRequest) {
  v1::CreateSessionRequest request;
  request.set_name(std::string(kMaxMessageBytes + 1, 'x'));
  v1::CreateSessionResponse response;
  EXPECT_CODE(stub_->CreateSession(Context().get(), request, &response),
              RESOURCE_EXHAUSTED);
}

TEST_P(GrpcServiceTest, ResourceExhaustedForTooManyWatchers) {
  const Game game = StartGame();
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::Event>>> readers;
  v1::WatchRequest request;
  request.set_session_id(game.id);
  for (int i = 0; i < 2; ++i) {
    contexts.push_back(Context());
    readers.push_back(stub_->Watch(contexts.back().get(), request));
    v1::Event event;  // the history arrives: this watcher is registered
    ASSERT_TRUE(readers.back()->Read(&event));
  }
  auto context = Context();
  auto third = stub_->Watch(context.get(), request);
  v1::Event event;
  EXPECT_FALSE(third->Read(&event));
  EXPECT_CODE(third->Finish(), RESOURCE_EXHAUSTED);
  for (int i = 0; i < 2; ++i) {
    contexts[i]->TryCancel();
    EXPECT_CODE(readers[i]->Finish(), CANCELLED);
  }
}

// ---- Watch ---------------------------------------------------------------

TEST_P(GrpcServiceTest, WatchSendsHistoryThenLiveMovesUntilCancelled) {
  const Game game = StartGame();
  const int64_t version = Get(game.id).version();
  v1::WatchRequest request;
  request.set_session_id(game.id);
  auto context = Context();
  auto reader = stub_->Watch(context.get(), request);

  // The history: versions 1..version, in order.
  v1::Event event;
  for (int64_t v = 1; v <= version; ++v) {
    ASSERT_TRUE(reader->Read(&event));
    EXPECT_EQ(event.version(), v);
    EXPECT_EQ(event.session_id(), game.id);
  }
  EXPECT_EQ(event.kind_case(), v1::Event::kGameStarted);

  v1::MakeMoveResponse moved;
  ASSERT_GRPC_OK(Move(game.id, game.silver, "j1L", &moved));
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.version(), version + 1);
  ASSERT_EQ(event.kind_case(), v1::Event::kMoveMade);
  EXPECT_EQ(event.move_made().move().notation(), "j1L");
  EXPECT_EQ(event.move_made().mover(), v1::SILVER);
  EXPECT_FALSE(event.move_made().shot().text().empty());

  context->TryCancel();
  EXPECT_CODE(reader->Finish(), CANCELLED);
  // The server notices promptly and logs the stream's end.
  EXPECT_TRUE(
      WaitForLog({"method=Watch", "session=" + game.id, "code=CANCELLED"}));
}

TEST_P(GrpcServiceTest, WatchAfterTheCurrentVersionSendsOnlyNewEvents) {
  const Game game = StartGame();
  const int64_t version = Get(game.id).version();
  v1::WatchRequest request;
  request.set_session_id(game.id);
  request.set_after_version(version);
  auto context = Context();
  auto reader = stub_->Watch(context.get(), request);
  std::thread mover([&] {
    absl::SleepFor(absl::Milliseconds(50));
    v1::MakeMoveResponse moved;
    EXPECT_TRUE(Move(game.id, game.silver, "j1L", &moved).ok());
  });
  v1::Event event;
  ASSERT_TRUE(reader->Read(&event));
  mover.join();
  EXPECT_EQ(event.version(), version + 1);
  EXPECT_EQ(event.kind_case(), v1::Event::kMoveMade);
  context->TryCancel();
  reader->Finish();
}

TEST_P(GrpcServiceTest, WatchEndsWithNotFoundAfterTheSessionIsDeleted) {
  const Game game = StartGame();
  v1::WatchRequest request;
  request.set_session_id(game.id);
  // From the last event on: once it arrives the watch is running, and the
  // deletion cannot overtake the Watch call.
  const int64_t version = Get(game.id).version();
  request.set_after_version(version - 1);
  auto context = Context();
  auto reader = stub_->Watch(context.get(), request);
  v1::Event event;
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.version(), version);

  v1::DeleteSessionRequest remove;
  remove.set_session_id(game.id);
  v1::DeleteSessionResponse removed;
  ASSERT_GRPC_OK(
      stub_->DeleteSession(Context(game.owner).get(), remove, &removed));
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.kind_case(), v1::Event::kSessionDeleted);
  EXPECT_FALSE(reader->Read(&event));
  EXPECT_CODE(reader->Finish(), NOT_FOUND);
}

TEST_P(GrpcServiceTest, ShutdownEndsWatchesWithUnavailable) {
  const Game game = StartGame();
  v1::WatchRequest request;
  request.set_session_id(game.id);
  request.set_after_version(Get(game.id).version());
  auto context = Context();
  auto reader = stub_->Watch(context.get(), request);
  // Make sure the watch is running on the server before shutting down.
  v1::MakeMoveResponse moved;
  ASSERT_GRPC_OK(Move(game.id, game.silver, "j1L", &moved));
  v1::Event event;
  ASSERT_TRUE(reader->Read(&event));

  const absl::Time start = absl::Now();
  service_->Shutdown();
  EXPECT_FALSE(reader->Read(&event));
  const grpc::Status status = reader->Finish();
  EXPECT_CODE(status, UNAVAILABLE);
  EXPECT_THAT(status.error_message(),
              HasSubstr(absl::StrCat("after version ", moved.version())));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST_P(GrpcServiceTest, AWatchStartedAfterShutdownEndsWithUnavailable) {
  const Game game = StartGame();
  service_->Shutdown();
  v1::WatchRequest request;
  request.set_session_id(game.id);
  request.set_after_version(2);
  auto context = Context();
  auto reader = stub_->Watch(context.get(), request);
  v1::Event event;
  EXPECT_FALSE(reader->Read(&event));
  const grpc::Status status = reader->Finish();
  EXPECT_CODE(status, UNAVAILABLE);
  EXPECT_THAT(status.error_message(), HasSubstr("after version 2"));
  EXPECT_TRUE(WaitForLog({"method=Watch", "code=UNAVAILABLE"}));
}

// The service with a limit of watchers over all sessions (3) and none per
// session to speak of.
// Calls counted by method and code, and logged as JSON objects.
class MetricsAndJsonLogTest : public GrpcServiceTest {
 protected:
  void AdjustServiceOptions(KhetGrpcServiceOptions& options) override {
    options.metrics = &metrics_;
    options.log_format = LogFormat::kJson;
  }

  // The sample of `family` whose labels are `labels`.
  metrics::Sample Find(const std::string& family,
                       const std::vector<std::string>& labels) {
    for (const metrics::FamilySnapshot& f : registry_.Collect()) {
      if (f.name != family) continue;
      for (const metrics::Sample& sample : f.samples) {
        if (sample.label_values == labels) return sample;
      }
    }
    ADD_FAILURE() << "no " << family << " " << absl::StrJoin(labels, ",");
    return {};
  }

  // Outlive the service, which the base's members hold.
  metrics::Registry registry_;
  GrpcMetrics metrics_{&registry_};
};

INSTANTIATE_TEST_SUITE_P(Threads, MetricsAndJsonLogTest,
                         ::testing::Values(0, 4), ThreadsName);

TEST_P(MetricsAndJsonLogTest, CountsByMethodAndCode) {
  const Game game = StartGame();
  v1::MakeMoveResponse response;
  ASSERT_TRUE(
      Move(game.id, game.silver, AnyLegalMove(game.id), &response).ok());
  EXPECT_EQ(Move(game.id, std::string(43, 'x'), "j1L", &response).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Find("khet_grpc_requests_total", {"MakeMove", "OK"}).value, 1);
  EXPECT_EQ(
      Find("khet_grpc_requests_total", {"MakeMove", "PERMISSION_DENIED"}).value,
      1);
  EXPECT_EQ(Find("khet_grpc_requests_total", {"JoinSeat", "OK"}).value, 2);
  EXPECT_EQ(
      Find("khet_grpc_request_duration_seconds", {"MakeMove"}).histogram.count,
      2u);

  MutexLock lock(&log_mu_);
  ASSERT_FALSE(log_.empty());
  for (const std::string& line : log_) {
    EXPECT_TRUE(absl::StartsWith(line, "{\"time\":\"")) << line;
    EXPECT_THAT(line, HasSubstr("\"protocol\":\"grpc\",\"method\":\""));
    EXPECT_THAT(line, HasSubstr(",\"status\":null,"));
    EXPECT_TRUE(absl::EndsWith(line, "}")) << line;
  }
  EXPECT_THAT(log_, testing::Contains(HasSubstr(
                        "\"route\":\"/khet.v1.KhetService/MakeMove\","
                        "\"status\":null,\"code\":\"PERMISSION_DENIED\"")));
}

class WatcherLimitTest : public GrpcServiceTest {
 protected:
  void AdjustLimits(ServiceLimits& limits) override {
    limits.max_watchers = 3;
    limits.max_watchers_per_session = 100;
  }
};

INSTANTIATE_TEST_SUITE_P(Threads, WatcherLimitTest, ::testing::Values(0, 4),
                         ThreadsName);

TEST_P(WatcherLimitTest, ResourceExhaustedBeyondTheLimitOverAllSessions) {
  const Game a = StartGame();
  const Game b = StartGame();
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::Event>>> readers;
  for (const std::string& id : {a.id, a.id, b.id}) {
    v1::WatchRequest request;
    request.set_session_id(id);
    contexts.push_back(Context());
    readers.push_back(stub_->Watch(contexts.back().get(), request));
    v1::Event event;  // the history arrives: this watcher is registered
    ASSERT_TRUE(readers.back()->Read(&event));
  }
  EXPECT_EQ(core_->watcher_count(), 3);
  v1::WatchRequest request;
  request.set_session_id(b.id);
  auto context = Context();
  auto fourth = stub_->Watch(context.get(), request);
  v1::Event event;
  EXPECT_FALSE(fourth->Read(&event));
  const grpc::Status status = fourth->Finish();
  EXPECT_CODE(status, RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("max_watchers"));

  // A watch that ends gives its place back.
  contexts[0]->TryCancel();
  EXPECT_CODE(readers[0]->Finish(), CANCELLED);
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (core_->watcher_count() > 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_EQ(core_->watcher_count(), 2);
  auto again_context = Context();
  auto again = stub_->Watch(again_context.get(), request);
  ASSERT_TRUE(again->Read(&event));
  again_context->TryCancel();
  EXPECT_CODE(again->Finish(), CANCELLED);
  for (int i = 1; i < 3; ++i) {
    contexts[i]->TryCancel();
    EXPECT_CODE(readers[i]->Finish(), CANCELLED);
  }
}

// Threads of this process now.
int ThreadCount() {
  int threads = 0;
  for ([[maybe_unused]] const auto& task :
       std::filesystem::directory_iterator("/proc/self/task")) {
    ++threads;
  }
  return threads;
}

// The service with room for thousands of watchers on one session.
class ManyWatchersTest : public GrpcServiceTest {
 protected:
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer checks each of gRPC's hand-overs of a call (over a
  // hundred a stream, suppressed: the library is not instrumented) at a cost
  // that grows with their number: fewer streams, still far more than the
  // threads allowed.
  static constexpr int kWatchers = 250;
#else
  static constexpr int kWatchers = 2000;
#endif
  void AdjustLimits(ServiceLimits& limits) override {
    limits.max_watchers_per_session = kWatchers;
  }
};

INSTANTIATE_TEST_SUITE_P(Threads, ManyWatchersTest, ::testing::Values(0, 4),
                         ThreadsName);

TEST_P(ManyWatchersTest, ThousandsOfWatchesHoldNoThreadEach) {
  // Some slack for gRPC's own threads, which start as it sees fit; with a
  // thread per watch there would be thousands.
  constexpr int kSpareThreads = 64;
  const Game game = StartGame();
  const int64_t version = Get(game.id).version();
  const int threads_before = ThreadCount();

  // A few TCP connections, each with its share of watches.
  constexpr int kChannels = 4;
  std::vector<std::unique_ptr<v1::KhetService::Stub>> stubs;
  for (int i = 0; i < kChannels; ++i) {
    grpc::ChannelArguments arguments;
    arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // its own
    stubs.push_back(v1::KhetService::NewStub(grpc::CreateCustomChannel(
        absl::StrCat("127.0.0.1:", port_), grpc::InsecureChannelCredentials(),
        arguments)));
  }
  v1::WatchRequest request;
  request.set_session_id(game.id);
  request.set_after_version(version);  // live events only
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::Event>>> readers;
  for (int i = 0; i < kWatchers; ++i) {
    // Long enough for a sanitizer build to start them all.
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    contexts.back()->set_deadline(std::chrono::system_clock::now() +
                                  std::chrono::minutes(5));
    readers.push_back(
        stubs[i % kChannels]->Watch(contexts.back().get(), request));
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (core_->watcher_count() < kWatchers && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_EQ(core_->watcher_count(), kWatchers);
  EXPECT_LE(ThreadCount(), threads_before + kSpareThreads);

  // One move reaches every watch.
  v1::MakeMoveResponse moved;
  ASSERT_GRPC_OK(Move(game.id, game.silver, "j1L", &moved));
  for (auto& reader : readers) {
    v1::Event event;
    ASSERT_TRUE(reader->Read(&event));
    EXPECT_EQ(event.version(), version + 1);
  }
  EXPECT_LE(ThreadCount(), threads_before + kSpareThreads);

  // Cancelled, each frees its watcher.
  for (auto& context : contexts) context->TryCancel();
  for (auto& reader : readers) EXPECT_CODE(reader->Finish(), CANCELLED);
  const absl::Time freed = absl::Now() + absl::Seconds(60);
  while (core_->watcher_count() > 0 && absl::Now() < freed) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(core_->watcher_count(), 0);
  EXPECT_TRUE(WaitForLog({"method=Watch", "code=CANCELLED"}));
}

// ---- The computer --------------------------------------------------------

TEST_P(GrpcServiceTest, ListLevelsAndSuggestMove) {
  v1::ListLevelsResponse levels;
  ASSERT_GRPC_OK(
      stub_->ListLevels(Context().get(), v1::ListLevelsRequest(), &levels));
  ASSERT_EQ(levels.levels_size(), 5);
  EXPECT_EQ(levels.levels(0).number(), 1);

  const Game game = StartGame();
  v1::SuggestMoveRequest request;
  request.set_session_id(game.id);
  request.set_level(1);
  v1::SuggestMoveResponse suggestion;
  ASSERT_GRPC_OK(stub_->SuggestMove(Context().get(), request, &suggestion));
  EXPECT_EQ(suggestion.level_name(), levels.levels(0).name());
  ASSERT_GE(suggestion.principal_variation_size(), 1);
  EXPECT_EQ(suggestion.principal_variation(0).notation(),
            suggestion.move().notation());
  EXPECT_GT(suggestion.nodes(), 0);
  // The suggestion is a move Silver may play.
  v1::MakeMoveResponse moved;
  ASSERT_GRPC_OK(Move(game.id, game.silver, suggestion.move().notation(),
                      &moved, suggestion.version()));
  EXPECT_TRUE(
      WaitForLog({"method=SuggestMove", "session=" + game.id, "code=OK"}));

  request.set_level(7);
  EXPECT_CODE(stub_->SuggestMove(Context().get(), request, &suggestion),
              INVALID_ARGUMENT);
}

TEST_P(GrpcServiceTest, SeatComputerAndItAnswers) {
  const v1::CreateSessionResponse created = Create();
  const std::string id = created.session().id();
  const v1::JoinSeatResponse alice = Join(id, v1::SILVER, "alice");
  v1::SeatComputerRequest request;
  request.set_session_id(id);
  request.set_level(1);
  v1::Session session;
  EXPECT_CODE(stub_->SeatComputer(Context().get(), request, &session),
              UNAUTHENTICATED);
  ASSERT_GRPC_OK(stub_->SeatComputer(Context(alice.player_token()).get(),
                                     request, &session));
  EXPECT_EQ(session.status(), v1::IN_PROGRESS);
  EXPECT_TRUE(session.seats(1).computer());
  EXPECT_EQ(session.seats(1).computer_level(), 1);

  v1::MakeMoveResponse moved;
  ASSERT_GRPC_OK(Move(id, alice.player_token(), "j1L", &moved));
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (Get(id).moves_size() < 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(Get(id).moves_size(), 2);

  // The owner takes the computer out again.
  v1::LeaveSeatRequest leave;
  leave.set_session_id(id);
  leave.set_color(v1::RED);
  ASSERT_GRPC_OK(
      stub_->LeaveSeat(Context(created.owner_token()).get(), leave, &session));
  EXPECT_FALSE(session.seats(1).occupied());
}

// A suggestion with no depth to speak of: only time ends it.
v1::SuggestMoveRequest DeepSuggestion(const std::string& id) {
  v1::SuggestMoveRequest request;
  request.set_session_id(id);
  request.mutable_limits()->set_max_depth(64);
  return request;
}

// The search stops a tenth of the time left before the deadline, at most
// 250 ms: 3 s leave the whole 250 ms for the answer to arrive, which a
// sanitizer build on a busy machine needs (with 1 s, 100 ms were once too
// few under TSan).
TEST_P(GrpcServiceTest, SuggestMoveAnswersBeforeAShortDeadline) {
  const Game game = StartGame();
  grpc::ClientContext context;
  const auto start = std::chrono::system_clock::now();
  context.set_deadline(start + std::chrono::seconds(3));
  v1::SuggestMoveResponse suggestion;
  ASSERT_GRPC_OK(
      stub_->SuggestMove(&context, DeepSuggestion(game.id), &suggestion));
  EXPECT_TRUE(suggestion.cut_short());
  EXPECT_FALSE(suggestion.move().notation().empty());
  EXPECT_GE(suggestion.depth(), 1);
  EXPECT_LT(std::chrono::system_clock::now() - start, std::chrono::seconds(3));
}

TEST_P(GrpcServiceTest, SuggestMoveStopsWhenTheClientCancels) {
  const Game game = StartGame();
  auto context = Context();
  std::thread canceller([&] {
    absl::SleepFor(absl::Milliseconds(200));
    context->TryCancel();
  });
  v1::SuggestMoveResponse suggestion;
  EXPECT_CODE(
      stub_->SuggestMove(context.get(), DeepSuggestion(game.id), &suggestion),
      CANCELLED);
  canceller.join();
  // The server stopped searching: well before its 30 s maximum.
  EXPECT_TRUE(WaitForLog(
      {"method=SuggestMove", "session=" + game.id, "code=CANCELLED"}));
  // And the session answers as ever.
  EXPECT_EQ(Get(game.id).id(), game.id);
}

TEST_P(GrpcServiceTest, ShutdownEndsASuggestionWithUnavailable) {
  const Game game = StartGame();
  std::thread stopper([&] {
    absl::SleepFor(absl::Milliseconds(200));
    service_->Shutdown();
  });
  v1::SuggestMoveResponse suggestion;
  const grpc::Status status =
      stub_->SuggestMove(Context().get(), DeepSuggestion(game.id), &suggestion);
  stopper.join();
  EXPECT_CODE(status, UNAVAILABLE);
  EXPECT_THAT(status.error_message(), HasSubstr("shutting down"));
}

// ---- Health checking and reflection --------------------------------------

// A message's bytes. Over the in-process channel a reply's or a Watch
// event's slice is the server's own (EventBytes, OwnedBytes), handed over
// inside gRPC both ways: from the server's writes to these reads, and from
// these reads to the server's free once the last reference goes.
std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& slice : slices) {
    auto* const data = const_cast<uint8_t*>(slice.begin());
    TakeBackFromGrpc(data);
    out.append(reinterpret_cast<const char*>(data), slice.size());
    HandOverToGrpc(data);
  }
  return out;
}

// grpc.health.v1.Health/Check for `service`, as the raw response bytes.
grpc::Status HealthCheck(grpc::Channel* channel, const std::string& service,
                         std::string* response_bytes) {
  // HealthCheckRequest{service} is field 1, a string.
  std::string request_bytes;
  if (!service.empty()) {
    request_bytes = absl::StrCat(
        "\x0a", std::string(1, static_cast<char>(service.size())), service);
  }
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  const grpc::Status status =
      grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
          channel,
          grpc::internal::RpcMethod("/grpc.health.v1.Health/Check",
                                    grpc::internal::RpcMethod::NORMAL_RPC),
          &context, request, &response);
  if (status.ok()) *response_bytes = Flatten(response);
  return status;
}

TEST_P(GrpcServiceTest, HealthCheckSaysServing) {
  // HealthCheckResponse{status: SERVING} is field 1, value 1.
  const std::string kServing("\x08\x01", 2);
  for (const std::string service : {"", "khet.v1.KhetService"}) {
    std::string response;
    ASSERT_GRPC_OK(HealthCheck(channel_.get(), service, &response));
    EXPECT_EQ(response, kServing) << service;
  }
  std::string response;
  EXPECT_CODE(HealthCheck(channel_.get(), "no.such.Service", &response),
              NOT_FOUND);
}

TEST_P(GrpcServiceTest, ReflectionListsTheService) {
  // ServerReflectionRequest{list_services: ""} is field 7, empty string.
  grpc::ClientContext context;
  auto stream = std::unique_ptr<
      grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>(
      grpc::internal::
          ClientReaderWriterFactory<grpc::ByteBuffer, grpc::ByteBuffer>::Create(
              channel_.get(),
              grpc::internal::RpcMethod(
                  "/grpc.reflection.v1alpha.ServerReflection/"
                  "ServerReflectionInfo",
                  grpc::internal::RpcMethod::BIDI_STREAMING),
              &context));
  const std::string list_services("\x3a\x00", 2);
  grpc::Slice slice(list_services);
  grpc::ByteBuffer request(&slice, 1);
  ASSERT_TRUE(stream->Write(request));
  stream->WritesDone();
  grpc::ByteBuffer response;
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_THAT(Flatten(response), HasSubstr("khet.v1.KhetService"));
  while (stream->Read(&response)) {
  }
  ASSERT_GRPC_OK(stream->Finish());
}

// ---- Request bytes ---------------------------------------------------------

// Unary `method` of KhetService called with raw request bytes; the reply's
// bytes as sent.
grpc::Status RawCall(grpc::Channel* channel, const std::string& method,
                     const std::string& token, const std::string& request_bytes,
                     std::string* response_bytes) {
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  const grpc::Status status =
      grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
          channel,
          grpc::internal::RpcMethod(
              absl::StrCat("/khet.v1.KhetService/", method).c_str(),
              grpc::internal::RpcMethod::NORMAL_RPC),
          &context, request, &response);
  if (status.ok()) *response_bytes = Flatten(response);
  return status;
}

grpc::Status RawMakeMove(grpc::Channel* channel, const std::string& token,
                         const std::string& request_bytes,
                         std::string* response_bytes) {
  return RawCall(channel, "MakeMove", token, request_bytes, response_bytes);
}

// A length-delimited field `number` holding `value`, in wire format.
std::string LengthDelimited(int number, const std::string& value) {
  std::string out(1, static_cast<char>((number << 3) | 2));
  out.push_back(static_cast<char>(value.size()));
  return out + value;
}

// Every unary method reads its own request's bytes: bytes that are not the
// request, and a string field holding bytes that are not UTF-8, answer
// INVALID_ARGUMENT naming the request or the field (gRPC's own parsing
// answered UNIMPLEMENTED with no message), and change nothing.
TEST_P(GrpcServiceTest, EveryMethodRefusesBytesThatAreNotItsRequest) {
  const Game game = StartGame();
  const int64_t version = Get(game.id).version();
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          v1::KhetService::service_full_name());
  ASSERT_NE(service, nullptr);
  int checked = 0;
  for (int i = 0; i < service->method_count(); ++i) {
    const google::protobuf::MethodDescriptor* method = service->method(i);
    if (method->server_streaming()) continue;  // Watch: below
    SCOPED_TRACE(method->name());
    std::string ignored;
    // Field 1 says 255 bytes follow; none do.
    const grpc::Status cut = RawCall(channel_.get(), method->name(),
                                     game.silver, "\x0a\xff", &ignored);
    EXPECT_CODE(cut, INVALID_ARGUMENT);
    EXPECT_THAT(cut.error_message(),
                HasSubstr(method->input_type()->full_name()));
    // The first string field, if any, holding "\xc3\x28".
    const google::protobuf::Descriptor* input = method->input_type();
    for (int f = 0; f < input->field_count(); ++f) {
      const google::protobuf::FieldDescriptor* field = input->field(f);
      if (field->type() != google::protobuf::FieldDescriptor::TYPE_STRING ||
          field->number() > 15) {
        continue;
      }
      const grpc::Status not_utf8 =
          RawCall(channel_.get(), method->name(), game.silver,
                  LengthDelimited(field->number(), "\xc3\x28"), &ignored);
      EXPECT_CODE(not_utf8, INVALID_ARGUMENT);
      EXPECT_THAT(not_utf8.error_message(),
                  AllOf(HasSubstr(field->full_name()), HasSubstr("UTF-8")));
      break;
    }
    ++checked;
  }
  EXPECT_EQ(checked, service->method_count() - 1);
  // A string nested in a message: MakeMoveRequest.move.notation.
  const v1::MakeMoveRequest probe;
  const google::protobuf::FieldDescriptor* move =
      probe.GetDescriptor()->FindFieldByName("move");
  const google::protobuf::FieldDescriptor* notation =
      move->message_type()->FindFieldByName("notation");
  ASSERT_NE(notation, nullptr);
  std::string ignored;
  const grpc::Status nested = RawMakeMove(
      channel_.get(), game.silver,
      LengthDelimited(1, game.id) +
          LengthDelimited(move->number(),
                          LengthDelimited(notation->number(), "j1\xff")),
      &ignored);
  EXPECT_CODE(nested, INVALID_ARGUMENT);
  EXPECT_THAT(nested.error_message(), HasSubstr(notation->full_name()));
  EXPECT_EQ(Get(game.id).version(), version);
}

// The raw MakeMove sends the bytes of the typed reply: a move's reply
// parses to what a typed client gets for the same request retried, and
// the retry's bytes are the first reply's.
TEST_P(GrpcServiceTest, MakeMoveSendsTheTypedReplysBytes) {
  const Game game = StartGame();
  v1::MakeMoveRequest request;
  request.set_session_id(game.id);
  request.mutable_move()->set_notation(AnyLegalMove(game.id));
  request.set_request_id("raw-1");
  std::string first;
  ASSERT_GRPC_OK(RawMakeMove(channel_.get(), game.silver,
                             request.SerializeAsString(), &first));
  v1::MakeMoveResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(first));
  EXPECT_EQ(parsed.version(), Get(game.id).version());
  EXPECT_EQ(parsed.board().pieces_size(), Get(game.id).board().pieces_size());
  v1::MakeMoveResponse typed;
  ASSERT_GRPC_OK(stub_->MakeMove(Context(game.silver).get(), request, &typed));
  EXPECT_EQ(typed.SerializeAsString(), first);
  std::string again;
  ASSERT_GRPC_OK(RawMakeMove(channel_.get(), game.silver,
                             request.SerializeAsString(), &again));
  EXPECT_EQ(again, first);
  // Bytes that are no MakeMoveRequest.
  EXPECT_CODE(
      RawMakeMove(channel_.get(), game.silver, std::string("\x0a\xff"), &again),
      INVALID_ARGUMENT);
  EXPECT_TRUE(WaitForLog({"method=MakeMove", "code=INVALID_ARGUMENT"}));
}

// ---- Watch's bytes ---------------------------------------------------------

// A Watch read as raw messages, as the server writes them.
std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> RawWatch(
    grpc::Channel* channel, grpc::ClientContext* context,
    const std::string& request_bytes) {
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  return std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>>(
      grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(
          channel,
          grpc::internal::RpcMethod(
              "/khet.v1.KhetService/Watch",
              grpc::internal::RpcMethod::SERVER_STREAMING),
          context, request));
}

TEST_P(GrpcServiceTest, EventBytesAreTheTypedSerializationUncopied) {
  v1::Event event;
  event.set_version(3);
  event.set_session_id("s");
  event.set_announcement("Red moves");
  event.mutable_move_made()->mutable_move()->set_notation("a8-b8");
  SharedEventPtr shared = ShareEvent(event);
  const char* const wire = shared->wire().data();
  grpc::ByteBuffer first = EventBytes(shared);
  grpc::ByteBuffer second = EventBytes(shared);
  shared.reset();  // the buffers keep the event alive

  grpc::ByteBuffer typed;
  bool own = false;
  ASSERT_GRPC_OK(
      grpc::SerializationTraits<v1::Event>::Serialize(event, &typed, &own));
  EXPECT_EQ(Flatten(first), Flatten(typed));
  EXPECT_EQ(Flatten(second), Flatten(typed));
  // Both refer to the one encoding.
  grpc::Slice a, b;
  ASSERT_GRPC_OK(first.TrySingleSlice(&a));
  ASSERT_GRPC_OK(second.TrySingleSlice(&b));
  EXPECT_EQ(reinterpret_cast<const char*>(a.begin()), wire);
  EXPECT_EQ(reinterpret_cast<const char*>(b.begin()), wire);
}

TEST_P(GrpcServiceTest, TwoWatchersGetTheTypedBytesOfEachEvent) {
  const Game game = StartGame();
  v1::WatchRequest request;
  request.set_session_id(game.id);
  request.set_after_version(Get(game.id).version());
  grpc::ClientContext context_a, context_b;
  auto a = RawWatch(channel_.get(), &context_a, request.SerializeAsString());
  auto b = RawWatch(channel_.get(), &context_b, request.SerializeAsString());
  // Both are subscribed once the service counts them.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (core_->watcher_count() < 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_EQ(core_->watcher_count(), 2);

  v1::MakeMoveResponse moved;
  ASSERT_GRPC_OK(Move(game.id, game.silver, "j1L", &moved));
  grpc::ByteBuffer from_a, from_b;
  ASSERT_TRUE(a->Read(&from_a));
  ASSERT_TRUE(b->Read(&from_b));
  const std::string bytes = Flatten(from_a);
  EXPECT_EQ(Flatten(from_b), bytes);
  // The typed method's bytes: what the event parsed back serializes to.
  v1::Event event;
  ASSERT_TRUE(event.ParseFromString(bytes));
  EXPECT_EQ(event.SerializeAsString(), bytes);
  EXPECT_EQ(event.version(), request.after_version() + 1);
  EXPECT_EQ(event.session_id(), game.id);
  EXPECT_EQ(event.move_made().move().notation(), "j1L");
  EXPECT_EQ(event.move_made().board().SerializeAsString(),
            moved.board().SerializeAsString());

  context_a.TryCancel();
  context_b.TryCancel();
  EXPECT_CODE(a->Finish(), CANCELLED);
  EXPECT_CODE(b->Finish(), CANCELLED);
}

TEST_P(GrpcServiceTest, AWatchRequestThatDoesNotParseIsInvalid) {
  grpc::ClientContext context;
  auto reader = RawWatch(channel_.get(), &context, std::string("\xff", 1));
  grpc::ByteBuffer message;
  EXPECT_FALSE(reader->Read(&message));
  const grpc::Status status = reader->Finish();
  EXPECT_CODE(status, INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("WatchRequest"));

  // A session id that is not UTF-8 (field 1).
  grpc::ClientContext not_utf8_context;
  auto not_utf8 = RawWatch(channel_.get(), &not_utf8_context,
                           std::string("\x0a\x02\xc3\x28", 4));
  EXPECT_FALSE(not_utf8->Read(&message));
  const grpc::Status refused = not_utf8->Finish();
  EXPECT_CODE(refused, INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("khet.v1.WatchRequest.session_id"));
}

// ---- Store threads -------------------------------------------------------

// The service with as many store threads as the test blocks writes.
class StoreThreadsTest : public GrpcServiceTest {};

INSTANTIATE_TEST_SUITE_P(Threads, StoreThreadsTest, ::testing::Values(16),
                         ThreadsName);

TEST_P(StoreThreadsTest, OtherCallsAnswerWhileEveryStoreThreadWaits) {
  const int writes = GetParam();
  std::vector<Game> games;
  for (int i = 0; i < writes; ++i) games.push_back(StartGame());
  store_.Close();
  std::vector<std::thread> movers;
  for (const Game& game : games) {
    movers.emplace_back([this, &game] {
      v1::MakeMoveResponse moved;
      const grpc::Status status = Move(game.id, game.silver, "j1L", &moved);
      EXPECT_TRUE(status.ok()) << status.error_message();
    });
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (store_.waiting() < writes && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_EQ(store_.waiting(), writes);

  // gRPC's callback threads are free: calls that touch no session answer,
  // and so does the health check.
  v1::ListSetupsResponse setups;
  EXPECT_TRUE(
      stub_->ListSetups(Context().get(), v1::ListSetupsRequest(), &setups)
          .ok());
  v1::ListLevelsResponse levels;
  EXPECT_TRUE(
      stub_->ListLevels(Context().get(), v1::ListLevelsRequest(), &levels)
          .ok());
  std::string health;
  EXPECT_TRUE(HealthCheck(channel_.get(), "", &health).ok());

  store_.Open();
  for (std::thread& mover : movers) mover.join();
  for (const Game& game : games) EXPECT_EQ(Get(game.id).moves_size(), 1);
}

// A store that answers later: MakeMove is played on gRPC's callback thread
// and answered from the store's, with no store thread waiting for it.
class LaterStoreTest : public GrpcServiceTest {
 protected:
  void SetUp() override {
    store_.later = true;
    GrpcServiceTest::SetUp();
  }
};

INSTANTIATE_TEST_SUITE_P(Threads, LaterStoreTest, ::testing::Values(4),
                         ThreadsName);

TEST_P(LaterStoreTest, MovesAnsweredByTheStoresThreadReachCallerAndWatchers) {
  const Game game = StartGame();
  const int64_t version = Get(game.id).version();
  v1::WatchRequest request;
  request.set_session_id(game.id);
  request.set_after_version(version);
  auto context = Context();
  auto reader = stub_->Watch(context.get(), request);
  // While the writes wait at the gate, the answers wait too, and other
  // calls are served.
  store_.Close();
  v1::MakeMoveResponse moved;
  grpc::Status status;
  std::thread mover(
      [&] { status = Move(game.id, game.silver, "j5L", &moved); });
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (store_.waiting() < 1 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_EQ(store_.waiting(), 1);
  v1::ListSetupsResponse setups;
  EXPECT_TRUE(
      stub_->ListSetups(Context().get(), v1::ListSetupsRequest(), &setups)
          .ok());
  store_.Open();
  mover.join();
  ASSERT_GRPC_OK(status);
  EXPECT_EQ(moved.version(), version + 1);
  // The next move, answered and watched in order.
  ASSERT_GRPC_OK(Move(game.id, game.red, "e5-f6", &moved));
  EXPECT_EQ(moved.version(), version + 2);
  v1::Event event;
  for (int64_t v = version + 1; v <= version + 2; ++v) {
    ASSERT_TRUE(reader->Read(&event));
    EXPECT_EQ(event.version(), v);
    EXPECT_EQ(event.kind_case(), v1::Event::kMoveMade);
  }
  EXPECT_EQ(Get(game.id).moves_size(), 2);
  // A refused move goes the ordinary way, and is refused as ever.
  EXPECT_CODE(Move(game.id, game.red, "j1L", &moved), FAILED_PRECONDITION);
  context->TryCancel();
  EXPECT_CODE(reader->Finish(), CANCELLED);
}

// ---- The helpers ---------------------------------------------------------

TEST(CallerFromMetadataTest, ReadsTheBearerToken) {
  std::multimap<grpc::string_ref, grpc::string_ref> metadata;
  const std::string token = "abc123" + std::string(37, '_');
  const std::string value = "Bearer " + token;
  metadata.emplace("authorization", value);
  absl::StatusOr<Caller> caller = CallerFromMetadata(metadata);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->token, token);
}

TEST(CallerFromMetadataTest, RejectsMissingRepeatedAndMalformed) {
  std::multimap<grpc::string_ref, grpc::string_ref> none;
  EXPECT_TRUE(absl::IsUnauthenticated(CallerFromMetadata(none).status()));
  std::multimap<grpc::string_ref, grpc::string_ref> twice;
  twice.emplace("authorization", "Bearer a");
  twice.emplace("authorization", "Bearer b");
  EXPECT_TRUE(absl::IsUnauthenticated(CallerFromMetadata(twice).status()));
  for (const char* value : {"Basic abc", "Bearerabc", "Bearer", "Bearer  ",
                            "abc", "Bearer a b", "Bearer abc", "Bearer abc!"}) {
    std::multimap<grpc::string_ref, grpc::string_ref> metadata;
    metadata.emplace("authorization", value);
    const absl::Status status = CallerFromMetadata(metadata).status();
    EXPECT_TRUE(absl::IsUnauthenticated(status)) << value;
    EXPECT_THAT(std::string(status.message()), Not(HasSubstr("abc"))) << value;
  }
}

TEST(FormatRequestLogTest, OneLineWithoutTokens) {
  EXPECT_EQ(FormatRequestLog("MakeMove", "s1", grpc::Status::OK,
                             absl::Microseconds(1500)),
            "rpc method=MakeMove session=s1 code=OK latency_ms=1.50");
  EXPECT_EQ(
      FormatRequestLog("GetSession", "",
                       grpc::Status(grpc::StatusCode::NOT_FOUND, "no \"x\"\n"),
                       absl::ZeroDuration()),
      "rpc method=GetSession session=- code=NOT_FOUND latency_ms=0.00 "
      "message=\"no \\\"x\\\"\\n\"");
  // A long message is cut short, saying how long it was.
  EXPECT_EQ(FormatRequestLog("MakeMove", "s1",
                             grpc::Status(grpc::StatusCode::INTERNAL,
                                          std::string(5000, 'm')),
                             absl::ZeroDuration()),
            absl::StrCat("rpc method=MakeMove session=s1 code=INTERNAL "
                         "latency_ms=0.00 message=\"",
                         std::string(256, 'm'), "... (5000 bytes)\""));
  // A long id from a request is cut short.
  EXPECT_EQ(FormatRequestLog("GetSession", std::string(100, 'a'),
                             grpc::Status::OK, absl::ZeroDuration()),
            absl::StrCat("rpc method=GetSession session=", std::string(64, 'a'),
                         "... code=OK latency_ms=0.00"));
}

}  // namespace
}  // namespace khet
