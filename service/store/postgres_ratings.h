// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The SQL of PostgresStore's ratings (rated games in the archive, the
// players' table, GetPlayer, ListPlayers, PendingRatedGames, ApplyRating).
#ifndef KHET_SERVICE_STORE_POSTGRES_RATINGS_H_
#define KHET_SERVICE_STORE_POSTGRES_RATINGS_H_

namespace khet::postgres_ratings {

// Migration 6. khet_update_archiving_rated is khet_update_archiving that
// also records the rated players' ids. khet_apply_rating answers code 0;
// 6 if there is no such game; 7 if it is not rated (stored 0) or applied
// already (stored 1); 8 / 9 if Silver's / Red's stored games (in `stored`)
// are not one below the given; 10 if the game's players are others. It
// serialises ratings of the same player with transaction-scoped advisory
// locks, taken in a fixed order.
inline constexpr char kMigration[] = R"sql(
ALTER TABLE khet_games ADD COLUMN silver_id text NOT NULL DEFAULT '';
ALTER TABLE khet_games ADD COLUMN red_id text NOT NULL DEFAULT '';
ALTER TABLE khet_games ADD COLUMN rating_applied boolean NOT NULL DEFAULT false;
CREATE INDEX khet_games_rating_pending ON khet_games (sequence)
  WHERE silver_id <> '' AND NOT rating_applied;

CREATE TABLE khet_players (
  id text PRIMARY KEY,
  name text NOT NULL,
  rating float8 NOT NULL,
  deviation float8 NOT NULL,
  volatility float8 NOT NULL,
  games bigint NOT NULL,
  wins bigint NOT NULL,
  draws bigint NOT NULL,
  losses bigint NOT NULL,
  updated_micros bigint NOT NULL
);
CREATE INDEX khet_players_by_rating ON khet_players (rating DESC, id);

CREATE FUNCTION khet_update_archiving_rated(
    p_id text, p_expected bigint, p_version bigint, p_state bytea,
    p_event_versions bigint[], p_events bytea[], p_game_id text,
    p_record text, p_silver text, p_red text, p_setup_id text,
    p_result text, p_ending text, p_started bigint, p_ended bigint,
    p_plies bigint, p_silver_id text, p_red_id text,
    OUT code bigint, OUT stored bigint)
LANGUAGE plpgsql AS $$
BEGIN
  SELECT a.code, a.stored INTO code, stored
  FROM khet_update_archiving(p_id, p_expected, p_version, p_state,
                             p_event_versions, p_events, p_game_id, p_record,
                             p_silver, p_red, p_setup_id, p_result, p_ending,
                             p_started, p_ended, p_plies) a;
  IF code = 0 THEN
    UPDATE khet_games SET silver_id = p_silver_id, red_id = p_red_id
    WHERE id = p_game_id;
  END IF;
END
$$;

CREATE FUNCTION khet_apply_rating(
    p_game_id text, p_updated bigint,
    p_silver_id text, p_silver_name text, p_silver_rating float8,
    p_silver_deviation float8, p_silver_volatility float8,
    p_silver_games bigint, p_silver_wins bigint, p_silver_draws bigint,
    p_silver_losses bigint,
    p_red_id text, p_red_name text, p_red_rating float8,
    p_red_deviation float8, p_red_volatility float8, p_red_games bigint,
    p_red_wins bigint, p_red_draws bigint, p_red_losses bigint,
    OUT code bigint, OUT stored bigint)
LANGUAGE plpgsql AS $$
DECLARE
  g khet_games%ROWTYPE;
  have bigint;
BEGIN
  stored := 0;
  PERFORM pg_advisory_xact_lock(hashtext(least(p_silver_id, p_red_id)));
  PERFORM pg_advisory_xact_lock(hashtext(greatest(p_silver_id, p_red_id)));
  SELECT * INTO g FROM khet_games WHERE id = p_game_id FOR UPDATE;
  IF NOT FOUND THEN
    code := 6;
    RETURN;
  END IF;
  IF g.silver_id = '' OR g.rating_applied THEN
    code := 7;
    stored := CASE WHEN g.rating_applied THEN 1 ELSE 0 END;
    RETURN;
  END IF;
  IF g.silver_id <> p_silver_id OR g.red_id <> p_red_id THEN
    code := 10;
    RETURN;
  END IF;
  SELECT coalesce(max(games), 0) INTO have FROM khet_players
  WHERE id = p_silver_id;
  IF have <> p_silver_games - 1 THEN
    code := 8;
    stored := have;
    RETURN;
  END IF;
  SELECT coalesce(max(games), 0) INTO have FROM khet_players
  WHERE id = p_red_id;
  IF have <> p_red_games - 1 THEN
    code := 9;
    stored := have;
    RETURN;
  END IF;
  INSERT INTO khet_players AS p (id, name, rating, deviation, volatility,
                                 games, wins, draws, losses, updated_micros)
  VALUES (p_silver_id, p_silver_name, p_silver_rating, p_silver_deviation,
          p_silver_volatility, p_silver_games, p_silver_wins, p_silver_draws,
          p_silver_losses, p_updated),
         (p_red_id, p_red_name, p_red_rating, p_red_deviation,
          p_red_volatility, p_red_games, p_red_wins, p_red_draws,
          p_red_losses, p_updated)
  ON CONFLICT (id) DO UPDATE SET
    name = excluded.name, rating = excluded.rating,
    deviation = excluded.deviation, volatility = excluded.volatility,
    games = excluded.games, wins = excluded.wins, draws = excluded.draws,
    losses = excluded.losses, updated_micros = excluded.updated_micros;
  UPDATE khet_games SET rating_applied = true WHERE id = p_game_id;
  code := 0;
END
$$;
)sql";

inline constexpr char kUpdateArchivingRated[] =
    "SELECT code, stored FROM khet_update_archiving_rated($1::text, "
    "$2::bigint, $3::bigint, $4::bytea, $5::bigint[], $6::bytea[], $7::text, "
    "$8::text, $9::text, $10::text, $11::text, $12::text, $13::text, "
    "$14::bigint, $15::bigint, $16::bigint, $17::text, $18::text)";

inline constexpr char kApplyRating[] =
    "SELECT code, stored FROM khet_apply_rating($1::text, $2::bigint, "
    "$3::text, $4::text, $5::float8, $6::float8, $7::float8, $8::bigint, "
    "$9::bigint, $10::bigint, $11::bigint, $12::text, $13::text, "
    "$14::float8, $15::float8, $16::float8, $17::bigint, $18::bigint, "
    "$19::bigint, $20::bigint)";

// Floats as text (exact: PostgreSQL prints the shortest exact form).
#define KHET_POSTGRES_PLAYER_COLUMNS                                   \
  "id, name, rating::text, deviation::text, volatility::text, games, " \
  "wins, draws, losses, updated_micros"

// $1 player id.
inline constexpr char kGetPlayer[] =
    "SELECT " KHET_POSTGRES_PLAYER_COLUMNS " FROM khet_players WHERE id = $1";

// $1 at most this many, $2 skipping this many.
inline constexpr char kListPlayers[] =
    "SELECT " KHET_POSTGRES_PLAYER_COLUMNS
    " FROM khet_players ORDER BY rating DESC, id LIMIT $1::bigint "
    "OFFSET $2::bigint";

#undef KHET_POSTGRES_PLAYER_COLUMNS

}  // namespace khet::postgres_ratings

#endif  // KHET_SERVICE_STORE_POSTGRES_RATINGS_H_
