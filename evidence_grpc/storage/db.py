"""The database handle shared by every model, and how a URL becomes a connection."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import datetime
import fcntl
import itertools
import logging
import os
import pathlib
import random
import re
import select
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar, get_args, get_origin
from urllib.parse import urlparse

import peewee
import psycopg2.extensions
from playhouse.migrations import Runner
from playhouse.pool import PooledPostgresqlDatabase

database = peewee.DatabaseProxy()
_peewee_log = logging.getLogger("peewee")
log = logging.getLogger(__name__)

MIGRATIONS_DIR = pathlib.Path(__file__).parent / "migrations"
SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "synchronous": "normal",
    "busy_timeout": 10000,
    "foreign_keys": 1,
}
T = TypeVar("T")
M = TypeVar("M", bound=peewee.Model)
# Values given to one IN list from Python at most; longer lists are read in chunks. A power of
# two (Prepared pads IN lists to one), far below SQLite's limit of 32766 variables.
IN_CHUNK = 4096


def in_chunks(values: list[T]) -> Iterator[list[T]]:
    """`values` in pieces of at most IN_CHUNK, one IN list each."""
    for start in range(0, len(values), IN_CHUNK):
        yield values[start:start + IN_CHUNK]


def in_batches(read: Callable[[T | None], list[T]], size: int) -> Iterator[list[T]]:
    """Every row of a list, `size` at a time: `read(None)` answers the first batch and
    `read(last)` the batch after the row `last`, by a keyset (a condition on the list's order
    that its index walks however deep, never an OFFSET). Never more than one batch is in
    memory; run within one read snapshot, the batches together are one read of the whole."""
    batch = read(None)
    while True:
        if batch:
            yield batch
        if len(batch) < size:
            return
        batch = read(batch[-1])


def keyset_batches(query: peewee.ModelSelect, keys: list[peewee.ColumnBase], size: int,
                   descending: bool = False) -> Iterator[list[Any]]:
    """Every row of `query` ordered by `keys` (ascending, or all descending), `size` at a
    time (`in_batches`): each batch is the rows whose keys, as one row value, come after the
    last row's. The last key must be unique within the query (a name), so that no two rows
    tie."""
    aliases = [f"keyset_{i}" for i in range(len(keys))]
    ordered = query.select_extend(*(key.alias(a) for key, a in zip(keys, aliases, strict=True))
                                  ).order_by(*(key.desc() if descending else key.asc()
                                               for key in keys)).limit(size)

    def read(last: Any) -> list[Any]:
        if last is None:
            return list(ordered)
        seen = peewee.Tuple(*(getattr(last, a) for a in aliases))
        after = peewee.Tuple(*keys) < seen if descending else peewee.Tuple(*keys) > seen
        return list(ordered.where(after))

    return in_batches(read, size)


def open_database(url: str) -> peewee.Database:
    """Build a database from `sqlite:///path`, `sqlite:///:memory:` or `postgresql://...`."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        path = url[len("sqlite:///"):] if url.startswith("sqlite:///") else parsed.path
        if path != ":memory:":
            pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
        return peewee.SqliteDatabase(path, pragmas=SQLITE_PRAGMAS, check_same_thread=False)
    if parsed.scheme in ("postgres", "postgresql"):
        return PostgresqlPool(
            parsed.path.lstrip("/"),
            user=parsed.username,
            password=parsed.password,
            host=parsed.hostname,
            port=parsed.port or 5432,
            max_connections=32,
            stale_timeout=300,
            timeout=10,
        )
    raise ValueError(f"unsupported database URL {url!r}: use sqlite:///PATH or postgresql://...")


# A pooled connection idle longer than this is asked whether the server still has it
# (`SELECT 1`, a round trip) before it is handed out again; see PostgresqlPool.
IDLE_CHECK_SECONDS = 5.0


class PostgresqlPool(PooledPostgresqlDatabase):
    """playhouse's pool, which asks the server with `SELECT 1` on every checkout whether it
    still has the connection: under load a third of the round trips of a kept read. Here a
    connection back from its last call for less than IDLE_CHECK_SECONDS is only checked
    locally: a server that ended its side (a backend terminated, a server restarted or
    stopped) closed the socket with a last message, so a socket with something to read is
    asked as before, and replaced when the answer fails. One returned after an error is not
    reused anyway: a lost connection is closed (its status unknown), and one left in a failed
    transaction is rolled back on its return."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._returned: dict[int, float] = {}  # id of an idle connection -> when it came back
        super().__init__(*args, **kwargs)

    def _is_closed(self, conn: Any) -> bool:
        returned = self._returned.pop(id(conn), None)
        if returned is not None and time.monotonic() - returned < IDLE_CHECK_SECONDS \
                and not conn.closed \
                and self._adapter.txn_status(conn) == self._adapter.txn_idle \
                and not _readable(conn.fileno()):
            return False
        return super()._is_closed(conn)

    def _can_reuse(self, conn: Any) -> bool:
        reusable = super()._can_reuse(conn)
        if reusable:
            self._returned[id(conn)] = time.monotonic()
        return reusable

    def _close_raw(self, conn: Any) -> None:
        self._returned.pop(id(conn), None)
        super()._close_raw(conn)


def _readable(descriptor: int) -> bool:
    """Whether a socket has something to read now (without waiting)."""
    poll = select.poll()
    poll.register(descriptor, select.POLLIN | select.POLLERR | select.POLLHUP)
    return bool(poll.poll(0))


def init_database(url: str) -> peewee.Database:
    """Point the shared proxy at the database of `url`."""
    db = open_database(url)
    database.initialize(db)
    return db


def release_connections() -> None:
    """Close every connection this process holds (a pool's idle ones too), before forking:
    a child must open its own, never share a parent's socket."""
    db = database.obj
    if db is None:
        return
    db.close()
    if isinstance(db, PooledPostgresqlDatabase):
        db.close_all()


def pool_state() -> tuple[int, int] | None:
    """(connections in use, idle connections) of this process's PostgreSQL pool; None on
    SQLite, which has no pool."""
    db = database.obj
    if not isinstance(db, PooledPostgresqlDatabase):
        return None
    return len(db._in_use), len(db._connections)


class UnknownMigrations(Exception):
    """The database has migrations this release does not know: a newer release migrated it,
    and this one cannot tell what they changed, so it must not use the database."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        super().__init__(f"the database has migrations this release does not know: "
                         f"{', '.join(names)}; it was upgraded by a newer release: run that "
                         "release, or restore a backup taken before the upgrade")


class PendingMigrations(Exception):
    """The database lacks migrations of this release, and the process does not migrate."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        super().__init__(f"the database lacks migrations of this release: {', '.join(names)}; "
                         "run `evidence-server migrate` first")


@dataclasses.dataclass(frozen=True)
class MigrationStatus:
    pending: list[str]  # this release's migrations the database has not had, in order
    unknown: list[str]  # the database's migrations this release has no file of


def _utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


class MigrationRunner(Runner):
    """playhouse's Runner recording when each migration ran in UTC (naive, as the column holds
    it), not in the process's zone: a migration that reads that time (0018) means the same
    instant in every zone. Rows written before this release hold the local time of the process
    that migrated (see 0018)."""

    def __init__(self, database: peewee.Database, directory: str) -> None:
        super().__init__(database, directory=directory)
        recorded: Any = self.History  # type: ignore[has-type]

        class History(recorded):
            applied = peewee.DateTimeField(default=_utc_now)

            class Meta:
                table_name = recorded._meta.table_name
                schema = recorded._meta.schema

        self.History = History


def migrate() -> list[str]:
    """Apply pending schema migrations; several processes may call this at once. Raises
    UnknownMigrations, applying nothing, on a database a newer release migrated."""
    db = database.obj
    with database.connection_context():
        with _migration_lock(db):
            # Checked in the lock: a newer release's process may be migrating right now.
            runner = MigrationRunner(db, directory=str(MIGRATIONS_DIR))
            unknown = _status(runner).unknown
            if unknown:
                raise UnknownMigrations(unknown)
            return runner.up()


def migration_status() -> MigrationStatus:
    """What migrate() would do, changing nothing: no history table is made, and a SQLite file
    that does not exist yet is not created (everything is pending for it)."""
    db = database.obj
    runner = MigrationRunner(db, directory=str(MIGRATIONS_DIR))
    if isinstance(db, peewee.SqliteDatabase) and db.database != ":memory:" \
            and not os.path.exists(db.database):
        return MigrationStatus([m.name for m in runner.migrations()], [])  # connecting creates it
    with database.connection_context():
        with _migration_lock(db):  # not halfway through another process's migrations
            return _status(runner)


def require_current_schema() -> None:
    """For a process that opens the database without migrating it (the WSGI app): refuse a
    database a newer release migrated, or one this release has not migrated yet."""
    status = migration_status()
    if status.unknown:
        raise UnknownMigrations(status.unknown)
    if status.pending:
        raise PendingMigrations(status.pending)


def _status(runner: Runner) -> MigrationStatus:
    rows = runner.status()  # a history row whose file is gone has path None
    return MigrationStatus(
        pending=[m.name for m in rows if m.path is not None and m.applied is None],
        unknown=[m.name for m in rows if m.path is None])


@contextlib.contextmanager
def _migration_lock(db: peewee.Database) -> Iterator[None]:
    if isinstance(db, peewee.PostgresqlDatabase):
        db.execute_sql("SELECT pg_advisory_lock(7301)")
        try:
            yield
        finally:
            db.execute_sql("SELECT pg_advisory_unlock(7301)")
    else:
        with db.atomic("IMMEDIATE"):
            yield


class SqliteWriterLock:
    """SQLite admits one writer at a time. When it is taken, SQLite's busy handler makes the
    others sleep and retry, up to ~100 ms a turn, and they miss the moment it is free. Writers
    queue here instead: the threads of a process on a lock, and the processes sharing a database
    file (HTTP workers, gRPC processes) on an flock of `<database>-writer.lock`, which wakes the
    next one as soon as the lock is released. Re-entered by its holder (nested transactions)."""

    def __init__(self) -> None:
        self._threads = threading.RLock()
        self._depth = 0
        self._file: tuple[int, str, int] | None = None  # (pid, path, descriptor)

    def _descriptor(self, path: str) -> int | None:
        if path in ("", ":memory:") or path.startswith("file:"):
            return None
        # A descriptor opened before a fork is shared with the child, and an flock through it
        # would not keep parent and child apart: each process opens its own.
        if self._file is None or self._file[:2] != (os.getpid(), path):
            if self._file is not None:
                os.close(self._file[2])  # another database's, or the parent's copy
            self._file = (os.getpid(), path,
                          os.open(f"{path}-writer.lock", os.O_RDWR | os.O_CREAT, 0o600))
        return self._file[2]

    @contextlib.contextmanager
    def held(self, path: str) -> Iterator[None]:
        with self._threads:
            descriptor = self._descriptor(path) if self._depth == 0 else None
            if descriptor is not None:
                fcntl.flock(descriptor, fcntl.LOCK_EX)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if descriptor is not None:
                    fcntl.flock(descriptor, fcntl.LOCK_UN)


_sqlite_writer = SqliteWriterLock()


# The work left for the end of the current write_transaction, by name: (what runs, the items it
# runs with, whether it runs after the others). A nested one (a savepoint) keeps its own, handed
# to the one around it when it commits and dropped when it rolls back.
_at_end: contextvars.ContextVar[dict[str, tuple[Callable[[set[Any]], None], set[Any], bool]] | None] = \
    contextvars.ContextVar("at_end", default=None)


def at_transaction_end(name: str, run: Callable[[set[Any]], None], items: Iterable[Any], *,
                       last: bool = False) -> None:
    """Add `items` to the set `name` of the current write_transaction: after its other writes,
    before the outermost one commits, `run` runs once with all of them (so that the row locks
    it takes are the transaction's last, taken in one order by every writer). Those marked
    `last` run after the others, whichever was added first (the transparency log's head,
    locked by every evidence write, is the last lock of all). Items added in a nested
    write_transaction that rolls back (its savepoint undone) go with it. Outside one: now."""
    pending = _at_end.get()
    if pending is None:
        run(set(items))
    else:
        pending.setdefault(name, (run, set(), last))[1].update(items)


@contextlib.contextmanager
def write_transaction() -> Iterator[None]:
    """A write transaction (a savepoint when nested in one). On SQLite writers queue for the
    write lock (SqliteWriterLock) and take it up front (IMMEDIATE), instead of failing on lock
    upgrade; plain on PostgreSQL. The outermost one runs what at_transaction_end left for it
    before committing; a nested one hands what was left in it to the one around it once its
    savepoint is released, and drops it when the savepoint is rolled back."""
    around = _at_end.get()  # None: this one is the outermost
    mine: dict[str, tuple[Callable[[set[Any]], None], set[Any], bool]] = {}
    token = _at_end.set(mine)
    try:
        with contextlib.ExitStack() as held:
            if isinstance(database.obj, peewee.SqliteDatabase):
                held.enter_context(_sqlite_writer.held(database.obj.database))
                held.enter_context(database.atomic("IMMEDIATE"))
            else:
                held.enter_context(database.atomic())
            yield
            if around is None:
                for run, items, _ in sorted(mine.values(), key=lambda each: each[2]):
                    run(items)
        if around is not None:  # the savepoint was released: its items are the outer one's
            for name, (run, items, last) in mine.items():
                around.setdefault(name, (run, set(), last))[1].update(items)
    finally:
        _at_end.reset(token)


@contextlib.contextmanager
def read_snapshot() -> Iterator[None]:
    """The reads of one call in one snapshot of the database, so that an answer built from
    several statements (a trail's events and its evidence) never mixes what was committed
    between them. PostgreSQL: a REPEATABLE READ, READ ONLY transaction (a write in it fails);
    SQLite (WAL): a deferred transaction, whose snapshot is taken at its first read and which
    blocks no writer."""
    if isinstance(database.obj, peewee.PostgresqlDatabase):
        # one statement, one round trip: peewee begins with `BEGIN TRANSACTION ISOLATION
        # LEVEL <this>`, and PostgreSQL takes a list of transaction modes there
        with database.atomic("REPEATABLE READ, READ ONLY"):
            yield
    else:
        with database.atomic():
            yield


F = TypeVar("F", bound=Callable[..., Any])


def owns_transaction(servicer_method: F) -> F:
    """Declare a servicer that keeps its own transaction: the transaction interceptor leaves
    it alone.
    - A write method's domain function keeps every write of the call in one
      `write_transaction` of its own, after the reads and checks that need none, so that on
      SQLite the writer's lock is held for the writes alone (checking a schema or judging
      evidence, in the lock, kept other writers waiting). Anything it does after that
      transaction must not fail.
    - A read method answers from one statement when it can, without a transaction (on SQLite
      BEGIN and COMMIT were a third of a kept trail read's server CPU), and reads again in
      one `read_snapshot` what takes more statements."""
    servicer_method.owns_transaction = True  # type: ignore[attr-defined]
    return servicer_method


def for_update(query: peewee.ModelSelect, strength: str = "UPDATE") -> peewee.ModelSelect:
    """The rows of `query`, locked until the write transaction ends, for a read followed by a
    write: `SELECT ... FOR UPDATE` on PostgreSQL (or another `strength`: `NO KEY UPDATE`, which
    the row locks of foreign keys referencing them do not wait for; `SHARE`); on SQLite the
    write transaction (IMMEDIATE) already admits one writer at a time and reads inside it see
    every committed write."""
    return query.for_update(f"FOR {strength}") if isinstance(
        database.obj, peewee.PostgresqlDatabase) else query


def locked(row: M) -> M:
    """`row` read again under a lock (see for_update), for a finder that cannot lock itself.
    Saving the stale copy would write back every column another writer changed since."""
    if not isinstance(database.obj, peewee.PostgresqlDatabase):
        return row
    model = type(row)
    return for_update(model.select().where(model._meta.primary_key == row.get_id())).get()


def call_scope() -> CallScope:
    """The connection of one call. PostgreSQL connections go back to the pool after each
    call; a SQLite connection stays open for its thread (handler threads are long-lived), as
    opening one costs more than most calls."""
    return CallScope()


class CallScope:
    """`call_scope`'s context manager: a class, as every call enters one, and a generator's
    context manager costs several times as much."""

    __slots__ = ("_pooled",)

    def __enter__(self) -> None:
        if isinstance(database.obj, peewee.SqliteDatabase):
            self._pooled = None
            database.connect(reuse_if_open=True)
        else:
            self._pooled = database.connection_context()
            self._pooled.__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        if self._pooled is not None:
            self._pooled.__exit__(*exc_info)


# PostgreSQL's answers to a transaction that lost to a concurrent one, which it rolled back:
# serialization_failure and deadlock_detected. Run again, it succeeds.
RETRIED_SQLSTATES = ("40001", "40P01")


def retry_on_conflict(fn: Callable[[], T], attempts: int = 6) -> T:
    """Run `fn` (one write transaction) again when a concurrent writer won a unique-key race,
    or PostgreSQL rolled it back as a deadlock's victim or a serialization failure; the waits
    grow and are jittered, so that the writers that collided do not collide again."""
    for attempt in range(attempts):
        try:
            return fn()
        except peewee.IntegrityError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.005 * (attempt + 1))
        except peewee.OperationalError as exc:
            if attempt == attempts - 1 or not lost_to_concurrent_writer(exc):
                raise
            log.info("transaction rolled back (%s), attempt %d: retrying",
                     getattr(exc, "orig", exc), attempt + 1)
            time.sleep(min(0.5, 0.01 * 2 ** attempt) * random.uniform(0.5, 1.5))
    raise AssertionError("unreachable")


def lost_to_concurrent_writer(exc: peewee.OperationalError) -> bool:
    """Whether PostgreSQL rolled the transaction back because of a concurrent one."""
    # peewee keeps the driver's exception, whose pgcode is the SQLSTATE, as `orig`
    return getattr(getattr(exc, "orig", None), "pgcode", None) in RETRIED_SQLSTATES


def contains(field: peewee.Field, text: str, case_sensitive: bool) -> peewee.Expression:
    """Substring match; LIKE is case-insensitive on SQLite (ASCII) and ILIKE on PostgreSQL."""
    if not case_sensitive:
        return field.contains(text)
    position = "STRPOS" if isinstance(database.obj, peewee.PostgresqlDatabase) else "INSTR"
    return getattr(peewee.fn, position)(field, text) > 0


def run_sql(sql: str, params: list[Any]) -> Any:
    """`database.execute_sql(sql, params)`, its cursor, straight on the thread's open
    connection: peewee's layers (the proxy, logging, hooks, the open check) cost as much as a
    point read itself. On PostgreSQL a SELECT runs as a statement the connection prepared
    (`ServerPrepared`). Errors are peewee's as ever; with peewee's debug log or query hooks
    on, or no connection open, peewee runs it as given."""
    db = database.obj
    conn = db._state.conn
    if conn is None or db.query_hooks or _peewee_log.isEnabledFor(logging.DEBUG):
        return db.execute_sql(sql, params)
    with peewee.__exception_wrapper__:
        cursor = conn.cursor()
        if isinstance(db, PostgresqlPool) and sql.startswith("SELECT"):
            _server_prepared.execute(cursor, sql, params)
        else:
            cursor.execute(sql, params)
    return cursor


class ServerPrepared:
    """SELECTs run as statements each PostgreSQL connection prepared once (`PREPARE`, then
    `EXECUTE` with the values): PostgreSQL parses and plans a statement sent as text every
    time, and for the point reads of a kept answer (the key's authentication, a trail with its
    marks) that was several times what running them took. The first run on a connection sends
    `PREPARE name AS ...; EXECUTE name(...)` in one round trip, and only outside a
    transaction: a statement PostgreSQL will not prepare (a value whose type it cannot tell)
    fails there without undoing anything, and is then run as text from then on, by every
    connection."""

    def __init__(self) -> None:
        self._names: dict[str, tuple[str, str, int]] = {}  # SQL -> (name, PREPARE's text, values)
        self._refused: set[str] = set()
        self._prepared: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._numbers = itertools.count(1)

    def _form(self, sql: str) -> tuple[str, str, int]:
        form = self._names.get(sql)
        if form is None:
            numbers = itertools.count(1)
            text = re.sub(r"%%|%s", lambda m: m[0] if m[0] == "%%" else f"${next(numbers)}", sql)
            form = self._names[sql] = (f"evidence_{next(self._numbers)}", text,
                                       next(numbers) - 1)
        return form

    def execute(self, cursor: Any, sql: str, params: list[Any]) -> None:
        if sql in self._refused:
            cursor.execute(sql, params)
            return
        name, text, count = self._form(sql)
        run = f"EXECUTE {name}({', '.join(['%s'] * count)})" if count else f"EXECUTE {name}"
        conn = cursor.connection
        prepared = self._prepared.setdefault(conn, set())
        if name in prepared:
            cursor.execute(run, params)
        elif conn.get_transaction_status() != psycopg2.extensions.TRANSACTION_STATUS_IDLE:
            cursor.execute(sql, params)  # not yet: a refusal would undo the transaction
        else:
            # a whole number is a bigint (the type PostgreSQL would infer, an int4 column's,
            # would refuse a larger value a caller sends: 500 instead of "no such row")
            types = ", ".join("bigint" if type(value) is int else "unknown" for value in params)
            typed = f"{name} ({types})" if params else name
            try:
                cursor.execute(f"PREPARE {typed} AS {text}; {run}", params)
            except psycopg2.Error as error:
                if conn.closed or not (error.pgcode or "").startswith(_NOT_PREPARED):
                    prepared.add(name)  # prepared (that lasts), then failed as it runs
                    raise
                self._refused.add(sql)
                log.info("PostgreSQL does not prepare %s: run as text", sql, exc_info=True)
                cursor.execute(sql, params)
            else:
                prepared.add(name)


# SQLSTATE class of PREPARE's refusals (syntax error or access rule violation: a value whose
# type PostgreSQL cannot tell, 42P18); a statement that fails while it runs fails otherwise.
_NOT_PREPARED = "42"
_server_prepared = ServerPrepared()


class Prepared:
    """A query built once per SQL dialect and run with new values. On hot point reads peewee
    spends far longer building the SQL than the database spends answering it.

    `build` receives a stand-in for each named parameter (a unique string or integer that the
    field's conversion leaves alone) and returns the query; at run time the stand-ins in the
    compiled parameter list are replaced by the real values.

    A parameter of kind `list[int]` or `list[str]` is an IN list: one form is compiled per
    power-of-two length, and the values are padded to that length by repeating the last one
    (a value repeated in an IN list changes nothing), so any length reuses a few forms."""

    # Forms are compiled lazily, possibly by two threads at once: next() on a count is atomic.
    _numbers = itertools.count(-7_300_000_001, -1)

    def __init__(self, build: Callable[..., peewee.Query], **kinds: Any) -> None:
        self._build = build
        self._kinds = kinds
        self._lists = [name for name, kind in kinds.items() if get_origin(kind) is list]
        self._forms: dict[tuple, tuple[str, list[Any], peewee.Query, list]] = {}
        # The plan of `models`, by id() of a form's query
        self._plans: dict[int, tuple[list, list]] = {}
        self._indexes: dict[peewee.Field, int] = {}

    @staticmethod
    def _standin(kind: type, name: str) -> Any:
        number = next(Prepared._numbers)
        return number if kind is int else f"\x00{name}{number}\x00"

    def _form(self, sizes: tuple[int, ...]) -> tuple[str, list[Any], peewee.Query, list]:
        """(SQL, its parameters with stand-ins, the query, [(position of a stand-in, its
        parameter's name, its index in an IN list or None)]); `sizes` are the IN lists'
        lengths, in the order of `_lists`."""
        key = (type(database.obj), sizes)
        form = self._forms.get(key)
        if form is None:
            length = dict(zip(self._lists, sizes, strict=True))
            standins = {name: [self._standin(get_args(kind)[0], name) for _ in range(length[name])]
                        if name in length else self._standin(kind, name)
                        for name, kind in self._kinds.items()}
            query = self._build(**standins)
            sql, template = query.sql()
            slot_of: dict[Any, tuple[str, int | None]] = {}
            for name, standin in standins.items():
                if isinstance(standin, list):
                    slot_of.update({s: (name, i) for i, s in enumerate(standin)})
                else:
                    slot_of[standin] = (name, None)
            fills = [(position, *slot_of[p]) for position, p in enumerate(template)
                     if isinstance(p, (str, int)) and p in slot_of]
            form = self._forms[key] = (sql, template, query, fills)
        return form

    def _compiled(self, values: dict[str, Any]) -> tuple[str, list[Any], peewee.Query]:
        sizes = tuple(0 if not values[name] else 1 << (len(values[name]) - 1).bit_length()
                      for name in self._lists)
        sql, template, query, fills = self._form(sizes)
        params = list(template)
        for position, name, index in fills:
            value = values[name]
            # an IN list is padded to its form's length by repeating its last value
            params[position] = value if index is None else value[min(index, len(value) - 1)]
        return sql, params, query

    def sql(self, **values: Any) -> tuple[str, list[Any]]:
        sql, params, _ = self._compiled(values)
        return sql, params

    def rows(self, **values: Any) -> list[tuple]:
        """Unconverted rows."""
        sql, params = self.sql(**values)
        return list(run_sql(sql, params))

    def column_index(self, field: peewee.Field) -> int:
        """Where the rows (`rows`) hold `field`'s value, as read (the same in every dialect's
        form: one query is built for each)."""
        index = self._indexes.get(field)
        if index is None:
            _, _, query, _ = self._form(tuple(1 for _ in self._lists))
            index = self._indexes[field] = next(
                i for i, column in enumerate(query.selected_columns)
                if isinstance(column, peewee.Field) and column.model is field.model
                and column.name == field.name)
        return index

    def execute(self, **values: Any) -> int:
        """Run a compiled UPDATE or DELETE: the number of rows it changed."""
        sql, params = self.sql(**values)
        return run_sql(sql, params).rowcount

    def models(self, model: type[peewee.Model], **values: Any) -> list[Any]:
        """Rows as instances of `model` (values converted), each with the instances of the
        models joined by its foreign keys (`Trail.select(Trail, Flow).join(Flow)` gives trails
        whose `.flow` is the row's flow). Built here from (field name, converter) pairs read
        off the query once: peewee's own row reader works them out again for every query.

        Each instance, joined ones too, keeps the row it was made of as `__row__`: its values
        as read, hashable, to key what is made of them (answers kept by `servicers.trails`).
        Computed columns (not a model's) are in `__row__` only."""
        sql, params, query = self._compiled(values)
        plan = self._plans.get(id(query))
        if plan is None:
            plan = self._plans[id(query)] = self._plan_of(query, model)
        own, joined = plan
        found = []
        for row in run_sql(sql, params):
            instance = instance_of(model, {name: convert(row[i]) for i, name, convert in own})
            instance.__row__ = row
            for attribute, other_model, columns in joined:
                other = instance.__rel__[attribute] = instance_of(
                    other_model, {name: convert(row[i]) for i, name, convert in columns})
                other.__row__ = row
            found.append(instance)
        return found

    @staticmethod
    def _plan_of(query: peewee.Query, model: type[peewee.Model]) -> tuple[list, list]:
        """(columns of `model`, [(foreign key attribute, joined model, its columns)]), each
        column as (index in the row, field name, converter)."""
        by_model: dict[type[peewee.Model], list[tuple[int, str, Callable[[Any], Any]]]] = {}
        for i, column in enumerate(query.selected_columns):
            if not isinstance(column, peewee.Field):
                continue  # a computed column: in `__row__` only
            convert = column.python_value if _converts(column) else _unconverted
            by_model.setdefault(column.model, []).append((i, column.name, convert))
        keys = {key.rel_model: key.name for key in model._meta.refs}
        if model not in by_model or any(m is not model and m not in keys for m in by_model):
            raise TypeError(f"Prepared.models needs {model.__name__}'s columns and those of "
                            "models its foreign keys join")
        return by_model[model], [(keys[m], m, columns) for m, columns in by_model.items()
                                 if m is not model]


def as_given(standin: Any) -> peewee.Value:
    """A stand-in of `Prepared` to be sent as the value given at run time, not converted by
    the field it is compared with or assigned to (a field whose conversion would refuse the
    stand-in, such as a DoubleField's). The caller gives the value the database stores."""
    return peewee.Value(standin, converter=False)


class PreparedInsert:
    """The INSERT of one row of `model` with every column (but an auto-incremented key),
    compiled once per SQL dialect: peewee builds an insert's SQL anew for every row, and on
    the write path that took longer than storing it. The values are converted by their fields
    at run time (`db_value`), as peewee converts them; a column not given gets its field's
    default, or NULL."""

    def __init__(self, model: type[peewee.Model]) -> None:
        self._model = model
        key = model._meta.primary_key
        self._auto_key = key.name if isinstance(key, peewee.AutoField) else None
        self._fields = [f for f in model._meta.sorted_fields if f.name != self._auto_key]
        self._forms: dict[type, tuple[str, list[peewee.Field]]] = {}

    def _form(self) -> tuple[str, list[peewee.Field]]:
        """(SQL, the field of each parameter in order)."""
        key = type(database.obj)
        form = self._forms.get(key)
        if form is None:
            standins = {Prepared._standin(str, f.name): f for f in self._fields}
            sql, template = self._model.insert(
                {f: as_given(s) for s, f in standins.items()}).sql()
            form = self._forms[key] = (sql, [standins[p] for p in template])
        return form

    def create(self, **values: Any) -> Any:
        """The row stored, as the instance `model.create(**values)` would give: defaults
        filled, foreign keys given as instances kept as its related instances, its new key."""
        sql, fields = self._form()
        instance = self._model(**values)
        data = instance.__data__
        cursor = run_sql(sql, [f.db_value(data.get(f.name)) for f in fields])
        if self._auto_key is not None:
            data[self._auto_key] = (cursor.fetchone()[0] if database.obj.returning_clause
                                    else cursor.lastrowid)
        instance._dirty.clear()
        return instance


def instance_of(model: type[M], values: dict[str, Any]) -> M:
    """A model instance of values already as its fields hold them (read from a row): without
    peewee's per-field assignment and defaults, which would cost more than the read."""
    instance = model(__no_default__=1)
    instance.__data__ = values
    return instance


def _unconverted(value: Any) -> Any:
    return value


# Fields whose values both drivers already give as the field would make them (text as str,
# integers as int, doubles as float): their conversion would change nothing.
_AS_READ = (peewee.CharField, peewee.TextField, peewee.IntegerField, peewee.BigIntegerField,
            peewee.AutoField, peewee.DoubleField)


def _converts(field: peewee.Field) -> bool:
    while isinstance(field, peewee.ForeignKeyField):
        field = field.rel_field
    return type(field) not in _AS_READ


def now() -> float:
    """Timestamps are float seconds since the epoch, as the contract renders them."""
    return time.time()
