"""Evidence ingest, attachment memory and artifact lookups at scale.

Run by hand (not a test):

    python bench/bench_evidence.py --quick   # 100k artifacts, 5 s ingest (~3 min)
    python bench/bench_evidence.py           # 1M artifacts, 10 s ingest (~10 min)

It starts its own `evidence-server serve` (gRPC server + REST shim calling the servicers
in-process) on free 127.0.0.1 ports with a temporary SQLite database, and measures:

  1. ingest   REST generic attestations (~1 KB data_json) from --concurrency client processes
              with keep-alive connections for --seconds: attestations/s, p50/p99, then checks that
              every acknowledged attestation is stored (REST cursor walk and the SQLite file).
              Target: >= 500/s at c=8.
  2. upload   a 10 MiB attachment: peak RSS growth of the gunicorn worker that handled it
              (VmHWM reset through /proc/<pid>/clear_refs, plus VmRSS sampling). Target: < 3x.
  3. lookup   --artifacts artifacts seeded straight into the SQLite file with the project's models
              (peewee insert_many), then fingerprint / 8-char prefix / commit lookups over REST at
              c=1 (the kinds in turn, --lookup-rounds rounds) and as bare domain calls in-process,
              with the SQLite query plans of the SQL those calls issue. Target: p99 < 5 ms, the
              median of the rounds' p99.

The servers and the load generator share the machine's cores; "srv ms/req" (CPU of all server
processes per request, from /proc) shows where the CPU went.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import http.client
import itertools
import json
import os
import pathlib
import random
import sqlite3
import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, quote, urlparse

from _common import (
    ROOT,
    ClientPool,
    KeepAlive,
    LatencyRow,
    LeanKeepAlive,
    LoadSummary,
    Server,
    Window,
    WorkerResult,
    budget_note,
    budgeted,
    describe_machine,
    expect,
    explain_statements,
    http_call,
    latency_row,
    load_window,
    multipart,
    print_latency,
    print_latency_header,
    recording_sql,
    run_window,
    running_server,
    scratch_dir,
    summarize,
    use_source,
)

use_source(ROOT)

ORG = "acme"
FLOW = "f"
TRAIL = "t1"
KEY = "bench-evidence-secret"
MIB = 1024 * 1024
INGEST_TARGET = 500.0
UPLOAD_TARGET = 3.0
LOOKUP_TARGET_MS = 5.0
AUTH = {"Authorization": f"Bearer {KEY}"}


# ---- /proc ---------------------------------------------------------------------------------

def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS / VmHWM (kiB) of a process; empty when it is gone."""
    out: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    key, value = line.split(":", 1)
                    out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


def reset_peak(pid: int) -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0: write 5 to clear_refs)."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def create_flow_and_trail(server: Server) -> None:
    status, body = http_call(server.rest, "PUT", f"/api/v2/flows/{ORG}", json.dumps(
        {"name": FLOW, "description": "bench flow", "template": []}).encode(),
        {**AUTH, "Content-Type": "application/json"})
    expect(status, body, (200, 201), "creating the flow")
    form, content_type = multipart({"data_json": json.dumps({"name": TRAIL})})
    status, body = http_call(server.rest, "PUT", f"/api/v2/trails/{ORG}/{FLOW}", form,
                             {**AUTH, "Content-Type": content_type})
    expect(status, body, (200, 201), "beginning the trail")


# ---- 1. ingest -----------------------------------------------------------------------------

# --about-artifact: every ingested attestation is about this artifact, reported first (each
# write then ends with the artifact's manifest beside the trail's).
INGEST_FP = "0" * 63 + "2"


@dataclasses.dataclass(frozen=True)
class IngestJob:
    address: str
    window: Window
    about_artifact: bool = False


@dataclasses.dataclass
class IngestResult:
    load: WorkerResult
    acknowledged: list[str]  # bench_seq of every 201, warm-up included
    uncertain: list[str]  # bench_seq of requests that failed without an answer


def user_data_padding(size: int = 1000) -> dict[str, str]:
    """user_data making data_json about `size` bytes."""
    pad: dict[str, str] = {}
    for i in range(64):
        if len(json.dumps(pad)) >= size - 150:
            break
        pad[f"field_{i:02d}"] = hashlib.sha256(str(i).encode()).hexdigest()[:32]
    return pad


def ingest_body(seq: str, padding: dict[str, str], index: int, about_artifact: bool = False
                ) -> dict[str, Any]:
    about = {"artifact_fingerprint": INGEST_FP} if about_artifact else {}
    return {"attestation_name": f"a{index}", "is_compliant": True,
            "description": "bench generic attestation",
            "user_data": {"bench_seq": seq, **padding}, **about}


def run_ingest_job(index: int, job: IngestJob) -> IngestResult:
    conn = KeepAlive(job.address, timeout=30)
    path = f"/api/v2/attestations/{ORG}/{FLOW}/trail/{TRAIL}/generic"
    padding = user_data_padding()
    acknowledged: list[str] = []
    uncertain: list[str] = []
    sequence = itertools.count()

    def call() -> tuple[bool, str]:
        seq = f"w{index}-{next(sequence)}"
        body, content_type = multipart(
            {"data_json": json.dumps(ingest_body(seq, padding, index, job.about_artifact))})
        answered, status, payload, error = conn.checked(
            "POST", path, body, {**AUTH, "Content-Type": content_type})
        if not answered:
            uncertain.append(seq)
            return False, error
        if status != 201:
            return False, f"HTTP {status}: {payload[:200]!r}"
        acknowledged.append(seq)
        return True, ""

    try:
        load = run_window(call, job.window)
    finally:
        conn.close()
    return IngestResult(load, acknowledged, uncertain)


def _crashed(message: str) -> IngestResult:
    return IngestResult(WorkerResult(latencies=[], errors=1, first_error=message), [], [])


@dataclasses.dataclass
class IngestReport(LoadSummary):
    acknowledged: int
    stored_sqlite: int
    stored_rest: int
    lost: int
    unexpected: int


def measure_ingest(server: Server, concurrency: int, warmup: float, seconds: float,
                   about_artifact: bool = False) -> IngestReport:
    if about_artifact:
        status, body = http_call(server.rest, "POST", f"/api/v2/artifacts/{ORG}/{FLOW}", json.dumps({
            "fingerprint": INGEST_FP, "filename": "ingest.tar", "git_commit": "0" * 39 + "2",
            "build_url": "https://ci.example/b/2", "commit_url": "https://git.example/c/2",
            "trail_name": TRAIL, "template_reference_name": "ingest"}).encode(),
            {**AUTH, "Content-Type": "application/json"})
        expect(status, body, (200, 201), "reporting the artifact the attestations are about")
    pool: ClientPool[IngestJob, IngestResult] = ClientPool(concurrency, run_ingest_job)
    try:
        window = Window.starting(warmup, seconds)
        load = load_window(pool, [IngestJob(server.rest, window, about_artifact)] * concurrency, window,
                           [server.process.pid], _crashed)
    finally:
        pool.close()
    results = load.results
    acknowledged = {s for r in results for s in r.acknowledged}
    uncertain = {s for r in results for s in r.uncertain}
    in_sqlite = stored_seqs_sqlite(server.database_path)
    in_rest = stored_seqs_rest(server, len(in_sqlite))
    stored = in_sqlite | in_rest
    return IngestReport(
        acknowledged=len(acknowledged), stored_sqlite=len(in_sqlite), stored_rest=len(in_rest),
        lost=len(acknowledged - in_sqlite) + len(acknowledged - in_rest),
        unexpected=len(stored - acknowledged - uncertain),
        **vars(summarize([r.load for r in results], load, seconds)))


def stored_seqs_sqlite(database_path: pathlib.Path) -> set[str]:
    conn = sqlite3.connect(f"file:{database_path}?mode=ro", uri=True, timeout=30)
    try:
        rows = conn.execute("SELECT json_extract(data, '$.user_data.bench_seq') FROM attestation "
                            "WHERE type = 'generic'").fetchall()
    finally:
        conn.close()
    return {r[0] for r in rows if r[0]}


def stored_seqs_rest(server: Server, expected: int) -> set[str]:
    """Walk GET /api/v2/attestations/acme?flow=f by cursor, 100 a page."""
    seqs: set[str] = set()
    host, port = server.rest.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    after: str | None = None
    try:
        for _ in range(expected // 100 + 20):
            path = f"/api/v2/attestations/{ORG}?flow={FLOW}&per_page=100"
            if after:
                path += f"&after={quote(after)}"
            conn.request("GET", path, headers=AUTH)
            response = conn.getresponse()
            payload = response.read()
            expect(response.status, payload, (200,), "listing attestations")
            page = json.loads(payload)
            for row in page.get("data") or []:
                seq = (row.get("user_data") or {}).get("bench_seq")
                if seq:
                    seqs.add(seq)
            following = (page.get("_links") or {}).get("next")
            if not following:
                return seqs
            after = parse_qs(urlparse(following).query)["after"][0]
        raise RuntimeError("the attestation cursor walk did not end")
    finally:
        conn.close()


def print_ingest(report: IngestReport, concurrency: int) -> None:
    print(f"  c={concurrency}: {report.rate:,.0f} attestations/s, p50 {report.p50_ms:.1f} ms, "
          f"p99 {report.p99_ms:.1f} ms ({report.ok} in window, {report.errors} errors)")
    print(f"  server CPU {report.server_ms_per_request:.2f} ms/attestation, clients "
          f"{report.client_cpu_share * 100:.0f} % of the box, box busy {report.box_busy * 100:.0f} %")
    if report.first_error:
        print(f"  first error: {report.first_error}")
    print(f"  verification: {report.acknowledged} acknowledged (201), {report.stored_sqlite} in the "
          f"SQLite file, {report.stored_rest} by cursor walk; lost {report.lost}, "
          f"unexpected {report.unexpected} -> {'OK' if report.lost == 0 else 'LOST ATTESTATIONS'}")
    met = report.rate >= INGEST_TARGET and report.lost == 0
    print(f"  target >= {INGEST_TARGET:.0f}/s with nothing lost: {'MET' if met else 'MISSED'}",
          flush=True)


# ---- 2. upload -----------------------------------------------------------------------------

class RssSampler:
    """Polls VmRSS of some processes every few ms and keeps each one's maximum."""

    def __init__(self, pids: list[int], interval: float = 0.002, max_seconds: float = 300) -> None:
        self.pids = pids
        self.peak = {pid: memory_kib(pid).get("VmRSS", 0) for pid in pids}
        self._stop = threading.Event()
        self._interval = interval
        self._max_seconds = max_seconds
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        deadline = time.monotonic() + self._max_seconds
        while not self._stop.is_set() and time.monotonic() < deadline:
            for pid in self.pids:
                rss = memory_kib(pid).get("VmRSS", 0)
                if rss > self.peak[pid]:
                    self.peak[pid] = rss
            self._stop.wait(self._interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


@dataclasses.dataclass
class MemoryPoint:
    label: str
    size: int
    seconds: float
    status: int
    pid: int
    before_kib: int
    peak_hwm_kib: int  # VmHWM after a reset (0: reset unsupported)
    peak_sampled_kib: int
    after_kib: int

    @property
    def growth_kib(self) -> int:
        return max(self.peak_hwm_kib, self.peak_sampled_kib) - self.before_kib


def measure_memory(server: Server, label: str, size: int,
                   action: Callable[[], int]) -> MemoryPoint:
    """Run `action` (one HTTP request) and find which shim worker grew most."""
    workers = server.shim_workers()
    before = {pid: memory_kib(pid).get("VmRSS", 0) for pid in workers}
    reset = {pid: reset_peak(pid) for pid in workers}
    started = time.monotonic()
    with RssSampler(workers) as sampler:
        status = action()
    seconds = time.monotonic() - started
    time.sleep(0.05)
    points = []
    for pid in workers:
        memory = memory_kib(pid)
        hwm = memory.get("VmHWM", 0) if reset[pid] else 0
        points.append(MemoryPoint(label, size, seconds, status, pid, before[pid], hwm,
                                  sampler.peak[pid], memory.get("VmRSS", 0)))
    return max(points, key=lambda p: p.growth_kib)


def measure_upload(server: Server, uploads: int, size: int) -> list[MemoryPoint]:
    points = []
    rng = random.Random(7)
    for n in range(uploads):
        content = rng.randbytes(size)  # distinct each time: blobs are content-addressed
        body, content_type = multipart(
            {"data_json": json.dumps({"attestation_name": f"upload-{n}", "is_compliant": True})},
            {"attachment_file": (f"evidence-{n}.bin", content)})
        answer: dict[str, bytes] = {}

        def upload(body: bytes = body, content_type: str = content_type,
                   answer: dict[str, bytes] = answer) -> int:
            status, payload = http_call(
                server.rest, "POST", f"/api/v2/attestations/{ORG}/{FLOW}/trail/{TRAIL}/generic",
                body, {**AUTH, "Content-Type": content_type}, timeout=120)
            answer["body"] = payload
            return status

        point = measure_memory(server, f"upload #{n + 1}", size, upload)
        if point.status != 201:
            raise RuntimeError(f"upload failed: HTTP {point.status} {answer['body'][:300]!r}")
        points.append(point)
        print_memory(point)

        # Read it back: same bytes, and what the download costs (informative).
        uid = latest_upload_uid(server, f"upload-{n}")
        fetched: dict[str, bytes] = {}

        def download(uid: str = uid, fetched: dict[str, bytes] = fetched) -> int:
            status, payload = http_call(
                server.rest, "GET", f"/api/v2/attestations/{ORG}/{FLOW}/trail/{TRAIL}"
                                    f"/attestation/{uid}/evidence", headers=AUTH, timeout=120)
            fetched["body"] = payload
            return status

        back = measure_memory(server, f"download #{n + 1}", size, download)
        same = hashlib.sha256(fetched["body"]).digest() == hashlib.sha256(content).digest()
        print_memory(back, "" if same and back.status == 200 else
                     f"  !! HTTP {back.status}, content {'matches' if same else 'DIFFERS'}")
    return points


def latest_upload_uid(server: Server, name: str) -> str:
    status, body = http_call(server.rest, "GET", f"/api/v2/attestations/{ORG}/{FLOW}/trail/{TRAIL}/{name}",
                             headers=AUTH)
    expect(status, body, (200,), "reading the upload's attestation")
    return json.loads(body)[0]["attestation_id"]


def print_memory(point: MemoryPoint, note: str = "") -> None:
    hwm = f"{point.peak_hwm_kib / 1024:.1f}" if point.peak_hwm_kib else "n/a"
    print(f"  {point.label:<12} {point.size / MIB:.0f} MiB in {point.seconds * 1000:.0f} ms "
          f"({point.size / MIB / point.seconds:.0f} MiB/s), worker {point.pid}: RSS "
          f"{point.before_kib / 1024:.1f} -> peak {hwm} (VmHWM) / {point.peak_sampled_kib / 1024:.1f}"
          f" (sampled) -> {point.after_kib / 1024:.1f} MiB after; growth "
          f"{point.growth_kib / 1024:.1f} MiB = {point.growth_kib * 1024 / point.size:.2f}x the file"
          f"{note}", flush=True)


# ---- 3. seeding ----------------------------------------------------------------------------

@dataclasses.dataclass
class Sample:
    fingerprint: str
    commit: str


def seed_artifacts(server: Server, count: int, trails: int, samples: int, analyze: bool
                   ) -> list[Sample]:
    """`count` artifacts in `trails` new trails of the flow, inserted straight into the SQLite
    file through the project's models. Rows copy a trail and an artifact made over REST, so they
    hold what the product itself writes. Returns `samples` random seeded artifacts."""
    import peewee

    from evidence_grpc.domain.kernel.ids import hosted_id
    from evidence_grpc.storage.db import database, init_database, migrate
    from evidence_grpc.storage.models import Artifact, Flow, Organization, Trail

    template_fp = "0" * 63 + "1"
    status, body = http_call(server.rest, "POST", f"/api/v2/artifacts/{ORG}/{FLOW}", json.dumps({
        "fingerprint": template_fp, "filename": "app.tar", "build_url": "https://ci.example/b/1",
        "commit_url": "https://git.example/c/1", "git_commit": "0" * 39 + "1", "trail_name": TRAIL,
        "template_reference_name": "app"}).encode(), {**AUTH, "Content-Type": "application/json"})
    expect(status, body, (200, 201), "reporting the template artifact")

    init_database(server.database_url)
    migrate()
    db = database.obj
    rng = random.Random(1)
    wanted = set(rng.sample(range(count), min(samples, count)))
    picked: list[Sample] = []
    with database.connection_context():
        db.execute_sql("PRAGMA cache_size = -400000")  # 400 MB, for the index builds
        db.execute_sql("PRAGMA temp_store = MEMORY")
        db.execute_sql("PRAGMA foreign_keys = OFF")  # parents exist; spares a lookup per row
        db.execute_sql("PRAGMA synchronous = OFF")
        org = Organization.get(Organization.name == ORG)
        flow = Flow.get((Flow.organization == org) & (Flow.name == FLOW))
        trail_row = Trail.select().where((Trail.flow == flow) & (Trail.name == TRAIL)).dicts().get()
        artifact_row = (Artifact.select().where(Artifact.fingerprint == template_fp).dicts().get())
        started = time.monotonic()
        base = time.time() - count  # one artifact a second, ending now

        trail_fields = [f for f in Trail._meta.sorted_fields if f.name != "id"]
        trail_ids: list[int] = []
        with db.atomic():
            rows = []
            for j in range(trails):
                stamp = base + j * (count / trails)
                values = {**trail_row, "name": f"seed-{j:07d}", "created_at": stamp,
                          "last_modified_at": stamp}
                rows.append(tuple(values[f.name] for f in trail_fields))
            for chunk in range(0, len(rows), 1000):
                Trail.insert_many(rows[chunk:chunk + 1000], fields=trail_fields).execute()
            trail_ids = [r[0] for r in Trail.select(Trail.id).where(
                (Trail.flow == flow) & (Trail.name.startswith("seed-")))
                .order_by(Trail.name).tuples()]
        if len(trail_ids) != trails:
            raise RuntimeError(f"seeded {len(trail_ids)} trails, wanted {trails}")

        # Bulk loads go faster without the indexes; they are rebuilt, unchanged, afterwards.
        indexes = db.execute_sql("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                                 "AND tbl_name = 'artifact' AND sql IS NOT NULL").fetchall()
        for name, _ in indexes:
            db.execute_sql(f'DROP INDEX "{name}"')
        fields = [f for f in Artifact._meta.sorted_fields if f.name != "id"]
        position = {f.name: i for i, f in enumerate(fields)}
        template = tuple(artifact_row[f.name] for f in fields)
        chunk_size = max(1, min(1000, 30000 // len(fields)))  # SQLite allows 32,766 variables
        done = 0
        last_print = time.monotonic()
        for start in range(0, count, 50_000):
            with db.atomic():
                for chunk in range(start, min(count, start + 50_000), chunk_size):
                    rows = []
                    for i in range(chunk, min(count, start + 50_000, chunk + chunk_size)):
                        fp = f"{rng.getrandbits(256):064x}"
                        commit = f"{rng.getrandbits(160):040x}"
                        row = list(template)
                        row[position["uid"]] = hosted_id()
                        row[position["fingerprint"]] = fp
                        row[position["git_commit"]] = commit
                        row[position["trail"]] = trail_ids[i * trails // count]
                        row[position["name"]] = f"artifact-{i}.tar"
                        row[position["created_at"]] = row[position["last_modified_at"]] = base + i
                        if "git_commit_info" in position and row[position["git_commit_info"]]:
                            row[position["git_commit_info"]] = {
                                **row[position["git_commit_info"]], "sha1": commit}
                        rows.append(tuple(row))
                        if i in wanted:
                            picked.append(Sample(fp, commit))
                    Artifact.insert_many(rows, fields=fields).execute()
                    done += len(rows)
            if time.monotonic() - last_print > 10:
                last_print = time.monotonic()
                print(f"    ... {done:,} artifacts ({done / (last_print - started):,.0f}/s)", flush=True)
        inserted = time.monotonic()
        for _, sql in indexes:
            db.execute_sql(sql)
        indexed = time.monotonic()
        if analyze:
            db.execute_sql("ANALYZE")
        db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        total = Artifact.select(peewee.fn.COUNT(Artifact.id)).where(Artifact.flow == flow).scalar()
    # The seed is hundreds of MiB of dirty pages: written back now, not while the first lookups
    # are measured.
    synced = time.monotonic()
    os.sync()
    finished = time.monotonic()
    size = server.database_path.stat().st_size
    print(f"  seeded {count:,} artifacts in {trails:,} trails in {finished - started:.1f} s "
          f"(rows {inserted - started:.1f} s = {count / max(inserted - started, 1e-9):,.0f}/s, "
          f"{len(indexes)} indexes rebuilt {indexed - inserted:.1f} s{', ANALYZE' if analyze else ''}, "
          f"written to disk {finished - synced:.1f} s);"
          f" flow '{FLOW}' now holds {total:,} artifacts, database {size / MIB:,.0f} MiB", flush=True)
    rng.shuffle(picked)
    return picked


def unambiguous(database_path: pathlib.Path, samples: list[Sample], length: int) -> list[Sample]:
    """Samples whose `length`-character fingerprint prefix matches only them."""
    conn = sqlite3.connect(f"file:{database_path}?mode=ro", uri=True, timeout=30)
    try:
        kept = []
        for sample in samples:
            prefix = sample.fingerprint[:length]
            upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
            (n,) = conn.execute("SELECT COUNT(*) FROM artifact WHERE organization_id = "
                                "(SELECT id FROM organization WHERE name = ?) AND fingerprint >= ? "
                                "AND fingerprint < ?", (ORG, prefix, upper)).fetchone()
            if n == 1:
                kept.append(sample)
        return kept
    finally:
        conn.close()


# ---- 3. lookups ----------------------------------------------------------------------------

LOOKUPS = ("fingerprint", "prefix8", "commit", "search")
LOOKUP_LABELS = {"fingerprint": "fingerprint (full)", "prefix8": "fingerprint prefix (8)",
                 "commit": "commit sha (full)", "search": "search (8-char prefix)"}


def lookup_path(kind: str, sample: Sample) -> str:
    if kind == "fingerprint":
        return f"/api/v2/artifacts/{ORG}/{FLOW}/fingerprint/{sample.fingerprint}"
    if kind == "prefix8":
        return f"/api/v2/artifacts/{ORG}/{FLOW}/fingerprint/{sample.fingerprint[:8]}"
    if kind == "commit":
        return f"/api/v2/artifacts/{ORG}/{FLOW}/commit_sha/{sample.commit}"
    return f"/api/v2/search/{ORG}/sha/{sample.fingerprint[:8]}"


def lookup_ok(kind: str, sample: Sample, payload: bytes) -> bool:
    data = json.loads(payload)
    if kind in ("fingerprint", "prefix8"):
        return data.get("fingerprint") == sample.fingerprint
    if kind == "commit":
        rows = data if isinstance(data, list) else data.get("data", [])
        return any(r.get("git_commit") == sample.commit for r in rows)
    return any(a.get("fingerprint") == sample.fingerprint for a in data.get("artifacts", []))


def measure_rest_lookups(server: Server, kinds: tuple[str, ...], samples: list[Sample],
                         requests: int, warmup: int, budget: float,
                         client: type[KeepAlive] = LeanKeepAlive) -> list[LatencyRow]:
    """c=1 latency of each lookup kind over one connection, the kinds taking turns request by
    request (this machine's speed drifts by up to 2x within a minute: kinds measured one after
    the other each met a different spell). Every answer is checked, outside the timed span:
    inside it would time the client's JSON decoding."""
    conn = client(server.rest)
    first_error: dict[str, list[str]] = {kind: [] for kind in kinds}
    latencies: dict[str, list[float]] = {kind: [] for kind in kinds}
    errors = dict.fromkeys(kinds, 0)
    deadline = time.monotonic() + budget * len(kinds)
    try:
        for i in range((warmup + requests) * len(kinds)):
            if time.monotonic() > deadline:
                break
            turn, nth = divmod(i, len(kinds))
            kind = kinds[nth]
            # each kind on its own stretch of the samples: one artifact's pages, just read by
            # the kind before, would make the next kind's lookup of it cheaper
            sample = samples[(turn + nth * len(samples) // len(kinds)) % len(samples)]
            started = time.perf_counter()
            answered, status, payload, error = conn.checked("GET", lookup_path(kind, sample),
                                                            headers=AUTH)
            elapsed = time.perf_counter() - started
            if answered and status == 200 and lookup_ok(kind, sample, payload):
                if i >= warmup * len(kinds):
                    latencies[kind].append(elapsed)
            else:  # a wrong warm-up answer too: an error all the same
                errors[kind] += 1
                first_error[kind].append(error or f"HTTP {status}: {payload[:200]!r}")
    finally:
        conn.close()
    stopped = time.monotonic() > deadline
    suffix = ", http.client" if client is KeepAlive else ""
    return [latency_row(f"REST  {LOOKUP_LABELS[kind]}{suffix}", latencies[kind], errors[kind],
                        budget_note(stopped, budget * len(kinds), first_error[kind]))
            for kind in kinds]


def domain_calls(kind: str, org: Any, html_base: str) -> tuple[Callable[[Sample], Any],
                                                                 Callable[[Sample], Any]]:
    """(the bare domain lookup, the lookup plus building its answer) for a kind."""
    from evidence_grpc.domain.evidence import artifacts
    from evidence_grpc.domain.views import artifact_views

    if kind == "fingerprint":
        def find(s: Sample) -> Any:
            return [artifacts.find_by_fingerprint(org, FLOW, s.fingerprint)]
    elif kind == "prefix8":
        def find(s: Sample) -> Any:
            return [artifacts.find_by_fingerprint(org, FLOW, s.fingerprint[:8])]
    elif kind == "commit":
        def find(s: Sample) -> Any:
            return artifacts.find_by_commit(org, FLOW, s.commit)
    else:
        def find(s: Sample) -> Any:
            return artifact_views.search(org, s.fingerprint[:8], html_base)

        return find, find

    def with_views(s: Sample) -> Any:
        return artifact_views.artifact_views(org, find(s), html_base)

    return find, with_views


def measure_domain(kind: str, samples: list[Sample], requests: int, warmup: int, budget: float
                   ) -> list[LatencyRow]:
    from evidence_grpc.storage.db import database
    from evidence_grpc.storage.models import Organization

    rows = []
    with database.connection_context():
        org = Organization.get(Organization.name == ORG)
        find, with_views = domain_calls(kind, org, "http://127.0.0.1")
        variants = [("find", find)] if find is with_views else [("find", find),
                                                                ("find+views", with_views)]
        for name, lookup in variants:
            def call(i: int, lookup: Callable[[Sample], Any] = lookup) -> bool:
                lookup(samples[i % len(samples)])
                return True

            latencies, _, stopped = budgeted(call, warmup, requests, budget)
            note = f"stopped at the {budget:g} s budget" if stopped else ""
            rows.append(latency_row(f"in-process {name:<10} {LOOKUP_LABELS[kind]}", latencies,
                                    note=note))
    return rows


def connection_cost(repeat: int = 300) -> LatencyRow:
    """What `database.connection_context()` (one per call in the DatabaseInterceptor) costs."""
    from evidence_grpc.storage.db import database
    from evidence_grpc.storage.models import Organization

    latencies = []
    for _ in range(repeat):
        started = time.perf_counter()
        with database.connection_context():
            Organization.select(Organization.id).limit(1).tuples().first()
        latencies.append(time.perf_counter() - started)
    return latency_row("in-process open+pragmas+1 query+close", latencies)


def explain(database_path: pathlib.Path, kind: str, sample: Sample, repeat: int = 20) -> None:
    """The SQL one in-process lookup runs, with each statement's plan and median time."""
    from evidence_grpc.storage.db import database
    from evidence_grpc.storage.models import Organization

    with database.connection_context():
        org = Organization.get(Organization.name == ORG)
        _, with_views = domain_calls(kind, org, "http://127.0.0.1")
        with recording_sql() as statements:
            with_views(sample)
    print(f"\n  {LOOKUP_LABELS[kind]}: {len(statements)} statements per lookup (with its answer)")
    explain_statements(database_path, statements, repeat)


# ---- main ----------------------------------------------------------------------------------

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="100k artifacts, 5 s ingest, 1,000 lookups of each kind")
    p.add_argument("--artifacts", type=int, help="artifacts to seed (default 1,000,000)")
    p.add_argument("--trails", type=int,
                   help="trails the artifacts are spread over (default artifacts / 10)")
    p.add_argument("--seconds", type=float, help="ingest measurement (default 10)")
    p.add_argument("--warmup", type=float, default=2.0, help="ingest warm-up, not counted (default 2)")
    p.add_argument("--concurrency", type=int, default=8, help="ingest client processes (default 8)")
    p.add_argument("--about-artifact", action="store_true",
                   help="ingest attestations about one artifact (its manifest logged with each)")
    p.add_argument("--lookups", type=int, help="requests per lookup kind (default 3,000)")
    p.add_argument("--lookup-rounds", type=int, default=3,
                   help="rounds of REST lookups, each on artifacts of its own; the target is "
                        "judged on the median of their p99 (default 3)")
    p.add_argument("--lookup-budget", type=float, default=30.0,
                   help="at most this many seconds per lookup kind and mode (default 30)")
    p.add_argument("--uploads", type=int, default=2, help="10 MiB uploads to measure (default 2)")
    p.add_argument("--upload-mib", type=float, default=10.0, help="upload size (default 10 MiB)")
    p.add_argument("--workers", type=int, help="HTTP worker processes (server default)")
    p.add_argument("--serve-option", action="append", default=[], metavar="OPTION",
                   help="an option of `evidence-server serve` (repeatable; e.g. "
                        "--serve-option=--witness=VKEY=URL)")
    p.add_argument("--parts", default="ingest,upload,lookup",
                   help="comma-separated of ingest,upload,lookup (default all)")
    p.add_argument("--analyze", action="store_true",
                   help="run ANALYZE after seeding (the product does not; changes the plans)")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = p.parse_args(argv)
    quick = args.quick
    args.artifacts = args.artifacts if args.artifacts is not None else (100_000 if quick else 1_000_000)
    args.trails = args.trails if args.trails is not None else max(1, args.artifacts // 10)
    args.seconds = args.seconds if args.seconds is not None else (5.0 if quick else 10.0)
    args.lookups = args.lookups if args.lookups is not None else (1000 if quick else 3000)
    args.parts = [x for x in args.parts.split(",") if x]
    unknown = set(args.parts) - {"ingest", "upload", "lookup"}
    if unknown:
        p.error(f"unknown parts: {', '.join(sorted(unknown))}")
    if args.artifacts < 1 or args.trails < 1 or args.trails > args.artifacts:
        p.error("need 1 <= --trails <= --artifacts")
    if args.lookup_rounds < 1:
        p.error("need --lookup-rounds >= 1")
    return args


def warm_page_cache(path: pathlib.Path) -> int:
    """Read a file through (into the OS page cache, as on a server that has read its database
    before); its size."""
    read = 0
    with open(path, "rb") as f:
        while chunk := f.read(8 * MIB):
            read += len(chunk)
    return read


def run_lookups(server: Server, args: argparse.Namespace) -> None:
    warmup = min(200, max(20, args.lookups // 10))
    rounds = args.lookup_rounds
    samples = seed_artifacts(server, args.artifacts, args.trails,
                             (args.lookups + warmup) * rounds, args.analyze)
    usable = unambiguous(server.database_path, samples, 8)
    if len(usable) < len(samples):
        print(f"  ({len(samples) - len(usable)} sampled artifacts skipped: their 8-char prefix is "
              "shared)")
    # This machine pages out memory left untouched for about a minute (a DAMON `pageout`
    # scheme): without this, disk reads land in whichever kind is measured first.
    read = warm_page_cache(server.database_path)
    print(f"  database read once into the page cache ({read / MIB:,.0f} MiB)")
    print(f"\n  c=1, {args.lookups:,} random existing artifacts per kind and round after {warmup} "
          f"warm-up requests, at most {args.lookup_budget:.0f} s per kind and mode; REST kinds in "
          f"turn through a bare-socket keep-alive client, {rounds} round(s) on artifacts of "
          "their own, then once more through http.client")
    print_latency_header()
    judged: dict[str, list[LatencyRow]] = {kind: [] for kind in LOOKUPS}
    for number in range(rounds):
        for row, kind in zip(measure_rest_lookups(server, LOOKUPS, usable[number::rounds],
                                                  args.lookups, warmup, args.lookup_budget),
                             LOOKUPS, strict=True):
            judged[kind].append(row)
            print_latency(dataclasses.replace(row, label=f"{row.label} [{number + 1}]"))
    # the client of the figures before 2026-11-26, for comparison; not part of the target
    for row in measure_rest_lookups(server, ("fingerprint",), usable, args.lookups, warmup,
                                    args.lookup_budget, KeepAlive):
        print_latency(row)
    for kind in LOOKUPS:
        for row in measure_domain(kind, usable, args.lookups, warmup, args.lookup_budget):
            print_latency(row)
    print_latency(connection_cost())
    print("\n  SQL of one in-process lookup: median time of each statement alone (raw sqlite3, "
          "page cache warm) and its EXPLAIN QUERY PLAN")
    for kind in LOOKUPS:
        explain(server.database_path, kind, usable[0])
    # This machine's speed drifts by up to 2x for tens of seconds: a round's p99 is the slowest
    # 1 % of its requests, so the target is judged on the median of the rounds' p99 (as the
    # ratios of bench_trails.py on the median of their rounds).
    print(f"\n  REST p99 per kind, median of {rounds} round(s) (each round's)")
    met = True
    for kind in ("fingerprint", "prefix8", "commit"):
        p99s = [row.p99_ms for row in judged[kind]]
        median = statistics.median(p99s)
        met &= median < LOOKUP_TARGET_MS and not any(row.errors for row in judged[kind])
        print(f"    {LOOKUP_LABELS[kind]:<24} {median:6.2f} ms "
              f"({', '.join(f'{p:.2f}' for p in p99s)})")
    print(f"  target REST p99 < {LOOKUP_TARGET_MS:.0f} ms (fingerprint, prefix, commit; the "
          f"median of the rounds, no errors): {'MET' if met else 'MISSED'}", flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with scratch_dir("bench-evidence-", args.keep) as workdir:
        describe_machine("bench_evidence", f"workdir {workdir}")
        try:
            with running_server(workdir, args.workers, ORG, KEY,
                                options=args.serve_option) as server:
                create_flow_and_trail(server)
                print(server.describe(), flush=True)
                run_parts(server, args)
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)
            return 130
    return 0


def run_parts(server: Server, args: argparse.Namespace) -> None:
    if "ingest" in args.parts:
        body_size = len(json.dumps(ingest_body("w0-0", user_data_padding(), 0)))
        print(f"\n[1] ingest: generic attestations, ~{body_size} B data_json, "
              f"{args.concurrency} clients, {args.warmup:g} s warm-up + "
              f"{args.seconds:g} s{', about one artifact' if args.about_artifact else ''}",
              flush=True)
        print_ingest(measure_ingest(server, args.concurrency, args.warmup, args.seconds,
                                    args.about_artifact), args.concurrency)
    if "upload" in args.parts:
        size = int(args.upload_mib * MIB)
        print(f"\n[2] upload: {size / MIB:g} MiB attachment_file on a generic attestation, "
              f"peak RSS growth of the shim worker that handled it", flush=True)
        points = measure_upload(server, args.uploads, size)
        worst = max(points, key=lambda p: p.growth_kib)
        ratio = worst.growth_kib * 1024 / size
        print(f"  target peak growth < {UPLOAD_TARGET:g}x the file: "
              f"{'MET' if ratio < UPLOAD_TARGET else 'MISSED'} (worst {ratio:.2f}x)",
              flush=True)
    if "lookup" in args.parts:
        print(f"\n[3] lookups with {args.artifacts:,} artifacts in {args.trails:,} trails",
              flush=True)
        run_lookups(server, args)


if __name__ == "__main__":
    sys.exit(main())
