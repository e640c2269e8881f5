// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// PostgreSQL stopped for 20 s under load and started again (label
// `faults`), on the test's own cluster (tests/pg/pg_cluster.sh: pg_ctl stop
// -m fast, then start on the same port), with one khetd, and with two
// replicas behind nginx. While the database is down every call fails fast
// with UNAVAILABLE (none waits for it); once it is back the players' moves
// go through again within seconds, with khetd not restarted; and every move
// acknowledged before, during and after is stored, read back through each
// khetd and through a khetd started afresh.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/faults/fault_harness.h"
#include "tests/support/khetd_child.h"
#include "tests/support/text_file.h"

#ifndef KHETD_PATH
#error "KHETD_PATH must name the khetd binary"
#endif

namespace khet::faults {
namespace {

constexpr int kPlayers = 4;
constexpr absl::Duration kOutage = absl::Seconds(20);
// A call while the database is down answers within this.
constexpr absl::Duration kFailFast = absl::Seconds(1);
// Once the database is back, every player has a move acknowledged within
// this.
constexpr absl::Duration kRecovery = absl::Seconds(10);
// What a refusal says while no connection can be opened
// (PostgresStore::kUnreachable).
constexpr char kUnreachable[] = "the server's database cannot be reached";

// A watcher of one session through one khetd (a replica), in a thread of
// its own, that resumes after the last version it saw when its stream
// ends, as a client does; it keeps the versions of the events it got.
class Watcher {
 public:
  Watcher(const std::string& address, const std::string& id, int64_t after)
      : stub_(v1::KhetService::NewStub(QuickChannel(address))),
        id_(id),
        last_(after),
        thread_([this] { Run(); }) {}
  ~Watcher() {
    stop_ = true;
    {
      std::lock_guard lock(mu_);
      if (context_ != nullptr) context_->TryCancel();
    }
    thread_.join();
  }

  // Waits until an event of `version` or later came; false after
  // `timeout`.
  bool WaitFor(int64_t version, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (absl::Now() < deadline) {
      {
        std::lock_guard lock(mu_);
        if (last_ >= version) return true;
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
    return false;
  }
  // The events' versions in order, and whether each followed the last.
  std::vector<int64_t> versions() {
    std::lock_guard lock(mu_);
    return versions_;
  }
  int streams() {
    std::lock_guard lock(mu_);
    return streams_;
  }

 private:
  void Run() {
    while (!stop_) {
      grpc::ClientContext context;
      v1::WatchRequest request;
      {
        std::lock_guard lock(mu_);
        context_ = &context;
        request.set_after_version(last_);
        ++streams_;
      }
      request.set_session_id(id_);
      std::unique_ptr<grpc::ClientReader<v1::Event>> events =
          stub_->Watch(&context, request);
      v1::Event event;
      while (events->Read(&event)) {
        std::lock_guard lock(mu_);
        versions_.push_back(event.version());
        last_ = event.version();
      }
      events->Finish().IgnoreError();
      {
        std::lock_guard lock(mu_);
        context_ = nullptr;
      }
      if (!stop_) absl::SleepFor(absl::Milliseconds(100));
    }
  }

  std::unique_ptr<v1::KhetService::Stub> stub_;
  const std::string id_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  grpc::ClientContext* context_ = nullptr;  // guarded by mu_
  int64_t last_;                            // guarded by mu_
  std::vector<int64_t> versions_;           // guarded by mu_
  int streams_ = 0;                         // guarded by mu_
  std::thread thread_;
};

class PostgresOutageTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("khet_pg_outage");
    ASSERT_FALSE(dir_.empty());
    absl::StatusOr<std::unique_ptr<OwnPostgres>> pg =
        OwnPostgres::Start(dir_ + "/pg");
    ASSERT_TRUE(pg.ok()) << pg.status();
    pg_ = *std::move(pg);
  }

  void TearDown() override {
    nginx_.reset();
    khetds_.clear();
    pg_.reset();
    if (HasFailure()) {
      for (const std::string name :
           {"khetd-0.log", "khetd-1.log", "khetd-check.log", "error.log"}) {
        const std::string log = ReadTextFile(dir_ + "/" + name);
        std::cerr << "---- " << name << " (its end)\n"
                  << log.substr(log.size() > 8000 ? log.size() - 8000 : 0);
      }
    } else {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
    }
  }

  // khetd number `index` on the cluster, at `address`.
  std::unique_ptr<KhetdChild> StartKhetd(const std::string& name,
                                         const std::string& address) {
    absl::StatusOr<std::unique_ptr<KhetdChild>> khetd = KhetdChild::Start(
        KHETD_PATH,
        WithoutBudgets({"--store=postgres", "--postgres_url=" + pg_->conninfo(),
                        "--listen=" + address}),
        absl::StrCat(dir_, "/khetd-", name, ".log"), {});
    EXPECT_TRUE(khetd.ok()) << khetd.status();
    return khetd.ok() ? *std::move(khetd) : nullptr;
  }

  // The players play through `address` (a khetd or nginx): a while with
  // the database up, 20 s with it stopped, then with it up again.
  // With `replicas`, also a game played through the first whose watcher on
  // the second stays open through the outage: it must get every event,
  // those of moves made after the database came back included (change
  // notices heard again).
  void OutageUnderLoad(const std::string& address,
                       const std::vector<std::string>& replicas = {}) {
    Ledger watched_moves;
    std::unique_ptr<Player> watched;
    std::unique_ptr<Watcher> watcher;
    auto play_watched = [&](int moves) {
      for (int i = 0; i < moves; ++i) {
        const CallOutcome outcome = watched->Step();
        ASSERT_EQ(outcome.code, grpc::StatusCode::OK)
            << outcome.call << ": " << outcome.message;
      }
    };
    if (!replicas.empty()) {
      watched = std::make_unique<Player>(
          replicas[0], &watched_moves,
          Player::Options{.max_plies = 1000, .name = "watched"});
      ASSERT_NO_FATAL_FAILURE(play_watched(3));  // create, join, join
      watcher =
          std::make_unique<Watcher>(replicas[1], watched->session_id(), 0);
      ASSERT_NO_FATAL_FAILURE(play_watched(3));
    }
    Load load(address, &ledger_, kPlayers,
              {.max_plies = 40, .resign = true, .name = "p"},
              absl::Milliseconds(20));
    // And a game against the computer (level 5, a second a move), whose
    // search is under way when the database stops.
    absl::StatusOr<std::unique_ptr<ComputerGame>> computer =
        ComputerGame::Start(address, 5);
    ASSERT_TRUE(computer.ok()) << computer.status();
    absl::SleepFor(absl::Seconds(2));
    const int64_t before = ledger_.acked();
    ASSERT_GT(before, 0) << Summary(load.Outcomes());
    absl::StatusOr<int64_t> computer_to_move = (*computer)->Move();
    ASSERT_TRUE(computer_to_move.ok()) << computer_to_move.status();

    ASSERT_TRUE(pg_->StopServer().ok());
    const absl::Time down = absl::Now();
    absl::SleepFor(kOutage);
    const absl::Time up = absl::Now();
    const int64_t during = ledger_.acked();
    ASSERT_TRUE(pg_->StartServer().ok());
    const absl::Time started = absl::Now();

    // Back: every player's moves go through again.
    std::map<std::string, absl::Time> recovered;  // player: first ack
    const absl::Time recovery_deadline = started + kRecovery;
    while (absl::Now() < recovery_deadline) {
      recovered.clear();
      for (const CallOutcome& o : load.Outcomes()) {
        if (o.call == "MakeMove" && o.code == grpc::StatusCode::OK &&
            o.start > started && !recovered.contains(o.player)) {
          recovered[o.player] = o.start + o.latency;
        }
      }
      if (recovered.size() == kPlayers) break;
      absl::SleepFor(absl::Milliseconds(100));
    }
    absl::Duration slowest;
    for (const auto& [player, at] : recovered) {
      slowest = std::max(slowest, at - started);
    }
    EXPECT_EQ(recovered.size(), kPlayers)
        << "players moving again within " << kRecovery << ": "
        << recovered.size();
    if (watcher != nullptr) {
      ASSERT_NO_FATAL_FAILURE(play_watched(3));
      const int64_t last = watched_moves.Snapshot()
                               .at(watched->session_id())
                               .moves.back()
                               .version;
      EXPECT_TRUE(watcher->WaitFor(last, kRecovery))
          << "the watcher on the other replica got no event after the outage";
      const std::vector<int64_t> seen = watcher->versions();
      for (size_t i = 0; i < seen.size(); ++i) {
        EXPECT_EQ(seen[i], static_cast<int64_t>(i) + 1)
            << "events out of order or missing: " << absl::StrJoin(seen, ",");
      }
      EXPECT_EQ(seen.size(), static_cast<size_t>(last));
      std::cerr << "watcher through the outage: " << seen.size()
                << " events in " << watcher->streams() << " stream(s)\n";
    }
    // The computer, whose move could not be written meanwhile, plays it.
    const absl::Status answered =
        (*computer)->WaitForReply(*computer_to_move, kRecovery);
    EXPECT_TRUE(answered.ok()) << answered;
    const absl::Duration computer_back = absl::Now() - started;
    // It had been refused while the database was down (and tried again).
    const std::string logs = ReadTextFile(dir_ + "/khetd-0.log") +
                             ReadTextFile(dir_ + "/khetd-1.log");
    EXPECT_TRUE(absl::StrContains(
        logs, absl::StrCat("computer session=", (*computer)->id(),
                           " level=5 outcome=retrying")))
        << "the computer's move did not meet the outage";
    absl::SleepFor(absl::Seconds(1));
    load.Stop();

    // While it was down: refused at once, UNAVAILABLE, nothing
    // acknowledged.
    const std::vector<CallOutcome> outcomes = load.Outcomes();
    std::vector<CallOutcome> while_down;
    absl::Duration slowest_refusal;
    for (const CallOutcome& o : outcomes) {
      if (o.start < down || o.start + o.latency > up) continue;
      while_down.push_back(o);
      EXPECT_EQ(o.code, grpc::StatusCode::UNAVAILABLE)
          << o.call << " while the database was down: " << o.message;
      EXPECT_TRUE(absl::StrContains(o.message, kUnreachable)) << o.message;
      EXPECT_LT(o.latency, kFailFast) << o.call << ": " << o.message;
      slowest_refusal = std::max(slowest_refusal, o.latency);
    }
    EXPECT_GT(while_down.size(), 100u);
    // Every outcome at all: the outage's own errors only.
    for (const CallOutcome& o : outcomes) {
      const bool expected = o.code == grpc::StatusCode::OK ||
                            o.code == grpc::StatusCode::UNAVAILABLE ||
                            o.code == grpc::StatusCode::ABORTED ||
                            ((o.call == "JoinSeat" || o.call == "Resign") &&
                             o.code == grpc::StatusCode::FAILED_PRECONDITION);
      EXPECT_TRUE(expected)
          << o.call << " " << StatusCodeName(o.code) << ": " << o.message;
      // Messages for people: one line each (libpq's run over several).
      EXPECT_FALSE(absl::StrContains(o.message, "\n")) << o.message;
    }
    std::cerr << "outage through " << address << ": " << ledger_.acked()
              << " moves acknowledged (" << before << " before the stop, "
              << ledger_.acked() - during << " after the start); "
              << while_down.size() << " calls while down, the slowest "
              << absl::FormatDuration(
                     absl::Trunc(slowest_refusal, absl::Microseconds(10)))
              << "; every player moving again "
              << absl::FormatDuration(
                     absl::Trunc(slowest, absl::Milliseconds(1)))
              << " after the start, the computer "
              << absl::FormatDuration(
                     absl::Trunc(computer_back, absl::Milliseconds(1)))
              << "\n  while down: " << Summary(while_down)
              << "\n  calls: " << Summary(outcomes) << "\n";
    RecordProperty("calls_while_down", static_cast<int>(while_down.size()));
    RecordProperty("recovery_ms",
                   static_cast<int>(absl::ToInt64Milliseconds(slowest)));
  }

  // Every acknowledged move, through `address`.
  void CheckAcked(const std::string& address) {
    const std::vector<std::string> lost =
        CheckAcknowledged(address, ledger_.Snapshot(), /*exact=*/false);
    EXPECT_TRUE(lost.empty()) << "through " << address << ":\n"
                              << absl::StrJoin(lost, "\n");
  }

  // And through a khetd started afresh on the database.
  void CheckAckedAfresh() {
    std::unique_ptr<KhetdChild> fresh =
        StartKhetd("check", absl::StrCat("127.0.0.1:", FreePort()));
    ASSERT_NE(fresh, nullptr);
    CheckAcked(fresh->address());
  }

  std::string dir_;
  std::unique_ptr<OwnPostgres> pg_;
  std::vector<std::unique_ptr<KhetdChild>> khetds_;
  std::unique_ptr<Nginx> nginx_;
  Ledger ledger_;
};

TEST_F(PostgresOutageTest, OneKhetdFailsFastAndRecoversWithoutARestart) {
  const std::string address = absl::StrCat("127.0.0.1:", FreePort());
  khetds_.push_back(StartKhetd("0", address));
  ASSERT_NE(khetds_.back(), nullptr);
  const pid_t pid = khetds_.back()->process().pid();
  ASSERT_NO_FATAL_FAILURE(OutageUnderLoad(address));
  EXPECT_EQ(khetds_.back()->process().pid(), pid) << "khetd was restarted";
  EXPECT_FALSE(khetds_.back()->process().Wait(absl::ZeroDuration()))
      << "khetd exited";
  CheckAcked(address);
  CheckAckedAfresh();
}

TEST_F(PostgresOutageTest, ReplicasBehindNginxFailFastAndRecover) {
  std::vector<std::string> addresses;
  for (int i = 0; i < 2; ++i) {
    addresses.push_back(absl::StrCat("127.0.0.1:", FreePort()));
    khetds_.push_back(StartKhetd(absl::StrCat(i), addresses.back()));
    ASSERT_NE(khetds_.back(), nullptr);
  }
  absl::StatusOr<std::unique_ptr<Nginx>> nginx = Nginx::Start(dir_, addresses);
  ASSERT_TRUE(nginx.ok()) << nginx.status();
  nginx_ = *std::move(nginx);
  ASSERT_NO_FATAL_FAILURE(OutageUnderLoad(nginx_->address(), addresses));
  for (auto& khetd : khetds_) {
    EXPECT_FALSE(khetd->process().Wait(absl::ZeroDuration()))
        << "a replica exited";
  }
  // Each replica has every move, whichever replica played it.
  for (const std::string& address : addresses) CheckAcked(address);
  CheckAckedAfresh();
}

}  // namespace
}  // namespace khet::faults
