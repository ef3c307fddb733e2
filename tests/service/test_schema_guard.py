"""A release refuses a database that a newer release migrated (DESIGN decision 11): every command
that opens the database exits 2, naming the migrations it does not know, before applying
anything. `migrate --check` says what would run and changes nothing. `bootstrap` writes only
to a database it is given (both engines)."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
from urllib.parse import urlparse

import pytest
from playhouse.migrations import Runner
from playhouse.pool import PooledPostgresqlDatabase

from evidence_grpc.storage import db as storage
from tests.conftest import BOOTSTRAP, _close_shared_database, free_port

CLI = [sys.executable, "-m", "evidence_grpc.cli"]
# Every migration this release ships, in the order they run.
MIGRATIONS = sorted(path.stem for path in storage.MIGRATIONS_DIR.glob("[0-9]*.py"))
NEWER = "0099_from_a_newer_release"
REFUSAL = ("the database has migrations this release does not know: 0099_from_a_newer_release; "
           "it was upgraded by a newer release: run that release, or restore a backup taken "
           "before the upgrade")
NO_DATABASE = ("evidence-server bootstrap: which database? give --database-url or set "
               "EVIDENCE_DATABASE_URL (bootstrap has no default database)\n")


def evidence_server(*args: str, cwd: pathlib.Path | None = None,
                    env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run `evidence-server`. One still running after 60 s started serving instead of
    refusing: it is stopped (with the processes it started) and the test fails."""
    process = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=cwd, env=env, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"evidence-server {args[0]} did not exit: it started on the database")
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def check(database_url: str) -> tuple[int, dict]:
    """(exit status, answer) of `evidence-server migrate --check`."""
    result = evidence_server("migrate", "--check", "--database-url", database_url)
    return result.returncode, json.loads(result.stdout)


def execute(database_url: str, sql: str) -> None:
    """Run `sql` on the database, as another release's process would have."""
    db = storage.open_database(database_url)
    with db.connection_context(), db.atomic():
        db.execute_sql(sql)
    if isinstance(db, PooledPostgresqlDatabase):
        db.close_all()


def tables(database_url: str) -> list[str] | None:
    """The database's tables; None for a SQLite file that does not exist."""
    if database_url.startswith("sqlite:///") and \
            not os.path.exists(database_url[len("sqlite:///"):]):
        return None
    db = storage.open_database(database_url)
    with db.connection_context():
        found = db.get_tables()
    if isinstance(db, PooledPostgresqlDatabase):
        db.close_all()
    return found


def add_newer_migration(database_url: str) -> None:
    execute(database_url, "INSERT INTO schema_migration (name, applied) "
                          f"VALUES ('{NEWER}', CURRENT_TIMESTAMP)")


@pytest.fixture
def newer_database(empty_database: str) -> str:
    """A database migrated by this release, then by a newer one."""
    assert evidence_server("migrate", "--database-url", empty_database).returncode == 0
    add_newer_migration(empty_database)
    return empty_database


def arguments(command: str, tmp_path: pathlib.Path) -> list[str]:
    """What `command` needs besides the database to start (on free loopback ports)."""
    boot = tmp_path / "bootstrap.json"
    boot.write_text(json.dumps(BOOTSTRAP))
    http = ["--http-addr", f"127.0.0.1:{free_port()}", "--workers", "1"]
    grpc = ["--grpc-addr", f"127.0.0.1:{free_port()}", "--grpc-workers", "1"]
    return {"migrate": [], "serve": [*http, *grpc], "grpc": grpc, "shim": http, "deliver": [],
            "bootstrap": [str(boot)], "rotate-log-key": [
                "--new-key-file", str(tmp_path / "new.key")]}[command]


@pytest.mark.parametrize("command", ["migrate", "serve", "grpc", "shim", "deliver", "bootstrap",
                                     "rotate-log-key"])
def test_every_command_refuses_a_database_a_newer_release_migrated(
        command: str, newer_database: str, tmp_path: pathlib.Path):
    result = evidence_server(command, *arguments(command, tmp_path),
                             "--database-url", newer_database)

    assert result.returncode == 2, result.stderr
    assert f"evidence-server {command}: {REFUSAL}" in result.stderr.splitlines()
    assert result.stdout == ""  # nothing applied, nothing served
    assert check(newer_database) == (2, {"pending": [], "unknown": [NEWER]})


def _load_wsgi_app(database_url: str) -> subprocess.CompletedProcess:
    """Import the WSGI app as a WSGI server would, on `database_url`."""
    env = {**os.environ, "EVIDENCE_DATABASE_URL": database_url}
    env.pop("EVIDENCE_GRPC_TARGET", None)
    return subprocess.run([sys.executable, "-c", "import rest_shim.wsgi"], env=env,
                          capture_output=True, text=True, timeout=60)


def test_the_wsgi_app_refuses_a_database_a_newer_release_migrated(newer_database: str):
    newer = _load_wsgi_app(newer_database)
    assert newer.returncode != 0 and f"UnknownMigrations: {REFUSAL}" in newer.stderr


def test_the_wsgi_app_loads_only_on_a_database_this_release_migrated(empty_database: str):
    """The WSGI app does not migrate: it refuses a database this release has not migrated,
    and loads once it has."""
    older = _load_wsgi_app(empty_database)
    assert older.returncode != 0 and "PendingMigrations: the database lacks migrations of " \
        f"this release: {', '.join(MIGRATIONS)}; run `evidence-server migrate` first" in older.stderr

    assert evidence_server("migrate", "--database-url", empty_database).returncode == 0
    loaded = _load_wsgi_app(empty_database)
    assert loaded.returncode == 0, loaded.stderr


def test_a_refused_database_is_left_as_it_was(empty_database: str):
    """The previous release's database, then a newer release's migration: this release
    applies none of its own pending ones."""
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target=MIGRATIONS[-2])
    _close_shared_database()
    add_newer_migration(empty_database)

    refused = evidence_server("migrate", "--database-url", empty_database)

    assert (refused.returncode, refused.stdout) == (2, "")
    assert f"evidence-server migrate: {REFUSAL}" in refused.stderr.splitlines()
    assert check(empty_database) == (2, {"pending": [MIGRATIONS[-1]], "unknown": [NEWER]})


def test_check_on_a_new_database_lists_every_migration_and_creates_nothing(
        engine: str, empty_database: str):
    assert check(empty_database) == (1, {"pending": MIGRATIONS, "unknown": []})
    assert tables(empty_database) == (None if engine == "sqlite" else [])

    migrated = evidence_server("migrate", "--database-url", empty_database)
    assert (migrated.returncode, json.loads(migrated.stdout)) == (0, {"applied": MIGRATIONS})
    assert check(empty_database) == (0, {"pending": [], "unknown": []})


def test_bootstrap_without_a_database_refuses_to_guess(tmp_path: pathlib.Path):
    boot = tmp_path / "bootstrap.json"
    boot.write_text(json.dumps(BOOTSTRAP))
    env = {k: v for k, v in os.environ.items() if k != "EVIDENCE_DATABASE_URL"}

    result = evidence_server("bootstrap", str(boot), cwd=tmp_path, env=env)

    assert (result.returncode, result.stdout, result.stderr) == (2, "", NO_DATABASE)
    assert list(tmp_path.iterdir()) == [boot]  # no ./evidence.db


def test_bootstrap_says_which_database_it_writes(database_url: str, tmp_path: pathlib.Path):
    boot = tmp_path / "bootstrap.json"
    boot.write_text(json.dumps(BOOTSTRAP))
    password = urlparse(database_url).password
    shown = database_url.replace(f":{password}@", ":***@") if password else database_url

    by_variable = evidence_server("bootstrap", str(boot), cwd=tmp_path,
                                  env={**os.environ, "EVIDENCE_DATABASE_URL": database_url})
    by_option = evidence_server("bootstrap", str(boot), "--database-url", database_url)

    for result in (by_variable, by_option):
        assert result.returncode == 0, result.stderr
        assert f"evidence-server bootstrap: database {shown}" in result.stderr.splitlines()
        assert "created" in json.loads(result.stdout)


def test_bootstrap_never_shows_the_database_password(tmp_path: pathlib.Path):
    boot = tmp_path / "bootstrap.json"
    boot.write_text(json.dumps(BOOTSTRAP))
    port = free_port()  # nothing listens there: bootstrap says in one line which it cannot open

    result = evidence_server("bootstrap", str(boot), "--database-url",
                             f"postgresql://evidence:hunter2-secret@127.0.0.1:{port}/evidence")

    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(
        "evidence-server bootstrap: cannot open the database "
        f"postgresql://evidence:***@127.0.0.1:{port}/evidence: ")
    assert "hunter2" not in result.stderr
