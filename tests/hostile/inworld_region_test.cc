// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A region's boards under khetd's default budgets (issue 29): every script
// of a region reaches khetd from one simulator address, each request with
// its object's X-SecondLife-Object-Key. 50 boards of one region, each
// holding a long poll and moving every couple of seconds, are served
// without one refusal, while a flooder at another address is refused.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/setups.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/hostile/hostile_test_base.h"
#include "tools/load/common/raw_http.h"

namespace khet::hostile {
namespace {

using ::testing::HasSubstr;

constexpr int kBoards = 50;
constexpr int kRounds = 3;
// The simulator host's address: a socket of its own on loopback.
constexpr char kRegion[] = "127.0.0.2";

// A move for the side to move that hits no Pharaoh: the game goes on.
Move QuietMove(const Position& pos) {
  MoveList moves;
  GenerateMoves(pos, &moves);
  for (int i = 0; i < moves.size; ++i) {
    Position child = pos;
    if (MakeMove(&child, moves.moves[i]) == 0) return moves.moves[i];
  }
  return moves.moves[0];
}

// One in-world board: its object key, its session, both seats' tokens, its
// position as played, and its long poll's connection.
struct Board {
  std::string key;
  std::string id;
  std::string tokens[2];  // Silver, Red
  Position position;
  int64_t version = 0;
  std::unique_ptr<RawConnection> poll;
};

class InworldRegionTest : public HostileTest {
 protected:
  // A request of `board`'s, as a script sends it: its object's headers.
  static std::string FromBoard(const Board& board,
                               const std::string& token = "") {
    std::string headers =
        absl::StrCat("X-SecondLife-Object-Key: ", board.key,
                     "\r\nX-SecondLife-Region: Khet Park (256000, 256000)\r\n");
    if (!token.empty())
      absl::StrAppend(&headers, "X-Khet-Token: ", token, "\r\n");
    return headers;
  }

  // Sends `request` from the region's address on a new connection; the
  // answer, which must be 200 (a failure names `what` otherwise).
  nlohmann::json Call(const std::string& request, const std::string& what) {
    absl::StatusOr<RawResponse> answer = Exchange(request, kRegion);
    EXPECT_TRUE(answer.ok()) << what << ": " << answer.status();
    if (!answer.ok()) return nlohmann::json();
    EXPECT_EQ(answer->status, 200) << what << ": " << answer->body;
    if (answer->status != 200) ++failures_;
    return nlohmann::json::parse(answer->body, nullptr, false);
  }

  // Sends the board's next long poll on its own connection.
  void Poll(Board& board) {
    absl::StatusOr<std::unique_ptr<RawConnection>> c =
        RawConnection::Open(http_port(), kRegion);
    ASSERT_TRUE(c.ok()) << c.status();
    board.poll = *std::move(c);
    ASSERT_TRUE(board.poll->Send(GetRequest(
        absl::StrCat("/v1/sessions/", board.id,
                     "/events?afterVersion=", board.version, "&waitSeconds=20"),
        FromBoard(board))));
  }

  int failures_ = 0;
};

TEST_F(InworldRegionTest, FiftyBoardsOfARegionAreServedWhileAFlooderIsNot) {
  // The defaults, but for the trusted proxy the flooder comes through.
  ASSERT_NO_FATAL_FAILURE(
      StartKhetd({"--trusted_proxies=127.0.0.3/32", "--calls_per_second=50",
                  "--calls_burst=100"}));
  std::vector<Board> boards(kBoards);
  for (int i = 0; i < kBoards; ++i) {
    Board& b = boards[i];
    b.key = absl::StrFormat("%08x-0000-4000-8000-%012x", 0xb0a4d000 + i, i);
    b.position = *SetupPosition("classic-2");
    const nlohmann::json created = Call(
        PostRequest("/v1/sessions", R"({"name":"region board"})", FromBoard(b)),
        "CreateSession");
    ASSERT_TRUE(created.is_object());
    b.id = created["session"]["id"];
    for (int seat = 0; seat < 2; ++seat) {
      const nlohmann::json joined = Call(
          PostRequest(absl::StrCat("/v1/sessions/", b.id, ":join"),
                      seat == 0 ? R"({"color":"SILVER","playerName":"ann"})"
                                : R"({"color":"RED","playerName":"bob"})",
                      FromBoard(b)),
          "JoinSeat");
      ASSERT_TRUE(joined.is_object());
      b.tokens[seat] = joined["playerToken"];
      b.version = std::stoll(joined["session"]["version"].get<std::string>());
    }
    ASSERT_NO_FATAL_FAILURE(Poll(b));
  }

  // Meanwhile a flooder at another address, through the trusted proxy.
  std::atomic<bool> stop = false;
  std::atomic<int> flooder_refused = 0;
  std::string refusal;
  std::thread flooder([&] {
    for (int i = 0; i < 5000 && !stop; ++i) {
      absl::StatusOr<RawResponse> answer = Exchange(
          GetRequest("/v1/setups", "X-Forwarded-For: 198.51.100.7\r\n"),
          "127.0.0.3");
      if (answer.ok() && answer->status == 429) {
        if (flooder_refused++ == 0) refusal = answer->body;
      }
    }
  });

  for (int round = 0; round < kRounds; ++round) {
    const absl::Time started = absl::Now();
    for (Board& b : boards) {
      const Move move = QuietMove(b.position);
      const int side = b.position.side_to_move() == Color::kSilver ? 0 : 1;
      const nlohmann::json moved =
          Call(PostRequest(absl::StrCat("/v1/sessions/", b.id, ":move"),
                           absl::StrCat(R"({"move":{"notation":")",
                                        FormatMove(b.position, move), R"("}})"),
                           FromBoard(b, b.tokens[side])),
               "MakeMove");
      ASSERT_TRUE(moved.is_object());
      MakeMove(&b.position, move);
      // The board's own poll answers with the move.
      absl::StatusOr<RawResponse> events = b.poll->Read(absl::Seconds(30));
      ASSERT_TRUE(events.ok()) << events.status();
      EXPECT_EQ(events->status, 200) << events->body;
      if (events->status != 200) ++failures_;
      const nlohmann::json answered = nlohmann::json::parse(events->body);
      b.version = std::stoll(answered["version"].get<std::string>());
      ASSERT_NO_FATAL_FAILURE(Poll(b));
    }
    // A move a board every two seconds or so.
    absl::SleepFor(started + absl::Seconds(2) - absl::Now());
  }
  stop = true;
  flooder.join();

  EXPECT_EQ(failures_, 0);
  EXPECT_GT(flooder_refused, 0);
  EXPECT_THAT(refusal, HasSubstr("too many calls from 198.51.100.7"));
  EXPECT_FALSE(LogHas("in-world object", absl::ZeroDuration()))
      << "a board was refused: " << khetd().log().substr(0, 2000);
}

}  // namespace
}  // namespace khet::hostile
