"""Environment reports, deployment statistics and snapshot lookups at scale, on SQLite.

Run by hand (not a test):

    python bench/bench_runtime.py --quick   # 20k deployments, 2,000 snapshots (~2.5 min)
    python bench/bench_runtime.py           # 100k deployments, 10,000 snapshots (~10 min)
    python bench/bench_runtime.py --parts stats --deployments 50000

It starts its own `evidence-server serve` (gRPC server + REST shim calling the servicers
in-process) on free 127.0.0.1 ports with a temporary SQLite database, seeds through the public
REST API (and the public domain function `report_environment` for most of the snapshots), and
measures:

  1. ingest     K8S reports of --report-pods (500) pods, `PUT .../report/K8S`, from spawned client
                processes with keep-alive connections: the same report again and again (answered
                "no new snapshot") and reports where a few pods change image every time (a new
                snapshot each), at c=1 (one environment) and c=4 (four environments).
  2. stats      `GET /api/v2/repos/acme/{repo}/deployment-statistics` once the repo's artifacts
                account for --deployments (100,000) deployments in four environments: no env
                filter, one env, a narrow time window, the default window. Target p99 < 50 ms
                for the narrow window, < 250 ms for the dense answers (25,000-100,000 points).
  3. snapshots  `GET /api/v2/snapshots/acme/{env}/{expression}` on an environment with
                --snapshots (10,000) snapshots: -1, #N/2, ~10, @{a middle time}, @{1.hours.ago},
                and the first page of the list. Target p99 < 10 ms.

Lookups run at c=1 three ways: over HTTP to the server, through the whole REST stack in this
process (Flask's test client, no sockets), and as the bare domain call, so the difference shows
what HTTP and the JSON/protobuf conversion cost. When a target is missed, the SQL of one request
(each statement timed alone, with its query plan) and a cProfile of a few are printed.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import hashlib
import itertools
import json
import math
import pathlib
import pstats
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import _common as common

common.use_source(common.ROOT)

ORG = "acme"
KEY = "bench-runtime-secret"
AUTH = {"Authorization": f"Bearer {KEY}"}
JSON = {**AUTH, "Content-Type": "application/json"}
FLOW = "app"
REPO = {"id": "bench-repo-1", "name": "acme/app", "url": "https://github.com/acme/app",
        "provider": "github"}  # the repo whose deployment statistics are measured
OTHER_REPO = {"id": "bench-repo-2", "name": "acme/edge", "url": "https://github.com/acme/edge",
              "provider": "github"}  # what runs in the snapshots environment
HTML_BASE = "http://127.0.0.1"
NO_NEW_SNAPSHOT = "Report processed, no new snapshot was created"  # the contract's answer
CHANGED_PODS = 5  # pods that change image in each "changed" report
STATS_TARGET_MS = 50.0  # a narrow window
DENSE_STATS_TARGET_MS = 250.0  # issue 12: answers of 25,000-100,000 deployments
SNAPSHOT_TARGET_MS = 10.0
LABEL_WIDTH = 58


def fingerprint(*parts: object) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()


# ---- REST setup ----------------------------------------------------------------------------

def send(conn: common.KeepAlive, method: str, path: str, payload: Any,
         wanted: tuple[int, ...] = (200, 201)) -> Any:
    """One JSON request that must succeed; its decoded answer."""
    data = None if payload is None else json.dumps(payload).encode()
    status, body = conn.request(method, path, data, JSON if data is not None else AUTH)
    common.expect(status, body, wanted, f"{method} {path}")
    return json.loads(body) if body else None


def create_flow(conn: common.KeepAlive) -> None:
    send(conn, "PUT", f"/api/v2/flows/{ORG}", {"name": FLOW, "description": "bench", "template": []})


def create_environment(conn: common.KeepAlive, name: str, env_type: str) -> None:
    send(conn, "PUT", f"/api/v2/environments/{ORG}",
         {"name": name, "type": env_type, "description": "bench"})


def report_path(env: str, env_type: str) -> str:
    return f"/api/v2/environments/{ORG}/{env}/report/{env_type}"


def report_artifact(conn: common.KeepAlive, fp: str, number: int, commit_ts: float,
                    repo: dict[str, str] = REPO) -> None:
    """An artifact of `repo` in its own trail (named after its commit), with the commit's time,
    so deployments of it have a lead time."""
    sha = fingerprint("commit", fp)[:40]
    commit_url = f"{repo['url']}/commit/{sha}"
    send(conn, "POST", f"/api/v2/artifacts/{ORG}/{FLOW}", {
        "fingerprint": fp, "filename": f"registry.example/acme/app:{number}", "git_commit": sha,
        "git_commit_info": {"sha1": sha, "timestamp": commit_ts, "message": f"change {number}",
                            "author": "Bench <bench@example.com>", "branch": "main",
                            "url": commit_url},
        "repo_info": repo, "build_url": f"https://ci.example/builds/{number}",
        "commit_url": commit_url})


class PodReport:
    """A K8S report of `pods` pods, one image each, kept as encoded items so that changing the
    image of a few pods does not encode the whole body again."""

    def __init__(self, env: str, pods: int, created: int) -> None:
        self.env = env
        self.created = created
        self.items = [self._item(i, fingerprint(env, i, "base")) for i in range(pods)]

    def _item(self, i: int, fp: str) -> bytes:
        return json.dumps({"podName": f"app-{i:03d}-5d8f7c9b6-{i:05x}", "namespace": "bench",
                           "digests": {f"registry.example/bench/app-{i:03d}": fp},
                           "creationTimestamp": self.created + i}).encode()

    def change(self, run: int, generation: int, count: int) -> None:
        """New images for `count` pods, the next ones round the list each generation."""
        for j in range(count):
            i = (generation * count + j) % len(self.items)
            self.items[i] = self._item(i, fingerprint(self.env, i, run, generation))

    def body(self) -> bytes:
        return b'{"artifacts": [' + b", ".join(self.items) + b"]}"


# ---- in-process ----------------------------------------------------------------------------

class InProcess:
    """The project's code in this process, on the server's database file: bare domain calls,
    and the whole REST stack through Flask's test client (no sockets, no gunicorn)."""

    def __init__(self, server: common.Server) -> None:
        from evidence_grpc.storage.db import database, init_database
        from evidence_grpc.storage.models import Organization

        self.database_url = server.database_url
        init_database(self.database_url)
        database.connect(reuse_if_open=True)
        self.org = Organization.get(Organization.name == ORG)
        self._client: Any = None

    def request(self, method: str, path: str, body: bytes | None = None
                ) -> tuple[bool, int, bytes, str]:
        """Like KeepAlive.checked, through the Flask test client."""
        if self._client is None:
            from evidence_grpc.config import Settings
            from rest_shim.app import create_app

            app = create_app(Settings(database_url=self.database_url, public_url=HTML_BASE))
            self._client = app.test_client()
        response = self._client.open(path, method=method, data=body,
                                     headers=JSON if body is not None else AUTH)
        return True, response.status_code, response.get_data(), ""

    def get(self, path: str) -> tuple[bool, int, bytes, str]:
        return self.request("GET", path)


def in_process(server: common.Server) -> InProcess | None:
    try:
        return InProcess(server)
    except Exception as exc:  # the project may be mid-change: keep the REST numbers
        print(f"  (in-process comparisons skipped: {type(exc).__name__}: {exc})", flush=True)
        return None


# ---- lookups measured three ways -----------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Query:
    label: str
    path: str
    domain: Callable[[Any], Any] | None  # the bare domain call, given the organization
    expected_status: int = 200
    check: Callable[[bytes], str] | None = None  # "" or what is wrong with the first answer
    target_ms: float | None = None


@dataclasses.dataclass
class QueryResult:
    query: Query
    rest: common.LatencyRow
    client: common.LatencyRow | None
    domain: common.LatencyRow | None
    answer_bytes: int

    @property
    def met(self) -> bool | None:
        if self.query.target_ms is None:
            return None
        return self.rest.errors == 0 and self.rest.n > 0 and self.rest.p99_ms < self.query.target_ms


def measure_fetches(label: str, fetch: Callable[[], tuple[bool, int, bytes, str]], query: Query,
                    requests: int, warmup: int, budget: float) -> tuple[common.LatencyRow, int]:
    """c=1 latency of `fetch` (answered, status, body, error); checks the status every time and
    the first answer, a warm-up one, with query.check (which parses the answer: a timed call
    would count the parsing). Returns the row and the answer's size."""
    first_error: list[str] = []
    wrong_answers = [0]  # the checked warm-up answer is counted as an error when wrong
    size = [0]

    def call(i: int) -> bool:
        answered, status, payload, error = fetch()
        size[0] = len(payload)
        problem = error if not answered else (
            f"HTTP {status}: {payload[:200]!r}" if status != query.expected_status else "")
        if not problem and i == 0 and query.check is not None:
            problem = query.check(payload)
            wrong_answers[0] += bool(problem)
        if problem:
            first_error.append(problem)
            return False
        return True

    latencies, errors, stopped = common.budgeted(call, warmup, requests, budget)
    errors += wrong_answers[0]
    note = common.budget_note(stopped, budget, first_error)
    return common.latency_row(label, latencies, errors, note), size[0]


def measure_domain(query: Query, org: Any, requests: int, warmup: int, budget: float
                   ) -> common.LatencyRow:
    first_error: list[str] = []

    def call(i: int) -> bool:
        assert query.domain is not None
        try:
            query.domain(org)
        except Exception as exc:
            if query.expected_status == 404 and type(exc).__name__ == "NotFound":
                return True
            first_error.append(f"{type(exc).__name__}: {exc}")
            return False
        return True

    latencies, errors, stopped = common.budgeted(call, warmup, requests, budget)
    return common.latency_row("  in-process domain call", latencies, errors,
                              common.budget_note(stopped, budget, first_error))


def measure_query(server: common.Server, inproc: InProcess | None, query: Query, requests: int,
                  budget: float) -> QueryResult:
    warmup = min(50, max(3, requests // 10))
    conn = common.LeanKeepAlive(server.rest)
    try:
        rest, size = measure_fetches(f"REST  {query.label}", lambda: conn.checked(
            "GET", query.path, headers=AUTH), query, requests, warmup, budget)
    finally:
        conn.close()
    common.print_latency(rest, LABEL_WIDTH)
    client = domain = None
    if inproc is not None:
        client, _ = measure_fetches("  in-process REST stack (Flask test client)",
                                    lambda: inproc.get(query.path), query, requests, warmup, budget)
        common.print_latency(client, LABEL_WIDTH)
        if query.domain is not None:
            domain = measure_domain(query, inproc.org, requests, warmup, budget)
            common.print_latency(domain, LABEL_WIDTH)
    return QueryResult(query, rest, client, domain, size)


def measure_queries(server: common.Server, inproc: InProcess | None, queries: list[Query],
                    requests: int, budget: float) -> list[QueryResult]:
    print(f"\n  c=1, up to {requests:,} requests per query and mode after a warm-up, at most "
          f"{budget:g} s each")
    common.print_latency_header("query", LABEL_WIDTH)
    results = []
    for query in queries:
        result = measure_query(server, inproc, query, requests, budget)
        results.append(result)
        target = (f"p99 target < {query.target_ms:g} ms: {'MET' if result.met else 'MISSED'}"
                  if query.target_ms is not None else "no target")
        print(f"    answer {result.answer_bytes:,} bytes; {target}", flush=True)
    return results


# ---- profiles ------------------------------------------------------------------------------

def _where(key: tuple[str, int, str]) -> str:
    filename, line, name = key
    for marker in ("/site-packages/", "/evidence_grpc/", "/rest_shim/", "/lib/python3"):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
            if marker in ("/evidence_grpc/", "/rest_shim/"):
                filename = marker.strip("/") + "/" + filename
            break
    return f"{filename}:{line}({name})" if line else name


def print_profile(profiler: cProfile.Profile, calls: int, top: int = 14) -> None:
    """The project's functions by cumulative time (leaving out wrappers that only pass the call
    on: within 2 % of the one above), and all functions by their own time."""
    stats = pstats.Stats(profiler).stats
    rows = [(key, nc, tt, ct) for key, (_, nc, tt, ct, _) in stats.items()]
    own = [r for r in rows if "/evidence_grpc/" in r[0][0] or "/rest_shim/" in r[0][0]]
    print(f"    cProfile of {calls} request(s), ms per request (the profiler inflates them: compare "
          "shares); project functions by cumulative time:")
    shown: list[float] = []
    for key, nc, _, ct in sorted(own, key=lambda r: -r[3]):
        if len(shown) == top:
            break
        if shown and shown[-1] - ct < 0.02 * shown[-1]:
            continue
        shown.append(ct)
        print(f"      {ct * 1000 / calls:9.2f} ms  {nc / calls:>9.0f} calls  {_where(key)}")
    print("    all functions by own time:")
    for key, nc, tt, _ in sorted(rows, key=lambda r: -r[2])[:top]:
        print(f"      {tt * 1000 / calls:9.2f} ms  {nc / calls:>9.0f} calls  {_where(key)}")


def profile_calls(call: Callable[[], Any], calls: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        call()
    profiler.disable()
    print_profile(profiler, calls)


def profile_query(server: common.Server, inproc: InProcess, query: Query, calls: int) -> None:
    """The SQL one request runs (each statement timed alone, with its plan) and a cProfile of
    `calls` requests through the in-process REST stack."""
    print(f"\n  profile: {query.label}")
    with common.recording_sql() as statements:
        started = time.perf_counter()
        inproc.get(query.path)
        elapsed = time.perf_counter() - started
    print(f"    one request through the in-process REST stack: {elapsed * 1000:.1f} ms, "
          f"{len(statements)} SQL statements; each alone (raw sqlite3, page cache warm):")
    total = common.explain_statements(server.database_path, statements, repeat=5)
    print(f"    SQL alone: {total * 1000:.1f} ms of the {elapsed * 1000:.1f} ms")
    profile_calls(lambda: inproc.get(query.path), calls)


def profile_missed(server: common.Server, inproc: InProcess | None, results: list[QueryResult],
                   mode: str) -> None:
    if mode == "never" or inproc is None:
        return
    for result in results:
        if mode == "always" or result.met is False:
            p50 = result.rest.p50_ms
            calls = 1 if p50 > 1000 else 3 if p50 > 200 else 20
            try:
                profile_query(server, inproc, result.query, calls)
            except Exception as exc:
                print(f"    (profile failed: {type(exc).__name__}: {exc})")


# ---- 1. ingest -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ReportJob:
    address: str
    env: str
    pods: int
    created: int
    changed: bool
    run: int
    window: common.Window


def run_report_job(index: int, job: ReportJob) -> common.WorkerResult:
    """One client: the environment's report back to back, changed a little each time or not."""
    report = PodReport(job.env, job.pods, job.created)
    conn = common.KeepAlive(job.address, timeout=60)
    path = report_path(job.env, "K8S")
    generations = itertools.count()

    def call() -> tuple[bool, str]:
        if job.changed:
            report.change(job.run, next(generations), CHANGED_PODS)
        answered, status, payload, error = conn.checked("PUT", path, report.body(), JSON)
        if not answered:
            return False, error
        if status != 200:
            return False, f"HTTP {status}: {payload[:200]!r}"
        answer = json.loads(payload)
        if (answer != NO_NEW_SNAPSHOT) != job.changed:
            return False, f"unexpected answer {answer!r}"
        return True, ""

    try:
        return common.run_window(call, job.window)
    finally:
        conn.close()


def _crashed(message: str) -> common.WorkerResult:
    return common.WorkerResult(latencies=[], errors=1, first_error=message)


@dataclasses.dataclass
class IngestPoint(common.LoadSummary):
    case: str
    concurrency: int


def ingest_envs(case: str, count: int) -> list[str]:
    return [f"ingest-{case}-{i + 1}" for i in range(count)]


def measure_ingest(pool: common.ClientPool[ReportJob, common.WorkerResult],
                   server: common.Server, case: str, concurrency: int, pods: int, created: int,
                   run: int, warmup: float, seconds: float) -> IngestPoint:
    window = common.Window.starting(warmup, seconds)
    jobs = [ReportJob(server.rest, env, pods, created, case == "changed", run, window)
            for env in ingest_envs(case, concurrency)]
    load = common.load_window(pool, jobs, window, [server.process.pid], _crashed)
    return IngestPoint(case=case, concurrency=concurrency,
                       **vars(common.summarize(load.results, load, seconds)))


def print_ingest(point: IngestPoint) -> None:
    envs = "1 env" if point.concurrency == 1 else f"{point.concurrency} envs"
    common.print_load(f"  {point.case:<10} c={point.concurrency} ({envs:<6})", point)


def domain_ingest(inproc: InProcess, pods: int, created: int, requests: int, budget: float
                  ) -> list[common.LatencyRow]:
    """report_environment in this process (no HTTP, no JSON decoding, no protobuf), and the
    report's JSON Schema validation alone."""
    from evidence_grpc.domain.runtime import environments, snapshots

    rows = []
    warmup = min(10, max(2, requests // 10))
    for case in ("unchanged", "changed"):
        env = f"ingest-domain-{case}"
        report = PodReport(env, pods, created)
        payloads = [json.loads(report.body())]
        for generation in range(warmup + requests if case == "changed" else 0):
            report.change(0, generation, CHANGED_PODS)
            payloads.append(json.loads(report.body()))
        snapshots.report_environment(inproc.org, env, "K8S", payloads[0])
        first_error: list[str] = []

        def call(i: int, case: str = case, env: str = env, payloads: list[Any] = payloads,
                 first_error: list[str] = first_error) -> bool:
            made = snapshots.report_environment(inproc.org, env, "K8S",
                                                payloads[(i + 1) % len(payloads)])
            if (made is not None) != (case == "changed"):
                first_error.append(f"report {i}: snapshot {'made' if made else 'not made'}")
                return False
            return True

        latencies, errors, stopped = common.budgeted(call, warmup, requests, budget)
        note = common.budget_note(stopped, budget, first_error)
        rows.append(common.latency_row(f"in-process report_environment, {case}", latencies,
                                       errors, note))
    payload = json.loads(PodReport("x", pods, created).body())
    latencies, _, _ = common.budgeted(
        lambda i: environments.validate("report:K8S", payload) is None, warmup, requests, budget)
    rows.append(common.latency_row("in-process JSON Schema validation alone", latencies))
    return rows


def run_ingest(server: common.Server, inproc: InProcess | None, args: argparse.Namespace
               ) -> list[IngestPoint]:
    created = int(time.time()) - 3600
    conn = common.KeepAlive(server.rest)
    try:  # environments, each with its first snapshot, so every measured report is alike
        for case in ("unchanged", "changed"):
            for env in ingest_envs(case, 4):
                create_environment(conn, env, "K8S")
                send(conn, "PUT", report_path(env, "K8S"),
                     json.loads(PodReport(env, args.report_pods, created).body()), (200,))
        for case in ("unchanged", "changed"):
            create_environment(conn, f"ingest-domain-{case}", "K8S")
    finally:
        conn.close()
    size = len(PodReport("x", args.report_pods, created).body())
    print(f"  report body {size / 1024:.0f} KiB; 'changed' reports give {CHANGED_PODS} pods a new "
          f"image each time; {args.warmup:g} s warm-up + {args.seconds:g} s per point")
    print(f"  {'case':<10} {'c':<12}{common.LOAD_HEADER}  (req = report)")
    points = []
    pool: common.ClientPool[ReportJob, common.WorkerResult] = common.ClientPool(4, run_report_job)
    try:
        run = itertools.count(1)
        for case in ("unchanged", "changed"):
            for concurrency in (1, 4):
                point = measure_ingest(pool, server, case, concurrency, args.report_pods,
                                       created, next(run), args.warmup, args.seconds)
                points.append(point)
                print_ingest(point)
                time.sleep(0.5)
    finally:
        pool.close()
    if inproc is not None:
        print()
        common.print_latency_header("in-process, c=1", LABEL_WIDTH)
        try:
            for row in domain_ingest(inproc, args.report_pods, created, args.domain_requests,
                                     args.budget):
                common.print_latency(row, LABEL_WIDTH)
        except Exception as exc:
            print(f"  (in-process ingest skipped: {type(exc).__name__}: {exc})")
        if args.profile != "never":
            profile_report(inproc, args.report_pods, created)
    return points


def profile_report(inproc: InProcess, pods: int, created: int, calls: int = 10) -> None:
    """Where an unchanged report's time goes through the in-process REST stack."""
    env = ingest_envs("unchanged", 1)[0]
    body = PodReport(env, pods, created).body()
    path = report_path(env, "K8S")
    print(f"\n  profile: {pods}-pod K8S report, unchanged, through the in-process REST stack")
    try:
        _, status, payload, _ = inproc.request("PUT", path, body)
        common.expect(status, payload, (200,), "the in-process report")
        profile_calls(lambda: inproc.request("PUT", path, body), calls)
    except Exception as exc:
        print(f"    (profile failed: {type(exc).__name__}: {exc})")


# ---- 2. deployment statistics --------------------------------------------------------------

@dataclasses.dataclass
class StatsSeed:
    repo_key: str
    envs: list[str]
    total: int
    per_env: dict[str, int]
    narrow: tuple[float, float]
    narrow_count: int


def seed_stats(server: common.Server, artifacts: int, deployments: int, env_count: int) -> StatsSeed:
    """`artifacts` artifacts of one repo (POST /artifacts with repo_info), then reports that
    alternate between two halves of them in `env_count` server environments, so each report
    starts artifacts/2 of them: that many deployments."""
    conn = common.KeepAlive(server.rest)
    try:
        create_flow(conn)
        fps = [fingerprint("stats", i) for i in range(artifacts)]
        commit_base = time.time() - 14 * 86400
        started = time.monotonic()
        for i, fp in enumerate(fps):
            report_artifact(conn, fp, i, commit_base + i * 600)
        reported = time.monotonic()
        print(f"  {artifacts:,} artifacts of repo '{REPO['name']}' reported over REST in "
              f"{reported - started:.1f} s ({artifacts / (reported - started):,.0f}/s)", flush=True)
        envs = [f"stats-{e + 1}" for e in range(env_count)]
        for env in envs:
            create_environment(conn, env, "server")
        half = artifacts // 2
        bodies = [json.dumps({"artifacts": [
            {"digests": {f"/opt/app-{i}": fps[i]}, "creationTimestamp": int(commit_base) + i}
            for i in range(side * half, (side + 1) * half)]}).encode() for side in (0, 1)]
        reports = math.ceil(deployments / half)
        first_narrow, narrow_reports = reports // 2, max(1, reports // 100)
        narrow = [0.0, 0.0]
        per_env: Counter[str] = Counter()
        last_print = started = time.monotonic()
        for n in range(reports):
            env = envs[n % env_count]
            if n == first_narrow:
                narrow[0] = time.time()
            status, body = conn.request("PUT", report_path(env, "server"),
                                        bodies[(n // env_count) % 2], JSON)
            common.expect(status, body, (200,), f"report {n} to {env}")
            if json.loads(body) == NO_NEW_SNAPSHOT:
                raise RuntimeError(f"report {n} to {env} made no snapshot")
            if n == first_narrow + narrow_reports - 1:
                narrow[1] = time.time()
            per_env[env] += half
            if time.monotonic() - last_print > 10:
                last_print = time.monotonic()
                print(f"    ... {n + 1} reports, {(n + 1) * half:,} deployments", flush=True)
        seconds = time.monotonic() - started
        total = reports * half
        print(f"  {reports} reports of {half} artifacts to {env_count} environments over REST in "
              f"{seconds:.1f} s ({reports / seconds:.1f} reports/s, {total / seconds:,.0f} "
              f"deployments/s): {total:,} deployments", flush=True)
        return StatsSeed(repo_key(conn), envs, total, dict(per_env), (narrow[0], narrow[1]),
                         narrow_reports * half)
    finally:
        conn.close()


def stats_path(key: str, query: str = "") -> str:
    return f"/api/v2/repos/{ORG}/{quote(key, safe='/')}/deployment-statistics{query}"


def repo_key(conn: common.KeepAlive) -> str:
    """How the stats URL names the repo: its id (as the contract says) when the server finds it
    by id, else its name."""
    status, body = conn.request("GET", f"/api/v2/repos/{ORG}?per_page=50", headers=AUTH)
    common.expect(status, body, (200,), "listing repos")
    repos = [r for r in json.loads(body)["repos"] if r["name"] == REPO["name"]]
    candidates = [str(r["id"]) for r in repos] + [REPO["name"]]
    for key in candidates:
        if conn.request("GET", stats_path(key, "?start_ts=0&end_ts=0"), headers=AUTH)[0] == 200:
            return key
    raise RuntimeError(f"deployment-statistics finds the repo by none of {candidates}")


def count_check(expected: int) -> Callable[[bytes], str]:
    def check(payload: bytes) -> str:
        found = sum(len(e["deployment_frequency"]) for e in json.loads(payload)["environments"])
        return "" if found == expected else f"{found:,} deployments in the answer, not {expected:,}"

    return check


def stats_queries(seed: StatsSeed) -> list[Query]:
    def domain(envs: list[str], start: float | None, end: float | None) -> Callable[[Any], Any]:
        def call(org: Any) -> Any:
            from evidence_grpc.domain.runtime import deployments

            return deployments.deployment_statistics(org, seed.repo_key, envs, start, end)

        return call

    env = seed.envs[0]
    low, high = seed.narrow
    return [
        Query("stats, all environments, start_ts=0", stats_path(seed.repo_key, "?start_ts=0"),
              domain([], 0.0, None), check=count_check(seed.total),
              target_ms=DENSE_STATS_TARGET_MS),
        Query(f"stats, env={env}, start_ts=0", stats_path(seed.repo_key, f"?env={env}&start_ts=0"),
              domain([env], 0.0, None), check=count_check(seed.per_env[env]),
              target_ms=DENSE_STATS_TARGET_MS),
        Query(f"stats, narrow window ({seed.narrow_count:,} deployments)",
              stats_path(seed.repo_key, f"?start_ts={low!r}&end_ts={high!r}"),
              domain([], low, high), check=count_check(seed.narrow_count),
              target_ms=STATS_TARGET_MS),
        Query("stats, default window (28 days; no start_ts/end_ts)", stats_path(seed.repo_key),
              domain([], None, None), check=count_check(seed.total),
              target_ms=DENSE_STATS_TARGET_MS),
    ]


def run_stats(server: common.Server, inproc: InProcess | None, args: argparse.Namespace
              ) -> list[QueryResult]:
    seed = seed_stats(server, args.stats_artifacts, args.deployments, args.stats_envs)
    print(f"  repo key in the URL: '{seed.repo_key}'; narrow window {seed.narrow[1] - seed.narrow[0]:.2f} s "
          f"wide", flush=True)
    results = measure_queries(server, inproc, stats_queries(seed), args.stats_requests, args.budget)
    profile_missed(server, inproc, results, args.profile)
    return results


# ---- 3. snapshots --------------------------------------------------------------------------

SNAPSHOT_ENV = "snapshots"


def snapshot_report(n: int, stable: list[str], edge: tuple[str, str], created: int) -> dict[str, Any]:
    """What runs at report n: the stable services and one that alternates between two
    fingerprints, so every report makes a snapshot."""
    items = [{"digests": {f"/opt/svc-{i}": fp}, "creationTimestamp": created + i}
             for i, fp in enumerate(stable)]
    items.append({"digests": {"/opt/edge": edge[n % 2]}, "creationTimestamp": created + n})
    return {"artifacts": items}


@dataclasses.dataclass
class SnapshotSeed:
    count: int
    first_ts: float
    middle_index: int
    middle_ts: float


def seed_snapshots(server: common.Server, inproc: InProcess | None, count: int, over_rest: int
                   ) -> SnapshotSeed:
    """`count` snapshots in one environment: the first `over_rest` over REST (to see what that
    costs), the rest with report_environment in this process on the same database file."""
    conn = common.KeepAlive(server.rest)
    try:
        create_flow(conn)
        stable = [fingerprint("snapshot-stable", i) for i in range(4)]
        edge = (fingerprint("snapshot-edge", "a"), fingerprint("snapshot-edge", "b"))
        for i, fp in enumerate([*stable, edge[0]]):  # provenance for all but one
            report_artifact(conn, fp, 100_000 + i, time.time() - 86400, OTHER_REPO)
        create_environment(conn, SNAPSHOT_ENV, "server")
        created = int(time.time()) - 3600
        path = report_path(SNAPSHOT_ENV, "server")
        rest_count = count if inproc is None else min(count, over_rest)
        started = time.monotonic()
        for n in range(rest_count):
            send(conn, "PUT", path, snapshot_report(n, stable, edge, created), (200,))
        rest_seconds = time.monotonic() - started
        print(f"  {rest_count:,} snapshots over REST in {rest_seconds:.1f} s "
              f"({rest_count / rest_seconds:,.0f}/s; {count:,} would take "
              f"{count * rest_seconds / rest_count:,.0f} s)", flush=True)
        if rest_count < count and inproc is not None:
            from evidence_grpc.domain.runtime import snapshots

            started = time.monotonic()
            for n in range(rest_count, count):
                if snapshots.report_environment(inproc.org, SNAPSHOT_ENV, "server",
                                                snapshot_report(n, stable, edge, created)) is None:
                    raise RuntimeError(f"report {n} made no snapshot")
            seconds = time.monotonic() - started
            print(f"  {count - rest_count:,} more with report_environment in-process in "
                  f"{seconds:.1f} s ({(count - rest_count) / seconds:,.0f}/s)", flush=True)
    finally:
        conn.close()
    conn = common.KeepAlive(server.rest)  # the server closes a keep-alive connection left idle
    try:
        middle = count // 2
        first = send(conn, "GET", f"/api/v2/snapshots/{ORG}/{SNAPSHOT_ENV}/%231", None, (200,))
        mid = send(conn, "GET", f"/api/v2/snapshots/{ORG}/{SNAPSHOT_ENV}/%23{middle}", None, (200,))
        return SnapshotSeed(count, first["timestamp"], middle, mid["timestamp"])
    finally:
        conn.close()


def index_check(expected: int | None) -> Callable[[bytes], str]:
    def check(payload: bytes) -> str:
        found = json.loads(payload)["index"]
        if expected is None:
            return "" if found >= 1 else f"snapshot #{found}"
        return "" if found == expected else f"snapshot #{found}, not #{expected}"

    return check


def list_check(payload: bytes) -> str:
    rows = json.loads(payload)
    return "" if len(rows) == 15 else f"{len(rows)} snapshots listed, not 15"


def snapshot_queries(seed: SnapshotSeed) -> list[Query]:
    def domain(expression: str) -> Callable[[Any], Any]:
        def call(org: Any) -> Any:
            from evidence_grpc.domain.runtime import snapshots

            return snapshots.get_snapshot(org, SNAPSHOT_ENV, expression, HTML_BASE)

        return call

    def listing(org: Any) -> Any:
        from evidence_grpc.domain.runtime import snapshots

        return snapshots.list_snapshots(org, SNAPSHOT_ENV, 1, 15)

    base = f"/api/v2/snapshots/{ORG}/{SNAPSHOT_ENV}"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seed.middle_ts))
    hour_ago_status = 404 if seed.first_ts > time.time() - 3600 else 200
    # @{T} names the newest snapshot made at or before T (whole seconds): none when all of them
    # came later, as with a small seed made within one second.
    middle_status = 200 if seed.first_ts <= math.floor(seed.middle_ts) else 404
    queries = [
        Query("snapshot -1", f"{base}/-1", domain("-1"), check=index_check(seed.count)),
        Query(f"snapshot #{seed.middle_index}", f"{base}/%23{seed.middle_index}",
              domain(f"#{seed.middle_index}"), check=index_check(seed.middle_index)),
        Query("snapshot ~10", f"{base}/~10", domain("~10"), check=index_check(seed.count - 10)),
        Query(f"snapshot @{{{stamp}}} (middle){' (404)' if middle_status == 404 else ''}",
              f"{base}/{quote(f'@{{{stamp}}}', safe='@')}", domain(f"@{{{stamp}}}"),
              expected_status=middle_status,
              check=index_check(None) if middle_status == 200 else None),
        Query(f"snapshot @{{1.hours.ago}}{' (404: all newer)' if hour_ago_status == 404 else ''}",
              f"{base}/{quote('@{1.hours.ago}', safe='@')}", domain("@{1.hours.ago}"),
              expected_status=hour_ago_status,
              check=None if hour_ago_status == 404 else index_check(None)),
    ]
    queries = [dataclasses.replace(q, target_ms=SNAPSHOT_TARGET_MS) for q in queries]
    queries.append(Query("snapshot list, page=1&per_page=15", f"{base}?page=1&per_page=15",
                         listing, check=list_check))
    return queries


def run_snapshots(server: common.Server, inproc: InProcess | None, args: argparse.Namespace
                  ) -> list[QueryResult]:
    seed = seed_snapshots(server, inproc, args.snapshots, args.rest_seed)
    results = measure_queries(server, inproc, snapshot_queries(seed), args.snapshot_requests,
                              args.budget)
    profile_missed(server, inproc, results, args.profile)
    return results


# ---- summary -------------------------------------------------------------------------------

def print_summary(points: list[IngestPoint], results: list[QueryResult]) -> None:
    print("\nSummary (SQLite, c=1 lookups; REST = HTTP to `evidence-server serve`)")
    print(f"  {'what':<58} {'REST p50 / p99 ms':>18} {'in-proc p99 ms':>16}  {'target':<12} verdict")
    for p in points:
        what = f"K8S report ingest, {p.case}, c={p.concurrency}: {p.rate:,.1f} reports/s"
        print(f"  {what:<58} {p.p50_ms:>8.1f} / {p.p99_ms:<7.1f} {'':>16}  {'-':<12} "
              f"{'(errors: ' + str(p.errors) + ')' if p.errors else ''}")
    for r in results:
        inner = " / ".join(f"{row.p99_ms:.1f}" for row in (r.client, r.domain) if row is not None)
        target = f"p99 < {r.query.target_ms:g} ms" if r.query.target_ms is not None else "-"
        verdict = {None: "", True: "MET", False: "MISSED"}[r.met]
        if r.rest.errors:
            verdict += f" ({r.rest.errors} errors)"
        print(f"  {r.query.label:<58} {r.rest.p50_ms:>8.1f} / {r.rest.p99_ms:<7.1f} {inner:>16}  "
              f"{target:<12} {verdict}")
    print("  (in-proc p99: Flask test client / bare domain call, in this process)")


# ---- main ----------------------------------------------------------------------------------

SIZES = [  # option, type, full run, --quick, what it is
    ("warmup", float, 2.0, 1.0, "ingest warm-up per point, not counted (s)"),
    ("seconds", float, 10.0, 4.0, "ingest measurement per point (s)"),
    ("domain_requests", int, 100, 30, "in-process report_environment calls per case"),
    ("deployments", int, 100_000, 20_000, "deployments to seed"),
    ("stats_artifacts", int, 1000, 400, "artifacts of the repo; each report runs half of them"),
    ("stats_requests", int, 300, 60, "requests per statistics query and mode"),
    ("snapshots", int, 10_000, 2000, "snapshots to seed in one environment"),
    ("rest_seed", int, 300, 100, "of those, how many over REST; the rest in-process"),
    ("snapshot_requests", int, 1000, 200, "requests per snapshot query and mode"),
    ("budget", float, 20.0, 8.0, "at most this many seconds per query and mode"),
]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="20k deployments, 2,000 snapshots, 1 + 4 s ingest points, fewer requests")
    p.add_argument("--parts", default="ingest,stats,snapshots",
                   help="comma-separated of ingest,stats,snapshots (default all)")
    p.add_argument("--report-pods", type=int, default=500, help="pods in an ingest report (500)")
    p.add_argument("--stats-envs", type=int, default=4, help="environments deployed to (4)")
    for name, kind, full, small, what in SIZES:
        p.add_argument(f"--{name.replace('_', '-')}", type=kind,
                       help=f"{what} (default {full:,}; --quick {small:,})")
    p.add_argument("--profile", choices=("auto", "always", "never"), default="auto",
                   help="SQL and cProfile of the queries that miss their target (auto), of all, "
                        "or none")
    p.add_argument("--workers", type=int, help="HTTP worker processes (server default)")
    p.add_argument("--source", type=pathlib.Path, default=common.ROOT,
                   help="run the server and the in-process code from this checkout")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = p.parse_args(argv)
    for name, _, full, small, _ in SIZES:
        if getattr(args, name) is None:
            setattr(args, name, small if args.quick else full)
    args.parts = [x for x in args.parts.split(",") if x]
    unknown = set(args.parts) - {"ingest", "stats", "snapshots"}
    if unknown:
        p.error(f"unknown parts: {', '.join(sorted(unknown))}")
    if args.stats_artifacts < 2 or args.deployments < 1 or args.snapshots < 20:
        p.error("need --stats-artifacts >= 2, --deployments >= 1 and --snapshots >= 20")
    return args


def run_parts(server: common.Server, args: argparse.Namespace, points: list[IngestPoint],
              results: list[QueryResult]) -> None:
    """The parts asked for, in order; what they measure is added to points and results."""
    inproc = in_process(server)
    if "ingest" in args.parts:
        print(f"\n[1] ingest: K8S reports of {args.report_pods} pods", flush=True)
        points += run_ingest(server, inproc, args)
    if "stats" in args.parts:
        print(f"\n[2] deployment statistics over {args.deployments:,} deployments", flush=True)
        results += run_stats(server, inproc, args)
    if "snapshots" in args.parts:
        print(f"\n[3] snapshots by expression, {args.snapshots:,} snapshots in one environment",
              flush=True)
        results += run_snapshots(server, inproc, args)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    source = args.source.resolve()
    common.use_source(source)
    points: list[IngestPoint] = []
    results: list[QueryResult] = []
    started = time.monotonic()
    with common.scratch_dir("bench-runtime-", args.keep) as workdir:
        common.describe_machine("bench_runtime", f"code from {source}, workdir {workdir}")
        try:
            with common.running_server(workdir, args.workers, ORG, KEY, source) as server:
                print(server.describe(), flush=True)
                run_parts(server, args, points, results)
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)
            print_summary(points, results)
            return 130
    print_summary(points, results)
    print(f"\nfinished in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
