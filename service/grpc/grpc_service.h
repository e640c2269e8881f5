// khetd's gRPC face: KhetGrpcService adapts the gRPC-free SessionService to
// khet.v1.KhetService. Each handler reads the caller's token from the
// `authorization` metadata, calls the core, converts its absl::Status with
// ToGrpcStatus and logs one line. Nothing else happens here.
#ifndef KHET_SERVICE_GRPC_GRPC_SERVICE_H_
#define KHET_SERVICE_GRPC_GRPC_SERVICE_H_

#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/status.h"
#include "grpcpp/support/string_ref.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "service/grpc/status_conversion.h"
#include "service/mutex.h"
#include "service/session_service.h"

namespace khet {

// The caller's token from the metadata entry "authorization: Bearer
// <token>" (the scheme in any case). UNAUTHENTICATED if the entry is
// missing, repeated or not of that form; the message never repeats the
// entry's value.
absl::StatusOr<Caller> CallerFromMetadata(
    const std::multimap<grpc::string_ref, grpc::string_ref>& metadata);

// One request's log line: `rpc method=MakeMove session=3fa9 code=OK
// latency_ms=0.84`, and ` message="..."` (escaped) on errors. Never a token.
std::string FormatRequestLog(absl::string_view method,
                             absl::string_view session_id,
                             const grpc::Status& status,
                             absl::Duration latency);

struct KhetGrpcServiceOptions {
  // How long a Watch waits for an event before it checks again whether the
  // client cancelled. Default 100 ms.
  absl::Duration watch_poll_interval = absl::Milliseconds(100);
  // Receives each request's log line, without a newline. Default (empty):
  // the line is written to stderr.
  std::function<void(const std::string& line)> log;
};

class KhetGrpcService final : public v1::KhetService::Service {
 public:
  // REQUIRES: core outlives this service.
  explicit KhetGrpcService(SessionService* core,
                           KhetGrpcServiceOptions options = {});

  // Ends every running Watch now, with UNAVAILABLE naming the version to
  // resume after, and any Watch that starts later. Call before
  // grpc::Server::Shutdown so that it does not wait for them.
  void Shutdown();

  grpc::Status ListSetups(grpc::ServerContext* context,
                          const v1::ListSetupsRequest* request,
                          v1::ListSetupsResponse* response) override;
  grpc::Status ListColorSchemes(
      grpc::ServerContext* context, const v1::ListColorSchemesRequest* request,
      v1::ListColorSchemesResponse* response) override;
  grpc::Status CreateSession(grpc::ServerContext* context,
                             const v1::CreateSessionRequest* request,
                             v1::CreateSessionResponse* response) override;
  grpc::Status GetSession(grpc::ServerContext* context,
                          const v1::GetSessionRequest* request,
                          v1::Session* response) override;
  grpc::Status ListSessions(grpc::ServerContext* context,
                            const v1::ListSessionsRequest* request,
                            v1::ListSessionsResponse* response) override;
  grpc::Status DeleteSession(grpc::ServerContext* context,
                             const v1::DeleteSessionRequest* request,
                             v1::DeleteSessionResponse* response) override;
  grpc::Status JoinSeat(grpc::ServerContext* context,
                        const v1::JoinSeatRequest* request,
                        v1::JoinSeatResponse* response) override;
  grpc::Status LeaveSeat(grpc::ServerContext* context,
                         const v1::LeaveSeatRequest* request,
                         v1::Session* response) override;
  grpc::Status ChooseSetup(grpc::ServerContext* context,
                           const v1::ChooseSetupRequest* request,
                           v1::Session* response) override;
  grpc::Status MakeMove(grpc::ServerContext* context,
                        const v1::MakeMoveRequest* request,
                        v1::MakeMoveResponse* response) override;
  grpc::Status ListLegalMoves(grpc::ServerContext* context,
                              const v1::ListLegalMovesRequest* request,
                              v1::ListLegalMovesResponse* response) override;
  grpc::Status SuggestMove(grpc::ServerContext* context,
                           const v1::SuggestMoveRequest* request,
                           v1::SuggestMoveResponse* response) override;
  grpc::Status ListLevels(grpc::ServerContext* context,
                          const v1::ListLevelsRequest* request,
                          v1::ListLevelsResponse* response) override;
  grpc::Status SeatComputer(grpc::ServerContext* context,
                            const v1::SeatComputerRequest* request,
                            v1::Session* response) override;
  grpc::Status Resign(grpc::ServerContext* context,
                      const v1::ResignRequest* request,
                      v1::Session* response) override;
  grpc::Status OfferDraw(grpc::ServerContext* context,
                         const v1::OfferDrawRequest* request,
                         v1::Session* response) override;
  grpc::Status AcceptDraw(grpc::ServerContext* context,
                          const v1::AcceptDrawRequest* request,
                          v1::Session* response) override;
  grpc::Status ClaimRepetitionDraw(
      grpc::ServerContext* context,
      const v1::ClaimRepetitionDrawRequest* request,
      v1::Session* response) override;
  grpc::Status UpdateSettings(grpc::ServerContext* context,
                              const v1::UpdateSettingsRequest* request,
                              v1::Session* response) override;
  grpc::Status ResetGame(grpc::ServerContext* context,
                         const v1::ResetGameRequest* request,
                         v1::Session* response) override;
  grpc::Status Watch(grpc::ServerContext* context,
                     const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::Event>* writer) override;
  grpc::Status RenderBoard(grpc::ServerContext* context,
                           const v1::RenderBoardRequest* request,
                           v1::RenderBoardResponse* response) override;

 private:
  class RequestLog;
  class WatchRegistration;

  // The call's deadline, and a check that fails with CANCELLED once the
  // client cancels or UNAVAILABLE once the service shuts down.
  CallControl ControlOf(grpc::ServerContext& context);
  // Sends the stream's events until the client cancels, the stream ends or
  // the service shuts down.
  absl::Status SendEvents(grpc::ServerContext& context, EventStream& stream,
                          int64_t after_version,
                          grpc::ServerWriter<v1::Event>& writer);
  void Log(const std::string& line);

  SessionService* const core_;
  const KhetGrpcServiceOptions options_;
  Mutex mu_;  // a std::mutex: visible to ThreadSanitizer (service/mutex.h)
  std::atomic<bool> shutting_down_{false};
  std::set<EventStream*> watches_ ABSL_GUARDED_BY(mu_);
};

// Turns on gRPC health checking (grpc.health.v1) and server reflection for
// every server built afterwards. Call before creating a grpc::ServerBuilder.
void EnableHealthCheckingAndReflection();

// Reports khet.v1.KhetService as SERVING to health checks, besides the
// whole server (""), which gRPC reports by itself. Call after BuildAndStart.
void ReportServing(grpc::Server* server);

// Registers `service` on `builder` and limits requests to
// max_message_bytes; a bigger request fails with RESOURCE_EXHAUSTED.
// REQUIRES: service outlives the server built.
void AddKhetService(grpc::ServerBuilder* builder, KhetGrpcService* service,
                    int max_message_bytes);

}  // namespace khet

#endif  // KHET_SERVICE_GRPC_GRPC_SERVICE_H_
