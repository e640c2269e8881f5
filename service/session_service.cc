// Request handling: validate, authenticate, change a copy of the session,
// write it with its events to the store, then reply and publish.

#include "service/session_service.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/play.h"
#include "engine/search.h"
#include "engine/setups.h"
#include "service/announcements.h"
#include "service/color_schemes.h"
#include "service/computer_players.h"
#include "service/convert.h"
#include "service/enum_fields.h"
#include "service/event_hub.h"
#include "service/mutex.h"
#include "service/quoted_input.h"
#include "service/session.h"
#include "service/status_macros.h"
#include "service/unicode_text.h"
#include "service/watch_stream.h"
#include "service/watcher_limit.h"

namespace khet {
namespace {

constexpr std::string_view kDefaultSetup = "classic-2";
constexpr int kDefaultPageSize = 20;
constexpr int64_t kMinTimeout = 60;
constexpr int64_t kMaxTimeout = 604800;
constexpr double kMinScale = 1;
constexpr double kMaxScale = 30;
constexpr int kDefaultSuggestionLevel = 3;
constexpr int kMaxSuggestionDepth = 64;
// How often a SuggestMove call looks at its caller while the search runs.
constexpr absl::Duration kSuggestionPoll = absl::Milliseconds(10);
// Events read at once when catching up with a shared store.
constexpr int kCatchUpPage = 500;

// One session and what guards it. id and created_at never change.
struct Entry {
  Entry(Session s, int watcher_buffer)
      : id(s.id()),
        created_at(TimeFromProto(s.state().created_at())),
        hub(std::make_shared<EventHub>(watcher_buffer)),
        session(std::move(s)) {}

  const std::string id;
  const absl::Time created_at;
  const std::shared_ptr<EventHub> hub;
  Mutex mu;
  Session session ABSL_GUARDED_BY(mu);
  bool deleted ABSL_GUARDED_BY(mu) = false;
};

absl::Status NoSession(std::string_view id) {
  return absl::NotFoundError(absl::StrCat("no session ", QuoteInput(id)));
}

struct ChosenSetup {
  std::string id;
  Position start;
  RuleOptions options;
};

// A named setup (default classic-2) or a custom position, and rule options.
absl::StatusOr<ChosenSetup> ResolveSetup(std::string_view setup_id,
                                         std::string_view position,
                                         const v1::RuleOptions& rules,
                                         const ServiceLimits& limits) {
  ChosenSetup chosen;
  KHET_ASSIGN_OR_RETURN(chosen.options, OptionsFromProto(rules));
  if (!position.empty()) {
    if (!setup_id.empty() && setup_id != kCustomSetupId) {
      return absl::InvalidArgumentError(absl::StrCat(
          "give setup_id (", QuoteInput(setup_id), ") or position, not both"));
    }
    if (static_cast<int>(position.size()) > limits.max_position_length) {
      return absl::InvalidArgumentError(absl::StrCat(
          "position has ", position.size(), " characters; at most ",
          limits.max_position_length, " are allowed"));
    }
    absl::StatusOr<Position> start = ParsePosition(position);
    if (!start.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad position: ", start.status().message()));
    }
    chosen.id = std::string(kCustomSetupId);
    chosen.start = *start;
    return chosen;
  }
  chosen.id =
      setup_id.empty() ? std::string(kDefaultSetup) : std::string(setup_id);
  absl::StatusOr<Position> start = SetupPosition(chosen.id);
  if (!start.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown setup ", QuoteInput(chosen.id), " (ListSetups names them)"));
  }
  chosen.start = *start;
  return chosen;
}

v1::Settings DefaultSettings() {
  v1::Settings s;
  s.set_timeout_enabled(true);
  s.set_timeout_seconds(3600);
  s.set_quiet(false);
  s.set_color_scheme(std::string(kDefaultColorScheme));
  s.set_scale_meters(3);
  return s;
}

// Applies the fields set in `update`; INVALID_ARGUMENT naming the first bad
// value, with *settings unchanged.
absl::Status ApplySettings(const v1::SettingsUpdate& update,
                           v1::Settings* settings) {
  v1::Settings next = *settings;
  if (update.has_timeout_enabled()) {
    next.set_timeout_enabled(update.timeout_enabled());
  }
  if (update.has_timeout_seconds()) {
    if (update.timeout_seconds() < kMinTimeout ||
        update.timeout_seconds() > kMaxTimeout) {
      return absl::InvalidArgumentError(
          absl::StrCat("timeout_seconds must be ", kMinTimeout, " to ",
                       kMaxTimeout, ", not ", update.timeout_seconds()));
    }
    next.set_timeout_seconds(update.timeout_seconds());
  }
  if (update.has_quiet()) next.set_quiet(update.quiet());
  if (update.has_color_scheme()) {
    KHET_RETURN_IF_ERROR(FindColorScheme(update.color_scheme()).status());
    next.set_color_scheme(update.color_scheme());
  }
  if (update.has_scale_meters()) {
    const double scale = update.scale_meters();
    if (!(scale >= kMinScale && scale <= kMaxScale)) {  // NaN fails too
      return absl::InvalidArgumentError(
          absl::StrCat("scale_meters must be ", kMinScale, " to ", kMaxScale,
                       ", not ", scale));
    }
    next.set_scale_meters(scale);
  }
  *settings = next;
  return absl::OkStatus();
}

absl::Status RequireOwner(const Session& s, const Caller& caller) {
  if (caller.token.empty()) {
    return absl::UnauthenticatedError(
        "this call needs the owner's token (authorization: Bearer <token>)");
  }
  if (!s.IsOwner(caller.token)) {
    return absl::PermissionDeniedError(
        absl::StrCat("only the owner of session \"", s.id(), "\" may do this"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Color> RequirePlayer(const Session& s, const Caller& caller) {
  if (caller.token.empty()) {
    return absl::UnauthenticatedError(
        "this call needs a player's token (authorization: Bearer <token>)");
  }
  std::optional<Color> seat = s.SeatOf(caller.token);
  if (!seat.has_value()) {
    return absl::PermissionDeniedError(
        absl::StrCat("the token is not that of a player seated in session \"",
                     s.id(), "\""));
  }
  return *seat;
}

absl::Status RequireGameInProgress(const Session& s) {
  if (s.status() == v1::IN_PROGRESS) return absl::OkStatus();
  if (s.status() == v1::FINISHED) {
    return absl::FailedPreconditionError(
        absl::StrCat("the game in session \"", s.id(),
                     "\" is over: ", s.state().result().text()));
  }
  return absl::FailedPreconditionError(
      absl::StrCat("no game is in progress in session \"", s.id(),
                   "\": it is waiting for players"));
}

// The seat a JoinSeat or SeatComputer asks for: `wanted`, or the first
// free one; FAILED_PRECONDITION if it is taken.
absl::StatusOr<Color> FreeSeat(const Session& s, v1::Color wanted) {
  Color color = Color::kSilver;
  if (wanted == v1::COLOR_UNSPECIFIED) {
    if (s.seat(Color::kSilver).occupied()) color = Color::kRed;
    if (s.seat(color).occupied()) {
      return absl::FailedPreconditionError(
          absl::StrCat("both seats of session \"", s.id(), "\" are taken"));
    }
    return color;
  }
  KHET_ASSIGN_OR_RETURN(color, FromProto(wanted));
  if (s.seat(color).occupied()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the ", ColorName(color), " seat is taken by ",
        s.seat(color).computer() ? absl::StrCat("the ", s.SeatLabel(color))
                                 : s.seat(color).player_name()));
  }
  return color;
}

absl::StatusOr<Level> LevelOf(int number) {
  absl::StatusOr<Level> level = FindLevel(number);
  if (!level.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "level must be 1 to 5, not ", number, " (ListLevels names them)"));
  }
  return level;
}

// `limits` with its time limit no longer than `cap`.
SearchLimits CapTime(SearchLimits limits, absl::Duration cap) {
  if (limits.max_time == absl::ZeroDuration() || limits.max_time > cap) {
    limits.max_time = cap;
  }
  return limits;
}

// `style` for a search in `game`'s current position: its rule option and
// the positions before it, which the search scores as draws to return to.
SearchStyle StyleForGame(const Game& game, SearchStyle style) {
  style.both_pharaohs_hit_draws = game.options().both_pharaohs_hit_draws;
  style.history.clear();
  style.history.reserve(game.moves().size());
  Position pos = game.start();
  for (const Move m : game.moves()) {
    style.history.push_back(pos.hash());
    MakeMove(&pos, m);
  }
  return style;
}

// The search's line as moves playable one after the other from `pos`; it
// ends early at a move that is not legal or after a Pharaoh is hit.
void LineToProto(const Position& pos, const SearchResult& result,
                 v1::SuggestMoveResponse* out) {
  std::vector<Move> line = result.principal_variation;
  if (line.empty() || !(line.front() == result.best_move)) {
    line.insert(line.begin(), result.best_move);
  }
  Position walk = pos;
  for (const Move m : line) {
    absl::StatusOr<Move> legal = CheckMove(walk, m);
    if (!legal.ok()) break;
    *out->add_principal_variation() = MoveToProto(walk, *legal);
    if (MakeMove(&walk, *legal) != 0) break;
  }
}

v1::Event GameStartedEvent(const Session& s) {
  v1::Event e;
  e.set_announcement(GameStartAnnouncement(
      s.state().setup_id() == kCustomSetupId ? "" : s.SetupName(),
      s.SeatLabel(Color::kSilver), s.SeatLabel(Color::kRed),
      s.game().position().side_to_move()));
  v1::GameStarted* started = e.mutable_game_started();
  *started->mutable_board() = BoardToProto(s.game().position());
  *started->add_seats() = s.SeatToProto(Color::kSilver);
  *started->add_seats() = s.SeatToProto(Color::kRed);
  return e;
}

v1::Event GameOverEvent(const Session& s) {
  v1::Event e;
  e.set_announcement(GameOverAnnouncement(s.game(), s.SeatLabel(Color::kSilver),
                                          s.SeatLabel(Color::kRed)));
  *e.mutable_game_over()->mutable_result() = ResultToProto(s.game());
  return e;
}

// Which seat a LeaveSeat frees (see the decisions in session_service.h).
absl::StatusOr<Color> SeatToLeave(const Session& s, v1::Color wanted,
                                  const Caller& caller) {
  if (caller.token.empty()) return RequirePlayer(s, caller).status();
  const std::optional<Color> own = s.SeatOf(caller.token);
  const bool owner = s.IsOwner(caller.token);
  if (wanted == v1::COLOR_UNSPECIFIED) {
    if (own.has_value()) return *own;
    if (owner) {
      std::vector<Color> computers;
      for (Color c : {Color::kSilver, Color::kRed}) {
        if (s.seat(c).computer()) computers.push_back(c);
      }
      if (computers.size() == 1) return computers.front();
      if (computers.size() == 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("both seats of session \"", s.id(),
                         "\" are the computer's: name the color to free"));
      }
    }
    return RequirePlayer(s, caller);
  }
  KHET_ASSIGN_OR_RETURN(Color color, FromProto(wanted));
  if (own == color) return color;
  if (!owner && !own.has_value()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the token is neither the owner's nor that of a player seated in "
        "session \"",
        s.id(), "\""));
  }
  if (!s.seat(color).occupied()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the ", ColorName(color), " seat of session \"", s.id(), "\" is free"));
  }
  if (!s.seat(color).computer()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the ", ColorName(color), " seat is ", s.seat(color).player_name(),
        "'s: only its player may leave it"));
  }
  return color;
}

// The limits of a SuggestMove that gives them; INVALID_ARGUMENT naming a
// bad one.
absl::StatusOr<SearchLimits> SuggestionLimits(const v1::SearchLimits& l) {
  if (l.max_depth() < 0 || l.max_nodes() < 0 || l.max_time_ms() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "limits must not be negative: max_depth ", l.max_depth(),
        ", max_nodes ", l.max_nodes(), ", max_time_ms ", l.max_time_ms()));
  }
  if (l.max_depth() > kMaxSuggestionDepth) {
    return absl::InvalidArgumentError(absl::StrCat("max_depth must be at most ",
                                                   kMaxSuggestionDepth,
                                                   ", not ", l.max_depth()));
  }
  if (l.max_depth() == 0 && l.max_nodes() == 0 && l.max_time_ms() == 0) {
    return absl::InvalidArgumentError(
        "limits sets none of max_depth, max_nodes and max_time_ms: set one, "
        "or ask for a level");
  }
  SearchLimits out;
  out.max_depth = l.max_depth();
  out.max_nodes = static_cast<uint64_t>(l.max_nodes());
  out.max_time = absl::Milliseconds(l.max_time_ms());
  return out;
}

// The sort key of ListSessions: newest first, then by id.
struct ListKey {
  int64_t created_nanos;
  std::string id;
  bool Before(const ListKey& o) const {
    if (created_nanos != o.created_nanos) {
      return created_nanos > o.created_nanos;
    }
    return id < o.id;
  }
};

std::string EncodePageToken(const ListKey& key) {
  return absl::WebSafeBase64Escape(
      absl::StrCat(key.created_nanos, ":", key.id));
}

absl::StatusOr<ListKey> DecodePageToken(std::string_view token) {
  const absl::Status bad = absl::InvalidArgumentError(
      absl::StrCat("bad page_token ", QuoteInput(token),
                   ": pass next_page_token from the previous response"));
  std::string raw;
  if (!absl::WebSafeBase64Unescape(
          absl::string_view(token.data(), token.size()), &raw)) {
    return bad;
  }
  const size_t colon = raw.find(':');
  if (colon == std::string::npos) return bad;
  ListKey key;
  if (!absl::SimpleAtoi(raw.substr(0, colon), &key.created_nanos)) return bad;
  key.id = raw.substr(colon + 1);
  if (key.id.empty()) return bad;
  return key;
}

class SessionServiceImpl final : public SessionService {
 public:
  explicit SessionServiceImpl(const ServiceOptions& options)
      : store_(options.store),
        shared_(options.store->shared()),
        clock_(options.clock),
        random_(options.random),
        limits_(options.limits),
        search_(SearchOrDefault(options.search)),
        log_(options.log),
        computer_search_done_(options.computer_search_done),
        computers_(std::make_unique<ComputerPlayers>(
            ComputerPlayers::Options{limits_.computer_threads, search_},
            [this](const ComputerTurn& turn, const SearchResult& result,
                   bool stopped) {
              ComputerSearchDone(turn, result, stopped);
            })) {}

  // Stops hearing the store's changes, then the computer's searches: both
  // use everything else.
  ~SessionServiceImpl() override {
    if (shared_) store_->SetChangeListener(nullptr);
    computers_->Shutdown();
  }

  // Loads every stored session; INTERNAL naming a corrupt one. On a shared
  // store, listens for changes first, so that none made meanwhile is lost.
  absl::Status Load() {
    if (shared_) {
      store_->SetChangeListener(
          [this](const StoreChange& change) { OnStoreChange(change); });
    }
    KHET_ASSIGN_OR_RETURN(std::vector<SessionRecord> records,
                          store_->LoadAll());
    MutexLock lock(&map_mu_);
    for (const SessionRecord& record : records) {
      KHET_ASSIGN_OR_RETURN(Session session, SessionFromRecord(record));
      // A change notice may have brought a newer copy already.
      sessions_.try_emplace(
          record.id,
          std::make_shared<Entry>(std::move(session), limits_.watcher_buffer));
    }
    return absl::OkStatus();
  }

  // Schedules the computer's move in every loaded game where it is to move.
  void ResumeComputers() {
    std::vector<std::shared_ptr<Entry>> entries;
    {
      MutexLock lock(&map_mu_);
      for (const auto& [id, entry] : sessions_) entries.push_back(entry);
    }
    for (const std::shared_ptr<Entry>& entry : entries) {
      MutexLock lock(&entry->mu);
      ScheduleComputer(*entry);
    }
  }

  v1::ListSetupsResponse ListSetups() override {
    v1::ListSetupsResponse out;
    for (const SetupInfo& info : AllSetups()) {
      *out.add_setups() = SetupToProto(info);
    }
    return out;
  }

  v1::ListColorSchemesResponse ListColorSchemes() override {
    v1::ListColorSchemesResponse out;
    for (const v1::ColorScheme& s : AllColorSchemes()) *out.add_schemes() = s;
    return out;
  }

  absl::StatusOr<v1::CreateSessionResponse> CreateSession(
      const v1::CreateSessionRequest& request) override {
    KHET_ASSIGN_OR_RETURN(
        std::string name,
        CheckDisplayName("name", request.name(), limits_.max_name_length));
    KHET_ASSIGN_OR_RETURN(ChosenSetup setup,
                          ResolveSetup(request.setup_id(), request.position(),
                                       request.rules(), limits_));
    v1::Settings settings = DefaultSettings();
    KHET_RETURN_IF_ERROR(ApplySettings(request.settings(), &settings));

    {  // Reserve a place so that racing creations cannot exceed the limit.
      MutexLock lock(&map_mu_);
      if (static_cast<int>(sessions_.size()) + reserved_ >=
          limits_.max_sessions) {
        return absl::ResourceExhaustedError(
            absl::StrCat("the server holds the maximum of ",
                         limits_.max_sessions, " sessions (max_sessions)"));
      }
      ++reserved_;
    }
    const std::string owner_token = random_->NewToken();
    absl::Status created;
    for (int attempt = 0; attempt < 5; ++attempt) {
      std::string id = random_->NewSessionId();
      Session session =
          Session::New(id, name, TokenHash(owner_token), setup.id, setup.start,
                       setup.options, settings, clock_->Now());
      created = store_->Create(Record(session), {});
      if (created.code() == absl::StatusCode::kAlreadyExists) continue;
      v1::CreateSessionResponse out;
      *out.mutable_session() = session.ToProto();
      out.set_owner_token(owner_token);
      auto entry =
          std::make_shared<Entry>(std::move(session), limits_.watcher_buffer);
      MutexLock lock(&map_mu_);
      --reserved_;
      if (!created.ok()) return created;
      // On a shared store the store's notice of it may have come first.
      sessions_.try_emplace(id, std::move(entry));
      return out;
    }
    MutexLock lock(&map_mu_);
    --reserved_;
    return absl::InternalError(
        absl::StrCat("could not find a free session id: ", created.message()));
  }

  absl::StatusOr<v1::Session> GetSession(
      const v1::GetSessionRequest& request) override {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    return entry->session.ToProto();
  }

  absl::StatusOr<v1::ListSessionsResponse> ListSessions(
      const v1::ListSessionsRequest& request) override {
    KHET_RETURN_IF_ERROR(CheckEnumFields(request));
    if (request.page_size() < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "page_size must not be negative, not ", request.page_size()));
    }
    const int page_size =
        std::max(1, std::min(request.page_size() == 0 ? kDefaultPageSize
                                                      : request.page_size(),
                             limits_.max_page_size));
    std::optional<ListKey> after;
    if (!request.page_token().empty()) {
      KHET_ASSIGN_OR_RETURN(after, DecodePageToken(request.page_token()));
    }
    std::vector<std::pair<ListKey, std::shared_ptr<Entry>>> all;
    {
      MutexLock lock(&map_mu_);
      for (const auto& [id, entry] : sessions_) {
        all.push_back(
            {ListKey{absl::ToUnixNanos(entry->created_at), id}, entry});
      }
    }
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
      return a.first.Before(b.first);
    });
    v1::ListSessionsResponse out;
    std::optional<ListKey> last;
    for (const auto& [key, entry] : all) {
      if (after.has_value() && !after->Before(key)) continue;
      MutexLock lock(&entry->mu);
      if (entry->deleted) continue;
      if (request.status() != v1::GAME_STATUS_UNSPECIFIED &&
          entry->session.status() != request.status()) {
        continue;
      }
      if (out.sessions_size() == page_size) {
        // One more matches: there is a next page.
        out.set_next_page_token(EncodePageToken(*last));
        break;
      }
      *out.add_sessions() = entry->session.ToProto();
      last = key;
    }
    return out;
  }

  absl::Status DeleteSession(const v1::DeleteSessionRequest& request,
                             const Caller& caller) override {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    const Session& s = entry->session;
    KHET_RETURN_IF_ERROR(RequireOwner(s, caller));
    KHET_RETURN_IF_ERROR(store_->Delete(entry->id));
    Forget(*entry);
    return absl::OkStatus();
  }

  absl::StatusOr<v1::JoinSeatResponse> JoinSeat(
      const v1::JoinSeatRequest& request) override {
    KHET_RETURN_IF_ERROR(CheckEnumFields(request));
    return Retried([&] { return JoinSeatOnce(request); });
  }
  absl::StatusOr<v1::JoinSeatResponse> JoinSeatOnce(
      const v1::JoinSeatRequest& request) {
    KHET_ASSIGN_OR_RETURN(std::string name,
                          CheckDisplayName("player_name", request.player_name(),
                                           limits_.max_name_length));
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    KHET_ASSIGN_OR_RETURN(Color color,
                          FreeSeat(entry->session, request.color()));
    Session next = entry->session;
    const std::string token = random_->NewToken();
    next.TakeSeat(color, name, TokenHash(token));
    std::vector<v1::Event> events;
    v1::Event joined;
    joined.set_announcement(SeatAnnouncement(color, name, true));
    *joined.mutable_seat_changed()->mutable_seat() = next.SeatToProto(color);
    joined.mutable_seat_changed()->set_joined(true);
    events.push_back(std::move(joined));
    if (next.BothSeatsTaken() && next.status() != v1::IN_PROGRESS) {
      next.StartGame(clock_->Now());
      events.push_back(GameStartedEvent(next));
    }
    KHET_RETURN_IF_ERROR(Commit(*entry, std::move(next), std::move(events)));
    v1::JoinSeatResponse out;
    *out.mutable_session() = entry->session.ToProto();
    out.set_color(ToProto(color));
    out.set_player_token(token);
    return out;
  }

  absl::StatusOr<v1::Session> LeaveSeat(const v1::LeaveSeatRequest& request,
                                        const Caller& caller) override {
    KHET_RETURN_IF_ERROR(CheckEnumFields(request));
    return Retried([&] { return LeaveSeatOnce(request, caller); });
  }
  absl::StatusOr<v1::Session> LeaveSeatOnce(const v1::LeaveSeatRequest& request,
                                            const Caller& caller) {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    KHET_ASSIGN_OR_RETURN(Color color,
                          SeatToLeave(entry->session, request.color(), caller));
    Session next = entry->session;
    const store::StoredSeat seat = next.seat(color);
    next.LeaveSeat(color);
    v1::Event left;
    left.set_announcement(
        seat.computer() ? ComputerSeatAnnouncement(color, seat.computer_level(),
                                                   seat.player_name(), false)
                        : SeatAnnouncement(color, seat.player_name(), false));
    *left.mutable_seat_changed()->mutable_seat() = next.SeatToProto(color);
    left.mutable_seat_changed()->set_joined(false);
    KHET_RETURN_IF_ERROR(Commit(*entry, std::move(next), {std::move(left)}));
    return entry->session.ToProto();
  }

  absl::StatusOr<v1::Session> ChooseSetup(const v1::ChooseSetupRequest& request,
                                          const Caller& caller) override {
    return Retried([&] { return ChooseSetupOnce(request, caller); });
  }
  absl::StatusOr<v1::Session> ChooseSetupOnce(
      const v1::ChooseSetupRequest& request, const Caller& caller) {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    const Session& s = entry->session;
    if (caller.token.empty()) {
      return absl::UnauthenticatedError(
          "ChooseSetup needs the owner's or a seated player's token");
    }
    if (!s.IsOwner(caller.token) && !s.SeatOf(caller.token).has_value()) {
      return absl::PermissionDeniedError(
          absl::StrCat("only the owner or a seated player of session \"",
                       s.id(), "\" may choose the setup"));
    }
    if (s.status() == v1::IN_PROGRESS) {
      return absl::FailedPreconditionError(
          absl::StrCat("a game is in progress in session \"", s.id(),
                       "\"; reset the game first"));
    }
    KHET_ASSIGN_OR_RETURN(ChosenSetup setup,
                          ResolveSetup(request.setup_id(), request.position(),
                                       request.rules(), limits_));
    Session next = s;
    next.ChooseSetup(setup.id, setup.start, setup.options);
    std::vector<v1::Event> events;
    v1::Event chosen;
    chosen.set_announcement(SetupAnnouncement(next.SetupName(), setup.options));
    v1::SetupChosen* sc = chosen.mutable_setup_chosen();
    sc->set_setup_id(setup.id);
    *sc->mutable_rules() = OptionsToProto(setup.options);
    *sc->mutable_board() = BoardToProto(setup.start);
    events.push_back(std::move(chosen));
    if (next.BothSeatsTaken()) {
      next.StartGame(clock_->Now());
      events.push_back(GameStartedEvent(next));
    }
    KHET_RETURN_IF_ERROR(Commit(*entry, std::move(next), std::move(events)));
    return entry->session.ToProto();
  }

  absl::StatusOr<v1::MakeMoveResponse> MakeMove(
      const v1::MakeMoveRequest& request, const Caller& caller) override {
    KHET_RETURN_IF_ERROR(CheckEnumFields(request));
    return Retried([&] { return MakeMoveOnce(request, caller); });
  }
  absl::StatusOr<v1::MakeMoveResponse> MakeMoveOnce(
      const v1::MakeMoveRequest& request, const Caller& caller) {
    if (static_cast<int>(request.request_id().size()) >
        limits_.max_request_id_length) {
      return absl::InvalidArgumentError(
          absl::StrCat("request_id has ", request.request_id().size(),
                       " characters; at most ", limits_.max_request_id_length,
                       " are allowed"));
    }
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    const Session& s = entry->session;
    if (caller.token.empty()) {
      return absl::UnauthenticatedError(
          "MakeMove needs a player's token (authorization: Bearer <token>)");
    }
    KHET_ASSIGN_OR_RETURN(Color color, RequirePlayer(s, caller));
    // A retry of a request answered before gets that answer back, whatever
    // happened since; a request_id reused for anything else is refused.
    ReplyKey key;
    if (!request.request_id().empty()) {
      key = ReplyKey{request.request_id(), TokenHash(caller.token),
                     MoveRequestHash(request)};
      KHET_ASSIGN_OR_RETURN(const v1::MakeMoveResponse* reply,
                            s.FindReply(key));
      if (reply != nullptr) return *reply;
    }
    if (request.has_expected_version() &&
        request.expected_version() != s.version()) {
      return absl::AbortedError(
          absl::StrCat("session \"", s.id(), "\" is at version ", s.version(),
                       ", not the expected ", request.expected_version()));
    }
    KHET_RETURN_IF_ERROR(RequireGameInProgress(s));
    const Color to_move = s.game().position().side_to_move();
    if (color != to_move) {
      return absl::FailedPreconditionError(
          absl::StrCat("it is ", ColorName(to_move), "'s turn"));
    }
    KHET_ASSIGN_OR_RETURN(Move move,
                          MoveFromProto(s.game().position(), request.move()));
    return PlayMove(*entry, color, move, key);
  }

  absl::StatusOr<v1::ListLegalMovesResponse> ListLegalMoves(
      const v1::ListLegalMovesRequest& request) override {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    const Position& pos = entry->session.game().position();
    v1::ListLegalMovesResponse out;
    MoveList moves;
    if (!request.square().empty()) {
      KHET_ASSIGN_OR_RETURN(Square from, ParseSquare(request.square()));
      GenerateMovesFrom(pos, from, &moves);
    } else {
      GenerateMoves(pos, &moves);
    }
    if (entry->session.status() == v1::FINISHED) return out;
    for (Move m : moves) *out.add_moves() = MoveToProto(pos, m);
    return out;
  }

  absl::StatusOr<v1::SuggestMoveResponse> SuggestMove(
      const v1::SuggestMoveRequest& request,
      const CallControl& control) override {
    SearchLimits limits;
    SearchStyle style;
    v1::SuggestMoveResponse out;
    if (request.strength_case() == v1::SuggestMoveRequest::kLimits) {
      KHET_ASSIGN_OR_RETURN(limits, SuggestionLimits(request.limits()));
    } else {
      KHET_ASSIGN_OR_RETURN(
          Level level,
          LevelOf(request.strength_case() == v1::SuggestMoveRequest::kLevel
                      ? request.level()
                      : kDefaultSuggestionLevel));
      limits = level.limits;
      style = level.style;
      out.set_level(level.number);
      out.set_level_name(std::string(level.name));
    }

    Position pos;
    {  // The search works on a copy: no lock is held while it runs.
      KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                            Find(request.session_id()));
      MutexLock lock(&entry->mu);
      KHET_RETURN_IF_ERROR(Fresh(*entry));
      const Session& s = entry->session;
      if (s.status() == v1::FINISHED) {
        return absl::FailedPreconditionError(
            absl::StrCat("the game in session \"", s.id(),
                         "\" is over: ", s.state().result().text()));
      }
      pos = s.game().position();
      style = StyleForGame(s.game(), style);
      out.set_version(s.version());
    }

    const absl::Time start = absl::Now();
    absl::Duration allowed = limits_.max_suggestion_time;
    if (control.deadline != absl::InfiniteFuture()) {
      // Stop early enough for the answer to reach the caller in time.
      const absl::Duration left = control.deadline - start;
      const absl::Duration margin = std::clamp(
          left / 10, absl::Milliseconds(10), absl::Milliseconds(250));
      if (left - margin <= absl::ZeroDuration()) {
        return absl::DeadlineExceededError(
            "the call's deadline leaves no time to search");
      }
      allowed = std::min(allowed, left - margin);
    }
    const bool time_capped =
        limits.max_time == absl::ZeroDuration() || limits.max_time > allowed;
    limits = CapTime(limits, allowed);

    KHET_ASSIGN_OR_RETURN(SuggestionSlot slot, ReserveSuggestion());
    absl::Status stopped_by;
    const SearchResult result =
        RunSearch(pos, limits, style, start + allowed, control, &stopped_by);
    const absl::Duration elapsed = absl::Now() - start;
    if (!stopped_by.ok()) return stopped_by;
    if (result.best_move.is_null()) {
      MoveList moves;
      GenerateMoves(pos, &moves);
      if (moves.size == 0) {
        return absl::FailedPreconditionError(
            absl::StrCat(ColorName(pos.side_to_move()), " has no legal move"));
      }
      return absl::DeadlineExceededError(
          absl::StrCat("the search found no move in the ",
                       absl::ToInt64Milliseconds(allowed), " ms it had"));
    }
    out.set_side_to_move(ToProto(pos.side_to_move()));
    *out.mutable_move() = MoveToProto(pos, result.best_move);
    out.set_score(result.score);
    LineToProto(pos, result, &out);
    out.set_nodes(static_cast<int64_t>(result.nodes));
    out.set_depth(result.depth);
    out.set_elapsed_ms(absl::ToInt64Milliseconds(elapsed));
    // Cut short: the time it was given ended it before its own limits
    // (or a forced win or loss) did.
    const bool ended_by_itself =
        (limits.max_depth > 0 && result.depth >= limits.max_depth) ||
        (limits.max_nodes > 0 && result.nodes >= limits.max_nodes) ||
        std::abs(result.score) >= kMateThreshold;
    out.set_cut_short(time_capped && !ended_by_itself);
    return out;
  }

  v1::ListLevelsResponse ListLevels() override {
    v1::ListLevelsResponse out;
    for (const Level& level : AllLevels()) {
      *out.add_levels() = LevelToProto(level);
    }
    return out;
  }

  absl::StatusOr<v1::Session> SeatComputer(
      const v1::SeatComputerRequest& request, const Caller& caller) override {
    KHET_RETURN_IF_ERROR(CheckEnumFields(request));
    return Retried([&] { return SeatComputerOnce(request, caller); });
  }
  absl::StatusOr<v1::Session> SeatComputerOnce(
      const v1::SeatComputerRequest& request, const Caller& caller) {
    KHET_ASSIGN_OR_RETURN(Level level, LevelOf(request.level()));
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    const Session& s = entry->session;
    if (caller.token.empty()) {
      return absl::UnauthenticatedError(
          "SeatComputer needs the owner's or a seated player's token "
          "(authorization: Bearer <token>)");
    }
    if (!s.IsOwner(caller.token) && !s.SeatOf(caller.token).has_value()) {
      return absl::PermissionDeniedError(
          absl::StrCat("only the owner or a seated player of session \"",
                       s.id(), "\" may seat the computer"));
    }
    KHET_ASSIGN_OR_RETURN(Color color, FreeSeat(s, request.color()));
    Session next = s;
    next.TakeComputerSeat(color, level.number, std::string(level.name));
    std::vector<v1::Event> events;
    v1::Event joined;
    joined.set_announcement(
        ComputerSeatAnnouncement(color, level.number, level.name, true));
    *joined.mutable_seat_changed()->mutable_seat() = next.SeatToProto(color);
    joined.mutable_seat_changed()->set_joined(true);
    events.push_back(std::move(joined));
    if (next.BothSeatsTaken() && next.status() != v1::IN_PROGRESS) {
      next.StartGame(clock_->Now());
      events.push_back(GameStartedEvent(next));
    }
    KHET_RETURN_IF_ERROR(Commit(*entry, std::move(next), std::move(events)));
    return entry->session.ToProto();
  }

  absl::StatusOr<v1::Session> Resign(const v1::ResignRequest& request,
                                     const Caller& caller) override {
    return EndByPlayer(request.session_id(), caller,
                       [](Session& next, Color color) -> absl::Status {
                         return next.Resign(color);
                       });
  }

  absl::StatusOr<v1::Session> OfferDraw(const v1::OfferDrawRequest& request,
                                        const Caller& caller) override {
    return Retried([&] { return OfferDrawOnce(request, caller); });
  }
  absl::StatusOr<v1::Session> OfferDrawOnce(const v1::OfferDrawRequest& request,
                                            const Caller& caller) {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    const Session& s = entry->session;
    KHET_ASSIGN_OR_RETURN(Color color, RequirePlayer(s, caller));
    KHET_RETURN_IF_ERROR(RequireGameInProgress(s));
    if (s.draw_offered_by() == color) {
      return absl::FailedPreconditionError(
          absl::StrCat(ColorName(color), " has already offered a draw"));
    }
    if (s.draw_offered_by() == Opponent(color)) {
      return absl::FailedPreconditionError(
          absl::StrCat(ColorName(Opponent(color)),
                       "'s draw offer stands: accept it instead"));
    }
    Session next = s;
    next.OfferDraw(color);
    v1::Event offered;
    offered.set_announcement(
        DrawOfferAnnouncement(color, next.SeatLabel(color)));
    offered.mutable_draw_offered()->set_by(ToProto(color));
    KHET_RETURN_IF_ERROR(Commit(*entry, std::move(next), {std::move(offered)}));
    return entry->session.ToProto();
  }

  absl::StatusOr<v1::Session> AcceptDraw(const v1::AcceptDrawRequest& request,
                                         const Caller& caller) override {
    return EndByPlayer(
        request.session_id(), caller,
        [](Session& next, Color color) -> absl::Status {
          const std::optional<Color> by = next.draw_offered_by();
          if (!by.has_value()) {
            return absl::FailedPreconditionError("no draw offer stands");
          }
          if (*by == color) {
            return absl::FailedPreconditionError(absl::StrCat(
                ColorName(color), " cannot accept its own draw offer"));
          }
          return next.AgreeDraw();
        });
  }

  absl::StatusOr<v1::Session> ClaimRepetitionDraw(
      const v1::ClaimRepetitionDrawRequest& request,
      const Caller& caller) override {
    return EndByPlayer(request.session_id(), caller,
                       [](Session& next, Color color) -> absl::Status {
                         return next.ClaimRepetitionDraw(color);
                       });
  }

  absl::StatusOr<v1::Session> UpdateSettings(
      const v1::UpdateSettingsRequest& request, const Caller& caller) override {
    return Retried([&] { return UpdateSettingsOnce(request, caller); });
  }
  absl::StatusOr<v1::Session> UpdateSettingsOnce(
      const v1::UpdateSettingsRequest& request, const Caller& caller) {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    const Session& s = entry->session;
    KHET_RETURN_IF_ERROR(RequireOwner(s, caller));
    v1::Settings settings = s.state().settings();
    KHET_RETURN_IF_ERROR(ApplySettings(request.settings(), &settings));
    if (settings.SerializeAsString() ==
        s.state().settings().SerializeAsString()) {
      return s.ToProto();  // nothing changed: no event
    }
    Session next = s;
    next.set_settings(settings);
    v1::Session view = next.ToProto();
    v1::Event changed;
    changed.set_announcement(
        SettingsAnnouncement(view.settings(), view.color_scheme().name()));
    *changed.mutable_settings_changed()->mutable_settings() = view.settings();
    KHET_RETURN_IF_ERROR(Commit(*entry, std::move(next), {std::move(changed)}));
    return entry->session.ToProto();
  }

  absl::StatusOr<v1::Session> ResetGame(const v1::ResetGameRequest& request,
                                        const Caller& caller) override {
    return Retried([&] { return ResetGameOnce(request, caller); });
  }
  absl::StatusOr<v1::Session> ResetGameOnce(const v1::ResetGameRequest& request,
                                            const Caller& caller) {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    KHET_RETURN_IF_ERROR(RequireOwner(entry->session, caller));
    KHET_RETURN_IF_ERROR(Reset(*entry, /*timed_out=*/false));
    return entry->session.ToProto();
  }

  absl::StatusOr<std::unique_ptr<EventStream>> Watch(
      const v1::WatchRequest& request) override {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    // Beyond the current version no event would ever be sent: the watch
    // would wait for nothing.
    const int64_t current = entry->session.version();
    if (request.after_version() < 0 || request.after_version() > current) {
      return absl::InvalidArgumentError(absl::StrCat(
          "after_version must be 0 to session ", entry->id,
          "'s current version ", current, ", not ", request.after_version()));
    }
    KHET_ASSIGN_OR_RETURN(WatcherLimit::Place place, watchers_.Take());
    // Subscribed under the session lock: every event up to `until` is in the
    // store, every later one will reach the subscription.
    KHET_ASSIGN_OR_RETURN(
        std::shared_ptr<Subscription> sub,
        entry->hub->Subscribe(limits_.max_watchers_per_session));
    return std::make_unique<WatchStream>(
        store_, entry->id, request.after_version(), current, entry->hub,
        std::move(sub), std::move(place));
  }

  int watcher_count() override { return watchers_.count(); }

  absl::StatusOr<v1::RenderBoardResponse> RenderBoard(
      const v1::RenderBoardRequest& request) override {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                          Find(request.session_id()));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    v1::RenderBoardResponse out;
    out.set_text(entry->session.Render(!request.without_laser()));
    return out;
  }

  // On a shared store every replica sweeps: each first catches up with the
  // store, re-reads a game that looks timed out, and resets it with a write
  // conditional on the version it read, so one replica resets it and the
  // others' writes are ABORTED and change nothing.
  int SweepTimeouts() override {
    if (shared_) SyncAll();
    std::vector<std::shared_ptr<Entry>> entries;
    {
      MutexLock lock(&map_mu_);
      for (const auto& [id, entry] : sessions_) entries.push_back(entry);
    }
    const absl::Time now = clock_->Now();
    auto timed_out = [now](const Session& s) {
      if (s.status() != v1::IN_PROGRESS) return false;
      const v1::Settings& settings = s.state().settings();
      if (!settings.timeout_enabled()) return false;
      const absl::Time last = TimeFromProto(s.state().last_move_at());
      return last + absl::Seconds(settings.timeout_seconds()) <= now;
    };
    int reset = 0;
    for (const std::shared_ptr<Entry>& entry : entries) {
      MutexLock lock(&entry->mu);
      if (entry->deleted || !timed_out(entry->session)) continue;
      if (!Fresh(*entry).ok() || !timed_out(entry->session)) continue;
      // A failed write leaves the game for the next sweep; a lost race
      // (ABORTED) leaves it to the replica that won.
      absl::Status status = Reset(*entry, /*timed_out=*/true);
      if (status.ok()) {
        ++reset;
      } else if (shared_ && absl::IsAborted(status)) {
        Refresh(*entry).IgnoreError();
      }
    }
    return reset;
  }

 private:
  // A place among the SuggestMove searches running at once, given back
  // when destroyed.
  class SuggestionSlot {
   public:
    explicit SuggestionSlot(std::atomic<int>* count) : count_(count) {}
    SuggestionSlot(SuggestionSlot&& other)
        : count_(std::exchange(other.count_, nullptr)) {}
    SuggestionSlot& operator=(SuggestionSlot&&) = delete;
    ~SuggestionSlot() {
      if (count_ != nullptr) count_->fetch_sub(1);
    }

   private:
    std::atomic<int>* count_;
  };

  absl::StatusOr<SuggestionSlot> ReserveSuggestion() {
    if (suggestions_.fetch_add(1) >= limits_.max_concurrent_suggestions) {
      suggestions_.fetch_sub(1);
      return absl::ResourceExhaustedError(absl::StrCat(
          "the server is already searching ",
          limits_.max_concurrent_suggestions,
          " suggestions (max_concurrent_suggestions); try again shortly"));
    }
    return SuggestionSlot(&suggestions_);
  }

  // Runs the search on a thread of its own while this one watches the
  // caller: the search is stopped at `stop_at`, or when control.check
  // fails, which *stopped_by then holds.
  SearchResult RunSearch(const Position& pos, const SearchLimits& limits,
                         const SearchStyle& style, absl::Time stop_at,
                         const CallControl& control, absl::Status* stopped_by) {
    struct Run {
      std::atomic<bool> stop{false};
      Mutex mu;
      CondVar finished;
      bool done ABSL_GUARDED_BY(mu) = false;
      SearchResult result ABSL_GUARDED_BY(mu);
    } run;
    std::thread searcher([&] {
      SearchResult result = search_(pos, limits, style, &run.stop);
      MutexLock lock(&run.mu);
      run.result = std::move(result);
      run.done = true;
      run.finished.SignalAll();
    });
    while (true) {
      {
        MutexLock lock(&run.mu);
        if (!run.done) run.finished.WaitWithTimeout(&run.mu, kSuggestionPoll);
        if (run.done) break;
      }
      if (stopped_by->ok() && control.check) *stopped_by = control.check();
      if (!stopped_by->ok() || absl::Now() >= stop_at) run.stop = true;
    }
    searcher.join();
    MutexLock lock(&run.mu);
    return std::move(run.result);
  }

  // Plays `move` for `color`, the side to move, through the one move path:
  // the reply, MoveMade (and GameOver), the reply kept under `key`.
  absl::StatusOr<v1::MakeMoveResponse> PlayMove(Entry& entry, Color color,
                                                Move move, const ReplyKey& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
    const int64_t version = entry.session.version();
    Session next = entry.session;
    KHET_ASSIGN_OR_RETURN(PlayedMove played, next.Play(move, clock_->Now()));

    const Edition edition = played.before.edition();
    const Game& game = next.game();
    v1::MakeMoveResponse reply;
    *reply.mutable_move() = MoveToProto(played.before, played.effects.move);
    *reply.mutable_shot() = ShotToProto(played.trace, edition);
    for (const Removal& r : played.effects.removals) {
      *reply.add_removals() = RemovalToProto(r, edition);
    }
    *reply.mutable_result() = ResultToProto(game);
    *reply.mutable_board() = BoardToProto(game.position());

    std::vector<v1::Event> events;
    v1::Event made;
    made.set_announcement(MoveAnnouncement(
        color, next.SeatLabel(color), reply.move().notation(),
        played.effects.removals, edition, next.state().settings().quiet()));
    v1::MoveMade* mm = made.mutable_move_made();
    mm->set_mover(ToProto(color));
    *mm->mutable_move() = reply.move();
    *mm->mutable_shot() = reply.shot();
    *mm->mutable_removals() = reply.removals();
    *mm->mutable_result() = reply.result();
    *mm->mutable_board() = reply.board();
    events.push_back(std::move(made));
    std::string announcement =
        MoveAnnouncement(color, next.SeatLabel(color), reply.move().notation(),
                         played.effects.removals, edition, /*quiet=*/false);
    if (game.over()) {
      events.push_back(GameOverEvent(next));
      absl::StrAppend(&announcement, " ", events.back().announcement());
    }
    reply.set_announcement(announcement);
    reply.set_version(version + static_cast<int64_t>(events.size()));
    if (!key.request_id.empty()) {
      next.KeepReply(key, reply, limits_.max_replies_kept);
    }
    KHET_RETURN_IF_ERROR(Commit(entry, std::move(next), std::move(events)));
    return reply;
  }

  // If the game is in progress with the computer to move, schedules its
  // search (after `delay`); otherwise stops any search for the session.
  void ScheduleComputer(Entry& entry,
                        absl::Duration delay = absl::ZeroDuration())
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
    const Session& s = entry.session;
    const Position& pos = s.game().position();
    const store::StoredSeat& seat = s.seat(pos.side_to_move());
    absl::StatusOr<Level> level =
        seat.computer() ? FindLevel(seat.computer_level())
                        : absl::StatusOr<Level>(absl::NotFoundError("human"));
    if (entry.deleted || s.status() != v1::IN_PROGRESS || !level.ok()) {
      computers_->Cancel(entry.id);
      return;
    }
    ComputerTurn turn;
    turn.session_id = entry.id;
    turn.version = s.version();
    turn.position = pos;
    turn.level = level->number;
    turn.limits = CapTime(level->limits, limits_.computer_move_budget);
    turn.style = StyleForGame(s.game(), level->style);
    // Games differ from board to board and move to move, yet replay alike.
    turn.style.seed ^= std::hash<std::string>()(entry.id) * 31 +
                       static_cast<uint64_t>(s.game().ply());
    computers_->Schedule(std::move(turn), delay);
  }

  // A computer seat's search ended (on a computer thread).
  void ComputerSearchDone(const ComputerTurn& turn, const SearchResult& result,
                          bool stopped) {
    std::string move;
    const std::string outcome =
        stopped ? "cancelled" : PlayComputerMove(turn, result, &move);
    if (computer_search_done_) {
      computer_search_done_(
          std::string_view(outcome).substr(0, outcome.find(' ')),
          result.elapsed);
    }
    if (!log_) return;
    log_(absl::StrFormat(
        "computer session=%s level=%d outcome=%s%s depth=%d nodes=%d ms=%d",
        absl::CEscape(turn.session_id), turn.level, outcome,
        move.empty() ? "" : absl::StrCat(" move=", move), result.depth,
        result.nodes, absl::ToInt64Milliseconds(result.elapsed)));
  }

  // Plays the computer's move (or claims a repetition draw) if the session
  // is still at the version its search began from; says what came of it.
  std::string PlayComputerMove(const ComputerTurn& turn,
                               const SearchResult& result, std::string* move) {
    absl::StatusOr<std::shared_ptr<Entry>> found = Find(turn.session_id);
    if (!found.ok()) return "gone";
    Entry& entry = **found;
    MutexLock lock(&entry.mu);
    if (absl::Status fresh = Fresh(entry); !fresh.ok()) {
      if (entry.deleted) return "gone";
      ScheduleComputer(entry, limits_.computer_retry_delay);
      return absl::StrCat("retrying message=\"", LoggedMessage(fresh.message()),
                          "\"");
    }
    const Session& s = entry.session;
    if (s.version() != turn.version) {
      ScheduleComputer(entry);  // once more if it is still its turn
      return "stale";
    }
    const Color color = s.game().position().side_to_move();
    absl::Status failed;
    if (result.score <= 0 && !s.options().automatic_repetition_draw &&
        s.game().RepetitionCount() >= 3) {
      Session next = s;
      if (next.ClaimRepetitionDraw(color).ok()) {
        v1::Event over = GameOverEvent(next);
        failed = Commit(entry, std::move(next), {std::move(over)});
        if (failed.ok()) return "claimed-draw";
      }
    }
    if (failed.ok()) {
      if (result.best_move.is_null()) {
        failed = absl::FailedPreconditionError("the search found no move");
      } else {
        absl::StatusOr<v1::MakeMoveResponse> reply =
            PlayMove(entry, color, result.best_move, ReplyKey());
        if (reply.ok()) {
          *move = reply->move().notation();
          return "played";
        }
        failed = reply.status();
      }
    }
    const std::string message =
        absl::StrCat(" message=\"", LoggedMessage(failed.message()), "\"");
    if (absl::IsInvalidArgument(failed) || absl::IsFailedPrecondition(failed)) {
      return absl::StrCat("failed", message);  // trying again would not help
    }
    if (shared_ && absl::IsAborted(failed)) {
      // Another replica moved first; catching up schedules the next search.
      Refresh(entry).IgnoreError();
      return "stale";
    }
    ScheduleComputer(entry, limits_.computer_retry_delay);
    return absl::StrCat("retrying", message);
  }

  // The session's entry; on a shared store, one this process does not
  // know yet is read from the store (created by another replica).
  absl::StatusOr<std::shared_ptr<Entry>> Find(const std::string& id) {
    {
      MutexLock lock(&map_mu_);
      auto it = sessions_.find(id);
      if (it != sessions_.end()) return it->second;
    }
    if (!shared_) return NoSession(id);
    absl::StatusOr<SessionRecord> record = store_->Get(id);
    if (absl::IsNotFound(record.status())) return NoSession(id);
    if (!record.ok()) return record.status();
    return Adopt(*record);
  }

  // Adds a session read from a shared store, unless another thread added it
  // meanwhile; returns the entry kept.
  absl::StatusOr<std::shared_ptr<Entry>> Adopt(const SessionRecord& record) {
    KHET_ASSIGN_OR_RETURN(Session session, SessionFromRecord(record));
    std::shared_ptr<Entry> entry;
    bool added = false;
    {
      MutexLock lock(&map_mu_);
      auto [it, inserted] = sessions_.try_emplace(
          record.id,
          std::make_shared<Entry>(std::move(session), limits_.watcher_buffer));
      entry = it->second;
      added = inserted;
    }
    if (added) {
      MutexLock lock(&entry->mu);
      ScheduleComputer(*entry);
    }
    return entry;
  }

  // A stored session rebuilt; INTERNAL naming what is corrupt.
  static absl::StatusOr<Session> SessionFromRecord(
      const SessionRecord& record) {
    store::SessionState state;
    if (!state.ParseFromString(record.state)) {
      return absl::InternalError(absl::StrCat(
          "session \"", record.id, "\": the stored state does not parse"));
    }
    if (state.id() != record.id || state.version() != record.version) {
      return absl::InternalError(absl::StrCat(
          "session \"", record.id, "\": the stored state is of session \"",
          state.id(), "\" version ", state.version(),
          ", the record of version ", record.version));
    }
    absl::StatusOr<Session> session = Session::FromState(state);
    if (!session.ok()) {
      return absl::InternalError(
          absl::StrCat("session \"", record.id,
                       "\" is corrupt: ", session.status().message()));
    }
    return session;
  }

  // NOT_FOUND for a deleted session. On a shared store, first brings the
  // session up to the stored one (Refresh): no request acts on a copy older
  // than the store's at the time it began.
  absl::Status Fresh(Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
    if (entry.deleted) return NoSession(entry.id);
    if (!shared_) return absl::OkStatus();
    KHET_RETURN_IF_ERROR(Refresh(entry));
    if (entry.deleted) return NoSession(entry.id);
    return absl::OkStatus();
  }

  // Shared stores: replaces the session with the stored one if that is
  // newer, after publishing the events in between to the local watchers,
  // oldest first, so that they see every event whichever replica wrote it;
  // forgets it (SessionDeleted) if the store has it no more. On error
  // nothing changes.
  absl::Status Refresh(Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
    if (entry.deleted) return absl::OkStatus();
    absl::StatusOr<SessionRecord> record = store_->Get(entry.id);
    if (absl::IsNotFound(record.status())) {
      Forget(entry);
      return absl::OkStatus();
    }
    if (!record.ok()) return record.status();
    const int64_t cached = entry.session.version();
    if (record->version <= cached) return absl::OkStatus();
    KHET_ASSIGN_OR_RETURN(Session session, SessionFromRecord(*record));
    std::vector<v1::Event> missed;
    for (int64_t after = cached; after < record->version;) {
      KHET_ASSIGN_OR_RETURN(std::vector<EventRecord> page,
                            store_->EventsAfter(entry.id, after, kCatchUpPage));
      if (page.empty()) break;  // deleted meanwhile: the next read says so
      for (const EventRecord& stored : page) {
        if (stored.version > record->version) break;
        v1::Event& event = missed.emplace_back();
        if (!event.ParseFromString(stored.event)) {
          return absl::InternalError(
              absl::StrCat("session \"", entry.id, "\": stored event ",
                           stored.version, " is corrupt"));
        }
      }
      after = page.back().version;
    }
    entry.session = std::move(session);
    entry.hub->Publish(missed);
    ScheduleComputer(entry);
    return absl::OkStatus();
  }

  // The session is gone from the store: tells its watchers (SessionDeleted,
  // then the end of their streams), stops its computer and drops it.
  void Forget(Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
    const Session& s = entry.session;
    v1::Event e = NewEvent(s, s.version() + 1);
    e.set_announcement(DeletedAnnouncement(s.state().name()));
    e.mutable_session_deleted();
    entry.deleted = true;
    entry.session.set_version(e.version());
    computers_->Cancel(entry.id);
    entry.hub->Publish({e});
    entry.hub->Close();
    MutexLock map_lock(&map_mu_);
    auto it = sessions_.find(entry.id);
    if (it != sessions_.end() && it->second.get() == &entry)
      sessions_.erase(it);
  }

  // A change committed to the shared store by any replica (on the store's
  // thread): catches the session up, or everything after a gap.
  void OnStoreChange(const StoreChange& change) {
    if (change.id.empty()) {
      SyncAll();
      return;
    }
    std::shared_ptr<Entry> entry;
    {
      MutexLock lock(&map_mu_);
      auto it = sessions_.find(change.id);
      if (it != sessions_.end()) entry = it->second;
    }
    if (entry == nullptr) {
      // New elsewhere: adopt it (a failure leaves it to the next request).
      if (!change.deleted) Find(change.id).IgnoreError();
      return;
    }
    MutexLock lock(&entry->mu);
    if (!change.deleted && change.version <= entry->session.version()) return;
    // A failure leaves the catching up to the next change, request or sweep.
    Refresh(*entry).IgnoreError();
  }

  // Catches every session up with the shared store: new ones adopted,
  // changed ones refreshed, deleted ones forgotten. Recovers changes whose
  // notices were lost; reads the states of those only.
  void SyncAll() {
    absl::StatusOr<std::vector<SessionVersion>> versions =
        store_->ListVersions();
    if (!versions.ok()) return;
    std::map<std::string, std::shared_ptr<Entry>> known;
    {
      MutexLock lock(&map_mu_);
      known = sessions_;
    }
    for (const SessionVersion& stored : *versions) {
      auto it = known.find(stored.id);
      if (it == known.end()) {
        Find(stored.id).IgnoreError();  // adopts it
        continue;
      }
      std::shared_ptr<Entry> entry = std::move(it->second);
      known.erase(it);
      MutexLock lock(&entry->mu);
      if (stored.version > entry->session.version()) {
        Refresh(*entry).IgnoreError();
      }
    }
    // Not in the list: deleted, or created after it was read.
    for (auto& [id, entry] : known) {
      MutexLock lock(&entry->mu);
      Refresh(*entry).IgnoreError();
    }
  }

  // On a shared store, a request that failed with ABORTED (its write lost a
  // race with another replica's, or its expected_version was checked
  // against a copy that was behind) runs once more on the refreshed
  // session: a client's correct expected_version is honoured on any
  // replica, and a stale one still fails.
  template <typename Fn>
  auto Retried(Fn fn) -> decltype(fn()) {
    auto result = fn();
    if (shared_ && absl::IsAborted(StatusOf(result))) result = fn();
    return result;
  }
  static absl::Status StatusOf(const absl::Status& s) { return s; }
  template <typename T>
  static absl::Status StatusOf(const absl::StatusOr<T>& s) {
    return s.status();
  }

  SessionRecord Record(const Session& s) {
    return SessionRecord{s.id(), s.version(), s.state().SerializeAsString()};
  }

  v1::Event NewEvent(const Session& s, int64_t version) {
    v1::Event e;
    e.set_version(version);
    e.set_session_id(s.id());
    *e.mutable_time() = TimeToProto(clock_->Now());
    return e;
  }

  // Numbers the events after the session's version, writes `next` with
  // them, and only when the store took them replaces the session and
  // publishes. On error nothing changes.
  absl::Status Commit(Entry& entry, Session next, std::vector<v1::Event> events)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
    const int64_t old_version = entry.session.version();
    std::vector<EventRecord> records;
    const v1::Event stamp = NewEvent(next, 0);
    for (size_t i = 0; i < events.size(); ++i) {
      v1::Event& e = events[i];
      e.set_version(old_version + static_cast<int64_t>(i) + 1);
      e.set_session_id(stamp.session_id());
      *e.mutable_time() = stamp.time();
      records.push_back({e.version(), e.SerializeAsString()});
    }
    next.set_version(old_version + static_cast<int64_t>(events.size()));
    KHET_RETURN_IF_ERROR(store_->Update(Record(next), old_version, records));
    entry.session = std::move(next);
    entry.hub->Publish(events);
    ScheduleComputer(entry);
    return absl::OkStatus();
  }

  // Ends the game and empties the seats; GameReset.
  absl::Status Reset(Entry& entry, bool timed_out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(entry.mu) {
    Session next = entry.session;
    next.EndGame(/*empty_seats=*/true);
    v1::Event reset;
    reset.set_announcement(ResetAnnouncement(
        timed_out, next.state().settings().timeout_seconds()));
    reset.mutable_game_reset()->set_timed_out(timed_out);
    return Commit(entry, std::move(next), {std::move(reset)});
  }

  // A seated player ends the game in progress with `end` (resign, accept a
  // draw, claim a repetition); GameOver.
  template <typename EndFn>
  absl::StatusOr<v1::Session> EndByPlayer(const std::string& session_id,
                                          const Caller& caller, EndFn end) {
    return Retried([&] { return EndByPlayerOnce(session_id, caller, end); });
  }
  template <typename EndFn>
  absl::StatusOr<v1::Session> EndByPlayerOnce(const std::string& session_id,
                                              const Caller& caller, EndFn end) {
    KHET_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry, Find(session_id));
    MutexLock lock(&entry->mu);
    KHET_RETURN_IF_ERROR(Fresh(*entry));
    KHET_ASSIGN_OR_RETURN(Color color, RequirePlayer(entry->session, caller));
    KHET_RETURN_IF_ERROR(RequireGameInProgress(entry->session));
    Session next = entry->session;
    KHET_RETURN_IF_ERROR(end(next, color));
    v1::Event over = GameOverEvent(next);
    KHET_RETURN_IF_ERROR(Commit(*entry, std::move(next), {std::move(over)}));
    return entry->session.ToProto();
  }

  SessionStore* const store_;
  const bool shared_;  // other replicas write the store too
  Clock* const clock_;
  RandomSource* const random_;
  const ServiceLimits limits_;
  const SearchFunction search_;
  const std::function<void(const std::string& line)> log_;
  const std::function<void(std::string_view, absl::Duration)>
      computer_search_done_;
  std::atomic<int> suggestions_{0};  // SuggestMove searches running
  // Live EventStreams.
  WatcherLimit watchers_{limits_.max_watchers};

  Mutex map_mu_;
  std::map<std::string, std::shared_ptr<Entry>> sessions_
      ABSL_GUARDED_BY(map_mu_);
  int reserved_ ABSL_GUARDED_BY(map_mu_) = 0;  // creations under way
  // Last, so that it is destroyed (its threads joined) first.
  std::unique_ptr<ComputerPlayers> computers_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SessionService>> SessionService::Create(
    const ServiceOptions& options) {
  if (options.store == nullptr || options.clock == nullptr ||
      options.random == nullptr) {
    return absl::InvalidArgumentError(
        "ServiceOptions needs a store, a clock and a random source");
  }
  auto service = std::make_unique<SessionServiceImpl>(options);
  KHET_RETURN_IF_ERROR(service->Load());
  service->ResumeComputers();
  return service;
}

}  // namespace khet
