// khetd's gRPC face: KhetGrpcService adapts the gRPC-free SessionService to
// khet.v1.KhetService. Each handler reads the caller's token from the
// `authorization` metadata, calls the core, converts its absl::Status with
// ToGrpcStatus and logs one line. Calls run on gRPC's callback threads, or
// on the service's store threads when the store may block; Watch streams
// hold no thread while they wait for events; SuggestMove runs on the
// synchronous server's threads.
#ifndef KHET_SERVICE_GRPC_GRPC_SERVICE_H_
#define KHET_SERVICE_GRPC_GRPC_SERVICE_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_callback.h"
#include "grpcpp/support/status.h"
#include "grpcpp/support/string_ref.h"
#include "khet/v1/khet_service.grpc.pb.h"
#include "service/base/mutex.h"
#include "service/core/session_service.h"
#include "service/fair_use/caller_budgets.h"
#include "service/grpc/call_pool.h"
#include "service/grpc/grpc_metrics.h"
#include "service/grpc/status_conversion.h"
#include "service/text/json_request_log.h"

namespace khet {

// The caller's token from the metadata entry "authorization: Bearer
// <token>" (the scheme in any case). UNAUTHENTICATED if the entry is
// missing, repeated or not of that form; the message never repeats the
// entry's value.
absl::StatusOr<Caller> CallerFromMetadata(
    const std::multimap<grpc::string_ref, grpc::string_ref>& metadata);

struct KhetGrpcServiceOptions {
  // Receives each request's log line, without a newline. Default (empty):
  // the line is written to stderr.
  std::function<void(const std::string& line)> log;
  // The lines as FormatRequestLog writes them, or JSON objects
  // (FormatJsonLog, with the client's address).
  LogFormat log_format = LogFormat::kText;
  // Where each finished call is counted; null: nowhere. Not owned; must
  // outlive the service.
  GrpcMetrics* metrics = nullptr;
  // Threads of the service's own (at most; started as calls wait, see
  // CallPool) that run the calls touching a session,
  // which wait while the store keeps a change (a disk sync, a database
  // round trip), so that gRPC's few callback threads never wait for a
  // store. 0: such calls run on gRPC's callback threads, the fastest for a
  // store that never blocks (the memory store). Default 0.
  int store_threads = 0;
  // Who calls and what each caller may spend (caller_budgets.h): every
  // call is identified (its peer, and x-forwarded-for metadata through a
  // trusted proxy; x-secondlife-object-key) and admitted by it before any
  // work, and every refusal by a budget is counted in it; a refusal's
  // trailing metadata holds `retry-after: <seconds>`. Null: no budget, and
  // the core gets no client address. Not owned; must outlive the service.
  CallerBudgets* callers = nullptr;
};

namespace grpc_service_internal {

// `Base` with each of `Methods` (generated WithCallbackMethod_X templates)
// applied on top: those methods served on the callback API.
template <typename Base, template <typename> class... Methods>
struct WithCallbackMethods {
  using type = Base;
};
template <typename Base, template <typename> class First,
          template <typename> class... Rest>
struct WithCallbackMethods<Base, First, Rest...> {
  using type = First<typename WithCallbackMethods<Base, Rest...>::type>;
};

using KhetService = v1::KhetService;

// The service's base: every method on gRPC's callback API (no thread per
// call) but SuggestMove, whose search runs for long on the synchronous
// API's threads. Watch is raw (grpc::ByteBuffer): each event is encoded
// once and the same bytes are written to every stream. MakeMove is raw too,
// so that its request's bytes are parsed here: bytes that do not parse are
// answered INVALID_ARGUMENT where the typed method would answer without
// reaching khetd's code.
using KhetServiceBase =
    WithCallbackMethods<KhetService::Service,
                        KhetService::WithCallbackMethod_ListSetups,
                        KhetService::WithCallbackMethod_ListColorSchemes,
                        KhetService::WithCallbackMethod_CreateSession,
                        KhetService::WithCallbackMethod_GetSession,
                        KhetService::WithCallbackMethod_ListSessions,
                        KhetService::WithCallbackMethod_DeleteSession,
                        KhetService::WithCallbackMethod_JoinSeat,
                        KhetService::WithCallbackMethod_LeaveSeat,
                        KhetService::WithCallbackMethod_SeatComputer,
                        KhetService::WithCallbackMethod_ChooseSetup,
                        KhetService::WithRawCallbackMethod_MakeMove,
                        KhetService::WithCallbackMethod_ListLegalMoves,
                        KhetService::WithCallbackMethod_ListLevels,
                        KhetService::WithCallbackMethod_ListPresets,
                        KhetService::WithCallbackMethod_GetVersion,
                        KhetService::WithCallbackMethod_Resign,
                        KhetService::WithCallbackMethod_OfferDraw,
                        KhetService::WithCallbackMethod_AcceptDraw,
                        KhetService::WithCallbackMethod_ClaimRepetitionDraw,
                        KhetService::WithCallbackMethod_RequestTakeback,
                        KhetService::WithCallbackMethod_AcceptTakeback,
                        KhetService::WithCallbackMethod_DeclineTakeback,
                        KhetService::WithCallbackMethod_UpdateSettings,
                        KhetService::WithCallbackMethod_ResetGame,
                        KhetService::WithCallbackMethod_Rematch,
                        KhetService::WithCallbackMethod_GetPlayer,
                        KhetService::WithCallbackMethod_ListPlayers,
                        KhetService::WithRawCallbackMethod_Watch,
                        KhetService::WithCallbackMethod_RenderBoard,
                        KhetService::WithCallbackMethod_GetGameRecord,
                        KhetService::WithCallbackMethod_ListGames,
                        KhetService::WithCallbackMethod_GetPosition,
                        KhetService::WithCallbackMethod_AnalyzeGame>::type;

}  // namespace grpc_service_internal

class KhetGrpcService final : public grpc_service_internal::KhetServiceBase {
 public:
  // REQUIRES: core outlives this service.
  explicit KhetGrpcService(SessionService* core,
                           KhetGrpcServiceOptions options = {});
  // REQUIRES: the server serving it has shut down.
  ~KhetGrpcService() override;

  // Ends every running Watch now, with UNAVAILABLE naming the version to
  // resume after, and any Watch that starts later. Call before
  // grpc::Server::Shutdown so that it does not wait for them.
  void Shutdown();

  grpc::ServerUnaryReactor* ListSetups(
      grpc::CallbackServerContext* context,
      const v1::ListSetupsRequest* request,
      v1::ListSetupsResponse* response) override;
  grpc::ServerUnaryReactor* ListColorSchemes(
      grpc::CallbackServerContext* context,
      const v1::ListColorSchemesRequest* request,
      v1::ListColorSchemesResponse* response) override;
  grpc::ServerUnaryReactor* CreateSession(
      grpc::CallbackServerContext* context,
      const v1::CreateSessionRequest* request,
      v1::CreateSessionResponse* response) override;
  grpc::ServerUnaryReactor* GetSession(grpc::CallbackServerContext* context,
                                       const v1::GetSessionRequest* request,
                                       v1::Session* response) override;
  grpc::ServerUnaryReactor* ListSessions(
      grpc::CallbackServerContext* context,
      const v1::ListSessionsRequest* request,
      v1::ListSessionsResponse* response) override;
  grpc::ServerUnaryReactor* DeleteSession(
      grpc::CallbackServerContext* context,
      const v1::DeleteSessionRequest* request,
      v1::DeleteSessionResponse* response) override;
  grpc::ServerUnaryReactor* JoinSeat(grpc::CallbackServerContext* context,
                                     const v1::JoinSeatRequest* request,
                                     v1::JoinSeatResponse* response) override;
  grpc::ServerUnaryReactor* LeaveSeat(grpc::CallbackServerContext* context,
                                      const v1::LeaveSeatRequest* request,
                                      v1::Session* response) override;
  grpc::ServerUnaryReactor* ChooseSetup(grpc::CallbackServerContext* context,
                                        const v1::ChooseSetupRequest* request,
                                        v1::Session* response) override;
  // On the wire it is the typed method: a MakeMoveRequest in, the bytes of
  // the MakeMoveResponse the typed method would send out.
  grpc::ServerUnaryReactor* MakeMove(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListLegalMoves(
      grpc::CallbackServerContext* context,
      const v1::ListLegalMovesRequest* request,
      v1::ListLegalMovesResponse* response) override;
  // Synchronous: a search runs for up to seconds, on its own thread.
  grpc::Status SuggestMove(grpc::ServerContext* context,
                           const v1::SuggestMoveRequest* request,
                           v1::SuggestMoveResponse* response) override;
  grpc::ServerUnaryReactor* ListLevels(
      grpc::CallbackServerContext* context,
      const v1::ListLevelsRequest* request,
      v1::ListLevelsResponse* response) override;
  grpc::ServerUnaryReactor* ListPresets(
      grpc::CallbackServerContext* context,
      const v1::ListPresetsRequest* request,
      v1::ListPresetsResponse* response) override;
  grpc::ServerUnaryReactor* GetVersion(
      grpc::CallbackServerContext* context, const v1::GetVersionRequest*,
      v1::GetVersionResponse* response) override;
  grpc::ServerUnaryReactor* SeatComputer(grpc::CallbackServerContext* context,
                                         const v1::SeatComputerRequest* request,
                                         v1::Session* response) override;
  grpc::ServerUnaryReactor* Resign(grpc::CallbackServerContext* context,
                                   const v1::ResignRequest* request,
                                   v1::Session* response) override;
  grpc::ServerUnaryReactor* OfferDraw(grpc::CallbackServerContext* context,
                                      const v1::OfferDrawRequest* request,
                                      v1::Session* response) override;
  grpc::ServerUnaryReactor* AcceptDraw(grpc::CallbackServerContext* context,
                                       const v1::AcceptDrawRequest* request,
                                       v1::Session* response) override;
  grpc::ServerUnaryReactor* ClaimRepetitionDraw(
      grpc::CallbackServerContext* context,
      const v1::ClaimRepetitionDrawRequest* request,
      v1::Session* response) override;
  grpc::ServerUnaryReactor* UpdateSettings(
      grpc::CallbackServerContext* context,
      const v1::UpdateSettingsRequest* request, v1::Session* response) override;
  grpc::ServerUnaryReactor* ResetGame(grpc::CallbackServerContext* context,
                                      const v1::ResetGameRequest* request,
                                      v1::Session* response) override;
  grpc::ServerUnaryReactor* Rematch(grpc::CallbackServerContext* context,
                                    const v1::RematchRequest* request,
                                    v1::Session* response) override;
  // A stream lasts as long as the client watches; it holds no thread while
  // it waits for events (see WatchReactor). On the wire it is the typed
  // method: a WatchRequest in, the Events' exact bytes out.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* Watch(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request) override;
  grpc::ServerUnaryReactor* RenderBoard(
      grpc::CallbackServerContext* context,
      const v1::RenderBoardRequest* request,
      v1::RenderBoardResponse* response) override;
  grpc::ServerUnaryReactor* GetGameRecord(
      grpc::CallbackServerContext* context,
      const v1::GetGameRecordRequest* request,
      v1::GetGameRecordResponse* response) override;
  grpc::ServerUnaryReactor* ListGames(grpc::CallbackServerContext* context,
                                      const v1::ListGamesRequest* request,
                                      v1::ListGamesResponse* response) override;
  grpc::ServerUnaryReactor* GetPosition(
      grpc::CallbackServerContext* context,
      const v1::GetPositionRequest* request,
      v1::GetPositionResponse* response) override;
  grpc::ServerUnaryReactor* AnalyzeGame(grpc::CallbackServerContext* context,
                                        const v1::AnalyzeGameRequest* request,
                                        v1::GameAnalysis* response) override;
  grpc::ServerUnaryReactor* RequestTakeback(
      grpc::CallbackServerContext* context,
      const v1::RequestTakebackRequest* request,
      v1::Session* response) override;
  grpc::ServerUnaryReactor* AcceptTakeback(
      grpc::CallbackServerContext* context,
      const v1::AcceptTakebackRequest* request, v1::Session* response) override;
  grpc::ServerUnaryReactor* DeclineTakeback(
      grpc::CallbackServerContext* context,
      const v1::DeclineTakebackRequest* request,
      v1::Session* response) override;
  grpc::ServerUnaryReactor* GetPlayer(grpc::CallbackServerContext* context,
                                      const v1::GetPlayerRequest* request,
                                      v1::Player* response) override;
  grpc::ServerUnaryReactor* ListPlayers(
      grpc::CallbackServerContext* context,
      const v1::ListPlayersRequest* request,
      v1::ListPlayersResponse* response) override;

 private:
  class RequestLog;
  class WatchReactor;

  // Serves one unary call: `work(log)` returns the core's absl::StatusOr of
  // the response (or an absl::Status when the response is empty); the
  // result is moved into `response`, logged and the call finished. When
  // `touches_session` and the service has store threads, `work` runs on
  // one of them, else right here on gRPC's callback thread.
  template <typename Response, typename Work>
  grpc::ServerUnaryReactor* Serve(grpc::CallbackServerContext* context,
                                  RequestLog log, bool touches_session,
                                  Response* response, Work work);
  // Serves a call of a seated player or the owner: the core's `method`
  // with the request and the caller's token (UNAUTHENTICATED without one).
  template <typename Request, typename Response, typename Result>
  grpc::ServerUnaryReactor* ServeCaller(
      grpc::CallbackServerContext* context, absl::string_view name,
      const Request* request, Response* response,
      Result (SessionService::*method)(const Request&, const Caller&));

  // Identifies the call's client into `log` and spends one of its calls
  // (options_.callers); OK without budgets, else the budget's refusal.
  absl::Status Admit(const grpc::ServerContextBase& context, RequestLog& log);

  // The call's deadline, and a check that fails with CANCELLED once the
  // client cancels or UNAVAILABLE once the service shuts down.
  CallControl ControlOf(grpc::ServerContext& context);
  void Log(const std::string& line);

  SessionService* const core_;
  const KhetGrpcServiceOptions options_;
  Mutex mu_;  // a std::mutex: visible to ThreadSanitizer (service/base/mutex.h)
  std::atomic<bool> shutting_down_{false};
  // Running watches, for Shutdown.
  std::set<WatchReactor*> watches_ ABSL_GUARDED_BY(mu_);
  // Last, so that their threads are joined first.
  // Runs the calls touching a session; null when options_.store_threads is
  // 0.
  const std::unique_ptr<CallPool> store_pool_;
  // Reads every watch's events when the store may wait (its history from
  // the disk or the database), so that thousands of watches opening at once
  // queue for a few threads rather than start a store thread each; without
  // store threads, only resumes the watches that a publisher woke (the
  // publisher's thread only hands them over).
  const std::unique_ptr<CallPool> watch_pool_;
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
