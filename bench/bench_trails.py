"""Throughput and latency of `get trail` and `begin trail`: REST vs gRPC.

Run by hand (not a test):

    python bench/bench_trails.py            # 3 s warm-up + 8 s per point
    python bench/bench_trails.py --quick    # 1 s warm-up + 2 s per point
    python bench/bench_trails.py --ops ping,get --transports rest,grpc --concurrency 8 \
        --rounds 5 --warmup 1 --seconds 4   # issue 12's ratios, per round and their medians

It starts its own servers on free 127.0.0.1 ports with a temporary SQLite database:
`serve` (gRPC server + REST shim calling the servicers in-process) and a separate
`shim --grpc-target` pointed at the same gRPC server, bootstraps an organization, creates a flow
and trails, and then loads each transport in turn:

    rest       REST through the `serve` shim (servicers in-process)
    grpc       gRPC straight to the gRPC server
    rest-hop   REST through `shim --grpc-target` (one loopback gRPC hop per request)

Load comes from separate client processes (spawned once, reused for every point), one persistent
keep-alive connection or gRPC channel each; concurrency c uses c of them. Only requests completed
inside the measurement window count. The servers and the clients share the machine's cores, so
"srv ms/req" (CPU of all server processes per request) and "cli %" (client CPU as a share of the
box) are printed to show where the CPU went.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import pathlib
import random
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from _common import (
    LOAD_HEADER,
    ROOT,
    ClientPool,
    KeepAlive,
    LoadSummary,
    Window,
    WorkerResult,
    bootstrap,
    describe_machine,
    expect,
    free_port,
    http_call,
    load_window,
    multipart,
    print_load,
    run_window,
    scratch_dir,
    scratch_postgres,
    start_server,
    stop_processes,
    summarize,
    use_source,
)

SOURCE = ROOT  # the tree the servers run from (--source)
use_source(ROOT)

ORG = "acme"
FLOW = "bench"
KEY = "bench-trails-secret-key"
TRANSPORTS = ("rest", "grpc", "rest-hop")
TRANSPORT_LABELS = {"rest": "REST (serve, in-process)", "grpc": "gRPC direct",
                    "rest-hop": "REST (shim -> gRPC hop)"}
OPS = ("ping", "get", "update", "create")
OP_LABELS = {"ping": "ping (ready / health)", "get": "get trail", "update": "begin trail (update)",
             "create": "begin trail (create)"}
TARGET_RATE = 1000.0
TARGET_RATIO = 0.6
# Issues 12 and 35, all at c=8 in one run: gRPC get trail >= 1.0 x REST get trail; each
# stack's get trail >= 0.6 x its own cheapest call (REST GET /ready, gRPC health Check); issue
# 12 asked 0.5 of trails without evidence, issue 35 0.6 of realistic ones (--evidence).
TARGET_GRPC_OVER_REST = 1.0
TARGET_OVER_PING = 0.6


# ---- jobs (pickled between processes) ------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Job:
    transport: str  # "rest" or "grpc" (the client side of rest-hop is plain REST)
    address: str  # host:port
    op: str
    names: tuple[str, ...]  # trails to read or update, cycled
    create_prefix: str  # unique prefix of new trail names
    window: Window
    channels: int = 1  # gRPC connections of this client, used in turn


# ---- client side ---------------------------------------------------------------------------

def _trail_form(data: dict[str, Any]) -> bytes:
    return multipart({"data_json": json.dumps(data)})[0]


def _in_random_order(names: tuple[str, ...], seed: int) -> list[str]:
    """The trails in an order of each client's own: read at random, not in step."""
    shuffled = list(names)
    random.Random(seed).shuffle(shuffled)
    return shuffled


def _rest_caller(job: Job, offset: int) -> tuple[Callable[[], tuple[bool, str]], Callable[[], None]]:
    conn = KeepAlive(job.address, timeout=30)
    headers = {"Authorization": f"Bearer {KEY}"}
    put_headers = {**headers, "Content-Type": multipart({})[1]}
    names = _in_random_order(job.names, offset)
    get_paths = [f"/api/v2/trails/{ORG}/{FLOW}/{n}" for n in names]
    update_bodies = [_trail_form({"name": n, "description": "updated by bench"}) for n in names]
    put_path = f"/api/v2/trails/{ORG}/{FLOW}"
    counter = [offset]

    def request() -> tuple[str, str, bytes | None, dict[str, str], int]:
        i = counter[0]
        counter[0] += 1
        if job.op == "ping":
            return "GET", "/ready", None, {}, 200
        if job.op == "get":
            return "GET", get_paths[i % len(names)], None, headers, 200
        if job.op == "update":
            return "PUT", put_path, update_bodies[i % len(names)], put_headers, 200
        body = _trail_form({"name": f"{job.create_prefix}-{i}", "description": "new"})
        return "PUT", put_path, body, put_headers, 201

    def call() -> tuple[bool, str]:
        method, path, body, hdrs, expected = request()
        answered, status, payload, error = conn.checked(method, path, body, hdrs)
        if not answered:
            return False, error
        if status != expected:
            return False, f"HTTP {status}: {payload[:200]!r}"
        return True, ""

    return call, conn.close


def _grpc_caller(job: Job, offset: int) -> tuple[Callable[[], tuple[bool, str]], Callable[[], None]]:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from evidence_grpc.api.v2 import trail_service_pb2 as pb
    from evidence_grpc.api.v2 import trail_service_pb2_grpc as pb_grpc

    # Each channel its own connection (a local subchannel pool): the server's processes share
    # the port, and the kernel gives each connection to one of them (docs/grpc.md).
    channels = [grpc.insecure_channel(job.address, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(job.channels)]
    stubs = [pb_grpc.TrailServiceStub(channel) for channel in channels]
    healths = [health_pb2_grpc.HealthStub(channel) for channel in channels]
    ping = health_pb2.HealthCheckRequest()
    metadata = (("authorization", f"Bearer {KEY}"),)
    names = _in_random_order(job.names, offset)
    gets = [pb.GetTrailRequest(org=ORG, flow_name=FLOW, trail_name=n) for n in names]
    updates = [pb.BeginTrailRequest(org=ORG, flow_name=FLOW, data_json=pb.TrailData(
        name=n, description="updated by bench")) for n in names]
    counter = [offset]

    def call() -> tuple[bool, str]:
        i = counter[0]
        counter[0] += 1
        stub, health = stubs[i % len(stubs)], healths[i % len(healths)]
        try:
            if job.op == "ping":
                health.Check(ping, timeout=30)
                return True, ""
            if job.op == "get":
                stub.GetTrail(gets[i % len(names)], metadata=metadata, timeout=30)
                return True, ""
            if job.op == "update":
                created = stub.BeginTrail(updates[i % len(names)], metadata=metadata,
                                          timeout=30).created
                return (not created), "update created a trail" if created else ""
            request = pb.BeginTrailRequest(org=ORG, flow_name=FLOW, data_json=pb.TrailData(
                name=f"{job.create_prefix}-{i}", description="new"))
            created = stub.BeginTrail(request, metadata=metadata, timeout=30).created
            return created, "" if created else "create did not create"
        except grpc.RpcError as exc:
            return False, f"{exc.code()}: {exc.details()}"  # type: ignore[attr-defined]

    def close() -> None:
        for channel in channels:
            channel.close()

    return call, close


def _run_job(index: int, job: Job) -> WorkerResult:
    maker = _grpc_caller if job.transport == "grpc" else _rest_caller
    call, close = maker(job, offset=index * 37)
    try:
        return run_window(call, job.window)
    finally:
        close()


def _crashed(message: str) -> WorkerResult:
    return WorkerResult(latencies=[], errors=1, first_error=message)


# ---- server side ---------------------------------------------------------------------------

@dataclasses.dataclass
class Servers:
    rest: str
    grpc: str
    rest_hop: str
    processes: list[subprocess.Popen]
    log_path: pathlib.Path

    def address(self, transport: str) -> str:
        return {"rest": self.rest, "grpc": self.grpc, "rest-hop": self.rest_hop}[transport]


def _wait_ready(servers: Servers, deadline_seconds: float = 60) -> None:
    import grpc

    deadline = time.monotonic() + deadline_seconds
    pending = {servers.rest, servers.rest_hop}
    grpc_ready = False
    while time.monotonic() < deadline:
        for process in servers.processes:
            if process.poll() is not None:
                raise RuntimeError(f"a server exited early:\n{servers.log_path.read_text()[-4000:]}")
        for address in list(pending):
            try:
                if http_call(address, "GET", "/ready", timeout=10)[0] == 200:
                    pending.discard(address)
            except OSError:
                pass
        if not grpc_ready:
            with grpc.insecure_channel(servers.grpc) as channel:
                try:
                    grpc.channel_ready_future(channel).result(timeout=1)
                    grpc_ready = True
                except grpc.FutureTimeoutError:
                    pass
        if grpc_ready and not pending:
            return
        time.sleep(0.2)
    raise RuntimeError(f"servers not ready in time:\n{servers.log_path.read_text()[-4000:]}")


@contextmanager
def running_servers(workdir: pathlib.Path, workers: int | None, grpc_workers: int | None,
                    database_url: str | None = None) -> Iterator[Servers]:
    """The servers on `database_url` (a new database), by default a SQLite file in `workdir`."""
    database_url = database_url or f"sqlite:///{workdir / 'bench.db'}"
    bootstrap(workdir, database_url, ORG, "bench", KEY, SOURCE)
    rest, grpc_addr, rest_hop = (f"127.0.0.1:{free_port()}" for _ in range(3))
    worker_args = ["--workers", str(workers)] if workers else []
    grpc_args = ["--grpc-workers", str(grpc_workers)] if grpc_workers else []
    log_path = workdir / "servers.log"
    processes = []
    with open(log_path, "wb") as log:
        try:
            processes.append(start_server(["serve", "--http-addr", rest, "--grpc-addr", grpc_addr,
                                           "--database-url", database_url, *worker_args,
                                           *grpc_args],
                                          log, SOURCE))
            processes.append(start_server(["shim", "--http-addr", rest_hop, "--grpc-target",
                                           grpc_addr, "--database-url", database_url,
                                           *worker_args], log, SOURCE))
            servers = Servers(rest, grpc_addr, rest_hop, processes, log_path)
            _wait_ready(servers)
            yield servers
        finally:
            stop_processes(processes)


ATTESTATIONS_PER_TRAIL = 6


def _add_evidence(conn: KeepAlive, auth: dict[str, str], name: str, number: int) -> None:
    """What a realistic trail holds (issue 35): an artifact and six generic attestations, each
    with a 1 KB attachment, annotations and user data."""
    fingerprint = f"{number:064x}"
    status, body = conn.request("POST", f"/api/v2/artifacts/{ORG}/{FLOW}", json.dumps({
        "fingerprint": fingerprint, "filename": f"app-{number}.tar", "git_commit": f"{number:040x}",
        "build_url": f"https://ci.example/builds/{number}",
        "commit_url": f"https://git.example/acme/app/commit/{number:040x}", "trail_name": name,
        "template_reference_name": "app"}).encode(), {**auth, "Content-Type": "application/json"})
    expect(status, body, (200, 201), f"reporting the artifact of {name}")
    for a in range(ATTESTATIONS_PER_TRAIL):
        form, content_type = multipart(
            {"data_json": json.dumps({
                "attestation_name": f"check-{a}", "is_compliant": a != 5,
                "artifact_fingerprint": fingerprint if a % 2 else None,
                "annotations": {"report_url": f"https://reports.example/{number}/{a}",
                                "owner": "team-payments", "run": str(number * 10 + a)},
                "user_data": {"tool": "scanner", "version": "4.2.1", "findings": a,
                              "rules": [f"rule-{r}" for r in range(8)],
                              "summary": f"check {a} of trail {name}: " + "x" * 120}})},
            {"attachment_file": (f"report-{a}.txt", bytes(range(256)) * 4)})
        status, body = conn.request(
            "POST", f"/api/v2/attestations/{ORG}/{FLOW}/trail/{name}/generic", form,
            {**auth, "Content-Type": content_type})
        expect(status, body, (201,), f"attesting check-{a} on {name}")


def seed(servers: Servers, trails: int, evidence: bool, updates: bool
         ) -> tuple[list[str], list[str]]:
    """A flow, `trails` trails to read (with `evidence`, each with an artifact and six
    attestations) and, for `updates`, another `trails` to update (so reads stay the same size
    while updates add events)."""
    auth = {"Authorization": f"Bearer {KEY}"}
    status, body = http_call(servers.rest, "PUT", f"/api/v2/flows/{ORG}", json.dumps(
        {"name": FLOW, "description": "benchmark flow", "template": []}).encode(),
        {**auth, "Content-Type": "application/json"})
    expect(status, body, (200, 201), "creating the flow")
    read = [f"read-{i:04d}" for i in range(trails)]
    update = [f"update-{i:04d}" for i in range(trails)] if updates else []
    conn = KeepAlive(servers.rest, timeout=10)
    put_headers = {**auth, "Content-Type": multipart({})[1]}
    try:
        for name in read + update:
            status, body = conn.request("PUT", f"/api/v2/trails/{ORG}/{FLOW}", _trail_form(
                {"name": name, "description": f"trail {name}"}), put_headers)
            expect(status, body, (201,), f"creating trail {name}")
        if evidence:
            for number, name in enumerate(read, start=1):
                _add_evidence(conn, auth, name, number)
    finally:
        conn.close()
    status, body = http_call(servers.rest, "GET", f"/api/v2/trails/{ORG}/{FLOW}/{read[0]}",
                             headers=auth)
    expect(status, body, (200,), "reading a trail")
    return read, update


# ---- one point -----------------------------------------------------------------------------

@dataclasses.dataclass
class Point(LoadSummary):
    op: str
    concurrency: int
    transport: str


def measure(pool: ClientPool[Job, WorkerResult], servers: Servers, transport: str, op: str,
            concurrency: int, names: list[str], warmup: float, seconds: float,
            grpc_channels: int = 1) -> Point:
    window = Window.starting(warmup, seconds)
    run_id = uuid.uuid4().hex[:8]
    jobs = [Job(transport="grpc" if transport == "grpc" else "rest",
                address=servers.address(transport), op=op, names=tuple(names),
                create_prefix=f"new-{run_id}-{w}", window=window, channels=grpc_channels)
            for w in range(concurrency)]
    load = load_window(pool, jobs, window, [p.pid for p in servers.processes], _crashed)
    return Point(op=op, concurrency=concurrency, transport=transport,
                 **vars(summarize(load.results, load, seconds)))


def measure_list(servers: Servers, names: list[str], repeats: int = 5) -> None:
    """The unpaged list of the flow's trails against single reads of them, c=1 on one
    keep-alive connection, over REST and gRPC: the list's median time over `listed` times the
    mean single read (target <= 0.1). A REST answer is timed until its body has arrived, read
    or listed alike; the list's JSON is parsed after its clock stops, to count it (single reads'
    bodies are not parsed at all). gRPC answers are parsed by the stub, lists and reads alike."""
    import grpc

    from evidence_grpc.api.v2 import trail_service_pb2 as pb
    from evidence_grpc.api.v2 import trail_service_pb2_grpc as pb_grpc

    auth = {"Authorization": f"Bearer {KEY}"}
    conn = KeepAlive(servers.rest, timeout=120)
    # a list of 10,000 realistic trails is ~17 MB: past the client's default 4 MB
    channel = grpc.insecure_channel(servers.grpc, options=[("grpc.max_receive_message_length", -1)])
    stub = pb_grpc.TrailServiceStub(channel)
    metadata = (("authorization", f"Bearer {KEY}"),)

    def rest_list() -> tuple[float, int]:
        started = time.perf_counter()
        status, body = conn.request("GET", f"/api/v2/trails/{ORG}/{FLOW}", None, auth)
        took = time.perf_counter() - started
        expect(status, body, (200,), "listing the trails")
        return took, len(json.loads(body))  # counted off the clock: single reads are not parsed

    def rest_get(name: str) -> None:
        status, body = conn.request("GET", f"/api/v2/trails/{ORG}/{FLOW}/{name}", None, auth)
        expect(status, body, (200,), f"reading {name}")

    def grpc_list() -> tuple[float, int]:
        started = time.perf_counter()
        answer = stub.ListFlowTrails(pb.ListFlowTrailsRequest(org=ORG, flow_name=FLOW),
                                     metadata=metadata, timeout=120)
        return time.perf_counter() - started, len(answer.data)  # parsed, as single reads are

    def grpc_get(name: str) -> None:
        stub.GetTrail(pb.GetTrailRequest(org=ORG, flow_name=FLOW, trail_name=name),
                      metadata=metadata, timeout=30)

    print(f"\nUnpaged list of the flow's trails vs single reads (c=1, list median of {repeats})")
    print(f"{'transport':<10} {'listed':>7} {'list ms':>9} {'read ms':>8} {'ratio':>6}  target <= 0.1")
    try:
        for label, listing, reading in (("REST", rest_list, rest_get), ("gRPC", grpc_list, grpc_get)):
            order = _in_random_order(tuple(names), 7)
            for name in order:  # warm-up: each read once, as the list below reads warm
                reading(name)
            started = time.perf_counter()
            for name in order:
                reading(name)
            single = (time.perf_counter() - started) / len(order)
            listing()  # warm-up
            times, listed = [], 0
            for _ in range(repeats):
                took, listed = listing()
                times.append(took)
            took = statistics.median(times)
            ratio = took / (listed * single)
            print(f"{label:<10} {listed:>7,} {took * 1000:>9.0f} {single * 1000:>8.2f} {ratio:>6.2f}"
                  f"  {'MET' if ratio <= 0.1 else 'MISSED'}", flush=True)
    finally:
        conn.close()
        channel.close()


# ---- report --------------------------------------------------------------------------------

def _find(points: list[Point], op: str, c: int, transport: str) -> Point | None:
    return next((p for p in points if (p.op, p.concurrency, p.transport) == (op, c, transport)),
                None)


def print_point(point: Point) -> None:
    print_load(f"{OP_LABELS[point.op]:<22} {point.concurrency:>2}  "
               f"{TRANSPORT_LABELS[point.transport]:<25}", point)


def print_header() -> None:
    print(f"{'operation':<22} {'c':>2}  {'transport':<25}{LOAD_HEADER}")
    print("-" * 110, flush=True)


def print_summary(points: list[Point], ops: list[str], concurrencies: list[int]) -> None:
    print("\nREST / gRPC throughput ratio")
    print(f"{'operation':<22} {'c':>2}  {'REST in-process / gRPC':>24} {'REST via hop / gRPC':>21}")
    for op in ops:
        for c in concurrencies:
            grpc_point = _find(points, op, c, "grpc")
            cells = []
            for transport in ("rest", "rest-hop"):
                rest_point = _find(points, op, c, transport)
                if grpc_point and rest_point and grpc_point.rate > 0:
                    cells.append(f"{rest_point.rate / grpc_point.rate:.2f}")
                else:
                    cells.append("-")
            print(f"{OP_LABELS[op]:<22} {c:>2}  {cells[0]:>24} {cells[1]:>21}")

    rest_get = _find(points, "get", 8, "rest")
    grpc_get = _find(points, "get", 8, "grpc")
    print_issue_targets(points)
    if rest_get is None or grpc_get is None:
        print("\nTarget (REST get trail >= 1,000 req/s at c=8 and >= 0.6 x gRPC): not measured "
              "(needs op 'get', c=8, transports rest and grpc)")
        return
    ratio = rest_get.rate / grpc_get.rate if grpc_get.rate else float("nan")
    met = rest_get.rate >= TARGET_RATE and ratio >= TARGET_RATIO
    print(f"\nTarget (REST get trail >= {TARGET_RATE:,.0f} req/s at c=8 and >= {TARGET_RATIO} x gRPC): "
          f"{'MET' if met else 'MISSED'} - REST {rest_get.rate:,.0f} req/s "
          f"({'ok' if rest_get.rate >= TARGET_RATE else 'below'}), gRPC {grpc_get.rate:,.0f} req/s, "
          f"ratio {ratio:.2f} ({'ok' if ratio >= TARGET_RATIO else 'below'})")


def _ratio_checks(points: list[Point]) -> list[tuple[str, Point | None, Point | None, float]]:
    """Issue 12's ratios at c=8: (label, the point over, the point under, target)."""
    rest_get, grpc_get = _find(points, "get", 8, "rest"), _find(points, "get", 8, "grpc")
    rest_ping, grpc_ping = _find(points, "ping", 8, "rest"), _find(points, "ping", 8, "grpc")
    return [("gRPC get trail / REST get trail", grpc_get, rest_get, TARGET_GRPC_OVER_REST),
            ("REST get trail / REST GET /ready", rest_get, rest_ping, TARGET_OVER_PING),
            ("gRPC get trail / gRPC health Check", grpc_get, grpc_ping, TARGET_OVER_PING)]


def issue_ratios(points: list[Point]) -> list[tuple[str, float | None, bool, float]]:
    """The ratios of issue 12 from points of one round: (label, ratio or None when not
    measured, whether both points were free of errors, target)."""
    return [(label, top.rate / bottom.rate, top.errors == 0 and bottom.errors == 0, target)
            if top is not None and bottom is not None and bottom.rate else
            (label, None, True, target)
            for label, top, bottom, target in _ratio_checks(points)]


def print_issue_targets(points: list[Point]) -> None:
    """The ratios of issue 12, from points of this run at c=8."""
    print("\nIssue 12/35 ratios at c=8 (same run)")
    for label, top, bottom, target in _ratio_checks(points):
        if top is None or bottom is None or not bottom.rate:
            print(f"  {label:<36} not measured (needs ops ping,get at c=8, rest and grpc)")
            continue
        ratio = top.rate / bottom.rate
        clean = top.errors == 0 and bottom.errors == 0
        verdict = "MET" if ratio >= target and clean else "MISSED"
        print(f"  {label:<36} {ratio:5.2f} (target >= {target}, {top.rate:,.0f} / "
              f"{bottom.rate:,.0f} req/s{'' if clean else ', with errors'}): {verdict}")


def print_round_medians(rounds: list[list[Point]]) -> None:
    """Each ratio of issue 12 per round and its median: this machine's speed drifts within
    minutes, and a ratio of points measured seconds apart in one round is what it can compare."""
    per_round = [issue_ratios(points) for points in rounds]
    print(f"\nIssue 12/35 ratios at c=8, each round's own (median of {len(rounds)} rounds)")
    for i, (label, _, _, target) in enumerate(per_round[0]):
        values = [r[i][1] for r in per_round if r[i][1] is not None]
        if not values:
            print(f"  {label:<36} not measured (needs ops ping,get at c=8, rest and grpc)")
            continue
        clean = all(r[i][2] for r in per_round)
        median = statistics.median(values)
        verdict = "MET" if median >= target and clean else "MISSED"
        print(f"  {label:<36} {median:5.2f} (target >= {target}; rounds "
              f"{', '.join(f'{v:.2f}' for v in values)}{'' if clean else '; with errors'}): "
              f"{verdict}")


# ---- main ----------------------------------------------------------------------------------

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=8.0, help="measurement per point (default 8)")
    p.add_argument("--warmup", type=float, default=3.0, help="excluded warm-up per point (default 3)")
    p.add_argument("--quick", action="store_true", help="1 s warm-up + 2 s per point")
    p.add_argument("--concurrency", default="1,8", help="comma-separated (default 1,8)")
    p.add_argument("--ops", default=",".join(OPS), help=f"comma-separated of {','.join(OPS)}")
    p.add_argument("--transports", default=",".join(TRANSPORTS),
                   help=f"comma-separated of {','.join(TRANSPORTS)}")
    p.add_argument("--trails", type=int, default=200, help="trails to read and to update (default 200)")
    p.add_argument("--workers", type=int, help="HTTP worker processes of each shim (server default)")
    p.add_argument("--grpc-workers", type=int,
                   help="gRPC server processes of serve (server default: one per core)")
    p.add_argument("--grpc-channels", type=int, default=4,
                   help="gRPC connections per client, used in turn (default 4), so that the "
                        "kernel spreads them over the server's processes")
    p.add_argument("--rounds", type=int, default=1,
                   help="measure every point this many times, in turn, and report each ratio of "
                        "issue 12 per round and its median (default 1)")
    p.add_argument("--evidence", action="store_true",
                   help=f"realistic trails to read: an artifact and {ATTESTATIONS_PER_TRAIL} "
                        "generic attestations each (1 KB attachment, annotations, user data)")
    p.add_argument("--prime", type=float, default=10.0,
                   help="unmeasured random reads per transport before the first round, in "
                        "seconds, so that every server process has read every trail, as a "
                        "server that has run a while has (default 10; 0: none)")
    p.add_argument("--list", action="store_true",
                   help="also time the unpaged list of the flow's trails against single reads")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory (db, logs)")
    p.add_argument("--database-url", default=None,
                   help="postgresql://... of an existing database: a new database is made on "
                        "that server for the run and dropped after it (default: SQLite)")
    p.add_argument("--source", type=pathlib.Path, default=ROOT,
                   help="run the servers from this checkout (default: the one holding bench/)")
    args = p.parse_args(argv)
    if args.quick:
        args.seconds, args.warmup = 2.0, 1.0
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    args.concurrency = [int(c) for c in args.concurrency.split(",") if c]
    args.ops = [o for o in args.ops.split(",") if o]
    args.transports = [t for t in args.transports.split(",") if t]
    unknown = set(args.ops) - set(OPS) | set(args.transports) - set(TRANSPORTS)
    if unknown:
        p.error(f"unknown: {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    global SOURCE
    args = parse_args(argv)
    SOURCE = args.source.resolve()
    use_source(SOURCE)  # spawned clients inherit it (generated protobuf modules)
    rounds: list[list[Point]] = []
    with scratch_dir("bench-trails-", args.keep) as workdir:
        describe_machine("bench_trails", f"{args.warmup:g} s warm-up + {args.seconds:g} s per "
                         f"point, {args.rounds} round(s), servers from {SOURCE}, workdir {workdir}, "
                         f"{'PostgreSQL' if args.database_url else 'SQLite'}")
        pool: ClientPool[Job, WorkerResult] | None = None
        try:
            pool = ClientPool(max(args.concurrency), _run_job)
            with contextlib.ExitStack() as stack:
                url = (stack.enter_context(scratch_postgres(args.database_url, "bench_trails"))
                       if args.database_url else None)
                servers = stack.enter_context(running_servers(workdir, args.workers,
                                                              args.grpc_workers, url))
                run_rounds(servers, pool, args, rounds)
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)
            if rounds and rounds[0]:
                print_summary(rounds[-1], args.ops, args.concurrency)
            return 130
        finally:
            if pool is not None:
                pool.close()
    print_summary(rounds[-1], args.ops, args.concurrency)
    if len(rounds) > 1:
        print_round_medians(rounds)
    return 0


def run_rounds(servers: Servers, pool: ClientPool[Job, WorkerResult], args: argparse.Namespace,
               rounds: list[list[Point]]) -> None:
    read, update = seed(servers, args.trails, args.evidence,
                        updates=bool({"update", "create"} & set(args.ops)))
    print(f"servers: REST {servers.rest}, gRPC {servers.grpc}, REST hop {servers.rest_hop}; "
          f"flow '{FLOW}' with {len(read)} trails to read"
          f"{f' (each an artifact and {ATTESTATIONS_PER_TRAIL} attestations)' if args.evidence else ''}"
          f" and {len(update)} to update\n", flush=True)
    if args.list:
        measure_list(servers, read)
    if "get" in args.ops and args.prime > 0:
        # Every server process keeps the answers it made (bounded): a server that has run a
        # while has read each trail. Random reads through every transport until each process
        # has, most likely, read every one (a round's warm-up alone leaves some unread).
        print(f"priming: {args.prime:g} s of unmeasured random reads per transport", flush=True)
        for transport in args.transports:
            measure(pool, servers, transport, "get", max(args.concurrency), read, args.prime,
                    1.0, args.grpc_channels)
    for number in range(args.rounds):
        if args.rounds > 1:
            print(f"round {number + 1} of {args.rounds}")
        print_header()
        points: list[Point] = []
        rounds.append(points)
        # Reads first (their trails never change), then updates, then creates; the three
        # transports back to back for each point, so their ratios compare like with like.
        for op in args.ops:
            for c in args.concurrency:
                for transport in args.transports:
                    point = measure(pool, servers, transport, op, c,
                                    update if op in ("update", "create") else read, args.warmup,
                                    args.seconds, args.grpc_channels)
                    points.append(point)
                    print_point(point)
                    time.sleep(0.5)
        if args.rounds > 1:
            print_issue_targets(points)
            print()


if __name__ == "__main__":
    sys.exit(main())
