#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster on 127.0.0.1 for the test suites and print its URL.
# Needs Debian's postgresql package (installed by .ci/run). Safe to run again: reuses the cluster.
set -euo pipefail
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$PGBIN" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
DATA=${EVIDENCE_PG_DATA:-/tmp/evidence-pg}
PORT=${EVIDENCE_PG_PORT:-55432}
run_as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then useradd --system postgres; fi
if [ ! -f "$DATA/PG_VERSION" ]; then
  mkdir -p "$DATA"
  [ "$(id -u)" = 0 ] && chown postgres "$DATA"
  run_as_postgres "$PGBIN/initdb" -D "$DATA" -A trust -U postgres >/dev/null
fi
if ! run_as_postgres "$PGBIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  run_as_postgres "$PGBIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w \
    -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off" start >/dev/null
fi
echo "postgresql://postgres@127.0.0.1:$PORT/postgres"
