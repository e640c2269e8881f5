// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The SQL of PostgresStore's sessions and their event logs (migrations 1,
// 2, 8 and 9), and the result codes of the store's write functions.
#ifndef KHET_SERVICE_STORE_POSTGRES_SESSIONS_H_
#define KHET_SERVICE_STORE_POSTGRES_SESSIONS_H_

#include <cstdint>

namespace khet::postgres_sessions {

// Migration 1: sessions and their event logs.
inline constexpr char kMigrationTables[] =
    R"sql(
CREATE TABLE khet_sessions (
  id text PRIMARY KEY,
  version bigint NOT NULL,
  state bytea NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE TABLE khet_events (
  session_id text NOT NULL,
  version bigint NOT NULL,
  event bytea NOT NULL,
  PRIMARY KEY (session_id, version)
);
)sql";

// Migration 2: each write is one statement, a call of one of these
// functions. Each returns (code, stored): 0 done; 1 no such session; 2 the
// session is at version `stored`, not the expected one; 3 the first new
// event does not follow the log's last version, `stored`; 4 the id is
// taken. They change nothing unless the code is 0, and then notify the
// channel (PostgresStore::kChannel) of the change, delivered at commit.
inline constexpr char kMigrationFunctions[] =
    R"sql(
CREATE FUNCTION khet_create(p_id text, p_version bigint, p_state bytea,
                            p_event_versions bigint[], p_events bytea[],
                            OUT code bigint, OUT stored bigint)
LANGUAGE plpgsql AS $$
BEGIN
  stored := 0;
  INSERT INTO khet_sessions (id, version, state, updated_at)
  VALUES (p_id, p_version, p_state, now()) ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN
    code := 4;
    RETURN;
  END IF;
  -- A deleted session's events went with it, so the log is empty.
  INSERT INTO khet_events (session_id, version, event)
  SELECT p_id, u.v, u.e FROM unnest(p_event_versions, p_events) AS u(v, e);
  PERFORM pg_notify('khet_session_changes', p_version || ' ' || p_id);
  code := 0;
  stored := p_version;
END
$$;

CREATE FUNCTION khet_update(p_id text, p_expected bigint, p_version bigint,
                            p_state bytea, p_event_versions bigint[],
                            p_events bytea[],
                            OUT code bigint, OUT stored bigint)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.version INTO stored FROM khet_sessions s WHERE s.id = p_id
  FOR UPDATE;
  IF NOT FOUND THEN
    code := 1;
    stored := 0;
    RETURN;
  END IF;
  IF stored <> p_expected THEN
    code := 2;
    RETURN;
  END IF;
  IF cardinality(p_event_versions) > 0 THEN
    SELECT coalesce(max(e.version), 0) INTO stored FROM khet_events e
    WHERE e.session_id = p_id;
    IF p_event_versions[1] <= stored THEN
      code := 3;
      RETURN;
    END IF;
  END IF;
  UPDATE khet_sessions SET version = p_version, state = p_state,
                           updated_at = now()
  WHERE id = p_id;
  INSERT INTO khet_events (session_id, version, event)
  SELECT p_id, u.v, u.e FROM unnest(p_event_versions, p_events) AS u(v, e);
  PERFORM pg_notify('khet_session_changes', p_version || ' ' || p_id);
  code := 0;
  stored := p_version;
END
$$;

CREATE FUNCTION khet_delete(p_id text, OUT code bigint, OUT stored bigint)
LANGUAGE plpgsql AS $$
BEGIN
  stored := 0;
  DELETE FROM khet_sessions WHERE id = p_id;
  IF NOT FOUND THEN
    code := 1;
    RETURN;
  END IF;
  DELETE FROM khet_events WHERE session_id = p_id;
  PERFORM pg_notify('khet_session_changes', 'deleted ' || p_id);
  code := 0;
END
$$;
)sql";

// Migration 8: a session's row keeps its log's last version (`last_event`),
// and khet_update checks the expected version and that version in its
// UPDATE's condition, rather than locking the row, reading the log's last
// version and then updating: one statement where there were three. Only a
// write that changes nothing reads the row again, to say why. The codes
// are migration 2's.
inline constexpr char kMigrationLastEvent[] =
    R"sql(
ALTER TABLE khet_sessions ADD COLUMN last_event bigint NOT NULL DEFAULT 0;
UPDATE khet_sessions s SET last_event = coalesce(
  (SELECT max(e.version) FROM khet_events e WHERE e.session_id = s.id), 0);
CREATE OR REPLACE FUNCTION khet_create(
    p_id text, p_version bigint, p_state bytea, p_event_versions bigint[],
    p_events bytea[], OUT code bigint, OUT stored bigint)
LANGUAGE plpgsql AS $$
BEGIN
  stored := 0;
  INSERT INTO khet_sessions (id, version, state, updated_at, last_event)
  VALUES (p_id, p_version, p_state, now(),
          coalesce(p_event_versions[cardinality(p_event_versions)], 0))
  ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN
    code := 4;
    RETURN;
  END IF;
  -- A deleted session's events went with it, so the log is empty.
  INSERT INTO khet_events (session_id, version, event)
  SELECT p_id, u.v, u.e FROM unnest(p_event_versions, p_events) AS u(v, e);
  PERFORM pg_notify('khet_session_changes', p_version || ' ' || p_id);
  code := 0;
  stored := p_version;
END
$$;
CREATE OR REPLACE FUNCTION khet_update(
    p_id text, p_expected bigint, p_version bigint, p_state bytea,
    p_event_versions bigint[], p_events bytea[], OUT code bigint,
    OUT stored bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_last bigint;
BEGIN
  UPDATE khet_sessions s
  SET version = p_version, state = p_state, updated_at = now(),
      last_event = coalesce(p_event_versions[cardinality(p_event_versions)],
                            s.last_event)
  WHERE s.id = p_id AND s.version = p_expected
    AND coalesce(p_event_versions[1] > s.last_event, true);
  IF NOT FOUND THEN
    SELECT s.version, s.last_event INTO stored, v_last FROM khet_sessions s
    WHERE s.id = p_id;
    IF NOT FOUND THEN
      code := 1;
      stored := 0;
    ELSIF stored <> p_expected THEN
      code := 2;
    ELSE
      code := 3;
      stored := v_last;
    END IF;
    RETURN;
  END IF;
  INSERT INTO khet_events (session_id, version, event)
  SELECT p_id, u.v, u.e FROM unnest(p_event_versions, p_events) AS u(v, e);
  PERFORM pg_notify('khet_session_changes', p_version || ' ' || p_id);
  code := 0;
  stored := p_version;
END
$$;
)sql";

// Migration 9: a session deleted only at the version its deleter read
// (SessionStore::DeleteAt), so that a replica removing a session nobody
// claimed never removes one that another replica has just changed. The
// codes are migration 2's.
inline constexpr char kMigrationDeleteAt[] =
    R"sql(
CREATE FUNCTION khet_delete_at(p_id text, p_expected bigint,
                               OUT code bigint, OUT stored bigint)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.version INTO stored FROM khet_sessions s WHERE s.id = p_id
  FOR UPDATE;
  IF NOT FOUND THEN
    code := 1;
    stored := 0;
    RETURN;
  END IF;
  IF stored <> p_expected THEN
    code := 2;
    RETURN;
  END IF;
  SELECT d.code, d.stored INTO code, stored FROM khet_delete(p_id) d;
END
$$;
)sql";

// The result codes of the write functions: migration 2's and later ones'.
enum WriteCode : int64_t {
  kDone = 0,
  kNoSession = 1,
  kOtherVersion = 2,
  kEventsDoNotFollow = 3,
  kIdTaken = 4,
  kGameTaken = 5,  // khet_update_archiving's (migration 4)
  kNoGame = 6,     // khet_set_analysis's (migration 5)
  // khet_apply_rating's (migration 6):
  kRatingNotPending = 7,
  kSilverMoved = 8,
  kRedMoved = 9,
  kOtherPlayers = 10,
};

}  // namespace khet::postgres_sessions

#endif  // KHET_SERVICE_STORE_POSTGRES_SESSIONS_H_
