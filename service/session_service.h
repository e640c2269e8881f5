// The service's logic, free of gRPC: sessions (boards), seats, setups,
// moves, draws, settings, timeouts and watchers. Each method validates its
// request, checks the caller's token, applies the change to the session,
// writes it to the store before answering, and publishes its event to
// watchers. Errors are absl::Status with the codes of khet_service.proto;
// the gRPC layer only converts.
#ifndef KHET_SERVICE_SESSION_SERVICE_H_
#define KHET_SERVICE_SESSION_SERVICE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "khet/v1/khet_service.pb.h"
#include "service/clock.h"
#include "service/random_source.h"
#include "service/store/session_store.h"

namespace khet {

// Limits; exceeding one is RESOURCE_EXHAUSTED naming the limit.
struct ServiceLimits {
  int max_sessions = 10000;
  int max_watchers_per_session = 64;
  int max_name_length = 64;        // session and player names
  int max_request_id_length = 64;
  int max_position_length = 512;   // custom start positions
  int max_page_size = 100;         // ListSessions
  int watcher_buffer = 256;        // events queued for one watcher before it
                                   // is cut off with RESOURCE_EXHAUSTED
  int max_replies_kept = 32;       // MakeMove answers kept for retries
};

struct ServiceOptions {
  SessionStore* store = nullptr;        // required; not owned
  Clock* clock = RealClock();           // not owned
  RandomSource* random = SystemRandom();  // not owned
  ServiceLimits limits;
};

// The token a call carries (from "authorization: Bearer <token>"); empty
// when there is none.
struct Caller {
  std::string token;
};

// One watcher's view of a session's events. Not thread-safe: one reader.
class EventStream {
 public:
  virtual ~EventStream() = default;
  // The next event, waiting up to `timeout`; nullopt if none came in time.
  // RESOURCE_EXHAUSTED if this watcher fell behind (the message names the
  // version to resume after), NOT_FOUND once the session is deleted (after
  // its SessionDeleted event has been returned), CANCELLED after Cancel.
  virtual absl::StatusOr<std::optional<v1::Event>> Next(
      absl::Duration timeout) = 0;
  // Wakes a blocked Next and ends the stream; callable from any thread.
  virtual void Cancel() = 0;
};

class SessionService {
 public:
  // Loads every session from the store. REQUIRES: options.store != nullptr.
  static absl::StatusOr<std::unique_ptr<SessionService>> Create(
      const ServiceOptions& options);
  virtual ~SessionService() = default;

  virtual v1::ListSetupsResponse ListSetups() = 0;
  virtual v1::ListColorSchemesResponse ListColorSchemes() = 0;

  virtual absl::StatusOr<v1::CreateSessionResponse> CreateSession(
      const v1::CreateSessionRequest& request) = 0;
  virtual absl::StatusOr<v1::Session> GetSession(
      const v1::GetSessionRequest& request) = 0;
  virtual absl::StatusOr<v1::ListSessionsResponse> ListSessions(
      const v1::ListSessionsRequest& request) = 0;
  virtual absl::Status DeleteSession(const v1::DeleteSessionRequest& request,
                                     const Caller& caller) = 0;

  virtual absl::StatusOr<v1::JoinSeatResponse> JoinSeat(
      const v1::JoinSeatRequest& request) = 0;
  virtual absl::StatusOr<v1::Session> LeaveSeat(
      const v1::LeaveSeatRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> ChooseSetup(
      const v1::ChooseSetupRequest& request, const Caller& caller) = 0;

  virtual absl::StatusOr<v1::MakeMoveResponse> MakeMove(
      const v1::MakeMoveRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::ListLegalMovesResponse> ListLegalMoves(
      const v1::ListLegalMovesRequest& request) = 0;
  virtual absl::StatusOr<v1::Session> Resign(const v1::ResignRequest& request,
                                             const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> OfferDraw(
      const v1::OfferDrawRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> AcceptDraw(
      const v1::AcceptDrawRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> ClaimRepetitionDraw(
      const v1::ClaimRepetitionDrawRequest& request, const Caller& caller) = 0;

  virtual absl::StatusOr<v1::Session> UpdateSettings(
      const v1::UpdateSettingsRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> ResetGame(
      const v1::ResetGameRequest& request, const Caller& caller) = 0;

  // Events after request.after_version, then live ones.
  virtual absl::StatusOr<std::unique_ptr<EventStream>> Watch(
      const v1::WatchRequest& request) = 0;

  virtual absl::StatusOr<v1::RenderBoardResponse> RenderBoard(
      const v1::RenderBoardRequest& request) = 0;

  // Resets every game with timeout on whose last move (or start) is older
  // than its timeout by the injected clock. khetd calls it periodically;
  // tests call it after advancing a FakeClock. Returns how many it reset.
  virtual int SweepTimeouts() = 0;
};

}  // namespace khet

#endif  // KHET_SERVICE_SESSION_SERVICE_H_
