// Two real khetd replicas on one PostgreSQL database behind Debian's nginx
// as a gRPC load balancer, all on loopback and started here (the database
// comes from ctest's `postgres` fixture): a game whose moves alternate
// between the replicas, a watcher on one replica seeing moves made on the
// other, two clients racing one version through different replicas, and a
// replica killed mid-game while the game goes on through the other with
// every acknowledged move kept. The nginx configuration is generated from
// deploy/nginx/khet-grpc.conf and checked with `nginx -t` first.
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <latch>
#include <memory>
#include <optional>
#include <sstream>
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

// A child process, its stdout read through a pipe and its stderr appended
// to a file. Stopped with `stop_signal` if still running when destroyed
// (nginx needs SIGTERM: its master stops its workers, which a SIGKILL would
// leave running), then with SIGKILL if it is not gone within 10 s.
class Process {
 public:
  static std::unique_ptr<Process> Start(const std::vector<std::string>& argv,
                                        const std::string& stderr_path,
                                        int stop_signal = SIGKILL) {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return nullptr;
    std::vector<char*> args;
    for (const std::string& arg : argv) {
      args.push_back(const_cast<char*>(arg.c_str()));
    }
    args.push_back(nullptr);
    const int err = open(stderr_path.c_str(),
                         O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(null_fd, STDIN_FILENO);
      dup2(out[1], STDOUT_FILENO);
      dup2(err, STDERR_FILENO);
      execv(args[0], args.data());
      _exit(127);
    }
    close(out[1]);
    close(err);
    close(null_fd);
    if (pid < 0) {
      close(out[0]);
      return nullptr;
    }
    return std::unique_ptr<Process>(new Process(pid, out[0], stop_signal));
  }

  ~Process() {
    if (pid_ > 0 && stop_signal_ != SIGKILL) {
      kill(pid_, stop_signal_);
      Wait(absl::Seconds(10));
    }
    Kill(SIGKILL);
    close(out_);
  }

  // Sends `signal` and waits for the exit; returns the wait status.
  int Kill(int signal) {
    if (pid_ <= 0) return status_;
    kill(pid_, signal);
    waitpid(pid_, &status_, 0);
    pid_ = -1;
    return status_;
  }

  // Waits for the exit; -1 if it takes longer than `timeout`.
  int Wait(absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (pid_ > 0) {
      const pid_t done = waitpid(pid_, &status_, WNOHANG);
      if (done == pid_) {
        pid_ = -1;
        break;
      }
      if (absl::Now() > deadline) return -1;
      absl::SleepFor(absl::Milliseconds(10));
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128;
  }

  // Reads stdout until a line contains `text`; that line, or nullopt at the
  // end of the output or after `timeout`.
  std::optional<std::string> ReadLineWith(const std::string& text,
                                          absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (true) {
      for (size_t nl; (nl = buffer_.find('\n')) != std::string::npos;) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        all_ += line + "\n";
        if (absl::StrContains(line, text)) return line;
      }
      const absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) return std::nullopt;
      pollfd fd{out_, POLLIN, 0};
      const int ready =
          poll(&fd, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) continue;
      char chunk[4096];
      const ssize_t n = read(out_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  // Everything read from stdout until the exit.
  std::string ReadToEnd() {
    while (ReadLineWith("\x01never", absl::Seconds(60)).has_value()) {
    }
    return all_ + buffer_;
  }

 private:
  Process(pid_t pid, int out, int stop_signal)
      : pid_(pid), out_(out), stop_signal_(stop_signal) {}

  pid_t pid_;
  int out_;
  const int stop_signal_;
  int status_ = 0;
  std::string buffer_;
  std::string all_;
};

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

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
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
      std::string address;
      replicas_.push_back(StartReplica(i, &address));
      ASSERT_NE(replicas_.back(), nullptr) << Logs();
      addresses_.push_back(address);
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
      absl::StrAppend(&out, "---- ", name, "\n", ReadFile(dir_ + "/" + name));
    }
    return out;
  }

  // Starts replica `index` on a free port; its address in *address.
  std::unique_ptr<Process> StartReplica(int index, std::string* address) {
    std::unique_ptr<Process> replica = Process::Start(
        {KHETD_PATH, "--listen", "127.0.0.1:0", "--store", "postgres",
         "--postgres_url", db_->conninfo(), "--timeout_sweep_seconds", "1"},
        absl::StrCat(dir_, "/replica-", index, ".log"));
    if (replica == nullptr) return nullptr;
    std::optional<std::string> line =
        replica->ReadLineWith("khetd listening on ", kStartTimeout);
    if (!line.has_value()) return nullptr;
    *address = line->substr(line->rfind(' ') + 1);
    return replica;
  }

  // The configuration from the deployment template, for these replicas.
  std::string NginxConfig(int port) {
    std::string upstreams;
    for (const std::string& address : addresses_) {
      absl::StrAppend(&upstreams, "server ", address,
                      " max_fails=1 fail_timeout=30s;\n    ");
    }
    return absl::StrReplaceAll(
        ReadFile(NGINX_TEMPLATE_PATH),
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
      std::unique_ptr<Process> check = Process::Start(
          {kNginx, "-t", "-p", dir_, "-c", conf}, dir_ + "/nginx-t.log");
      ASSERT_NE(check, nullptr);
      ASSERT_EQ(check->Wait(kStartTimeout), 0)
          << ReadFile(dir_ + "/nginx-t.log");
      EXPECT_TRUE(absl::StrContains(ReadFile(dir_ + "/nginx-t.log"),
                                    "test is successful"));
      std::unique_ptr<Process> nginx =
          Process::Start({kNginx, "-p", dir_, "-c", conf, "-g", "daemon off;"},
                         dir_ + "/nginx.out", SIGTERM);
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
        if (nginx->Wait(absl::Milliseconds(50)) != -1) break;  // it exited
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
    std::unique_ptr<Process> ctl = Process::Start(argv, dir_ + "/khetctl.err");
    EXPECT_NE(ctl, nullptr);
    Message message;
    if (ctl == nullptr) return message;
    const std::string out = ctl->ReadToEnd();
    EXPECT_EQ(ctl->Wait(kCallTimeout), 0)
        << "khetctl " << absl::StrJoin(args, " ") << ": "
        << ReadFile(dir_ + "/khetctl.err");
    const auto status =
        google::protobuf::util::JsonStringToMessage(out, &message);
    EXPECT_TRUE(status.ok()) << status.ToString() << " in: " << out;
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
  std::vector<std::unique_ptr<Process>> replicas_;
  std::vector<std::string> addresses_;
  std::unique_ptr<Process> nginx_;
  std::string nginx_address_;
};

TEST_F(ReplicasTest, MovesAlternateBetweenReplicasAndThroughNginx) {
  const Board b = StartGame();
  ASSERT_FALSE(b.red.empty());
  v1::Session session;
  ASSERT_TRUE(GetSession(addresses_[0], b.id, &session).ok());
  ASSERT_EQ(session.status(), v1::IN_PROGRESS);
  std::vector<std::string> played;
  for (int ply = 0; ply < 12; ++ply) {
    // Replica 0, replica 1, then nginx's choice, in turn; each move made
    // straight after the last, at the version the last reply gave.
    const std::string& address =
        ply % 3 == 2 ? nginx_address_ : addresses_[ply % 3];
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
  // The last move sent again with its request id, to the other replica:
  // the stored reply, and nothing played.
  v1::MakeMoveResponse again;
  ASSERT_TRUE(Play(addresses_[0], b, session, &again, "alt-11").ok());
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
  const int status = replicas_[0]->Kill(SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
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
  std::string address;
  std::unique_ptr<Process> restarted = StartReplica(2, &address);
  ASSERT_NE(restarted, nullptr) << Logs();
  v1::Session on_restarted;
  ASSERT_TRUE(GetSession(address, b.id, &on_restarted).ok());
  EXPECT_EQ(on_restarted.version(), final_session.version());
  EXPECT_EQ(on_restarted.moves_size(), final_session.moves_size());
}

}  // namespace
}  // namespace khet
