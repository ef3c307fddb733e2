"""The transparency log (issue 33): what appending costs the ingest path, and checkpoints and
proofs at 1M entries.

Run by hand (not a test):

    python bench/bench_transparency.py --part proofs --quick      # 100,000 entries (~2 min)
    python bench/bench_transparency.py --part proofs              # 1,000,000 entries (~3-5 min)
    python bench/bench_transparency.py --part proofs --postgres postgresql://postgres@127.0.0.1:55432/postgres
    git -C /work/main worktree add /tmp/before-log 3567799         # the code right before the log
    python bench/bench_transparency.py --part ingest --before /tmp/before-log
    git -C /work/main archive dddfeca | tar -x -C /tmp/before-verify   # verify-log before issue 45
    python bench/bench_transparency.py --part verify --before /tmp/before-verify [--postgres URL]
    python bench/bench_transparency.py --part coverage [--sizes 1000000] [--postgres URL]

  ingest  bench_evidence.py's ingest part (1 KB generic attestations over REST, --concurrency
          clients, 2 s warm-up + --seconds) run as a subprocess of each checkout: this one and
          --before (the commit before the log), alternating, --rounds rounds each. Side by side:
          attestations/s, p99, server CPU per attestation, and the ratio after / before.
          Target: appending costs <= 10 % (ingest stays >= 500/s).
  proofs  a log of --entries synthetic leaves ({"kind": "attestation", "n": i}, RFC 8785) in one
          organization, built in Python with domain.transparency.merkle and bulk-inserted as
          LogEntry (each with its hashes) / LogHead rows (a 1,000-entry log built the same way is first
          checked by log.verify_log). Then a real `evidence-server serve` on that database: at
          c=1 (one bare-socket keep-alive client, --requests a kind, --rounds rounds) and at c=8
          (spawned clients, --c8-seconds windows, --rounds rounds): GET checkpoint, GET
          entries/{random}, the inclusion proof of a random index at the full size, the
          consistency proof from a random size to the full size (REST), and the inclusion proof
          over gRPC. Answers are checked outside the timed span (proofs verified against the
          checkpoint's root). Target: p99 < 10 ms. `--profile` adds a cProfile of in-process
          proofs and appends.
  verify  `evidence-server verify-log` over logs of --sizes synthetic entries (built as for
          proofs, one organization), run as a subprocess of this checkout and of --before
          (the synthetic kind's rebuilder registered first): wall time and peak RSS of each
          (os.wait4's ru_maxrss), --rounds rounds, alternating. Target: RSS flat in the size.
  coverage  verify-log's check that every record has its entry (log.check_coverage, in
          process) over --sizes attestations, each with an entry: time and peak traced memory.
          Target: memory flat in the size.

All traffic goes to 127.0.0.1; servers and temporary files are removed at the end.
"""

from __future__ import annotations

import argparse
import base64
import cProfile
import dataclasses
import io
import json
import os
import pathlib
import pstats
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from _common import (
    ROOT,
    ClientPool,
    LeanKeepAlive,
    Window,
    WorkerResult,
    budgeted,
    describe_machine,
    expect,
    http_call,
    load_average,
    load_window,
    percentile,
    recording_sql,
    run_window,
    running_server,
    scratch_dir,
    scratch_postgres,
    summarize,
    use_source,
)

use_source(ROOT)

ORG = "acme"
KEY = "bench-transparency-secret"
AUTH = {"Authorization": f"Bearer {KEY}"}
TARGET_MS = 10.0
INGEST_RATIO_TARGET = 0.90  # after / before: appending costs at most 10 %
INGEST_TARGET = 500.0
KINDS = ("checkpoint", "entry", "inclusion", "consistency", "grpc-inclusion")
LABELS = {"checkpoint": "GET checkpoint", "entry": "GET entries/{random}",
          "inclusion": "GET inclusion proof (random, full size)",
          "consistency": "GET consistency proof (random -> full)",
          "grpc-inclusion": "gRPC GetLogInclusionProof"}
BENCH_KIND = "bench"  # LogEntry.kind of the synthetic entries (a rebuilder is registered here)


def synthetic_leaf(n: int) -> dict[str, Any]:
    return {"kind": "attestation", "n": n}


# ---- building a log straight into the database -------------------------------------------------

def _columns(model: Any) -> tuple[str, list[str]]:
    fields = [f for f in model._meta.sorted_fields if f.name != "id"]
    return model._meta.table_name, [f.column_name for f in fields]


@contextmanager
def _raw_connection(database_url: str) -> Iterator[tuple[Any, str]]:
    """(DB-API connection, placeholder) of the database, committed at the end."""
    if database_url.startswith("sqlite:///"):
        conn = sqlite3.connect(database_url[len("sqlite:///"):], timeout=60)
        conn.execute("PRAGMA synchronous = OFF")
        try:
            yield conn, "?"
            conn.commit()
        finally:
            conn.close()
    else:
        import psycopg2
        conn = psycopg2.connect(database_url)
        try:
            yield conn, "%s"
            conn.commit()
        finally:
            conn.close()


def _insert(conn: Any, mark: str, table: str, columns: list[str], rows: list[tuple[Any, ...]],
            chunk: int = 50_000) -> None:
    """executemany (SQLite) / execute_values (PostgreSQL), committed every `chunk` rows."""
    names = ", ".join(f'"{c}"' for c in columns)
    if mark == "?":
        sql = f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})'
        for start in range(0, len(rows), chunk):
            conn.executemany(sql, rows[start:start + chunk])
            conn.commit()
    else:
        from psycopg2.extras import execute_values
        sql = f'INSERT INTO "{table}" ({names}) VALUES %s'
        with conn.cursor() as cursor:
            for start in range(0, len(rows), chunk):
                execute_values(cursor, sql, rows[start:start + chunk], page_size=5000)
                conn.commit()


@dataclasses.dataclass
class BuiltLog:
    size: int
    root: bytes
    seconds_build: float
    seconds_insert: float
    hashes: int


def build_log(database_url: str, org_id: int, size: int) -> BuiltLog:
    """Replace the organization's log by `size` synthetic entries (rows as log.append writes)."""
    from evidence_grpc.domain.transparency import log, merkle
    from evidence_grpc.storage.models import LogEntry, LogHead

    started = time.monotonic()
    entry_table, entry_columns = _columns(LogEntry)
    head_table, head_columns = _columns(LogHead)
    by_name = {"organization_id": org_id}
    frontier: list[bytes] = []
    entry_rows = []
    hashes = 0
    for n in range(size):
        leaf = log.canonical(synthetic_leaf(n))
        made = merkle.append_leaf(frontier, n, merkle.leaf_hash(leaf))
        hashes += len(made)
        values = {**by_name, "number": n, "kind": BENCH_KIND, "record_id": n,
                  "leaf": leaf.decode(), "hashes": b"".join(made)}
        entry_rows.append(tuple(values[c] for c in entry_columns))
    root = merkle.frontier_root(frontier)
    built = time.monotonic()
    with _raw_connection(database_url) as (conn, mark):
        cursor = conn.cursor()
        for table in (entry_table, head_table):
            cursor.execute(f'DELETE FROM "{table}" WHERE "organization_id" = {mark}', (org_id,))
        conn.commit()
        _insert(conn, mark, entry_table, entry_columns, entry_rows)
        head = {**by_name, "size": size, "origin": None,  # the origin of the host's name
                "frontier": json.dumps([h.hex() for h in frontier], separators=(",", ":"))}
        _insert(conn, mark, head_table, head_columns, [tuple(head[c] for c in head_columns)])
        if mark == "?":
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        else:
            cursor.execute(f'ANALYZE "{entry_table}"')
    return BuiltLog(size, root, built - started, time.monotonic() - built, hashes)


def sanity_check(database_url: str, org_id: int, size: int = 1000) -> None:
    """A small log built by build_log passes log.verify_log (its leaves re-derived by a
    rebuilder registered for the synthetic kind), and agrees with the in-memory tree."""
    from evidence_grpc.domain.transparency import log, merkle
    from evidence_grpc.storage.db import database
    from evidence_grpc.storage.models import Organization

    log.register(BENCH_KIND, lambda ids: {i: synthetic_leaf(i) for i in ids})
    built = build_log(database_url, org_id, size)
    with database.connection_context():
        org = Organization.get_by_id(org_id)
        problems = log.verify_log(org)
        now_size, now_root = log.size_and_root(org)
        proof = log.inclusion_proof(org, 123, size)
        merkle.verify_inclusion(123, size, merkle.leaf_hash(log.canonical(synthetic_leaf(123))),
                                proof, built.root)
        merkle.verify_consistency(77, size, merkle.root([merkle.leaf_hash(log.canonical(
            synthetic_leaf(n))) for n in range(77)]), built.root, log.consistency_proof(org, 77, size))
    if problems or (now_size, now_root) != (size, built.root):
        raise RuntimeError(f"the bulk-built log does not verify: {problems[:5]} "
                           f"(size {now_size}, root {now_root.hex()})")
    print(f"  sanity: a {size:,}-entry log built this way passes log.verify_log, and its domain "
          "root and proofs agree with merkle's", flush=True)


# ---- requests ---------------------------------------------------------------------------------

def rest_path(kind: str, rng: random.Random, size: int) -> str:
    base = f"/api/v2/transparency/{ORG}"
    if kind == "checkpoint":
        return f"{base}/checkpoint"
    if kind == "entry":
        return f"{base}/entries/{rng.randrange(size)}"
    if kind == "inclusion":
        return f"{base}/proofs/inclusion?index={rng.randrange(size)}&tree_size={size}"
    return f"{base}/proofs/consistency?first={rng.randint(1, size)}&second={size}"


@dataclasses.dataclass(frozen=True)
class ProofJob:
    rest: str
    grpc: str
    kind: str
    size: int
    seed: int
    window: Window | None = None  # c=8: a time window; c=1: `requests` back to back
    requests: int = 0
    warmup: int = 0
    budget: float = 60.0


def _caller(job: ProofJob) -> tuple[Callable[[], tuple[bool, str]], Callable[[], None]]:
    rng = random.Random(job.seed)
    if job.kind == "grpc-inclusion":
        import grpc

        from evidence_grpc.api.v2 import transparency_service_pb2 as pb
        from evidence_grpc.api.v2 import transparency_service_pb2_grpc as pb_grpc
        channel = grpc.insecure_channel(job.grpc, options=[("grpc.use_local_subchannel_pool", 1)])
        stub = pb_grpc.TransparencyServiceStub(channel)
        metadata = (("authorization", f"Bearer {KEY}"),)

        def grpc_call() -> tuple[bool, str]:
            request = pb.GetLogInclusionProofRequest(org=ORG, index=rng.randrange(job.size),
                                                     tree_size=job.size)
            try:
                answer = stub.GetLogInclusionProof(request, metadata=metadata, timeout=30)
            except grpc.RpcError as exc:
                return False, f"{exc.code()}: {exc.details()}"  # type: ignore[attr-defined]
            return bool(answer.hashes) or job.size == 1, ""

        return grpc_call, channel.close
    conn = LeanKeepAlive(job.rest, timeout=30)

    def rest_call() -> tuple[bool, str]:
        answered, status, payload, error = conn.checked("GET", rest_path(job.kind, rng, job.size),
                                                        headers=AUTH)
        if not answered:
            return False, error
        if status != 200:
            return False, f"HTTP {status}: {payload[:200]!r}"
        return True, ""

    return rest_call, conn.close


def run_proof_job(index: int, job: ProofJob) -> WorkerResult:
    call, close = _caller(job)
    try:
        if job.window is not None:
            return run_window(call, job.window)
        latencies, failures, _ = budgeted(lambda _i: call()[0], job.warmup, job.requests, job.budget)
        return WorkerResult(latencies=latencies, ok=len(latencies), errors=failures)
    finally:
        close()


def _crashed(message: str) -> WorkerResult:
    return WorkerResult(latencies=[], errors=1, first_error=message)


def check_answers(rest: str, size: int, root: bytes) -> None:
    """Each REST answer once, verified against the checkpoint's root (not timed)."""
    from evidence_grpc.domain.transparency import log, merkle

    status, body = http_call(rest, "GET", f"/api/v2/transparency/{ORG}/checkpoint", headers=AUTH)
    expect(status, body, (200,), "the checkpoint")
    lines = body.decode().split("\n")
    if int(lines[1]) != size or base64.b64decode(lines[2]) != root:
        raise RuntimeError(f"the served checkpoint is not the built tree's: {lines[:3]}")
    rng = random.Random(7)
    for _ in range(5):
        index = rng.randrange(size)
        status, body = http_call(rest, "GET", f"/api/v2/transparency/{ORG}/entries/{index}",
                                 headers=AUTH)
        expect(status, body, (200,), "an entry")
        leaf = base64.b64decode(json.loads(body)["leaf"])
        if leaf != log.canonical(synthetic_leaf(index)):
            raise RuntimeError(f"entry {index} is {leaf!r}")
        status, body = http_call(rest, "GET", f"/api/v2/transparency/{ORG}/proofs/inclusion"
                                 f"?index={index}&tree_size={size}", headers=AUTH)
        expect(status, body, (200,), "an inclusion proof")
        merkle.verify_inclusion(index, size, merkle.leaf_hash(leaf),
                                [base64.b64decode(h) for h in json.loads(body).get("hashes", [])],
                                root)
    first = rng.randint(1, size - 1) if size > 1 else 1
    status, body = http_call(rest, "GET", f"/api/v2/transparency/{ORG}/proofs/consistency"
                             f"?first={first}&second={size}", headers=AUTH)
    expect(status, body, (200,), "a consistency proof")
    proof = [base64.b64decode(h) for h in json.loads(body).get("hashes", [])]
    if first < size and len(proof) == 0:
        raise RuntimeError("an empty consistency proof")
    print(f"  answers checked: checkpoint (size {size:,}, root {root.hex()[:16]}...), 5 entries "
          "and their inclusion proofs verified against it, a consistency proof served", flush=True)


@dataclasses.dataclass
class Measured:
    n: int
    p50: float
    p99: float
    max: float
    errors: int
    rate: float = float("nan")
    server_ms: float = float("nan")
    first_error: str = ""


def _measured(latencies: list[float], errors: int, **extra: Any) -> Measured:
    ordered = sorted(latencies)
    return Measured(len(ordered), percentile(ordered, 0.5) * 1000,
                    percentile(ordered, 0.99) * 1000,
                    (ordered[-1] * 1000) if ordered else float("nan"), errors, **extra)


def measure_proofs(rest: str, grpc_addr: str, server_pid: int, size: int,
                   args: argparse.Namespace) -> dict[tuple[str, int], list[Measured]]:
    results: dict[tuple[str, int], list[Measured]] = {}
    pool: ClientPool[ProofJob, WorkerResult] = ClientPool(args.concurrency, run_proof_job)
    try:
        for number in range(args.rounds):
            for kind in KINDS:
                # c=1: one client process (as the c=8 ones), `requests` back to back
                job = ProofJob(rest, grpc_addr, kind, size, seed=1000 * number + 1,
                               requests=args.requests, warmup=50, budget=args.budget)
                pool.submit([job])
                (result,) = pool.collect(1, args.budget * 1.5 + 120, _crashed)
                row = _measured(result.latencies, result.errors)
                results.setdefault((kind, 1), []).append(row)
                _print_row(kind, 1, number, row)
                window = Window.starting(0.5, args.c8_seconds)
                jobs = [dataclasses.replace(job, seed=1000 * number + 10 + w, window=window)
                        for w in range(args.concurrency)]
                load = load_window(pool, jobs, window, [server_pid], _crashed)
                summary = summarize(load.results, load, window.seconds)
                row = _measured([x for r in load.results for x in r.latencies], summary.errors,
                                rate=summary.rate, server_ms=summary.server_ms_per_request,
                                first_error=summary.first_error)
                results.setdefault((kind, args.concurrency), []).append(row)
                _print_row(kind, args.concurrency, number, row)
    finally:
        pool.close()
    return results


def _print_row(kind: str, c: int, number: int, row: Measured) -> None:
    extra = (f" {row.rate:>8.0f} {row.server_ms:>8.2f}" if c > 1 else f" {'':>8} {'':>8}")
    print(f"  {LABELS[kind]:<40} {c:>2} [{number + 1}] {row.n:>6} {row.p50:>7.2f} {row.p99:>7.2f} "
          f"{row.max:>8.2f} {row.errors:>5}{extra}"
          f"{'  first error: ' + row.first_error if row.first_error else ''}", flush=True)


def print_proof_table(results: dict[tuple[str, int], list[Measured]], size: int,
                      engine: str) -> bool:
    print(f"\n  {engine}, {size:,} entries: median of the rounds (p99 range over the rounds)")
    print("  | request | c | n/round | p50 ms | p99 ms (range) | max ms | req/s | srv ms/req "
          "| p99 target |")
    print("  |---|---:|---:|---:|---:|---:|---:|---:|---|")
    met = True
    for (kind, c), rows in results.items():
        p99s = [r.p99 for r in rows]
        p99 = statistics.median(p99s)
        errors = sum(r.errors for r in rows)
        ok = p99 < TARGET_MS and errors == 0
        met &= ok
        rate = statistics.median(r.rate for r in rows)
        srv = statistics.median(r.server_ms for r in rows)
        print(f"  | {LABELS[kind]} | {c} | {statistics.median(r.n for r in rows):,.0f} "
              f"| {statistics.median(r.p50 for r in rows):.2f} "
              f"| {p99:.2f} ({min(p99s):.2f}–{max(p99s):.2f}) | {max(r.max for r in rows):.1f} "
              f"| {'—' if rate != rate else f'{rate:,.0f}'} | {'—' if srv != srv else f'{srv:.2f}'} "
              f"| < {TARGET_MS:g} ms: {'met' if ok else 'MISSED'}{f' ({errors} errors)' if errors else ''} |")
    print(f"  target p99 < {TARGET_MS:g} ms for every row: {'MET' if met else 'MISSED'}", flush=True)
    return met


def profile_in_process(database_url: str, org_id: int, size: int, count: int = 300) -> None:
    """cProfile of in-process inclusion proofs (the domain call a request makes) and of appends
    of one leaf in a write transaction (what each evidence write adds)."""
    from evidence_grpc.domain.transparency import log
    from evidence_grpc.storage.db import database
    from evidence_grpc.storage.models import Organization

    rng = random.Random(3)
    with database.connection_context():
        org = Organization.get_by_id(org_id)
        for title, run in (
                ("inclusion proof at the full size", lambda: log.inclusion_proof(
                    org, rng.randrange(size), size)),
                ("consistency proof, random -> full", lambda: log.consistency_proof(
                    org, rng.randint(1, size), size)),
                ("checkpoint's size_and_root", lambda: log.size_and_root(org))):
            for _ in range(20):
                run()
            with recording_sql() as statements:
                run()
            timings = []
            for _ in range(count):
                started = time.perf_counter()
                run()
                timings.append(time.perf_counter() - started)
            timings.sort()
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(count):
                run()
            profiler.disable()
            _print_profile(f"{title}: in process p50 {percentile(timings, 0.5) * 1000:.3f} ms, "
                           f"p99 {percentile(timings, 0.99) * 1000:.3f} ms (unprofiled), "
                           f"{len(statements)} SQL statements a call", profiler)
        # appends: each its own write transaction, as an attestation's (the log grows by count)
        seq = iter(range(size, size + 10 * count))

        def append_one() -> None:
            n = next(seq)
            with database.obj.atomic():
                log._append_to(org_id, [(BENCH_KIND, n, log.canonical(synthetic_leaf(n)))])  # noqa: SLF001

        for _ in range(20):
            append_one()
        timings = []
        for _ in range(count):
            started = time.perf_counter()
            append_one()
            timings.append(time.perf_counter() - started)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(count):
            append_one()
        profiler.disable()
        timings.sort()
        _print_profile(f"append of one leaf in its own transaction: p50 "
                       f"{percentile(timings, 0.5) * 1000:.3f} ms, p99 "
                       f"{percentile(timings, 0.99) * 1000:.3f} ms (unprofiled; commit included)",
                       profiler)


def _print_profile(title: str, profiler: cProfile.Profile, lines: int = 14) -> None:
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(lines)
    text = out.getvalue()
    body = text[text.find("ncalls"):] if "ncalls" in text else text
    print(f"\n  profile: {title}; top functions by own time")
    for line in body.rstrip().splitlines():
        print(f"    {line.replace(str(ROOT) + '/', '')[:150]}")


def run_proofs(args: argparse.Namespace) -> int:
    from evidence_grpc.storage.db import database, init_database, migrate
    from evidence_grpc.storage.models import Organization

    engine = "PostgreSQL" if args.postgres else "SQLite"
    with scratch_dir("bench-transparency-", args.keep) as workdir, \
            (scratch_postgres(args.postgres, "bench_transparency") if args.postgres
             else _none()) as pg_url:
        describe_machine("bench_transparency proofs",
                         f"{engine}, {args.entries:,} entries, workdir {workdir}")
        with running_server(workdir, args.workers, ORG, KEY, database_url=pg_url) as server:
            print(server.describe(), flush=True)
            init_database(server.database_url)
            migrate()
            with database.connection_context():
                org_id = Organization.get(Organization.name == ORG).id
            sanity_check(server.database_url, org_id)
            built = build_log(server.database_url, org_id, args.entries)
            print(f"  built {built.size:,} entries and {built.hashes:,} stored hashes: "
                  f"leaves and hashes in Python {built.seconds_build:.1f} s, bulk insert "
                  f"{built.seconds_insert:.1f} s" + (
                      f", database {server.database_path.stat().st_size / 2**20:,.0f} MiB"
                      if not pg_url else ""), flush=True)
            if not pg_url:
                with open(server.database_path, "rb") as f:  # into the page cache
                    while f.read(8 << 20):
                        pass
            check_answers(server.rest, built.size, built.root)
            print(f"\n  {args.rounds} round(s); c=1: {args.requests:,} requests a kind after 50 "
                  f"warm-up (at most {args.budget:g} s); c={args.concurrency}: "
                  f"{args.c8_seconds:g} s windows after 0.5 s warm-up")
            print(f"  {'request':<40} {'c':>2} {'rd':>3} {'n':>6} {'p50 ms':>7} {'p99 ms':>7} "
                  f"{'max ms':>8} {'errs':>5} {'req/s':>8} {'srv ms':>8}")
            results = measure_proofs(server.rest, server.grpc, server.process.pid, built.size, args)
            met = print_proof_table(results, built.size, engine)
            if args.profile:
                profile_in_process(server.database_url, org_id, built.size)
            database.close()
    return 0 if met else 1


@contextmanager
def _none() -> Iterator[None]:
    yield None


# ---- ingest before / after ----------------------------------------------------------------------

_RATE = re.compile(r"c=\d+: ([\d,.]+) attestations/s, p50 ([\d.]+) ms, p99 ([\d.]+) ms")
_CPU = re.compile(r"server CPU ([\d.]+) ms/attestation, clients (\d+) % of the box, box busy (\d+) %")
_LOST = re.compile(r"lost (\d+), unexpected (\d+)")


@dataclasses.dataclass
class IngestRun:
    rate: float
    p50: float
    p99: float
    server_ms: float
    box: float
    lost: int


def ingest_once(tree: pathlib.Path, args: argparse.Namespace) -> IngestRun:
    """bench_evidence.py --parts ingest of `tree`, run from that checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVIDENCE_")}
    env["PYTHONPATH"] = str(tree)
    command = [sys.executable, str(tree / "bench" / "bench_evidence.py"), "--parts", "ingest",
               "--seconds", f"{args.seconds:g}", "--concurrency", str(args.concurrency)]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True,
                          timeout=args.seconds * 10 + 300)
    text = done.stdout + done.stderr
    rate, cpu, lost = _RATE.search(text), _CPU.search(text), _LOST.search(text)
    if done.returncode != 0 or not (rate and cpu and lost):
        raise RuntimeError(f"bench_evidence.py in {tree} failed ({done.returncode}):\n{text[-3000:]}")
    return IngestRun(float(rate[1].replace(",", "")), float(rate[2]), float(rate[3]),
                     float(cpu[1]), float(cpu[3]), int(lost[1]))


def run_ingest(args: argparse.Namespace) -> int:
    before = args.before.resolve()
    if not (before / "bench" / "bench_evidence.py").exists():
        print(f"no checkout at {before}: git -C {ROOT} worktree add {before} 3567799",
              file=sys.stderr)
        return 2
    describe_machine("bench_transparency ingest",
                     f"after = {ROOT}, before = {before}, {args.rounds} rounds each, alternating")
    runs: dict[str, list[IngestRun]] = {"before": [], "after": []}
    for number in range(args.rounds):
        for label, tree in (("before", before), ("after", ROOT)):
            run = ingest_once(tree, args)
            runs[label].append(run)
            print(f"  [{number + 1}] {label:<6} {run.rate:7.0f}/s  p50 {run.p50:6.1f} ms  p99 "
                  f"{run.p99:6.1f} ms  server CPU {run.server_ms:5.2f} ms/att  box {run.box:3.0f} %"
                  f"  lost {run.lost}  (load {load_average() or 0:.2f})", flush=True)

    def med(label: str, field: str) -> float:
        return statistics.median(getattr(r, field) for r in runs[label])

    def spread(label: str, field: str, fmt: str) -> str:
        values = [getattr(r, field) for r in runs[label]]
        return f"{min(values):{fmt}}–{max(values):{fmt}}"

    print(f"\n  median of {args.rounds} runs each (range), {args.concurrency} clients, "
          f"{args.seconds:g} s")
    print(f"  | | before ({before}) | after (this tree) | after / before |")
    print("  |---|---:|---:|---:|")
    for field, name, fmt in (("rate", "attestations/s", ".0f"), ("p50", "p50 ms", ".1f"),
                             ("p99", "p99 ms", ".1f"), ("server_ms", "server CPU ms/attestation", ".2f"),
                             ("box", "box busy %", ".0f")):
        b, a = med("before", field), med("after", field)
        print(f"  | {name} | {b:{fmt}} ({spread('before', field, fmt)}) | {a:{fmt}} "
              f"({spread('after', field, fmt)}) | {a / b:.2f} |")
    lost = sum(r.lost for rs in runs.values() for r in rs)
    ratio = med("after", "rate") / med("before", "rate")
    cpu_ratio = med("after", "server_ms") / med("before", "server_ms")
    print(f"  lost attestations: {lost}")
    print(f"  target: appending costs <= 10 % (rate after/before >= {INGEST_RATIO_TARGET:.2f}): "
          f"{ratio:.2f} -> {'MET' if ratio >= INGEST_RATIO_TARGET else 'MISSED'}; server CPU per "
          f"attestation +{(cpu_ratio - 1) * 100:.0f} %; ingest >= {INGEST_TARGET:.0f}/s: "
          f"{med('after', 'rate'):.0f}/s -> "
          f"{'MET' if med('after', 'rate') >= INGEST_TARGET else 'MISSED'}", flush=True)
    return 0 if lost == 0 else 1


# ---- verify-log before / after -------------------------------------------------------------------

# verify-log with a rebuilder of the synthetic kind registered (as sanity_check does), saying
# at exit its peak RSS: its own VmHWM (getrusage's ru_maxrss would count the forking parent's,
# which exec carries over).
_VERIFY = ("import atexit, re, sys\n"
           "atexit.register(lambda: print('peak-rss-kib', re.search(r'VmHWM:\\s+(\\d+)', "
           "open('/proc/self/status').read())[1], file=sys.stderr))\n"
           "from evidence_grpc.domain.transparency import log\n"
           f"log.register({BENCH_KIND!r}, lambda ids: {{i: {{'kind': 'attestation', 'n': i}} "
           "for i in ids})\n"
           "from evidence_grpc.cli import main\n"
           "sys.exit(main(sys.argv[1:]))")
_PEAK = re.compile(r"^peak-rss-kib (\d+)$", re.M)


@dataclasses.dataclass
class VerifyRun:
    seconds: float
    rss_mib: float


def verify_once(tree: pathlib.Path, database_url: str, size: int) -> VerifyRun:
    """`evidence-server verify-log` of `tree` over the database: wall time, peak RSS."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVIDENCE_")}
    env["PYTHONPATH"] = str(tree)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _VERIFY, "verify-log", "--database-url",
                           database_url, "--org", ORG], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=600)
    seconds = time.monotonic() - started
    peak = _PEAK.search(done.stderr)
    if done.returncode != 0 or f"{ORG}: ok ({size} entries" not in done.stdout or not peak:
        raise RuntimeError(f"verify-log of {tree} failed ({done.returncode}):\n"
                           f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return VerifyRun(seconds, int(peak[1]) / 1024)


@contextmanager
def _fresh_database(args: argparse.Namespace, name: str) -> Iterator[tuple[str, int]]:
    """A scratch database (SQLite, or PostgreSQL with --postgres) migrated, with organization
    ORG: its URL and the organization's id."""
    from evidence_grpc.domain.identity.organizations import bootstrap
    from evidence_grpc.storage.db import database, init_database, migrate
    from evidence_grpc.storage.models import Organization

    with scratch_dir(f"{name.replace('_', '-')}-", args.keep) as workdir, \
            (scratch_postgres(args.postgres, name) if args.postgres else _none()) as pg_url:
        url = pg_url or f"sqlite:///{workdir / 'evidence.db'}"
        init_database(url)
        migrate()
        with database.connection_context():
            bootstrap({"organizations": [{"name": ORG}]})
            org_id = Organization.get(Organization.name == ORG).id
        yield url, org_id


def run_verify(args: argparse.Namespace) -> int:
    from evidence_grpc.storage.db import database

    before = args.before.resolve()
    if not (before / "evidence_grpc" / "cli.py").exists():
        print(f"no checkout at {before}: mkdir {before} && git -C {ROOT} archive dddfeca | "
              f"tar -x -C {before}", file=sys.stderr)
        return 2
    engine = "PostgreSQL" if args.postgres else "SQLite"
    describe_machine("bench_transparency verify",
                     f"{engine}; after = {ROOT}, before = {before}, {args.rounds} round(s)")
    rows = []
    for size in args.sizes:
        with _fresh_database(args, "bench_verify") as (url, org_id):
            database.close()
            built = build_log(url, org_id, size)
            print(f"  {size:,} entries built in {built.seconds_build + built.seconds_insert:.0f} s",
                  flush=True)
            runs: dict[str, list[VerifyRun]] = {"before": [], "after": []}
            for _ in range(args.rounds):
                for label, tree in (("before", before), ("after", ROOT)):
                    run = verify_once(tree, url, size)
                    runs[label].append(run)
                    print(f"    {label:<6} {run.seconds:6.1f} s  peak RSS {run.rss_mib:6.0f} MiB"
                          f"  (load {load_average() or 0:.2f})", flush=True)
            rows.append((size, {label: (statistics.median(r.seconds for r in found),
                                        max(r.rss_mib for r in found))
                                for label, found in runs.items()}))
    print(f"\n  {engine}: verify-log --org {ORG} (median time, max peak RSS of {args.rounds} "
          "round(s))")
    print("  | entries | before s | before RSS MiB | after s | after RSS MiB |")
    print("  |---:|---:|---:|---:|---:|")
    for size, found in rows:
        print(f"  | {size:,} | {found['before'][0]:.1f} | {found['before'][1]:.0f} | "
              f"{found['after'][0]:.1f} | {found['after'][1]:.0f} |")
    return 0


# ---- coverage: every record has its entry -------------------------------------------------------

def run_coverage(args: argparse.Namespace) -> int:
    """log.check_coverage over --sizes attestations of one trail, each with an entry (rows and
    entries inserted straight, as build_log does): time and peak traced memory, --rounds each."""
    import tracemalloc

    import evidence_grpc.domain  # noqa: F401  (the kinds' registrations)
    from evidence_grpc.domain.transparency import log
    from evidence_grpc.storage.db import database
    from evidence_grpc.storage.models import Attestation, Flow, LogEntry, Trail

    engine = "PostgreSQL" if args.postgres else "SQLite"
    describe_machine("bench_transparency coverage", f"{engine}; {args.rounds} round(s)")
    for size in args.sizes:
        with _fresh_database(args, "bench_coverage") as (url, org):
            with database.connection_context():
                flow = Flow.insert(organization=org, name="f", created_at=1.0,
                                   last_modified_at=1.0).execute()
                trail = Trail.insert(flow=flow, name="t", created_at=1.0,
                                     last_modified_at=1.0).execute()
            started = time.monotonic()
            with _raw_connection(url) as (conn, mark):
                table, columns = "attestation", ["uid", "organization_id", "flow_id", "trail_id",
                                                 "name", "type", "is_compliant", "data",
                                                 "summary", "created_by", "created_at"]
                _insert(conn, mark, table, columns, [
                    (f"u{n}", org, flow, trail, f"a{n}", "generic", True, "{}", "{}", "", 2.0)
                    for n in range(size)])
            with database.connection_context():
                ids = [i for (i,) in Attestation.select(Attestation.id).order_by(Attestation.id)
                       .tuples()]
                entry_table, entry_columns = _columns(LogEntry)
                values = {"organization_id": org, "kind": "attestation", "leaf": "{}",
                          "hashes": b""}
                rows = [tuple({**values, "number": n + 1, "record_id": i}[c]
                              for c in entry_columns) for n, i in enumerate(ids)]
            with _raw_connection(url) as (conn, mark):
                _insert(conn, mark, entry_table, entry_columns, rows)
            del rows, ids
            print(f"  {size:,} attestations and entries inserted in "
                  f"{time.monotonic() - started:.0f} s", flush=True)
            genesis = json.dumps({"records": {kind: {"count": 0, "last_id": 0}
                                              for kind in log._COVERED}}).encode()
            with database.connection_context():
                for _ in range(args.rounds):
                    counted: dict[str, int] = {}
                    tracemalloc.start()
                    started = time.monotonic()
                    problems = log.check_coverage(org, [(0, genesis)], counted)
                    seconds = time.monotonic() - started
                    peak = tracemalloc.get_traced_memory()[1]
                    tracemalloc.stop()
                    if problems or counted["attestation"] != size:
                        raise RuntimeError(f"coverage of {size:,}: {problems[:3]} {counted}")
                    print(f"    {size:,} records checked for their entry in {seconds:.1f} s, peak "
                          f"traced {peak / 2**20:.1f} MiB  (load {load_average() or 0:.2f})",
                          flush=True)
            database.close()
    return 0


# ---- main ---------------------------------------------------------------------------------------

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--part", choices=("ingest", "proofs", "verify", "coverage"), required=True)
    p.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000],
                   help="verify, coverage: log sizes (default 100,000 and 1,000,000)")
    p.add_argument("--quick", action="store_true", help="100,000 entries, 1,000 requests")
    p.add_argument("--entries", type=int, help="log entries for proofs (default 1,000,000)")
    p.add_argument("--requests", type=int, help="c=1 requests per kind and round (default 2,000)")
    p.add_argument("--c8-seconds", type=float, default=3.0,
                   help="c=8 measurement window per kind and round (default 3)")
    p.add_argument("--budget", type=float, default=60.0,
                   help="at most this many seconds per c=1 kind and round (default 60)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of each measurement (default 3)")
    p.add_argument("--concurrency", type=int, default=8, help="clients of the loaded runs (8)")
    p.add_argument("--postgres", metavar="URL", default=None,
                   help="proofs on a new database made on this PostgreSQL server (dropped after)")
    p.add_argument("--workers", type=int, default=None, help="HTTP workers (server default)")
    p.add_argument("--profile", action="store_true",
                   help="proofs: cProfile in-process proofs and appends at the end")
    p.add_argument("--before", type=pathlib.Path, default=pathlib.Path("/tmp/before-log"),
                   help="ingest: the checkout of the code before the log (default /tmp/before-log)")
    p.add_argument("--seconds", type=float, default=10.0, help="ingest measurement (default 10)")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = p.parse_args(argv)
    args.entries = args.entries or (100_000 if args.quick else 1_000_000)
    args.requests = args.requests or (1000 if args.quick else 2000)
    if args.entries < 2 or args.rounds < 1 or args.concurrency < 1:
        p.error("need --entries >= 2, --rounds >= 1, --concurrency >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    load = load_average()
    started = time.monotonic()
    try:
        code = {"ingest": run_ingest, "proofs": run_proofs, "verify": run_verify,
                "coverage": run_coverage}[args.part](args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    print(f"\n1-min load before {load if load is None else f'{load:.2f}'}, after "
          f"{load_average() or 0:.2f}; {time.monotonic() - started:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
