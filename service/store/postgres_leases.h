// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The SQL of PostgresStore's computer-seat leases (SessionStore::TryLease):
// one row per leased session, removed with the session.
#ifndef KHET_SERVICE_STORE_POSTGRES_LEASES_H_
#define KHET_SERVICE_STORE_POSTGRES_LEASES_H_

namespace khet::postgres_leases {

// Migration 3. Expiry times are the callers' clocks, in Unix microseconds.
inline constexpr char kMigration[] = R"sql(
CREATE TABLE khet_leases (
  session_id text PRIMARY KEY REFERENCES khet_sessions (id) ON DELETE CASCADE,
  holder text NOT NULL,
  expires_micros bigint NOT NULL
);
)sql";

// $1 session id, $2 holder, $3 now, $4 now + ttl (microseconds). Returns a
// row if $2 holds the lease afterwards: no row for an unknown session or
// while another holder's lease runs. The row lock of ON CONFLICT lets one
// of two racing callers win.
inline constexpr char kTryLease[] = R"sql(
INSERT INTO khet_leases AS l (session_id, holder, expires_micros)
SELECT s.id, $2::text, $4::bigint FROM khet_sessions s WHERE s.id = $1::text
ON CONFLICT (session_id) DO UPDATE
  SET holder = excluded.holder, expires_micros = excluded.expires_micros
  WHERE l.holder = excluded.holder OR l.expires_micros <= $3::bigint
RETURNING holder
)sql";

}  // namespace khet::postgres_leases

#endif  // KHET_SERVICE_STORE_POSTGRES_LEASES_H_
