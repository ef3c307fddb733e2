"""The transparency log under concurrent writers on a real multi-process server: every
acknowledged write has exactly one entry, entries are numbered 0..n-1 without gaps and the log
verifies (log.verify_log and `evidence-server verify-log`); after a kill -9 of every server
process mid-ingest, what was acknowledged is kept with its entry, no entry points at a missing
record, and a restarted server continues the log from where it stopped."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
import requests

from evidence_grpc.api.v2 import transparency_service_pb2 as transparency_pb
from evidence_grpc.api.v2 import transparency_service_pb2_grpc as transparency_grpc
from evidence_grpc.domain.evidence.manifests import latest_manifest, trail_entries
from evidence_grpc.domain.kernel import list_sizes
from evidence_grpc.domain.transparency import log, notes
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import (
    Attestation,
    Environment,
    ListEntry,
    ListSize,
    LogEntry,
    LogHead,
    Organization,
    Snapshot,
)
from tests.conftest import (
    POSTGRES_URL,
    RunningServer,
    _close_shared_database,
    bearer,
    fresh_database,
    start_server,
    stop_server,
)
from tests.helpers import TEMPLATE

H = bearer()
THREADS = 12
ATTESTATIONS = 240
FIRST_TRAILS = 12
TRAILS = ["release-1", *(f"side-{n:02d}" for n in range(FIRST_TRAILS - 1))]
KILL_TOTAL = 2_000  # more than are written in the second before the kill
KILL_AFTER = 60  # acknowledged writes, at most, before the kill
TIMEOUT = 20  # seconds, any one request


# ---- REST as the kosli CLI sends it, against a real server ---------------------------------------

def begin_trail(server: RunningServer, trail: str) -> requests.Response:
    with requests.Session() as session:
        return session.put(f"{server.http_url}/api/v2/trails/acme/payments", headers=H,
                           files={"data_json": (None, json.dumps({"name": trail}))},
                           timeout=TIMEOUT)


def create_flow_and_trail(server: RunningServer, session: requests.Session,
                          begin: bool = True) -> None:
    """Flow `payments` (TEMPLATE), its trail `release-1` (unless not `begin`), and the server
    environment `prod`."""
    parts: dict[str, tuple[str | None, bytes]] = {
        "data_json": (None, json.dumps({"name": "payments", "description": ""}).encode()),
        "template_file": ("template.yml", TEMPLATE.encode())}
    made = session.put(f"{server.http_url}/api/v2/flows/acme/template_file", headers=H,
                       files=parts, timeout=TIMEOUT)
    assert made.status_code == 201, made.text
    if begin:
        begun = begin_trail(server, "release-1")
        assert begun.status_code == 201, begun.text
    env = session.put(f"{server.http_url}/api/v2/environments/acme", headers=H,
                      json={"name": "prod", "type": "server", "description": ""}, timeout=TIMEOUT)
    assert env.status_code in (200, 201), env.text


def attest(server: RunningServer, session: requests.Session, name: str) -> requests.Response:
    """A generic attestation: multipart `data_json`, as tests/helpers.py `attest` builds it."""
    data = {"attestation_name": name, "is_compliant": True}
    return session.post(f"{server.http_url}/api/v2/attestations/acme/payments/trail/release-1/generic",
                        headers=H, files={"data_json": (None, json.dumps(data))}, timeout=TIMEOUT)


def report_env(server: RunningServer, session: requests.Session, n: int) -> requests.Response:
    """A `kosli snapshot server` report whose state differs from every other one (a snapshot)."""
    fingerprint = f"{n + 1:064x}"
    return session.put(f"{server.http_url}/api/v2/environments/acme/prod/report/server", headers=H,
                       json={"artifacts": [{"digests": {"app": fingerprint},
                                            "creationTimestamp": 1_700_000_000}]},
                       timeout=TIMEOUT)


class Ingest:
    """THREADS writers sending `total` attestations named a-0000.. (and an environment
    report after every 40th), recording which got a 201/200; each writer stops at its first
    connection failure (the server killed)."""

    def __init__(self, server: RunningServer, total: int = ATTESTATIONS) -> None:
        self.server = server
        self.lock = threading.Lock()
        self.acked: list[str] = []       # attestation names answered 201
        self.reports_acked = 0
        self.unexpected: list[tuple[str, int, str]] = []
        self.failures: list[str] = []    # connection errors (expected only after a kill)
        self.next = iter(range(total))
        self.pool = ThreadPoolExecutor(THREADS)
        self.futures = [self.pool.submit(self._writer) for _ in range(THREADS)]

    def _take(self) -> int | None:
        with self.lock:
            return next(self.next, None)

    def _writer(self) -> None:
        with requests.Session() as session:
            while (n := self._take()) is not None:
                name = f"a-{n:04d}"
                try:
                    answer = attest(self.server, session, name)
                    if answer.status_code == 201:
                        with self.lock:
                            self.acked.append(name)
                    else:
                        self.unexpected.append((name, answer.status_code, answer.text[:300]))
                    if n % 40 == 39:
                        report = report_env(self.server, session, n)
                        if report.status_code in (200, 201):
                            with self.lock:
                                self.reports_acked += 1
                        else:
                            self.unexpected.append((f"report {n}", report.status_code,
                                                    report.text[:300]))
                except requests.RequestException as error:
                    self.failures.append(f"{name}: {error!r}")
                    return

    def wait(self, timeout: float = 45) -> None:
        deadline = time.monotonic() + timeout
        for future in self.futures:
            future.result(timeout=max(deadline - time.monotonic(), 0.1))
        self.pool.shutdown()


# ---- the server's processes, all of them ---------------------------------------------------------

def _children() -> dict[int, list[int]]:
    """parent pid -> child pids, from /proc."""
    found: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        found.setdefault(ppid, []).append(int(entry))
    return found


def _tree(root: int) -> list[int]:
    children, pids, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo += children.get(pid, [])
    return pids


def kill_all(server: RunningServer) -> None:
    """SIGKILL `serve` and every process under it (grpc and its forks, the shim's gunicorn
    arbiter and workers, deliver). They share the test's process group, so the tree is walked:
    first stopped (SIGSTOP: no arbiter forks a replacement meanwhile), then killed."""
    seen: set[int] = set()
    for _ in range(3):  # again, for a process forked while the tree was walked
        tree = [pid for pid in _tree(server.process.pid) if pid not in seen]
        if not tree:
            break
        for pid in tree:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
        seen.update(tree)
    for pid in seen:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    server.process.wait(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the orphans (reaped by init) are gone
        alive = [pid for pid in seen if pathlib.Path(f"/proc/{pid}").exists()
                 and "Z" != _state(pid)]
        if not alive:
            return
        time.sleep(0.05)
    raise AssertionError(f"server processes still alive after SIGKILL: {alive}")


def _state(pid: int) -> str:
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "Z"
    return stat[stat.rindex(")") + 2:].split()[0]


# ---- the database, read by the test ---------------------------------------------------------------

@contextlib.contextmanager
def opened(url: str) -> Iterator[Organization]:
    storage.init_database(url)
    try:
        with storage.database.connection_context():
            yield Organization.get(Organization.name == "acme")
    finally:
        _close_shared_database()


def check_lists() -> None:
    """Every paged list's items numbered 1..its size, each of its rows once (issue 48: the
    writers that raced for a list took its positions in turn)."""
    for name, kind in list_sizes.KINDS.items():
        rows: dict[int, set[int]] = {}
        for item, owner in list_sizes.listed_rows(kind, kind.items._meta.primary_key,
                                                  kind.owner).tuples():
            rows.setdefault(owner, set()).add(item)
        sizes = dict(ListSize.select(ListSize.owner, ListSize.size).where(
            ListSize.kind == name).tuples())
        placed: dict[int, list[tuple[int, int]]] = {}
        for owner, position, item in ListEntry.select(
                ListEntry.owner, ListEntry.position, ListEntry.item).where(
                ListEntry.list_kind == kind.code).order_by(ListEntry.position).tuples():
            placed.setdefault(owner, []).append((position, item))
        assert sizes == {owner: len(items) for owner, items in rows.items()}, name
        for owner, items in rows.items():
            assert [p for p, _ in placed[owner]] == list(range(1, len(items) + 1)), name
            assert sorted(i for _, i in placed[owner]) == sorted(items), name


def check_log(org: Organization, acked: list[str]) -> int:
    """Every acknowledged attestation stored once with exactly one entry; every stored
    attestation and snapshot with one; entries 0..n-1; verify_log clean. Returns n."""
    rows = list(Attestation.select(Attestation.id, Attestation.name)
                .where(Attestation.organization == org))
    by_name: dict[str, list[int]] = {}
    for row in rows:
        by_name.setdefault(row.name, []).append(row.id)
    missing = sorted(name for name in acked if name not in by_name)
    assert not missing, f"acknowledged (201) attestations not stored: {missing}"
    doubled = {name: ids for name, ids in by_name.items() if len(ids) != 1}
    assert not doubled, f"attestations stored more than once: {doubled}"
    entries = list(LogEntry.select(LogEntry.number, LogEntry.kind, LogEntry.record_id)
                   .where(LogEntry.organization == org).order_by(LogEntry.number))
    numbers = [e.number for e in entries]
    assert numbers == list(range(len(entries))), \
        f"entry numbers are not 0..{len(entries) - 1}: gaps at " \
        f"{sorted(set(range(len(entries))) - set(numbers))[:20]}"
    head = LogHead.get(LogHead.organization == org)
    assert head.size == len(entries)
    per_record: dict[tuple[str, int], int] = {}
    for e in entries:
        per_record[(e.kind, e.record_id)] = per_record.get((e.kind, e.record_id), 0) + 1
    # a trail has a manifest a write: its latest lists every entry of the trail
    assert {k: n for k, n in per_record.items() if n != 1 and k[0] != "trail_manifest"} == {}, \
        "records with several entries"
    for (kind, trail_id), _ in per_record.items():
        if kind == "trail_manifest":
            latest = json.loads(LogEntry.get((LogEntry.organization == org) & (
                LogEntry.number == latest_manifest(trail_id))).leaf)
            assert latest["entries_sha256"] == log.entries_digest(trail_entries(trail_id))
    attested = {rid for kind, rid in per_record if kind == "attestation"}
    assert attested == {row.id for row in rows}, (
        f"attestations without an entry: {sorted({r.id for r in rows} - attested)}; "
        f"entries of no attestation: {sorted(attested - {r.id for r in rows})}")
    for name in acked:
        assert per_record.get(("attestation", by_name[name][0])) == 1
    snapshots = {s.id for s in Snapshot.select(Snapshot.id).join(Environment)
                 .where(Environment.organization == org)}
    assert {rid for kind, rid in per_record if kind == "snapshot"} == snapshots
    problems = log.verify_log(org)
    assert not [p for p in problems if "no longer exists" in p], problems
    assert problems == [], explained(org, problems)
    return len(entries)


def explained(org: Organization, problems: list[str]) -> str:
    """The problems, with the leaf logged and the leaf the row makes now for each record
    that differs from its leaf."""
    lines = list(problems)
    for problem in problems:
        words = problem.split()
        if "differs" in words and words[0] == "entry":
            number, kind, record_id = int(words[1].rstrip(":")), words[2], int(words[3])
            stored = LogEntry.get((LogEntry.organization == org) & (LogEntry.number == number))
            lines.append(f"  logged: {stored.leaf}")
            lines.append(f"  now:    {log.canonical(log._REBUILDERS[kind]([record_id])[record_id])!r}")
            if kind == "snapshot":
                row = Snapshot.get_by_id(record_id)
                lines.append(f"  row:    index {row.index} created_at {row.created_at!r} "
                             f"artifacts {row.artifacts} verdicts {row.verdicts}")
    return "\n".join(lines)


def verify_log_cli(url: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evidence_grpc.cli", "verify-log",
                           "--database-url", url, "--org", "acme"],
                          capture_output=True, text=True, timeout=60)


def assert_signed_with(server: RunningServer, key_file: pathlib.Path) -> None:
    """Both doors answer the key of `key_file` (`serve --log-key-file`), and the checkpoint
    the REST door serves verifies with it."""
    vkey = log.read_signer(str(key_file)).vkey
    rest = requests.get(f"{server.http_url}/api/v2/transparency/acme/public-key", headers=H,
                        timeout=TIMEOUT)
    assert rest.text.strip() == vkey
    with grpc.insecure_channel(server.grpc_target) as channel:
        answer = transparency_grpc.TransparencyServiceStub(channel).GetLogPublicKey(
            transparency_pb.GetLogPublicKeyRequest(org="acme"),
            metadata=[("authorization", H["Authorization"])], timeout=TIMEOUT)
    assert answer.data.decode().strip() == vkey
    note = requests.get(f"{server.http_url}/api/v2/transparency/acme/checkpoint", headers=H,
                        timeout=TIMEOUT).text
    notes.open_checkpoint(note, notes.parse_verifier_key(vkey))


# ---- the tests ------------------------------------------------------------------------------------

@pytest.mark.skipif(not POSTGRES_URL, reason="several writing processes at once: PostgreSQL's")
def test_many_writers_in_several_processes_make_one_gap_free_log(tmp_path, request):
    with fresh_database("postgresql", tmp_path, request) as url:
        key_file = tmp_path / "operator.key"  # the operator's key: every process signs with it
        server = start_server(url, tmp_path, "--grpc-workers", "2", "--workers", "3",
                              "--log-key-file", str(key_file))
        try:
            with requests.Session() as session:
                create_flow_and_trail(server, session, begin=False)
            # the organization's first entries at once: the writers race to make its LogHead
            with ThreadPoolExecutor(FIRST_TRAILS) as pool:
                begun = list(pool.map(lambda trail: begin_trail(server, trail), TRAILS))
            assert [b.status_code for b in begun] == [201] * FIRST_TRAILS, \
                [(b.status_code, b.text) for b in begun]
            ingest = Ingest(server)
            ingest.wait()
            assert_signed_with(server, key_file)
        finally:
            stop_server(server)
        assert ingest.failures == [] and ingest.unexpected == [], (
            ingest.failures[:5], ingest.unexpected[:5])
        assert len(ingest.acked) == ATTESTATIONS
        assert ingest.reports_acked == ATTESTATIONS // 40
        with opened(url) as acme:
            size = check_log(acme, ingest.acked)
            check_lists()
            # the genesis (one, first, however many writers found the log empty); the flow
            # and the environment; a trail and its event per trail begun; the attestations;
            # each write of a trail with its manifest; a snapshot per report
            assert size == 1 + 2 + FIRST_TRAILS + 2 * (FIRST_TRAILS + ATTESTATIONS) \
                + ATTESTATIONS // 40, size
            assert [e.number for e in LogEntry.select().where(
                LogEntry.kind == log.BEGUN)] == [0]
            assert Snapshot.select().count() == ATTESTATIONS // 40
        done = verify_log_cli(url)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"acme: ok ({size} entries" in done.stdout, done.stdout


def test_kill_9_mid_ingest_keeps_every_acknowledged_entry(database_url, tmp_path):
    server = start_server(database_url, tmp_path, "--grpc-workers", "2", "--workers", "2")
    try:
        with requests.Session() as session:
            create_flow_and_trail(server, session)
        ingest = Ingest(server, total=KILL_TOTAL)
        started = time.monotonic()
        # half a second in (sooner when the writes are fast: the kill must cut the ingest),
        # and never before some writes were acknowledged
        while not KILL_AFTER <= len(ingest.acked) and (
                time.monotonic() - started < 0.5 or
                (len(ingest.acked) < 10 and time.monotonic() - started < 15)):
            time.sleep(0.02)
        kill_all(server)
        acked_at_kill = list(ingest.acked)
        ingest.wait()
    finally:
        if server.process.poll() is None:
            kill_all(server)
    assert ingest.unexpected == [], ingest.unexpected[:5]
    # acknowledged after the snapshot above only if the answer was already on its way
    acked = list(ingest.acked)
    assert len(acked_at_kill) >= 10, "no write was acknowledged before the kill"
    assert len(acked) < KILL_TOTAL, "the kill came after the whole ingest: nothing was cut"
    with opened(database_url) as acme:
        size = check_log(acme, acked)
        check_lists()
    assert size >= 1 + len(acked)

    restart = tmp_path / "restart"
    restart.mkdir()
    # the organization and its key are in the database already
    server = start_server(database_url, restart, "--grpc-workers", "1", "--workers", "1",
                          bootstrap_with=None)
    try:
        with requests.Session() as session:
            late = attest(server, session, "after-restart")
            assert late.status_code == 201, late.text
    finally:
        stop_server(server)
    with opened(database_url) as acme:
        assert check_log(acme, [*acked, "after-restart"]) == size + 2  # and its manifest
        row = Attestation.get(Attestation.name == "after-restart")
        entry = LogEntry.get((LogEntry.kind == "attestation") & (LogEntry.record_id == row.id))
        assert entry.number == size
    done = verify_log_cli(database_url)
    assert done.returncode == 0, done.stdout + done.stderr
