// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The compact view: the laser path format, the 2048-byte bound on the
// largest real answers (beam splitters, crowded custom positions, the
// longest names), and how an answer is cut when it would not fit.
#include "service/http/compact_view.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/laser.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/setups.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "service/core/session_service.h"
#include "service/http/compact_moves.h"
#include "service/http/compact_size_cases.h"
#include "service/store/memory_store.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

using json = nlohmann::json;
using ::testing::EndsWith;
using ::testing::HasSubstr;

v1::LaserShot Shot(std::string_view setup, Color shooter) {
  const Position pos = SetupPosition(setup).value();
  return ShotToProto(TraceLaser(pos, shooter), pos.edition());
}

TEST(CompactLaserTest, Examples) {
  EXPECT_EQ(CompactLaser(Shot("classic-2", Color::kSilver)), "j1j4h4h5j5j8N");
  EXPECT_EQ(CompactLaser(Shot("osiris", Color::kSilver)),
            "j1j4f4y f4f1S f4e4e5y e5f5f4y e5e8N f4e4o f4f1S");
  // Khet 1.0: the emitter below j1 is drawn from j1.
  EXPECT_THAT(CompactLaser(Shot("classic-1", Color::kSilver)),
              ::testing::StartsWith("j1"));
  EXPECT_EQ(CompactLaser(v1::LaserShot()), "");
}

// Reads a path string back and checks it against the shot: one beam per
// beam, straight runs between points, the ending letter and square.
// A path cut short (ending in "+") must match the shot's first beams.
void ExpectPathMatches(const std::string& path, const v1::LaserShot& shot) {
  std::vector<std::string> beams = absl::StrSplit(path, ' ', absl::SkipEmpty());
  if (!beams.empty() && beams.back() == "+") {
    beams.pop_back();
    ASSERT_LT(beams.size(), static_cast<size_t>(shot.beams_size())) << path;
  } else {
    ASSERT_EQ(beams.size(), static_cast<size_t>(shot.beams_size())) << path;
  }
  for (size_t i = 0; i < beams.size(); ++i) {
    const std::string& beam = beams[i];
    ASSERT_EQ(beam.size() % 2, 1u) << beam;
    ASSERT_GE(beam.size(), 3u) << beam;
    for (size_t k = 0; k + 3 < beam.size(); k += 2) {
      const char f0 = beam[k], r0 = beam[k + 1], f1 = beam[k + 2],
                 r1 = beam[k + 3];
      EXPECT_TRUE(f0 >= 'a' && f0 <= 'j' && r0 >= '1' && r0 <= '8') << beam;
      EXPECT_TRUE(f0 == f1 || r0 == r1) << "not straight: " << beam;
    }
    const v1::Beam& b = shot.beams(static_cast<int>(i));
    const std::string last = beam.substr(beam.size() - 3, 2);
    const char end = beam.back();
    if (b.end() == v1::LEFT_BOARD) {
      EXPECT_THAT("NESW", HasSubstr(std::string(1, end))) << beam;
      const bool on_edge =
          (end == 'N' && last[1] == '8') || (end == 'S' && last[1] == '1') ||
          (end == 'E' && last[0] == 'j') || (end == 'W' && last[0] == 'a');
      EXPECT_TRUE(on_edge) << beam;
    } else {
      EXPECT_EQ(last, b.end_square()) << beam;
      const std::string letters = "xabyo";
      EXPECT_EQ(end, letters[static_cast<int>(b.end()) - 2]) << beam;
    }
  }
}

TEST(CompactLaserTest, EverySetupsLasersReadBack) {
  for (const SetupInfo& setup : AllSetups()) {
    for (const Color shooter : {Color::kSilver, Color::kRed}) {
      SCOPED_TRACE(absl::StrCat(std::string(setup.id), " ",
                                shooter == Color::kSilver ? "silver" : "red"));
      const v1::LaserShot shot = Shot(setup.id, shooter);
      ExpectPathMatches(CompactLaser(shot), shot);
    }
  }
}

class CompactSizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServiceOptions options;
    options.store = &store_;
    core_ = SessionService::Create(options).value();
  }

  // A new session on `setup_or_position` with both seats taken by players
  // with the longest names; its id and the two tokens.
  struct Game {
    std::string id, silver, red;
  };
  Game NewGame(const std::string& setup, const std::string& position) {
    v1::CreateSessionRequest create;
    create.set_name(LongName("\xf0\x9f\x90\x8d\""));  // a snake, a quote
    create.set_setup_id(setup);
    create.set_position(position);
    const v1::CreateSessionResponse created =
        core_->CreateSession(create).value();
    Game game;
    game.id = created.session().id();
    const std::string what = setup.empty() ? "a custom position" : setup;
    Measure(CompactCreated(created), what, largest_created_,
            largest_created_case_);
    EXPECT_EQ(json::parse(CompactCreated(created))["owner"],
              created.owner_token());
    for (const v1::Color color : {v1::SILVER, v1::RED}) {
      v1::JoinSeatRequest join;
      join.set_session_id(game.id);
      join.set_color(color);
      join.set_player_name(LongName(
          color == v1::SILVER ? "\xf0\x9f\x90\x8d\\" : "\xf0\x9f\xa6\x82\""));
      const v1::JoinSeatResponse joined = core_->JoinSeat(join).value();
      Measure(CompactJoined(joined), what, largest_joined_,
              largest_joined_case_);
      EXPECT_EQ(json::parse(CompactJoined(joined))["token"],
                joined.player_token());
      (color == v1::SILVER ? game.silver : game.red) = joined.player_token();
    }
    return game;
  }

  // Plays `notation` and measures the compact reply, session and events.
  // With `whole`, nothing may be cut; else only beyond the floors of the
  // bound (the announcement keeps its start, the position is whole).
  void Play(const Game& game, const std::string& notation,
            const std::string& what, bool whole) {
    v1::MakeMoveRequest move;
    move.set_session_id(game.id);
    move.mutable_move()->set_notation(notation);
    const v1::GetSessionRequest get_request = [&] {
      v1::GetSessionRequest r;
      r.set_session_id(game.id);
      return r;
    }();
    const v1::Session before = core_->GetSession(get_request).value();
    const std::string& token =
        before.board().side_to_move() == v1::SILVER ? game.silver : game.red;
    absl::StatusOr<v1::MakeMoveResponse> reply =
        core_->MakeMove(move, Caller{token});
    ASSERT_TRUE(reply.ok()) << reply.status();
    const std::string compact = CompactMoveReply(*reply);
    Measure(compact, what, largest_reply_, largest_reply_case_);
    const json parsed = json::parse(compact);
    const std::string full_laser = CompactLaser(reply->shot());
    longest_laser_ = std::max(longest_laser_, full_laser.size());
    EXPECT_EQ(parsed["pos"], reply->board().position());
    ExpectPathMatches(parsed["laser"], reply->shot());
    const bool over = parsed["st"] == "F";
    EXPECT_EQ(parsed.contains("lm"), !over) << what;
    if (whole) {
      EXPECT_EQ(parsed["laser"], full_laser) << what;
      EXPECT_EQ(parsed["ann"], reply->announcement()) << what;
      if (!over) {
        EXPECT_EQ(parsed["lm"], CompactMoveList(reply->board().position()))
            << what;
      }
    } else {
      ExpectAnnouncementKept(parsed["ann"], reply->announcement());
      if (parsed["laser"] != full_laser) ++cut_lasers_;
    }

    Measure(CompactSession(core_->GetSession(get_request).value()), what,
            largest_session_, largest_session_case_);
    v1::WatchRequest watch;
    watch.set_session_id(game.id);
    watch.set_after_version(before.version());
    std::unique_ptr<EventStream> stream = core_->Watch(watch).value();
    std::vector<v1::Event> events;
    while (true) {
      absl::StatusOr<std::optional<v1::Event>> next =
          stream->Next(absl::ZeroDuration());
      if (!next.ok() || !next->has_value()) break;
      Measure(CompactEvent(**next), what, largest_event_, largest_event_case_);
      const json event = json::parse(CompactEvent(**next));
      if (whole) {
        EXPECT_EQ(event["ann"], (*next)->announcement()) << what;
      } else {
        ExpectAnnouncementKept(event["ann"], (*next)->announcement());
      }
      events.push_back(**next);
    }
    const CompactEventList list = CompactEvents(events, before.version());
    EXPECT_GE(list.count, 1);
    Measure(list.json, what, largest_poll_, largest_poll_case_);
  }

  void Report() const {
    std::cout << "largest compact move reply: " << largest_reply_ << " bytes ("
              << largest_reply_case_ << ")\n"
              << "largest compact event: " << largest_event_ << " bytes ("
              << largest_event_case_ << ")\n"
              << "largest compact long poll: " << largest_poll_ << " bytes ("
              << largest_poll_case_ << ")\n"
              << "largest compact session: " << largest_session_ << " bytes ("
              << largest_session_case_ << ")\n"
              << "largest compact created session: " << largest_created_
              << " bytes (" << largest_created_case_ << ")\n"
              << "largest compact seat taken: " << largest_joined_ << " bytes ("
              << largest_joined_case_ << ")\n"
              << "longest laser path: " << longest_laser_ << " bytes; "
              << cut_lasers_ << " cut to fit\n";
  }

  // The whole announcement, or its start (160 bytes of JSON) and "...".
  static void ExpectAnnouncementKept(const std::string& kept,
                                     const std::string& announcement) {
    if (kept == announcement) return;
    EXPECT_THAT(kept, EndsWith("..."));
    EXPECT_GE(kept.size(), 100u);
    EXPECT_EQ(announcement.substr(0, kept.size() - 3),
              kept.substr(0, kept.size() - 3));
  }

  static void Measure(const std::string& compact, const std::string& what,
                      size_t& largest, std::string& largest_case) {
    EXPECT_LE(compact.size(), kCompactLimit) << what;
    if (compact.size() > largest) {
      largest = compact.size();
      largest_case = what;
    }
  }

  MemoryStore store_;
  std::unique_ptr<SessionService> core_;
  size_t largest_reply_ = 0, largest_session_ = 0, largest_event_ = 0,
         largest_poll_ = 0, largest_created_ = 0, largest_joined_ = 0,
         longest_laser_ = 0;
  int cut_lasers_ = 0;
  std::string largest_reply_case_, largest_session_case_, largest_event_case_,
      largest_poll_case_, largest_created_case_, largest_joined_case_;
};

// Every first move of every setup, with the longest names: every answer
// fits in 2048 bytes whole.
TEST_F(CompactSizeTest, EverySetupsFirstMovesFitWhole) {
  for (const SetupInfo& setup : AllSetups()) {
    const Position start = SetupPosition(setup.id).value();
    MoveList moves;
    GenerateMoves(start, &moves);
    for (const Move m : moves) {
      const Game game = NewGame(std::string(setup.id), "");
      Play(game, FormatMove(start, m),
           absl::StrCat(std::string(setup.id), " ", FormatMove(start, m)),
           /*whole=*/true);
    }
  }
  Report();
}

// Whole random games on the beam-splitter setups: every answer fits whole.
TEST_F(CompactSizeTest, RandomGamesWithEyesFitWhole) {
  std::mt19937 random(11);
  for (const std::string setup : {"osiris", "isis"}) {
    for (int round = 0; round < 2; ++round) {
      const Game game = NewGame(setup, "");
      Position pos = SetupPosition(setup).value();
      for (int ply = 0; ply < 80; ++ply) {
        MoveList moves;
        GenerateMoves(pos, &moves);
        const Move m = moves.moves[std::uniform_int_distribution<int>(
            0, moves.size - 1)(random)];
        const std::string notation = FormatMove(pos, m);
        Play(game, notation, absl::StrCat(setup, " ply ", ply, " ", notation),
             /*whole=*/true);
        if (HasFailure()) return;
        if (MakeMove(&pos, m) != 0) break;  // a Pharaoh was hit
      }
    }
  }
  Report();
}

// Boards crowded with Eyes whose lasers split into hundreds of beams (the
// longest paths a hill climb finds): the answers still fit, cut as the
// bound says.
TEST_F(CompactSizeTest, MonstrousLasersAreCutToFit) {
  for (uint32_t seed = 1; seed <= 1; ++seed) {
    const std::string text = LongLaserSearch(seed).Climb(2000);
    const Position start = ParsePosition(text).value();
    MoveList moves;
    GenerateMoves(start, &moves);
    int i = 0;
    for (const Move m : moves) {
      if (i++ % 20 != 0) continue;
      const Game game = NewGame("", text);
      Play(game, FormatMove(start, m),
           absl::StrCat("'", text, "' ", FormatMove(start, m)),
           /*whole=*/false);
    }
  }
  EXPECT_GT(cut_lasers_, 0);
  Report();
}

v1::MakeMoveResponse SampleReply() {
  v1::MakeMoveResponse reply;
  reply.set_version(12);
  reply.mutable_move()->set_notation("j1L");
  *reply.mutable_shot() = Shot("osiris", Color::kSilver);
  *reply.mutable_board() = BoardToProto(SetupPosition("osiris").value());
  reply.mutable_result()->set_outcome(v1::ONGOING);
  reply.set_announcement("Silver plays j1L.");
  return reply;
}

TEST(CompactCutTest, ALongAnnouncementIsShortenedFirst) {
  v1::MakeMoveResponse reply = SampleReply();
  std::string announcement;
  for (int i = 0; i < 1000; ++i) announcement += "\xc3\xa9\"";  // é and a quote
  reply.set_announcement(announcement);
  const std::string compact = CompactMoveReply(reply);
  EXPECT_LE(compact.size(), kCompactLimit);
  EXPECT_GE(compact.size(), kCompactLimit - 8);  // it uses the room it has
  const json parsed = json::parse(compact);      // still valid UTF-8 and JSON
  EXPECT_THAT(parsed["ann"].get<std::string>(), EndsWith("..."));
  EXPECT_EQ(parsed["laser"], CompactLaser(reply.shot()));
  EXPECT_EQ(parsed["pos"], reply.board().position());
}

TEST(CompactCutTest, AnOverlongLaserLosesItsLastBeams) {
  v1::MakeMoveResponse reply = SampleReply();
  v1::LaserShot& shot = *reply.mutable_shot();
  // 400 more beams like beam 1, "f4f1S".
  const v1::Beam beam = shot.beams(1);
  v1::BeamSegment segment;
  for (const v1::BeamSegment& s : shot.segments()) {
    if (s.beam_id() == 1) segment = s;
  }
  for (int i = 0; i < 400; ++i) {
    v1::Beam& added = *shot.add_beams();
    added = beam;
    added.set_id(shot.beams_size() - 1);
    *shot.add_segments() = segment;
    shot.mutable_segments(shot.segments_size() - 1)->set_beam_id(added.id());
  }
  const std::string compact = CompactMoveReply(reply);
  EXPECT_LE(compact.size(), kCompactLimit);
  const json parsed = json::parse(compact);
  EXPECT_THAT(parsed["laser"].get<std::string>(),
              ::testing::StartsWith("j1j4f4y f4f1S"));
  EXPECT_THAT(parsed["laser"].get<std::string>(), EndsWith(" +"));
  EXPECT_EQ(parsed["lm"], "+");                   // gave way before the laser
  EXPECT_EQ(parsed["ann"], "Silver plays j1L.");  // short: kept
  EXPECT_EQ(parsed["pos"], reply.board().position());
}

TEST(CompactEventsTest, PacksWhatFitsAndAtLeastOne) {
  std::vector<v1::Event> events;
  for (int i = 1; i <= 32; ++i) {
    v1::Event event;
    event.set_version(i);
    v1::MoveMade& made = *event.mutable_move_made();
    made.set_mover(v1::SILVER);
    *made.mutable_move() = SampleReply().move();
    *made.mutable_shot() = SampleReply().shot();
    *made.mutable_board() = SampleReply().board();
    event.set_announcement(std::string(300, 'a'));
    events.push_back(event);
  }
  const CompactEventList list = CompactEvents(events, 0);
  EXPECT_LE(list.json.size(), kCompactLimit);
  EXPECT_GE(list.count, 2);
  EXPECT_LT(list.count, 32);
  const json parsed = json::parse(list.json);
  EXPECT_EQ(parsed["events"].size(), static_cast<size_t>(list.count));
  EXPECT_EQ(parsed["v"], list.count);
  EXPECT_EQ(parsed["more"], true);
  EXPECT_EQ(parsed["events"][0]["kind"], "move");
  EXPECT_EQ(parsed["events"][0]["by"], "s");

  events[0].set_announcement(std::string(5000, 'b'));
  const CompactEventList one = CompactEvents({events[0]}, 0);
  EXPECT_EQ(one.count, 1);
  EXPECT_LE(one.json.size(), kCompactLimit);
  EXPECT_EQ(json::parse(one.json)["more"], false);

  const CompactEventList full_batch = CompactEvents({events[1]}, 0, true);
  EXPECT_EQ(json::parse(full_batch.json)["more"], true);

  const CompactEventList none = CompactEvents({}, 7);
  EXPECT_EQ(none.json, R"({"v":7,"events":[],"more":false})");
}

TEST(CompactEventsTest, EveryKind) {
  v1::Event seat;
  seat.set_version(1);
  seat.mutable_seat_changed()->mutable_seat()->set_color(v1::RED);
  seat.mutable_seat_changed()->mutable_seat()->set_player_name("bob");
  seat.mutable_seat_changed()->set_joined(true);
  EXPECT_EQ(CompactEvent(seat),
            R"({"v":1,"kind":"seat","color":"r","name":"bob","joined":true,)"
            R"("computer":0,"ann":""})");
  v1::Event over;
  over.set_version(9);
  over.mutable_game_over()->mutable_result()->set_outcome(v1::RED_WINS);
  over.mutable_game_over()->mutable_result()->set_reason(v1::RESIGNATION);
  over.set_announcement("Silver resigns.");
  EXPECT_EQ(CompactEvent(over),
            R"({"v":9,"kind":"over","res":"R","why":"resignation",)"
            R"("ann":"Silver resigns."})");
  v1::Event reset;
  reset.set_version(10);
  reset.mutable_game_reset()->set_timed_out(true);
  EXPECT_EQ(CompactEvent(reset),
            R"({"v":10,"kind":"reset","timedOut":true,"ann":""})");
  v1::Event settings;
  settings.set_version(11);
  settings.mutable_settings_changed()->mutable_settings()->set_color_scheme(
      "nile");
  settings.mutable_settings_changed()->mutable_settings()->set_scale_meters(
      2.5);
  EXPECT_EQ(CompactEvent(settings),
            R"({"v":11,"kind":"settings","scheme":"nile","quiet":false,)"
            R"("scale":2.5,"lang":"en","hints":true,"ann":""})");
  v1::Event deleted;
  deleted.set_version(12);
  deleted.mutable_session_deleted();
  EXPECT_EQ(CompactEvent(deleted), R"({"v":12,"kind":"deleted","ann":""})");
}

// A board follows the session's language and hints from GetSession and
// from each settings event.
TEST(CompactSettingsTest, LanguageAndHintsAsSet) {
  v1::Session session;
  v1::Settings* settings = session.mutable_settings();
  settings->set_color_scheme("royal");
  settings->set_quiet(true);
  settings->set_scale_meters(6);
  settings->set_language("de");
  settings->set_hints_off(true);
  const json compact = json::parse(CompactSession(session));
  EXPECT_EQ(compact["scheme"], "royal");
  EXPECT_EQ(compact["quiet"], true);
  EXPECT_EQ(compact["scale"], 6);
  EXPECT_EQ(compact["lang"], "de");
  EXPECT_EQ(compact["hints"], false);

  v1::Event event;
  event.set_version(3);
  *event.mutable_settings_changed()->mutable_settings() = *settings;
  EXPECT_EQ(CompactEvent(event),
            R"({"v":3,"kind":"settings","scheme":"royal","quiet":true,)"
            R"("scale":6,"lang":"de","hints":false,"ann":""})");
}

// Reads "lm" back into move notations: "j4-j3-i3R" is j4-j3, j4-i3, j4R.
std::vector<std::string> ExpandMoveList(const std::string& lm) {
  std::vector<std::string> out;
  for (absl::string_view entry : absl::StrSplit(lm, ' ', absl::SkipEmpty())) {
    const std::string from(entry.substr(0, 2));
    size_t i = 2;
    while (i < entry.size()) {
      const char c = entry[i];
      const size_t n = (c == 'R' || c == 'L') ? 1 : 3;
      out.push_back(absl::StrCat(from, entry.substr(i, n)));
      i += n;
    }
  }
  return out;
}

// On every setup's start and after each of its first moves, "lm" reads back
// to exactly the engine's legal moves, in its order.
TEST(CompactMovesTest, ReadsBackToEveryLegalMoveOfEverySetup) {
  int positions = 0;
  size_t longest = 0;
  for (const SetupInfo& setup : AllSetups()) {
    const Position start = SetupPosition(setup.id).value();
    std::vector<Position> positions_to_check = {start};
    MoveList first;
    GenerateMoves(start, &first);
    for (const Move m : first) {
      Position next = start;
      if (MakeMove(&next, m) != 0) continue;  // a Pharaoh hit: game over
      positions_to_check.push_back(next);
    }
    for (const Position& pos : positions_to_check) {
      MoveList moves;
      GenerateMoves(pos, &moves);
      std::vector<std::string> expected;
      for (const Move m : moves) expected.push_back(FormatMove(pos, m));
      const std::string lm = CompactMoveList(FormatPosition(pos));
      std::vector<std::string> got = ExpandMoveList(lm);
      std::vector<std::string> sorted_expected = expected;
      std::sort(got.begin(), got.end());
      std::sort(sorted_expected.begin(), sorted_expected.end());
      ASSERT_EQ(got, sorted_expected) << FormatPosition(pos) << "\n" << lm;
      longest = std::max(longest, lm.size());
      ++positions;
    }
  }
  std::cout << "legal move lists of " << positions << " positions; the longest "
            << longest << " bytes\n";
}

TEST(CompactMovesTest, ExampleAndNonsense) {
  // Classic 2's start: Silver's Sphinx on j1 turns, its Scarabs step, turn
  // and swap.
  const std::string lm =
      CompactMoveList(FormatPosition(SetupPosition("classic-2").value()));
  EXPECT_THAT(lm, HasSubstr("j1L"));
  EXPECT_EQ(CompactMoveList("not a position"), "");
}

TEST(CompactMovesTest, SessionCarriesThemOnlyInAGame) {
  v1::Session session;
  session.set_status(v1::IN_PROGRESS);
  *session.mutable_board() = BoardToProto(SetupPosition("classic-2").value());
  const json playing = json::parse(CompactSession(session));
  EXPECT_EQ(playing["lm"], CompactMoveList(session.board().position()));
  session.set_status(v1::FINISHED);
  EXPECT_FALSE(json::parse(CompactSession(session)).contains("lm"));
}

TEST(CompactLegalMovesTest, ListsAndCutsWithMore) {
  v1::ListLegalMovesResponse moves;
  moves.add_moves()->set_notation("e4-e5");
  moves.add_moves()->set_notation("e4R");
  EXPECT_EQ(CompactLegalMoves(moves), R"({"moves":"e4-e5 e4R","more":false})");
  for (int i = 0; i < 500; ++i) moves.add_moves()->set_notation("e4-e5");
  const std::string cut = CompactLegalMoves(moves);
  EXPECT_LE(cut.size(), kCompactLimit);
  EXPECT_EQ(json::parse(cut)["more"], true);
}

}  // namespace
}  // namespace khet
