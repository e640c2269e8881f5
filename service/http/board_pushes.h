// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Events pushed to in-world boards (docs/http-api.md, "Pushed events"): a
// board registers a URL its region gave it, and khetd POSTs the session's
// events to it as they happen, so the board need not hold a long poll.
//
// Contract:
// - One URL per session; registering again replaces it. A registration
//   watches the session after the version it names and delivers from there.
// - A delivery's body is a long poll's compact answer ({"v","events",
//   "more"}, at most 2048 bytes), or, when the board fell too far behind,
//   the compact session (the latest state, which replaces the board's).
//   It goes to the URL with "sig=<hex>" added to its query: the lower-case
//   hex SHA-256 of secret + body + secret, the secret being the one its
//   registration answered.
// - One delivery in flight per board, in version order; any 2xx answer
//   counts as received. A failed attempt (no connection, a timeout, an
//   answer over its limits, any other status) is retried after a doubling
//   pause; after max_failures in a row the URL is dropped and the board
//   finds it gone (GET .../callback answers 404) and long-polls.
// - Connections are kept alive per host and port (at most
//   max_connections_per_host at once; boards beyond wait their turn) and
//   always go to the address the registration checked.
// - On a shared store (replicas), each target (URL, checked address,
//   secret) is saved with the replica that delivers it, and each replica
//   renews a heartbeat every `heartbeat`; a replica whose heartbeat is
//   `heartbeat_ttl` old (it died, or shut down and ended it) has its boards
//   claimed by a live one, which delivers the session's latest state to
//   each at once and its events from there (docs/ARCHITECTURE.md, "Pushed
//   events on replicas"; push_ownership.h). Each round a replica also drops
//   the boards whose stored target another replica owns now or
//   unregistered; Find and Unregister reach a board another replica
//   delivers through the store.
// Thread-safe. Everything it does runs on one strand of the event loop it
// is given; Register, Find and Unregister wait for that strand.
#ifndef KHET_SERVICE_HTTP_BOARD_PUSHES_H_
#define KHET_SERVICE_HTTP_BOARD_PUSHES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "boost/asio/io_context.hpp"
#include "service/core/session_service.h"
#include "service/fair_use/client_address.h"
#include "service/http/callback_target.h"
#include "service/http/push_connection.h"
#include "service/metrics/metrics.h"
#include "service/store/session_store.h"

namespace khet {

struct PushOptions {
  // Hosts deliveries may go to besides the registering address
  // (--inworld_callback_hosts).
  CallbackHosts hosts;
  // A PEM file of CAs trusted for https URLs besides the system's
  // (--inworld_callback_ca_file); Second Life's secure URLs need Linden
  // Lab's.
  std::string ca_file;
  // Registered boards at once, in all and from one address; beyond:
  // RESOURCE_EXHAUSTED (the board long-polls instead). 10,000 boards behind
  // one simulator host, as for the gateway's other limits.
  int max_boards = 20000;
  int max_boards_per_address = 12000;
  // Connections open at once, in all and to one host and port.
  int max_connections = 4096;
  int max_connections_per_host = 32;
  PushConnectionLimits connection;
  // A kept-alive connection unused this long is closed.
  absl::Duration idle_timeout = absl::Seconds(15);
  // A new registration's first delivery waits this long, so that the board
  // has read the registration's answer (and the secret) first.
  absl::Duration first_delivery_delay = absl::Milliseconds(500);
  // Failed attempts in a row before a URL is dropped, and the pause after
  // the first (doubling after each).
  int max_failures = 4;
  absl::Duration first_retry = absl::Milliseconds(250);
  // Registrations looking up their URL's host at once; beyond:
  // RESOURCE_EXHAUSTED.
  int max_resolving = 8;
  // Where targets are kept for the other replicas (the service's store when
  // it is shared), and this replica's name there; null: only in memory.
  // Not owned; must outlive this.
  SessionStore* shared_store = nullptr;
  std::string replica_id;
  // How often this replica renews its heartbeat and claims the boards of
  // replicas whose heartbeat ended; how long a heartbeat lasts (a replica
  // stalled this long, its store calls too, loses its boards to another;
  // they come back to one deliverer at the next round); boards claimed per
  // statement (a round claims again while a claim was full).
  absl::Duration heartbeat = absl::Milliseconds(500);
  absl::Duration heartbeat_ttl = absl::Seconds(2);
  int max_claims = 2000;
};

class BoardPushes {
 public:
  // `core` must outlive it; `loop` runs its connections and timers;
  // `run_on_worker` runs calls into the core that may wait for the store.
  // `metrics` may be null. INVALID_ARGUMENT if ca_file does not load.
  static absl::StatusOr<std::unique_ptr<BoardPushes>> Create(
      SessionService* core, boost::asio::io_context::executor_type loop,
      std::function<void(std::function<void()>)> run_on_worker,
      PushOptions options, metrics::Registry* metrics);
  // Shuts down.
  ~BoardPushes();
  BoardPushes(const BoardPushes&) = delete;
  BoardPushes& operator=(const BoardPushes&) = delete;

  struct Registered {
    std::string secret;  // 64 hex digits
  };
  // Registers `url` for the session (the caller has been checked as its
  // owner) and delivers what came after `after_version` at once.
  // INVALID_ARGUMENT for a URL that is not usable or a version the session
  // does not have, PERMISSION_DENIED for a host the rule in
  // callback_target.h refuses, NOT_FOUND for an unknown session,
  // RESOURCE_EXHAUSTED beyond the limits, UNAVAILABLE once shut down.
  absl::StatusOr<Registered> Register(const std::string& session_id,
                                      absl::string_view url,
                                      int64_t after_version,
                                      const IpAddress& caller);

  struct Registration {
    std::string url;
    int64_t delivered = 0;  // the last version the board took
    int failures = 0;       // failed attempts in a row now
  };
  // NOT_FOUND when the session has no URL (never had, or it was dropped).
  // A board another replica delivers is read from the shared store, with
  // delivered and failures 0 (unknown here). Not on the loop's thread.
  absl::StatusOr<Registration> Find(const std::string& session_id);
  // NOT_FOUND when the session has no URL. A board another replica
  // delivers is deleted from the shared store; that replica stops at its
  // next heartbeat. Not on the loop's thread.
  absl::Status Unregister(const std::string& session_id);

  // Stops delivering, closes every connection; registrations answer
  // UNAVAILABLE. On a shared store, ends this replica's heartbeat so that
  // another takes its boards over at its next round. Idempotent; call
  // before the loop stops, not on the loop's thread.
  void Shutdown();

  class Impl;

 private:
  explicit BoardPushes(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_BOARD_PUSHES_H_
