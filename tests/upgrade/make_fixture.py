"""Make the upgrade fixture of a release: its evidence (tests/upgrade/scenario.py) written by the
release's own code, taken from git, on the database of the fixture before it, saved as a SQLite
file and a PostgreSQL dump together with what that release answered to every read.

    python -m tests.upgrade.make_fixture RELEASE COMMIT

RELEASE names the fixture (a key of scenario.WRITERS, e.g. 2026-11-28), COMMIT is that release's
commit. It runs `git archive COMMIT` with this checkout's Python environment (a release's
dependencies are a subset of later ones), the kosli CLI of node_modules, and the PostgreSQL of
EVIDENCE_TEST_POSTGRES_URL (scripts/start_postgres.sh). A new schema change adds its release to
scenario.WRITERS and a fixture made with this command, before it lands."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator

import psycopg2
import requests

from tests.upgrade.scenario import BOOTSTRAP, ORG, PUBLIC_URL, WRITERS, Cli, dump, reads

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(__file__).with_name("fixtures")
KOSLI = ROOT / "node_modules" / "@kosli" / "cli-linux-x64" / "bin" / "kosli"
# The CLI names a reported file by its absolute path: one fixed place, so that the running
# artifacts of every release's evidence have the same names.
FILES = pathlib.Path("/tmp/evidence-upgrade-fixture")


def _pg_bin(name: str) -> str:
    found = sorted(pathlib.Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if not found:
        raise SystemExit(f"{name} not found: apt-get install postgresql")
    return str(found[-1])


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(code: pathlib.Path, database_url: str, log: pathlib.Path, key: pathlib.Path
            ) -> Iterator[str]:
    """`evidence-server serve` of the release checked out at `code`: its HTTP base URL."""
    # the transparency log's key (releases from 2026-11-28c): the fixture's, created by the
    # first server that needs it, so that both engines' logs are signed alike
    env = {**os.environ, "PYTHONPATH": str(code), "EVIDENCE_LOG_KEY_FILE": str(key)}
    cli = [sys.executable, "-m", "evidence_grpc.cli"]
    boot = log.with_name("bootstrap.json")
    boot.write_text(json.dumps(BOOTSTRAP))
    subprocess.run([*cli, "bootstrap", str(boot), "--database-url", database_url], cwd=code,
                   env=env, check=True, capture_output=True, timeout=120)
    http, grpc = free_port(), free_port()
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [*cli, "serve", "--http-addr", f"127.0.0.1:{http}", "--grpc-addr", f"127.0.0.1:{grpc}",
             "--database-url", database_url, "--public-url", PUBLIC_URL],
            cwd=code, env=env, stdout=out, stderr=subprocess.STDOUT)
    host = f"http://127.0.0.1:{http}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the release did not start:\n{log.read_text()}")
            with contextlib.suppress(requests.RequestException):
                requests.get(f"{host}/api/v2/flows/{ORG}", timeout=1)
                break
            time.sleep(0.3)
        yield host
    finally:
        process.terminate()
        process.wait(30)


@contextlib.contextmanager
def postgres_copy(admin_url: str, dump_file: pathlib.Path | None) -> Iterator[str]:
    """A new PostgreSQL database restored from `dump_file` (or empty), dropped afterwards."""
    name = f"evidence_fixture_{uuid.uuid4().hex[:12]}"
    admin = psycopg2.connect(admin_url)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    url = admin_url.rsplit("/", 1)[0] + f"/{name}"
    try:
        if dump_file is not None:
            subprocess.run([_pg_bin("psql"), "-q", "-v", "ON_ERROR_STOP=1", "-d", url,
                            "-f", str(dump_file)], check=True, capture_output=True)
        yield url
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def write(release: str, code: pathlib.Path, database_url: str, work: pathlib.Path) -> dict:
    """The release's evidence written and read back by the release at `code`."""
    work.mkdir(parents=True, exist_ok=True)
    with serving(code, database_url, work / "server.log", FIXTURES / release / "log.key") as host:
        shutil.rmtree(FILES, ignore_errors=True)
        cli = Cli(str(KOSLI), host, FILES)
        WRITERS[release](cli)
        return reads(cli, release)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", choices=sorted(WRITERS))
    parser.add_argument("commit")
    args = parser.parse_args()
    releases = list(WRITERS)
    before = releases[releases.index(args.release) - 1] if releases.index(args.release) else None
    out = FIXTURES / args.release
    out.mkdir(parents=True, exist_ok=True)
    if before and (FIXTURES / before / "log.key").exists() and not (out / "log.key").exists():
        # an install keeps its log's key across upgrades
        shutil.copy(FIXTURES / before / "log.key", out / "log.key")
    # what a run before kept beside the key is of logs this one writes anew
    (out / "log.key.checkpoints").unlink(missing_ok=True)
    postgres = os.environ.get("EVIDENCE_TEST_POSTGRES_URL")
    if not postgres:
        raise SystemExit("set EVIDENCE_TEST_POSTGRES_URL (scripts/start_postgres.sh prints one)")
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        code = work / "release"
        code.mkdir()
        archive = subprocess.run(["git", "archive", args.commit], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(code)], input=archive, check=True)

        database = work / "evidence.db"
        if before:
            shutil.copy(FIXTURES / before / "sqlite.db", database)
        answers = write(args.release, code, f"sqlite:///{database}", work / "sqlite")
        with sqlite3.connect(database) as connection:  # everything in the one file
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copy(database, out / "sqlite.db")
        (out / "answers-sqlite.json").write_text(dump(answers))

        dump_before = FIXTURES / before / "postgresql.sql" if before else None
        with postgres_copy(postgres, dump_before) as url:
            answers = write(args.release, code, url, work / "postgresql")
            text = subprocess.run([_pg_bin("pg_dump"), "--no-owner", "--no-privileges", url],
                                  check=True, capture_output=True, text=True).stdout
        (out / "postgresql.sql").write_text(text)
        (out / "answers-postgresql.json").write_text(dump(answers))
    # what the release kept beside the key (its largest checkpoint of each log, from 2026-12-02b)
    # stays, the lock of that file goes
    (out / "log.key.checkpoints.lock").unlink(missing_ok=True)
    (out / "release.json").write_text(json.dumps(
        {"release": args.release, "commit": args.commit, "on_top_of": before}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
