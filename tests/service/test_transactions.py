"""Transactions: on the one write path a transaction PostgreSQL rolls back because of a
concurrent one (a deadlock's victim, a serialization failure) runs again instead of answering
500, and writers of one policy take turns on its row; a read call sees one snapshot of the
database however many statements it runs (both engines)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import peewee
import pytest

from evidence_grpc.domain.governance.policies import upsert_policy
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Organization, Policy, PolicyEvent, PolicyVersion
from tests.conftest import POSTGRES_URL, bearer

RULES = "_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n  provenance:\n" \
        "    required: {}\n"


class _Rolled(Exception):
    def __init__(self, pgcode: str) -> None:
        self.pgcode = pgcode


def _failing(code: str, times: int) -> tuple[list[str], object]:
    """A transaction rolled back with `code` `times` times, then done; the list of its runs."""
    calls: list[str] = []

    def fn() -> str:
        calls.append(code)
        if len(calls) <= times:
            raise peewee.OperationalError(_Rolled(code))
        return "done"

    return calls, fn


@pytest.mark.parametrize(("code", "retried"), [("40001", True), ("40P01", True),
                                               ("42P01", False), ("57014", False)])
def test_only_transactions_lost_to_a_concurrent_one_are_run_again(code: str, retried: bool
                                                                  ) -> None:
    calls, fn = _failing(code, 2)
    if retried:
        assert storage.retry_on_conflict(fn) == "done"
        assert len(calls) == 3
    else:
        with pytest.raises(peewee.OperationalError):
            storage.retry_on_conflict(fn)
        assert len(calls) == 1


def test_retries_end() -> None:
    calls, fn = _failing("40P01", 5)
    with pytest.raises(peewee.OperationalError):
        storage.retry_on_conflict(fn, attempts=3)
    assert len(calls) == 3


@pytest.mark.skipif(not POSTGRES_URL, reason="deadlocks are PostgreSQL's")
@pytest.mark.parametrize("engine", ["postgresql"], indirect=True)
def test_a_deadlock_victim_is_run_again(db: str) -> None:
    """Two transactions update two rows in opposite orders: PostgreSQL aborts one as the
    deadlock's victim, and it runs again after the other commits."""
    one, two = [o.id for o in Organization.select().order_by(Organization.id).limit(2)]
    meet = threading.Barrier(2, timeout=10)
    attempts: list[int] = []

    def cross(first: int, second: int) -> int:
        def transaction() -> int:
            attempts.append(first)
            with storage.write_transaction():
                Organization.update(last_modified_at=1).where(Organization.id == first).execute()
                if attempts.count(first) == 1:  # both hold their first row: now cross
                    meet.wait()
                Organization.update(last_modified_at=2).where(Organization.id == second).execute()
            return first

        with storage.call_scope():
            return storage.retry_on_conflict(transaction)

    with ThreadPoolExecutor(2) as pool:
        done = sorted(pool.map(cross, (one, two), (two, one)))
    assert done == sorted((one, two))
    assert len(attempts) == 3  # the victim ran twice
    # The victim committed last: its first row holds 1, its second 2.
    victim = max(set(attempts), key=attempts.count)
    assert {o.id: o.last_modified_at for o in Organization.select().where(
        Organization.id.in_((one, two)))} == {victim: 1, ({one, two} - {victim}).pop(): 2}


def test_concurrent_writers_of_one_policy_take_turns(db: str) -> None:
    """Eight writers of one new policy at once: one creates it, each other adds its version;
    the versions are numbered without gaps and each is recorded once."""
    org = Organization.get(Organization.name == "acme")

    def write(n: int) -> bool:
        with storage.call_scope():
            return upsert_policy(org, "alice", "rules", description=f"by writer {n}", comment="",
                                 policy_type=None, policy_yaml=RULES.format(
                                     "true" if n % 2 else "false") + f"# {n}\n")[1]

    with ThreadPoolExecutor(8) as pool:
        created = list(pool.map(write, range(8)))
    assert created.count(True) == 1
    policy = Policy.get(Policy.name == "rules")
    assert sorted(v.version for v in PolicyVersion.select().where(PolicyVersion.policy == policy)
                  ) == list(range(1, 9))
    kinds = [e.type for e in PolicyEvent.select().where(PolicyEvent.policy == policy)]
    assert (kinds.count("creation"), kinds.count("new_version")) == (1, 7)
    assert policy.description.startswith("by writer ")


def _other_writer(database_url: str, name: str) -> None:
    """A commit by another connection (a thread has its own)."""
    def write() -> None:
        with storage.call_scope(), storage.write_transaction():
            Organization.create(name=name, created_at=1, last_modified_at=1)

    thread = threading.Thread(target=write)
    thread.start()
    thread.join(10)


def test_a_read_call_sees_one_snapshot(db: str) -> None:
    with storage.read_snapshot():
        before = Organization.select().count()
        _other_writer(db, "committed-meanwhile")
        assert Organization.select().count() == before
    assert Organization.select().count() == before + 1


def test_a_read_call_reads_in_one_snapshot(client, db: str,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """A read RPC's statements run in the snapshot its first one took: a commit between two
    of them (here, after the caller's key is checked) is not seen by the second."""
    from evidence_grpc.domain.evidence import flows

    found, seen = flows.list_flows, []

    def list_flows_with_a_commit_between(*args: object, **kwargs: object) -> object:
        Organization.select().count()  # the call's snapshot is taken by now
        _other_writer(db, "flow-org")
        seen.append(Organization.select().where(Organization.name == "flow-org").count())
        return found(*args, **kwargs)

    monkeypatch.setattr(flows, "list_flows", list_flows_with_a_commit_between)
    # a page: the unary ListFlows (the whole list is streamed by StreamFlows)
    assert client.get("/api/v2/flows/acme?page=1&per_page=10", headers=bearer()).status_code == 200
    assert seen == [0]
    assert Organization.select().where(Organization.name == "flow-org").count() == 1


@pytest.mark.skipif(not POSTGRES_URL, reason="READ ONLY is PostgreSQL's")
@pytest.mark.parametrize("engine", ["postgresql"], indirect=True)
def test_a_read_call_cannot_write_on_postgresql(db: str) -> None:
    with pytest.raises(peewee.InternalError, match="read-only"), storage.read_snapshot():
        Organization.update(last_modified_at=3).execute()


def test_work_left_for_the_transactions_end_runs_once_and_the_last_after_the_rest(db):
    """at_transaction_end: each name runs once with all its items, before the commit; one
    marked `last` (the transparency log's head lock) after the others, whatever the order in
    which they were added, so that every writer takes that lock last."""
    ran: list[tuple[str, list[int]]] = []

    def runner(name: str):
        return lambda items: ran.append((name, sorted(items)))

    with storage.write_transaction():
        storage.at_transaction_end("log", runner("log"), [1], last=True)
        storage.at_transaction_end("series", runner("series"), [2])
        storage.at_transaction_end("log", runner("log"), [3], last=True)
        storage.at_transaction_end("links", runner("links"), [4])
        assert ran == []
    assert ran == [("series", [2]), ("links", [4]), ("log", [1, 3])]
    storage.at_transaction_end("now", runner("now"), [5])  # outside a transaction: at once
    assert ran[-1] == ("now", [5])


def _terminate(database_url: str, pid: int) -> None:
    import psycopg2

    admin = psycopg2.connect(database_url)
    admin.autocommit = True
    try:
        with admin.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))  # and wait
    finally:
        admin.close()


@pytest.mark.skipif(not POSTGRES_URL, reason="the pool is PostgreSQL's")
@pytest.mark.parametrize("engine", ["postgresql"], indirect=True)
def test_a_pooled_connection_whose_backend_ended_is_replaced(db: str, monkeypatch) -> None:
    """A connection back in the pool a moment ago is handed out again without a statement
    of its own (peewee's `SELECT 1`, asked on every checkout, was a third of a kept read's
    round trips); one whose backend was terminated meanwhile has something to read (its
    server's last message), is asked, replaced, and the call succeeds; one idle longer than
    IDLE_CHECK_SECONDS is asked."""
    storage.release_connections()
    pool = storage.database.obj
    asked = []
    ask = pool._adapter.is_connection_closed
    monkeypatch.setattr(pool._adapter, "is_connection_closed",
                        lambda conn: asked.append(conn) or ask(conn))
    with storage.call_scope():
        first = pool.connection()
        pid = first.get_backend_pid()
        Organization.select().where(Organization.name == "marker-read").count()
    with storage.call_scope():
        assert pool.connection() is first
    assert asked == []
    monkeypatch.setattr(storage, "IDLE_CHECK_SECONDS", 0.0)
    with storage.call_scope():
        assert pool.connection() is first
    assert asked == [first]
    monkeypatch.undo()
    monkeypatch.setattr(pool._adapter, "is_connection_closed",
                        lambda conn: asked.append(conn) or ask(conn))
    _terminate(db, pid)
    with storage.call_scope():
        assert pool.connection() is not first
        assert Organization.select().count() >= 1
    assert asked == [first, first]


@pytest.mark.skipif(not POSTGRES_URL, reason="statements are prepared on PostgreSQL")
@pytest.mark.parametrize("engine", ["postgresql"], indirect=True)
def test_a_select_postgresql_will_not_prepare_runs_as_text(db: str, monkeypatch) -> None:
    """A SELECT whose value's type PostgreSQL cannot tell (`$1 IS NULL`) is refused by PREPARE:
    it answers as text, then and ever after, and a SELECT it prepares answers as before."""
    prepared = storage.ServerPrepared()  # what this process has prepared is left alone
    monkeypatch.setattr(storage, "_server_prepared", prepared)
    untyped = storage.Prepared(lambda value: Organization.select(Organization.name).where(
        storage.as_given(value).is_null()), value=str)
    named = storage.Prepared(lambda name: Organization.select(Organization.name).where(
        Organization.name == name), name=str)
    with storage.call_scope():
        for _ in range(2):
            assert untyped.rows(value="x") == []
            assert named.rows(name="acme") == [("acme",)]
    assert prepared._refused == {untyped.sql(value="x")[0]}



def test_a_whole_number_beyond_an_int4_column_finds_no_row(db: str, monkeypatch) -> None:
    """A prepared SELECT takes whole numbers as bigint: an id no int4 column can hold (a
    hostile page or session handle) finds nothing, where PostgreSQL's inferred int4 refused it
    (integer out of range: a 500)."""
    prepared = storage.ServerPrepared()
    monkeypatch.setattr(storage, "_server_prepared", prepared)
    by_id = storage.Prepared(lambda row: Organization.select(Organization.name).where(
        Organization.id == row), row=int)
    with storage.call_scope():
        acme = Organization.get(Organization.name == "acme").id
        for _ in range(2):
            assert by_id.rows(row=2**63 - 1) == []
            assert by_id.rows(row=acme) == [("acme",)]
    assert prepared._refused == set()
