// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The connections an HTTP server has open: counted in all and per client
// address within the server's limits, and reachable so that shutdown can
// stop them. Part of HttpServer's implementation (http_server.cc).
#ifndef KHET_SERVICE_HTTP_OPEN_CONNECTIONS_H_
#define KHET_SERVICE_HTTP_OPEN_CONNECTIONS_H_

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"
#include "service/base/mutex.h"
#include "service/fair_use/client_address.h"

namespace khet {

// What the server keeps of a connection to stop it.
class StoppableConnection {
 public:
  virtual ~StoppableConnection() = default;
  // Closes the connection now if no request is being answered, else after
  // its answer. Called on any thread.
  virtual void StopWhenIdle() = 0;
  // Closes the connection now. Called on any thread.
  virtual void CloseSoon() = 0;
};

// Thread-safe.
class OpenConnections {
 public:
  // Beyond `max_connections_per_address`, an address may open up to
  // `max_inworld_connections_per_address` in all whose requests each carry
  // an in-world object key (a simulator host's boards). Connections from
  // `trusted_proxies` count toward `max_connections` alone.
  OpenConnections(int max_connections, int max_connections_per_address,
                  int max_inworld_connections_per_address,
                  TrustedProxies trusted_proxies = {})
      : max_connections_(max_connections),
        max_connections_per_address_(max_connections_per_address),
        max_inworld_connections_per_address_(
            max_inworld_connections_per_address),
        trusted_proxies_(std::move(trusted_proxies)) {}

  // Counts a new connection from `address`: 0 if it may stay, else the
  // status to refuse it with (503: the server is full; 429: the address
  // is). `*needs_object_key` is set when the address is over its plain
  // limit and within its in-world one: every request of the connection
  // must carry an in-world object key. One admitted is counted until
  // Forget.
  int Admit(const std::string& address, bool* needs_object_key);
  // Makes an admitted `connection` reachable by ForEach until Forget; tells
  // it StopWhenIdle at once if BeginStopping was called.
  void Register(StoppableConnection* connection,
                std::weak_ptr<StoppableConnection> handle);
  // Stops counting `connection`, admitted from `address`, and wakes
  // WaitForNone. REQUIRES: once per admitted connection.
  void Forget(StoppableConnection* connection, const std::string& address);

  // From now on a connection registered is told StopWhenIdle at once (those
  // registered before are the caller's to stop, by ForEach). False if it
  // was called before.
  bool BeginStopping();
  // Calls `action` on every open connection.
  void ForEach(void (StoppableConnection::*action)());
  // Waits until no connection is open or `deadline`.
  void WaitForNone(absl::Time deadline);
  // Connections counted now.
  int count();

 private:
  const int max_connections_;
  const int max_connections_per_address_;
  const int max_inworld_connections_per_address_;
  const TrustedProxies trusted_proxies_;

  Mutex mu_;
  CondVar changed_;  // signalled when a connection is forgotten
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int total_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> per_address_ ABSL_GUARDED_BY(mu_);
  std::map<StoppableConnection*, std::weak_ptr<StoppableConnection>> open_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace khet

#endif  // KHET_SERVICE_HTTP_OPEN_CONNECTIONS_H_
