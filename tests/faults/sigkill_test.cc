// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd SIGKILLed 100 times under load on each durable store (label
// `faults`): four players move through a real khetd on a fixed loopback
// port, retrying what was cut off with the same request id; at a random
// moment khetd is killed, started again on the same port and store, and
// timed from the spawn to its first successful call (GetSession of a game
// in play). After every restart each move khetd ever acknowledged must be
// stored at its ply: 0 lost. Restarts must serve within a second at the
// median (kServingBound, kSlowestBound below); the test prints the median
// and the highest.
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "service/store/postgres_testing.h"
#include "tests/faults/fault_harness.h"
#include "tests/support/khetd_child.h"
#include "tests/support/text_file.h"

#ifndef KHETD_PATH
#error "KHETD_PATH must name the khetd binary"
#endif

namespace khet::faults {
namespace {

constexpr int kKills = 100;
constexpr int kPlayers = 4;
// A restart, from the spawn to the first successful call: the target is a
// second, which the median must meet. A single restart may take longer
// when other programs load the machine (a CI run beside OpenSimulator
// regions saw 1.07 s once), so the slowest is held only to kSlowestBound,
// which still catches a restart that hangs; both are printed.
constexpr absl::Duration kServingBound = absl::Seconds(1);
constexpr absl::Duration kSlowestBound = absl::Seconds(5);

// "median M, max X" of `durations`, to a tenth of a millisecond.
std::string MedianAndMax(const std::vector<absl::Duration>& durations) {
  return absl::StrCat("median ",
                      absl::FormatDuration(absl::Trunc(
                          Median(durations), absl::Microseconds(100))),
                      ", max ",
                      absl::FormatDuration(absl::Trunc(
                          Max(durations), absl::Microseconds(100))));
}

class SigkillTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("khet_sigkill");
    ASSERT_FALSE(dir_.empty());
    address_ = absl::StrCat("127.0.0.1:", FreePort());
  }

  void TearDown() override {
    khetd_.reset();
    if (HasFailure()) {
      const std::string log = ReadTextFile(dir_ + "/khetd.log");
      // The end of it: the last restarts.
      std::cerr << "---- khetd log (its end)\n"
                << log.substr(log.size() > 20000 ? log.size() - 20000 : 0);
    } else {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
    }
  }

  // khetd on the test's port with `store_flags`, its log appended to one
  // file over all restarts; a fatal failure if it does not start.
  void StartKhetd() {
    absl::StatusOr<std::unique_ptr<KhetdChild>> khetd =
        KhetdChild::Start(KHETD_PATH, store_flags_, dir_ + "/khetd.log", {});
    ASSERT_TRUE(khetd.ok()) << khetd.status();
    khetd_ = *std::move(khetd);
  }

  // The kills under load, the checks after each restart, the figures.
  void KillUnderLoad(const std::string& store) {
    store_flags_.push_back("--listen=" + address_);
    store_flags_ = WithoutBudgets(store_flags_);
    ASSERT_NO_FATAL_FAILURE(StartKhetd());
    Ledger ledger;
    Load load(address_, &ledger, kPlayers,
              {.max_plies = 40, .resign = true, .name = store},
              absl::Milliseconds(5));
    const unsigned seed = std::random_device()();
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> load_ms(30, 200);
    std::vector<absl::Duration> restarts;
    std::vector<absl::Duration> resumes;  // check done to the next move
    int64_t acked_before = 0;
    int64_t checked = 0;  // ledger.acked() when the last check began
    int kills_with_progress = 0;
    const absl::Time begun = absl::Now();
    for (int kill = 0; kill < kKills; ++kill) {
      SCOPED_TRACE(absl::StrCat("kill ", kill + 1));
      // The players are moving again (their calls wait for the new khetd;
      // at most 2 s) before a random moment of load: a kill before any
      // move since the restart would test nothing.
      const int64_t resumed_from = ledger.acked();
      const absl::Time waiting = absl::Now();
      while (ledger.acked() == resumed_from &&
             absl::Now() < waiting + absl::Seconds(2)) {
        absl::SleepFor(absl::Milliseconds(2));
      }
      resumes.push_back(absl::Now() - waiting);
      absl::SleepFor(absl::Milliseconds(load_ms(random)));
      khetd_->process().Signal(SIGKILL);
      ASSERT_EQ(khetd_->process().Wait(absl::Seconds(30)), 128 + SIGKILL);
      const int64_t acked = ledger.acked();
      if (acked > acked_before) ++kills_with_progress;
      acked_before = acked;
      const AckedMoves snapshot = ledger.Snapshot();
      const std::string probe =
          snapshot.empty() ? "" : snapshot.rbegin()->first;
      const absl::Time spawned = absl::Now();
      khetd_.reset();
      ASSERT_NO_FATAL_FAILURE(StartKhetd());
      absl::StatusOr<absl::Duration> serving =
          WaitServing(address_, probe, spawned, absl::Seconds(30));
      ASSERT_TRUE(serving.ok()) << serving.status();
      restarts.push_back(*serving);
      // Every move of the sessions played since the last check, whole
      // (every tenth time, of all sessions): those acknowledged before the
      // kill, and since.
      const int64_t checked_from = checked;
      checked = ledger.acked();
      const std::vector<std::string> lost =
          CheckAcknowledged(address_,
                            kill % 10 == 9 ? ledger.Snapshot()
                                           : ledger.SnapshotSince(checked_from),
                            /*exact=*/false);
      ASSERT_TRUE(lost.empty()) << absl::StrJoin(lost, "\n");
    }
    load.Stop();
    const std::vector<std::string> lost =
        CheckAcknowledged(address_, ledger.Snapshot(), /*exact=*/false);
    EXPECT_TRUE(lost.empty()) << absl::StrJoin(lost, "\n");
    const std::vector<CallOutcome> outcomes = load.Outcomes();
    // Only the kills' own errors: a call cut off or refused while khetd
    // was down (UNAVAILABLE, or CANCELLED / UNKNOWN / INTERNAL for a
    // stream reset mid-call), a move whose retry found it played already
    // (ABORTED: the player reads the session again), a seat whose retried
    // join found it taken by the join cut off, a resignation retried after
    // the game ended by the one cut off (FAILED_PRECONDITION: the player
    // reads the session or starts a new board).
    int unexpected = 0;
    for (const CallOutcome& o : outcomes) {
      if ((o.call == "JoinSeat" || o.call == "Resign") &&
          o.code == grpc::StatusCode::FAILED_PRECONDITION) {
        continue;
      }
      switch (o.code) {
        case grpc::StatusCode::OK:
        case grpc::StatusCode::UNAVAILABLE:
        case grpc::StatusCode::CANCELLED:
        case grpc::StatusCode::UNKNOWN:
        case grpc::StatusCode::INTERNAL:
        case grpc::StatusCode::ABORTED:
          break;
        default:
          ++unexpected;
      }
    }
    EXPECT_EQ(unexpected, 0) << Summary(outcomes);
    EXPECT_GE(kills_with_progress, kKills * 9 / 10)
        << "the players made too little progress between kills: "
        << Summary(outcomes);
    EXPECT_LT(Median(restarts), kServingBound)
        << "max " << absl::FormatDuration(Max(restarts));
    EXPECT_LT(Max(restarts), kSlowestBound)
        << "median " << absl::FormatDuration(Median(restarts));
    RecordProperty("acknowledged_moves", static_cast<int>(ledger.acked()));
    RecordProperty(
        "restart_median_ms",
        static_cast<int>(absl::ToInt64Milliseconds(Median(restarts))));
    RecordProperty("restart_max_ms",
                   static_cast<int>(absl::ToInt64Milliseconds(Max(restarts))));
    std::cerr << store << ": " << kKills << " SIGKILLs in "
              << absl::FormatDuration(
                     absl::Trunc(absl::Now() - begun, absl::Milliseconds(100)))
              << ", " << ledger.acked() << " moves acknowledged, 0 lost; "
              << "spawn to first call: " << MedianAndMax(restarts)
              << "; check done to the players' next move: "
              << MedianAndMax(resumes) << "\n  calls: " << Summary(outcomes)
              << "\n";
  }

  std::string dir_;
  std::string address_;
  std::vector<std::string> store_flags_;
  std::unique_ptr<KhetdChild> khetd_;
};

TEST_F(SigkillTest, SqliteLosesNoAcknowledgedMoveOver100Kills) {
  store_flags_ = {"--store=sqlite", "--data_dir=" + dir_ + "/data"};
  KillUnderLoad("sqlite");
}

TEST_F(SigkillTest, PostgresLosesNoAcknowledgedMoveOver100Kills) {
  std::string skip_reason;
  absl::StatusOr<std::unique_ptr<TestDatabase>> db =
      TestDatabase::Create(&skip_reason);
  ASSERT_TRUE(db.ok()) << db.status();
  if (*db == nullptr) GTEST_SKIP() << skip_reason;
  store_flags_ = {"--store=postgres", "--postgres_url=" + (*db)->conninfo()};
  KillUnderLoad("postgres");
  khetd_.reset();  // before its database goes
}

}  // namespace
}  // namespace khet::faults
