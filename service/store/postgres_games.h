// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The SQL of PostgresStore's archive of games (SessionStore::Update with an
// archived game, GetGame, ListGames, SetGameAnalysis): one row per game,
// removed with its session.
#ifndef KHET_SERVICE_STORE_POSTGRES_GAMES_H_
#define KHET_SERVICE_STORE_POSTGRES_GAMES_H_

namespace khet::postgres_games {

// Migration 4. Times in Unix microseconds. khet_update_archiving is
// khet_update (migration 2) that also archives a game when the update is
// done (code 0), or answers code 5 with nothing changed if the game's id
// is taken. Migration 7 replaces it.
inline constexpr char kMigration[] = R"sql(
CREATE TABLE khet_games (
  sequence bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  session_id text NOT NULL REFERENCES khet_sessions (id) ON DELETE CASCADE,
  record text NOT NULL,
  silver text NOT NULL,
  red text NOT NULL,
  setup_id text NOT NULL,
  result text NOT NULL,
  ending text NOT NULL,
  started_micros bigint NOT NULL,
  ended_micros bigint NOT NULL,
  plies bigint NOT NULL
);
CREATE INDEX khet_games_by_session ON khet_games (session_id, sequence);

CREATE FUNCTION khet_update_archiving(
    p_id text, p_expected bigint, p_version bigint, p_state bytea,
    p_event_versions bigint[], p_events bytea[], p_game_id text,
    p_record text, p_silver text, p_red text, p_setup_id text,
    p_result text, p_ending text, p_started bigint, p_ended bigint,
    p_plies bigint, OUT code bigint, OUT stored bigint)
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM khet_games g WHERE g.id = p_game_id) THEN
    code := 5;
    stored := 0;
    RETURN;
  END IF;
  SELECT u.code, u.stored INTO code, stored
  FROM khet_update(p_id, p_expected, p_version, p_state, p_event_versions,
                   p_events) u;
  IF code = 0 THEN
    INSERT INTO khet_games (id, session_id, record, silver, red, setup_id,
                            result, ending, started_micros, ended_micros,
                            plies)
    VALUES (p_game_id, p_id, p_record, p_silver, p_red, p_setup_id, p_result,
            p_ending, p_started, p_ended, p_plies);
  END IF;
END
$$;
)sql";

// Migration 7: khet_update_archiving answers as khet_update does (codes 1
// and 2) before it looks at the game's id, so that a writer whose copy is
// behind hears that it is behind, not that the game it would archive
// (archived meanwhile by the writer ahead of it) is taken. The session's
// row is locked first, as khet_update locks it.
inline constexpr char kMigrationVersionFirst[] = R"sql(
CREATE OR REPLACE FUNCTION khet_update_archiving(
    p_id text, p_expected bigint, p_version bigint, p_state bytea,
    p_event_versions bigint[], p_events bytea[], p_game_id text,
    p_record text, p_silver text, p_red text, p_setup_id text,
    p_result text, p_ending text, p_started bigint, p_ended bigint,
    p_plies bigint, OUT code bigint, OUT stored bigint)
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
  IF EXISTS (SELECT 1 FROM khet_games g WHERE g.id = p_game_id) THEN
    code := 5;
    stored := 0;
    RETURN;
  END IF;
  SELECT u.code, u.stored INTO code, stored
  FROM khet_update(p_id, p_expected, p_version, p_state, p_event_versions,
                   p_events) u;
  IF code = 0 THEN
    INSERT INTO khet_games (id, session_id, record, silver, red, setup_id,
                            result, ending, started_micros, ended_micros,
                            plies)
    VALUES (p_game_id, p_id, p_record, p_silver, p_red, p_setup_id, p_result,
            p_ending, p_started, p_ended, p_plies);
  END IF;
END
$$;
)sql";

inline constexpr char kUpdateArchiving[] =
    "SELECT code, stored FROM khet_update_archiving($1::text, $2::bigint, "
    "$3::bigint, $4::bytea, $5::bigint[], $6::bytea[], $7::text, $8::text, "
    "$9::text, $10::text, $11::text, $12::text, $13::text, $14::bigint, "
    "$15::bigint, $16::bigint)";

// Migration 5: the computer's analysis of an archived game.
// khet_set_analysis answers code 0, or 6 with nothing changed if there is
// no such game.
inline constexpr char kMigrationAnalysis[] = R"sql(
ALTER TABLE khet_games ADD COLUMN analysis bytea NOT NULL DEFAULT ''::bytea;

CREATE FUNCTION khet_set_analysis(p_game_id text, p_analysis bytea,
                                  OUT code bigint, OUT stored bigint)
LANGUAGE plpgsql AS $$
BEGIN
  stored := 0;
  UPDATE khet_games SET analysis = p_analysis WHERE id = p_game_id;
  code := CASE WHEN FOUND THEN 0 ELSE 6 END;
END
$$;
)sql";

inline constexpr char kSetAnalysis[] =
    "SELECT code, stored FROM khet_set_analysis($1::text, $2::bytea)";

#define KHET_POSTGRES_GAME_COLUMNS                                     \
  "sequence, id, session_id, record, silver, red, setup_id, result, "  \
  "ending, started_micros, ended_micros, plies, analysis, silver_id, " \
  "red_id, rating_applied"

// $1 game id.
inline constexpr char kGetGame[] =
    "SELECT " KHET_POSTGRES_GAME_COLUMNS " FROM khet_games WHERE id = $1";

// $1 session id, $2 player, $3 setup id, $4 result (each '' for any), $5
// before this sequence (0: from the newest), $6 at most this many.
inline constexpr char kListGames[] =
    "SELECT " KHET_POSTGRES_GAME_COLUMNS
    " FROM khet_games WHERE ($1::text = '' OR session_id = $1::text) AND "
    "($2::text = '' OR silver = $2::text OR red = $2::text) AND "
    "($3::text = '' OR setup_id = $3::text) AND "
    "($4::text = '' OR result = $4::text) AND "
    "($5::bigint <= 0 OR sequence < $5::bigint) "
    "ORDER BY sequence DESC LIMIT $6::bigint";

// Rated games whose ratings are not applied yet, oldest first; $1 at most
// this many.
inline constexpr char kPendingRatedGames[] =
    "SELECT " KHET_POSTGRES_GAME_COLUMNS
    " FROM khet_games WHERE silver_id <> '' AND NOT rating_applied "
    "ORDER BY sequence LIMIT $1::bigint";

#undef KHET_POSTGRES_GAME_COLUMNS

}  // namespace khet::postgres_games

#endif  // KHET_SERVICE_STORE_POSTGRES_GAMES_H_
