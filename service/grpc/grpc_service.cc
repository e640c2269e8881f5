#include "service/grpc/grpc_service.h"

#include <unistd.h>

#include <chrono>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "service/grpc/status_conversion.h"

namespace khet {
namespace {

constexpr absl::string_view kAuthorization = "authorization";
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

std::string FormatRequestLog(absl::string_view method,
                             absl::string_view session_id,
                             const grpc::Status& status,
                             absl::Duration latency) {
  // The id comes from the request: escaped, and cut short if long.
  constexpr size_t kMaxIdLength = 64;
  std::string id = session_id.empty()
                       ? "-"
                       : absl::CEscape(session_id.substr(0, kMaxIdLength));
  if (session_id.size() > kMaxIdLength) id += "...";
  std::string line = absl::StrFormat(
      "rpc method=%s session=%s code=%s latency_ms=%.2f", method, id,
      StatusCodeName(status.error_code()), absl::ToDoubleMilliseconds(latency));
  if (!status.ok()) {
    absl::StrAppend(&line, " message=\"", absl::CEscape(status.error_message()),
                    "\"");
  }
  return line;
}

// Times one request and writes its log line when it is done.
class KhetGrpcService::RequestLog {
 public:
  RequestLog(KhetGrpcService* service, absl::string_view method,
             absl::string_view session_id)
      : service_(service),
        method_(method),
        session_id_(session_id),
        start_(std::chrono::steady_clock::now()) {}

  void set_session_id(absl::string_view id) { session_id_ = std::string(id); }

  grpc::Status Done(const absl::Status& status) {
    grpc::Status result = ToGrpcStatus(status);
    service_->Log(FormatRequestLog(
        method_, session_id_, result,
        absl::FromChrono(std::chrono::steady_clock::now() - start_)));
    return result;
  }

  template <typename Response>
  grpc::Status Done(absl::StatusOr<Response> result, Response* response) {
    if (result.ok()) *response = *std::move(result);
    return Done(result.status());
  }

 private:
  KhetGrpcService* const service_;
  const absl::string_view method_;
  std::string session_id_;
  const std::chrono::steady_clock::time_point start_;
};

// Makes a running Watch known to Shutdown for as long as it lives.
class KhetGrpcService::WatchRegistration {
 public:
  WatchRegistration(KhetGrpcService* service, EventStream* stream)
      : service_(service), stream_(stream) {
    MutexLock lock(&service_->mu_);
    service_->watches_.insert(stream_);
    if (service_->shutting_down_) stream_->Cancel();
  }
  ~WatchRegistration() {
    MutexLock lock(&service_->mu_);
    service_->watches_.erase(stream_);
  }
  WatchRegistration(const WatchRegistration&) = delete;
  WatchRegistration& operator=(const WatchRegistration&) = delete;

 private:
  KhetGrpcService* const service_;
  EventStream* const stream_;
};

KhetGrpcService::KhetGrpcService(SessionService* core,
                                 KhetGrpcServiceOptions options)
    : core_(core), options_(std::move(options)) {}

void KhetGrpcService::Shutdown() {
  MutexLock lock(&mu_);
  shutting_down_ = true;
  for (EventStream* stream : watches_) stream->Cancel();
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

grpc::Status KhetGrpcService::ListSetups(grpc::ServerContext*,
                                         const v1::ListSetupsRequest*,
                                         v1::ListSetupsResponse* response) {
  RequestLog log(this, "ListSetups", "");
  *response = core_->ListSetups();
  return log.Done(absl::OkStatus());
}

grpc::Status KhetGrpcService::ListColorSchemes(
    grpc::ServerContext*, const v1::ListColorSchemesRequest*,
    v1::ListColorSchemesResponse* response) {
  RequestLog log(this, "ListColorSchemes", "");
  *response = core_->ListColorSchemes();
  return log.Done(absl::OkStatus());
}

grpc::Status KhetGrpcService::CreateSession(
    grpc::ServerContext*, const v1::CreateSessionRequest* request,
    v1::CreateSessionResponse* response) {
  RequestLog log(this, "CreateSession", "");
  absl::StatusOr<v1::CreateSessionResponse> created =
      core_->CreateSession(*request);
  if (created.ok()) log.set_session_id(created->session().id());
  return log.Done(std::move(created), response);
}

grpc::Status KhetGrpcService::GetSession(grpc::ServerContext*,
                                         const v1::GetSessionRequest* request,
                                         v1::Session* response) {
  RequestLog log(this, "GetSession", request->session_id());
  return log.Done(core_->GetSession(*request), response);
}

grpc::Status KhetGrpcService::ListSessions(
    grpc::ServerContext*, const v1::ListSessionsRequest* request,
    v1::ListSessionsResponse* response) {
  RequestLog log(this, "ListSessions", "");
  return log.Done(core_->ListSessions(*request), response);
}

grpc::Status KhetGrpcService::DeleteSession(
    grpc::ServerContext* context, const v1::DeleteSessionRequest* request,
    v1::DeleteSessionResponse*) {
  RequestLog log(this, "DeleteSession", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->DeleteSession(*request, *caller));
}

grpc::Status KhetGrpcService::JoinSeat(grpc::ServerContext*,
                                       const v1::JoinSeatRequest* request,
                                       v1::JoinSeatResponse* response) {
  RequestLog log(this, "JoinSeat", request->session_id());
  return log.Done(core_->JoinSeat(*request), response);
}

grpc::Status KhetGrpcService::LeaveSeat(grpc::ServerContext* context,
                                        const v1::LeaveSeatRequest* request,
                                        v1::Session* response) {
  RequestLog log(this, "LeaveSeat", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->LeaveSeat(*request, *caller), response);
}

grpc::Status KhetGrpcService::ChooseSetup(grpc::ServerContext* context,
                                          const v1::ChooseSetupRequest* request,
                                          v1::Session* response) {
  RequestLog log(this, "ChooseSetup", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->ChooseSetup(*request, *caller), response);
}

grpc::Status KhetGrpcService::MakeMove(grpc::ServerContext* context,
                                       const v1::MakeMoveRequest* request,
                                       v1::MakeMoveResponse* response) {
  RequestLog log(this, "MakeMove", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->MakeMove(*request, *caller), response);
}

grpc::Status KhetGrpcService::ListLegalMoves(
    grpc::ServerContext*, const v1::ListLegalMovesRequest* request,
    v1::ListLegalMovesResponse* response) {
  RequestLog log(this, "ListLegalMoves", request->session_id());
  return log.Done(core_->ListLegalMoves(*request), response);
}

grpc::Status KhetGrpcService::SuggestMove(grpc::ServerContext* context,
                                          const v1::SuggestMoveRequest* request,
                                          v1::SuggestMoveResponse* response) {
  RequestLog log(this, "SuggestMove", request->session_id());
  return log.Done(core_->SuggestMove(*request, ControlOf(*context)), response);
}

grpc::Status KhetGrpcService::ListLevels(grpc::ServerContext*,
                                         const v1::ListLevelsRequest*,
                                         v1::ListLevelsResponse* response) {
  RequestLog log(this, "ListLevels", "");
  *response = core_->ListLevels();
  return log.Done(absl::OkStatus());
}

grpc::Status KhetGrpcService::SeatComputer(
    grpc::ServerContext* context, const v1::SeatComputerRequest* request,
    v1::Session* response) {
  RequestLog log(this, "SeatComputer", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->SeatComputer(*request, *caller), response);
}

grpc::Status KhetGrpcService::Resign(grpc::ServerContext* context,
                                     const v1::ResignRequest* request,
                                     v1::Session* response) {
  RequestLog log(this, "Resign", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->Resign(*request, *caller), response);
}

grpc::Status KhetGrpcService::OfferDraw(grpc::ServerContext* context,
                                        const v1::OfferDrawRequest* request,
                                        v1::Session* response) {
  RequestLog log(this, "OfferDraw", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->OfferDraw(*request, *caller), response);
}

grpc::Status KhetGrpcService::AcceptDraw(grpc::ServerContext* context,
                                         const v1::AcceptDrawRequest* request,
                                         v1::Session* response) {
  RequestLog log(this, "AcceptDraw", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->AcceptDraw(*request, *caller), response);
}

grpc::Status KhetGrpcService::ClaimRepetitionDraw(
    grpc::ServerContext* context, const v1::ClaimRepetitionDrawRequest* request,
    v1::Session* response) {
  RequestLog log(this, "ClaimRepetitionDraw", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->ClaimRepetitionDraw(*request, *caller), response);
}

grpc::Status KhetGrpcService::UpdateSettings(
    grpc::ServerContext* context, const v1::UpdateSettingsRequest* request,
    v1::Session* response) {
  RequestLog log(this, "UpdateSettings", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->UpdateSettings(*request, *caller), response);
}

grpc::Status KhetGrpcService::ResetGame(grpc::ServerContext* context,
                                        const v1::ResetGameRequest* request,
                                        v1::Session* response) {
  RequestLog log(this, "ResetGame", request->session_id());
  absl::StatusOr<Caller> caller =
      CallerFromMetadata(context->client_metadata());
  if (!caller.ok()) return log.Done(caller.status());
  return log.Done(core_->ResetGame(*request, *caller), response);
}

grpc::Status KhetGrpcService::Watch(grpc::ServerContext* context,
                                    const v1::WatchRequest* request,
                                    grpc::ServerWriter<v1::Event>* writer) {
  RequestLog log(this, "Watch", request->session_id());
  absl::StatusOr<std::unique_ptr<EventStream>> stream = core_->Watch(*request);
  if (!stream.ok()) return log.Done(stream.status());
  WatchRegistration registration(this, stream->get());
  return log.Done(
      SendEvents(*context, **stream, request->after_version(), *writer));
}

grpc::Status KhetGrpcService::RenderBoard(grpc::ServerContext*,
                                          const v1::RenderBoardRequest* request,
                                          v1::RenderBoardResponse* response) {
  RequestLog log(this, "RenderBoard", request->session_id());
  return log.Done(core_->RenderBoard(*request), response);
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

absl::Status KhetGrpcService::SendEvents(
    grpc::ServerContext& context, EventStream& stream, int64_t after_version,
    grpc::ServerWriter<v1::Event>& writer) {
  int64_t sent = after_version;  // the version of the last event sent
  while (true) {
    if (shutting_down_) {
      return absl::UnavailableError(absl::StrCat(
          "khetd is shutting down; watch again after version ", sent));
    }
    if (context.IsCancelled()) {
      return absl::CancelledError(
          absl::StrCat("the client cancelled the watch after version ", sent));
    }
    absl::StatusOr<std::optional<v1::Event>> next =
        stream.Next(options_.watch_poll_interval);
    if (!next.ok()) {
      // Shutdown cancels the stream; say why rather than just CANCELLED.
      if (absl::IsCancelled(next.status()) && shutting_down_) continue;
      return next.status();
    }
    if (!next->has_value()) continue;
    if (!writer.Write(**next)) {
      return absl::CancelledError(absl::StrCat(
          "the client went away; events were sent up to version ", sent));
    }
    sent = (*next)->version();
  }
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
