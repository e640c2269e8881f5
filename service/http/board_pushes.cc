// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/http/board_pushes.h"

#include <openssl/rand.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "boost/asio/post.hpp"
#include "boost/asio/ssl/context.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "service/base/sha256.h"
#include "service/base/status_macros.h"
#include "service/http/compact_view.h"
#include "service/http/push_ownership.h"
#include "service/wire/convert.h"
#include "service/wire/server_version.h"

namespace khet {
namespace {

namespace asio = boost::asio;

// A strand over the io_context's own executor fits in an any_io_executor's
// small buffer, so the connections and timers that run on it hold it by
// value. (A strand over an any_io_executor would be held by reference count,
// whose release fence ThreadSanitizer builds cannot compile.)
using Strand = asio::strand<asio::io_context::executor_type>;

// Events read from a board's watch and not yet delivered; beyond, the board
// is sent the latest state instead.
constexpr size_t kMaxPending = 256;
// Events looked at for one delivery (at most 2048 bytes go out anyway).
constexpr size_t kEventsPerDelivery = 16;
// How long Register, Find and Unregister wait for the strand.
constexpr absl::Duration kStrandWait = absl::Seconds(10);

std::string NewSecret() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return "";
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

// Runs `fn` on `strand` and waits for its answer.
template <typename T, typename Fn>
absl::StatusOr<T> OnStrand(const Strand& strand, Fn fn) {
  auto promise = std::make_shared<std::promise<absl::StatusOr<T>>>();
  std::future<absl::StatusOr<T>> answer = promise->get_future();
  asio::post(strand, [promise, fn = std::move(fn)]() mutable {
    promise->set_value(fn());
  });
  if (answer.wait_for(absl::ToChronoNanoseconds(kStrandWait)) !=
      std::future_status::ready) {
    return absl::UnavailableError("khetd's push deliveries did not answer");
  }
  return answer.get();
}

}  // namespace

class BoardPushes::Impl : public std::enable_shared_from_this<Impl>,
                          public PushOwnership::Boards {
 public:
  Impl(SessionService* core, asio::io_context::executor_type loop,
       std::function<void(std::function<void()>)> run_on_worker,
       PushOptions options, metrics::Registry* metrics)
      : core_(core),
        strand_(asio::make_strand(loop)),
        run_on_worker_(std::move(run_on_worker)),
        options_(std::move(options)),
        tls_(asio::ssl::context::tls_client),
        sweep_(strand_),
        ownership_(options_, strand_, run_on_worker_),
        user_agent_(absl::StrCat("khetd/", ServerVersion().version())) {
    if (metrics != nullptr) {
      deliveries_ = &metrics->AddCounter(
          "khet_push_deliveries_total",
          "Deliveries of events to in-world boards' URLs by how they went: "
          "ok, status (a non-2xx answer), timeout, error.",
          {"result"});
      drops_ = &metrics->AddCounter(
          "khet_push_drops_total",
          "Board URLs no longer pushed to, by why: failures, replaced, "
          "unregistered, deleted (the session), moved (another replica "
          "delivers it now).",
          {"reason"});
      ownership_.AddClaimsMetric(*metrics);
      latency_ = &metrics->AddHistogram(
          "khet_push_delivery_seconds",
          "From an event's time (stamped as khetd commits it, before the "
          "store's write) to the board's 2xx answer to the delivery holding "
          "it.",
          {}, {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10});
      metrics->AddGaugeCallback(
          "khet_push_boards", "Boards with a URL events are pushed to.", {},
          [this](const metrics::GaugeCallback::Emit& emit) {
            emit({}, board_count_.load());
          });
      ownership_.AddPausedMetric(*metrics);
      metrics->AddGaugeCallback(
          "khet_push_connections",
          "Connections open to boards' URLs (busy or kept alive).", {},
          [this](const metrics::GaugeCallback::Emit& emit) {
            emit({}, connection_count_.load());
          });
    }
  }

  absl::Status Init() {
    boost::system::error_code ec;
    tls_.set_default_verify_paths(ec);
    if (!options_.ca_file.empty()) {
      tls_.load_verify_file(options_.ca_file, ec);
      if (ec) {
        return absl::InvalidArgumentError(
            absl::StrCat("--inworld_callback_ca_file ", options_.ca_file,
                         " does not load: ", ec.message()));
      }
    }
    tls_.set_verify_mode(asio::ssl::verify_peer);
    KHET_RETURN_IF_ERROR(ownership_.Start(weak_from_this()));
    asio::post(strand_, [self = shared_from_this()] {
      self->ArmSweep();
      self->ownership_.ArmHeartbeat();
    });
    return absl::OkStatus();
  }

  absl::StatusOr<Registered> Register(const std::string& session_id,
                                      absl::string_view url,
                                      int64_t after_version,
                                      const IpAddress& caller) {
    if (shut_down_.load()) return ShutDown();
    KHET_ASSIGN_OR_RETURN(CallbackUrl parsed, ParseCallbackUrl(url));
    if (resolving_.fetch_add(1) >= options_.max_resolving) {
      resolving_.fetch_sub(1);
      return absl::ResourceExhaustedError(
          "too many callback registrations are looking up their hosts; try "
          "again in a second");
    }
    absl::StatusOr<IpAddress> address =
        CheckCallbackTarget(parsed, caller, options_.hosts);
    resolving_.fetch_sub(1);
    if (!address.ok()) return address.status();
    v1::WatchRequest watch;
    watch.set_session_id(session_id);
    watch.set_after_version(after_version);
    KHET_ASSIGN_OR_RETURN(std::unique_ptr<EventStream> stream,
                          core_->Watch(watch));
    std::shared_ptr<Board> board =
        NewBoard(session_id, url, parsed, *address, caller.ToString());
    board->secret = NewSecret();
    if (board->secret.empty()) {
      return absl::InternalError("no random bytes for a callback secret");
    }
    board->delivered = after_version;
    // What the session holds after after_version is read here, on the
    // caller's thread (it may wait for the store), never on the strand;
    // more than a delivery backlog's worth gives way to the latest state.
    while (true) {
      absl::StatusOr<SharedEventPtr> next =
          stream->NextShared(absl::ZeroDuration());
      if (next.ok() && *next == nullptr) break;
      if (!next.ok() && !absl::IsResourceExhausted(next.status())) {
        board->ended = true;  // deleted meanwhile
        break;
      }
      if (next.ok() && board->pending.size() < kMaxPending) {
        board->pending.push_back(*std::move(next));
        continue;
      }
      v1::GetSessionRequest get;
      get.set_session_id(session_id);
      KHET_ASSIGN_OR_RETURN(const v1::Session session, core_->GetSession(get));
      board->state_body = CompactSession(session);
      board->state_version = session.version();
      board->pending.clear();
      watch.set_after_version(session.version());
      KHET_ASSIGN_OR_RETURN(stream, core_->Watch(watch));
    }
    board->stream = std::move(stream);
    const std::string secret = board->secret;
    // Kept for the other replicas first: a board installed here and not
    // saved would not pass to them.
    if (options_.shared_store != nullptr) {
      KHET_RETURN_IF_ERROR(options_.shared_store->SavePushTarget(
          PushTargetRecord{.session_id = session_id,
                           .url = board->url_text,
                           .address = board->address.ToString(),
                           .caller = board->caller,
                           .secret = secret,
                           .owner = options_.replica_id}));
    }
    const absl::Status installed =
        InstallOnStrand(board, options_.first_delivery_delay);
    if (!installed.ok()) {
      ForgetTarget(session_id);
      return installed;
    }
    return Registered{secret};
  }

  // Takes over a board a replica that died delivered to: its session's
  // latest state at once, its events from there. Runs on a worker (it
  // reads the session).
  absl::Status Adopt(const PushTargetRecord& target) override {
    if (shut_down_.load()) return ShutDown();
    KHET_ASSIGN_OR_RETURN(CallbackUrl parsed, ParseCallbackUrl(target.url));
    const std::optional<IpAddress> address = IpAddress::Parse(target.address);
    if (!address.has_value()) {
      return absl::DataLossError(
          absl::StrCat("the stored push target of session \"",
                       target.session_id, "\" has no address"));
    }
    v1::GetSessionRequest get;
    get.set_session_id(target.session_id);
    KHET_ASSIGN_OR_RETURN(const v1::Session session, core_->GetSession(get));
    v1::WatchRequest watch;
    watch.set_session_id(target.session_id);
    watch.set_after_version(session.version());
    KHET_ASSIGN_OR_RETURN(std::unique_ptr<EventStream> stream,
                          core_->Watch(watch));
    std::shared_ptr<Board> board = NewBoard(target.session_id, target.url,
                                            parsed, *address, target.caller);
    board->secret = target.secret;
    board->state_body = CompactSession(session);
    board->state_version = session.version();
    board->stream = std::move(stream);
    // The board has the secret already: its state goes at once.
    return InstallOnStrand(board, absl::ZeroDuration());
  }

  absl::StatusOr<Registration> Find(const std::string& session_id) {
    absl::StatusOr<Registration> here = OnStrand<Registration>(
        strand_,
        [self = shared_from_this(),
         session_id]() -> absl::StatusOr<Registration> {
          auto it = self->boards_.find(session_id);
          if (it == self->boards_.end()) return NoUrl(session_id);
          const Board& board = *it->second;
          return Registration{board.url_text, board.delivered, board.failures};
        });
    if (!absl::IsNotFound(here.status())) return here;
    // Another replica may deliver it; what it delivered is its own to know.
    absl::StatusOr<PushTargetRecord> elsewhere = TargetElsewhere(session_id);
    if (!elsewhere.ok()) return elsewhere.status();
    return Registration{elsewhere->url, /*delivered=*/0, /*failures=*/0};
  }

  absl::Status Unregister(const std::string& session_id) {
    const absl::Status here =
        OnStrand<bool>(
            strand_,
            [self = shared_from_this(), session_id]() -> absl::StatusOr<bool> {
              auto it = self->boards_.find(session_id);
              if (it == self->boards_.end()) {
                return NoUrl(session_id);
              }
              self->Drop(it->second, "unregistered");
              return true;
            })
            .status();
    if (here.ok()) {
      ForgetTarget(session_id);
      return absl::OkStatus();
    }
    if (!absl::IsNotFound(here)) return here;
    // Deleted from the store, its replica stops at its next heartbeat.
    absl::StatusOr<PushTargetRecord> elsewhere = TargetElsewhere(session_id);
    if (!elsewhere.ok()) return elsewhere.status();
    return options_.shared_store->DeletePushTarget(session_id,
                                                   elsewhere->owner);
  }

  void Shutdown() {
    if (shut_down_.exchange(true)) return;
    // Waits so that nothing of it runs once the loop's owner goes on.
    OnStrand<bool>(strand_,
                   [self = shared_from_this()]() -> absl::StatusOr<bool> {
                     std::vector<std::shared_ptr<Board>> boards;
                     for (auto& [id, board] : self->boards_)
                       boards.push_back(board);
                     for (auto& board : boards) self->Drop(board, "");
                     for (auto& [key, pool] : self->pools_) {
                       for (auto& [connection, since] : pool.idle)
                         connection->Close();
                       pool.idle.clear();
                     }
                     self->sweep_.cancel();
                     self->ownership_.CancelHeartbeat();
                     return true;
                   })
        .IgnoreError();
    ownership_.EndHeartbeat();
  }

  // PushOwnership::Boards, for the heartbeat's rounds.
  bool ShuttingDown() const override { return shut_down_.load(); }
  int64_t BoardCount() const override { return board_count_.load(); }
  uint64_t InstallCount() const override { return installs_seen_.load(); }

  // Deletes this replica's saved target of the session, if the store
  // keeps targets. Waits for the store: not on the strand.
  void ForgetTarget(const std::string& session_id) override {
    if (options_.shared_store == nullptr) return;
    options_.shared_store->DeletePushTarget(session_id, options_.replica_id)
        .IgnoreError();  // a target left behind is claimed, then dropped
  }

  // Drops the boards whose stored target another replica owns now or
  // unregistered: those not in `kept`, unless installed since the list
  // was read (install `installed`), which may not be on it yet.
  // Strand-only.
  void DropMoved(const absl::flat_hash_set<std::string>& kept,
                 uint64_t installed) override {
    std::vector<std::shared_ptr<Board>> moved;
    for (const auto& [id, board] : boards_) {
      if (board->installed <= installed && !kept.contains(id)) {
        moved.push_back(board);
      }
    }
    for (const std::shared_ptr<Board>& board : moved) Drop(board, "moved");
  }

 private:
  // One registered URL and what is under way for it. Strand-only.
  struct Board {
    explicit Board(const Strand& strand) : retry(strand) {}
    std::string session_id;
    std::string url_text;
    CallbackUrl url;
    IpAddress address = *IpAddress::Parse("0.0.0.0");
    std::string caller;    // the registering address, for its budget
    std::string pool_key;  // the connections it may use
    std::string secret;
    std::unique_ptr<EventStream> stream;  // null while being read again
    bool armed = false;                   // waiting for the stream
    bool ended = false;                   // the stream has no more
    bool gone = false;                    // dropped or replaced
    std::deque<SharedEventPtr> pending;
    int64_t delivered = 0;
    // The latest state to deliver instead of events (when it fell behind).
    std::string state_body;
    int64_t state_version = 0;
    // The delivery under way.
    bool sending = false;
    bool retried_fresh = false;  // once on a new connection after a kept one
    std::string body;
    size_t body_events = 0;
    int64_t body_version = 0;
    absl::Time body_time;  // the first event's commit
    int failures = 0;
    asio::steady_timer retry;
    uint64_t installed = 0;  // the install's number (Impl::installs_)
  };

  struct Pool {
    std::vector<std::pair<std::shared_ptr<PushConnection>, absl::Time>> idle;
    int open = 0;  // idle and busy
    std::deque<std::weak_ptr<Board>> waiting;
  };

  std::shared_ptr<Board> NewBoard(const std::string& session_id,
                                  absl::string_view url,
                                  const CallbackUrl& parsed,
                                  const IpAddress& address,
                                  const std::string& caller) {
    auto board = std::make_shared<Board>(strand_);
    board->session_id = session_id;
    board->url_text = std::string(url);
    board->url = parsed;
    board->address = address;
    board->caller = caller;
    board->pool_key =
        absl::StrCat(parsed.tls ? "https://" : "http://", parsed.host, ":",
                     parsed.port, "@", address.ToString());
    return board;
  }

  // Install, from a thread off the strand.
  absl::Status InstallOnStrand(const std::shared_ptr<Board>& board,
                               absl::Duration first_delay) {
    return OnStrand<bool>(strand_,
                          [self = shared_from_this(), board,
                           first_delay]() -> absl::StatusOr<bool> {
                            absl::Status status =
                                self->Install(board, first_delay);
                            if (!status.ok()) return status;
                            return true;
                          })
        .status();
  }

  // The session's target as the shared store keeps it, if another replica
  // delivers it; NOT_FOUND (the same as a board unknown here) otherwise.
  // Waits for the store: not on the strand.
  absl::StatusOr<PushTargetRecord> TargetElsewhere(
      const std::string& session_id) {
    if (options_.shared_store == nullptr) return NoUrl(session_id);
    absl::StatusOr<PushTargetRecord> stored =
        options_.shared_store->GetPushTarget(session_id);
    if (absl::IsNotFound(stored.status())) return NoUrl(session_id);
    if (!stored.ok()) return stored.status();
    // Saved by this replica, not delivered here: a registration or a
    // claim just under way, or one whose install failed.
    if (stored->owner == options_.replica_id) return NoUrl(session_id);
    return stored;
  }

  static absl::Status ShutDown() {
    return absl::UnavailableError("khetd is shutting down");
  }
  static absl::Status NoUrl(const std::string& session_id) {
    return absl::NotFoundError(absl::StrCat(
        "session \"", session_id,
        "\" has no callback url (none was registered, or khetd dropped it "
        "after failed deliveries); register one or long-poll"));
  }

  // Starts delivering to the board, its first delivery after
  // `first_delay`. Strand-only.
  absl::Status Install(const std::shared_ptr<Board>& board,
                       absl::Duration first_delay) {
    if (shut_down_.load()) return ShutDown();
    auto it = boards_.find(board->session_id);
    const bool replacing = it != boards_.end();
    if (!replacing && static_cast<int>(boards_.size()) >= options_.max_boards) {
      return absl::ResourceExhaustedError(
          absl::StrCat("khetd pushes to at most ", options_.max_boards,
                       " boards at once; this board can long-poll instead"));
    }
    const bool same_caller = replacing && it->second->caller == board->caller;
    if (!same_caller &&
        per_caller_[board->caller] >= options_.max_boards_per_address) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "khetd pushes to at most ", options_.max_boards_per_address,
          " boards registered from one address; this board can long-poll "
          "instead"));
    }
    if (replacing) Drop(it->second, "replaced");
    board->installed = ++installs_;
    installs_seen_.store(installs_);
    boards_[board->session_id] = board;
    ++per_caller_[board->caller];
    board_count_.store(static_cast<int64_t>(boards_.size()));
    Drain(board);
    // A new registration's first delivery waits a moment: the board must
    // have read the registration's answer (and its secret) to take it.
    board->sending = true;
    board->retry.expires_after(absl::ToChronoNanoseconds(first_delay));
    board->retry.async_wait([self = shared_from_this(),
                             board](const boost::system::error_code& ec) {
      if (ec || board->gone) return;
      board->sending = false;
      self->Deliver(board);
    });
    return absl::OkStatus();
  }

  // Forgets the board; a delivery in flight ends unheard. `reason` counts
  // it (none on shutdown).
  void Drop(std::shared_ptr<Board> board, absl::string_view reason) {
    // By value: the caller's may be the map's own, erased below.
    if (board->gone) return;
    board->gone = true;
    board->retry.cancel();
    board->stream.reset();
    board->pending.clear();
    auto it = boards_.find(board->session_id);
    if (it != boards_.end() && it->second == board) boards_.erase(it);
    if (--per_caller_[board->caller] <= 0) per_caller_.erase(board->caller);
    board_count_.store(static_cast<int64_t>(boards_.size()));
    if (drops_ != nullptr && !reason.empty()) drops_->Get({reason}).Increment();
  }

  // Waits for the board's stream to have more.
  void Arm(const std::shared_ptr<Board>& board) {
    if (board->armed || board->gone || board->stream == nullptr) return;
    board->armed = true;
    std::weak_ptr<Impl> weak_self = weak_from_this();
    std::weak_ptr<Board> weak_board = board;
    board->stream->NotifyWhenReady([strand = strand_, weak_self, weak_board] {
      asio::post(strand, [weak_self, weak_board] {
        std::shared_ptr<Impl> self = weak_self.lock();
        std::shared_ptr<Board> ready = weak_board.lock();
        if (self == nullptr || ready == nullptr || ready->gone) return;
        ready->armed = false;
        self->Drain(ready);
        self->Deliver(ready);
      });
    });
  }

  // Takes what the stream has now into pending.
  void Drain(const std::shared_ptr<Board>& board) {
    while (board->stream != nullptr && !board->ended) {
      absl::StatusOr<SharedEventPtr> next =
          board->stream->NextShared(absl::ZeroDuration());
      if (absl::IsResourceExhausted(next.status()) ||
          (next.ok() && *next != nullptr &&
           board->pending.size() >= kMaxPending)) {
        ReadAgain(board);
        return;
      }
      if (!next.ok()) {
        board->ended = true;  // deleted (after its last event) or cancelled
        return;
      }
      if (*next == nullptr) return;
      board->pending.push_back(std::move(*next));
    }
  }

  // The board fell behind: its next delivery is the latest state, and its
  // watch starts again from there (read on a worker: it may wait for the
  // store).
  void ReadAgain(const std::shared_ptr<Board>& board) {
    board->stream.reset();
    board->armed = false;
    board->pending.clear();
    std::weak_ptr<Board> weak_board = board;
    run_on_worker_(
        [self = shared_from_this(), weak_board, id = board->session_id] {
          v1::GetSessionRequest get;
          get.set_session_id(id);
          absl::StatusOr<v1::Session> session = self->core_->GetSession(get);
          absl::StatusOr<std::unique_ptr<EventStream>> stream =
              absl::NotFoundError(id);
          if (session.ok()) {
            v1::WatchRequest watch;
            watch.set_session_id(id);
            watch.set_after_version(session->version());
            stream = self->core_->Watch(watch);
          }
          auto shared_stream =
              std::make_shared<absl::StatusOr<std::unique_ptr<EventStream>>>(
                  std::move(stream));
          asio::post(self->strand_, [self, weak_board, shared_stream,
                                     session = std::move(session)]() mutable {
            std::shared_ptr<Board> behind = weak_board.lock();
            if (behind == nullptr || behind->gone) return;
            if (!session.ok() || !shared_stream->ok()) {
              self->Drop(behind, "deleted");
              return;
            }
            behind->stream = std::move(**shared_stream);
            behind->state_body = CompactSession(*session);
            behind->state_version = session->version();
            self->Deliver(behind);
          });
        });
  }

  // Starts the board's next delivery, if it has one and none is under way.
  void Deliver(const std::shared_ptr<Board>& board) {
    if (board->gone || board->sending || shut_down_.load()) return;
    if (ownership_.Paused()) {
      // Fenced: this replica's heartbeat may have ended. Looks again after
      // a heartbeat.
      board->sending = true;
      board->retry.expires_after(absl::ToChronoNanoseconds(options_.heartbeat));
      board->retry.async_wait([self = shared_from_this(),
                               board](const boost::system::error_code& ec) {
        if (ec || board->gone) return;
        board->sending = false;
        self->Deliver(board);
      });
      return;
    }
    if (!board->state_body.empty()) {
      board->body = board->state_body;
      board->body_events = 0;
      board->body_version = board->state_version;
      board->body_time = absl::Now();
    } else if (board->pending.empty()) {
      if (board->ended) {
        Drop(board, "deleted");
      } else {
        Arm(board);
      }
      return;
    } else {
      std::vector<v1::Event> events;
      for (size_t i = 0; i < board->pending.size() && i < kEventsPerDelivery;
           ++i) {
        events.push_back(board->pending[i]->event());
      }
      const CompactEventList list = CompactEvents(
          events, board->delivered,
          /*events_follow=*/board->pending.size() > events.size());
      board->body = list.json;
      board->body_events = static_cast<size_t>(list.count);
      board->body_version = events[list.count - 1].version();
      board->body_time = TimeFromProto(events.front().time());
    }
    board->sending = true;
    board->retried_fresh = false;
    Acquire(board);
  }

  // Finds the board a connection, or queues it for one.
  void Acquire(const std::shared_ptr<Board>& board) {
    Pool& pool = pools_[board->pool_key];
    const absl::Time now = absl::Now();
    while (!pool.idle.empty()) {
      auto [connection, since] = std::move(pool.idle.back());
      pool.idle.pop_back();
      if (now - since < options_.idle_timeout) {
        Send(board, std::move(connection));
        return;
      }
      connection->Close();
      Closed(pool);
    }
    if (pool.open < options_.max_connections_per_host &&
        (connection_count_.load() < options_.max_connections ||
         CloseAnIdleConnection())) {
      ++pool.open;
      connection_count_.fetch_add(1);
      Send(board, std::make_shared<PushConnection>(strand_, &tls_, board->url,
                                                   board->address,
                                                   options_.connection));
      return;
    }
    pool.waiting.push_back(board);
    starved_.insert(board->pool_key);
  }

  void Send(const std::shared_ptr<Board>& board,
            std::shared_ptr<PushConnection> connection) {
    const std::string target = absl::StrCat(
        board->url.target,
        absl::StrContains(board->url.target, '?') ? "&" : "?", "sig=",
        Sha256Hex(absl::StrCat(board->secret, board->body, board->secret)));
    const bool reused = connection->reused();
    PushConnection* raw = connection.get();
    raw->Post(
        target, board->body, user_agent_,
        [self = shared_from_this(), board, connection = std::move(connection),
         reused](const PushOutcome& outcome) mutable {
          self->Answered(board, std::move(connection), reused, outcome);
        });
  }

  void Answered(const std::shared_ptr<Board>& board,
                std::shared_ptr<PushConnection> connection, bool reused,
                const PushOutcome& outcome) {
    const bool ok = outcome.status.ok() && outcome.http_status >= 200 &&
                    outcome.http_status < 300;
    Pool& pool = pools_[board->pool_key];
    if (ok && outcome.keep_alive && !shut_down_.load()) {
      Release(pool, std::move(connection));
    } else {
      connection->Close();
      Closed(pool);
    }
    if (board->gone) return;
    board->sending = false;
    if (ok) {
      Count("ok");
      if (latency_ != nullptr) {
        latency_->Get({}).Observe(
            absl::ToDoubleSeconds(absl::Now() - board->body_time));
      }
      board->failures = 0;
      board->delivered = board->body_version;
      if (board->body_events == 0) {
        board->state_body.clear();
      } else {
        board->pending.erase(
            board->pending.begin(),
            board->pending.begin() + static_cast<long>(board->body_events));
      }
      Drain(board);
      Deliver(board);
      return;
    }
    if (!outcome.status.ok() && reused && !board->retried_fresh) {
      // A kept-alive connection the board's server had closed: once more
      // on a new one, not counted as a failure.
      board->retried_fresh = true;
      board->sending = true;
      Acquire(board);
      return;
    }
    Count(outcome.status.ok()                        ? "status"
          : absl::IsDeadlineExceeded(outcome.status) ? "timeout"
                                                     : "error");
    if (++board->failures >= options_.max_failures) {
      Drop(board, "failures");
      if (options_.shared_store != nullptr) {
        run_on_worker_([self = shared_from_this(), id = board->session_id] {
          self->ForgetTarget(id);
        });
      }
      return;
    }
    board->retry.expires_after(absl::ToChronoNanoseconds(
        options_.first_retry * (1 << (board->failures - 1))));
    board->retry.async_wait([self = shared_from_this(),
                             board](const boost::system::error_code& ec) {
      if (!ec) self->Deliver(board);
    });
  }

  // A connection free again: to a board waiting for this host, or idle.
  void Release(Pool& pool, std::shared_ptr<PushConnection> connection) {
    while (!pool.waiting.empty()) {
      std::shared_ptr<Board> next = pool.waiting.front().lock();
      pool.waiting.pop_front();
      if (next != nullptr && !next->gone && next->sending) {
        Send(next, std::move(connection));
        return;
      }
    }
    pool.idle.emplace_back(std::move(connection), absl::Now());
  }

  // A connection of `pool` closed: boards waiting may open one.
  void Closed(Pool& pool) {
    --pool.open;
    connection_count_.fetch_sub(1);
    if (starved_.empty()) return;
    const std::vector<std::string> keys(starved_.begin(), starved_.end());
    for (const std::string& key : keys) {
      Pool& waiting_pool = pools_[key];
      while (!waiting_pool.waiting.empty() &&
             waiting_pool.open < options_.max_connections_per_host &&
             connection_count_.load() < options_.max_connections) {
        std::shared_ptr<Board> next = waiting_pool.waiting.front().lock();
        waiting_pool.waiting.pop_front();
        if (next == nullptr || next->gone || !next->sending) continue;
        ++waiting_pool.open;
        connection_count_.fetch_add(1);
        Send(next, std::make_shared<PushConnection>(strand_, &tls_, next->url,
                                                    next->address,
                                                    options_.connection));
      }
      if (waiting_pool.waiting.empty()) starved_.erase(key);
    }
  }

  // Makes room under max_connections by closing an idle connection of any
  // host; false if none is idle.
  bool CloseAnIdleConnection() {
    for (auto& [key, pool] : pools_) {
      if (pool.idle.empty()) continue;
      pool.idle.back().first->Close();
      pool.idle.pop_back();
      --pool.open;
      connection_count_.fetch_sub(1);
      return true;
    }
    return false;
  }

  // Every idle_timeout: closes connections idle that long and forgets
  // hosts with none.
  void ArmSweep() {
    sweep_.expires_after(absl::ToChronoNanoseconds(options_.idle_timeout));
    sweep_.async_wait(
        [self = shared_from_this()](const boost::system::error_code& ec) {
          if (ec || self->shut_down_.load()) return;
          const absl::Time now = absl::Now();
          for (auto it = self->pools_.begin(); it != self->pools_.end();) {
            Pool& pool = it->second;
            std::erase_if(pool.idle, [&](auto& idle) {
              if (now - idle.second < self->options_.idle_timeout) return false;
              idle.first->Close();
              --pool.open;
              self->connection_count_.fetch_sub(1);
              return true;
            });
            if (pool.open == 0 && pool.waiting.empty()) {
              self->pools_.erase(it++);
            } else {
              ++it;
            }
          }
          self->ArmSweep();
        });
  }

  void Count(absl::string_view result) {
    if (deliveries_ != nullptr) deliveries_->Get({result}).Increment();
  }

  SessionService* const core_;
  const Strand strand_;
  const std::function<void(std::function<void()>)> run_on_worker_;
  const PushOptions options_;
  asio::ssl::context tls_;
  asio::steady_timer sweep_;
  PushOwnership ownership_;  // the heartbeat, the fence and claims
  const std::string user_agent_;
  std::atomic<bool> shut_down_{false};
  std::atomic<int> resolving_{0};
  std::atomic<int64_t> board_count_{0};
  std::atomic<int64_t> connection_count_{0};
  std::atomic<uint64_t> installs_seen_{0};  // installs_, for workers
  // Strand-only.
  uint64_t installs_ = 0;  // boards installed so far
  absl::flat_hash_map<std::string, std::shared_ptr<Board>> boards_;
  absl::flat_hash_map<std::string, int> per_caller_;
  absl::node_hash_map<std::string, Pool> pools_;  // references stay valid
  absl::flat_hash_set<std::string> starved_;      // pools with boards waiting
  metrics::CounterFamily* deliveries_ = nullptr;
  metrics::CounterFamily* drops_ = nullptr;
  metrics::HistogramFamily* latency_ = nullptr;
};

absl::StatusOr<std::unique_ptr<BoardPushes>> BoardPushes::Create(
    SessionService* core, asio::io_context::executor_type loop,
    std::function<void(std::function<void()>)> run_on_worker,
    PushOptions options, metrics::Registry* metrics) {
  auto impl =
      std::make_shared<Impl>(core, std::move(loop), std::move(run_on_worker),
                             std::move(options), metrics);
  KHET_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<BoardPushes>(new BoardPushes(std::move(impl)));
}

BoardPushes::BoardPushes(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

BoardPushes::~BoardPushes() { Shutdown(); }

absl::StatusOr<BoardPushes::Registered> BoardPushes::Register(
    const std::string& session_id, absl::string_view url, int64_t after_version,
    const IpAddress& caller) {
  return impl_->Register(session_id, url, after_version, caller);
}

absl::StatusOr<BoardPushes::Registration> BoardPushes::Find(
    const std::string& session_id) {
  return impl_->Find(session_id);
}

absl::Status BoardPushes::Unregister(const std::string& session_id) {
  return impl_->Unregister(session_id);
}

void BoardPushes::Shutdown() { impl_->Shutdown(); }

}  // namespace khet
