// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// MakeMoveLater through SessionService, on a store whose writes are
// held until the test lets them go: the answer waits for the write, every
// other reader and writer of the session waits too, a failed write is
// handed back to be redone, and whatever needs a thread that may wait is
// refused without a change.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "service/base/mutex.h"
#include "service/base/status_or_matchers.h"
#include "service/core/service_test_fixture.h"
#include "service/core/session_service.h"

namespace khet {
namespace {

class MoveLaterTest : public ServiceTest {
 protected:
  struct Board {
    std::string id, silver, red;
  };

  // A Classic 2 board with both seats taken, and writes held from now on.
  Board NewBoard() {
    Board b;
    v1::CreateSessionRequest create;
    create.set_name("later");
    create.set_setup_id("classic-2");
    absl::StatusOr<v1::CreateSessionResponse> created =
        service_->CreateSession(create);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return b;
    b.id = created->session().id();
    for (v1::Color c : {v1::SILVER, v1::RED}) {
      v1::JoinSeatRequest join;
      join.set_session_id(b.id);
      join.set_color(c);
      join.set_player_name(c == v1::SILVER ? "Ann" : "Bob");
      absl::StatusOr<v1::JoinSeatResponse> joined = service_->JoinSeat(join);
      EXPECT_TRUE(joined.ok()) << joined.status();
      if (joined.ok()) {
        (c == v1::SILVER ? b.silver : b.red) = joined->player_token();
      }
    }
    store_.HoldLaterUpdates();
    return b;
  }

  static v1::MakeMoveRequest MoveRequest(const Board& b,
                                         const std::string& notation) {
    v1::MakeMoveRequest move;
    move.set_session_id(b.id);
    move.mutable_move()->set_notation(notation);
    return move;
  }

  // What one MakeMoveLater did: whether it took the move, and which of
  // its callbacks ran.
  struct Outcome {
    Mutex mu;
    bool taken = false;
    std::optional<absl::StatusOr<v1::MakeMoveResponse>> answer
        ABSL_GUARDED_BY(mu);
    bool redone ABSL_GUARDED_BY(mu) = false;
  };
  void Later(const v1::MakeMoveRequest& request, const std::string& token,
             Outcome& out) {
    out.taken = service_->MakeMoveLater(
        request, Caller{token},
        [&out](absl::StatusOr<v1::MakeMoveResponse> reply) {
          MutexLock lock(&out.mu);
          out.answer = std::move(reply);
        },
        [&out] {
          MutexLock lock(&out.mu);
          out.redone = true;
        });
  }
};

TEST_F(MoveLaterTest, TheAnswerAndEveryReaderWaitForTheWrite) {
  const Board b = NewBoard();
  const int64_t before = GetSession(b.id).version();
  Outcome out;
  Later(MoveRequest(b, "j5L"), b.silver, out);
  ASSERT_TRUE(out.taken);
  {
    MutexLock lock(&out.mu);
    EXPECT_FALSE(out.answer.has_value());  // the write is held
  }
  EXPECT_EQ(store_.inner.GetVersion(b.id).value(), before);
  // A reader of the session waits for the write's answer.
  std::atomic<bool> read = false;
  std::atomic<int64_t> read_version = 0;
  std::thread reader([&] {
    read_version = GetSession(b.id).version();
    read = true;
  });
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_FALSE(read);
  EXPECT_EQ(store_.ReleaseLater(), 1);
  reader.join();
  EXPECT_EQ(read_version, before + 1);
  MutexLock lock(&out.mu);
  ASSERT_TRUE(out.answer.has_value());
  ASSERT_OK(*out.answer);
  const v1::MakeMoveResponse& reply = **out.answer;
  EXPECT_EQ(reply.version(), before + 1);
  EXPECT_EQ(reply.move().notation(), "j5L");
  // The reply is the one a waiting MakeMove makes: the board as held.
  EXPECT_EQ(reply.board().SerializeAsString(),
            GetSession(b.id).board().SerializeAsString());
  EXPECT_FALSE(out.redone);
  // Stored and published as any move is.
  EXPECT_EQ(store_.inner.GetVersion(b.id).value(), before + 1);
  EXPECT_TRUE(EventsAfter(b.id, before).back().has_move_made());
}

TEST_F(MoveLaterTest, AFailedWriteIsRedoneOnTheSessionReadBack) {
  const Board b = NewBoard();
  const int64_t before = GetSession(b.id).version();
  Outcome out;
  Later(MoveRequest(b, "j5L"), b.silver, out);
  ASSERT_TRUE(out.taken);
  store_.fail_writes = true;
  EXPECT_EQ(store_.ReleaseLater(), 1);
  {
    MutexLock lock(&out.mu);
    EXPECT_TRUE(out.redone);
    EXPECT_FALSE(out.answer.has_value());
  }
  // Nothing of the move stays: the session is read back before it is
  // used, and the move played again (as the caller's redo does) is played
  // once.
  store_.fail_writes = false;
  EXPECT_EQ(GetSession(b.id).version(), before);
  absl::StatusOr<v1::MakeMoveResponse> redone =
      service_->MakeMove(MoveRequest(b, "j5L"), Caller{b.silver});
  ASSERT_OK(redone);
  EXPECT_EQ(GetSession(b.id).version(), before + 1);
  EXPECT_EQ(GetSession(b.id).moves_size(), 1);
}

TEST_F(MoveLaterTest, WhatNeedsAThreadThatMayWaitIsLeftUntouched) {
  const Board b = NewBoard();
  const int64_t before = GetSession(b.id).version();
  // Refusals (another's turn, an illegal move, a wrong token) are left to
  // MakeMove, which answers them; so is an unknown session.
  for (const auto& [notation, token] :
       {std::pair<std::string, std::string>{"e5-f6", b.red},
        {"a1-a9", b.silver},
        {"j5L", "not-a-token"}}) {
    Outcome out;
    Later(MoveRequest(b, notation), token, out);
    EXPECT_FALSE(out.taken) << notation;
  }
  Outcome unknown;
  v1::MakeMoveRequest nowhere = MoveRequest(b, "j5L");
  nowhere.set_session_id("nowhere");
  Later(nowhere, b.silver, unknown);
  EXPECT_FALSE(unknown.taken);
  // A request that fails its first checks is answered at once.
  Outcome bad;
  v1::MakeMoveRequest long_id = MoveRequest(b, "j5L");
  long_id.set_request_id(std::string(10'000, 'x'));
  Later(long_id, b.silver, bad);
  ASSERT_TRUE(bad.taken);
  {
    MutexLock lock(&bad.mu);
    ASSERT_TRUE(bad.answer.has_value());
    EXPECT_EQ(bad.answer->status().code(), absl::StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(store_.ReleaseLater(), 0);
  EXPECT_EQ(GetSession(b.id).version(), before);

  // A retry of a kept answer is left to MakeMove (it may read the
  // store), and a move while another's write is in flight waits there too.
  v1::MakeMoveRequest kept = MoveRequest(b, "j5L");
  kept.set_request_id("first");
  Outcome first;
  Later(kept, b.silver, first);
  ASSERT_TRUE(first.taken);
  Outcome second;
  Later(MoveRequest(b, "e5-f6"), b.red, second);
  EXPECT_FALSE(second.taken);  // the first is being written
  EXPECT_EQ(store_.ReleaseLater(), 1);
  Outcome retry;
  Later(kept, b.silver, retry);
  EXPECT_FALSE(retry.taken);
  EXPECT_EQ(GetSession(b.id).version(), before + 1);
}

}  // namespace
}  // namespace khet
