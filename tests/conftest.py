"""Shared fixtures: databases on both engines, bootstrapped organizations, a Flask test client
over the in-process servicers, and real server processes for end-to-end tests.

PostgreSQL runs when EVIDENCE_TEST_POSTGRES_URL names a server (`scripts/start_postgres.sh`
prints one); in CI it is required, so the PostgreSQL half can never be silently skipped."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse, urlunparse

import grpc
import peewee
import psycopg2
import psycopg2.extensions
import pytest
import requests

from evidence_grpc.config import Settings
from evidence_grpc.domain.identity.organizations import bootstrap
from evidence_grpc.domain.transparency import notes
from evidence_grpc.server import build_server, grpc_options
from evidence_grpc.storage import db as storage

# The shared helpers (tests/helpers.py, tests/e2e/cli.py) assert as the tests do: pytest
# rewrites their asserts too, so a failure shows the values compared.
pytest.register_assert_rewrite("tests.helpers", "tests.e2e.cli")

ROOT = pathlib.Path(__file__).resolve().parent.parent
POSTGRES_URL = os.environ.get("EVIDENCE_TEST_POSTGRES_URL", "")
ENGINES = ["sqlite", "postgresql"] if POSTGRES_URL else ["sqlite"]

ALICE_KEY = "alice-secret-key-0123456789"
BOB_KEY = "bob-secret-key-0123456789"
# Members of acme with less than admin's privilege, one key each.
ROLE_KEYS = {"reader": "rita-reader-key-0123456789", "snapshotter": "sam-snapshotter-key-0123456789",
             "member": "mona-member-key-0123456789", "admin": ALICE_KEY}
BOOTSTRAP = {
    "organizations": [{"name": "acme", "features": ["controls"]}, {"name": "acme-shared"},
                      {"name": "other"}],
    "users": [
        {"name": "alice", "organizations": ["acme", "acme-shared"],
         "api_keys": [{"key": ALICE_KEY, "description": "ci"}]},
        {"name": "bob", "organizations": ["other"], "api_keys": [{"key": BOB_KEY}]},
        *({"name": name, "organizations": [{"name": "acme", "role": role}],
           "api_keys": [{"key": ROLE_KEYS[role]}]}
          for name, role in (("rita", "reader"), ("sam", "snapshotter"), ("mona", "member"))),
    ],
}


# The transparency log's key of every server the tests start (never one in the checkout),
# made here: a server makes none for a database that holds a log.
LOG_KEY_FILE = str(pathlib.Path(tempfile.mkdtemp(prefix="evidence-log-key-")) / "log.key")
pathlib.Path(LOG_KEY_FILE).write_text(notes.generate_signer("evidence.test").skey + "\n")


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("EVIDENCE_LOG_KEY_FILE", LOG_KEY_FILE)
    if os.environ.get("CI") and not POSTGRES_URL:
        raise pytest.UsageError("CI must run the PostgreSQL suites: set EVIDENCE_TEST_POSTGRES_URL")


def bearer(key: str = ALICE_KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def recorded_statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The SQL statements the shared database runs from now on (until the test ends)."""
    statements: list[str] = []
    hooks = storage.database.obj.query_hooks  # peewee's: each statement run, as it ends
    monkeypatch.setattr(storage.database.obj, "query_hooks",
                        [*hooks, lambda event: statements.append(event.sql)])
    return statements


@contextlib.contextmanager
def sent_statements() -> Iterator[list[str]]:
    """Every statement the driver sends within the block (each a round trip on PostgreSQL),
    those peewee's query hooks do not see too: BEGIN and COMMIT, the pool's checks, statements
    run as the connection's prepared ones. Connections are opened anew for it."""
    statements: list[str] = []
    db = storage.database.obj
    storage.release_connections()
    if isinstance(db, peewee.SqliteDatabase):
        db.connect()
        db.connection().set_trace_callback(statements.append)
        try:
            yield statements
        finally:
            db.connection().set_trace_callback(None)
        return

    class Recording(psycopg2.extensions.cursor):
        def execute(self, sql: Any, params: Any = None) -> Any:
            statements.append(sql)
            return super().execute(sql, params)

    db.connect_params["cursor_factory"] = Recording
    try:
        yield statements
    finally:
        del db.connect_params["cursor_factory"]
        storage.release_connections()


def basic(key: str = ALICE_KEY, password: str = "") -> dict[str, str]:
    token = base64.b64encode(f"{key}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


@contextlib.contextmanager
def grpc_channel(database_url: str) -> Iterator[grpc.Channel]:
    """A channel to a network gRPC server on `database_url` at a free port (with the message
    limits the shim's channel has), the server stopped when the block ends."""
    settings = Settings(database_url=database_url, grpc_addr="127.0.0.1:0", log_key_file=LOG_KEY_FILE)
    server, port = build_server(settings)
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}",
                                   options=grpc_options(settings, client=True)) as channel:
            yield channel
    finally:
        server.stop(None)


def _with_database(url: str, name: str) -> str:
    parts = urlparse(url)
    return urlunparse(parts._replace(path=f"/{name}"))


def _admin() -> psycopg2.extensions.connection:
    admin = psycopg2.connect(POSTGRES_URL)
    admin.autocommit = True
    return admin


def _seed(url: str) -> None:
    """Migrate the database of `url` and bootstrap BOOTSTRAP in it; no connection left open."""
    storage.init_database(url)
    storage.migrate()
    with storage.database.connection_context():
        bootstrap(BOOTSTRAP)
    _close_shared_database()


# What tells one PostgreSQL database's schema from another's: its relations, columns, defaults,
# constraints, indexes, triggers, functions, types, extensions and settings, as one digest.
SCHEMA_DIGEST = """
SELECT md5(string_agg(x, E'\\n' ORDER BY x)) FROM (
  SELECT format('rel %s %s %s', c.oid::regclass, c.relkind, c.reloptions) AS x
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp)'
  UNION ALL
  SELECT format('col %s %s %s %s %s', a.attrelid::regclass, a.attname,
                format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid))
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE a.attnum > 0 AND NOT a.attisdropped
     AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp)'
  UNION ALL
  SELECT format('con %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(c.oid))
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL
  SELECT format('idx %s', pg_get_indexdef(i.indexrelid))
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp)'
  UNION ALL
  SELECT format('view %s %s', c.oid::regclass, pg_get_viewdef(c.oid))
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind IN ('v', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL
  SELECT format('trigger %s %s', tgrelid::regclass, tgname) FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL
  SELECT format('proc %s', p.oid::regprocedure)
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL
  SELECT format('type %s', t.oid::regtype)
    FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
   WHERE t.typrelid = 0 AND n.nspname NOT IN ('pg_catalog', 'information_schema')
     AND n.nspname !~ '^pg_(toast|temp)'
  UNION ALL
  SELECT format('ext %s %s', extname, extversion) FROM pg_extension
  UNION ALL
  SELECT format('settings %s', setconfig) FROM pg_db_role_setting
   WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
  UNION ALL
  SELECT format('large objects %s', count(*)) FROM pg_largeobject_metadata
) parts
"""
USER_TABLES = """SELECT c.oid::regclass::text FROM pg_class c
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
                   AND n.nspname !~ '^pg_(toast|temp)' ORDER BY 1"""
USER_SEQUENCES = USER_TABLES.replace("('r', 'p')", "('S')")


@dataclass(frozen=True)
class PostgresTemplate:
    """The session's migrated, bootstrapped PostgreSQL database, and what a copy of it holds:
    its schema's digest, its tables' rows (COPY text) and its sequences' states."""

    name: str
    schema: str
    rows: dict[str, bytes]
    sequences: dict[str, tuple[int, bool]]
    # Copies a test is done with, reset to the template's contents (_reset): used again, since
    # each CREATE DATABASE writes hundreds of files, ~0.5 s on a filesystem busy with them.
    spares: list[str]

    @classmethod
    def of(cls, name: str) -> PostgresTemplate:
        with contextlib.closing(psycopg2.connect(_with_database(POSTGRES_URL, name))) as conn, \
                conn.cursor() as cursor:
            cursor.execute(SCHEMA_DIGEST)
            [(schema,)] = cursor.fetchall()
            rows = {}
            cursor.execute(USER_TABLES)
            for (table,) in cursor.fetchall():
                data = io.BytesIO()
                cursor.copy_expert(f"COPY {table} TO STDOUT", data)
                rows[table] = data.getvalue()
            sequences = {}
            cursor.execute(USER_SEQUENCES)
            for (sequence,) in cursor.fetchall():
                cursor.execute(f"SELECT last_value, is_called FROM {sequence}")
                [sequences[sequence]] = cursor.fetchall()
        return cls(name, schema, rows, sequences, [])

    def reset(self, name: str) -> bool:
        """Give the copy `name` the template's rows and sequences again, if its schema is still
        the template's (True); False when it is not, or when anything fails."""
        admin = _admin()
        try:
            with admin.cursor() as cursor:  # nothing of the test may write on
                cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                               "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
            with contextlib.closing(psycopg2.connect(_with_database(POSTGRES_URL, name))) as conn:
                with conn, conn.cursor() as cursor:
                    cursor.execute(SCHEMA_DIGEST)
                    if cursor.fetchall() != [(self.schema,)]:
                        return False
                    cursor.execute(USER_TABLES)
                    if [table for (table,) in cursor.fetchall()] != list(self.rows):
                        return False
                    # Rows go in any order: foreign keys are not checked while the rows that
                    # satisfied them in the template are written back.
                    cursor.execute("SET LOCAL session_replication_role = replica")
                    for table, data in self.rows.items():
                        cursor.execute(f"DELETE FROM {table}")
                        if data:
                            cursor.copy_expert(f"COPY {table} FROM STDIN", io.BytesIO(data))
                    for sequence, (last_value, is_called) in self.sequences.items():
                        cursor.execute("SELECT setval(%s, %s, %s)", (sequence, last_value, is_called))
            return True
        except psycopg2.Error:
            return False
        finally:
            admin.close()


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[PostgresTemplate]:
    """A migrated, bootstrapped PostgreSQL database that tests copy (template_copy): `CREATE
    DATABASE ... TEMPLATE` costs a fraction of creating and migrating one per test, and a copy
    reset to it a fraction of that. The copies left are dropped with it."""
    name = f"evidence_tmpl_{uuid.uuid4().hex[:12]}"
    admin = _admin()
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    template: PostgresTemplate | None = None
    try:
        _seed(_with_database(POSTGRES_URL, name))  # a template must have no open connections
        template = PostgresTemplate.of(name)
        yield template
    finally:
        with admin.cursor() as cursor:
            for copy in template.spares if template else []:
                cursor.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@contextlib.contextmanager
def template_copy(template: PostgresTemplate) -> Iterator[str]:
    """The URL of a PostgreSQL database holding what `template` holds: a spare copy, or a new
    one. Afterwards it is reset and kept as a spare, or dropped if its schema changed."""
    if template.spares:
        name = template.spares.pop()
    else:
        name = f"evidence_{uuid.uuid4().hex[:12]}"
        with contextlib.closing(_admin()) as admin, admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template.name}"')
    try:
        yield _with_database(POSTGRES_URL, name)
    finally:
        if template.reset(name):
            template.spares.append(name)
        else:
            with contextlib.closing(_admin()) as admin, admin.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A migrated, bootstrapped SQLite file that tests copy: a copy costs a fraction of
    migrating a new file per test."""
    path = tmp_path_factory.mktemp("sqlite-template") / "evidence.db"
    _seed(f"sqlite:///{path}")  # the last connection gone, the WAL is checkpointed into the file
    assert not path.with_name(f"{path.name}-wal").exists(), "the template is not one file"
    return path


@contextlib.contextmanager
def fresh_database(engine: str, directory: pathlib.Path,
                   request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of a new migrated, bootstrapped (BOOTSTRAP) database on `engine`, a copy of the
    session's template (on PostgreSQL one a test before may have used, reset to it)."""
    if engine == "sqlite":
        path = directory / "evidence.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite:///{path}"
        return
    with template_copy(request.getfixturevalue("postgres_template")) as url:
        yield url


@contextlib.contextmanager
def postgres_database(template: str | None) -> Iterator[str]:
    """The URL of a new PostgreSQL database, a copy of `template` or empty; dropped afterwards."""
    name = f"evidence_{uuid.uuid4().hex[:12]}"
    admin = _admin()
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    try:
        yield _with_database(POSTGRES_URL, name)
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@pytest.fixture
def database_url(engine: str, tmp_path: pathlib.Path, request: pytest.FixtureRequest
                 ) -> Iterator[str]:
    """A new migrated, bootstrapped database on the engine under test."""
    with fresh_database(engine, tmp_path, request) as url:
        yield url


@pytest.fixture
def empty_database(engine: str, tmp_path: pathlib.Path) -> Iterator[str]:
    """A new database of the engine under test with no tables at all (no file yet on SQLite;
    the session's PostgreSQL template is migrated, so not a copy of it)."""
    if engine == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    with postgres_database(None) as url:
        yield url


def _close_shared_database() -> None:
    storage.database.close()
    if hasattr(storage.database.obj, "close_all"):
        storage.database.obj.close_all()


@pytest.fixture
def db(database_url: str) -> Iterator[str]:
    """The shared database handle pointed at a new migrated, bootstrapped database."""
    storage.init_database(database_url)
    yield database_url
    _close_shared_database()


@pytest.fixture
def settings(db: str) -> Settings:
    return Settings(database_url=db, public_url="http://evidence.test", log_key_file=LOG_KEY_FILE)


@pytest.fixture
def client(settings: Settings):
    """Flask test client of the REST shim over the in-process servicers."""
    from rest_shim.app import create_app

    app = create_app(settings)
    return app.test_client()


# ---- real processes ------------------------------------------------------------------------

def kosli_binary() -> str:
    path = os.environ.get("KOSLI_CLI") or str(
        ROOT / "node_modules" / "@kosli" / "cli-linux-x64" / "bin" / "kosli")
    if not os.path.exists(path):
        pytest.fail(f"kosli CLI not found at {path}: run `npm install @kosli/cli-linux-x64@2.43.1`")
    return path


@dataclass
class RunningServer:
    http_url: str
    grpc_target: str
    database_url: str
    process: subprocess.Popen

    def kosli(self, *args: str, key: str = ALICE_KEY, org: str = "acme",
              check: bool = True) -> subprocess.CompletedProcess:
        """Run the real kosli CLI against this server."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("KOSLI_")}
        env["HOME"] = os.environ.get("HOME", "/tmp")
        command = [kosli_binary(), *args, "--host", self.http_url, "--api-token", key,
                   "--org", org, "--max-api-retries", "0"]
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        if check and result.returncode != 0:
            raise AssertionError(f"kosli {' '.join(args)} failed ({result.returncode}):\n"
                                 f"{result.stdout}\n{result.stderr}")
        return result

    def kosli_json(self, *args: str, **kwargs: object) -> object:
        return json.loads(self.kosli(*args, "--output", "json", **kwargs).stdout)


def start_server(database_url: str, tmp_path: pathlib.Path, *extra: str,
                 bootstrap_with: dict | None = BOOTSTRAP) -> RunningServer:
    """Bootstrap the database (unless `bootstrap_with` is None: a database of fresh_database
    has BOOTSTRAP already) and start `evidence-server serve` on free loopback ports."""
    cli = [sys.executable, "-m", "evidence_grpc.cli"]
    if bootstrap_with is not None:
        boot = tmp_path / "bootstrap.json"
        boot.write_text(json.dumps(bootstrap_with))
        subprocess.run([*cli, "bootstrap", str(boot), "--database-url", database_url],
                       check=True, capture_output=True, timeout=60)
    http_port = grpc_port = free_port()
    while grpc_port == http_port:  # the kernel may hand the same free port out twice
        grpc_port = free_port()
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed with the process
    process = subprocess.Popen(
        [*cli, "serve", "--http-addr", f"127.0.0.1:{http_port}",
         "--grpc-addr", f"127.0.0.1:{grpc_port}", "--database-url", database_url, *extra],
        stdout=log, stderr=subprocess.STDOUT)
    server = RunningServer(f"http://127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}",
                           database_url, process)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError((tmp_path / "server.log").read_text())
        try:
            if requests.get(f"{server.http_url}/ready", timeout=1).status_code == 200 and \
                    _grpc_ready(server.grpc_target):
                return server
        except (requests.ConnectionError, requests.Timeout):  # worker still booting
            pass
        time.sleep(0.2)
    stop_server(server)
    raise AssertionError("server did not become ready:\n" + (tmp_path / "server.log").read_text())


def _grpc_ready(target: str) -> bool:
    import grpc

    with grpc.insecure_channel(target) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=1)
            return True
        except grpc.FutureTimeoutError:
            return False


def stop_server(server: RunningServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(15)
    except subprocess.TimeoutExpired:
        server.process.kill()


@pytest.fixture
def server(database_url: str, tmp_path: pathlib.Path) -> Iterator[RunningServer]:
    """A real `evidence-server serve` on a fresh database of the engine under test."""
    running = start_server(database_url, tmp_path, bootstrap_with=None)
    yield running
    stop_server(running)


@pytest.fixture(scope="module", params=ENGINES)
def live(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A real `evidence-server serve` on a fresh database of each engine, shared by a module's
    tests (each start costs seconds): they write names no other test of the module does."""
    tmp = tmp_path_factory.mktemp(f"server-{request.param}")
    with fresh_database(request.param, tmp, request) as url:
        running = start_server(url, tmp, bootstrap_with=None)
        try:
            yield running
        finally:
            stop_server(running)


# Provenance and a compliant trail: the rules the snapshots of a governed environment are
# judged by (an environment without policies is of Unknown compliance).
HOUSE_RULES = (b"_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n"
               b"  provenance:\n    required: true\n  trail-compliance:\n    required: true\n")


def govern(client, *env_names: str, policy: str = "house-rules") -> None:
    """Create `policy` (HOUSE_RULES) through the REST shim and attach it to each environment."""
    client.put("/api/v2/policies/acme", headers=bearer(), content_type="multipart/form-data",
               data={"payload": json.dumps({"name": policy, "description": "", "type": "env"}),
                     "policy_file": (io.BytesIO(HOUSE_RULES), "policy.yml")})
    for name in env_names:
        attached = client.post(f"/api/v2/environments/acme/{name}/policies", headers=bearer(),
                               json={"policy_names": [policy]})
        assert attached.status_code == 200, attached.get_json()
