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
#include <filesystem>
#include <map>
#include <memory>
#include <string>
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
        {"--store=postgres", "--postgres_url=" + pg_->conninfo(),
         "--listen=" + address},
        absl::StrCat(dir_, "/khetd-", name, ".log"), {});
    EXPECT_TRUE(khetd.ok()) << khetd.status();
    return khetd.ok() ? *std::move(khetd) : nullptr;
  }

  // The players play through `address` (a khetd or nginx): a while with
  // the database up, 20 s with it stopped, then with it up again.
  void OutageUnderLoad(const std::string& address) {
    Load load(address, &ledger_, kPlayers, {.max_plies = 40, .name = "p"},
              absl::Milliseconds(20));
    absl::SleepFor(absl::Seconds(2));
    const int64_t before = ledger_.acked();
    ASSERT_GT(before, 0) << Summary(load.Outcomes());

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
    absl::SleepFor(absl::Seconds(2));
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
                            (o.call == "JoinSeat" &&
                             o.code == grpc::StatusCode::FAILED_PRECONDITION);
      EXPECT_TRUE(expected)
          << o.call << " " << CodeName(o.code) << ": " << o.message;
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
              << " after the start\n  while down: " << Summary(while_down)
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
  ASSERT_NO_FATAL_FAILURE(OutageUnderLoad(nginx_->address()));
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
