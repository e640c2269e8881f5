// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Where sessions live between requests and across restarts. The service
// keeps each session as an opaque serialized state plus an append-only log
// of serialized events; a store only has to keep them durably and apply
// each change atomically with a version check.
#ifndef KHET_SERVICE_STORE_SESSION_STORE_H_
#define KHET_SERVICE_STORE_SESSION_STORE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace khet {

struct SessionRecord {
  std::string id;
  int64_t version = 0;  // the version of the session's last event
  std::string state;    // serialized khet.store.SessionState
};

// A session's id and stored version, without its state.
struct SessionVersion {
  std::string id;
  int64_t version = 0;
};

struct EventRecord {
  int64_t version = 0;  // consecutive per session, starting at 1
  std::string event;    // serialized khet.v1.Event
};

// OK if `events` may follow stored events whose highest version is
// `last_version` (0 for none): versions strictly increasing and above it.
// INVALID_ARGUMENT naming the session and both versions otherwise. For
// stores' implementations.
absl::Status CheckNewEvents(std::string_view id, int64_t last_version,
                            absl::Span<const EventRecord> events);

// Stores keep a bounded history of each session's events: with a limit of
// `events_kept` (0: no limit), a write whose last event version passes a
// multiple of kEventDropStep drops the events more than `events_kept`
// versions older than its last, so a session holds at most
// events_kept + kEventDropStep - 1 events and old rows go in batches.
inline constexpr int64_t kEventDropStep = 100;

// The highest version of the events to drop in a write that takes a
// session's last event version from `old_last` to `new_last` (0: none).
int64_t EventsDroppedThrough(int64_t old_last, int64_t new_last,
                             int64_t events_kept);

// A finished or abandoned game kept in the store's archive, beside the
// session it was played on. Written only with the session change that ends
// it or starts the next game (SessionStore::Update), so that a session and
// its archive never disagree; deleted with its session.
struct ArchivedGame {
  std::string id;  // unique over the store: "<session id>-g<N>"
  std::string session_id;
  std::string record;  // the game record (engine/game_record.h)
  std::string silver;  // the players' names then; "" for an empty seat
  std::string red;
  std::string setup_id;  // "custom" for a start given as text
  std::string result;    // "1-0", "0-1", "1/2-1/2" or "*" (abandoned)
  std::string ending;    // ResultReasonName, or "abandoned"
  absl::Time started_at = absl::UnixEpoch();
  absl::Time ended_at = absl::UnixEpoch();
  int64_t plies = 0;
  // A rated game's players (both set) or an unrated game (both empty): its
  // result updates these two players' ratings (ApplyRating).
  std::string silver_id;
  std::string red_id;
  // Set by the store: the ratings of this rated game have been applied.
  // Ignored in Update.
  bool rating_applied = false;
  // The computer's analysis once made (a serialized khet.v1.GameAnalysis),
  // set by SetGameAnalysis; empty before. Ignored in Update.
  std::string analysis;
  // Set by the store when written: increases with every game archived, so
  // that newer games list first. Ignored in Update.
  int64_t sequence = 0;
};

// Which archived games ListGames returns: those matching every non-empty
// field, newest first (highest sequence), at most `limit`, only those with
// a sequence below `before_sequence` when it is above 0 (the next page).
struct GameQuery {
  std::string session_id;
  std::string player;  // Silver's or Red's name, exactly
  std::string setup_id;
  std::string result;
  int64_t before_sequence = 0;
  int limit = 20;
};

// A rated player's Glicko-2 rating (service/ratings/glicko2.h) and record.
// `games` counts the rated games applied to it and serves as its version.
struct PlayerRecord {
  std::string id;
  std::string name;  // as seated in the last rated game
  double rating = 0;
  double deviation = 0;
  double volatility = 0;
  int64_t games = 0;
  int64_t wins = 0;
  int64_t draws = 0;
  int64_t losses = 0;
  absl::Time updated_at = absl::UnixEpoch();
};

// Rank order of the leaderboard: higher rating first, then id. For stores.
bool RanksAbove(const PlayerRecord& a, const PlayerRecord& b);

// Stores' NOT_FOUND errors for an unknown session and an unknown archived
// game, naming it.
absl::Status SessionNotStored(std::string_view id);
absl::Status GameNotArchived(std::string_view game_id);

// Stores' errors for ApplyRating: NOT_FOUND for an unknown player;
// FAILED_PRECONDITION for a game not rated or already applied; ABORTED for
// a player whose stored game count is not the one expected.
absl::Status NoPlayer(std::string_view player_id);
absl::Status RatingNotPending(std::string_view game_id, bool applied);
absl::Status PlayerMoved(std::string_view player_id, int64_t stored_games,
                         int64_t new_games);

// True if `game` matches the query's filters (its paging aside). For
// stores' implementations.
bool GameMatches(const ArchivedGame& game, const GameQuery& query);

// A board's pushed deliveries as a shared store keeps them: the URL, the
// address its registration checked (deliveries go there only), the
// registering client's address (its budget), the signing secret, and the
// replica that delivers.
struct PushTargetRecord {
  std::string session_id;
  std::string url;
  std::string address;
  std::string caller;
  std::string secret;
  std::string owner;
};

// A change committed to a shared store, by this process or another.
struct StoreChange {
  // The session changed; empty: changes may have been missed (the store
  // lost its way of hearing them), so every session may differ.
  std::string id;
  int64_t version = 0;  // its stored version after the change
  bool deleted = false;
};
using ChangeListener = std::function<void(const StoreChange& change)>;

class SessionStore {
 public:
  virtual ~SessionStore() = default;

  // Stores a new session and its first events. ALREADY_EXISTS if the id is
  // taken. When this returns OK the change is durable.
  //
  // In Create and Update, event versions must increase and exceed those of
  // the session's stored events (CheckNewEvents); INVALID_ARGUMENT, with
  // nothing changed, if not.
  virtual absl::Status Create(const SessionRecord& record,
                              absl::Span<const EventRecord> events) = 0;

  // Replaces the session's state and appends events, atomically, if the
  // stored version equals expected_version; ABORTED naming both versions if
  // not, NOT_FOUND if there is no such session. Durable when OK. A store
  // with a limit on events kept drops old ones here (EventsDroppedThrough).
  // With `archive` (may be null) the game is added to the archive in the
  // same atomic write; ALREADY_EXISTS, with nothing changed, if its id is
  // taken.
  virtual absl::Status Update(const SessionRecord& record,
                              int64_t expected_version,
                              absl::Span<const EventRecord> events,
                              const ArchivedGame* archive) = 0;
  absl::Status Update(const SessionRecord& record, int64_t expected_version,
                      absl::Span<const EventRecord> events) {
    return Update(record, expected_version, events, nullptr);
  }

  // A write handed over whole, for UpdateLater.
  struct LaterUpdate {
    SessionRecord record;
    int64_t expected_version = 0;
    std::vector<EventRecord> events;
    std::optional<ArchivedGame> archive;
  };
  // Update, answered through `done` (exactly once, with what Update would
  // return) rather than by waiting: where the store updates_later(), `done`
  // runs on a thread of the store's after the write's commit, and must not
  // wait for anything, a store write least of all. Here (the default) it
  // runs the update at once and calls `done` before returning.
  virtual void UpdateLater(LaterUpdate update,
                           absl::AnyInvocable<void(absl::Status) &&> done) {
    std::move(done)(
        Update(update.record, update.expected_version, update.events,
               update.archive.has_value() ? &*update.archive : nullptr));
  }
  // Whether UpdateLater returns before its write is done (true for a store
  // whose writes wait for another server).
  virtual bool updates_later() const { return false; }

  // Removes the session, its events and its archived games. NOT_FOUND if
  // absent.
  virtual absl::Status Delete(std::string_view id) = 0;

  // Delete, only if the session is at `expected_version`: ABORTED naming
  // both versions, with nothing changed, if not. The default reads the
  // version, then deletes: right where one process writes the store and
  // holds the session's lock meanwhile (memory, SQLite); a shared store
  // does both at once.
  virtual absl::Status DeleteAt(std::string_view id, int64_t expected_version);

  // One session. NOT_FOUND if absent.
  virtual absl::StatusOr<SessionRecord> Get(std::string_view id) = 0;

  // The stored sessions among `ids`, in no particular order; those not
  // stored are left out. For reading many sessions back at once (a replica
  // whose writes failed while its store was down). The default reads each
  // with Get.
  virtual absl::StatusOr<std::vector<SessionRecord>> GetMany(
      absl::Span<const std::string> ids);

  // The session's stored version alone (Get without the state), for
  // checking that a copy is current. NOT_FOUND if absent. The default
  // reads Get.
  virtual absl::StatusOr<int64_t> GetVersion(std::string_view id);

  // Every session, for loading at start-up.
  virtual absl::StatusOr<std::vector<SessionRecord>> LoadAll() = 0;

  // Every session's id and version (LoadAll without the states), for
  // catching up with a shared store. The default reads LoadAll.
  virtual absl::StatusOr<std::vector<SessionVersion>> ListVersions();

  // The session's events with version > after_version, oldest first, at
  // most `limit` of them: of those the store still keeps (see
  // kEventDropStep), so the first may be later than after_version + 1.
  // Empty (not an error) for an unknown session.
  virtual absl::StatusOr<std::vector<EventRecord>> EventsAfter(
      std::string_view id, int64_t after_version, int limit) = 0;

  // One archived game. NOT_FOUND naming the id if there is none.
  virtual absl::StatusOr<ArchivedGame> GetGame(std::string_view game_id) = 0;

  // Archived games matching `query` (see GameQuery), newest first.
  virtual absl::StatusOr<std::vector<ArchivedGame>> ListGames(
      const GameQuery& query) = 0;

  // Keeps `analysis` with an archived game, replacing any before. Durable
  // when OK. NOT_FOUND naming the id if there is no such game.
  virtual absl::Status SetGameAnalysis(std::string_view game_id,
                                       std::string_view analysis) = 0;

  // ---- Ratings (derived from the archive's rated games) ----
  // The default implementations answer UNIMPLEMENTED: a store without
  // ratings.

  // One player. NOT_FOUND naming the id if no rated game has counted for
  // them.
  virtual absl::StatusOr<PlayerRecord> GetPlayer(std::string_view player_id);

  // Players by rating, highest first (ties by id), skipping `offset`, at
  // most `limit`.
  virtual absl::StatusOr<std::vector<PlayerRecord>> ListPlayers(int64_t offset,
                                                                int limit);

  // Rated archived games whose ratings are not applied yet, oldest first,
  // at most `limit`.
  virtual absl::StatusOr<std::vector<ArchivedGame>> PendingRatedGames(
      int limit);

  // Applies a rated game's outcome, atomically: writes both players and
  // marks the game applied. Each player's stored `games` must be one below
  // the given one (a player not stored counts 0), else ABORTED naming the
  // player (another game was applied first: read again and recompute);
  // FAILED_PRECONDITION if the game's ratings are applied already or it is
  // not rated; NOT_FOUND if there is no such game. Durable when OK.
  virtual absl::Status ApplyRating(std::string_view game_id,
                                   const PlayerRecord& silver,
                                   const PlayerRecord& red);

  // The lease on a session's computer seat, which lets one replica at a
  // time search for its moves. Grants it to `holder` (true) if no one holds
  // it, `holder` does already (a renewal), or its holder's lease ran out
  // (expired at or before `now`: the holder died); it then runs until
  // now + ttl. False while another holder's lease runs. Times are the
  // callers' clocks, which must agree to well within ttl. A deleted
  // session's lease goes with it.
  virtual absl::StatusOr<bool> TryLease(std::string_view id,
                                        std::string_view holder, absl::Time now,
                                        absl::Duration ttl) = 0;

  // Where a board's pushed events go (http/board_pushes.h) and which
  // replica delivers them, kept in a shared store so that the boards of a
  // replica that died pass to another (docs/ARCHITECTURE.md, "Pushed
  // events on replicas"). A store that is not shared keeps none: Save and
  // Delete do nothing, Claim finds nothing.
  //
  // Saves the session's target, replacing any, delivered by `owner`.
  // NOT_FOUND for an unknown session. A deleted session's target goes
  // with it.
  virtual absl::Status SavePushTarget(const PushTargetRecord& target);
  // Deletes the session's target if `owner` delivers it (another's stays).
  virtual absl::Status DeletePushTarget(std::string_view session_id,
                                        std::string_view owner);
  // The session's target, whichever replica delivers it; NOT_FOUND if it
  // has none.
  virtual absl::StatusOr<PushTargetRecord> GetPushTarget(
      std::string_view session_id);
  // The sessions whose targets `owner` delivers, and just their number (a
  // replica compares it with the boards it delivers, each heartbeat, to
  // find those another took over or unregistered).
  virtual absl::StatusOr<std::vector<std::string>> PushTargetsOf(
      std::string_view owner);
  virtual absl::StatusOr<int64_t> CountPushTargets(std::string_view owner);
  // Renews `owner`'s heartbeat until `expires` and gives it up to `limit`
  // targets of owners whose heartbeat ended at or before `now` (they died,
  // or shut down and ended theirs), which it delivers from then on. Each
  // target goes to one claimant. `expires` = `now` with `limit` 0 ends
  // `owner`'s heartbeat, handing its targets over.
  virtual absl::StatusOr<std::vector<PushTargetRecord>> ClaimPushTargets(
      std::string_view owner, absl::Time now, absl::Time expires, int limit);

  // True when other processes may change the store while this one uses it
  // (PostgreSQL): a copy read from it may then be stale at any time. False
  // (memory, SQLite): only this process writes it.
  virtual bool shared() const { return false; }

  // Calls `listener`, from a thread of the store, for each change committed
  // to a shared store by any process (several changes may come as one, with
  // the last version); nullptr stops the calls and waits for one in
  // progress. A store that is not shared never calls it. The listener may
  // call the store's other methods.
  virtual void SetChangeListener(ChangeListener listener) { (void)listener; }
};

}  // namespace khet

#endif  // KHET_SERVICE_STORE_SESSION_STORE_H_
