// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// SQLite's disk fills while games are played (label `faults`): a real khetd
// whose database cannot grow past a limit, four players moving until their
// moves are refused. Every move is either acknowledged and kept or refused
// with UNAVAILABLE saying that the disk is full (and then not kept); reads
// go on while it is full; moves succeed again, without a restart, once
// there is room; after a restart every acknowledged move is read back, and
// no refused one.
//
// Two ways to fill a disk:
// - RLIMIT_FSIZE on the khetd process (setrlimit before exec, SIGXFSZ
//   ignored, so a write past it fails with EFBIG): works anywhere, as any
//   user. Room comes back when the test raises the limit from outside with
//   prlimit(2), which a process of the same user may do.
// - A small tmpfs mounted by the test (ENOSPC, a full file system), room
//   coming back when the test deletes a filler file; only where the test
//   may mount (root with CAP_SYS_ADMIN), skipped elsewhere.
#include <httplib.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "tests/faults/fault_harness.h"
#include "tests/support/khetd_child.h"
#include "tests/support/text_file.h"

#ifndef KHETD_PATH
#error "KHETD_PATH must name the khetd binary"
#endif

namespace khet::faults {
namespace {

constexpr int kPlayers = 4;
// What a refusal for a full disk says, in gRPC and HTTP alike.
constexpr char kDiskFull[] = "disk is full";
// A refusal comes at once, not after a wait for room.
constexpr absl::Duration kRefusalBound = absl::Seconds(2);

class SqliteDiskFullTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("khet_disk_full");
    ASSERT_FALSE(dir_.empty());
    data_dir_ = dir_ + "/data";
    ASSERT_EQ(mkdir(data_dir_.c_str(), 0755), 0);
    port_ = FreePort();
    address_ = absl::StrCat("127.0.0.1:", port_);
  }

  void TearDown() override {
    khetd_.reset();
    if (mounted_) umount2(data_dir_.c_str(), MNT_DETACH);
    if (HasFailure()) {
      std::cerr << "---- khetd logs\n" << ReadTextFile(dir_ + "/khetd.log");
    }
    std::error_code ignored;
    if (!HasFailure()) std::filesystem::remove_all(dir_, ignored);
  }

  // khetd on the test's port with SQLite in data_dir_; its log outside it.
  void StartKhetd(std::optional<rlim_t> file_size_limit) {
    absl::StatusOr<std::unique_ptr<KhetdChild>> khetd = KhetdChild::Start(
        KHETD_PATH,
        WithoutBudgets({"--store=sqlite", "--data_dir=" + data_dir_,
                        "--listen=" + address_}),
        dir_ + "/khetd.log",
        {.http = true, .file_size_limit = file_size_limit});
    ASSERT_TRUE(khetd.ok()) << khetd.status();
    khetd_ = *std::move(khetd);
  }

  // The players move until each has had a move refused. Every outcome
  // must be OK or the full disk's refusal.
  void PlayUntilFull(std::vector<std::unique_ptr<Player>>& players) {
    std::vector<bool> refused(players.size(), false);
    int steps = 0;
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (std::count(refused.begin(), refused.end(), false) > 0) {
      ASSERT_LT(absl::Now(), deadline)
          << "the disk did not fill: " << ledger_.acked() << " moves, "
          << Summary(outcomes_);
      ASSERT_LT(steps++, 20000);
      for (size_t i = 0; i < players.size(); ++i) {
        if (refused[i]) continue;
        CallOutcome outcome = players[i]->Step();
        ExpectOkOrDiskFull(outcome);
        if (outcome.code != grpc::StatusCode::OK) refused[i] = true;
        outcomes_.push_back(std::move(outcome));
      }
    }
  }

  void ExpectOkOrDiskFull(const CallOutcome& outcome) {
    if (outcome.code == grpc::StatusCode::OK) return;
    EXPECT_EQ(outcome.code, grpc::StatusCode::UNAVAILABLE)
        << outcome.call << ": " << outcome.message;
    EXPECT_TRUE(absl::StrContains(outcome.message, kDiskFull))
        << outcome.call << ": " << outcome.message;
    EXPECT_LT(outcome.latency, kRefusalBound) << outcome.call;
  }

  // While the disk is full: every player's next moves are refused the
  // same way, creating a session too (gRPC and HTTP), and reads are
  // served: sessions, the list, their events, over gRPC and HTTP.
  void CheckWhileFull(std::vector<std::unique_ptr<Player>>& players) {
    for (int round = 0; round < 3; ++round) {
      for (std::unique_ptr<Player>& player : players) {
        ASSERT_TRUE(player->move_pending());
        CallOutcome outcome = player->Step();
        EXPECT_EQ(outcome.call, "MakeMove");
        EXPECT_NE(outcome.code, grpc::StatusCode::OK)
            << "a move was played on a full disk";
        ExpectOkOrDiskFull(outcome);
        outcomes_.push_back(std::move(outcome));
      }
    }
    std::unique_ptr<v1::KhetService::Stub> stub =
        v1::KhetService::NewStub(QuickChannel(address_));
    // Reads: each session as acknowledged, exactly.
    const std::vector<std::string> differences =
        CheckAcknowledged(address_, ledger_.Snapshot(), /*exact=*/true);
    EXPECT_TRUE(differences.empty()) << absl::StrJoin(differences, "\n");
    {
      grpc::ClientContext context;
      context.set_deadline(absl::ToChronoTime(absl::Now() + kRefusalBound));
      v1::ListSessionsResponse list;
      const grpc::Status status =
          stub->ListSessions(&context, v1::ListSessionsRequest(), &list);
      EXPECT_TRUE(status.ok()) << status.error_message();
      EXPECT_GE(list.sessions_size(), kPlayers);
    }
    for (std::unique_ptr<Player>& player : players) {
      // The session's whole history, from the store.
      v1::GetSessionRequest get;
      get.set_session_id(player->session_id());
      v1::Session session;
      {
        grpc::ClientContext context;
        ASSERT_TRUE(stub->GetSession(&context, get, &session).ok());
      }
      grpc::ClientContext context;
      context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
      v1::WatchRequest watch;
      watch.set_session_id(player->session_id());
      watch.set_after_version(0);
      std::unique_ptr<grpc::ClientReader<v1::Event>> events =
          stub->Watch(&context, watch);
      v1::Event event;
      int64_t last = 0;
      while (last < session.version() && events->Read(&event)) {
        last = event.version();
      }
      EXPECT_EQ(last, session.version())
          << "the history of " << player->session_id();
      context.TryCancel();
    }
    httplib::Client http("127.0.0.1", khetd_->http_port());
    http.set_read_timeout(10, 0);
    httplib::Result got = http.Get("/v1/sessions/" + players[0]->session_id());
    ASSERT_TRUE(got) << httplib::to_string(got.error());
    EXPECT_EQ(got->status, 200) << got->body;

    // A new session is a smaller write than a move: it may still fit.
    // Each is created (and kept) or refused as the moves are, until one
    // is refused; over gRPC, then over HTTP (503).
    bool refused = false;
    for (int i = 0; i < 100 && !refused; ++i) {
      grpc::ClientContext context;
      context.set_deadline(absl::ToChronoTime(absl::Now() + kRefusalBound));
      v1::CreateSessionRequest request;
      request.set_name(absl::StrCat("while full ", i));
      v1::CreateSessionResponse created;
      const grpc::Status status =
          stub->CreateSession(&context, request, &created);
      if (status.ok()) {
        ledger_.AddSession(created.session().id());
        continue;
      }
      refused = true;
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
      EXPECT_TRUE(absl::StrContains(status.error_message(), kDiskFull))
          << status.error_message();
    }
    EXPECT_TRUE(refused) << "100 sessions created on a full disk";
    refused = false;
    for (int i = 0; i < 100 && !refused; ++i) {
      httplib::Result create = http.Post(
          "/v1/sessions", absl::StrCat(R"({"name": "over http )", i, R"("})"),
          "text/plain");
      ASSERT_TRUE(create) << httplib::to_string(create.error());
      if (create->status == 200) {
        const std::string kId = R"("id":")";
        const size_t at = create->body.find(kId);
        ASSERT_NE(at, std::string::npos) << create->body;
        const size_t from = at + kId.size();
        ledger_.AddSession(
            create->body.substr(from, create->body.find('"', from) - from));
        continue;
      }
      refused = true;
      EXPECT_EQ(create->status, 503) << create->body;
      EXPECT_TRUE(absl::StrContains(create->body, R"("code":"UNAVAILABLE")"))
          << create->body;
      EXPECT_TRUE(absl::StrContains(create->body, kDiskFull)) << create->body;
    }
    EXPECT_TRUE(refused) << "100 sessions created over HTTP on a full disk";
    // The moves are refused still.
    for (std::unique_ptr<Player>& player : players) {
      CallOutcome outcome = player->Step();
      EXPECT_NE(outcome.code, grpc::StatusCode::OK);
      ExpectOkOrDiskFull(outcome);
      outcomes_.push_back(std::move(outcome));
    }
  }

  // khetd killed and started again while the disk is still full (as a
  // supervisor would): it starts, serves every acknowledged move, and
  // refuses moves the same way.
  void RestartWhileFull(std::vector<std::unique_ptr<Player>>& players,
                        std::optional<rlim_t> file_size_limit) {
    khetd_.reset();  // SIGKILL
    ASSERT_NO_FATAL_FAILURE(StartKhetd(file_size_limit));
    const std::vector<std::string> differences =
        CheckAcknowledged(address_, ledger_.Snapshot(), /*exact=*/true);
    EXPECT_TRUE(differences.empty()) << absl::StrJoin(differences, "\n");
    for (std::unique_ptr<Player>& player : players) {
      CallOutcome outcome = player->Step();
      EXPECT_EQ(outcome.call, "MakeMove");
      EXPECT_NE(outcome.code, grpc::StatusCode::OK)
          << "a move was played on a full disk after a restart";
      ExpectOkOrDiskFull(outcome);
      outcomes_.push_back(std::move(outcome));
    }
  }

  // Once there is room again: every player's pending move and the next
  // few are played, without a refusal.
  void CheckRoomAgain(std::vector<std::unique_ptr<Player>>& players) {
    for (std::unique_ptr<Player>& player : players) {
      const int64_t before = ledger_.acked();
      for (int step = 0; step < 12; ++step) {
        CallOutcome outcome = player->Step();
        EXPECT_EQ(outcome.code, grpc::StatusCode::OK)
            << "with room again, " << outcome.call << " step " << step << ": "
            << StatusCodeName(outcome.code) << " " << outcome.message;
        outcomes_.push_back(std::move(outcome));
      }
      EXPECT_GE(ledger_.acked(), before + 6);
    }
  }

  // Restarted with room: every acknowledged move, and none besides.
  void CheckAfterRestart() {
    khetd_.reset();  // SIGKILL
    ASSERT_NO_FATAL_FAILURE(StartKhetd(std::nullopt));
    const std::vector<std::string> differences =
        CheckAcknowledged(address_, ledger_.Snapshot(), /*exact=*/true);
    EXPECT_TRUE(differences.empty()) << absl::StrJoin(differences, "\n");
  }

  std::vector<std::unique_ptr<Player>> NewPlayers() {
    std::vector<std::unique_ptr<Player>> players;
    for (int i = 0; i < kPlayers; ++i) {
      players.push_back(std::make_unique<Player>(
          address_, &ledger_,
          Player::Options{.max_plies = 1000, .name = absl::StrCat("p", i)}));
    }
    return players;
  }

  void Report(const std::string& how) {
    RecordProperty("acknowledged_moves", static_cast<int>(ledger_.acked()));
    std::cerr << how << ": " << ledger_.acked() << " moves acknowledged; "
              << Summary(outcomes_) << "\n";
  }

  std::string dir_;
  std::string data_dir_;
  int port_ = 0;
  std::string address_;
  std::unique_ptr<KhetdChild> khetd_;
  bool mounted_ = false;
  Ledger ledger_;
  std::vector<CallOutcome> outcomes_;
};

TEST_F(SqliteDiskFullTest, FileSizeLimitRefusesMovesKeepsReadsAndRecovers) {
  // Room for the schema, a few dozen moves and the log's lines: a file
  // may not grow past 384 KiB.
  constexpr rlim_t kLimit = 384 * 1024;
  ASSERT_NO_FATAL_FAILURE(StartKhetd(kLimit));
  std::vector<std::unique_ptr<Player>> players = NewPlayers();
  ASSERT_NO_FATAL_FAILURE(PlayUntilFull(players));
  EXPECT_GT(ledger_.acked(), 0) << Summary(outcomes_);
  ASSERT_NO_FATAL_FAILURE(CheckWhileFull(players));
  ASSERT_NO_FATAL_FAILURE(RestartWhileFull(players, kLimit));

  // Room again: the limit raised from outside, khetd not restarted.
  struct rlimit room;
  ASSERT_EQ(prlimit(khetd_->process().pid(), RLIMIT_FSIZE, nullptr, &room), 0);
  ASSERT_EQ(room.rlim_cur, kLimit);
  room.rlim_cur = room.rlim_max;
  ASSERT_EQ(prlimit(khetd_->process().pid(), RLIMIT_FSIZE, &room, nullptr), 0)
      << std::strerror(errno);
  ASSERT_NO_FATAL_FAILURE(CheckRoomAgain(players));
  ASSERT_NO_FATAL_FAILURE(CheckAfterRestart());
  Report("file size limit");
}

TEST_F(SqliteDiskFullTest, FullTmpfsRefusesMovesKeepsReadsAndRecovers) {
  // A 2 MiB tmpfs for the database alone, if this test may mount one.
  if (mount("tmpfs", data_dir_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
            "size=2m,mode=0755") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno)
                 << "): the file size limit test covers a full disk";
  }
  mounted_ = true;
  ASSERT_NO_FATAL_FAILURE(StartKhetd(std::nullopt));
  // The rest of the file system taken, but for about 256 KiB.
  const std::string filler = data_dir_ + "/filler";
  {
    struct statvfs fs;
    ASSERT_EQ(statvfs(data_dir_.c_str(), &fs), 0);
    const int64_t free_bytes =
        static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
    std::ofstream out(filler, std::ios::binary);
    const std::string block(4096, 'x');
    for (int64_t left = free_bytes - 256 * 1024; left > 0; left -= 4096) {
      out << block;
    }
    ASSERT_TRUE(out.good());
  }
  std::vector<std::unique_ptr<Player>> players = NewPlayers();
  ASSERT_NO_FATAL_FAILURE(PlayUntilFull(players));
  EXPECT_GT(ledger_.acked(), 0) << Summary(outcomes_);
  ASSERT_NO_FATAL_FAILURE(CheckWhileFull(players));
  ASSERT_NO_FATAL_FAILURE(RestartWhileFull(players, std::nullopt));

  // Room again: the filler deleted, khetd not restarted.
  ASSERT_EQ(unlink(filler.c_str()), 0);
  ASSERT_NO_FATAL_FAILURE(CheckRoomAgain(players));
  ASSERT_NO_FATAL_FAILURE(CheckAfterRestart());
  Report("full tmpfs");
}

}  // namespace
}  // namespace khet::faults
