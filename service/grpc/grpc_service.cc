// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/grpc/grpc_service.h"

#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "service/base/random_source.h"
#include "service/grpc/event_bytes.h"
#include "service/grpc/request_bytes.h"
#include "service/grpc/request_log.h"
#include "service/grpc/status_conversion.h"
#include "service/wire/server_version.h"

namespace khet {
namespace {

constexpr absl::string_view kAuthorization = "authorization";
// Threads resuming woken watches when the store never waits.
constexpr int kWakeThreads = 2;
// Threads reading watches' events when the store may wait.
constexpr int kWatchReadThreads = 8;
// Threads for SuggestMove calls at once (each idle one exits after a
// while): more than the core's limit of searches at once, so that calls
// beyond it are refused at once rather than queued.
constexpr int kSuggestThreads = 64;
constexpr absl::string_view kBearer = "bearer ";

absl::Status Unauthenticated(absl::string_view problem) {
  return absl::UnauthenticatedError(absl::StrCat(
      problem,
      "; send the metadata entry \"authorization: Bearer <token>\" "
      "with the token from CreateSession or JoinSeat"));
}

// A call's result as its response's bytes: a response message's (given
// as is, or as an absl::StatusOr of it), or an empty message's for the
// calls whose work answers only a status.
template <typename Result>
absl::StatusOr<grpc::ByteBuffer> BytesOf(Result result) {
  if constexpr (std::is_base_of_v<google::protobuf::Message, Result>) {
    return OwnedBytes(result.SerializeAsString());
  } else if constexpr (std::is_same_v<Result, absl::Status>) {
    if (!result.ok()) return result;
    return OwnedBytes("");
  } else {
    if (!result.ok()) return result.status();
    return OwnedBytes(result->SerializeAsString());
  }
}

}  // namespace

absl::StatusOr<Caller> CallerFromMetadata(
    const std::multimap<grpc::string_ref, grpc::string_ref>& metadata) {
  const auto [first, last] = metadata.equal_range(
      grpc::string_ref(kAuthorization.data(), kAuthorization.size()));
  if (first == last) return Unauthenticated("no authorization metadata");
  if (std::next(first) != last) {
    return Unauthenticated("more than one authorization metadata entry");
  }
  const absl::string_view value(first->second.data(), first->second.size());
  if (value.size() <= kBearer.size() ||
      !absl::EqualsIgnoreCase(value.substr(0, kBearer.size()), kBearer)) {
    return Unauthenticated(
        "the authorization metadata is not of the form \"Bearer <token>\"");
  }
  const absl::string_view token =
      absl::StripAsciiWhitespace(value.substr(kBearer.size()));
  for (const char c : token) {
    if (!absl::ascii_isgraph(static_cast<unsigned char>(c))) {
      return Unauthenticated(
          "the bearer token in the authorization metadata holds a space or "
          "a control character");
    }
  }
  if (token.empty()) {
    return Unauthenticated("the authorization metadata has an empty token");
  }
  if (!IsWellFormedToken(token)) {
    return Unauthenticated(absl::StrCat(
        "the bearer token in the authorization metadata is malformed: ",
        kTokenShape));
  }
  return Caller{std::string(token)};
}

KhetGrpcService::KhetGrpcService(SessionService* core,
                                 KhetGrpcServiceOptions options)
    : core_(core),
      options_(std::move(options)),
      store_pool_(options_.store_threads > 0
                      ? std::make_unique<CallPool>(options_.store_threads)
                      : nullptr),
      watch_pool_(std::make_unique<CallPool>(
          options_.store_threads > 0 ? kWatchReadThreads : kWakeThreads)),
      suggest_pool_(std::make_unique<CallPool>(kSuggestThreads)) {}

KhetGrpcService::~KhetGrpcService() {
  // The server has shut down, so every watch has ended; the lock orders
  // this after their OnDone for ThreadSanitizer, which cannot see gRPC's own
  // waiting.
  MutexLock lock(&mu_);
}

void KhetGrpcService::Log(const std::string& line) {
  if (options_.log) {
    options_.log(line);
    return;
  }
  // One write per line so that lines from concurrent requests never mix.
  const std::string out = line + "\n";
  [[maybe_unused]] const ssize_t written =
      ::write(STDERR_FILENO, out.data(), out.size());
}

absl::Status KhetGrpcService::Admit(const grpc::ServerContextBase& context,
                                    RequestLog& log) {
  if (options_.callers == nullptr) return absl::OkStatus();
  const std::multimap<grpc::string_ref, grpc::string_ref>& metadata =
      context.client_metadata();
  std::vector<absl::string_view> forwarded_for;
  const auto [first, last] = metadata.equal_range(
      grpc::string_ref(kForwardedForHeader.data(), kForwardedForHeader.size()));
  for (auto it = first; it != last; ++it) {
    forwarded_for.emplace_back(it->second.data(), it->second.size());
  }
  absl::string_view object_key;
  const auto object = metadata.find(
      grpc::string_ref(kObjectKeyHeader.data(), kObjectKeyHeader.size()));
  if (object != metadata.end()) {
    object_key =
        absl::string_view(object->second.data(), object->second.size());
  }
  log.set_client(options_.callers->Identify(AddressOfGrpcPeer(context.peer()),
                                            forwarded_for, object_key));
  return options_.callers->AdmitCall(log.client());
}

template <typename Request, typename Work>
grpc::ServerUnaryReactor* KhetGrpcService::Serve(
    grpc::CallbackServerContext* context, absl::string_view name,
    const grpc::ByteBuffer* bytes, CallPool* pool, grpc::ByteBuffer* response,
    Work work) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  auto request = std::make_unique<Request>();
  const absl::Status parsed = ParseRequest(*bytes, request.get());
  std::string session_id;
  if constexpr (requires(const Request& r) { r.session_id(); }) {
    session_id = request->session_id();
  }
  RequestLog log(this, name, session_id);
  log.set_peer(*context);
  if (absl::Status admitted = Admit(*context, log); !admitted.ok()) {
    reactor->Finish(log.Done(admitted));
    return reactor;
  }
  if (!parsed.ok()) {
    reactor->Finish(log.Done(parsed));
    return reactor;
  }
  auto serve = [reactor, response, log = std::move(log),
                request = std::move(request),
                work = std::move(work)]() mutable {
    // The call, its request and response live until Finish.
    reactor->Finish(log.Done(BytesOf(work(*request, log)), response));
  };
  if (pool != nullptr) {
    pool->Schedule(std::move(serve));
  } else {
    serve();
  }
  return reactor;
}

template <typename Request, typename Result>
grpc::ServerUnaryReactor* KhetGrpcService::ServeCaller(
    grpc::CallbackServerContext* context, absl::string_view name,
    const grpc::ByteBuffer* bytes, grpc::ByteBuffer* response,
    Result (SessionService::*method)(const Request&, const Caller&)) {
  return Serve<Request>(
      context, name, bytes, store_pool_.get(), response,
      [this, context, method](const Request& request, RequestLog&) -> Result {
        absl::StatusOr<Caller> caller =
            CallerFromMetadata(context->client_metadata());
        if (!caller.ok()) return caller.status();
        return (core_->*method)(request, *caller);
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListSetups(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::ListSetupsRequest>(
      context, "ListSetups", bytes, nullptr, response,
      [this](const v1::ListSetupsRequest&, RequestLog&) {
        return core_->ListSetups();
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListColorSchemes(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::ListColorSchemesRequest>(
      context, "ListColorSchemes", bytes, nullptr, response,
      [this](const v1::ListColorSchemesRequest&, RequestLog&) {
        return core_->ListColorSchemes();
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::CreateSession(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::CreateSessionRequest>(
      context, "CreateSession", bytes, store_pool_.get(), response,
      [this](const v1::CreateSessionRequest& request, RequestLog& log) {
        absl::StatusOr<v1::CreateSessionResponse> created =
            core_->CreateSession(request, CallerFrom(log.client()));
        if (created.ok()) log.set_session_id(created->session().id());
        return created;
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::GetSession(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::GetSessionRequest>(
      context, "GetSession", bytes, store_pool_.get(), response,
      [this](const v1::GetSessionRequest& request, RequestLog&) {
        return core_->GetSession(request);
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListSessions(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::ListSessionsRequest>(
      context, "ListSessions", bytes, store_pool_.get(), response,
      [this](const v1::ListSessionsRequest& request, RequestLog&) {
        return core_->ListSessions(request);
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::DeleteSession(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::DeleteSessionRequest>(context, "DeleteSession", bytes,
                                               response,
                                               &SessionService::DeleteSession);
}

grpc::ServerUnaryReactor* KhetGrpcService::JoinSeat(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::JoinSeatRequest>(
      context, "JoinSeat", bytes, store_pool_.get(), response,
      [this](const v1::JoinSeatRequest& request, RequestLog&) {
        return core_->JoinSeat(request);
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::LeaveSeat(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::LeaveSeatRequest>(
      context, "LeaveSeat", bytes, response, &SessionService::LeaveSeat);
}

grpc::ServerUnaryReactor* KhetGrpcService::ChooseSetup(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::ChooseSetupRequest>(
      context, "ChooseSetup", bytes, response, &SessionService::ChooseSetup);
}

grpc::ServerUnaryReactor* KhetGrpcService::MakeMove(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  // The call's state, shared by the ways it may end.
  struct Call {
    Call(KhetGrpcService* service, grpc::ServerUnaryReactor* r,
         grpc::ByteBuffer* out)
        : reactor(r), response(out), log(service, "MakeMove", "") {}
    void Finish(absl::StatusOr<v1::MakeMoveResponse> reply) {
      absl::StatusOr<grpc::ByteBuffer> bytes =
          reply.ok() ? absl::StatusOr<grpc::ByteBuffer>(
                           OwnedBytes(reply->SerializeAsString()))
                     : absl::StatusOr<grpc::ByteBuffer>(reply.status());
      reactor->Finish(log.Done(std::move(bytes), response));
    }
    grpc::ServerUnaryReactor* const reactor;
    grpc::ByteBuffer* const response;
    RequestLog log;
    v1::MakeMoveRequest request;
    absl::StatusOr<Caller> caller = absl::UnknownError("not read");
  };
  auto call = std::make_shared<Call>(this, context->DefaultReactor(), response);
  const absl::Status parsed = ParseRequest(*request, &call->request);
  call->log.set_session_id(call->request.session_id());
  call->log.set_peer(*context);
  if (absl::Status admitted = Admit(*context, call->log); !admitted.ok()) {
    call->Finish(std::move(admitted));
    return call->reactor;
  }
  if (!parsed.ok()) {
    call->Finish(parsed);
    return call->reactor;
  }
  call->caller = CallerFromMetadata(context->client_metadata());
  if (!call->caller.ok()) {
    call->Finish(call->caller.status());
    return call->reactor;
  }
  // Waits for the store: on a store thread when the service has them.
  auto wait_for_it = [this, call] {
    auto serve = [this, call] {
      call->Finish(core_->MakeMove(call->request, *call->caller));
    };
    if (store_pool_ != nullptr) {
      store_pool_->Schedule(std::move(serve));
    } else {
      serve();
    }
  };
  // On a store that answers later, the move is played right here and the
  // call finished by the store's thread once the write is committed: no
  // thread waits for it.
  if (store_pool_ != nullptr &&
      core_->MakeMoveLater(
          call->request, *call->caller,
          [call](absl::StatusOr<v1::MakeMoveResponse> reply) {
            call->Finish(std::move(reply));
          },
          wait_for_it)) {
    return call->reactor;
  }
  wait_for_it();
  return call->reactor;
}

grpc::ServerUnaryReactor* KhetGrpcService::ListLegalMoves(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::ListLegalMovesRequest>(
      context, "ListLegalMoves", bytes, store_pool_.get(), response,
      [this](const v1::ListLegalMovesRequest& request, RequestLog&) {
        return core_->ListLegalMoves(request);
      });
}

// A search runs for up to seconds: on a thread of the suggestions' own pool,
// never on gRPC's callback threads.
grpc::ServerUnaryReactor* KhetGrpcService::SuggestMove(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::SuggestMoveRequest>(
      context, "SuggestMove", bytes, suggest_pool_.get(), response,
      [this, context](const v1::SuggestMoveRequest& request, RequestLog& log) {
        CallControl control = ControlOf(*context);
        control.address = log.client().address;
        return core_->SuggestMove(request, control);
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListLevels(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::ListLevelsRequest>(
      context, "ListLevels", bytes, nullptr, response,
      [this](const v1::ListLevelsRequest&, RequestLog&) {
        return core_->ListLevels();
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListPresets(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::ListPresetsRequest>(
      context, "ListPresets", bytes, nullptr, response,
      [this](const v1::ListPresetsRequest&, RequestLog&) {
        return core_->ListPresets();
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::GetVersion(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::GetVersionRequest>(
      context, "GetVersion", bytes, nullptr, response,
      [](const v1::GetVersionRequest&,
         RequestLog&) -> absl::StatusOr<v1::GetVersionResponse> {
        return ServerVersion();
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::SeatComputer(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::SeatComputerRequest>(
      context, "SeatComputer", bytes, response, &SessionService::SeatComputer);
}

grpc::ServerUnaryReactor* KhetGrpcService::Resign(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::ResignRequest>(context, "Resign", bytes, response,
                                        &SessionService::Resign);
}

grpc::ServerUnaryReactor* KhetGrpcService::OfferDraw(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::OfferDrawRequest>(
      context, "OfferDraw", bytes, response, &SessionService::OfferDraw);
}

grpc::ServerUnaryReactor* KhetGrpcService::AcceptDraw(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::AcceptDrawRequest>(
      context, "AcceptDraw", bytes, response, &SessionService::AcceptDraw);
}

grpc::ServerUnaryReactor* KhetGrpcService::ClaimRepetitionDraw(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::ClaimRepetitionDrawRequest>(
      context, "ClaimRepetitionDraw", bytes, response,
      &SessionService::ClaimRepetitionDraw);
}

grpc::ServerUnaryReactor* KhetGrpcService::RequestTakeback(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::RequestTakebackRequest>(
      context, "RequestTakeback", bytes, response,
      &SessionService::RequestTakeback);
}

grpc::ServerUnaryReactor* KhetGrpcService::AcceptTakeback(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::AcceptTakebackRequest>(
      context, "AcceptTakeback", bytes, response,
      &SessionService::AcceptTakeback);
}

grpc::ServerUnaryReactor* KhetGrpcService::DeclineTakeback(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::DeclineTakebackRequest>(
      context, "DeclineTakeback", bytes, response,
      &SessionService::DeclineTakeback);
}

grpc::ServerUnaryReactor* KhetGrpcService::UpdateSettings(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::UpdateSettingsRequest>(
      context, "UpdateSettings", bytes, response,
      &SessionService::UpdateSettings);
}

grpc::ServerUnaryReactor* KhetGrpcService::ResetGame(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::ResetGameRequest>(
      context, "ResetGame", bytes, response, &SessionService::ResetGame);
}

grpc::ServerUnaryReactor* KhetGrpcService::Rematch(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return ServeCaller<v1::RematchRequest>(context, "Rematch", bytes, response,
                                         &SessionService::Rematch);
}

grpc::ServerUnaryReactor* KhetGrpcService::RenderBoard(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::RenderBoardRequest>(
      context, "RenderBoard", bytes, store_pool_.get(), response,
      [this](const v1::RenderBoardRequest& request, RequestLog&) {
        return core_->RenderBoard(request);
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::GetGameRecord(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::GetGameRecordRequest>(
      context, "GetGameRecord", bytes, store_pool_.get(), response,
      [this](const v1::GetGameRecordRequest& request, RequestLog&) {
        return core_->GetGameRecord(request);
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListGames(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::ListGamesRequest>(
      context, "ListGames", bytes, store_pool_.get(), response,
      [this](const v1::ListGamesRequest& request, RequestLog&) {
        return core_->ListGames(request);
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::GetPosition(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::GetPositionRequest>(
      context, "GetPosition", bytes, store_pool_.get(), response,
      [this](const v1::GetPositionRequest& request, RequestLog&) {
        return core_->GetPosition(request);
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::AnalyzeGame(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::AnalyzeGameRequest>(
      context, "AnalyzeGame", bytes, store_pool_.get(), response,
      [this](const v1::AnalyzeGameRequest& request, RequestLog& log) {
        return core_->AnalyzeGame(request, CallerFrom(log.client()));
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::GetPlayer(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::GetPlayerRequest>(
      context, "GetPlayer", bytes, nullptr, response,
      [this](const v1::GetPlayerRequest& request, RequestLog&) {
        return core_->GetPlayer(request);
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListPlayers(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* bytes,
    grpc::ByteBuffer* response) {
  return Serve<v1::ListPlayersRequest>(
      context, "ListPlayers", bytes, nullptr, response,
      [this](const v1::ListPlayersRequest& request, RequestLog&) {
        return core_->ListPlayers(request);
      });
}

CallControl KhetGrpcService::ControlOf(grpc::ServerContextBase& context) {
  CallControl control;
  const std::chrono::system_clock::time_point deadline = context.deadline();
  if (deadline != std::chrono::system_clock::time_point::max()) {
    control.deadline = absl::FromChrono(deadline);
  }
  control.check = [this, &context]() -> absl::Status {
    if (shutting_down_) {
      return absl::UnavailableError("khetd is shutting down; ask again later");
    }
    if (context.IsCancelled()) {
      return absl::CancelledError("the client cancelled the call");
    }
    return absl::OkStatus();
  };
  return control;
}

void EnableHealthCheckingAndReflection() {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
}

void ReportServing(grpc::Server* server) {
  if (grpc::HealthCheckServiceInterface* health =
          server->GetHealthCheckService()) {
    health->SetServingStatus(v1::KhetService::service_full_name(), true);
  }
}

void AddKhetService(grpc::ServerBuilder* builder, KhetGrpcService* service,
                    int max_message_bytes) {
  builder->RegisterService(service);
  builder->SetMaxReceiveMessageSize(max_message_bytes);
}

}  // namespace khet
