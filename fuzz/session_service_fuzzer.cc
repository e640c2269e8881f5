// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Fuzzes SessionService, stateful: a fresh service on the memory store per
// input, then a sequence of operations decoded from the fuzz bytes (create,
// join, leave, moves in notation or structured, draws, resign, reset,
// settings, setups, suggestions with tiny limits, reads, timeouts, delete),
// each with a token picked among the owner's, the seats', another
// session's, none or garbage. After every step it checks:
// - versions rise by one per change: every event a watcher reads (each
//   session is watched from its creation) is one above the last, and the
//   session's version is its last event's; a failed call changes nothing;
// - every accepted move was legal for the engine in the position before it,
//   and every suggestion is legal in the position it was made for;
// - the session's board is the replay of its moves from its start;
// - no token appears in an event, a reply or an error message, except the
//   one a CreateSession or JoinSeat reply hands to its owner.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/setups.h"
#include "fuzz/fuzz_check.h"
#include "khet/v1/khet_service.pb.h"
#include "service/base/clock.h"
#include "service/base/mutex.h"
#include "service/base/random_source.h"
#include "service/core/session_service.h"
#include "service/store/memory_store.h"

namespace khet {
namespace {

// Every token starts so; fuzzed text never holds it (Text removes it), so
// that a token found in an answer was copied there by the service.
constexpr char kTokenMark[] = "tKn";

// Ids "s1", "s2"...; tokens "tKn0001" padded to 43 characters, each
// remembered.
class CountingRandom final : public RandomSource {
 public:
  std::string NewSessionId() override {
    MutexLock lock(&mu_);
    return absl::StrCat("s", ++ids_);
  }
  std::string NewToken() override {
    MutexLock lock(&mu_);
    std::string token = absl::StrFormat("%s%04d", kTokenMark, tokens_.size());
    token.resize(43, '_');
    tokens_.push_back(token);
    return token;
  }
  std::vector<std::string> tokens() {
    MutexLock lock(&mu_);
    return tokens_;
  }

 private:
  Mutex mu_;
  int ids_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> tokens_ ABSL_GUARDED_BY(mu_);
};

// What the harness knows of one session.
struct Tracked {
  std::string id;
  std::string owner;
  std::string seat[2];  // the tokens of Silver's and Red's seats, if known
  std::unique_ptr<EventStream> events;
  int64_t version = 0;       // of the last event read
  std::string custom_start;  // the position text of a custom start
  bool deleted = false;
};

class Harness {
 public:
  explicit Harness(FuzzedDataProvider& in) : in_(in) {
    ServiceOptions options;
    options.store = &store_;
    options.clock = &clock_;
    options.random = &random_;
    options.limits.max_sessions = 4;
    options.limits.computer_threads = 1;
    options.limits.max_concurrent_suggestions = 1;
    options.limits.max_suggestion_time = absl::Milliseconds(200);
    service_ = *SessionService::Create(options);
  }

  void Run() {
    for (int step = 0; step < 64 && in_.remaining_bytes() > 0; ++step) {
      Step();
      for (Tracked& s : sessions_) CheckSession(s);
    }
  }

 private:
  // Fuzzed text of at most `max` bytes, never holding a token's mark.
  std::string Text(size_t max) {
    std::string text = in_.ConsumeRandomLengthString(max);
    for (size_t at; (at = text.find(kTokenMark)) != std::string::npos;) {
      text.erase(at, 1);
    }
    return text;
  }

  Tracked* PickSession() {
    if (sessions_.empty()) return nullptr;
    return &sessions_[in_.ConsumeIntegralInRange<size_t>(0,
                                                         sessions_.size() - 1)];
  }
  // The tracked session of `id` (fuzzed text may name one by chance).
  Tracked* Find(const std::string& id) {
    for (Tracked& t : sessions_) {
      if (t.id == id) return &t;
    }
    return nullptr;
  }
  std::string SessionId(Tracked* s) {
    if (s == nullptr || in_.ConsumeIntegralInRange(0, 15) == 0) {
      return Text(8);
    }
    return s->id;
  }

  // The caller: a token of `s` (owner, Silver, Red), another session's,
  // none, or garbage.
  Caller PickCaller(const Tracked* s) {
    const int pick = in_.ConsumeIntegralInRange(0, 7);
    if (s != nullptr && pick < 3) {
      return {pick == 0 ? s->owner : s->seat[pick - 1]};
    }
    if (pick == 3 && !sessions_.empty()) {
      const Tracked& other = sessions_[in_.ConsumeIntegralInRange<size_t>(
          0, sessions_.size() - 1)];
      return {other.seat[in_.ConsumeIntegralInRange(0, 1)]};
    }
    if (pick == 4) return {Text(48)};
    return {};
  }

  v1::Color PickColor() {
    return static_cast<v1::Color>(in_.ConsumeIntegralInRange(0, 3));
  }
  std::string PickSetupId() {
    const auto setups = AllSetups();
    const size_t pick = in_.ConsumeIntegralInRange<size_t>(0, setups.size());
    return pick == setups.size() ? Text(16) : std::string(setups[pick].id);
  }
  void PickRules(v1::RuleOptions* rules) {
    rules->set_both_pharaohs_hit_draws(in_.ConsumeBool());
    rules->set_automatic_repetition_draw(in_.ConsumeBool());
    rules->set_ply_limit(in_.ConsumeIntegralInRange(-1, 12));
  }
  // A start position: a setup's, changed by a few fuzzed edits.
  std::string PickPosition() {
    if (in_.ConsumeBool()) return Text(128);
    const auto setups = AllSetups();
    Position pos = *SetupPosition(
        setups[in_.ConsumeIntegralInRange<size_t>(0, setups.size() - 1)].id);
    if (in_.ConsumeBool()) pos.FlipSideToMove();
    for (int edits = in_.ConsumeIntegralInRange(0, 3); edits > 0; --edits) {
      pos.Set(in_.ConsumeIntegralInRange(0, kSquares - 1),
              Piece::FromCode(in_.ConsumeIntegral<uint8_t>()));
    }
    return FormatPosition(pos);
  }

  // The session's current position, as the service shows it.
  std::optional<Position> PositionOf(const std::string& id) {
    v1::GetSessionRequest get;
    get.set_session_id(id);
    absl::StatusOr<v1::Session> session = service_->GetSession(get);
    if (!session.ok()) return std::nullopt;
    absl::StatusOr<Position> pos = ParsePosition(session->board().position());
    KHET_FUZZ_CHECK(pos.ok(), session->board().position());
    return *pos;
  }

  void Step() {
    Tracked* s = PickSession();
    const std::string id = SessionId(s);
    const int op = in_.ConsumeIntegralInRange(0, 20);
    switch (op) {
      case 0: {
        v1::CreateSessionRequest request;
        request.set_name(Text(70));
        const bool custom = in_.ConsumeIntegralInRange(0, 3) == 0;
        if (custom) {
          request.set_position(PickPosition());
        } else if (in_.ConsumeBool()) {
          request.set_setup_id(PickSetupId());
        }
        if (in_.ConsumeBool()) PickRules(request.mutable_rules());
        absl::StatusOr<v1::CreateSessionResponse> created =
            service_->CreateSession(request);
        Answer(created, created.ok() ? created->owner_token() : "");
        if (!created.ok()) return;
        Tracked tracked;
        tracked.id = created->session().id();
        tracked.owner = created->owner_token();
        if (custom) tracked.custom_start = request.position();
        v1::WatchRequest watch;
        watch.set_session_id(tracked.id);
        absl::StatusOr<std::unique_ptr<EventStream>> events =
            service_->Watch(watch);
        KHET_FUZZ_CHECK(events.ok(), events.status().ToString());
        tracked.events = *std::move(events);
        KHET_FUZZ_CHECK(created->session().version() == 0,
                        created->session().DebugString());
        sessions_.push_back(std::move(tracked));
        return;
      }
      case 1: {
        v1::JoinSeatRequest request;
        request.set_session_id(id);
        request.set_color(PickColor());
        request.set_player_name(Text(70));
        absl::StatusOr<v1::JoinSeatResponse> joined =
            service_->JoinSeat(request);
        Answer(joined, joined.ok() ? joined->player_token() : "");
        if (!joined.ok()) return;
        const int seat = joined->color() == v1::RED ? 1 : 0;
        if (Tracked* t = Find(id)) t->seat[seat] = joined->player_token();
        return;
      }
      case 2: {
        v1::LeaveSeatRequest request;
        request.set_session_id(id);
        request.set_color(PickColor());
        Answer(service_->LeaveSeat(request, PickCaller(s)));
        return;
      }
      case 3:
      case 4:
      case 5:
        return Move(id, op);
      case 6: {
        v1::OfferDrawRequest request;
        request.set_session_id(id);
        Answer(service_->OfferDraw(request, PickCaller(s)));
        return;
      }
      case 7: {
        v1::AcceptDrawRequest request;
        request.set_session_id(id);
        Answer(service_->AcceptDraw(request, PickCaller(s)));
        return;
      }
      case 8: {
        v1::ClaimRepetitionDrawRequest request;
        request.set_session_id(id);
        Answer(service_->ClaimRepetitionDraw(request, PickCaller(s)));
        return;
      }
      case 9: {
        v1::ResignRequest request;
        request.set_session_id(id);
        Answer(service_->Resign(request, PickCaller(s)));
        return;
      }
      case 10: {
        v1::ResetGameRequest request;
        request.set_session_id(id);
        const absl::StatusOr<v1::Session> reset =
            service_->ResetGame(request, PickCaller(s));
        Answer(reset);
        if (Tracked* t = Find(id); reset.ok() && t != nullptr) {
          t->seat[0].clear();  // a reset empties both seats
          t->seat[1].clear();
        }
        return;
      }
      case 11: {
        v1::UpdateSettingsRequest request;
        request.set_session_id(id);
        v1::SettingsUpdate* update = request.mutable_settings();
        if (in_.ConsumeBool()) update->set_timeout_enabled(in_.ConsumeBool());
        if (in_.ConsumeBool()) {
          update->set_timeout_seconds(
              in_.ConsumeIntegralInRange<int64_t>(-1, 700000));
        }
        if (in_.ConsumeBool()) update->set_quiet(in_.ConsumeBool());
        if (in_.ConsumeBool()) update->set_color_scheme(Text(12));
        if (in_.ConsumeBool()) {
          update->set_scale_meters(in_.ConsumeFloatingPoint<double>());
        }
        Answer(service_->UpdateSettings(request, PickCaller(s)));
        return;
      }
      case 12: {
        v1::ChooseSetupRequest request;
        request.set_session_id(id);
        const bool custom = in_.ConsumeBool();
        if (custom) {
          request.set_position(PickPosition());
        } else {
          request.set_setup_id(PickSetupId());
        }
        if (in_.ConsumeBool()) PickRules(request.mutable_rules());
        const absl::StatusOr<v1::Session> chosen =
            service_->ChooseSetup(request, PickCaller(s));
        Answer(chosen);
        if (Tracked* t = Find(id); chosen.ok() && t != nullptr) {
          t->custom_start = custom ? request.position() : "";
        }
        return;
      }
      case 13:
        return Suggest(id);
      case 14: {
        v1::ListLegalMovesRequest request;
        request.set_session_id(id);
        if (in_.ConsumeBool()) request.set_square(Text(3));
        Answer(service_->ListLegalMoves(request));
        v1::RenderBoardRequest render;
        render.set_session_id(id);
        render.set_without_laser(in_.ConsumeBool());
        Answer(service_->RenderBoard(render));
        return;
      }
      case 15: {
        v1::ListSessionsRequest request;
        request.set_page_size(in_.ConsumeIntegralInRange(-1, 5));
        request.set_status(
            static_cast<v1::GameStatus>(in_.ConsumeIntegralInRange(0, 4)));
        if (in_.ConsumeBool()) request.set_page_token(Text(12));
        Answer(service_->ListSessions(request));
        return;
      }
      case 16:
        clock_.Advance(absl::Seconds(in_.ConsumeIntegralInRange(0, 700000)));
        service_->SweepTimeouts();
        return;
      case 17: {
        v1::DeleteSessionRequest request;
        request.set_session_id(id);
        const absl::Status deleted =
            service_->DeleteSession(request, PickCaller(s));
        Answer(deleted);
        return;
      }
      case 18: {
        v1::RequestTakebackRequest request;
        request.set_session_id(id);
        Answer(service_->RequestTakeback(request, PickCaller(s)));
        return;
      }
      case 19: {
        v1::AcceptTakebackRequest request;
        request.set_session_id(id);
        Answer(service_->AcceptTakeback(request, PickCaller(s)));
        return;
      }
      case 20: {
        v1::DeclineTakebackRequest request;
        request.set_session_id(id);
        Answer(service_->DeclineTakeback(request, PickCaller(s)));
        return;
      }
    }
  }

  // op 3: a legal move in notation; 4: any text; 5: structured fields.
  void Move(const std::string& id, int op) {
    Tracked* const s = Find(id);
    const std::optional<Position> before = PositionOf(id);
    v1::MakeMoveRequest request;
    request.set_session_id(id);
    if (op == 3 && before.has_value()) {
      MoveList list;
      GenerateMoves(*before, &list);
      if (list.size == 0) return;
      const khet::Move move =
          list.moves[in_.ConsumeIntegralInRange(0, list.size - 1)];
      request.mutable_move()->set_notation(FormatMove(*before, move));
    } else if (op == 4 || op == 3) {
      request.mutable_move()->set_notation(Text(8));
    } else {
      v1::Move* move = request.mutable_move();
      move->set_from(Text(3));
      move->set_to(Text(3));
      move->set_kind(
          static_cast<v1::MoveKind>(in_.ConsumeIntegralInRange(0, 5)));
    }
    if (in_.ConsumeBool() && s != nullptr) {
      request.set_expected_version(s->version +
                                   in_.ConsumeIntegralInRange(-1, 1));
    }
    if (in_.ConsumeBool()) {
      request.set_request_id(
          absl::StrCat("r", in_.ConsumeIntegralInRange(0, 3)));
    }
    const absl::StatusOr<v1::MakeMoveResponse> made =
        service_->MakeMove(request, PickCaller(s));
    Answer(made);
    if (!made.ok()) return;
    KHET_FUZZ_CHECK(before.has_value(), id);
    const absl::StatusOr<khet::Move> played =
        ParseMove(*before, made->move().notation());
    KHET_FUZZ_CHECK(played.ok(), made->DebugString());
    // A retried request_id answers the earlier move, which need not be
    // legal now; a new one must be.
    if (made->version() > (s == nullptr ? 0 : s->version)) {
      KHET_FUZZ_CHECK(
          CheckMove(*before, *played).ok(),
          absl::StrCat(FormatPosition(*before), " ", made->move().notation()));
    }
  }

  void Suggest(const std::string& id) {
    const std::optional<Position> before = PositionOf(id);
    v1::SuggestMoveRequest request;
    request.set_session_id(id);
    if (in_.ConsumeBool()) {
      request.set_level(in_.ConsumeIntegralInRange(-1, 2));
    } else {
      v1::SearchLimits* limits = request.mutable_limits();
      limits->set_max_depth(in_.ConsumeIntegralInRange(-1, 2));
      limits->set_max_nodes(in_.ConsumeIntegralInRange(-1, 500));
      limits->set_max_time_ms(in_.ConsumeIntegralInRange(-1, 20));
    }
    CallControl control;
    control.deadline = absl::Now() + absl::Milliseconds(30);
    const absl::StatusOr<v1::SuggestMoveResponse> suggested =
        service_->SuggestMove(request, control);
    Answer(suggested);
    if (!suggested.ok() || !before.has_value()) return;
    // The position may have moved on only if the session did.
    const std::optional<Position> now = PositionOf(id);
    if (now != before) return;
    const absl::StatusOr<khet::Move> move =
        ParseMove(*before, suggested->move().notation());
    KHET_FUZZ_CHECK(
        move.ok() && CheckMove(*before, *move).ok(),
        absl::StrCat(FormatPosition(*before), " ", suggested->DebugString()));
  }

  // No token the service ever made in `text`.
  void CheckNoToken(const std::string& text, const char* where) {
    for (const std::string& token : random_.tokens()) {
      KHET_FUZZ_CHECK(!absl::StrContains(text, token),
                      absl::StrCat(where, " holds token ", token));
    }
  }

  void Answer(const absl::Status& status) {
    if (!status.ok()) {
      CheckNoToken(std::string(status.message()), "an error message");
    }
  }
  template <typename Message>
  void Answer(const absl::StatusOr<Message>& answer,
              const std::string& handed_out = "") {
    if (!answer.ok()) return Answer(answer.status());
    std::string text = answer->SerializeAsString();
    if (!handed_out.empty()) {
      // Only in its own field, once.
      const size_t at = text.find(handed_out);
      KHET_FUZZ_CHECK(at != std::string::npos, answer->DebugString());
      text.erase(at, handed_out.size());
    }
    CheckNoToken(text, "a reply");
  }

  // Reads the session's new events and checks versions, tokens and the
  // board.
  void CheckSession(Tracked& s) {
    if (s.deleted) return;
    for (;;) {
      absl::StatusOr<std::optional<v1::Event>> next =
          s.events->Next(absl::ZeroDuration());
      if (!next.ok()) {
        KHET_FUZZ_CHECK(next.status().code() == absl::StatusCode::kNotFound,
                        next.status().ToString());
        s.deleted = true;
        return;
      }
      if (!next->has_value()) break;
      const v1::Event& event = **next;
      KHET_FUZZ_CHECK(event.version() == s.version + 1,
                      absl::StrCat("after version ", s.version, " came\n",
                                   event.DebugString()));
      s.version = event.version();
      CheckNoToken(event.SerializeAsString(), "an event");
      if (event.has_session_deleted()) {
        s.deleted = true;
        return;
      }
    }
    v1::GetSessionRequest get;
    get.set_session_id(s.id);
    const absl::StatusOr<v1::Session> session = service_->GetSession(get);
    KHET_FUZZ_CHECK(session.ok(), session.status().ToString());
    KHET_FUZZ_CHECK(session->version() == s.version,
                    absl::StrCat("events end at ", s.version, "\n",
                                 session->DebugString()));
    CheckNoToken(session->SerializeAsString(), "a session");
    CheckReplay(*session, s);
  }

  // The board is the replay of the moves from the start.
  void CheckReplay(const v1::Session& session, const Tracked& s) {
    absl::StatusOr<Position> start = session.setup_id() == "custom"
                                         ? ParsePosition(s.custom_start)
                                         : SetupPosition(session.setup_id());
    KHET_FUZZ_CHECK(start.ok(), session.DebugString());
    RuleOptions rules;
    rules.both_pharaohs_hit_draws = session.rules().both_pharaohs_hit_draws();
    rules.automatic_repetition_draw =
        session.rules().automatic_repetition_draw();
    rules.ply_limit = session.rules().ply_limit();
    Game game(*start, rules);
    for (const std::string& text : session.moves()) {
      const absl::StatusOr<khet::Move> move = ParseMove(game.position(), text);
      KHET_FUZZ_CHECK(move.ok() && game.Play(*move).ok(),
                      absl::StrCat("move ", text, " does not replay\n",
                                   session.DebugString()));
    }
    KHET_FUZZ_CHECK(
        FormatPosition(game.position()) == session.board().position(),
        absl::StrCat("replay gives ", FormatPosition(game.position()), "\n",
                     session.DebugString()));
  }

  FuzzedDataProvider& in_;
  MemoryStore store_;
  FakeClock clock_;
  CountingRandom random_;
  std::unique_ptr<SessionService> service_;
  std::vector<Tracked> sessions_;
};

}  // namespace
}  // namespace khet

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  khet::Harness harness(in);
  harness.Run();
  return 0;
}
