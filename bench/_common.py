"""What the benchmark scripts share: starting and stopping `evidence-server serve` on free
127.0.0.1 ports with a bootstrapped SQLite database, HTTP helpers, client processes that load
the server for a time window, CPU accounting from /proc, latency rows, and the SQL a call runs.

Not a benchmark itself; `bench_*.py` import it (this folder is first on their sys.path)."""

from __future__ import annotations

import argparse
import dataclasses
import http.client
import json
import multiprocessing as mp
import os
import pathlib
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.context import SpawnProcess
from multiprocessing.queues import Queue
from typing import Any, Generic, TypeVar

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_REQUESTS_PER_CLIENT = 2_000_000  # a bound on every client loop, far above any real run
T = TypeVar("T")
R = TypeVar("R")



def add_run_options(p: argparse.ArgumentParser, budget_help: str) -> None:
    """The options every server bench shares: warm-up, time budget, quick, database, workers,
    source checkout and keeping the work directory."""
    p.add_argument("--warmup", type=int, default=10, help="untimed requests first (10)")
    p.add_argument("--budget", type=float, default=None, help=budget_help)
    p.add_argument("--quick", action="store_true", help="a smaller, faster run")
    p.add_argument("--database-url", default=None,
                   help="postgresql://... of an existing database: a new database is made on "
                        "that server for the run and dropped after it (default: SQLite)")
    p.add_argument("--workers", type=int, default=None, help="HTTP workers (server default)")
    p.add_argument("--source", type=pathlib.Path, default=ROOT,
                   help="run the server from another checkout")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")

def use_source(source: pathlib.Path) -> None:
    """Import the project from `source` here and in client processes spawned later."""
    if str(source) not in sys.path:
        sys.path.insert(0, str(source))


# ---- numbers -------------------------------------------------------------------------------

def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(q * len(sorted_values)) - 1))
    return sorted_values[index]


@dataclasses.dataclass
class LatencyRow:
    label: str
    n: int
    p50_ms: float
    p99_ms: float
    mean_ms: float
    errors: int = 0
    note: str = ""


def latency_row(label: str, latencies: list[float], errors: int = 0, note: str = "") -> LatencyRow:
    ordered = sorted(latencies)
    return LatencyRow(label, len(ordered), percentile(ordered, 0.5) * 1000,
                      percentile(ordered, 0.99) * 1000,
                      statistics.fmean(ordered) * 1000 if ordered else float("nan"), errors, note)


def print_latency_header(what: str = "lookup", width: int = 50) -> None:
    print(f"  {what:<{width}} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8} {'errors':>6}")


def print_latency(row: LatencyRow, width: int = 50) -> None:
    print(f"  {row.label:<{width}} {row.n:>6} {row.p50_ms:>8.2f} {row.p99_ms:>8.2f} "
          f"{row.mean_ms:>8.2f} {row.errors:>6}{'  (' + row.note + ')' if row.note else ''}",
          flush=True)


def budgeted(call: Callable[[int], bool], warmup: int, requests: int, budget: float
             ) -> tuple[list[float], int, bool]:
    """Run call(i) `warmup` times (within a fifth of the budget, not timed), then `requests`
    times timed, stopping at the budget. Returns (latencies of successes, failures, stopped)."""
    warm_deadline = time.monotonic() + budget * 0.2
    for i in range(warmup):
        if time.monotonic() > warm_deadline:
            break
        call(i)
    latencies: list[float] = []
    failures = 0
    deadline = time.monotonic() + budget
    for i in range(warmup, warmup + requests):
        if time.monotonic() > deadline:
            return latencies, failures, True
        started = time.perf_counter()
        ok = call(i)
        elapsed = time.perf_counter() - started
        if ok:
            latencies.append(elapsed)
        else:
            failures += 1
    return latencies, failures, False


def budget_note(stopped: bool, budget: float, first_error: list[str]) -> str:
    note = f"stopped at the {budget:g} s budget" if stopped else ""
    if first_error:
        note = f"{note}; first error: {first_error[0]}".lstrip("; ")
    return note


# ---- HTTP ----------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_call(address: str, method: str, path: str, body: bytes | None = None,
              headers: dict[str, str] | None = None, timeout: float = 60) -> tuple[int, bytes]:
    """One request on a new connection (setup and checks, not measurements)."""
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def expect(status: int, body: bytes, wanted: tuple[int, ...], what: str) -> None:
    if status not in wanted:
        raise RuntimeError(f"{what} failed: HTTP {status} {body[:400]!r}")


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]] | None = None,
              boundary: str = "benchboundary7MA4YWxkTrZu0gW") -> tuple[bytes, str]:
    """A multipart/form-data body and its content type."""
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                     .encode() + value.encode() + b"\r\n")
    for name, (filename, content) in (files or {}).items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                     f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                     .encode() + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class KeepAlive:
    """One keep-alive HTTP connection, opened again after a failed request."""

    def __init__(self, address: str, timeout: float = 60) -> None:
        host, port = address.rsplit(":", 1)
        self._target = (host, int(port), timeout)
        self._conn = http.client.HTTPConnection(host, int(port), timeout=timeout)

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """(status, body); raises OSError / HTTPException (after reconnecting) on failure."""
        try:
            self._conn.request(method, path, body=body, headers=headers or {})
            response = self._conn.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException):
            self._conn.close()
            host, port, timeout = self._target
            self._conn = http.client.HTTPConnection(host, port, timeout=timeout)
            raise

    def checked(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[bool, int, bytes, str]:
        """(answered, status, body, error text) without raising."""
        try:
            status, payload = self.request(method, path, body, headers)
        except (OSError, http.client.HTTPException) as exc:
            return False, 0, b"", f"{type(exc).__name__}: {exc}"
        return True, status, payload, ""

    def close(self) -> None:
        self._conn.close()


class LeanKeepAlive(KeepAlive):
    """KeepAlive on a bare socket, for latency at c=1: the request goes out in one send and the
    answer is read by its Content-Length (or to the close). http.client parses
    every answer's header with the email package: on this machine that was 0.2-0.3 ms of each
    request at p50 and about a millisecond at p99 (2026-11-26, `git log -p bench/README.md`),
    the client's time, not the server's. HTTP/1.1 only; a malformed or chunked answer raises
    http.client.HTTPException."""

    def __init__(self, address: str, timeout: float = 60) -> None:
        host, port = address.rsplit(":", 1)
        self._target = (host, int(port), timeout)
        self._host = address
        self._sock: socket.socket | None = None
        self._buffer = bytearray()

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        try:
            if self._sock is None:
                host, port, timeout = self._target
                self._sock = socket.create_connection((host, port), timeout)
                self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            lines = [f"{method} {path} HTTP/1.1", f"Host: {self._host}",
                     *(f"{name}: {value}" for name, value in (headers or {}).items())]
            if body is not None:
                lines.append(f"Content-Length: {len(body)}")
            self._sock.sendall("\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + (body or b""))
            return self._answer(method)
        except (OSError, ValueError, http.client.HTTPException) as exc:
            self.close()
            if isinstance(exc, ValueError):
                raise http.client.HTTPException(f"malformed answer: {exc}") from exc
            raise

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock = None
        self._buffer.clear()

    def _answer(self, method: str) -> tuple[int, bytes]:
        head = self._through(b"\r\n\r\n").decode("latin-1").split("\r\n")
        status = int(head[0].split(" ", 2)[1])
        fields = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip().lower()
        close = fields.get("connection") == "close"
        if method == "HEAD" or status in (204, 304) or status < 200:
            body = b""
        elif "transfer-encoding" in fields:
            raise http.client.HTTPException("a chunked answer: use KeepAlive")
        elif "content-length" in fields:
            body = self._exactly(int(fields["content-length"]))
        else:
            body, close = self._to_close(), True
        if close:
            self.close()
        return status, body

    def _fill(self) -> bool:
        assert self._sock is not None
        chunk = self._sock.recv(1 << 20)
        self._buffer += chunk
        return bool(chunk)

    def _more(self) -> None:
        if not self._fill():
            raise ConnectionError("the server closed the connection mid-answer")

    def _take(self, size: int) -> bytes:
        """The buffer's first `size` bytes, removed from it (copied once: bodies of megabytes)."""
        with memoryview(self._buffer) as view:
            data = bytes(view[:size])
        del self._buffer[:size]
        return data

    def _through(self, marker: bytes) -> bytes:
        while (end := self._buffer.find(marker)) < 0:
            self._more()
        data = self._take(end)
        del self._buffer[:len(marker)]
        return data

    def _exactly(self, size: int) -> bytes:
        while len(self._buffer) < size:
            self._more()
        return self._take(size)

    def _to_close(self) -> bytes:
        while self._fill():
            pass
        return self._take(len(self._buffer))


# ---- /proc ---------------------------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _all_stats() -> dict[int, tuple[int, float]]:
    """{pid: (ppid, utime+stime seconds)} of every process (Linux; empty elsewhere)."""
    stats: dict[int, tuple[int, float]] = {}
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return stats
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # fields[0] is the state (3rd field of stat): ppid = 4th, utime/stime = 14th/15th
        stats[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
    return stats


def descendants(roots: Iterable[int], stats: dict[int, tuple[int, float]] | None = None
                ) -> list[int]:
    """The roots and every process below them."""
    stats = _all_stats() if stats is None else stats
    found = set(roots)
    while True:
        more = {pid for pid, (ppid, _) in stats.items() if ppid in found} - found
        if not more:
            return sorted(found)
        found |= more


def children(pid: int) -> list[int]:
    return sorted(p for p, (ppid, _) in _all_stats().items() if ppid == pid)


def tree_cpu_seconds(roots: Iterable[int]) -> float:
    """utime+stime of the given processes and all their descendants."""
    stats = _all_stats()
    return sum(stats[p][1] for p in descendants(roots, stats) if p in stats)


def cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return [a.decode(errors="replace") for a in handle.read().split(b"\0") if a]
    except OSError:
        return []


def box_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine."""
    try:
        with open("/proc/stat") as handle:
            values = [float(v) for v in handle.readline().split()[1:]]
    except OSError:
        return 0.0, 0.0
    idle = values[3] + (values[4] if len(values) > 4 else 0.0)
    return sum(values) - idle, sum(values)


def load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def warn_if_busy(load: float | None) -> None:
    if load is not None and load > 0.5:
        print(f"WARNING: the machine is already busy (1-minute load average {load:.2f}); other "
              "work shares the cores with servers and clients, so rates will be low and noisy.",
              flush=True)


def describe_machine(name: str, detail: str) -> None:
    """The first line of a benchmark's output, and a warning when the machine is busy."""
    load = load_average()
    print(f"{name}: {os.cpu_count()} cores, 1-min load "
          f"{f'{load:.2f}' if load is not None else '?'}, sqlite {sqlite3.sqlite_version}, "
          f"{detail}", flush=True)
    warn_if_busy(load)


@contextmanager
def scratch_dir(prefix: str, keep: bool) -> Iterator[pathlib.Path]:
    """A new temporary directory, removed at the end (also on errors) unless `keep`."""
    workdir = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield workdir
    finally:
        if keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


# ---- servers -------------------------------------------------------------------------------

def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "evidence_grpc.cli", *args]


def server_env(source: pathlib.Path = ROOT) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVIDENCE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(source), env.get("PYTHONPATH")) if p)
    return env


def bootstrap(workdir: pathlib.Path, database_url: str, org: str, user: str, key: str,
              source: pathlib.Path = ROOT) -> None:
    """One organization and one user with one API key, in a new database."""
    boot = workdir / "bootstrap.json"
    boot.write_text(json.dumps({"organizations": [{"name": org}], "users": [
        {"name": user, "organizations": [org], "api_keys": [{"key": key}]}]}))
    subprocess.run(cli("bootstrap", str(boot), "--database-url", database_url), check=True,
                   capture_output=True, timeout=120, cwd=source, env=server_env(source))


def start_server(args: list[str], log: Any, source: pathlib.Path = ROOT) -> subprocess.Popen:
    """`evidence-server ARGS` in its own session, so whatever it leaves behind can be killed by
    its process group and nothing else."""
    return subprocess.Popen(cli(*args), stdout=log, stderr=subprocess.STDOUT, cwd=source,
                            env=server_env(source), start_new_session=True)


def stop_processes(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        try:  # anything of its session left behind (gunicorn master/workers, the gRPC child)
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@dataclasses.dataclass
class Server:
    rest: str
    grpc: str
    database_path: pathlib.Path
    process: subprocess.Popen
    log_path: pathlib.Path
    url: str = ""  # the database URL when it is not the SQLite file

    @property
    def database_url(self) -> str:
        return self.url or f"sqlite:///{self.database_path}"

    def shim_master(self) -> int | None:
        for pid in children(self.process.pid):
            if "shim" in cmdline(pid):
                return pid
        return None

    def shim_workers(self) -> list[int]:
        master = self.shim_master()
        return children(master) if master else []

    def describe(self) -> str:
        return (f"server: REST {self.rest} (shim workers {self.shim_workers()}), gRPC {self.grpc}, "
                f"{self.database_url}")

    def log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""


@contextmanager
def running_server(workdir: pathlib.Path, workers: int | None, org: str, key: str,
                   source: pathlib.Path = ROOT, user: str = "alice",
                   database_url: str | None = None, options: Sequence[str] = ()
                   ) -> Iterator[Server]:
    """`evidence-server serve` (gRPC server + REST shim calling the servicers in-process) on a
    new SQLite database in `workdir` (or on `database_url`, an empty database the caller made),
    with more `options` of serve, stopped when the block ends, also on errors."""
    database_path = workdir / "bench.db"
    url = database_url or f"sqlite:///{database_path}"
    bootstrap(workdir, url, org, user, key, source)
    with serving(workdir, database_path, workers, source, database_url, options) as server:
        yield server


@contextmanager
def serving(workdir: pathlib.Path, database_path: pathlib.Path, workers: int | None,
            source: pathlib.Path = ROOT, database_url: str | None = None,
            options: Sequence[str] = ()) -> Iterator[Server]:
    """`evidence-server serve` of `source` on an existing database (the SQLite file
    `database_path`, or `database_url`), its log in `workdir`, stopped when the block ends."""
    url = database_url or f"sqlite:///{database_path}"
    rest, grpc_addr = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    worker_args = ["--workers", str(workers)] if workers else []
    log_path = workdir / "server.log"
    with open(log_path, "wb") as log:
        process = start_server(["serve", "--http-addr", rest, "--grpc-addr", grpc_addr,
                                "--database-url", url, *worker_args, *options],
                               log, source)
        try:
            server = Server(rest, grpc_addr, database_path, process, log_path,
                            database_url or "")
            _wait_ready(server)
            yield server
        finally:
            stop_processes([process])


def _wait_ready(server: Server, deadline_seconds: float = 60) -> None:
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the server exited early:\n{server.log_tail()}")
        try:
            if http_call(server.rest, "GET", "/ready", timeout=2)[0] == 200 and server.shim_workers():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server not ready in time:\n{server.log_tail()}")


# ---- client processes ----------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Window:
    """When clients start, when counting starts and when they stop: time.monotonic() values,
    which are system-wide on Linux, so client processes share them."""

    start_at: float
    measure_from: float
    end_at: float

    @classmethod
    def starting(cls, warmup: float, seconds: float, delay: float = 0.3) -> Window:
        start_at = time.monotonic() + delay
        return cls(start_at, start_at + warmup, start_at + warmup + seconds)

    @property
    def seconds(self) -> float:
        return self.end_at - self.measure_from


@dataclasses.dataclass
class WorkerResult:
    latencies: list[float]  # of successes inside the measurement window
    ok: int = 0
    errors: int = 0  # inside the window
    first_error: str = ""
    cpu_seconds: float = 0.0  # the client's own CPU during the window


def run_window(call: Callable[[], tuple[bool, str]], window: Window) -> WorkerResult:
    """Call `call` back to back from start_at to end_at; only calls that start and finish
    inside the measurement window count."""
    result = WorkerResult(latencies=[])
    cpu_start: float | None = None
    while time.monotonic() < window.start_at:
        time.sleep(0.001)
    for _ in range(MAX_REQUESTS_PER_CLIENT):
        started = time.monotonic()
        if started >= window.end_at:
            break
        if cpu_start is None and started >= window.measure_from:
            cpu_start = time.process_time()
        ok, error = call()
        finished = time.monotonic()
        if window.measure_from <= started and finished <= window.end_at:
            if ok:
                result.ok += 1
                result.latencies.append(finished - started)
            else:
                result.errors += 1
                result.first_error = result.first_error or error
        elif not ok and not result.first_error:
            result.first_error = f"(warm-up) {error}"
    result.cpu_seconds = time.process_time() - cpu_start if cpu_start is not None else 0.0
    return result


def _pool_worker(index: int, run: Callable[[int, Any], Any], inbox: Queue, outbox: Queue) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    outbox.put((index, None, "ready"))
    while True:
        job = inbox.get()
        if job is None:
            return
        try:
            outbox.put((index, run(index, job), ""))
        except Exception as exc:  # report, keep serving
            outbox.put((index, None, f"client crashed: {exc!r}"))


class ClientPool(Generic[T, R]):
    """Client processes spawned once (no fork: grpc and fork do not mix) and reused. Each runs
    `run(index, job)` for every job it is given; `run` must be a module-level function."""

    def __init__(self, size: int, run: Callable[[int, T], R]) -> None:
        ctx = mp.get_context("spawn")
        self.outbox: Queue = ctx.Queue()
        self.inboxes: list[Queue] = [ctx.Queue() for _ in range(size)]
        self.processes: list[SpawnProcess] = [
            ctx.Process(target=_pool_worker, args=(i, run, q, self.outbox), daemon=True)
            for i, q in enumerate(self.inboxes)]
        try:
            for process in self.processes:
                process.start()
            for _ in self.processes:
                self.outbox.get(timeout=120)  # (index, None, "ready")
        except BaseException:
            self.close()
            raise

    def submit(self, jobs: list[T]) -> None:
        """One job to each of the first len(jobs) clients."""
        for inbox, job in zip(self.inboxes, jobs, strict=False):
            inbox.put(job)

    def collect(self, count: int, timeout: float, crashed: Callable[[str], R]) -> list[R]:
        """The results of `count` jobs, in the clients' order; `crashed(message)` stands in for
        the result of a job whose client raised."""
        results: dict[int, R] = {}
        for _ in range(count):
            index, result, error = self.outbox.get(timeout=timeout)
            results[index] = crashed(error) if error else result
        return [results[i] for i in sorted(results)]

    def close(self) -> None:
        for inbox in self.inboxes:
            try:
                inbox.put(None)
            except (OSError, ValueError):
                pass
        for process in self.processes:
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join(5)


@dataclasses.dataclass
class WindowLoad(Generic[R]):
    results: list[R]
    server_cpu_seconds: float  # of the server process trees during the measurement window
    box_busy: float  # share of the whole machine busy during the window


def load_window(pool: ClientPool[T, R], jobs: list[T], window: Window, server_roots: list[int],
                crashed: Callable[[str], R]) -> WindowLoad[R]:
    """Give the jobs to the clients and sample server and machine CPU over the window while
    they run; then wait for their results."""
    pool.submit(jobs)
    time.sleep(max(0.0, window.measure_from - time.monotonic()))
    cpu_before, (busy_before, total_before) = tree_cpu_seconds(server_roots), box_busy()
    time.sleep(max(0.0, window.end_at - time.monotonic()))
    cpu_after, (busy_after, total_after) = tree_cpu_seconds(server_roots), box_busy()
    results = pool.collect(len(jobs), window.end_at - time.monotonic() + 120, crashed)
    return WindowLoad(results, cpu_after - cpu_before,
                      (busy_after - busy_before) / (total_after - total_before)
                      if total_after > total_before else float("nan"))


@dataclasses.dataclass
class LoadSummary:
    """What the clients of one window achieved together."""

    rate: float  # successes per second of the window
    p50_ms: float
    p99_ms: float
    ok: int
    errors: int
    first_error: str
    server_ms_per_request: float  # server CPU per success
    client_cpu_share: float  # of the whole box
    box_busy: float


LOAD_HEADER = (f"{'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6} {'srv ms/req':>10} "
               f"{'cli %':>6} {'box %':>6}")


def print_load(label: str, load: LoadSummary) -> None:
    """One line of `label` and LOAD_HEADER's columns, and the first error if any."""
    print(f"{label}{load.rate:>9.1f} {load.p50_ms:>8.2f} {load.p99_ms:>8.2f} {load.errors:>6} "
          f"{load.server_ms_per_request:>10.2f} {load.client_cpu_share * 100:>6.0f} "
          f"{load.box_busy * 100:>6.0f}", flush=True)
    if load.first_error:
        print(f"    first error: {load.first_error}", flush=True)


def summarize(results: list[WorkerResult], load: WindowLoad[Any], seconds: float) -> LoadSummary:
    latencies = sorted(x for r in results for x in r.latencies)
    ok = sum(r.ok for r in results)
    return LoadSummary(
        rate=ok / seconds, p50_ms=percentile(latencies, 0.5) * 1000,
        p99_ms=percentile(latencies, 0.99) * 1000, ok=ok, errors=sum(r.errors for r in results),
        first_error=next((r.first_error for r in results if r.first_error), ""),
        server_ms_per_request=load.server_cpu_seconds * 1000 / ok if ok else float("nan"),
        client_cpu_share=sum(r.cpu_seconds for r in results) / (seconds * (os.cpu_count() or 1)),
        box_busy=load.box_busy)


# ---- the SQL of a call ---------------------------------------------------------------------

@contextmanager
def recording_sql() -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    """Every (sql, params) peewee runs inside the block."""
    from evidence_grpc.storage.db import database

    db = database.obj
    statements: list[tuple[str, tuple[Any, ...]]] = []
    hooks = db.query_hooks  # peewee's: each statement run, as it ends

    db.query_hooks = [*hooks, lambda event: statements.append((event.sql, tuple(event.params or ())))]
    try:
        yield statements
    finally:
        db.query_hooks = hooks


def shorten_sql(sql: str, limit: int = 400) -> str:
    """The statement with long select lists and IN lists folded, so its FROM / WHERE / ORDER BY
    show."""
    def fold(match: re.Match) -> str:
        columns = match.group(2)
        if len(columns) <= 80:
            return match.group(0)
        return f"{match.group(1)}<{columns.count(',') + 1} columns> FROM "

    shown = re.sub(r"^(SELECT (?:DISTINCT )?)(.*?) FROM ", fold, sql, count=1, flags=re.S)
    shown = re.sub(r"IN \((\?(?:, \?){8,})\)",
                   lambda m: f"IN (<{m.group(1).count('?')} values>)", shown)
    return shown if len(shown) <= limit else shown[:limit] + " ..."


def explain_statements(database_path: pathlib.Path, statements: list[tuple[str, tuple[Any, ...]]],
                       repeat: int = 20) -> float:
    """Print each statement's median time alone (raw sqlite3, page cache warm), rows returned
    and EXPLAIN QUERY PLAN; returns the sum of the medians in seconds."""
    conn = sqlite3.connect(f"file:{database_path}?mode=ro", uri=True, timeout=30)
    total = 0.0
    try:
        for sql, params in statements:
            if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
                print(f"    [   (write)  ] {shorten_sql(sql)}")
                continue
            timings = []
            rows = 0
            for _ in range(repeat):
                started = time.perf_counter()
                rows = len(conn.execute(sql, params).fetchall())
                timings.append(time.perf_counter() - started)
                if timings[-1] > 0.5:
                    break
            median = statistics.median(timings)
            total += median
            print(f"    [{median * 1000:8.3f} ms, {rows:>6} rows] {shorten_sql(sql)}")
            for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params).fetchall():
                print(f"        plan: {row[-1]}")
    finally:
        conn.close()
    return total


@contextmanager
def bench_server(name: str, args: argparse.Namespace, detail: str, org: str, key: str
                 ) -> Iterator[tuple[Server, KeepAlive]]:
    """A bench's `serve` (code from `--source`) on a SQLite file in a scratch directory, or on a
    new PostgreSQL database on the server of `--database-url`, with the machine described
    first and one keep-alive connection to its REST address, closed when the block ends."""
    source = args.source.resolve()
    use_source(source)
    with scratch_dir(f"{name.replace('_', '-')}-", args.keep) as workdir, \
            _bench_database(args.database_url, name) as url:
        describe_machine(name, f"code from {source}, {'PostgreSQL' if url else 'SQLite'}, "
                               f"{detail}")
        with running_server(workdir, args.workers, org, key, source, database_url=url) as server:
            print(server.describe(), flush=True)
            conn = KeepAlive(server.rest)
            try:
                yield server, conn
            finally:
                conn.close()


@contextmanager
def _bench_database(admin_url: str | None, prefix: str) -> Iterator[str | None]:
    """None for a SQLite file in the work directory, or a new PostgreSQL database's URL."""
    if not admin_url:
        yield None
        return
    with scratch_postgres(admin_url, prefix) as url:
        yield url


@contextmanager
def scratch_postgres(admin_url: str, prefix: str) -> Iterator[str]:
    """A new, empty database on the PostgreSQL server of `admin_url` (a URL of an existing
    database the user may create databases from), dropped when the block ends."""
    from urllib.parse import urlsplit, urlunsplit

    import psycopg2  # only when PostgreSQL is asked for

    parts = urlsplit(admin_url)
    name = f"{prefix}_{os.getpid()}_{int(time.time())}"

    def admin(sql: str) -> None:
        conn = psycopg2.connect(admin_url)
        try:
            conn.autocommit = True
            with conn.cursor() as cursor:
                cursor.execute(sql)
        finally:
            conn.close()

    admin(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
