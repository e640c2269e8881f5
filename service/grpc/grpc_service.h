// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khetd's gRPC face: KhetGrpcService adapts the gRPC-free SessionService to
// khet.v1.KhetService. Each handler reads the caller's token from the
// `authorization` metadata, calls the core, converts its absl::Status with
// ToGrpcStatus and logs one line. Calls run on gRPC's callback threads, or
// on the service's store threads when the store may block; Watch streams
// hold no thread while they wait for events; SuggestMove's searches run on
// a pool of their own.
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

// `Base` with each of `Methods` (generated WithRawCallbackMethod_X
// templates) applied on top: those methods served on the callback API.
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
// call) and raw (grpc::ByteBuffer), so that each request's bytes are read
// here: bytes that do not read are answered INVALID_ARGUMENT where a typed
// method would answer UNIMPLEMENTED without reaching khetd's code. Watch
// encodes each event once and writes the same bytes to every stream.
using KhetServiceBase =
    WithCallbackMethods<KhetService::Service,
                        KhetService::WithRawCallbackMethod_ListSetups,
                        KhetService::WithRawCallbackMethod_ListColorSchemes,
                        KhetService::WithRawCallbackMethod_CreateSession,
                        KhetService::WithRawCallbackMethod_GetSession,
                        KhetService::WithRawCallbackMethod_ListSessions,
                        KhetService::WithRawCallbackMethod_DeleteSession,
                        KhetService::WithRawCallbackMethod_JoinSeat,
                        KhetService::WithRawCallbackMethod_LeaveSeat,
                        KhetService::WithRawCallbackMethod_SeatComputer,
                        KhetService::WithRawCallbackMethod_ChooseSetup,
                        KhetService::WithRawCallbackMethod_MakeMove,
                        KhetService::WithRawCallbackMethod_ListLegalMoves,
                        KhetService::WithRawCallbackMethod_SuggestMove,
                        KhetService::WithRawCallbackMethod_ListLevels,
                        KhetService::WithRawCallbackMethod_ListPresets,
                        KhetService::WithRawCallbackMethod_GetVersion,
                        KhetService::WithRawCallbackMethod_Resign,
                        KhetService::WithRawCallbackMethod_OfferDraw,
                        KhetService::WithRawCallbackMethod_AcceptDraw,
                        KhetService::WithRawCallbackMethod_ClaimRepetitionDraw,
                        KhetService::WithRawCallbackMethod_RequestTakeback,
                        KhetService::WithRawCallbackMethod_AcceptTakeback,
                        KhetService::WithRawCallbackMethod_DeclineTakeback,
                        KhetService::WithRawCallbackMethod_UpdateSettings,
                        KhetService::WithRawCallbackMethod_ResetGame,
                        KhetService::WithRawCallbackMethod_Rematch,
                        KhetService::WithRawCallbackMethod_GetPlayer,
                        KhetService::WithRawCallbackMethod_ListPlayers,
                        KhetService::WithRawCallbackMethod_Watch,
                        KhetService::WithRawCallbackMethod_RenderBoard,
                        KhetService::WithRawCallbackMethod_GetGameRecord,
                        KhetService::WithRawCallbackMethod_ListGames,
                        KhetService::WithRawCallbackMethod_GetPosition,
                        KhetService::WithRawCallbackMethod_AnalyzeGame>::type;

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

  // Every method is raw on the wire: the service reads each request's bytes
  // itself (request_bytes.h), so that bytes that are not the request answer
  // INVALID_ARGUMENT naming the problem, and sends the typed response's
  // bytes. SuggestMove's search runs on a pool of its own; MakeMove may be
  // finished by the store's thread once its write is committed.
  grpc::ServerUnaryReactor* ListSetups(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListColorSchemes(
      grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetSession(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListSessions(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* DeleteSession(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* JoinSeat(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* LeaveSeat(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ChooseSetup(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* MakeMove(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListLegalMoves(grpc::CallbackServerContext* context,
                                           const grpc::ByteBuffer* request,
                                           grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* SuggestMove(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListLevels(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListPresets(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetVersion(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* SeatComputer(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Resign(grpc::CallbackServerContext* context,
                                   const grpc::ByteBuffer* request,
                                   grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* OfferDraw(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* AcceptDraw(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ClaimRepetitionDraw(
      grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* UpdateSettings(grpc::CallbackServerContext* context,
                                           const grpc::ByteBuffer* request,
                                           grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ResetGame(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Rematch(grpc::CallbackServerContext* context,
                                    const grpc::ByteBuffer* request,
                                    grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RenderBoard(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetGameRecord(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListGames(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetPosition(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* AnalyzeGame(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RequestTakeback(
      grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* AcceptTakeback(grpc::CallbackServerContext* context,
                                           const grpc::ByteBuffer* request,
                                           grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* DeclineTakeback(
      grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetPlayer(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListPlayers(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  // A stream lasts as long as the client watches; it holds no thread while
  // it waits for events (see WatchReactor). On the wire it is the typed
  // method: a WatchRequest in, the Events' exact bytes out.
  grpc::ServerWriteReactor<grpc::ByteBuffer>* Watch(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request) override;

 private:
  class RequestLog;
  class WatchReactor;

  // Serves one unary call: reads `bytes` into a Request (INVALID_ARGUMENT
  // naming what does not read), spends the client's budget, then
  // `work(request, log)` returns the core's absl::StatusOr of the response
  // (or an absl::Status when the response is empty), whose bytes go into
  // `response`, logged, and the call is finished. `work` runs on `pool`, or
  // right here on gRPC's callback thread when `pool` is null.
  template <typename Request, typename Work>
  grpc::ServerUnaryReactor* Serve(grpc::CallbackServerContext* context,
                                  absl::string_view name,
                                  const grpc::ByteBuffer* bytes, CallPool* pool,
                                  grpc::ByteBuffer* response, Work work);
  // Serves a call of a seated player or the owner: the core's `method`
  // with the request and the caller's token (UNAUTHENTICATED without one),
  // on a store thread when the service has them.
  template <typename Request, typename Result>
  grpc::ServerUnaryReactor* ServeCaller(
      grpc::CallbackServerContext* context, absl::string_view name,
      const grpc::ByteBuffer* bytes, grpc::ByteBuffer* response,
      Result (SessionService::*method)(const Request&, const Caller&));

  // Identifies the call's client into `log` and spends one of its calls
  // (options_.callers); OK without budgets, else the budget's refusal.
  absl::Status Admit(const grpc::ServerContextBase& context, RequestLog& log);

  // The call's deadline, and a check that fails with CANCELLED once the
  // client cancels or UNAVAILABLE once the service shuts down.
  CallControl ControlOf(grpc::ServerContextBase& context);
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
  // Runs SuggestMove's searches, each for up to seconds; the core refuses
  // those beyond its limit at once.
  const std::unique_ptr<CallPool> suggest_pool_;
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
