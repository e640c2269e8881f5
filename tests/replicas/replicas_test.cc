// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Two real khetd replicas on one PostgreSQL database behind Debian's nginx
// as a gRPC load balancer, all on loopback and started here (the database
// comes from ctest's `postgres` fixture): a game whose moves alternate
// between the replicas, a watcher on one replica seeing moves made on the
// other, two clients racing one version through different replicas, and a
// replica killed mid-game while the game goes on through the other with
// every acknowledged move kept. The nginx configuration is generated from
// deploy/nginx/khet-grpc.conf and checked with `nginx -t` first.
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <latch>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "service/store/postgres_testing.h"
#include "tests/support/child_process.h"
#include "tests/support/khetd_child.h"
#include "tests/support/text_file.h"

#ifndef KHETD_PATH
#error "KHETD_PATH must name the khetd binary"
#endif
#ifndef KHETCTL_PATH
#error "KHETCTL_PATH must name the khetctl binary"
#endif
#ifndef NGINX_TEMPLATE_PATH
#error "NGINX_TEMPLATE_PATH must name deploy/nginx/khet-grpc.conf"
#endif

namespace khet {
namespace {

constexpr char kNginx[] = "/usr/sbin/nginx";
// Generous: sanitizer builds start processes slowly.
constexpr absl::Duration kStartTimeout = absl::Seconds(60);
constexpr absl::Duration kCallTimeout = absl::Seconds(30);

// A loopback port free right now.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof address;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

// A move for the side to move that hits no Pharaoh, so the game goes on.
std::string QuietMove(const std::string& position_text) {
  absl::StatusOr<Position> pos = ParsePosition(position_text);
  EXPECT_TRUE(pos.ok()) << pos.status();
  if (!pos.ok()) return "";
  MoveList moves;
  GenerateMoves(*pos, &moves);
  for (const Move m : moves) {
    Position child = *pos;
    if (MakeMove(&child, m) == 0) return FormatMove(*pos, m);
  }
  return FormatMove(*pos, moves.moves[0]);
}

class ReplicasTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string skip_reason;
    absl::StatusOr<std::unique_ptr<TestDatabase>> db =
        TestDatabase::Create(&skip_reason);
    ASSERT_TRUE(db.ok()) << db.status();
    if (*db == nullptr) GTEST_SKIP() << skip_reason;
    db_ = *std::move(db);
    std::string pattern = testing::TempDir() + "khet_replicas_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    // nginx's workers may run as another user when the test is root.
    chmod(dir_.c_str(), 0755);
    for (int i = 0; i < 2; ++i) {
      replicas_.push_back(StartReplica(i));
      ASSERT_NE(replicas_.back(), nullptr) << Logs();
      addresses_.push_back(replicas_.back()->address());
    }
    StartNginx();
    ASSERT_NE(nginx_, nullptr) << Logs();
  }

  void TearDown() override {
    nginx_.reset();
    replicas_.clear();
    if (HasFailure()) std::cerr << Logs();
    if (!dir_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
    }
  }

  std::string Logs() {
    std::string out;
    for (const std::string name :
         {"replica-0.log", "replica-1.log", "error.log", "nginx.out"}) {
      absl::StrAppend(&out, "---- ", name, "\n",
                      ReadTextFile(dir_ + "/" + name));
    }
    return out;
  }

  // Starts replica `index` on a free port; nullptr if it does not start.
  std::unique_ptr<KhetdChild> StartReplica(int index) {
    absl::StatusOr<std::unique_ptr<KhetdChild>> replica = KhetdChild::Start(
        KHETD_PATH,
        {"--store", "postgres", "--postgres_url", db_->conninfo(),
         "--timeout_sweep_seconds", "1", "--min_timeout_seconds", "1"},
        absl::StrCat(dir_, "/replica-", index, ".log"),
        {.start_timeout = kStartTimeout});
    EXPECT_TRUE(replica.ok()) << replica.status();
    return replica.ok() ? *std::move(replica) : nullptr;
  }

  // The configuration from the deployment template, for these replicas.
  std::string NginxConfig(int port) {
    std::string upstreams;
    for (const std::string& address : addresses_) {
      absl::StrAppend(&upstreams, "server ", address,
                      " max_fails=1 fail_timeout=30s;\n    ");
    }
    return absl::StrReplaceAll(
        ReadTextFile(NGINX_TEMPLATE_PATH),
        {{"${KHET_NGINX_PREFIX}", dir_},
         {"${KHET_NGINX_LISTEN}", absl::StrCat("127.0.0.1:", port)},
         {"${KHET_NGINX_UPSTREAMS}", upstreams}});
  }

  void StartNginx() {
    for (int attempt = 0; attempt < 3 && nginx_ == nullptr; ++attempt) {
      const int port = FreePort();
      const std::string conf = dir_ + "/nginx.conf";
      std::ofstream(conf) << NginxConfig(port);
      // The generated configuration must pass nginx's own check.
      std::unique_ptr<ChildProcess> check =
          ChildProcess::Start({kNginx, "-t", "-p", dir_, "-c", conf},
                              {.stderr_path = dir_ + "/nginx-t.log"});
      ASSERT_NE(check, nullptr);
      ASSERT_EQ(check->Wait(kStartTimeout), 0)
          << ReadTextFile(dir_ + "/nginx-t.log");
      EXPECT_TRUE(absl::StrContains(ReadTextFile(dir_ + "/nginx-t.log"),
                                    "test is successful"));
      std::unique_ptr<ChildProcess> nginx = ChildProcess::Start(
          {kNginx, "-p", dir_, "-c", conf, "-g", "daemon off;"},
          {.stderr_path = dir_ + "/nginx.out", .stop_signal = SIGTERM});
      if (nginx == nullptr) continue;
      // Ready once a call goes through it.
      nginx_address_ = absl::StrCat("127.0.0.1:", port);
      const absl::Time deadline = absl::Now() + kStartTimeout;
      while (absl::Now() < deadline) {
        grpc::ClientContext context;
        context.set_deadline(
            absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
        v1::ListSetupsResponse setups;
        if (Stub(nginx_address_)
                ->ListSetups(&context, v1::ListSetupsRequest(), &setups)
                .ok()) {
          nginx_ = std::move(nginx);
          break;
        }
        // Given up if it has exited.
        if (nginx->Wait(absl::Milliseconds(50)).has_value()) break;
      }
    }
  }

  std::unique_ptr<v1::KhetService::Stub> Stub(const std::string& address) {
    return v1::KhetService::NewStub(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  }

  static void Prepare(grpc::ClientContext* context, const std::string& token) {
    context->set_deadline(absl::ToChronoTime(absl::Now() + kCallTimeout));
    if (!token.empty()) {
      context->AddMetadata("authorization", "Bearer " + token);
    }
  }

  // Runs khetctl --json against `address` and parses its answer.
  template <typename Message>
  Message Ctl(const std::string& address, std::vector<std::string> args) {
    std::vector<std::string> argv = {KHETCTL_PATH, "--server", address,
                                     "--json"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::unique_ptr<ChildProcess> ctl = ChildProcess::Start(argv);
    EXPECT_NE(ctl, nullptr);
    Message message;
    if (ctl == nullptr) return message;
    const std::optional<ChildProcess::Output> output =
        ctl->ReadAll(kStartTimeout);
    EXPECT_TRUE(output.has_value() && output->exit_code == 0)
        << "khetctl " << absl::StrJoin(args, " ") << ": "
        << (output.has_value() ? output->err : "timed out");
    if (!output.has_value()) return message;
    const auto status =
        google::protobuf::util::JsonStringToMessage(output->out, &message);
    EXPECT_TRUE(status.ok()) << status.ToString() << " in: " << output->out;
    return message;
  }

  struct Board {
    std::string id;
    std::string owner;
    std::string silver;
    std::string red;
  };

  // A game started through nginx with khetctl.
  Board StartGame() {
    Board b;
    const auto created = Ctl<v1::CreateSessionResponse>(
        nginx_address_, {"create", "--name", "replicated game"});
    b.id = created.session().id();
    b.owner = created.owner_token();
    b.silver = Ctl<v1::JoinSeatResponse>(
                   nginx_address_,
                   {"join", b.id, "--name", "alice", "--color", "silver"})
                   .player_token();
    b.red = Ctl<v1::JoinSeatResponse>(nginx_address_, {"join", b.id, "--name",
                                                       "bob", "--color", "red"})
                .player_token();
    return b;
  }

  grpc::Status GetSession(const std::string& address, const std::string& id,
                          v1::Session* out) {
    grpc::ClientContext context;
    Prepare(&context, "");
    v1::GetSessionRequest request;
    request.set_session_id(id);
    return Stub(address)->GetSession(&context, request, out);
  }

  // Plays a quiet move through `address` for the side to move in
  // `session`, at its version.
  grpc::Status Play(const std::string& address, const Board& b,
                    const v1::Session& session, v1::MakeMoveResponse* reply,
                    const std::string& request_id = "") {
    grpc::ClientContext context;
    Prepare(&context,
            session.board().side_to_move() == v1::SILVER ? b.silver : b.red);
    v1::MakeMoveRequest request;
    request.set_session_id(b.id);
    request.mutable_move()->set_notation(QuietMove(session.board().position()));
    request.set_expected_version(session.version());
    request.set_request_id(request_id);
    return Stub(address)->MakeMove(&context, request, reply);
  }

  std::unique_ptr<TestDatabase> db_;
  std::string dir_;
  std::vector<std::unique_ptr<KhetdChild>> replicas_;
  std::vector<std::string> addresses_;
  std::unique_ptr<ChildProcess> nginx_;
  std::string nginx_address_;
};

TEST_F(ReplicasTest, MovesAlternateBetweenReplicasAndThroughNginx) {
  const Board b = StartGame();
  ASSERT_FALSE(b.red.empty());
  v1::Session session;
  ASSERT_TRUE(GetSession(addresses_[0], b.id, &session).ok());
  ASSERT_EQ(session.status(), v1::IN_PROGRESS);
  std::vector<std::string> played;
  v1::Session before_last_move;
  for (int ply = 0; ply < 12; ++ply) {
    // Replica 0, replica 1, then nginx's choice, in turn; each move made
    // straight after the last, at the version the last reply gave.
    const std::string& address =
        ply % 3 == 2 ? nginx_address_ : addresses_[ply % 3];
    before_last_move = session;
    v1::MakeMoveResponse reply;
    const grpc::Status status =
        Play(address, b, session, &reply, absl::StrCat("alt-", ply));
    ASSERT_TRUE(status.ok()) << "ply " << ply << " via " << address << ": "
                             << status.error_message();
    EXPECT_EQ(reply.version(), session.version() + 1);
    played.push_back(reply.move().notation());
    // The next move is made on the other replica: it must see this one.
    ASSERT_TRUE(GetSession(addresses_[(ply + 1) % 2], b.id, &session).ok());
    ASSERT_EQ(session.version(), reply.version()) << "ply " << ply;
  }
  // The last request sent again exactly (same move, version and request
  // id), to the other replica: the stored reply, and nothing played.
  v1::MakeMoveResponse again;
  ASSERT_TRUE(Play(addresses_[0], b, before_last_move, &again, "alt-11").ok());
  EXPECT_EQ(again.version(), session.version());
  EXPECT_EQ(again.move().notation(), played.back());
  for (const std::string& address : addresses_) {
    v1::Session s;
    ASSERT_TRUE(GetSession(address, b.id, &s).ok());
    ASSERT_EQ(s.moves_size(), static_cast<int>(played.size()));
    for (size_t i = 0; i < played.size(); ++i) {
      EXPECT_EQ(s.moves(static_cast<int>(i)), played[i]) << "move " << i;
    }
  }
}

TEST_F(ReplicasTest, AWatcherOnOneReplicaSeesMovesMadeOnTheOther) {
  const Board b = StartGame();
  v1::Session session;
  ASSERT_TRUE(GetSession(addresses_[1], b.id, &session).ok());
  grpc::ClientContext watch_context;
  watch_context.set_deadline(absl::ToChronoTime(absl::Now() + kCallTimeout));
  v1::WatchRequest watch;
  watch.set_session_id(b.id);
  watch.set_after_version(session.version());
  std::unique_ptr<v1::KhetService::Stub> replica0 = Stub(addresses_[0]);
  std::unique_ptr<grpc::ClientReader<v1::Event>> events =
      replica0->Watch(&watch_context, watch);
  // Each move is read from the watch before the next is made. Once the
  // first event has come, the watch is subscribed on replica 0, so the
  // later ones can only reach it through the fan-out from replica 1.
  for (int ply = 0; ply < 4; ++ply) {
    v1::MakeMoveResponse reply;
    ASSERT_TRUE(Play(addresses_[1], b, session, &reply).ok());
    v1::Event event;
    ASSERT_TRUE(events->Read(&event)) << "no event for ply " << ply;
    ASSERT_TRUE(event.has_move_made()) << event.DebugString();
    EXPECT_EQ(event.version(), reply.version());
    EXPECT_EQ(event.move_made().move().notation(), reply.move().notation());
    ASSERT_TRUE(GetSession(addresses_[1], b.id, &session).ok());
  }
  watch_context.TryCancel();
}

TEST_F(ReplicasTest, ClientsRacingOneVersionThroughTwoReplicasHaveOneWinner) {
  const Board b = StartGame();
  for (int round = 0; round < 6; ++round) {
    v1::Session session;
    ASSERT_TRUE(GetSession(addresses_[0], b.id, &session).ok());
    grpc::Status results[2];
    std::latch start(2);
    std::vector<std::thread> clients;
    for (int i = 0; i < 2; ++i) {
      clients.emplace_back([&, i] {
        v1::MakeMoveResponse reply;
        start.arrive_and_wait();
        results[i] = Play(addresses_[i], b, session, &reply);
      });
    }
    for (std::thread& t : clients) t.join();
    ASSERT_NE(results[0].ok(), results[1].ok())
        << "round " << round << ": " << results[0].error_message() << " / "
        << results[1].error_message();
    const grpc::Status& lost = results[0].ok() ? results[1] : results[0];
    EXPECT_EQ(lost.error_code(), grpc::StatusCode::ABORTED)
        << lost.error_message();
    v1::Session after;
    ASSERT_TRUE(GetSession(addresses_[1], b.id, &after).ok());
    EXPECT_EQ(after.version(), session.version() + 1);
  }
}

TEST_F(ReplicasTest, AKilledReplicaLosesNoAcknowledgedMove) {
  const Board b = StartGame();
  std::vector<std::string> acknowledged;
  v1::Session session;
  ASSERT_TRUE(GetSession(nginx_address_, b.id, &session).ok());
  auto play_via = [&](const std::string& address, int ply) {
    v1::MakeMoveResponse reply;
    // A client's retry after UNAVAILABLE (a call cut off with the replica
    // that had it) carries the same request id, so the move counts once.
    const std::string request_id = absl::StrCat("ply-", ply);
    grpc::Status status;
    for (int attempt = 0; attempt < 3; ++attempt) {
      status = Play(address, b, session, &reply, request_id);
      if (status.error_code() != grpc::StatusCode::UNAVAILABLE) break;
    }
    ASSERT_TRUE(status.ok()) << "ply " << ply << " via " << address << ": "
                             << status.error_message();
    acknowledged.push_back(reply.move().notation());
    ASSERT_TRUE(GetSession(address, b.id, &session).ok());
    ASSERT_EQ(session.version(), reply.version());
  };
  for (int ply = 0; ply < 6; ++ply) {
    play_via(ply % 2 == 0 ? addresses_[0] : nginx_address_, ply);
    if (HasFatalFailure()) return;
  }
  // Mid-game, with moves just acknowledged by it: replica 0 dies.
  replicas_[0]->process().Signal(SIGKILL);
  ASSERT_EQ(replicas_[0]->process().Wait(kStartTimeout), 128 + SIGKILL);
  for (int ply = 6; ply < 12; ++ply) {
    play_via(ply % 2 == 0 ? addresses_[1] : nginx_address_, ply);
    if (HasFatalFailure()) return;
  }
  v1::Session final_session;
  ASSERT_TRUE(GetSession(addresses_[1], b.id, &final_session).ok());
  ASSERT_EQ(final_session.moves_size(), static_cast<int>(acknowledged.size()));
  for (size_t i = 0; i < acknowledged.size(); ++i) {
    EXPECT_EQ(final_session.moves(static_cast<int>(i)), acknowledged[i])
        << "move " << i;
  }
  // A replica started again on the database serves the same game.
  std::unique_ptr<KhetdChild> restarted = StartReplica(2);
  ASSERT_NE(restarted, nullptr) << Logs();
  v1::Session on_restarted;
  ASSERT_TRUE(GetSession(restarted->address(), b.id, &on_restarted).ok());
  EXPECT_EQ(on_restarted.version(), final_session.version());
  EXPECT_EQ(on_restarted.moves_size(), final_session.moves_size());
}

TEST_F(ReplicasTest, ATimeoutResetsAGameOnceAndBothReplicasReportIt) {
  const Board b = StartGame();
  {
    grpc::ClientContext context;
    Prepare(&context, b.owner);
    v1::UpdateSettingsRequest request;
    request.set_session_id(b.id);
    request.mutable_settings()->set_timeout_enabled(true);
    request.mutable_settings()->set_timeout_seconds(2);
    v1::Session updated;
    const grpc::Status status =
        Stub(addresses_[0])->UpdateSettings(&context, request, &updated);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  v1::Session session;
  ASSERT_TRUE(GetSession(addresses_[0], b.id, &session).ok());
  v1::MakeMoveResponse reply;
  ASSERT_TRUE(Play(addresses_[0], b, session, &reply).ok());
  // Each replica's watchers, from the move on, for long enough for the game
  // to time out (2 s, swept every second) and for a second reset to show.
  const absl::Time until = absl::Now() + absl::Seconds(8);
  std::vector<std::vector<v1::Event>> seen(2);
  std::vector<std::thread> watchers;
  for (int r = 0; r < 2; ++r) {
    watchers.emplace_back([&, r] {
      grpc::ClientContext context;
      context.set_deadline(absl::ToChronoTime(until));
      v1::WatchRequest watch;
      watch.set_session_id(b.id);
      watch.set_after_version(reply.version());
      std::unique_ptr<v1::KhetService::Stub> stub = Stub(addresses_[r]);
      std::unique_ptr<grpc::ClientReader<v1::Event>> events =
          stub->Watch(&context, watch);
      v1::Event event;
      while (events->Read(&event)) seen[r].push_back(event);
    });
  }
  for (std::thread& t : watchers) t.join();
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE(absl::StrCat("replica ", r));
    int resets = 0;
    int64_t version = reply.version();
    for (const v1::Event& e : seen[r]) {
      EXPECT_EQ(e.version(), ++version) << e.DebugString();
      if (e.has_game_reset()) {
        EXPECT_TRUE(e.game_reset().timed_out());
        ++resets;
      }
    }
    EXPECT_EQ(resets, 1);
    v1::Session after;
    ASSERT_TRUE(GetSession(addresses_[r], b.id, &after).ok());
    EXPECT_EQ(after.version(), version);
    EXPECT_NE(after.status(), v1::IN_PROGRESS);
    EXPECT_EQ(after.moves_size(), 0);
  }
  ASSERT_EQ(seen[0].size(), seen[1].size());
}

}  // namespace
}  // namespace khet
