// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The SQL of PostgresStore's push targets (SessionStore::SavePushTarget and
// ClaimPushTargets): which replica delivers a board's pushed events, and
// each replica's heartbeat, so that the boards of a replica that died pass
// to one that lives.
#ifndef KHET_SERVICE_STORE_POSTGRES_PUSH_TARGETS_H_
#define KHET_SERVICE_STORE_POSTGRES_PUSH_TARGETS_H_

namespace khet::postgres_push_targets {

// Migration 10. A target goes with its session; times are the replicas'
// clocks in Unix microseconds.
inline constexpr char kMigration[] = R"sql(
CREATE TABLE khet_push_targets (
  session_id text PRIMARY KEY REFERENCES khet_sessions (id) ON DELETE CASCADE,
  url text NOT NULL,
  address text NOT NULL,
  caller text NOT NULL,
  secret text NOT NULL,
  owner text NOT NULL
);
CREATE INDEX khet_push_targets_owner ON khet_push_targets (owner);
CREATE TABLE khet_replicas (
  id text PRIMARY KEY,
  expires_micros bigint NOT NULL
);
)sql";

// $1 session id, $2 url, $3 address, $4 caller, $5 secret, $6 owner. No
// row for an unknown session.
inline constexpr char kSave[] = R"sql(
INSERT INTO khet_push_targets AS t
  (session_id, url, address, caller, secret, owner)
SELECT s.id, $2::text, $3::text, $4::text, $5::text, $6::text
  FROM khet_sessions s WHERE s.id = $1::text
ON CONFLICT (session_id) DO UPDATE
  SET url = excluded.url, address = excluded.address, caller = excluded.caller,
      secret = excluded.secret, owner = excluded.owner
RETURNING 1
)sql";

// $1 session id, $2 owner: only that owner's target goes.
inline constexpr char kDelete[] = R"sql(
DELETE FROM khet_push_targets WHERE session_id = $1::text AND owner = $2::text
)sql";

// $1 session id.
inline constexpr char kGet[] = R"sql(
SELECT url, address, caller, secret, owner FROM khet_push_targets
 WHERE session_id = $1::text
)sql";

// $1 owner: the sessions it delivers, and their number.
inline constexpr char kOwned[] = R"sql(
SELECT session_id FROM khet_push_targets WHERE owner = $1::text
)sql";
inline constexpr char kCountOwned[] = R"sql(
SELECT count(*) FROM khet_push_targets WHERE owner = $1::text
)sql";

// $1 owner, $2 now, $3 the owner's heartbeat's new end, $4 at most this
// many targets. Renews $1's heartbeat, forgets replicas silent for an hour,
// and hands $1 the targets of owners whose heartbeat ended at or before
// $2 (or who have none); SKIP LOCKED lets two claimants share them out.
// Data-modifying WITH queries run whatever the main query reads.
inline constexpr char kClaim[] = R"sql(
WITH beat AS (
  INSERT INTO khet_replicas (id, expires_micros) VALUES ($1::text, $3::bigint)
  ON CONFLICT (id) DO UPDATE SET expires_micros = excluded.expires_micros
), forgotten AS (
  DELETE FROM khet_replicas
   WHERE id <> $1::text AND expires_micros < $2::bigint - 3600000000
), orphans AS (
  SELECT t.session_id FROM khet_push_targets t
    LEFT JOIN khet_replicas r ON r.id = t.owner
   WHERE t.owner <> $1::text
     AND (r.id IS NULL OR r.expires_micros <= $2::bigint)
   LIMIT $4::int
   FOR UPDATE OF t SKIP LOCKED
)
UPDATE khet_push_targets t SET owner = $1::text
  FROM orphans o WHERE t.session_id = o.session_id
RETURNING t.session_id, t.url, t.address, t.caller, t.secret
)sql";

}  // namespace khet::postgres_push_targets

#endif  // KHET_SERVICE_STORE_POSTGRES_PUSH_TARGETS_H_
