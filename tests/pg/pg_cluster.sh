#!/usr/bin/env bash
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# A throwaway PostgreSQL cluster for tests, on 127.0.0.1 and a free port.
#
#   pg_cluster.sh start STATE_DIR   initdb + pg_ctl start; writes
#                                   STATE_DIR/conninfo (a libpq conninfo
#                                   naming the cluster's "postgres" database)
#   pg_cluster.sh stop STATE_DIR    stops the cluster and removes its files
#   pg_cluster.sh stop-server STATE_DIR
#                                   stops the server (pg_ctl stop -m fast:
#                                   sessions ended, a clean shutdown) and
#                                   keeps its files
#   pg_cluster.sh start-server STATE_DIR
#                                   starts a stopped server again, on the
#                                   same port (the fault tests' outages)
#
# The cluster's files live in a fresh directory under /tmp (named in
# STATE_DIR/data_dir). As root, the cluster runs as Debian's `postgres`
# user, since PostgreSQL refuses to run as root; otherwise as the caller.
# fsync stays on: the tests check durability. Trust authentication, and
# listening on the loopback address only.
set -euo pipefail

command_name=${1:-}
state_dir=${2:-}
if [[ -z $command_name || -z $state_dir ]]; then
  echo "usage: $0 start|stop|stop-server|start-server STATE_DIR" >&2
  exit 2
fi

bin_dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [[ -z $bin_dir || ! -x $bin_dir/initdb ]]; then
  echo "pg_cluster: no PostgreSQL server under /usr/lib/postgresql (scripts/setup.sh installs it)" >&2
  exit 1
fi

as_owner() {
  if [[ $(id -u) == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

stop_cluster() {
  [[ -f $state_dir/data_dir ]] || return 0
  local root
  root=$(cat "$state_dir/data_dir")
  if [[ -f $root/data/postmaster.pid ]]; then
    as_owner "$bin_dir/pg_ctl" -D "$root/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$root"
  rm -f "$state_dir/data_dir" "$state_dir/conninfo"
}

# pg_ctl start on `port`, with the cluster's settings.
start_server() {
  local root=$1 port=$2
  as_owner "$bin_dir/pg_ctl" -D "$root/data" -l "$root/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$root -c fsync=on -c max_connections=200" \
    start >/dev/null
}

# The cluster's root and port, from STATE_DIR.
read_state() {
  [[ -f $state_dir/data_dir && -f $state_dir/conninfo ]] || {
    echo "pg_cluster: no cluster in $state_dir" >&2
    exit 1
  }
  root=$(cat "$state_dir/data_dir")
  port=$(sed -n 's/.*port=\([0-9]*\).*/\1/p' "$state_dir/conninfo")
}

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

case $command_name in
  start)
    mkdir -p "$state_dir"
    stop_cluster  # a cluster left over by an interrupted run
    root=$(mktemp -d /tmp/khet-pg-XXXXXX)
    echo "$root" >"$state_dir/data_dir"
    chmod 755 "$root"
    [[ $(id -u) == 0 ]] && chown postgres: "$root"
    as_owner "$bin_dir/initdb" -D "$root/data" --auth=trust --username=postgres \
      --encoding=UTF8 --locale=C.UTF-8 >"$root/initdb.log" 2>&1 || {
      cat "$root/initdb.log" >&2
      exit 1
    }
    for attempt in 1 2 3; do
      port=$(free_port)
      if start_server "$root" "$port"; then
        echo "host=127.0.0.1 port=$port user=postgres dbname=postgres" >"$state_dir/conninfo"
        echo "pg_cluster: PostgreSQL ($bin_dir) on 127.0.0.1:$port, files in $root"
        exit 0
      fi
      echo "pg_cluster: start on port $port failed (attempt $attempt):" >&2
      tail -n 5 "$root/server.log" >&2 || true
    done
    stop_cluster
    exit 1
    ;;
  stop)
    stop_cluster
    echo "pg_cluster: stopped"
    ;;
  stop-server)
    read_state
    as_owner "$bin_dir/pg_ctl" -D "$root/data" -m fast -w -t 60 stop >/dev/null
    echo "pg_cluster: server on port $port stopped, files kept in $root"
    ;;
  start-server)
    read_state
    start_server "$root" "$port" || {
      tail -n 5 "$root/server.log" >&2 || true
      exit 1
    }
    echo "pg_cluster: server on port $port started again"
    ;;
  *)
    echo "usage: $0 start|stop|stop-server|start-server STATE_DIR" >&2
    exit 2
    ;;
esac
