// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/archive/game_archive.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "engine/game_record.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "service/archive/game_analyses.h"
#include "service/base/status_macros.h"
#include "service/sessions/game_records.h"
#include "service/sessions/session_settings.h"
#include "service/text/quoted_input.h"
#include "service/text/unicode_text.h"
#include "service/wire/convert.h"

namespace khet {
namespace {

constexpr int kGamesPageSize = 20;
constexpr std::string_view kCurrentGame = "current";
constexpr std::string_view kResultTokens[] = {"1-0", "0-1", "1/2-1/2", "*"};

v1::GameSummary SummaryOf(const ArchivedGame& game) {
  v1::GameSummary out;
  out.set_id(game.id);
  out.set_session_id(game.session_id);
  out.set_silver_player(game.silver);
  out.set_red_player(game.red);
  out.set_setup_id(game.setup_id);
  out.set_result(game.result);
  out.set_ending(game.ending);
  *out.mutable_started_at() = TimeToProto(game.started_at);
  *out.mutable_ended_at() = TimeToProto(game.ended_at);
  out.set_plies(static_cast<int32_t>(game.plies));
  out.set_archived(true);
  return out;
}

// The session's current game, as it stands.
FoundGame CurrentGame(const Session& s) {
  ArchivedGame now = ArchiveOf(s, absl::InfinitePast());
  FoundGame found{SummaryOf(now), std::move(now.record), ""};
  found.summary.clear_ended_at();
  found.summary.set_archived(s.state().game_archived());
  if (!s.game().over()) found.summary.clear_ending();
  return found;
}

}  // namespace

absl::StatusOr<FoundGame> FindGame(const ServiceCore& core,
                                   const std::string& session_id,
                                   const std::string& game_id,
                                   bool with_analysis) {
  KHET_ASSIGN_OR_RETURN(
      std::optional<FoundGame> current,
      core.registry->Read(
          session_id,
          [&](SessionEntry& entry) -> absl::StatusOr<std::optional<FoundGame>> {
            const Session& s = entry.session;
            if (game_id.empty() || game_id == kCurrentGame ||
                game_id == s.GameId()) {
              return CurrentGame(s);
            }
            return std::nullopt;
          }));
  if (current.has_value()) {
    if (with_analysis && current->summary.archived()) {
      absl::StatusOr<ArchivedGame> archived =
          core.registry->store()->GetGame(current->summary.id());
      if (archived.ok()) current->analysis = std::move(archived->analysis);
    }
    return *std::move(current);
  }
  absl::StatusOr<ArchivedGame> archived =
      core.registry->store()->GetGame(game_id);
  if ((archived.ok() && archived->session_id != session_id) ||
      absl::IsNotFound(archived.status())) {
    return absl::NotFoundError(absl::StrCat(
        "session \"", session_id, "\" has no game ", QuoteInput(game_id)));
  }
  if (!archived.ok()) return archived.status();
  return FoundGame{SummaryOf(*archived), std::move(archived->record),
                   with_analysis ? std::move(archived->analysis) : ""};
}

namespace {

// A stored or formatted record read back; INTERNAL if it does not parse.
absl::StatusOr<GameRecord> ReadBack(const FoundGame& found) {
  absl::StatusOr<GameRecord> record = ParseGameRecord(found.text);
  if (!record.ok()) {
    return absl::InternalError(
        absl::StrCat("the record of game \"", found.summary.id(),
                     "\" does not read back: ", record.status().message()));
  }
  return record;
}

// The board the laser saw: after the move, before its hits were removed.
Position ShotBoard(const Position& after, const MoveEffects& effects) {
  Position shot = after;
  for (const Removal& r : effects.removals) shot.Set(r.square, r.before);
  return shot;
}

std::string EncodePageToken(int64_t sequence) {
  return absl::StrCat("g", sequence);
}

absl::StatusOr<int64_t> DecodePageToken(std::string_view token) {
  int64_t sequence = 0;
  if (token.size() < 2 || token[0] != 'g' ||
      !absl::SimpleAtoi(absl::string_view(token.data() + 1, token.size() - 1),
                        &sequence) ||
      sequence <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad page_token ", QuoteInput(token),
                     ": pass next_page_token from the previous response"));
  }
  return sequence;
}

// Applies the record's ending that no move decided (a resignation, an
// agreed or a claimed draw) to the session replaying it.
absl::Status ApplyEnding(const GameResult& result, Session& s) {
  switch (result.reason) {
    case ResultReason::kResignation:
      return s.Resign(result.outcome == Outcome::kSilverWins ? Color::kRed
                                                             : Color::kSilver);
    case ResultReason::kTimeForfeit:
      return s.LoseOnTime(result.outcome == Outcome::kSilverWins
                              ? Color::kRed
                              : Color::kSilver);
    case ResultReason::kAgreedDraw:
      return s.AgreeDraw();
    case ResultReason::kRepetitionClaimed:
      return s.ClaimRepetitionDraw(s.game().position().side_to_move());
    default:
      return absl::InternalError(absl::StrCat(
          "a replayed record ends by ",
          std::string(ResultReasonName(result.reason)), " without a move"));
  }
}

}  // namespace

absl::StatusOr<v1::GetGameRecordResponse> GetGameRecord(
    const ServiceCore& core, const v1::GetGameRecordRequest& request) {
  KHET_ASSIGN_OR_RETURN(FoundGame found,
                        FindGame(core, request.session_id(), request.game_id(),
                                 /*with_analysis=*/true));
  v1::GetGameRecordResponse out;
  if (!found.analysis.empty() &&
      out.mutable_analysis()->ParseFromString(found.analysis)) {
    found.text = RecordWithAnalysis(found.text, out.analysis());
  } else {
    out.clear_analysis();
  }
  KHET_ASSIGN_OR_RETURN(GameRecord record, ReadBack(found));
  for (const auto& [name, value] : record.headers) {
    v1::RecordHeader* header = out.add_headers();
    header->set_name(name);
    header->set_value(value);
  }
  if (!record.comments.empty()) {
    for (const std::string& c : record.comments[0]) {
      out.add_opening_comments(c);
    }
  }
  Game replay(record.game.start(), record.game.options());
  for (int i = 0; i < record.game.ply(); ++i) {
    const Position before = replay.position();
    const Move move = record.game.moves()[i];
    v1::RecordedMove* m = out.add_moves();
    m->set_ply(i + 1);
    m->set_mover(ToProto(before.side_to_move()));
    m->set_notation(FormatMove(before, move));
    m->set_hit(HitComment(before, move));
    if (static_cast<size_t>(i + 1) < record.comments.size()) {
      for (const std::string& c : record.comments[i + 1]) m->add_comments(c);
    }
    KHET_RETURN_IF_ERROR(replay.Play(move).status());
  }
  *out.mutable_result() = ResultToProto(record.game);
  *out.mutable_game() = std::move(found.summary);
  out.set_text(std::move(found.text));
  return out;
}

absl::StatusOr<v1::ListGamesResponse> ListGames(
    const ServiceCore& core, const v1::ListGamesRequest& request) {
  if (request.page_size() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "page_size must not be negative, not ", request.page_size()));
  }
  if (!request.result().empty() &&
      std::find(std::begin(kResultTokens), std::end(kResultTokens),
                request.result()) == std::end(kResultTokens)) {
    return absl::InvalidArgumentError(
        absl::StrCat("result ", QuoteInput(request.result()),
                     " is not one of \"1-0\", \"0-1\", \"1/2-1/2\", \"*\""));
  }
  if (static_cast<int>(request.player().size()) >
      4 * core.limits->max_name_length) {
    return absl::InvalidArgumentError(
        absl::StrCat("player ", QuoteInput(request.player()),
                     " is longer than any player's name"));
  }
  GameQuery query;
  query.session_id = request.session_id();
  query.player = request.player();
  query.setup_id = request.setup_id();
  query.result = request.result();
  if (!request.page_token().empty()) {
    KHET_ASSIGN_OR_RETURN(query.before_sequence,
                          DecodePageToken(request.page_token()));
  }
  const int page_size =
      std::min(request.page_size() == 0 ? kGamesPageSize : request.page_size(),
               core.limits->max_page_size);
  query.limit = page_size + 1;  // one more tells whether a next page exists
  if (!request.session_id().empty()) {
    KHET_RETURN_IF_ERROR(core.registry->Read(
        request.session_id(), [](SessionEntry&) { return absl::OkStatus(); }));
  }
  KHET_ASSIGN_OR_RETURN(std::vector<ArchivedGame> games,
                        core.registry->store()->ListGames(query));
  v1::ListGamesResponse out;
  for (const ArchivedGame& game : games) {
    if (out.games_size() == page_size) {
      out.set_next_page_token(EncodePageToken(games[page_size - 1].sequence));
      break;
    }
    *out.add_games() = SummaryOf(game);
  }
  return out;
}

absl::StatusOr<v1::GetPositionResponse> GetPosition(
    const ServiceCore& core, const v1::GetPositionRequest& request) {
  KHET_ASSIGN_OR_RETURN(
      FoundGame found, FindGame(core, request.session_id(), request.game_id()));
  KHET_ASSIGN_OR_RETURN(GameRecord record, ReadBack(found));
  const int plies = record.game.ply();
  if (request.ply() < 0 || request.ply() > plies) {
    return absl::InvalidArgumentError(
        absl::StrCat("ply ", request.ply(), " is out of range: game \"",
                     found.summary.id(), "\" has plies 0 to ", plies));
  }
  v1::GetPositionResponse out;
  out.set_game_id(found.summary.id());
  out.set_ply(request.ply());
  out.set_plies(plies);
  Game replay(record.game.start(), record.game.options());
  for (int i = 0; i < request.ply(); ++i) {
    const Position before = replay.position();
    KHET_ASSIGN_OR_RETURN(MoveEffects effects,
                          replay.Play(record.game.moves()[i]));
    if (i + 1 == request.ply()) {
      const Edition edition = before.edition();
      *out.mutable_move() = MoveToProto(before, effects.move);
      *out.mutable_shot() =
          ShotToProto(TraceLaser(ShotBoard(replay.position(), effects),
                                 before.side_to_move()),
                      edition);
      for (const Removal& r : effects.removals) {
        *out.add_removals() = RemovalToProto(r, edition);
      }
    }
  }
  // At the end, the record's own ending (a resignation, a draw) counts.
  const Game& at = request.ply() == plies ? record.game : replay;
  *out.mutable_board() = BoardToProto(at.position());
  *out.mutable_result() = ResultToProto(at);
  if (!at.over()) {
    MoveList moves;
    GenerateMoves(at.position(), &moves);
    for (Move m : moves) *out.add_legal_moves() = MoveToProto(at.position(), m);
  }
  return out;
}

absl::StatusOr<v1::CreateSessionResponse> CreateSessionFromRecord(
    const ServiceCore& core, const v1::CreateSessionRequest& request,
    const Caller& caller) {
  if (request.record().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ply ", request.ply(), " needs a record to replay"));
  }
  if (!request.setup_id().empty() || !request.position().empty() ||
      request.has_rules() || !request.preset().empty()) {
    return absl::InvalidArgumentError(
        "give a record or setup_id, position, rules and preset, not both: "
        "the record's headers choose the start and the rules");
  }
  if (request.ply() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ply must not be negative, not ", request.ply()));
  }
  if (static_cast<int>(request.record().size()) >
      core.limits->max_record_length) {
    return absl::InvalidArgumentError(absl::StrCat(
        "record has ", request.record().size(), " characters; at most ",
        core.limits->max_record_length, " are allowed"));
  }
  absl::StatusOr<GameRecord> record = ParseGameRecord(request.record());
  if (!record.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("record: ", record.status().message()));
  }
  const Game& game = record->game;
  if (request.ply() > game.ply()) {
    return absl::InvalidArgumentError(absl::StrCat("ply ", request.ply(),
                                                   " is beyond the record's ",
                                                   game.ply(), " moves"));
  }
  const int plies = request.ply() == 0 ? game.ply() : request.ply();
  std::string setup_id(kCustomSetupId);
  for (const auto& [header, value] : record->headers) {
    if (header == "Setup") setup_id = value;
  }
  KHET_ASSIGN_OR_RETURN(
      std::string name,
      request.name().empty()
          ? absl::StatusOr<std::string>(DefaultSessionName(
                *record, setup_id, core.limits->max_name_length))
          : CheckDisplayName("name", request.name(),
                             core.limits->max_name_length));
  v1::Settings settings = DefaultSettings();
  KHET_RETURN_IF_ERROR(ApplySettings(request.settings(), &settings,
                                     core.limits->min_timeout_seconds));
  const std::string owner_token = core.random->NewToken();
  const absl::Time now = core.registry->clock()->Now();
  // The record was replayed by the same rules: no move fails here.
  absl::Status replayed;
  KHET_ASSIGN_OR_RETURN(
      std::shared_ptr<SessionEntry> entry,
      core.registry->Create(
          [&](const std::string& id) {
            replayed = absl::OkStatus();
            Session s =
                Session::New(id, name, TokenHash(owner_token), setup_id,
                             game.start(), game.options(), settings, now);
            s.set_creator(caller.address, caller.object_key);
            s.StartGame(now);
            for (int i = 0; i < plies && replayed.ok(); ++i) {
              replayed = s.Play(game.moves()[i], now).status();
            }
            if (replayed.ok() && request.ply() == 0 && game.over() &&
                !s.game().over()) {
              replayed = ApplyEnding(game.result(), s);
            }
            if (!replayed.ok()) return s;
            // Its headers and comments, for the exports.
            store::SessionState state = s.state();
            KeepImportedRecord(*record, plies, s.game_number(), &state);
            absl::StatusOr<Session> kept = Session::FromState(state);
            if (!kept.ok()) {
              replayed = kept.status();
              return s;
            }
            return *std::move(kept);
          },
          [&] { return core.random->NewSessionId(); }));
  if (!replayed.ok()) {
    return absl::InternalError(
        absl::StrCat("session \"", entry->id,
                     "\": the record did not replay: ", replayed.message()));
  }
  v1::CreateSessionResponse out;
  {
    SessionLock lock(*entry);
    *out.mutable_session() = entry->session.ToProto();
  }
  out.set_owner_token(owner_token);
  return out;
}

}  // namespace khet
