// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The service's logic, free of gRPC: sessions (boards), seats, setups,
// moves, draws, settings, timeouts and watchers. Each method validates its
// request, checks the caller's token, applies the change to the session,
// writes it to the store before answering, and publishes its event to
// watchers. Errors are absl::Status with the codes of khet_service.proto;
// the gRPC layer only converts.
#ifndef KHET_SERVICE_CORE_SESSION_SERVICE_H_
#define KHET_SERVICE_CORE_SESSION_SERVICE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "khet/v1/khet_service.pb.h"
#include "service/base/clock.h"
#include "service/base/random_source.h"
#include "service/events/event_stream.h"
#include "service/events/shared_event.h"
#include "service/search/computer_players.h"
#include "service/sessions/caller.h"
#include "service/sessions/notice_backlog.h"
#include "service/sessions/service_limits.h"
#include "service/store/session_store.h"

namespace khet {

struct ServiceOptions {
  SessionStore* store = nullptr;          // required; not owned
  Clock* clock = RealClock();             // not owned
  RandomSource* random = SystemRandom();  // not owned
  ServiceLimits limits;
  // The search of SuggestMove and of the computer seats; empty:
  // khet::Search. Tests inject their own.
  SearchFunction search;
  // Receives one line for every search of a computer seat when it ends,
  // from a background thread, e.g. "computer session=s0001 level=1
  // outcome=played move=c1R depth=3 nodes=1234 ms=12". Never a token.
  // Default (empty): no log.
  std::function<void(const std::string& line)> log;
  // Called for every search of a computer seat when it ends, from a
  // background thread, with its outcome (played, claimed-draw, stale, gone,
  // retrying, failed, cancelled) and how long it searched. Must be quick.
  // Default (empty): not called.
  std::function<void(std::string_view outcome, absl::Duration searched)>
      computer_search_done;
};

// Decisions where khet_service.proto is silent:
// - A new session is at version 0 with no events; its first change is 1.
// - Player and session names, which others see, are trimmed of spaces and
//   hold 1-64 characters of well-formed UTF-8 with no hidden character:
//   none of Cc, Cf (soft hyphen, bidirectional marks and overrides, zero
//   width spaces and joiners, word joiner, byte order mark, tags...),
//   U+2028, U+2029 or the blank fillers (CheckDisplayName in
//   unicode_text.h); INVALID_ARGUMENT naming the field and the code point.
//   The one exception: U+200D (zero width joiner) between two emoji, as in
//   family, profession and rainbow flag emoji, which would otherwise be
//   refused. Letters of every script, emoji with their variation selectors
//   and skin tones stay allowed; the zero width non-joiner and tag-based
//   subdivision flags do not.
// - Error messages quote client input (ids, request ids, squares, moves,
//   positions, page tokens; never a token) with QuoteInput: at most 64
//   characters, control and hidden characters escaped, the size given when
//   cut.
// - Every enum field of a request (ListSessions' status, the color of
//   JoinSeat, LeaveSeat and SeatComputer, MakeMove's move.kind even beside
//   a notation) holds one of its enum's values, or the request is
//   INVALID_ARGUMENT naming the field and the value.
// - Joining the seat that completes the pair starts a new game whenever no
//   game is in progress (also after a finished one); a player who takes an
//   empty seat mid-game continues that game. LeaveSeat keeps the game
//   going; the player to move may still move while the other seat is empty.
// - A move that ends the game adds MoveMade and then GameOver (two
//   versions; the reply's version is the last). The reply's announcement is
//   never shortened by quiet mode; the events' are.
// - MakeMove retries (request_id): the token is checked first, as for any
//   move (none UNAUTHENTICATED, not a seated player's PERMISSION_DENIED).
//   A request_id answered before in the current game then returns that
//   answer unchanged, even after other moves, if the caller (the same
//   token, kept as its hash) and the request (the move as given, notation
//   or structured fields, and expected_version; MoveRequestHash) are the
//   same; if either differs it is INVALID_ARGUMENT naming the request_id,
//   and nothing changes. The answers of the last max_replies_kept moves are
//   kept with the session, across restarts; a new game (a reset, a timeout,
//   a game started after a finished one, a setup chosen) forgets them, so
//   an earlier game's request_id is a new request (a reset also gives the
//   seats new tokens).
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
// - Games are numbered per session; a game's id is "<session id>-g<N>"
//   (Session.game_id is the current one's). A game is archived, in the
//   same store write, when it ends (a move, a resignation, a draw) and when
//   a new game ends an unfinished one that had moves: a reset, a timeout,
//   a chosen setup (result "*", ending "abandoned"). A game with no moves
//   and no result is not archived and keeps its number. Archived games go
//   with their session when it is deleted. A session created from a
//   finished record is archived when the session moves on to a new game.
// - RenderBoard with the laser shows the board as the last shot saw it: the
//   hit pieces still standing, marked.
// - ListSessions orders by created_at, newest first, then by id.
// - SuggestMove copies the position under the session lock and searches
//   the copy on its own thread with no lock held; it works on a board
//   waiting for players (the start) and is FAILED_PRECONDITION on a
//   finished game. No strength given means level 3; explicit limits mean
//   best play, max_depth at most 64. The search gets the time left before
//   the deadline less a margin (a tenth of it, 10 to 250 ms) so that its
//   answer arrives in time, and at most max_suggestion_time: cut short, it
//   answers with the best move found so far (cut_short set), or
//   DEADLINE_EXCEEDED if it found none. A cancelled caller gets the
//   check's error at once; the search stops within a poll (10 ms).
// - Computer seats: SeatComputer by the owner or a seated player, into a
//   free seat, completes the pair like JoinSeat. The computer's seat has no
//   token; its player_name is the level's name and announcements call it
//   "computer, level N". Whenever a change leaves an IN_PROGRESS game with
//   the computer to move (a move, a seat taken, a restart loading the
//   session...), its search is scheduled on the computer threads with the
//   level's limits, time capped by computer_move_budget. A change that
//   keeps the position (a setting, a draw offer, the other seat changing
//   hands) lets the search run on. The move is played through the normal
//   move path only if the session is still at the version the search was
//   for; else it is dropped and the search runs again if it is still the
//   computer's turn. Reset, LeaveSeat of the computer's seat, deletion and
//   the service's destruction stop the search. The computer claims a
//   repetition draw when it may and its search does not rate its position
//   above even; it ignores draw offers (they lapse when it moves). A failed
//   write is retried after computer_retry_delay.
// - LeaveSeat with a color frees that seat: the caller's own (player
//   token), or a computer's seat (the owner or a seated player). The
//   owner's token without a color frees the computer's seat if exactly one
//   seat is the computer's.
// - On a shared store (SessionStore::shared(): PostgreSQL with several
//   replicas) sessions are still cached per process, but no request acts on
//   a stale copy: each call on a session first reads its stored version
//   and, if it moved on, rebuilds the copy from the store after publishing
//   the events in between to this process's watchers. A call that fails
//   with ABORTED (its write lost the race with another replica's, or its
//   expected_version met a copy that was behind) runs again on the
//   refreshed session, up to kSharedStoreAttempts (5) times in all, so a
//   correct expected_version succeeds on any replica, a stale one is
//   ABORTED, and a request without one is not starved by replicas that
//   keep writing (two computer seats playing each other). The store's change
//   notices keep idle copies and watchers current (events in order, by version,
//   so a lost notice is made up by the next one); the timeout sweep first
//   catches every session up with the store. Sessions created or deleted
//   elsewhere appear (GetSession of an unknown id asks the store) and
//   disappear (watchers get SessionDeleted). ListSessions lists this
//   process's copies, as current as the last notices.
// - Timeouts on a shared store: every replica sweeps, re-reads a game that
//   looks timed out and resets it with a write at the version it read; of
//   several replicas one succeeds and the others' writes are ABORTED and
//   change nothing, so the game is reset once. Computer seats likewise:
//   each replica may search, one move per version is stored, and a replica
//   whose move lost the race drops it quietly and catches up.
class SessionService {
 public:
  // Loads every session from the store. REQUIRES: options.store != nullptr.
  static absl::StatusOr<std::unique_ptr<SessionService>> Create(
      const ServiceOptions& options);
  virtual ~SessionService() = default;

  virtual v1::ListSetupsResponse ListSetups() = 0;
  virtual v1::ListColorSchemesResponse ListColorSchemes() = 0;

  // The new session is unclaimed until a seat is taken, counted toward the
  // caller's budget of unclaimed sessions, and removed by SweepUnclaimed if
  // no seat is taken in time.
  virtual absl::StatusOr<v1::CreateSessionResponse> CreateSession(
      const v1::CreateSessionRequest& request, const Caller& caller) = 0;
  // For an in-process caller (no address: no budget).
  absl::StatusOr<v1::CreateSessionResponse> CreateSession(
      const v1::CreateSessionRequest& request) {
    return CreateSession(request, Caller());
  }
  virtual absl::StatusOr<v1::Session> GetSession(
      const v1::GetSessionRequest& request) = 0;
  virtual absl::StatusOr<v1::ListSessionsResponse> ListSessions(
      const v1::ListSessionsRequest& request) = 0;
  virtual absl::Status DeleteSession(const v1::DeleteSessionRequest& request,
                                     const Caller& caller) = 0;
  // The session's version if `caller` holds its owner token, for what the
  // owner alone may do outside the core (registering a board's callback
  // URL): NOT_FOUND, UNAUTHENTICATED or PERMISSION_DENIED otherwise.
  virtual absl::StatusOr<int64_t> AuthorizeOwner(const std::string& session_id,
                                                 const Caller& caller) = 0;

  virtual absl::StatusOr<v1::JoinSeatResponse> JoinSeat(
      const v1::JoinSeatRequest& request) = 0;
  virtual absl::StatusOr<v1::Session> LeaveSeat(
      const v1::LeaveSeatRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> ChooseSetup(
      const v1::ChooseSetupRequest& request, const Caller& caller) = 0;

  virtual absl::StatusOr<v1::MakeMoveResponse> MakeMove(
      const v1::MakeMoveRequest& request, const Caller& caller) = 0;
  // MakeMove for a caller that must not wait (gRPC's callback thread):
  // the reply goes to `done`, perhaps later from the store's thread once
  // the move's write is committed; `redo` instead if that write failed
  // (the caller then runs MakeMove where it may wait). False, with nothing
  // done, when the move needs a thread that may wait; see MakeMoveLater in
  // service/play/move_path.h.
  virtual bool MakeMoveLater(
      const v1::MakeMoveRequest& request, const Caller& caller,
      absl::AnyInvocable<void(absl::StatusOr<v1::MakeMoveResponse>) &&> done,
      absl::AnyInvocable<void() &&> redo) = 0;
  virtual absl::StatusOr<v1::ListLegalMovesResponse> ListLegalMoves(
      const v1::ListLegalMovesRequest& request) = 0;
  // The computer's move for the side to move; see the decisions above.
  virtual absl::StatusOr<v1::SuggestMoveResponse> SuggestMove(
      const v1::SuggestMoveRequest& request, const CallControl& control) = 0;
  virtual v1::ListLevelsResponse ListLevels() = 0;
  virtual v1::ListPresetsResponse ListPresets() = 0;
  // Puts the computer into a free seat (owner or seated player).
  virtual absl::StatusOr<v1::Session> SeatComputer(
      const v1::SeatComputerRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> Resign(const v1::ResignRequest& request,
                                             const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> OfferDraw(
      const v1::OfferDrawRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> AcceptDraw(
      const v1::AcceptDrawRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> ClaimRepetitionDraw(
      const v1::ClaimRepetitionDrawRequest& request, const Caller& caller) = 0;
  // Takebacks (service/play/takebacks.h).
  virtual absl::StatusOr<v1::Session> RequestTakeback(
      const v1::RequestTakebackRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> AcceptTakeback(
      const v1::AcceptTakebackRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> DeclineTakeback(
      const v1::DeclineTakebackRequest& request, const Caller& caller) = 0;

  virtual absl::StatusOr<v1::Session> UpdateSettings(
      const v1::UpdateSettingsRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> ResetGame(
      const v1::ResetGameRequest& request, const Caller& caller) = 0;
  virtual absl::StatusOr<v1::Session> Rematch(const v1::RematchRequest& request,
                                              const Caller& caller) = 0;

  // Events after request.after_version, then live ones. after_version is 0
  // to the session's current version (that: only new events);
  // INVALID_ARGUMENT naming both otherwise. The stream counts as a watcher
  // (max_watchers_per_session, max_watchers) until destroyed.
  virtual absl::StatusOr<std::unique_ptr<EventStream>> Watch(
      const v1::WatchRequest& request) = 0;
  // Watchers now: EventStreams from Watch not yet destroyed.
  virtual int watcher_count() = 0;
  // On a shared store: the other replicas' changes heard and not yet
  // brought to this replica's watchers.
  virtual NoticeBacklog notice_backlog() = 0;

  virtual absl::StatusOr<v1::RenderBoardResponse> RenderBoard(
      const v1::RenderBoardRequest& request) = 0;

  // Game records and the archive (service/archive/game_archive.h).
  virtual absl::StatusOr<v1::GetGameRecordResponse> GetGameRecord(
      const v1::GetGameRecordRequest& request) = 0;
  virtual absl::StatusOr<v1::ListGamesResponse> ListGames(
      const v1::ListGamesRequest& request) = 0;
  virtual absl::StatusOr<v1::GetPositionResponse> GetPosition(
      const v1::GetPositionRequest& request) = 0;
  // The computer's analysis of a finished game
  // (service/archive/game_analyses.h); one it starts counts toward the caller's
  // analyses at once.
  virtual absl::StatusOr<v1::GameAnalysis> AnalyzeGame(
      const v1::AnalyzeGameRequest& request, const Caller& caller) = 0;
  // For an in-process caller (no address: no budget).
  absl::StatusOr<v1::GameAnalysis> AnalyzeGame(
      const v1::AnalyzeGameRequest& request) {
    return AnalyzeGame(request, Caller());
  }

  // Ratings (service/archive/player_ratings.h).
  virtual absl::StatusOr<v1::Player> GetPlayer(
      const v1::GetPlayerRequest& request) = 0;
  virtual absl::StatusOr<v1::ListPlayersResponse> ListPlayers(
      const v1::ListPlayersRequest& request) = 0;

  // Resets every game with timeout on (and no clocks) whose last move (or
  // start) is older than its timeout, and ends every game whose side to
  // move ran out of time (TIME_FORFEIT), by the injected clock. khetd calls
  // it periodically; tests call it after advancing a FakeClock. Returns how
  // many games it reset or ended.
  virtual int SweepTimeouts() = 0;
  // When the next clock known to this process runs out (InfiniteFuture:
  // none), and the sweep of the games whose flag fell by now: khetd's flag
  // timer waits for the one, then calls the other, so that a flag falls at
  // its moment. Returns how many games it ended.
  virtual absl::Time NextFlagFall() = 0;
  virtual int SweepFlags() = 0;
  // Removes every session on which no seat was ever taken, older than
  // ServiceLimits::unclaimed_session_timeout by the injected clock, as
  // DeleteSession would (watchers get SessionDeleted); on a shared store
  // only while it is still at the version read, so that a seat taken on
  // another replica meanwhile keeps it. khetd calls it with SweepTimeouts;
  // returns how many it removed.
  virtual int SweepUnclaimed() = 0;
};

}  // namespace khet

#endif  // KHET_SERVICE_CORE_SESSION_SERVICE_H_
