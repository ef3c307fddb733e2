#!/usr/bin/env bash
# Quick start: install into .venv, create a demo organization and API key on first run, and serve
# REST on http://127.0.0.1:8000 and gRPC on 127.0.0.1:50051 from the embedded SQLite database
# ./evidence.db. Extra arguments go to `evidence-server serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/evidence-server ]; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -e .
fi
# Hex: a urlsafe key may begin with "-", which the kosli CLI takes for a flag (--api-token -x...).
if [ ! -f .evidence-demo-key ]; then
  .venv/bin/python -c "import secrets; print(secrets.token_hex(32))" > .evidence-demo-key
fi
KEY=$(cat .evidence-demo-key)
printf '{"organizations":[{"name":"demo","features":["controls"]}],"users":[{"name":"demo","organizations":["demo"],"api_keys":[{"key":"%s","description":"quick start"}]}]}' "$KEY" > .evidence-demo-bootstrap.json
# bootstrap has no default database: give it the one serve will use (--database-url among the
# arguments, else EVIDENCE_DATABASE_URL, else ./evidence.db).
DATABASE_URL=${EVIDENCE_DATABASE_URL:-sqlite:///evidence.db}
previous=""
for arg in "$@"; do
  case "$arg" in --database-url=*) DATABASE_URL=${arg#--database-url=} ;; esac
  if [ "$previous" = "--database-url" ]; then DATABASE_URL=$arg; fi
  previous=$arg
done
.venv/bin/evidence-server bootstrap .evidence-demo-bootstrap.json --database-url "$DATABASE_URL" >/dev/null
echo "organization: demo   API key: $KEY"
echo "try: kosli status --host http://127.0.0.1:8000 && kosli list flows --host http://127.0.0.1:8000 --org demo --api-token $KEY"
exec .venv/bin/evidence-server serve "$@"
