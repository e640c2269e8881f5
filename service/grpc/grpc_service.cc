#include "service/grpc/grpc_service.h"

#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "service/grpc/event_bytes.h"
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
constexpr absl::string_view kBearer = "bearer ";

absl::Status Unauthenticated(absl::string_view problem) {
  return absl::UnauthenticatedError(absl::StrCat(
      problem,
      "; send the metadata entry \"authorization: Bearer <token>\" "
      "with the token from CreateSession or JoinSeat"));
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
          options_.store_threads > 0 ? kWatchReadThreads : kWakeThreads)) {}

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

template <typename Response, typename Work>
grpc::ServerUnaryReactor* KhetGrpcService::Serve(
    grpc::CallbackServerContext* context, RequestLog log, bool touches_session,
    Response* response, Work work) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  log.set_peer(*context);
  if (absl::Status admitted = Admit(*context, log); !admitted.ok()) {
    reactor->Finish(log.Done(admitted));
    return reactor;
  }
  auto serve = [reactor, response, log = std::move(log),
                work = std::move(work)]() mutable {
    // The call, its request and response live until Finish.
    reactor->Finish(log.Done(work(log), response));
  };
  if (touches_session && store_pool_ != nullptr) {
    store_pool_->Schedule(std::move(serve));
  } else {
    serve();
  }
  return reactor;
}

template <typename Request, typename Response, typename Result>
grpc::ServerUnaryReactor* KhetGrpcService::ServeCaller(
    grpc::CallbackServerContext* context, absl::string_view name,
    const Request* request, Response* response,
    Result (SessionService::*method)(const Request&, const Caller&)) {
  return Serve(context, RequestLog(this, name, request->session_id()),
               /*touches_session=*/true, response,
               [this, context, request, method](RequestLog&) -> Result {
                 absl::StatusOr<Caller> caller =
                     CallerFromMetadata(context->client_metadata());
                 if (!caller.ok()) return caller.status();
                 return (core_->*method)(*request, *caller);
               });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListSetups(
    grpc::CallbackServerContext* context, const v1::ListSetupsRequest*,
    v1::ListSetupsResponse* response) {
  return Serve(context, RequestLog(this, "ListSetups", ""),
               /*touches_session=*/false, response,
               [this](RequestLog&) -> absl::StatusOr<v1::ListSetupsResponse> {
                 return core_->ListSetups();
               });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListColorSchemes(
    grpc::CallbackServerContext* context, const v1::ListColorSchemesRequest*,
    v1::ListColorSchemesResponse* response) {
  return Serve(
      context, RequestLog(this, "ListColorSchemes", ""),
      /*touches_session=*/false, response,
      [this](RequestLog&) -> absl::StatusOr<v1::ListColorSchemesResponse> {
        return core_->ListColorSchemes();
      });
}

grpc::ServerUnaryReactor* KhetGrpcService::CreateSession(
    grpc::CallbackServerContext* context,
    const v1::CreateSessionRequest* request,
    v1::CreateSessionResponse* response) {
  return Serve(context, RequestLog(this, "CreateSession", ""),
               /*touches_session=*/true, response,
               [this, request](RequestLog& log) {
                 absl::StatusOr<v1::CreateSessionResponse> created =
                     core_->CreateSession(*request, CallerFrom(log.client()));
                 if (created.ok()) log.set_session_id(created->session().id());
                 return created;
               });
}

grpc::ServerUnaryReactor* KhetGrpcService::GetSession(
    grpc::CallbackServerContext* context, const v1::GetSessionRequest* request,
    v1::Session* response) {
  return Serve(
      context, RequestLog(this, "GetSession", request->session_id()),
      /*touches_session=*/true, response,
      [this, request](RequestLog&) { return core_->GetSession(*request); });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListSessions(
    grpc::CallbackServerContext* context,
    const v1::ListSessionsRequest* request,
    v1::ListSessionsResponse* response) {
  return Serve(
      context, RequestLog(this, "ListSessions", ""),
      /*touches_session=*/true, response,
      [this, request](RequestLog&) { return core_->ListSessions(*request); });
}

grpc::ServerUnaryReactor* KhetGrpcService::DeleteSession(
    grpc::CallbackServerContext* context,
    const v1::DeleteSessionRequest* request,
    v1::DeleteSessionResponse* response) {
  return ServeCaller(context, "DeleteSession", request, response,
                     &SessionService::DeleteSession);
}

grpc::ServerUnaryReactor* KhetGrpcService::JoinSeat(
    grpc::CallbackServerContext* context, const v1::JoinSeatRequest* request,
    v1::JoinSeatResponse* response) {
  return Serve(
      context, RequestLog(this, "JoinSeat", request->session_id()),
      /*touches_session=*/true, response,
      [this, request](RequestLog&) { return core_->JoinSeat(*request); });
}

grpc::ServerUnaryReactor* KhetGrpcService::LeaveSeat(
    grpc::CallbackServerContext* context, const v1::LeaveSeatRequest* request,
    v1::Session* response) {
  return ServeCaller(context, "LeaveSeat", request, response,
                     &SessionService::LeaveSeat);
}

grpc::ServerUnaryReactor* KhetGrpcService::ChooseSetup(
    grpc::CallbackServerContext* context, const v1::ChooseSetupRequest* request,
    v1::Session* response) {
  return ServeCaller(context, "ChooseSetup", request, response,
                     &SessionService::ChooseSetup);
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
  grpc::ByteBuffer bytes = *request;  // shares the slices; parsing drains it
  const bool parses =
      grpc::SerializationTraits<v1::MakeMoveRequest>::Deserialize(
          &bytes, &call->request)
          .ok();
  call->log.set_session_id(call->request.session_id());
  call->log.set_peer(*context);
  if (absl::Status admitted = Admit(*context, call->log); !admitted.ok()) {
    call->Finish(std::move(admitted));
    return call->reactor;
  }
  if (!parses) {
    call->Finish(
        absl::InvalidArgumentError("the MakeMoveRequest could not be parsed"));
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
    grpc::CallbackServerContext* context,
    const v1::ListLegalMovesRequest* request,
    v1::ListLegalMovesResponse* response) {
  return Serve(
      context, RequestLog(this, "ListLegalMoves", request->session_id()),
      /*touches_session=*/true, response,
      [this, request](RequestLog&) { return core_->ListLegalMoves(*request); });
}

grpc::Status KhetGrpcService::SuggestMove(grpc::ServerContext* context,
                                          const v1::SuggestMoveRequest* request,
                                          v1::SuggestMoveResponse* response) {
  RequestLog log(this, "SuggestMove", request->session_id());
  log.set_peer(*context);
  if (absl::Status admitted = Admit(*context, log); !admitted.ok()) {
    return log.Done(admitted);
  }
  CallControl control = ControlOf(*context);
  control.address = log.client().address;
  return log.Done(core_->SuggestMove(*request, control), response);
}

grpc::ServerUnaryReactor* KhetGrpcService::ListLevels(
    grpc::CallbackServerContext* context, const v1::ListLevelsRequest*,
    v1::ListLevelsResponse* response) {
  return Serve(context, RequestLog(this, "ListLevels", ""),
               /*touches_session=*/false, response,
               [this](RequestLog&) -> absl::StatusOr<v1::ListLevelsResponse> {
                 return core_->ListLevels();
               });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListPresets(
    grpc::CallbackServerContext* context, const v1::ListPresetsRequest*,
    v1::ListPresetsResponse* response) {
  return Serve(context, RequestLog(this, "ListPresets", ""),
               /*touches_session=*/false, response,
               [this](RequestLog&) -> absl::StatusOr<v1::ListPresetsResponse> {
                 return core_->ListPresets();
               });
}

grpc::ServerUnaryReactor* KhetGrpcService::GetVersion(
    grpc::CallbackServerContext* context, const v1::GetVersionRequest*,
    v1::GetVersionResponse* response) {
  return Serve(context, RequestLog(this, "GetVersion", ""),
               /*touches_session=*/false, response,
               [](RequestLog&) -> absl::StatusOr<v1::GetVersionResponse> {
                 return ServerVersion();
               });
}

grpc::ServerUnaryReactor* KhetGrpcService::SeatComputer(
    grpc::CallbackServerContext* context,
    const v1::SeatComputerRequest* request, v1::Session* response) {
  return ServeCaller(context, "SeatComputer", request, response,
                     &SessionService::SeatComputer);
}

grpc::ServerUnaryReactor* KhetGrpcService::Resign(
    grpc::CallbackServerContext* context, const v1::ResignRequest* request,
    v1::Session* response) {
  return ServeCaller(context, "Resign", request, response,
                     &SessionService::Resign);
}

grpc::ServerUnaryReactor* KhetGrpcService::OfferDraw(
    grpc::CallbackServerContext* context, const v1::OfferDrawRequest* request,
    v1::Session* response) {
  return ServeCaller(context, "OfferDraw", request, response,
                     &SessionService::OfferDraw);
}

grpc::ServerUnaryReactor* KhetGrpcService::AcceptDraw(
    grpc::CallbackServerContext* context, const v1::AcceptDrawRequest* request,
    v1::Session* response) {
  return ServeCaller(context, "AcceptDraw", request, response,
                     &SessionService::AcceptDraw);
}

grpc::ServerUnaryReactor* KhetGrpcService::ClaimRepetitionDraw(
    grpc::CallbackServerContext* context,
    const v1::ClaimRepetitionDrawRequest* request, v1::Session* response) {
  return ServeCaller(context, "ClaimRepetitionDraw", request, response,
                     &SessionService::ClaimRepetitionDraw);
}

grpc::ServerUnaryReactor* KhetGrpcService::RequestTakeback(
    grpc::CallbackServerContext* context,
    const v1::RequestTakebackRequest* request, v1::Session* response) {
  return ServeCaller(context, "RequestTakeback", request, response,
                     &SessionService::RequestTakeback);
}

grpc::ServerUnaryReactor* KhetGrpcService::AcceptTakeback(
    grpc::CallbackServerContext* context,
    const v1::AcceptTakebackRequest* request, v1::Session* response) {
  return ServeCaller(context, "AcceptTakeback", request, response,
                     &SessionService::AcceptTakeback);
}

grpc::ServerUnaryReactor* KhetGrpcService::DeclineTakeback(
    grpc::CallbackServerContext* context,
    const v1::DeclineTakebackRequest* request, v1::Session* response) {
  return ServeCaller(context, "DeclineTakeback", request, response,
                     &SessionService::DeclineTakeback);
}

grpc::ServerUnaryReactor* KhetGrpcService::UpdateSettings(
    grpc::CallbackServerContext* context,
    const v1::UpdateSettingsRequest* request, v1::Session* response) {
  return ServeCaller(context, "UpdateSettings", request, response,
                     &SessionService::UpdateSettings);
}

grpc::ServerUnaryReactor* KhetGrpcService::ResetGame(
    grpc::CallbackServerContext* context, const v1::ResetGameRequest* request,
    v1::Session* response) {
  return ServeCaller(context, "ResetGame", request, response,
                     &SessionService::ResetGame);
}

grpc::ServerUnaryReactor* KhetGrpcService::Rematch(
    grpc::CallbackServerContext* context, const v1::RematchRequest* request,
    v1::Session* response) {
  return ServeCaller(context, "Rematch", request, response,
                     &SessionService::Rematch);
}

grpc::ServerUnaryReactor* KhetGrpcService::RenderBoard(
    grpc::CallbackServerContext* context, const v1::RenderBoardRequest* request,
    v1::RenderBoardResponse* response) {
  return Serve(
      context, RequestLog(this, "RenderBoard", request->session_id()),
      /*touches_session=*/true, response,
      [this, request](RequestLog&) { return core_->RenderBoard(*request); });
}

grpc::ServerUnaryReactor* KhetGrpcService::GetGameRecord(
    grpc::CallbackServerContext* context,
    const v1::GetGameRecordRequest* request,
    v1::GetGameRecordResponse* response) {
  return Serve(
      context, RequestLog(this, "GetGameRecord", request->session_id()),
      /*touches_session=*/true, response,
      [this, request](RequestLog&) { return core_->GetGameRecord(*request); });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListGames(
    grpc::CallbackServerContext* context, const v1::ListGamesRequest* request,
    v1::ListGamesResponse* response) {
  return Serve(
      context, RequestLog(this, "ListGames", request->session_id()),
      /*touches_session=*/true, response,
      [this, request](RequestLog&) { return core_->ListGames(*request); });
}

grpc::ServerUnaryReactor* KhetGrpcService::GetPosition(
    grpc::CallbackServerContext* context, const v1::GetPositionRequest* request,
    v1::GetPositionResponse* response) {
  return Serve(
      context, RequestLog(this, "GetPosition", request->session_id()),
      /*touches_session=*/true, response,
      [this, request](RequestLog&) { return core_->GetPosition(*request); });
}

grpc::ServerUnaryReactor* KhetGrpcService::AnalyzeGame(
    grpc::CallbackServerContext* context, const v1::AnalyzeGameRequest* request,
    v1::GameAnalysis* response) {
  return Serve(context, RequestLog(this, "AnalyzeGame", request->session_id()),
               /*touches_session=*/true, response,
               [this, request](RequestLog& log) {
                 return core_->AnalyzeGame(*request, CallerFrom(log.client()));
               });
}

grpc::ServerUnaryReactor* KhetGrpcService::GetPlayer(
    grpc::CallbackServerContext* context, const v1::GetPlayerRequest* request,
    v1::Player* response) {
  return Serve(
      context, RequestLog(this, "GetPlayer", ""),
      /*touches_session=*/false, response,
      [this, request](RequestLog&) { return core_->GetPlayer(*request); });
}

grpc::ServerUnaryReactor* KhetGrpcService::ListPlayers(
    grpc::CallbackServerContext* context, const v1::ListPlayersRequest* request,
    v1::ListPlayersResponse* response) {
  return Serve(
      context, RequestLog(this, "ListPlayers", ""),
      /*touches_session=*/false, response,
      [this, request](RequestLog&) { return core_->ListPlayers(*request); });
}

CallControl KhetGrpcService::ControlOf(grpc::ServerContext& context) {
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
