#!/usr/bin/env bash
# The test command: every check CI runs, on a developer machine too.
#
#   scripts/test.sh [pytest arguments]
#
# 1. the official kosli CLI from package.json (npm install)
# 2. a throwaway PostgreSQL (scripts/start_postgres.sh), so both engines are tested
# 3. generated code matches protos/ (scripts/gen_protos.py, then git diff)
# 4. ruff check, lint-imports (the import contracts of docs/architecture.md), mypy (pyproject.toml),
#    buf lint (scripts/buf_lint.sh), buf breaking (scripts/buf_breaking.sh)
# 5. the whole pytest suite (unit, servicer, shim, end-to-end with real processes), one worker
#    per core up to 4 (pytest-xdist)
#
# Python comes from $PYTHON, else an active virtualenv, else ./.venv, else python3 on PATH;
# without the project installed there, ./.venv is created and `pip install -e '.[dev]'` run. As root on Debian, missing PostgreSQL, npm and git are
# installed with apt-get; otherwise they must already be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
step() { printf '\n==> %s\n' "$*"; }

# ---- tools ------------------------------------------------------------------------------------
if [ -z "${PYTHON:-}" ]; then
  if [ -n "${VIRTUAL_ENV:-}" ]; then PYTHON=$VIRTUAL_ENV/bin/python
  elif [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python
  else PYTHON=python3
  fi
fi
# The environment's scripts (ruff, buf, evidence-server) come first on PATH.
BIN=$(dirname "$("$PYTHON" -c 'import sys; print(sys.executable)')")
export PATH="$BIN:$PATH"
if ! "$PYTHON" -c 'import evidence_grpc, pytest, grpc_tools, xdist, importlinter, mypy' 2>/dev/null; then
  if [ "$PYTHON" = python3 ] || [ "$PYTHON" = .venv/bin/python ]; then
    step "install the project and its dev tools into .venv"
    [ -x .venv/bin/python ] || python3 -m venv .venv
    PYTHON=.venv/bin/python
    "$PYTHON" -m pip install --quiet --upgrade pip
    "$PYTHON" -m pip install --quiet -e '.[dev]'
    BIN=$PWD/.venv/bin
    export PATH="$BIN:$PATH"
  else
    echo "$PYTHON lacks the project or its dev tools: run  pip install -e '.[dev]'" >&2; exit 1
  fi
fi

missing=()
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || missing+=(postgresql)
command -v npm >/dev/null || missing+=(nodejs npm)
command -v git >/dev/null || missing+=(git)
# The browser tests of the web pages: Debian's Chromium and its driver.
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    step "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends ca-certificates "${missing[@]}"
  else
    echo "missing: ${missing[*]} (install them, e.g. apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi

step "npm install (kosli CLI)"
npm install --no-audit --no-fund --loglevel=error
node_modules/@kosli/cli-linux-x64/bin/kosli version

step "PostgreSQL"
if [ -z "${EVIDENCE_TEST_POSTGRES_URL:-}" ]; then
  EVIDENCE_TEST_POSTGRES_URL=$(scripts/start_postgres.sh)
fi
export EVIDENCE_TEST_POSTGRES_URL
echo "$EVIDENCE_TEST_POSTGRES_URL"

# ---- static checks ----------------------------------------------------------------------------
step "generated code is up to date (python scripts/gen_protos.py)"
# Regenerating must change nothing in the working tree...
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT
cp -a evidence_grpc/api "$before/"
"$PYTHON" scripts/gen_protos.py
if ! diff -r --no-dereference -x __pycache__ "$before/api" evidence_grpc/api; then
  echo "evidence_grpc/api was stale: it is regenerated now, review and commit it" >&2
  exit 1
fi
# ...and in CI the committed generated code must be complete too (locally, uncommitted but
# consistent work in progress passes the check above).
if [ -n "${CI:-}" ]; then
  untracked=$(git ls-files --others --exclude-standard -- evidence_grpc/api)
  if ! git diff --exit-code --stat -- evidence_grpc/api || [ -n "$untracked" ]; then
    [ -z "$untracked" ] || printf 'untracked generated files:\n%s\n' "$untracked"
    echo "evidence_grpc/api differs from the commit: run python scripts/gen_protos.py and commit" >&2
    exit 1
  fi
fi

step "ruff check"
"$PYTHON" -m ruff check .

step "import contracts (lint-imports: the contexts' layers in pyproject.toml)"
lint-imports --no-cache

step "mypy (types; the domain's views are typed by evidence_grpc/api/v2/views.py)"
"$PYTHON" -m mypy

step "buf lint"
PYTHON=$PYTHON scripts/buf_lint.sh

step "buf breaking (against the baseline in .buf-baseline)"
scripts/buf_breaking.sh

# ---- tests ------------------------------------------------------------------------------------
step "pytest"
status=0
# One worker per core, at most 4 (PYTEST_WORKERS overrides; 0 runs in this process): the
# end-to-end tests mostly wait on server processes, so 2 workers take a third of the serial
# time; more would crowd the throwaway PostgreSQL's 300 connections.
cores=$(nproc 2>/dev/null || echo 2)
# --durations: the slowest tests of every run, where the 12-minute budget goes
"$PYTHON" -m pytest -q -n "${PYTEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}" --durations=25 "$@" || status=$?
if [ "$status" = 5 ]; then
  echo "pytest collected no tests" >&2
fi
echo "total time: $((SECONDS - started)) s"
exit "$status"
