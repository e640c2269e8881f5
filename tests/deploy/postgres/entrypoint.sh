#!/bin/sh
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# Test only (tests/deploy/postgres/Dockerfile). Starts as root: on the first
# start (no PG_VERSION in $PGDATA) makes the cluster, its superuser
# $POSTGRES_USER with the password $POSTGRES_PASSWORD and the database
# $POSTGRES_DB (default: the user's name); then runs the command as the
# postgres user.
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password_file=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
  chown postgres "$password_file"
  as_postgres initdb --username="$POSTGRES_USER" --pwfile="$password_file" \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$password_file"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\";" |
      as_postgres postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups "$@"
