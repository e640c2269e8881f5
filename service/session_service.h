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
  int max_name_length = 64;  // session and player names
  int max_request_id_length = 64;
  int max_position_length = 512;  // custom start positions
  int max_page_size = 100;        // ListSessions
  int watcher_buffer = 256;       // events queued for one watcher before it
                                  // is cut off with RESOURCE_EXHAUSTED
  int max_replies_kept = 32;      // MakeMove answers kept for retries
};

struct ServiceOptions {
  SessionStore* store = nullptr;          // required; not owned
  Clock* clock = RealClock();             // not owned
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

// Decisions where khet_service.proto is silent:
// - A new session is at version 0 with no events; its first change is 1.
//   Player and session names are trimmed and hold 1-64 characters, no
//   control characters.
// - Joining the seat that completes the pair starts a new game whenever no
//   game is in progress (also after a finished one); a player who takes an
//   empty seat mid-game continues that game. LeaveSeat keeps the game
//   going; the player to move may still move while the other seat is empty.
// - A move that ends the game adds MoveMade and then GameOver (two
//   versions; the reply's version is the last). The reply's announcement is
//   never shortened by quiet mode; the events' are.
// - A MakeMove retry is matched by request_id alone (a token must still be
//   present) and returns the stored reply, whatever the move says; replies
//   are kept for the last max_replies_kept moves, across restarts.
// - Resign, OfferDraw, AcceptDraw and ClaimRepetitionDraw need a game in
//   progress; resigning and offering are allowed on either turn. Offering
//   while the opponent's offer stands is FAILED_PRECONDITION (accept it
//   instead); an offer lapses when its maker leaves the seat or the
//   opponent moves.
// - ListLegalMoves lists nothing for a finished game and the start's moves
//   on a board waiting for players.
// - UpdateSettings that changes nothing adds no event. ResetGame works in
//   any status and always empties both seats.
// - DeleteSession deletes from the store first; only when that worked is
//   SessionDeleted (not stored) published and the session forgotten.
// - RenderBoard with the laser shows the board as the last shot saw it: the
//   hit pieces still standing, marked.
// - ListSessions orders by created_at, newest first, then by id.
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
