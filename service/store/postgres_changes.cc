// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// PostgresStore's change notices: a connection of its own LISTENs on the
// store's channel and hands each notice to the change listener, reopening
// the connection when it is lost.
#include <libpq-fe.h>
#include <poll.h>

#include <cerrno>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"
#include "service/store/postgres_connection.h"
#include "service/store/postgres_store.h"

namespace khet {

void PostgresStore::SetChangeListener(ChangeListener listener) {
  const bool start = listener != nullptr && !listen_thread_.joinable();
  {
    MutexLock lock(&listener_mu_);
    listener_ = std::move(listener);
  }
  if (!start) return;
  // LISTEN before returning, so that no change committed after this call
  // goes unheard; if it fails, the thread retries and reports a gap.
  std::unique_ptr<Connection> first = OpenListening();
  listen_thread_ = std::thread([this, first = std::move(first)]() mutable {
    ListenLoop(std::move(first));
  });
}

std::unique_ptr<PostgresStore::Connection> PostgresStore::OpenListening() {
  absl::StatusOr<std::unique_ptr<Connection>> opened =
      Connection::Open(conninfo_, options_.connect_timeout);
  if (!opened.ok()) return nullptr;
  const std::string listen = absl::StrCat("LISTEN ", std::string(kChannel));
  if (!(*opened)->Exec(listen.c_str(), "listen").ok()) return nullptr;
  return *std::move(opened);
}

void PostgresStore::CallListener(const StoreChange& change) {
  MutexLock lock(&listener_mu_);
  if (listener_) listener_(change);
}

absl::Status PostgresStore::DeliverNotifications(Connection& connection) {
  if (PQconsumeInput(connection.conn()) == 0) {
    return absl::UnavailableError(
        absl::StrCat("postgres: the listening connection was lost: ",
                     Connection::OneLine(PQerrorMessage(connection.conn()))));
  }
  while (PGnotify* notify = PQnotifies(connection.conn())) {
    const std::string_view payload = notify->extra;
    const size_t space = payload.find(' ');
    StoreChange change;
    if (space != std::string_view::npos) {
      change.id = std::string(payload.substr(space + 1));
      const std::string_view head = payload.substr(0, space);
      change.deleted = head == "deleted";
      if (!change.deleted &&
          !absl::SimpleAtoi(absl::string_view(head.data(), head.size()),
                            &change.version)) {
        change.id.clear();  // unreadable: treat as "something changed"
      }
    }
    PQfreemem(notify);
    CallListener(change);
  }
  return absl::OkStatus();
}

void PostgresStore::ListenLoop(std::unique_ptr<Connection> connection) {
  // Without a connection, changes may have been missed.
  bool missed = connection == nullptr;
  while (!stop_) {
    if (connection == nullptr) {
      connection = OpenListening();
      if (connection != nullptr && missed) CallListener(StoreChange{});
      if (connection != nullptr) missed = false;
      if (connection == nullptr) {
        missed = true;
        const absl::Time until = absl::Now() + options_.listen_retry_delay;
        while (!stop_ && absl::Now() < until)
          absl::SleepFor(absl::Milliseconds(20));
        continue;
      }
    }
    pollfd fd{PQsocket(connection->conn()), POLLIN, 0};
    const int ready = poll(&fd, 1, /*timeout_ms=*/100);
    if (ready < 0 && errno != EINTR) {
      connection.reset();
      missed = true;
      continue;
    }
    if (ready > 0 && !DeliverNotifications(*connection).ok()) {
      connection.reset();
      missed = true;
    }
  }
}

}  // namespace khet
