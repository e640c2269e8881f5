// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/store/postgres_connection.h"

#include <poll.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "service/base/status_macros.h"
#include "service/store/postgres_games.h"
#include "service/store/postgres_leases.h"
#include "service/store/postgres_push_targets.h"
#include "service/store/postgres_ratings.h"
#include "service/store/postgres_sessions.h"

namespace khet {

using postgres_sessions::kDone;
using postgres_sessions::kEventsDoNotFollow;
using postgres_sessions::kGameTaken;
using postgres_sessions::kIdTaken;
using postgres_sessions::kNoGame;
using postgres_sessions::kNoSession;
using postgres_sessions::kOtherPlayers;
using postgres_sessions::kOtherVersion;
using postgres_sessions::kRatingNotPending;
using postgres_sessions::kRedMoved;
using postgres_sessions::kSilverMoved;

namespace {

// Prepared on every pooled connection, by name.
struct StatementText {
  const char* name;
  const char* sql;
  int params;
};
constexpr StatementText kStatements[] = {
    {"get", "SELECT version, state FROM khet_sessions WHERE id = $1", 1},
    {"get_version", "SELECT version FROM khet_sessions WHERE id = $1", 1},
    {"get_many",
     "SELECT id, version, state FROM khet_sessions WHERE id = ANY($1::text[])",
     1},
    {"create",
     "SELECT code, stored FROM khet_create($1::text, $2::bigint, $3::bytea, "
     "$4::bigint[], $5::bytea[])",
     5},
    {"update",
     "SELECT code, stored FROM khet_update($1::text, $2::bigint, $3::bigint, "
     "$4::bytea, $5::bigint[], $6::bytea[])",
     6},
    {"delete", "SELECT code, stored FROM khet_delete($1::text)", 1},
    {"delete_at",
     "SELECT code, stored FROM khet_delete_at($1::text, $2::bigint)", 2},
    {"drop_events",
     "WITH dropped AS (DELETE FROM khet_events WHERE session_id = $1 AND "
     "version <= $2 RETURNING 1) SELECT 0::bigint, count(*) FROM dropped",
     2},
    {"load_all", "SELECT id, version, state FROM khet_sessions ORDER BY id", 0},
    {"versions", "SELECT id, version FROM khet_sessions", 0},
    {"events_after",
     "SELECT version, event FROM khet_events WHERE session_id = $1 AND "
     "version > $2 ORDER BY version LIMIT $3",
     3},
    {"try_lease", postgres_leases::kTryLease, 4},
    {"save_push_target", postgres_push_targets::kSave, 6},
    {"delete_push_target", postgres_push_targets::kDelete, 2},
    {"claim_push_targets", postgres_push_targets::kClaim, 4},
    {"get_push_target", postgres_push_targets::kGet, 1},
    {"push_targets_of", postgres_push_targets::kOwned, 1},
    {"count_push_targets", postgres_push_targets::kCountOwned, 1},
    {"update_archiving", postgres_games::kUpdateArchiving, 16},
    {"get_game", postgres_games::kGetGame, 1},
    {"list_games", postgres_games::kListGames, 6},
    {"set_analysis", postgres_games::kSetAnalysis, 2},
    {"update_archiving_rated", postgres_ratings::kUpdateArchivingRated, 18},
    {"apply_rating", postgres_ratings::kApplyRating, 20},
    {"get_player", postgres_ratings::kGetPlayer, 1},
    {"list_players", postgres_ratings::kListPlayers, 2},
    {"pending_rated_games", postgres_games::kPendingRatedGames, 1},
};

// The status for a SQLSTATE; see the header's list of errors.
absl::StatusCode CodeFor(const std::string& sqlstate) {
  if (absl::StartsWith(sqlstate, "08") || absl::StartsWith(sqlstate, "53") ||
      absl::StartsWith(sqlstate, "57P") || sqlstate == "40001" ||
      sqlstate == "40P01") {
    return absl::StatusCode::kUnavailable;
  }
  if (absl::StartsWith(sqlstate, "22")) {
    return absl::StatusCode::kInvalidArgument;
  }
  return absl::StatusCode::kInternal;
}

void AppendInt32(std::string& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>(value >> shift & 0xff));
  }
}

// A one-dimensional array in PostgreSQL's binary format (array_recv):
// dimensions, no nulls, the element type, then each element's length and
// bytes. `element` appends element i's bytes.
template <typename Element>
std::string BinaryArray(uint32_t element_type, size_t count,
                        const Element& element) {
  std::string out;
  AppendInt32(out, count > 0 ? 1 : 0);  // dimensions
  AppendInt32(out, 0);                  // no nulls
  AppendInt32(out, element_type);
  if (count == 0) return out;
  AppendInt32(out, static_cast<uint32_t>(count));
  AppendInt32(out, 1);  // lower bound
  for (size_t i = 0; i < count; ++i) element(out, i);
  return out;
}

constexpr uint32_t kByteaOid = 17;
constexpr uint32_t kInt8Oid = 20;

}  // namespace

namespace postgres {

std::string TextArray(absl::Span<const std::string> items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    out += '"';
    for (const char c : items[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += '}';
  return out;
}

std::string EventVersions(absl::Span<const EventRecord> events) {
  return BinaryArray(kInt8Oid, events.size(), [&](std::string& out, size_t i) {
    AppendInt32(out, 8);
    const uint64_t v = static_cast<uint64_t>(events[i].version);
    AppendInt32(out, static_cast<uint32_t>(v >> 32));
    AppendInt32(out, static_cast<uint32_t>(v));
  });
}
std::string EventBytes(absl::Span<const EventRecord> events) {
  return BinaryArray(kByteaOid, events.size(), [&](std::string& out, size_t i) {
    AppendInt32(out, static_cast<uint32_t>(events[i].event.size()));
    out += events[i].event;
  });
}

}  // namespace postgres

absl::Status PostgresStore::PendingWrite::Outcome(int64_t code,
                                                  int64_t stored) const {
  switch (code) {
    case kDone:
      return absl::OkStatus();
    case kNoSession:
      return SessionNotStored(id);
    case kOtherVersion:
      return absl::AbortedError(absl::StrCat("session \"", id,
                                             "\" is at version ", stored,
                                             ", not ", expected_version));
    case kEventsDoNotFollow: {
      absl::Status invalid = CheckNewEvents(id, stored, events);
      if (!invalid.ok()) return invalid;
      break;
    }
    case kIdTaken:
      return absl::AlreadyExistsError(
          absl::StrCat("session \"", id, "\" already exists"));
    case kGameTaken:
      return absl::AlreadyExistsError(
          absl::StrCat("game \"", game_id, "\" is already archived"));
    case kNoGame:
      return GameNotArchived(id);
    case kRatingNotPending:
      return RatingNotPending(id, stored != 0);
    case kSilverMoved:
      return PlayerMoved(player_ids[0], stored, player_games[0]);
    case kRedMoved:
      return PlayerMoved(player_ids[1], stored, player_games[1]);
    case kOtherPlayers:
      return absl::InvalidArgumentError(
          absl::StrCat("game \"", id, "\" was not rated between \"",
                       player_ids[0], "\" and \"", player_ids[1], "\""));
  }
  return absl::InternalError(absl::StrCat("postgres: unexpected result (", code,
                                          ", ", stored, ") of ", statement,
                                          " for \"", id, "\""));
}

// static
absl::StatusOr<std::unique_ptr<PostgresStore::Connection>>
PostgresStore::Connection::Open(const std::string& conninfo,
                                absl::Duration timeout) {
  const std::string seconds =
      absl::StrCat(std::max<int64_t>(1, absl::ToInt64Seconds(timeout)));
  const char* keys[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {conninfo.c_str(), seconds.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  auto connection = std::unique_ptr<Connection>(new Connection(conn));
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    return absl::UnavailableError(absl::StrCat(
        kUnreachable, " (postgres: cannot connect: ",
        conn != nullptr ? OneLine(PQerrorMessage(conn)) : "out of memory",
        ")"));
  }
  // Notices (e.g. "relation already exists, skipping") are not errors.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return connection;
}

absl::StatusOr<PostgresStore::Result> PostgresStore::Connection::Exec(
    const char* sql, std::string_view doing) {
  Result result(PQexec(conn_, sql));
  KHET_RETURN_IF_ERROR(Check(result, doing));
  return result;
}

absl::StatusOr<PostgresStore::Result> PostgresStore::Connection::Run(
    const char* name, std::initializer_list<std::string_view> params,
    std::string_view doing) {
  KHET_RETURN_IF_ERROR(Prepare());
  // Text parameters need a terminating NUL: copy them.
  std::vector<std::string> texts(params.begin(), params.end());
  std::vector<const char*> values;
  for (const std::string& text : texts) values.push_back(text.c_str());
  Result result(PQexecPrepared(conn_, name, static_cast<int>(values.size()),
                               values.data(), /*paramLengths=*/nullptr,
                               /*paramFormats=*/nullptr,
                               /*resultFormat=*/1));
  KHET_RETURN_IF_ERROR(Check(result, doing));
  return result;
}

absl::Status PostgresStore::Connection::Prepare() {
  if (prepared_) return absl::OkStatus();
  for (const StatementText& s : kStatements) {
    Result result(PQprepare(conn_, s.name, s.sql, s.params, nullptr));
    KHET_RETURN_IF_ERROR(Check(result, absl::StrCat("prepare ", s.name)));
  }
  prepared_ = true;
  return absl::OkStatus();
}

bool PostgresStore::Connection::StillOpen() {
  // The error comes first, the end of the stream after it: a few reads.
  for (int read = 0; read < 4 && usable(); ++read) {
    pollfd fd{PQsocket(conn_), POLLIN, 0};
    if (poll(&fd, 1, /*timeout_ms=*/0) <= 0) break;
    if (PQconsumeInput(conn_) == 0) break;
  }
  return usable();
}

absl::Status PostgresStore::Connection::Pipeline(
    absl::Span<PendingWrite* const> writes,
    std::vector<std::pair<int64_t, int64_t>>* outcomes) {
  KHET_RETURN_IF_ERROR(Prepare());
  if (PQenterPipelineMode(conn_) != 1) {
    return absl::InternalError(
        absl::StrCat("postgres: cannot enter pipeline mode: ",
                     OneLine(PQerrorMessage(conn_))));
  }
  absl::Status status;
  bool sent = true;
  for (const PendingWrite* w : writes) {
    sent = sent && PQsendQueryPrepared(
                       conn_, w->statement, static_cast<int>(w->values.size()),
                       w->values.data(), w->lengths.data(), w->formats.data(),
                       /*resultFormat=*/1) == 1;
  }
  sent = sent && PQpipelineSync(conn_) == 1;
  if (!sent) {
    // Nothing is left to read reliably: the connection is not reused.
    broken_ = true;
    return absl::UnavailableError(absl::StrCat(
        "postgres: cannot send the writes: ", OneLine(PQerrorMessage(conn_)),
        " (they may or may not have been committed)"));
  }
  // Each statement's result is followed by a null; the Sync's ends it all.
  outcomes->clear();
  size_t next = 0;
  size_t nulls = 0;
  while (true) {
    Result result(PQgetResult(conn_));
    if (result.get() == nullptr) {
      if (!usable() || ++nulls > writes.size()) break;
      continue;
    }
    const ExecStatusType kind = PQresultStatus(result.get());
    if (kind == PGRES_PIPELINE_SYNC) break;
    const PendingWrite* w = next < writes.size() ? writes[next] : nullptr;
    ++next;
    if (kind == PGRES_PIPELINE_ABORTED) continue;
    if (kind == PGRES_TUPLES_OK && result.rows() == 1 &&
        PQnfields(result.get()) == 2 && !PQgetisnull(result.get(), 0, 0) &&
        !PQgetisnull(result.get(), 0, 1)) {
      outcomes->emplace_back(result.Int(0, 0), result.Int(0, 1));
      continue;
    }
    if (status.ok()) {
      status = Check(result, w != nullptr ? w->doing : "commit");
      if (status.ok()) {
        status = absl::InternalError(
            absl::StrCat("postgres: unexpected result of ",
                         w != nullptr ? w->statement : "a pipeline"));
      }
    }
  }
  if (!usable()) {
    return absl::UnavailableError(
        absl::StrCat("postgres: connection lost while trying to commit: ",
                     OneLine(PQerrorMessage(conn_)),
                     " (the change may or may not have been committed)"));
  }
  if (PQexitPipelineMode(conn_) != 1) {
    broken_ = true;
    if (status.ok()) {
      status = absl::InternalError(
          absl::StrCat("postgres: cannot leave pipeline mode: ",
                       OneLine(PQerrorMessage(conn_))));
    }
  }
  if (status.ok() && outcomes->size() != writes.size()) {
    status = absl::InternalError(absl::StrCat("postgres: ", outcomes->size(),
                                              " results for ", writes.size(),
                                              " writes"));
  }
  return status;
}

absl::Status PostgresStore::Connection::Check(const Result& result,
                                              std::string_view doing) {
  const ExecStatusType status = result.get() != nullptr
                                    ? PQresultStatus(result.get())
                                    : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    return absl::OkStatus();
  }
  if (!usable()) {
    return absl::UnavailableError(
        absl::StrCat("postgres: connection lost while trying to ",
                     std::string(doing), ": ", OneLine(PQerrorMessage(conn_))));
  }
  const char* sqlstate =
      result.get() != nullptr
          ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE)
          : nullptr;
  const std::string state = sqlstate != nullptr ? sqlstate : "";
  const std::string message =
      OneLine(result.get() != nullptr ? PQresultErrorMessage(result.get())
                                      : PQerrorMessage(conn_));
  return absl::Status(
      state.empty() ? absl::StatusCode::kInternal : CodeFor(state),
      absl::StrCat("postgres: ", std::string(doing), ": ", message,
                   " [SQLSTATE ", state, "]"));
}

// static
std::string PostgresStore::Connection::OneLine(const char* message) {
  std::string out;
  bool space = false;
  for (const char* c = message != nullptr ? message : ""; *c != '\0'; ++c) {
    if (*c == ' ' || *c == '\n' || *c == '\t' || *c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(*c);
  }
  return out;
}

}  // namespace khet
