"""Throughput and latency of `get trail` and `begin trail`: REST vs gRPC.

Run by hand (not a test):

    python bench/bench_trails.py            # 3 s warm-up + 8 s per point
    python bench/bench_trails.py --quick    # 1 s warm-up + 2 s per point

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
import dataclasses
import http.client
import json
import multiprocessing as mp
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.context import SpawnProcess
from multiprocessing.queues import Queue
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT  # the tree the servers run from (--source)
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ORG = "acme"
FLOW = "bench"
KEY = "bench-secret-key"
BOUNDARY = "benchboundary7MA4YWxkTrZu0gW"
TRANSPORTS = ("rest", "grpc", "rest-hop")
TRANSPORT_LABELS = {"rest": "REST (serve, in-process)", "grpc": "gRPC direct",
                    "rest-hop": "REST (shim -> gRPC hop)"}
OPS = ("get", "update", "create")
OP_LABELS = {"get": "get trail", "update": "begin trail (update)", "create": "begin trail (create)"}
TARGET_RATE = 1000.0
TARGET_RATIO = 0.6


# ---- jobs and results (pickled between processes) ------------------------------------------

@dataclasses.dataclass(frozen=True)
class Job:
    transport: str  # "rest" or "grpc" (the client side of rest-hop is plain REST)
    address: str  # host:port
    op: str
    names: tuple[str, ...]  # trails to read or update, cycled
    create_prefix: str  # unique prefix of new trail names
    start_at: float  # time.monotonic() values, system-wide on Linux
    measure_from: float
    end_at: float


@dataclasses.dataclass
class WorkerResult:
    latencies: list[float]
    ok: int = 0
    errors: int = 0
    first_error: str = ""
    cpu_seconds: float = 0.0


# ---- client side ---------------------------------------------------------------------------

def _multipart(data: dict[str, Any]) -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"data_json\"\r\n\r\n"
            f"{json.dumps(data)}\r\n--{BOUNDARY}--\r\n").encode()


def _rest_caller(job: Job, offset: int) -> tuple[Callable[[], tuple[bool, str]], Callable[[], None]]:
    host, port = job.address.rsplit(":", 1)
    state: dict[str, Any] = {"conn": http.client.HTTPConnection(host, int(port), timeout=30)}
    headers = {"Authorization": f"Bearer {KEY}"}
    put_headers = {**headers, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
    names = job.names
    get_paths = [f"/api/v2/trails/{ORG}/{FLOW}/{n}" for n in names]
    update_bodies = [_multipart({"name": n, "description": "updated by bench"}) for n in names]
    put_path = f"/api/v2/trails/{ORG}/{FLOW}"
    counter = [offset]

    def request() -> tuple[str, str, bytes | None, dict[str, str], int]:
        i = counter[0]
        counter[0] += 1
        if job.op == "get":
            return "GET", get_paths[i % len(names)], None, headers, 200
        if job.op == "update":
            return "PUT", put_path, update_bodies[i % len(names)], put_headers, 200
        body = _multipart({"name": f"{job.create_prefix}-{i}", "description": "new"})
        return "PUT", put_path, body, put_headers, 201

    def call() -> tuple[bool, str]:
        method, path, body, hdrs, expected = request()
        try:
            conn = state["conn"]
            conn.request(method, path, body=body, headers=hdrs)
            response = conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as exc:
            state["conn"].close()
            state["conn"] = http.client.HTTPConnection(host, int(port), timeout=30)
            return False, f"{type(exc).__name__}: {exc}"
        if response.status != expected:
            return False, f"HTTP {response.status}: {payload[:200]!r}"
        return True, ""

    return call, lambda: state["conn"].close()


def _grpc_caller(job: Job, offset: int) -> tuple[Callable[[], tuple[bool, str]], Callable[[], None]]:
    import grpc

    from evidence_grpc._pb.evidence.v2 import trail_service_pb2 as pb
    from evidence_grpc._pb.evidence.v2 import trail_service_pb2_grpc as pb_grpc

    channel = grpc.insecure_channel(job.address)
    stub = pb_grpc.TrailServiceStub(channel)
    metadata = (("authorization", f"Bearer {KEY}"),)
    names = job.names
    gets = [pb.GetTrailRequest(org=ORG, flow_name=FLOW, trail_name=n) for n in names]
    updates = [pb.BeginTrailRequest(org=ORG, flow_name=FLOW, data_json=pb.TrailData(
        name=n, description="updated by bench")) for n in names]
    counter = [offset]

    def call() -> tuple[bool, str]:
        i = counter[0]
        counter[0] += 1
        try:
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

    return call, channel.close


def _run_job(index: int, job: Job) -> WorkerResult:
    maker = _grpc_caller if job.transport == "grpc" else _rest_caller
    call, close = maker(job, offset=index * 37)
    result = WorkerResult(latencies=[])
    cpu_start: float | None = None
    try:
        while time.monotonic() < job.start_at:
            time.sleep(0.001)
        while True:
            started = time.monotonic()
            if started >= job.end_at:
                break
            if cpu_start is None and started >= job.measure_from:
                cpu_start = time.process_time()
            ok, error = call()
            finished = time.monotonic()
            if job.measure_from <= started and finished <= job.end_at:
                if ok:
                    result.ok += 1
                    result.latencies.append(finished - started)
                else:
                    result.errors += 1
                    result.first_error = result.first_error or error
            elif not ok and not result.first_error:
                result.first_error = f"(warm-up) {error}"
        result.cpu_seconds = time.process_time() - cpu_start if cpu_start is not None else 0.0
    finally:
        close()
    return result


def _worker_main(index: int, inbox: Queue, outbox: Queue) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    while True:
        job = inbox.get()
        if job is None:
            return
        try:
            outbox.put((index, _run_job(index, job)))
        except Exception as exc:  # report, keep serving
            outbox.put((index, WorkerResult(latencies=[], errors=1,
                                            first_error=f"worker crashed: {exc!r}")))


class ClientPool:
    """Client processes spawned once (no fork: grpc and fork do not mix) and reused."""

    def __init__(self, size: int) -> None:
        ctx = mp.get_context("spawn")
        self.outbox: Queue = ctx.Queue()
        self.inboxes: list[Queue] = [ctx.Queue() for _ in range(size)]
        self.processes: list[SpawnProcess] = [
            ctx.Process(target=_worker_main, args=(i, q, self.outbox), daemon=True)
            for i, q in enumerate(self.inboxes)]
        for process in self.processes:
            process.start()

    def close(self) -> None:
        for inbox in self.inboxes:
            inbox.put(None)
        for process in self.processes:
            process.join(5)
            if process.is_alive():
                process.kill()


# ---- server side ---------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclasses.dataclass
class Servers:
    rest: str
    grpc: str
    rest_hop: str
    processes: list[subprocess.Popen]
    log_path: pathlib.Path

    def address(self, transport: str) -> str:
        return {"rest": self.rest, "grpc": self.grpc, "rest-hop": self.rest_hop}[transport]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "evidence_grpc.cli", *args]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVIDENCE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SOURCE), env.get("PYTHONPATH")) if p)
    return env


def _http(address: str, method: str, path: str, body: bytes | None = None,
          headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


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
                if _http(address, "GET", "/ready")[0] == 200:
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
def running_servers(workdir: pathlib.Path, workers: int | None) -> Iterator[Servers]:
    database_url = f"sqlite:///{workdir / 'bench.db'}"
    boot = workdir / "bootstrap.json"
    boot.write_text(json.dumps({"organizations": [{"name": ORG}], "users": [
        {"name": "bench", "organizations": [ORG], "api_keys": [{"key": KEY}]}]}))
    subprocess.run(_cli("bootstrap", str(boot), "--database-url", database_url), check=True,
                   capture_output=True, timeout=120, cwd=SOURCE, env=_env())
    rest, grpc_addr, rest_hop = (f"127.0.0.1:{free_port()}" for _ in range(3))
    worker_args = ["--workers", str(workers)] if workers else []
    log_path = workdir / "servers.log"
    processes: list[subprocess.Popen] = []
    with open(log_path, "wb") as log:
        try:
            # Own sessions, so a stuck tree can be killed by its process group and nothing else.
            processes.append(subprocess.Popen(
                _cli("serve", "--http-addr", rest, "--grpc-addr", grpc_addr,
                     "--database-url", database_url, *worker_args),
                stdout=log, stderr=subprocess.STDOUT, cwd=SOURCE, env=_env(), start_new_session=True))
            processes.append(subprocess.Popen(
                _cli("shim", "--http-addr", rest_hop, "--grpc-target", grpc_addr,
                     "--database-url", database_url, *worker_args),
                stdout=log, stderr=subprocess.STDOUT, cwd=SOURCE, env=_env(), start_new_session=True))
            servers = Servers(rest, grpc_addr, rest_hop, processes, log_path)
            _wait_ready(servers)
            yield servers
        finally:
            _stop(processes)


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        try:  # anything of its session left behind (gunicorn workers, the gRPC child)
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def seed(servers: Servers, trails: int) -> tuple[list[str], list[str]]:
    """A flow, `trails` trails to read and another `trails` to update (so reads stay the same
    size while updates add events)."""
    auth = {"Authorization": f"Bearer {KEY}"}
    status, body = _http(servers.rest, "PUT", f"/api/v2/flows/{ORG}", json.dumps(
        {"name": FLOW, "description": "benchmark flow", "template": []}).encode(),
        {**auth, "Content-Type": "application/json"})
    if status not in (200, 201):
        raise RuntimeError(f"creating the flow failed: {status} {body[:300]!r}")
    read = [f"read-{i:04d}" for i in range(trails)]
    update = [f"update-{i:04d}" for i in range(trails)]
    host, port = servers.rest.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        for name in read + update:
            conn.request("PUT", f"/api/v2/trails/{ORG}/{FLOW}", body=_multipart(
                {"name": name, "description": f"trail {name}"}), headers={
                **auth, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
            response = conn.getresponse()
            payload = response.read()
            if response.status != 201:
                raise RuntimeError(f"creating trail {name} failed: {response.status} {payload[:300]!r}")
    finally:
        conn.close()
    status, body = _http(servers.rest, "GET", f"/api/v2/trails/{ORG}/{FLOW}/{read[0]}", headers=auth)
    if status != 200:
        raise RuntimeError(f"reading a trail failed: {status} {body[:300]!r}")
    return read, update


# ---- CPU accounting from /proc -------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _tree_cpu_seconds(roots: list[int]) -> float:
    """utime+stime of the given processes and all their descendants (Linux; 0 elsewhere)."""
    stats: dict[int, tuple[int, float]] = {}
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return 0.0
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[0] is the state (3rd field of stat): ppid = 4th, utime/stime = 14th/15th
        stats[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
    wanted = set(roots)
    changed = True
    while changed:
        changed = False
        for pid, (ppid, _) in stats.items():
            if ppid in wanted and pid not in wanted:
                wanted.add(pid)
                changed = True
    return sum(cpu for pid, (_, cpu) in stats.items() if pid in wanted)


def _box_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine."""
    try:
        with open("/proc/stat") as handle:
            values = [float(v) for v in handle.readline().split()[1:]]
    except OSError:
        return 0.0, 0.0
    idle = values[3] + (values[4] if len(values) > 4 else 0.0)
    return sum(values) - idle, sum(values)


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


# ---- one point -----------------------------------------------------------------------------

@dataclasses.dataclass
class Point:
    op: str
    concurrency: int
    transport: str
    rate: float
    p50_ms: float
    p99_ms: float
    ok: int
    errors: int
    first_error: str
    server_ms_per_request: float
    client_cpu_share: float  # of the whole box
    box_busy: float


def _percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(q * len(sorted_values)) - 1))
    return sorted_values[index]


def measure(pool: ClientPool, servers: Servers, transport: str, op: str, concurrency: int,
            names: list[str], warmup: float, seconds: float) -> Point:
    start_at = time.monotonic() + 0.3
    measure_from = start_at + warmup
    end_at = measure_from + seconds
    run_id = uuid.uuid4().hex[:8]
    jobs = [Job(transport="grpc" if transport == "grpc" else "rest",
                address=servers.address(transport), op=op, names=tuple(names),
                create_prefix=f"new-{run_id}-{w}", start_at=start_at, measure_from=measure_from,
                end_at=end_at) for w in range(concurrency)]
    roots = [p.pid for p in servers.processes]
    cores = os.cpu_count() or 1

    # Sample server CPU and box CPU over the measurement window, while the clients run.
    for inbox, job in zip(pool.inboxes, jobs, strict=False):
        inbox.put(job)
    time.sleep(max(0.0, measure_from - time.monotonic()))
    cpu_before, (busy_before, total_before) = _tree_cpu_seconds(roots), _box_busy()
    time.sleep(max(0.0, end_at - time.monotonic()))
    cpu_after, (busy_after, total_after) = _tree_cpu_seconds(roots), _box_busy()
    results = [pool.outbox.get(timeout=warmup + seconds + 120)[1] for _ in jobs]

    latencies = sorted(x for r in results for x in r.latencies)
    ok = sum(r.ok for r in results)
    errors = sum(r.errors for r in results)
    first_error = next((r.first_error for r in results if r.first_error), "")
    client_cpu = sum(r.cpu_seconds for r in results)
    return Point(
        op=op, concurrency=concurrency, transport=transport, rate=ok / seconds,
        p50_ms=_percentile(latencies, 0.50) * 1000, p99_ms=_percentile(latencies, 0.99) * 1000,
        ok=ok, errors=errors, first_error=first_error,
        server_ms_per_request=(cpu_after - cpu_before) * 1000 / ok if ok else float("nan"),
        client_cpu_share=client_cpu / (seconds * cores),
        box_busy=(busy_after - busy_before) / (total_after - total_before)
        if total_after > total_before else float("nan"))


# ---- report --------------------------------------------------------------------------------

def _find(points: list[Point], op: str, c: int, transport: str) -> Point | None:
    return next((p for p in points if (p.op, p.concurrency, p.transport) == (op, c, transport)),
                None)


def print_point(point: Point) -> None:
    print(f"{OP_LABELS[point.op]:<22} {point.concurrency:>2}  {TRANSPORT_LABELS[point.transport]:<25}"
          f"{point.rate:>8.0f} {point.p50_ms:>8.2f} {point.p99_ms:>8.2f} {point.errors:>6}"
          f" {point.server_ms_per_request:>8.2f} {point.client_cpu_share * 100:>6.0f}"
          f" {point.box_busy * 100:>6.0f}", flush=True)
    if point.first_error:
        print(f"    first error: {point.first_error}", flush=True)


def print_header() -> None:
    print(f"{'operation':<22} {'c':>2}  {'transport':<25}{'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}"
          f" {'errors':>6} {'srv ms/req':>8} {'cli %':>6} {'box %':>6}")
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
    p.add_argument("--keep", action="store_true", help="keep the temporary directory (db, logs)")
    p.add_argument("--source", type=pathlib.Path, default=ROOT,
                   help="run the servers from this checkout (default: the one holding bench/)")
    args = p.parse_args(argv)
    if args.quick:
        args.seconds, args.warmup = 2.0, 1.0
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
    sys.path.insert(0, str(SOURCE))  # spawned clients inherit it (generated protobuf modules)
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="bench-trails-"))
    pool: ClientPool | None = None
    points: list[Point] = []
    try:
        print(f"bench_trails: {os.cpu_count()} cores, {args.warmup:g} s warm-up + {args.seconds:g} s "
              f"per point, servers from {SOURCE}, workdir {workdir}", flush=True)
        load = _load_average()
        if load is not None and load > 0.5:
            print(f"WARNING: the machine is already busy (1-minute load average {load:.2f}); other work "
                  "shares the cores with servers and clients, so rates will be low and noisy.", flush=True)
        pool = ClientPool(max(args.concurrency))
        with running_servers(workdir, args.workers) as servers:
            read, update = seed(servers, args.trails)
            print(f"servers: REST {servers.rest}, gRPC {servers.grpc}, REST hop {servers.rest_hop}; "
                  f"flow '{FLOW}' with {len(read)} trails to read and {len(update)} to update\n",
                  flush=True)
            print_header()
            # Reads first (their trails never change), then updates, then creates; the three
            # transports back to back for each point, so their ratios compare like with like.
            for op in args.ops:
                for c in args.concurrency:
                    for transport in args.transports:
                        point = measure(pool, servers, transport, op, c,
                                        read if op == "get" else update, args.warmup, args.seconds)
                        points.append(point)
                        print_point(point)
                        time.sleep(0.5)
        print_summary(points, args.ops, args.concurrency)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        if points:
            print_summary(points, args.ops, args.concurrency)
        return 130
    finally:
        if pool is not None:
            pool.close()
        if args.keep:
            print(f"kept {workdir}")
        else:
            import shutil

            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
