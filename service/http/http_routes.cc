// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/http_routes.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "service/base/status_macros.h"
#include "service/http/board_svg.h"
#include "service/http/callback_routes.h"
#include "service/http/compact_view.h"
#include "service/http/http_events.h"
#include "service/http/http_request.h"
#include "service/http/json_codec.h"
#include "service/http/openapi_document.h"
#include "service/http/web_assets.h"
#include "service/text/quoted_input.h"
#include "service/wire/server_version.h"

namespace khet {

void Reply(HttpCall& call, std::string body, const char* content_type) {
  call.response.status = 200;
  call.response.content_type = content_type;
  call.response.body = std::move(body);
}

bool MatchRoute(const std::string& route_path, const std::string& path,
                std::string* id, std::vector<std::string>* more) {
  const absl::string_view route(route_path);
  const absl::string_view text(path);
  std::vector<std::string> values;
  size_t r = 0;  // in route
  size_t p = 0;  // in text
  while (true) {
    const size_t open = route.find('{', r);
    const absl::string_view literal = route.substr(
        r,
        open == absl::string_view::npos ? absl::string_view::npos : open - r);
    if (text.substr(p, literal.size()) != literal) return false;
    p += literal.size();
    if (open == absl::string_view::npos) break;
    size_t end = text.find_first_of("/:", p);
    if (end == absl::string_view::npos) end = text.size();
    if (end == p) return false;  // an empty value
    values.emplace_back(text.substr(p, end - p));
    p = end;
    r = route.find('}', open) + 1;
  }
  if (p != text.size()) return false;
  if (!values.empty()) *id = values.front();
  if (more != nullptr && !values.empty()) {
    more->assign(values.begin() + 1, values.end());
  }
  return true;
}

namespace {

// The request message of a route on one session: the body's JSON with the
// path's id. A body naming another session is INVALID_ARGUMENT.
template <typename Request>
absl::StatusOr<Request> SessionBody(const HttpCall& call) {
  Request request;
  KHET_RETURN_IF_ERROR(ParseJsonBody(call.request.body, &request));
  if (!request.session_id().empty() &&
      request.session_id() != call.session_id) {
    return absl::InvalidArgumentError(
        absl::StrCat("the body's sessionId \"", request.session_id(),
                     "\" differs from the path's \"", call.session_id,
                     "\"; leave it out of the body"));
  }
  request.set_session_id(call.session_id);
  return request;
}

// A request message of a route without a session: the body's JSON.
template <typename Request>
absl::StatusOr<Request> Body(const HttpCall& call) {
  Request request;
  KHET_RETURN_IF_ERROR(ParseJsonBody(call.request.body, &request));
  return request;
}

absl::Status NoQuery(const HttpCall& call) {
  return Query::Read(call.request, {}).status();
}

// A route that answers the Session from a method of the core taking the
// session's request and a caller; `?view=compact` answers CompactSession.
template <typename Request, typename Method>
RouteHandler WithToken(SessionService* core, Method method) {
  return [core, method](HttpCall& call) -> absl::Status {
    KHET_ASSIGN_OR_RETURN(Query query, Query::Read(call.request, {"view"}));
    KHET_ASSIGN_OR_RETURN(const bool compact, query.Compact());
    KHET_ASSIGN_OR_RETURN(Request request, SessionBody<Request>(call));
    KHET_ASSIGN_OR_RETURN(Caller caller, CallerOf(call.request));
    KHET_ASSIGN_OR_RETURN(v1::Session session,
                          (core->*method)(request, caller));
    Reply(call, compact ? CompactSession(session) : ToJson(session));
    return absl::OkStatus();
  };
}

// ListGames from the query (and the path's session, if any).
absl::Status ServeGames(SessionService* core, HttpCall& call,
                        bool session_in_query) {
  KHET_ASSIGN_OR_RETURN(
      Query query,
      session_in_query
          ? Query::Read(call.request, {"sessionId", "player", "setupId",
                                       "result", "pageSize", "pageToken"})
          : Query::Read(call.request, {"player", "setupId", "result",
                                       "pageSize", "pageToken"}));
  v1::ListGamesRequest request;
  request.set_session_id(session_in_query ? query.Text("sessionId", "")
                                          : call.session_id);
  request.set_player(query.Text("player", ""));
  request.set_setup_id(query.Text("setupId", ""));
  request.set_result(query.Text("result", ""));
  KHET_ASSIGN_OR_RETURN(const int64_t page_size,
                        query.Number("pageSize", 0, 0, 1000000));
  request.set_page_size(static_cast<int32_t>(page_size));
  request.set_page_token(query.Text("pageToken", ""));
  KHET_ASSIGN_OR_RETURN(v1::ListGamesResponse response,
                        core->ListGames(request));
  Reply(call, ToJson(response));
  return absl::OkStatus();
}

// The GetGameRecord of the path's session and game.
absl::StatusOr<v1::GetGameRecordResponse> RecordOf(SessionService* core,
                                                   const HttpCall& call) {
  v1::GetGameRecordRequest request;
  request.set_session_id(call.session_id);
  request.set_game_id(call.path_values.at(0));
  return core->GetGameRecord(request);
}

Route Get(std::string path, RouteHandler handler) {
  return {"GET", std::move(path), std::move(handler)};
}
Route Post(std::string path, RouteHandler handler) {
  return {"POST", std::move(path), std::move(handler)};
}

}  // namespace

std::vector<Route> ApiRoutes(const RouteContext& context) {
  SessionService* const core = context.core;
  const HttpGatewayOptions* const options = context.options;
  std::vector<Route> routes;

  // khetd's release and the API package (GetVersion).
  routes.push_back(Get("/v1/version", [](HttpCall& call) {
    KHET_RETURN_IF_ERROR(NoQuery(call));
    Reply(call, ToJson(ServerVersion()));
    return absl::OkStatus();
  }));
  // The in-world board's scripts and OAR, for a board maker and a board's
  // Settings > Update (web_assets.h).
  routes.push_back(Get("/v1/inworld/{file}", [](HttpCall& call) {
    KHET_RETURN_IF_ERROR(NoQuery(call));
    const std::string file = std::move(call.session_id);
    call.session_id.clear();  // a file, not a session, in the log
    std::vector<std::string> names;
    for (const WebAsset& asset : BoardAssets()) {
      names.emplace_back(asset.path);
      if (asset.path != file) continue;
      Reply(call, std::string(asset.body), "");
      call.response.content_type = std::string(asset.content_type);
      call.response.headers.emplace_back(
          "Content-Disposition",
          absl::StrCat("attachment; filename=\"", file, "\""));
      return absl::OkStatus();
    }
    return absl::NotFoundError(absl::StrCat("no in-world board file ",
                                            QuoteInput(file), "; there are ",
                                            absl::StrJoin(names, ", ")));
  }));
  routes.push_back(Get("/v1/setups", [core](HttpCall& call) {
    KHET_RETURN_IF_ERROR(NoQuery(call));
    Reply(call, ToJson(core->ListSetups()));
    return absl::OkStatus();
  }));
  routes.push_back(Get("/v1/colorSchemes", [core](HttpCall& call) {
    KHET_RETURN_IF_ERROR(NoQuery(call));
    Reply(call, ToJson(core->ListColorSchemes()));
    return absl::OkStatus();
  }));
  routes.push_back(Get("/v1/levels", [core](HttpCall& call) {
    KHET_RETURN_IF_ERROR(NoQuery(call));
    Reply(call, ToJson(core->ListLevels()));
    return absl::OkStatus();
  }));
  routes.push_back(Get("/v1/presets", [core](HttpCall& call) {
    KHET_RETURN_IF_ERROR(NoQuery(call));
    Reply(call, ToJson(core->ListPresets()));
    return absl::OkStatus();
  }));
  // The OpenAPI document of these routes (docs/openapi.yaml).
  routes.push_back(Get("/v1/openapi.json", [](HttpCall& call) {
    KHET_RETURN_IF_ERROR(NoQuery(call));
    Reply(call, std::string(OpenApiJson()));
    return absl::OkStatus();
  }));

  routes.push_back(Post("/v1/sessions", [core](HttpCall& call) {
    KHET_ASSIGN_OR_RETURN(Query query, Query::Read(call.request, {"view"}));
    KHET_ASSIGN_OR_RETURN(const bool compact, query.Compact());
    KHET_ASSIGN_OR_RETURN(v1::CreateSessionRequest request,
                          Body<v1::CreateSessionRequest>(call));
    KHET_ASSIGN_OR_RETURN(
        v1::CreateSessionResponse created,
        core->CreateSession(request, CallerFrom(call.client)));
    call.session_id = created.session().id();
    Reply(call, compact ? CompactCreated(created) : ToJson(created));
    return absl::OkStatus();
  }));
  routes.push_back(Get("/v1/sessions", [core](HttpCall& call) {
    KHET_ASSIGN_OR_RETURN(
        Query query,
        Query::Read(call.request, {"pageSize", "pageToken", "status"}));
    v1::ListSessionsRequest request;
    KHET_ASSIGN_OR_RETURN(const int64_t page_size,
                          query.Number("pageSize", 0, 0, 1000000));
    request.set_page_size(static_cast<int32_t>(page_size));
    request.set_page_token(query.Text("pageToken", ""));
    const std::string status = query.Text("status", "GAME_STATUS_UNSPECIFIED");
    v1::GameStatus parsed;
    if (!v1::GameStatus_Parse(status, &parsed)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query parameter status must be WAITING_FOR_PLAYERS, IN_PROGRESS or "
          "FINISHED, not \"",
          status, "\""));
    }
    request.set_status(parsed);
    KHET_ASSIGN_OR_RETURN(v1::ListSessionsResponse response,
                          core->ListSessions(request));
    Reply(call, ToJson(response));
    return absl::OkStatus();
  }));
  routes.push_back(Get("/v1/sessions/{id}", [core](HttpCall& call) {
    KHET_ASSIGN_OR_RETURN(Query query, Query::Read(call.request, {"view"}));
    KHET_ASSIGN_OR_RETURN(const bool compact, query.Compact());
    v1::GetSessionRequest request;
    request.set_session_id(call.session_id);
    KHET_ASSIGN_OR_RETURN(v1::Session session, core->GetSession(request));
    Reply(call, compact ? CompactSession(session) : ToJson(session));
    return absl::OkStatus();
  }));
  routes.push_back(
      {"DELETE", "/v1/sessions/{id}", [core](HttpCall& call) -> absl::Status {
         KHET_RETURN_IF_ERROR(NoQuery(call));
         KHET_ASSIGN_OR_RETURN(v1::DeleteSessionRequest request,
                               SessionBody<v1::DeleteSessionRequest>(call));
         KHET_ASSIGN_OR_RETURN(Caller caller, CallerOf(call.request));
         KHET_RETURN_IF_ERROR(core->DeleteSession(request, caller));
         Reply(call, ToJson(v1::DeleteSessionResponse()));
         return absl::OkStatus();
       }});

  routes.push_back(Post("/v1/sessions/{id}:join", [core](HttpCall& call) {
    KHET_ASSIGN_OR_RETURN(Query query, Query::Read(call.request, {"view"}));
    KHET_ASSIGN_OR_RETURN(const bool compact, query.Compact());
    KHET_ASSIGN_OR_RETURN(v1::JoinSeatRequest request,
                          SessionBody<v1::JoinSeatRequest>(call));
    KHET_ASSIGN_OR_RETURN(v1::JoinSeatResponse response,
                          core->JoinSeat(request));
    Reply(call, compact ? CompactJoined(response) : ToJson(response));
    return absl::OkStatus();
  }));
  routes.push_back(
      Post("/v1/sessions/{id}:leave",
           WithToken<v1::LeaveSeatRequest>(core, &SessionService::LeaveSeat)));
  routes.push_back(Post(
      "/v1/sessions/{id}:seatComputer",
      WithToken<v1::SeatComputerRequest>(core, &SessionService::SeatComputer)));
  routes.push_back(Post(
      "/v1/sessions/{id}:chooseSetup",
      WithToken<v1::ChooseSetupRequest>(core, &SessionService::ChooseSetup)));

  routes.push_back(Post("/v1/sessions/{id}:move", [core](HttpCall& call) {
    KHET_ASSIGN_OR_RETURN(Query query, Query::Read(call.request, {"view"}));
    KHET_ASSIGN_OR_RETURN(const bool compact, query.Compact());
    KHET_ASSIGN_OR_RETURN(v1::MakeMoveRequest request,
                          SessionBody<v1::MakeMoveRequest>(call));
    KHET_ASSIGN_OR_RETURN(Caller caller, CallerOf(call.request));
    KHET_ASSIGN_OR_RETURN(v1::MakeMoveResponse response,
                          core->MakeMove(request, caller));
    Reply(call, compact ? CompactMoveReply(response) : ToJson(response));
    return absl::OkStatus();
  }));
  routes.push_back(Get("/v1/sessions/{id}/legalMoves", [core](HttpCall& call) {
    KHET_ASSIGN_OR_RETURN(Query query,
                          Query::Read(call.request, {"square", "view"}));
    KHET_ASSIGN_OR_RETURN(const bool compact, query.Compact());
    v1::ListLegalMovesRequest request;
    request.set_session_id(call.session_id);
    request.set_square(query.Text("square", ""));
    KHET_ASSIGN_OR_RETURN(v1::ListLegalMovesResponse response,
                          core->ListLegalMoves(request));
    Reply(call, compact ? CompactLegalMoves(response) : ToJson(response));
    return absl::OkStatus();
  }));
  routes.push_back(Post(
      "/v1/sessions/{id}:suggest",
      [core, options, waiting = context.waiting](HttpCall& call) {
        KHET_ASSIGN_OR_RETURN(Query query,
                              Query::Read(call.request, {"timeoutMs"}));
        KHET_ASSIGN_OR_RETURN(
            const int64_t timeout_ms,
            query.Number(
                "timeoutMs",
                absl::ToInt64Milliseconds(options->suggest_timeout), 1,
                absl::ToInt64Milliseconds(options->max_suggest_timeout)));
        KHET_ASSIGN_OR_RETURN(v1::SuggestMoveRequest request,
                              SessionBody<v1::SuggestMoveRequest>(call));
        CallControl control;
        control.address = call.client.address;
        control.deadline = absl::Now() + absl::Milliseconds(timeout_ms);
        control.check = [waiting, exchange = call.exchange]() -> absl::Status {
          if (waiting->shutting_down()) {
            return absl::UnavailableError(
                "khetd is shutting down; ask again later");
          }
          if (exchange != nullptr && exchange->gone()) {
            return absl::CancelledError("the client went away");
          }
          return absl::OkStatus();
        };
        KHET_ASSIGN_OR_RETURN(v1::SuggestMoveResponse response,
                              core->SuggestMove(request, control));
        Reply(call, ToJson(response));
        return absl::OkStatus();
      }));
  routes.push_back(
      Post("/v1/sessions/{id}:resign",
           WithToken<v1::ResignRequest>(core, &SessionService::Resign)));
  routes.push_back(
      Post("/v1/sessions/{id}:offerDraw",
           WithToken<v1::OfferDrawRequest>(core, &SessionService::OfferDraw)));
  routes.push_back(Post(
      "/v1/sessions/{id}:acceptDraw",
      WithToken<v1::AcceptDrawRequest>(core, &SessionService::AcceptDraw)));
  routes.push_back(Post("/v1/sessions/{id}:claimRepetitionDraw",
                        WithToken<v1::ClaimRepetitionDrawRequest>(
                            core, &SessionService::ClaimRepetitionDraw)));
  routes.push_back(Post("/v1/sessions/{id}:requestTakeback",
                        WithToken<v1::RequestTakebackRequest>(
                            core, &SessionService::RequestTakeback)));
  routes.push_back(Post("/v1/sessions/{id}:acceptTakeback",
                        WithToken<v1::AcceptTakebackRequest>(
                            core, &SessionService::AcceptTakeback)));
  routes.push_back(Post("/v1/sessions/{id}:declineTakeback",
                        WithToken<v1::DeclineTakebackRequest>(
                            core, &SessionService::DeclineTakeback)));
  routes.push_back(Post("/v1/sessions/{id}:updateSettings",
                        WithToken<v1::UpdateSettingsRequest>(
                            core, &SessionService::UpdateSettings)));
  routes.push_back(
      Post("/v1/sessions/{id}:reset",
           WithToken<v1::ResetGameRequest>(core, &SessionService::ResetGame)));
  routes.push_back(
      Post("/v1/sessions/{id}:rematch",
           WithToken<v1::RematchRequest>(core, &SessionService::Rematch)));

  routes.push_back(Get("/v1/sessions/{id}/events", LongPollHandler(context)));
  routes.push_back(
      Get("/v1/sessions/{id}/events:stream", EventStreamHandler(context)));

  routes.push_back(Get("/v1/sessions/{id}/board", [core](HttpCall& call) {
    KHET_ASSIGN_OR_RETURN(Query query, Query::Read(call.request, {"laser"}));
    KHET_ASSIGN_OR_RETURN(const bool laser, query.Flag("laser", true));
    v1::RenderBoardRequest request;
    request.set_session_id(call.session_id);
    request.set_without_laser(!laser);
    KHET_ASSIGN_OR_RETURN(v1::RenderBoardResponse response,
                          core->RenderBoard(request));
    Reply(call, ToJson(response));
    return absl::OkStatus();
  }));
  routes.push_back(Get("/v1/sessions/{id}/board.svg", [core](HttpCall& call) {
    KHET_ASSIGN_OR_RETURN(Query query, Query::Read(call.request, {"laser"}));
    KHET_ASSIGN_OR_RETURN(const bool laser, query.Flag("laser", true));
    v1::GetSessionRequest request;
    request.set_session_id(call.session_id);
    KHET_ASSIGN_OR_RETURN(v1::Session session, core->GetSession(request));
    Reply(call, BoardSvg(session, laser), "image/svg+xml");
    return absl::OkStatus();
  }));

  // Player ids may hold ':' and '/', so the id is a query parameter.
  routes.push_back(Get("/v1/player", [core](HttpCall& call) {
    KHET_ASSIGN_OR_RETURN(Query query, Query::Read(call.request, {"playerId"}));
    v1::GetPlayerRequest request;
    request.set_player_id(query.Text("playerId", ""));
    KHET_ASSIGN_OR_RETURN(v1::Player player, core->GetPlayer(request));
    Reply(call, ToJson(player));
    return absl::OkStatus();
  }));
  routes.push_back(Get("/v1/players", [core](HttpCall& call) {
    KHET_ASSIGN_OR_RETURN(Query query,
                          Query::Read(call.request, {"pageSize", "pageToken"}));
    v1::ListPlayersRequest request;
    KHET_ASSIGN_OR_RETURN(const int64_t page_size,
                          query.Number("pageSize", 0, 0, 1000000));
    request.set_page_size(static_cast<int32_t>(page_size));
    request.set_page_token(query.Text("pageToken", ""));
    KHET_ASSIGN_OR_RETURN(v1::ListPlayersResponse response,
                          core->ListPlayers(request));
    Reply(call, ToJson(response));
    return absl::OkStatus();
  }));
  routes.push_back(Get("/v1/games", [core](HttpCall& call) {
    return ServeGames(core, call, /*session_in_query=*/true);
  }));
  routes.push_back(Get("/v1/sessions/{id}/games", [core](HttpCall& call) {
    return ServeGames(core, call, /*session_in_query=*/false);
  }));
  routes.push_back(
      Get("/v1/sessions/{id}/games/{game}", [core](HttpCall& call) {
        KHET_RETURN_IF_ERROR(NoQuery(call));
        KHET_ASSIGN_OR_RETURN(v1::GetGameRecordResponse response,
                              RecordOf(core, call));
        Reply(call, ToJson(response));
        return absl::OkStatus();
      }));
  routes.push_back(
      Get("/v1/sessions/{id}/games/{game}/record", [core](HttpCall& call) {
        KHET_RETURN_IF_ERROR(NoQuery(call));
        KHET_ASSIGN_OR_RETURN(v1::GetGameRecordResponse response,
                              RecordOf(core, call));
        // Game ids are the session's id and "-g<N>": safe in the header.
        call.response.headers.emplace_back(
            "Content-Disposition",
            absl::StrCat("attachment; filename=\"", response.game().id(),
                         ".khet\""));
        Reply(call, std::move(*response.mutable_text()),
              "text/plain; charset=utf-8");
        return absl::OkStatus();
      }));
  routes.push_back(Get(
      "/v1/sessions/{id}/games/{game}/positions/{ply}", [core](HttpCall& call) {
        KHET_RETURN_IF_ERROR(NoQuery(call));
        v1::GetPositionRequest request;
        request.set_session_id(call.session_id);
        request.set_game_id(call.path_values.at(0));
        KHET_ASSIGN_OR_RETURN(
            const int64_t ply,
            ParseNumber("ply", call.path_values.at(1), 0, 1 << 30));
        request.set_ply(static_cast<int32_t>(ply));
        KHET_ASSIGN_OR_RETURN(v1::GetPositionResponse response,
                              core->GetPosition(request));
        Reply(call, ToJson(response));
        return absl::OkStatus();
      }));
  routes.push_back(
      Post("/v1/sessions/{id}/games/{game}:analyze", [core](HttpCall& call) {
        KHET_RETURN_IF_ERROR(NoQuery(call));
        KHET_ASSIGN_OR_RETURN(v1::AnalyzeGameRequest request,
                              SessionBody<v1::AnalyzeGameRequest>(call));
        const std::string& game = call.path_values.at(0);
        if (!request.game_id().empty() && request.game_id() != game) {
          return absl::InvalidArgumentError(
              absl::StrCat("the body's gameId ", QuoteInput(request.game_id()),
                           " differs from the path's ", QuoteInput(game),
                           "; leave it out of the body"));
        }
        request.set_game_id(game);
        KHET_ASSIGN_OR_RETURN(
            v1::GameAnalysis response,
            core->AnalyzeGame(request, CallerFrom(call.client)));
        Reply(call, ToJson(response));
        return absl::OkStatus();
      }));
  for (Route& route : CallbackRoutes(context))
    routes.push_back(std::move(route));
  return routes;
}

}  // namespace khet
