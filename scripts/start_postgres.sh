#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster on 127.0.0.1 for the test suites and print its URL.
# Needs Debian's postgresql package (installed by .ci/run). Safe to run again: reuses the cluster.
# The cluster collates with ICU's en-US, not "C", so the suites catch queries that assume
# byte order (a fresh Debian has no en_US libc locale; ICU needs none). The default data
# directory is new for that reason; a reused cluster of another collation gets a warning.
set -euo pipefail
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$PGBIN" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
DATA=${EVIDENCE_PG_DATA:-/tmp/evidence-pg-icu}
PORT=${EVIDENCE_PG_PORT:-55432}
run_as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then useradd --system postgres; fi
if [ ! -f "$DATA/PG_VERSION" ]; then
  mkdir -p "$DATA"
  [ "$(id -u)" = 0 ] && chown postgres "$DATA"
  run_as_postgres "$PGBIN/initdb" -D "$DATA" -A trust -U postgres \
    --locale-provider=icu --icu-locale=en-US --locale=C.UTF-8 >/dev/null
fi
if ! run_as_postgres "$PGBIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  run_as_postgres "$PGBIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w \
    -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off" start >/dev/null
fi
PROVIDER=$("$PGBIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -Atc \
  "SELECT datlocprovider FROM pg_database WHERE datname = 'template1'")
[ "$PROVIDER" = i ] || echo "warning: $DATA collates without ICU; remove it to test under en-US" >&2
echo "postgresql://postgres@127.0.0.1:$PORT/postgres"
