// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/session.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/board_text.h"
#include "engine/names.h"
#include "engine/notation.h"
#include "engine/setups.h"
#include "service/base/sha256.h"
#include "service/base/status_macros.h"
#include "service/sessions/color_schemes.h"
#include "service/sessions/game_records.h"
#include "service/sessions/time_control.h"
#include "service/text/quoted_input.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

int SeatIndex(Color c) { return c == Color::kSilver ? 0 : 1; }

// The board the laser saw: after the move, before its hits were removed.
Position ShotBoard(const Position& after, const MoveEffects& effects) {
  Position shot = after;
  for (const Removal& r : effects.removals) shot.Set(r.square, r.before);
  return shot;
}

}  // namespace

std::string TokenHash(std::string_view token) { return Sha256(token); }

std::string MoveRequestHash(const v1::MakeMoveRequest& request) {
  // Each text field with its length first, so no two requests encode alike.
  const v1::Move& m = request.move();
  std::string encoded;
  for (const std::string* text : {&m.notation(), &m.from(), &m.to()}) {
    absl::StrAppend(&encoded, text->size(), ":", *text, ";");
  }
  absl::StrAppend(&encoded, "kind=", static_cast<int>(m.kind()),
                  ";swap=", m.swap() ? 1 : 0, ";expected=",
                  request.has_expected_version()
                      ? absl::StrCat(request.expected_version())
                      : std::string("none"));
  return Sha256(encoded);
}

v1::Color Session::ToV1(Color c) { return ::khet::ToProto(c); }

Session Session::New(std::string id, std::string name,
                     std::string owner_token_hash, std::string setup_id,
                     const Position& start, const RuleOptions& options,
                     const v1::Settings& settings, absl::Time created_at) {
  Session s;
  s.state_.set_id(std::move(id));
  s.state_.set_name(std::move(name));
  s.state_.set_version(0);
  s.state_.set_owner_token_hash(std::move(owner_token_hash));
  s.state_.set_setup_id(std::move(setup_id));
  s.state_.set_start_position(FormatPosition(start));
  *s.state_.mutable_rules() = OptionsToProto(options);
  *s.state_.mutable_settings() = settings;
  s.state_.add_seats();
  s.state_.add_seats();
  s.state_.set_status(v1::WAITING_FOR_PLAYERS);
  *s.state_.mutable_created_at() = TimeToProto(created_at);
  s.state_.set_unclaimed(true);
  s.game_ = Game(start, options);
  return s;
}

void Session::set_creator(std::string address, std::string object_key) {
  state_.set_creator_address(std::move(address));
  state_.set_creator_object_key(std::move(object_key));
}

void Session::NoteUnratedGameArchived(absl::Time now) {
  if (unrated_games_in_window(now) == 0) {
    *state_.mutable_unrated_games_since() = TimeToProto(now);
    state_.set_unrated_games(0);
  }
  state_.set_unrated_games(state_.unrated_games() + 1);
}

int Session::unrated_games_in_window(absl::Time now) const {
  if (!state_.has_unrated_games_since() || now >= unrated_games_window_end()) {
    return 0;
  }
  return state_.unrated_games();
}

absl::Time Session::unrated_games_window_end() const {
  return TimeFromProto(state_.unrated_games_since()) + absl::Hours(1);
}

void Session::Claim() {
  state_.clear_unclaimed();
  state_.clear_creator_address();
  state_.clear_creator_object_key();
}

absl::StatusOr<Session> Session::FromState(const store::SessionState& state) {
  Session s;
  s.state_ = state;
  // Written by earlier versions; the shot is now rebuilt from the moves.
  s.state_.clear_last_shot();
  if (state.seats_size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("it has ", state.seats_size(), " seats, not 2"));
  }
  for (const store::StoredSeat& seat : state.seats()) {
    if (seat.computer() &&
        (!seat.occupied() || seat.computer_level() < 1 ||
         seat.computer_level() > 5 || !seat.token_hash().empty())) {
      return absl::InvalidArgumentError(
          absl::StrCat("a computer seat at level ", seat.computer_level(),
                       " is not occupied, has a token or a bad level"));
    }
  }
  absl::StatusOr<Position> start = ParsePosition(state.start_position());
  if (!start.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad start position: ", start.status().message()));
  }
  absl::StatusOr<RuleOptions> options = OptionsFromProto(state.rules());
  if (!options.ok()) return options.status();
  s.game_ = Game(*start, *options);
  for (int i = 0; i < state.moves_size(); ++i) {
    const Position before = s.game_.position();
    absl::StatusOr<Move> move = ParseMove(before, state.moves(i));
    absl::StatusOr<MoveEffects> effects =
        move.ok() ? s.game_.Play(*move) : move.status();
    if (!effects.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("move ", i + 1, " ", state.moves(i), ": ",
                       effects.status().message()));
    }
    if (i + 1 == state.moves_size()) {
      s.shot_board_ = ShotBoard(s.game_.position(), *effects);
      s.last_trace_ = TraceLaser(*s.shot_board_, before.side_to_move());
    }
  }
  switch (state.status()) {
    case v1::WAITING_FOR_PLAYERS:
      if (state.moves_size() != 0) {
        return absl::InvalidArgumentError("waiting for players but has moves");
      }
      break;
    case v1::IN_PROGRESS:
      if (s.game_.over()) {
        return absl::InvalidArgumentError(
            "in progress but its moves end the game");
      }
      break;
    case v1::FINISHED: {
      absl::StatusOr<GameResult> stored = ResultFromProto(state.result());
      if (!stored.ok()) return stored.status();
      if (!s.game_.over()) {
        absl::Status applied;
        switch (stored->reason) {
          case ResultReason::kResignation:
            applied = s.game_.Resign(stored->outcome == Outcome::kSilverWins
                                         ? Color::kRed
                                         : Color::kSilver);
            break;
          case ResultReason::kTimeForfeit:
            applied = s.game_.LoseOnTime(stored->outcome == Outcome::kSilverWins
                                             ? Color::kRed
                                             : Color::kSilver);
            break;
          case ResultReason::kAgreedDraw:
            applied = s.game_.AgreeDraw();
            break;
          case ResultReason::kRepetitionClaimed:
            applied =
                s.game_.ClaimRepetitionDraw(s.game_.position().side_to_move());
            break;
          default:
            applied = absl::InvalidArgumentError(
                "finished, but its moves do not end the game");
        }
        if (!applied.ok()) return applied;
      }
      if (!(s.game_.result() == *stored)) {
        return absl::InvalidArgumentError(
            absl::StrCat("the stored result (", state.result().text(),
                         ") is not the replayed one"));
      }
      break;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("unknown status ", static_cast<int>(state.status())));
  }
  return s;
}

std::string Session::SetupName() const {
  absl::StatusOr<SetupInfo> info = FindSetup(state_.setup_id());
  if (!info.ok()) return "a custom position";
  return std::string(info->name);
}

bool Session::IsOwner(std::string_view token) const {
  return !token.empty() &&
         ConstantTimeEquals(TokenHash(token), state_.owner_token_hash());
}

std::optional<Color> Session::SeatOf(std::string_view token) const {
  if (token.empty()) return std::nullopt;
  const std::string hash = TokenHash(token);
  std::optional<Color> found;
  for (Color c : {Color::kSilver, Color::kRed}) {
    const store::StoredSeat& s = seat(c);
    // Both seats are always compared, so the time taken says nothing.
    if (ConstantTimeEquals(hash, s.token_hash()) && s.occupied()) found = c;
  }
  return found;
}

const store::StoredSeat& Session::seat(Color c) const {
  return state_.seats(SeatIndex(c));
}

bool Session::BothSeatsTaken() const {
  return seat(Color::kSilver).occupied() && seat(Color::kRed).occupied();
}

void Session::TakeSeat(Color c, std::string player_name, std::string token_hash,
                       std::string player_id) {
  const std::string& rated_id =
      c == Color::kSilver ? state_.rated_silver_id() : state_.rated_red_id();
  if (game_rated() && rated_id != player_id) {
    state_.clear_rated_silver_id();
    state_.clear_rated_red_id();
  }
  Claim();
  store::StoredSeat* s = state_.mutable_seats(SeatIndex(c));
  s->set_occupied(true);
  s->set_player_name(std::move(player_name));
  s->set_token_hash(std::move(token_hash));
  s->set_player_id(std::move(player_id));
}

void Session::TakeComputerSeat(Color c, int level, std::string level_name) {
  Claim();
  state_.clear_rated_silver_id();
  state_.clear_rated_red_id();
  store::StoredSeat* s = state_.mutable_seats(SeatIndex(c));
  *s = store::StoredSeat();
  s->set_occupied(true);
  s->set_player_name(std::move(level_name));
  s->set_computer(true);
  s->set_computer_level(level);
}

v1::Seat Session::SeatToProto(Color c) const {
  v1::Seat out;
  out.set_color(ToV1(c));
  out.set_occupied(seat(c).occupied());
  out.set_player_name(seat(c).player_name());
  out.set_computer(seat(c).computer());
  out.set_computer_level(seat(c).computer_level());
  out.set_player_id(seat(c).player_id());
  return out;
}

std::string Session::SeatLabel(Color c) const {
  if (seat(c).computer()) {
    const std::string level = absl::StrCat(seat(c).computer_level());
    return Format(language(), Message::kComputerPlayer, {{"level", level}});
  }
  return seat(c).player_name();
}

void Session::SwapSeats() {
  state_.mutable_seats()->SwapElements(0, 1);
  state_.clear_draw_offered_by();
  state_.clear_takeback_requested_by();
}

void Session::LeaveSeat(Color c) {
  *state_.mutable_seats(SeatIndex(c)) = store::StoredSeat();
  if (draw_offered_by() == c) state_.clear_draw_offered_by();
  if (takeback_requested_by() == c) state_.clear_takeback_requested_by();
}

void Session::ChooseSetup(std::string setup_id, const Position& start,
                          const RuleOptions& options) {
  state_.set_setup_id(std::move(setup_id));
  state_.set_start_position(FormatPosition(start));
  v1::TimeControl tc = state_.rules().time_control();
  *state_.mutable_rules() = OptionsToProto(options);
  if (HasClocks(tc)) *state_.mutable_rules()->mutable_time_control() = tc;
  EndGame(/*empty_seats=*/false);
}

void Session::set_time_control(const v1::TimeControl& tc) {
  if (HasClocks(tc)) {
    *state_.mutable_rules()->mutable_time_control() = tc;
  } else {
    state_.mutable_rules()->clear_time_control();
  }
  ResetClocks();
}

void Session::StartGame(absl::Time now) {
  EndGame(/*empty_seats=*/false);
  state_.set_status(v1::IN_PROGRESS);
  *state_.mutable_last_move_at() = TimeToProto(now);
  *state_.mutable_game_started_at() = TimeToProto(now);
  const store::StoredSeat& silver = seat(Color::kSilver);
  const store::StoredSeat& red = seat(Color::kRed);
  if (state_.settings().rated() && !silver.player_id().empty() &&
      !red.player_id().empty() && silver.player_id() != red.player_id() &&
      !silver.computer() && !red.computer()) {
    state_.set_rated_silver_id(silver.player_id());
    state_.set_rated_red_id(red.player_id());
  }
}

Language Session::language() const {
  // Unset (the default) is English; asked on every move, so without the
  // error ParseLanguage would build for it.
  if (state_.settings().language().empty()) return Language::kEnglish;
  absl::StatusOr<Language> language =
      ParseLanguage(state_.settings().language());
  return language.ok() ? *language : Language::kEnglish;
}

bool Session::has_clocks() const {
  return HasClocks(state_.rules().time_control());
}

int64_t Session::clock_ms(Color c) const {
  return c == Color::kSilver ? state_.silver_clock_ms() : state_.red_clock_ms();
}

void Session::set_clock_ms(Color c, int64_t ms) {
  if (c == Color::kSilver) {
    state_.set_silver_clock_ms(ms);
  } else {
    state_.set_red_clock_ms(ms);
  }
}

void Session::ResetClocks() {
  const int64_t initial = InitialClockMs(state_.rules().time_control());
  state_.set_silver_clock_ms(initial);
  state_.set_red_clock_ms(initial);
}

absl::Duration Session::TimeLeft(Color c, absl::Time now) const {
  if (!has_clocks()) return absl::InfiniteDuration();
  absl::Duration left = absl::Milliseconds(clock_ms(c));
  if (state_.status() == v1::IN_PROGRESS &&
      c == game_.position().side_to_move()) {
    left -= now - TimeFromProto(state_.last_move_at());
  }
  return std::max(left, absl::ZeroDuration());
}

std::optional<absl::Time> Session::FlagFallsAt() const {
  if (!has_clocks() || state_.status() != v1::IN_PROGRESS) {
    return std::nullopt;
  }
  return TimeFromProto(state_.last_move_at()) +
         absl::Milliseconds(clock_ms(game_.position().side_to_move()));
}

void Session::StopClocks(absl::Time now) {
  if (!has_clocks() || state_.status() != v1::IN_PROGRESS) return;
  const Color to_move = game_.position().side_to_move();
  set_clock_ms(to_move, absl::ToInt64Milliseconds(TimeLeft(to_move, now)));
}

v1::Clocks Session::ClocksToProto() const {
  v1::Clocks out;
  out.set_silver_ms(state_.silver_clock_ms());
  out.set_red_ms(state_.red_clock_ms());
  if (state_.has_last_move_at()) *out.mutable_as_of() = state_.last_move_at();
  if (std::optional<absl::Time> flag = FlagFallsAt(); flag.has_value()) {
    out.set_running(ToV1(game_.position().side_to_move()));
    *out.mutable_flag_at() = TimeToProto(*flag);
  }
  return out;
}

int64_t Session::game_number() const {
  return std::max<int64_t>(1, state_.game_number());
}

std::string Session::GameId() const {
  return absl::StrCat(state_.id(), "-g", game_number());
}

absl::Time Session::game_started_at() const {
  return TimeFromProto(state_.has_game_started_at() ? state_.game_started_at()
                                                    : state_.created_at());
}

bool Session::NeedsArchiving() const {
  return state_.status() == v1::FINISHED && !state_.game_archived();
}

std::optional<ArchivedGame> Session::TakeAbandoned() {
  return std::exchange(abandoned_, std::nullopt);
}

void Session::EndGame(bool empty_seats) {
  if (game_.ply() > 0 || game_.over()) {
    // Its end time is the write's (SessionRegistry::Write stamps it).
    if (!state_.game_archived()) {
      abandoned_ = ArchiveOf(*this, absl::InfinitePast());
    }
    state_.set_game_number(game_number() + 1);
    state_.set_game_archived(false);
  }
  state_.clear_game_started_at();
  // The start and options were checked when they were chosen.
  absl::StatusOr<Position> start = ParsePosition(state_.start_position());
  absl::StatusOr<RuleOptions> options = OptionsFromProto(state_.rules());
  game_ = Game(start.ok() ? *start : Position(),
               options.ok() ? *options : RuleOptions());
  state_.clear_moves();
  state_.clear_result();
  state_.clear_draw_offered_by();
  state_.clear_takeback_requested_by();
  state_.clear_rated_silver_id();
  state_.clear_rated_red_id();
  state_.clear_last_move_at();
  state_.clear_recent_replies();
  state_.set_status(v1::WAITING_FOR_PLAYERS);
  ResetClocks();
  shot_board_.reset();
  last_trace_ = BeamTrace();
  if (empty_seats) {
    for (store::StoredSeat& s : *state_.mutable_seats()) {
      s = store::StoredSeat();
    }
  }
}

absl::StatusOr<PlayedMove> Session::Play(Move move, absl::Time now) {
  PlayedMove played;
  played.before = game_.position();
  played.mover = played.before.side_to_move();
  const absl::Duration left = TimeLeft(played.mover, now);
  if (has_clocks() && state_.status() == v1::IN_PROGRESS &&
      left <= absl::ZeroDuration()) {
    return absl::FailedPreconditionError(
        absl::StrCat(ColorName(played.mover), "'s time ran out"));
  }
  KHET_ASSIGN_OR_RETURN(played.effects, game_.Play(move));
  if (has_clocks()) {
    const v1::TimeControl& tc = state_.rules().time_control();
    int64_t ms = absl::ToInt64Milliseconds(left);
    if (!game_.over()) {
      ms = tc.kind() == v1::TimeControl::PER_MOVE ? tc.per_move_ms()
                                                  : ms + tc.increment_ms();
    }
    set_clock_ms(played.mover, ms);
  }
  shot_board_ = ShotBoard(game_.position(), played.effects);
  last_trace_ = TraceLaser(*shot_board_, played.mover);
  played.trace = last_trace_;
  state_.add_moves(FormatMove(played.before, played.effects.move));
  *state_.mutable_last_move_at() = TimeToProto(now);
  if (draw_offered_by() == Opponent(played.mover)) {
    state_.clear_draw_offered_by();
  }
  state_.clear_takeback_requested_by();
  if (game_.over()) SetFinished();
  return played;
}

absl::Status Session::Resign(Color loser) {
  KHET_RETURN_IF_ERROR(game_.Resign(loser));
  SetFinished();
  return absl::OkStatus();
}

absl::Status Session::LoseOnTime(Color loser) {
  KHET_RETURN_IF_ERROR(game_.LoseOnTime(loser));
  SetFinished();
  return absl::OkStatus();
}

absl::Status Session::AgreeDraw() {
  KHET_RETURN_IF_ERROR(game_.AgreeDraw());
  SetFinished();
  return absl::OkStatus();
}

absl::Status Session::ClaimRepetitionDraw(Color claimer) {
  KHET_RETURN_IF_ERROR(game_.ClaimRepetitionDraw(claimer));
  SetFinished();
  return absl::OkStatus();
}

void Session::SetFinished() {
  state_.set_status(v1::FINISHED);
  state_.clear_draw_offered_by();
  state_.clear_takeback_requested_by();
  *state_.mutable_result() = ResultToProto(game_);
}

std::optional<Color> Session::draw_offered_by() const {
  if (state_.draw_offered_by() == v1::SILVER) return Color::kSilver;
  if (state_.draw_offered_by() == v1::RED) return Color::kRed;
  return std::nullopt;
}

int Session::TakebackPlies(Color by) const {
  const int ply = game_.ply();
  if (ply == 0) return 0;
  const Color last_mover = Opponent(game_.position().side_to_move());
  const int plies = last_mover == by ? 1 : 2;
  return plies <= ply ? plies : 0;
}

std::optional<Color> Session::takeback_requested_by() const {
  if (state_.takeback_requested_by() == v1::SILVER) return Color::kSilver;
  if (state_.takeback_requested_by() == v1::RED) return Color::kRed;
  return std::nullopt;
}

absl::Status Session::TakeBack(int plies, absl::Time now) {
  if (state_.status() != v1::IN_PROGRESS || plies < 1 ||
      plies > state_.moves_size()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot take back ", plies, " of the game's ",
                     state_.moves_size(), " moves"));
  }
  StopClocks(now);
  store::SessionState state = state_;
  state.mutable_moves()->DeleteSubrange(state.moves_size() - plies, plies);
  state.clear_draw_offered_by();
  state.clear_takeback_requested_by();
  state.clear_recent_replies();
  *state.mutable_last_move_at() = TimeToProto(now);
  KHET_ASSIGN_OR_RETURN(Session earlier, FromState(state));
  earlier.abandoned_ = std::move(abandoned_);
  *this = std::move(earlier);
  return absl::OkStatus();
}

void Session::KeepReply(const ReplyKey& key, const v1::MakeMoveResponse& reply,
                        int64_t move_event_version, int keep) {
  store::StoredReply* r = state_.add_recent_replies();
  r->set_request_id(key.request_id);
  r->set_token_hash(key.token_hash);
  r->set_request_hash(key.request_hash);
  r->set_move_event_version(move_event_version);
  r->set_announcement(reply.announcement());
  r->set_version(reply.version());
  auto* replies = state_.mutable_recent_replies();
  const int excess = replies->size() - std::max(keep, 0);
  if (excess > 0) replies->DeleteSubrange(0, excess);
}

absl::StatusOr<v1::MakeMoveResponse> KeptReply(const store::StoredReply& kept,
                                               const v1::Event& event) {
  v1::MakeMoveResponse reply;
  if (!kept.response().empty()) {
    if (!reply.ParseFromString(kept.response())) {
      return absl::InternalError(absl::StrCat("the kept reply to request_id ",
                                              QuoteInput(kept.request_id()),
                                              " does not parse"));
    }
    return reply;
  }
  const v1::MoveMade& made = event.move_made();
  *reply.mutable_move() = made.move();
  *reply.mutable_shot() = made.shot();
  *reply.mutable_removals() = made.removals();
  *reply.mutable_result() = made.result();
  *reply.mutable_board() = made.board();
  reply.set_version(kept.version());
  reply.set_announcement(kept.announcement());
  if (event.has_clocks()) *reply.mutable_clocks() = event.clocks();
  return reply;
}

absl::StatusOr<std::optional<store::StoredReply>> Session::FindReply(
    const ReplyKey& key) const {
  for (const store::StoredReply& r : state_.recent_replies()) {
    if (r.request_id() != key.request_id) continue;
    // Both compared, so the time taken tells nothing of which differed.
    const bool same_caller = ConstantTimeEquals(r.token_hash(), key.token_hash);
    const bool same_request =
        ConstantTimeEquals(r.request_hash(), key.request_hash);
    if (same_caller && same_request && !r.token_hash().empty()) return r;
    return absl::InvalidArgumentError(absl::StrCat(
        "request_id ", QuoteInput(key.request_id),
        " was already used in this game for a different request (another "
        "caller, move or expected_version); a retry repeats its request "
        "exactly, a new move needs a new request_id"));
  }
  return std::nullopt;
}

v1::Session Session::ToProto() const {
  v1::Session out;
  out.set_id(state_.id());
  out.set_name(state_.name());
  out.set_version(state_.version());
  out.set_setup_id(state_.setup_id());
  *out.mutable_rules() = state_.rules();
  v1::Settings* settings = out.mutable_settings();
  *settings = state_.settings();
  settings->set_square_size_meters(settings->scale_meters() / 10);
  settings->set_physical_pieces(settings->scale_meters() > 6);
  for (Color c : {Color::kSilver, Color::kRed}) {
    *out.add_seats() = SeatToProto(c);
  }
  out.set_status(state_.status());
  *out.mutable_board() = BoardToProto(game_.position());
  *out.mutable_moves() = state_.moves();
  if (state_.status() != v1::WAITING_FOR_PLAYERS) {
    *out.mutable_result() = ResultToProto(game_);
  }
  out.set_draw_offered_by(state_.draw_offered_by());
  out.set_takeback_requested_by(state_.takeback_requested_by());
  out.set_game_rated(game_rated());
  out.set_repetition_count(game_.RepetitionCount());
  if (shot_board_.has_value()) {
    *out.mutable_last_shot() =
        ShotToProto(last_trace_, game_.position().edition());
  }
  *out.mutable_created_at() = state_.created_at();
  out.set_game_id(GameId());
  if (state_.has_last_move_at()) {
    *out.mutable_last_move_at() = state_.last_move_at();
  }
  if (has_clocks()) *out.mutable_clocks() = ClocksToProto();
  out.set_preset(state_.preset());
  absl::StatusOr<v1::ColorScheme> scheme =
      FindColorScheme(state_.settings().color_scheme());
  if (scheme.ok()) *out.mutable_color_scheme() = *scheme;
  return out;
}

std::string Session::Render(bool with_laser) const {
  if (!with_laser || !shot_board_.has_value()) {
    return RenderBoard(game_.position(), nullptr);
  }
  return RenderBoard(*shot_board_, &last_trace_);
}

}  // namespace khet
