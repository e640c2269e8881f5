// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd over TLS end to end: a self-signed certificate made with the openssl
// command, khetd serving gRPC with it (--tls_cert, --tls_key), and khetctl
// playing a game and watching it over TLS; a plaintext client is refused,
// and bad certificate files stop khetd at start with a message naming them.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
#ifndef OPENSSL_PATH
#error "OPENSSL_PATH must name the openssl command"
#endif

namespace khet {
namespace {

using ::testing::HasSubstr;

// Generous: sanitizer builds start processes slowly.
constexpr absl::Duration kCallTimeout = absl::Seconds(60);

struct Finished {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `argv` to its end.
Finished RunToEnd(const std::vector<std::string>& argv) {
  std::unique_ptr<ChildProcess> process = ChildProcess::Start(argv);
  if (process == nullptr) {
    ADD_FAILURE() << "cannot start " << argv[0];
    return {};
  }
  std::optional<ChildProcess::Output> output = process->ReadAll(kCallTimeout);
  if (!output.has_value()) {
    ADD_FAILURE() << absl::StrJoin(argv, " ") << " timed out";
    return {};
  }
  return {output->exit_code, std::move(output->out), std::move(output->err)};
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "khet-tls-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    cert_ = dir_ + "/cert.pem";
    key_ = dir_ + "/key.pem";
    log_path_ = dir_ + "/khetd.log";
    // A certificate for localhost and 127.0.0.1, signed by its own key.
    const Finished made =
        RunToEnd({OPENSSL_PATH, "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                  "-subj", "/CN=localhost", "-addext",
                  "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "1",
                  "-keyout", key_, "-out", cert_});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }

  void TearDown() override {
    server_.reset();
    if (HasFailure()) std::cerr << "khetd log:\n" << ReadTextFile(log_path_);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  void StartServer() {
    absl::StatusOr<std::unique_ptr<KhetdChild>> server = KhetdChild::Start(
        KHETD_PATH,
        {"--store=memory", "--tls_cert=" + cert_, "--tls_key=" + key_},
        log_path_, {});
    ASSERT_TRUE(server.ok()) << server.status() << "; log:\n"
                             << ReadTextFile(log_path_);
    server_ = *std::move(server);
  }

  // khetctl over TLS, trusting the test's certificate.
  std::vector<std::string> Khetctl(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {KHETCTL_PATH, "--server",
                                     server_->address(), "--ca_cert", cert_};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  // Runs khetctl over TLS with --json, expects success and parses the answer.
  template <typename Message>
  Message CtlJson(std::vector<std::string> args) {
    args.push_back("--json");
    const Finished run = RunToEnd(Khetctl(args));
    EXPECT_EQ(run.exit_code, 0)
        << "khetctl " << absl::StrJoin(args, " ") << ": " << run.err;
    Message message;
    const auto status =
        google::protobuf::util::JsonStringToMessage(run.out, &message);
    EXPECT_TRUE(status.ok()) << status.ToString() << " in:\n" << run.out;
    return message;
  }

  // A bad start: khetd with `flags` must exit with 2 and say `expected`.
  void ExpectStartRefused(const std::vector<std::string>& flags,
                          const std::string& expected) {
    std::vector<std::string> argv = {KHETD_PATH, "--store=memory",
                                     "--listen=127.0.0.1:0", "--http_listen="};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const Finished run = RunToEnd(argv);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_THAT(run.err, HasSubstr(expected));
    EXPECT_THAT(run.out, ::testing::Not(HasSubstr("listening")));
  }

  std::string dir_;
  std::string cert_;
  std::string key_;
  std::string log_path_;
  std::unique_ptr<KhetdChild> server_;
};

// A move that hits the opponent's Pharaoh if there is one, else a random
// one that spares the mover's.
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

TEST_F(TlsTest, KhetctlPlaysAndWatchesAGameOverTls) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const Finished health = RunToEnd(Khetctl({"health"}));
  EXPECT_EQ(health.exit_code, 0) << health.err;
  EXPECT_EQ(health.out, "SERVING\n");

  const auto created = CtlJson<v1::CreateSessionResponse>(
      {"create", "--name", "over tls", "--setup", "classic-2"});
  const std::string id = created.session().id();
  const std::string silver =
      CtlJson<v1::JoinSeatResponse>(
          {"join", id, "--name", "alice", "--color", "silver"})
          .player_token();
  const std::string red = CtlJson<v1::JoinSeatResponse>(
                              {"join", id, "--name", "bob", "--color", "red"})
                              .player_token();
  // A watch from the start, over its own TLS connection.
  std::unique_ptr<ChildProcess> watch =
      ChildProcess::Start(Khetctl({"watch", id, "--json"}));
  ASSERT_NE(watch, nullptr);

  absl::StatusOr<Position> start = SetupPosition("classic-2");
  ASSERT_TRUE(start.ok()) << start.status();
  Game game(*start);
  std::mt19937 rng(7);
  for (int ply = 0; ply < 600 && !game.over(); ++ply) {
    const Move move = ChooseMove(game.position(), rng);
    const std::string notation = FormatMove(game.position(), move);
    const std::string& token =
        game.position().side_to_move() == Color::kSilver ? silver : red;
    const auto moved =
        CtlJson<v1::MakeMoveResponse>({"move", id, notation, "--token", token});
    ASSERT_TRUE(game.Play(move).ok()) << notation;
    ASSERT_EQ(moved.board().position(), FormatPosition(game.position()))
        << "after " << notation;
  }
  ASSERT_TRUE(game.over());
  const auto session = CtlJson<v1::Session>({"get", id});
  EXPECT_EQ(session.status(), v1::FINISHED);
  EXPECT_EQ(session.moves_size(), game.ply());

  // The watch saw every event up to the game's end, in order.
  int64_t version = 0;
  while (version < session.version()) {
    const std::optional<std::string> line = watch->ReadLine(kCallTimeout);
    ASSERT_TRUE(line.has_value()) << "after version " << version;
    v1::Event event;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(*line, &event).ok())
        << *line;
    EXPECT_EQ(event.version(), version + 1);
    version = event.version();
  }
}

TEST_F(TlsTest, APlaintextClientIsRefused) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  const Finished plain = RunToEnd({KHETCTL_PATH, "--server", server_->address(),
                                   "--deadline", "5", "setups"});
  EXPECT_EQ(plain.exit_code, 3);  // khetd cannot be reached that way
  EXPECT_THAT(plain.err, HasSubstr("Cannot reach khetd"));
  // TLS without trusting the self-signed certificate fails too; trusting it
  // under the certificate's other name works.
  const Finished untrusted =
      RunToEnd({KHETCTL_PATH, "--server", server_->address(), "--tls",
                "--deadline", "5", "setups"});
  EXPECT_EQ(untrusted.exit_code, 3);
  EXPECT_THAT(untrusted.err, HasSubstr("Cannot reach khetd"));
  const Finished named =
      RunToEnd(Khetctl({"--tls_server_name", "localhost", "setups"}));
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_THAT(named.out, HasSubstr("classic-2"));
}

TEST_F(TlsTest, BadCertificateFilesStopKhetdAtStart) {
  const std::string other_key = dir_ + "/other-key.pem";
  const Finished made =
      RunToEnd({OPENSSL_PATH, "genrsa", "-out", other_key, "2048"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ExpectStartRefused({"--tls_cert=" + cert_, "--tls_key=" + other_key},
                     "--tls_key=" + other_key + ": is not the key of");
  ExpectStartRefused({"--tls_cert=" + cert_, "--tls_key=" + cert_},
                     "holds no PEM private key");
  ExpectStartRefused({"--tls_cert=" + key_, "--tls_key=" + key_},
                     "--tls_cert=" + key_ + ": holds no PEM certificate");
  ExpectStartRefused({"--tls_cert=" + cert_, "--tls_key=" + dir_ + "/none"},
                     "cannot be read");
  ExpectStartRefused({"--tls_cert=" + cert_}, "give both or neither");
  // khetctl names an unreadable CA file as a usage error.
  const Finished ctl = RunToEnd({KHETCTL_PATH, "--server", "127.0.0.1:1",
                                 "--ca_cert", dir_ + "/none", "setups"});
  EXPECT_EQ(ctl.exit_code, 2);
  EXPECT_THAT(ctl.err, HasSubstr("--ca_cert"));
}

}  // namespace
}  // namespace khet
