// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// One session (board) in memory: the persisted khet.store.SessionState plus
// the engine Game rebuilt from its start position and moves. A value type:
// the service copies it, changes the copy, writes the copy to the store and
// only then replaces the original, so a failed write changes nothing.
//
// Invariants kept by every method: state().moves mirrors game().moves() in
// notation; WAITING_FOR_PLAYERS means no moves and no result; FINISHED means
// game().over() and state().result holds the result; seats has two entries,
// Silver then Red.
#ifndef KHET_SERVICE_SESSIONS_SESSION_H_
#define KHET_SERVICE_SESSIONS_SESSION_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/game.h"
#include "engine/laser.h"
#include "engine/play.h"
#include "engine/position.h"
#include "khet/v1/khet_service.pb.h"
#include "service/i18n/messages.h"
#include "service/store/session_store.h"
#include "session_state.pb.h"

namespace khet {

inline constexpr std::string_view kCustomSetupId = "custom";

// The SHA-256 of a token, as stored; tokens themselves are never kept.
std::string TokenHash(std::string_view token);

// What makes two MakeMove requests the same request, hashed (SHA-256): the
// move as given (notation and every structured field, byte for byte) and
// expected_version (set or not, and its value). The session and the
// request_id are not part of it.
std::string MoveRequestHash(const v1::MakeMoveRequest& request);

// A MakeMove answer's key for retries.
struct ReplyKey {
  std::string request_id;    // empty: the answer is not kept
  std::string token_hash;    // TokenHash of the caller's token
  std::string request_hash;  // MoveRequestHash of the request
};

// A kept answer made whole again: from `kept` and the MoveMade event at
// kept.move_event_version (`made`, whose clocks are the answer's; unused
// for answers kept whole by older states). INTERNAL if an old whole answer
// does not parse.
absl::StatusOr<v1::MakeMoveResponse> KeptReply(const store::StoredReply& kept,
                                               const v1::Event& made);

// What one move did, for the reply and the event.
struct PlayedMove {
  Color mover = Color::kSilver;
  Position before;      // the position the move was played in
  MoveEffects effects;  // the canonical move, hits and removals
  BeamTrace trace;      // the mover's laser, as it saw the board
};

class Session {
 public:
  // A new board, waiting for players, at version 0. `start` must be valid.
  static Session New(std::string id, std::string name,
                     std::string owner_token_hash, std::string setup_id,
                     const Position& start, const RuleOptions& options,
                     const v1::Settings& settings, absl::Time created_at);

  // Rebuilds a board from its stored state: parses the start, replays the
  // moves, then applies a stored result that no move decided (resignation,
  // agreed or claimed draw). An error describes what does not fit.
  static absl::StatusOr<Session> FromState(const store::SessionState& state);

  const store::SessionState& state() const { return state_; }
  const Game& game() const { return game_; }
  const std::string& id() const { return state_.id(); }
  int64_t version() const { return state_.version(); }
  v1::GameStatus status() const { return state_.status(); }
  RuleOptions options() const { return game_.options(); }
  // The setup's name for people ("Classic 2", "a custom position").
  std::string SetupName() const;

  // ---- The current game and the archive ----
  int64_t game_number() const;  // from 1
  std::string GameId() const;   // "<id>-g<game_number>"
  // When the current game started; the session's creation if it has not.
  absl::Time game_started_at() const;
  // A finished game not yet in the archive: the next write archives it
  // and marks it archived.
  bool NeedsArchiving() const;
  void MarkArchived() { state_.set_game_archived(true); }
  // The unfinished game a new game (EndGame) abandoned, or a finished one
  // it ended that was not archived, for the next write to archive; taken
  // once.
  std::optional<ArchivedGame> TakeAbandoned();

  // ---- Callers ----
  bool IsOwner(std::string_view token) const;
  // The seat whose player holds `token`, if any.
  std::optional<Color> SeatOf(std::string_view token) const;
  const store::StoredSeat& seat(Color c) const;
  bool BothSeatsTaken() const;
  // The seat as the contract shows it.
  v1::Seat SeatToProto(Color c) const;
  // Who sits there, for announcements: the player's name, or the computer
  // and its level in the session's language ("computer, level 3", so "Red
  // (computer, level 3) plays ...").
  std::string SeatLabel(Color c) const;
  // No seat was ever taken (SessionState.unclaimed): New sets it, the first
  // seat taken clears it.
  bool unclaimed() const { return state_.unclaimed(); }
  // Who created it, while unclaimed: the client's address key and in-world
  // object key (either may be empty).
  void set_creator(std::string address, std::string object_key);

  // ---- Games archived (the budget of unrated games per hour) ----
  // Whether the current game has begun (a move, or its end): a new game
  // after it archives it, or follows its archiving.
  bool game_begun() const { return game_.ply() > 0 || game_.over(); }
  // Counts an unrated game archived at `now` in the current hour's window
  // (a new window if the last one is over).
  void NoteUnratedGameArchived(absl::Time now);
  // Unrated games archived in the window still open at `now` (0 if none
  // is), and when that window ends.
  int unrated_games_in_window(absl::Time now) const;
  absl::Time unrated_games_window_end() const;

  // ---- Changes (the caller bumps the version) ----
  void set_version(int64_t v) { state_.set_version(v); }
  // `player_id` may be empty. A rated game in progress whose seat `c` gets
  // another player id is no longer rated. Taking a seat (this or
  // TakeComputerSeat) claims the session: it is no longer unclaimed().
  void TakeSeat(Color c, std::string player_name, std::string token_hash,
                std::string player_id = "");
  // The computer takes the seat at `level`, named `level_name`; it has no
  // token.
  void TakeComputerSeat(Color c, int level, std::string level_name);
  // Empties the seat; withdraws that player's standing draw offer.
  void LeaveSeat(Color c);
  // The two seats change places: Silver's player (token and all) sits Red.
  void SwapSeats();
  // A new start and options; the board goes back to the start, waiting.
  // The time control stays (set_time_control changes it).
  void ChooseSetup(std::string setup_id, const Position& start,
                   const RuleOptions& options);
  // The clocks' rules (REQUIRES: CheckTimeControl is OK); only while no
  // game is in progress. The clocks are set to their starting times.
  void set_time_control(const v1::TimeControl& tc);
  // A new game from the start: IN_PROGRESS, last_move_at = now. Rated
  // (game_rated) when the settings say so and both seats hold players
  // with ids.
  void StartGame(absl::Time now);
  // The current game counts for ratings.
  bool game_rated() const { return !state_.rated_silver_id().empty(); }
  // No game: the board at the start, WAITING_FOR_PLAYERS, no kept replies;
  // with `empty_seats` both seats are freed too. A game that had moves or
  // a result ends for good: the next one gets the next number, and one not
  // archived yet is kept for TakeAbandoned.
  void EndGame(bool empty_seats);
  // Plays for the side to move: INVALID_ARGUMENT with the engine's reason
  // if illegal; FAILED_PRECONDITION if the mover's time ran out by `now`
  // (the game is then ended by SweepTimeouts, not here). A draw offer by
  // the mover's opponent lapses. With clocks: the mover's time used is
  // taken off its clock and the increment added (FISCHER), or its clock
  // set to per_move_ms again (PER_MOVE); a move that ends the game stops
  // the clocks.
  absl::StatusOr<PlayedMove> Play(Move move, absl::Time now);
  absl::Status Resign(Color loser);
  absl::Status LoseOnTime(Color loser);
  absl::Status AgreeDraw();
  absl::Status ClaimRepetitionDraw(Color claimer);
  void OfferDraw(Color by) { state_.set_draw_offered_by(ToV1(by)); }
  std::optional<Color> draw_offered_by() const;

  // ---- Takebacks ----
  // How many plies `by`'s takeback would undo: 1 if `by` moved last, 2 if
  // the opponent replied since; 0 if `by` has no move in this game.
  int TakebackPlies(Color by) const;
  void RequestTakeback(Color by) { state_.set_takeback_requested_by(ToV1(by)); }
  std::optional<Color> takeback_requested_by() const;
  void ClearTakebackRequest() { state_.clear_takeback_requested_by(); }
  // Undoes the game's last `plies` moves (1 <= plies <= ply, a game in
  // progress): the board, the repetition history and the last shot are
  // those before them, kept answers and standing offers are dropped, and
  // with clocks the times stay as they are at `now` while the side now to
  // move's clock runs from `now`.
  absl::Status TakeBack(int plies, absl::Time now);
  void set_settings(const v1::Settings& s) { *state_.mutable_settings() = s; }
  // The language of the board's announcements (settings.language).
  Language language() const;
  // The preset the setup and rules were chosen with ("" for none).
  void set_preset(std::string id) { state_.set_preset(std::move(id)); }
  // Keeps the answer to the request `key` names, for its retries: `reply`
  // without what the MoveMade event at `move_event_version` holds. The last
  // `keep` answers are kept. A new game forgets them all (EndGame).
  void KeepReply(const ReplyKey& key, const v1::MakeMoveResponse& reply,
                 int64_t move_event_version, int keep);
  // The kept answer to key.request_id if it was kept for the same caller
  // and request; nullopt if none is kept (in this game). INVALID_ARGUMENT
  // naming the request_id if it was kept for another caller or another
  // request. The answer whole is KeptReply(stored, its MoveMade event).
  absl::StatusOr<std::optional<store::StoredReply>> FindReply(
      const ReplyKey& key) const;

  // ---- Clocks (rules.time_control) ----
  bool has_clocks() const;
  // `c`'s time left at `now`: its clock runs while it is to move in a game
  // in progress. InfiniteDuration without clocks; never below zero.
  absl::Duration TimeLeft(Color c, absl::Time now) const;
  // When the side to move's time runs out; nullopt when no clock runs.
  std::optional<absl::Time> FlagFallsAt() const;
  // Stops the clocks at `now`, the side to move's time used taken off:
  // before a game ends other than by a move.
  void StopClocks(absl::Time now);
  v1::Clocks ClocksToProto() const;

  // ---- Views ----
  // The session as the contract shows it (settings with their derived
  // fields, the full colour scheme); never a token or a hash.
  v1::Session ToProto() const;
  // The board as text; with the laser: the board as the last shot saw it
  // (hit pieces still standing, marked), the current side to move.
  std::string Render(bool with_laser) const;

 private:
  static v1::Color ToV1(Color c);
  void Claim();        // no longer unclaimed, its creator forgotten
  void SetFinished();  // status and stored result from game_
  void ResetClocks();  // both at their starting times
  int64_t clock_ms(Color c) const;
  void set_clock_ms(Color c, int64_t ms);

  store::SessionState state_;
  Game game_{Position()};
  std::optional<ArchivedGame> abandoned_;  // not persisted: see TakeAbandoned
  // The last move's shot: the board after the move, before the removals.
  std::optional<Position> shot_board_;
  BeamTrace last_trace_;
};

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_SESSION_H_
