#!/bin/sh
# PostgreSQL in the container: the data directory (a volume) is initialised on the first start
# with a password for the superuser "postgres" (POSTGRES_PASSWORD, required) and, when
# POSTGRES_DB names one, an empty database of that name; then the server runs
# in the foreground as PID 1. SIGINT (the image's stop signal) is PostgreSQL's fast shutdown:
# clients are disconnected and a checkpoint written, instead of SIGTERM's wait for every client.
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
: "${PGDATA:=/var/lib/postgresql/data}"
port="${PGPORT:-5432}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U postgres --pwfile="$pwfile" --auth=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    # Single-user mode: no listener yet, so nothing connects before the database exists.
    echo "CREATE DATABASE \"$POSTGRES_DB\"" | postgres --single -D "$PGDATA" postgres >/dev/null
  fi
  # Every address may connect with the password: the compose network is the boundary.
  printf 'host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
fi

exec postgres -D "$PGDATA" -p "$port" -c listen_addresses='*' -c unix_socket_directories=/tmp
