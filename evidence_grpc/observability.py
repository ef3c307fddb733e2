"""What an operator watches: Prometheus metrics, request ids and JSON request logs.

Metrics are prometheus-client's. Under several processes (gunicorn workers, gRPC server
processes) each process writes its samples to files in one directory, PROMETHEUS_MULTIPROC_DIR,
which must be set before prometheus_client is first imported (`prepare_metrics_dir`, called by
the command line before anything else); `/metrics` then adds up every process's files.

A request id names one call from the shim into the servicer: the shim takes the caller's
`x-request-id` (or makes one), answers it back, forwards it to gRPC as metadata, and every log
record written while the call runs carries it. Log records are JSON lines (or the same fields as
`key=value` text); no header, body or key is ever logged."""

from __future__ import annotations

import contextvars
import functools
import json
import logging
import os
import re
import secrets
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any

import grpc
import orjson

from .storage.db import pool_state

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
REQUEST_ID_HEADER = "x-request-id"
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")
request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
access_log = logging.getLogger("evidence.access")


def memory_dir() -> str | None:
    """/dev/shm where there is one: files that every request writes (the metrics' mmaps,
    gunicorn's worker heartbeat) belong in memory. On a disk-backed directory the kernel writes
    their dirty pages back, and a write to a page under writeback can wait for the disk."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def prepare_metrics_dir(directory: str | None) -> str:
    """Make `directory` (or a new temporary one, in memory_dir) the empty multiprocess metrics
    directory of this process and the processes it starts; returns it. Call before importing
    prometheus_client: its value class is chosen at import."""
    if directory:
        os.makedirs(directory, exist_ok=True)
        for name in os.listdir(directory):  # samples of processes that ran before
            if name.endswith(".db"):
                os.remove(os.path.join(directory, name))
    else:
        directory = tempfile.mkdtemp(prefix="evidence-metrics-", dir=memory_dir())
    os.environ[MULTIPROC_ENV] = directory
    return directory


def remove_metrics_dir(directory: str) -> None:
    shutil.rmtree(directory, ignore_errors=True)


def process_exited(pid: int) -> None:
    """Drop the live gauges of a worker process that ended (multiprocess mode only)."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


def request_id_of(sent: str | None) -> str:
    """The caller's request id when it is a sane token, else a new one."""
    if sent and _REQUEST_ID.fullmatch(sent):
        return sent
    return secrets.token_hex(16)  # 128 random bits, as a uuid4's hex, without the object


# ---- metrics -------------------------------------------------------------------------------

# Buckets (seconds) from a cached read (~1 ms) to a large report or export.
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _Metrics:
    """The metric objects, made on first use, after the multiprocess directory is known."""

    def __init__(self) -> None:
        from prometheus_client import Counter, Gauge, Histogram

        self.http_requests = Counter(
            "evidence_http_requests", "REST requests answered, by route and status",
            ["method", "route", "status"])
        self.http_seconds = Histogram(
            "evidence_http_request_duration_seconds", "REST request latency, by route",
            ["method", "route"], buckets=_BUCKETS)
        self.grpc_requests = Counter(
            "evidence_grpc_requests", "gRPC calls answered, by method and status code "
            "(transport: network, or in-process for the REST shim's calls)",
            ["method", "code", "transport"])
        self.grpc_seconds = Histogram(
            "evidence_grpc_request_duration_seconds", "gRPC call latency, by method",
            ["method", "transport"], buckets=_BUCKETS)
        self.pool_connections = Gauge(
            "evidence_database_pool_connections",
            "PostgreSQL pool connections of the serving processes, in use or idle",
            ["state"], multiprocess_mode="livesum")
        # Every delivery worker counts the same table: the largest count is the count.
        self.outbox_messages = Gauge(
            "evidence_outbox_messages", "Notifications of actions waiting to be delivered "
            "(pending) or given up (abandoned)", ["state"], multiprocess_mode="livemax")
        self.deliveries = Counter(
            "evidence_outbox_attempts", "Attempts to deliver a notification, by outcome",
            ["outcome"])
        # Witnesses of the transparency log (domain.transparency.witnessing), by organization
        # and witness; every submitting process reads the same table: the largest is the value.
        self.witness_size = Gauge(
            "evidence_witness_cosigned_size", "The size of the log's checkpoint the witness last "
            "cosigned", ["org", "witness"], multiprocess_mode="livemax")
        self.witness_time = Gauge(
            "evidence_witness_cosigned_timestamp_seconds", "When the witness last cosigned "
            "(its cosignature's time; the age is time() minus this)", ["org", "witness"],
            multiprocess_mode="livemax")
        self.witness_age = Gauge(
            "evidence_witness_cosignature_age_seconds", "Seconds since the witness last "
            "cosigned, when this was read", ["org", "witness"], multiprocess_mode="livemax")
        self.witness_failures = Gauge(
            "evidence_witness_failures", "Attempts in a row the witness could not be asked or "
            "did not cosign", ["org", "witness"], multiprocess_mode="livemax")
        self.witness_refusals = Gauge(
            "evidence_witness_refusals", "Times the witness refused the log (it saw another "
            "tree: a rewritten or rolled back log)", ["org", "witness"],
            multiprocess_mode="livemax")


_metrics: _Metrics | None = None
_metrics_lock = threading.Lock()


def metrics() -> _Metrics:
    """The metric objects, made once: the first requests of a process may come at once, and a
    metric registered twice would fail them."""
    global _metrics
    if _metrics is None:
        with _metrics_lock:
            if _metrics is None:
                _metrics = _Metrics()
    return _metrics


_children: dict[tuple[Any, tuple[str, ...]], Any] = {}


def _child(metric: Any, *labels: str) -> Any:
    """`metric.labels(*labels)`, found again without prometheus-client's checks and lock: a
    metric's child of given labels stays the same object (none is ever removed), and every label
    here comes from a bounded set (methods, routes, codes)."""
    child = _children.get((metric, labels))
    if child is None:
        child = _children[(metric, labels)] = metric.labels(*labels)
    return child


_HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def observe_http(method: str, route: str, status: int, seconds: float) -> None:
    """`route` is a rule or "unmatched"; any method a client makes up is counted as OTHER."""
    if method not in _HTTP_METHODS:
        method = "OTHER"
    m = metrics()
    _child(m.http_requests, method, route, str(status)).inc()
    _child(m.http_seconds, method, route).observe(seconds)


# A status code's name: an Enum member's `name` is a descriptor call, looked up on every call.
_CODE_NAMES = {code: code.name for code in grpc.StatusCode}


def observe_grpc(method: str, code: grpc.StatusCode, seconds: float, transport: str) -> None:
    m = metrics()
    _child(m.grpc_requests, method, _CODE_NAMES[code], transport).inc()
    _child(m.grpc_seconds, method, transport).observe(seconds)


def observe_pool(in_use: int, idle: int) -> None:
    m = metrics()
    _child(m.pool_connections, "in_use").set(in_use)
    _child(m.pool_connections, "idle").set(idle)


def observe_outbox(counts: dict[str, int]) -> None:
    for state, count in counts.items():
        metrics().outbox_messages.labels(state).set(count)


def observe_delivery(delivered: bool) -> None:
    metrics().deliveries.labels("delivered" if delivered else "failed").inc()


def observe_witnesses(rows: list[tuple[str, str, int, int | None, int, int]]) -> None:
    """(organization, witness, size cosigned, time cosigned, failures, refusals) of each."""
    m = metrics()
    now = time.time()
    for org, witness, size, at, failures, refusals in rows:
        m.witness_size.labels(org, witness).set(size)
        if at is not None:
            m.witness_time.labels(org, witness).set(at)
            m.witness_age.labels(org, witness).set(max(now - at, 0))
        m.witness_failures.labels(org, witness).set(failures)
        m.witness_refusals.labels(org, witness).set(refusals)


def exposition() -> tuple[bytes, str]:
    """(body, content type) of a scrape: every process's samples in multiprocess mode, this
    process's otherwise."""
    from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

    metrics()
    if not os.environ.get(MULTIPROC_ENV):
        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    from prometheus_client import multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    return generate_latest(registry), CONTENT_TYPE_LATEST


# ---- logs ----------------------------------------------------------------------------------

class FieldsFormatter(logging.Formatter):
    """A record as its fields: time, level, logger, message, the request id of the call it
    was written in (stamped on every record when it is made), the fields a caller passed as
    `extra={"fields": {...}}`, and `error` (the traceback) when it has one. The two log forms
    write the same fields, each on one line."""

    def fields(self, record: logging.LogRecord) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "time": f"{_second_text(int(record.created))}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        current = getattr(record, "request_id", None)
        if current:
            entry["request_id"] = current
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return entry


@functools.lru_cache(maxsize=4)
def _second_text(second: int) -> str:
    """A record's time to the second (UTC), made once for the records of that second: every
    call writes a line, and strftime of each cost a fifth of writing one."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))


class JsonFormatter(FieldsFormatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        entry = self.fields(record)
        try:
            return orjson.dumps(entry, default=str).decode()
        except TypeError:  # what orjson refuses (integers past 64 bits)
            return json.dumps(entry, ensure_ascii=False, default=str)


# A text value written bare: anything else (spaces, quotes, `=`, line breaks, an empty string)
# is quoted as a JSON string, so that a line splits into its pairs again and a traceback stays
# on its record's line.
_BARE = re.compile(r'[^\s"=\\]+')


class TextFormatter(FieldsFormatter):
    """One line of `key=value` pairs (logfmt): the JSON form's fields, in its order."""

    def format(self, record: logging.LogRecord) -> str:
        return " ".join(
            f"{key}={value}" if isinstance(value, str) and _BARE.fullmatch(value)
            else f"{key}={json.dumps(value, ensure_ascii=False, default=str)}"
            for key, value in self.fields(record).items())


def _stamped(make: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    def make_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        record.request_id = request_id.get()
        return record

    return make_record


# Every record knows the request it was written in, whenever and wherever it is formatted.
logging.setLogRecordFactory(_stamped(logging.getLogRecordFactory()))


class LineHandler(logging.StreamHandler):
    """Writes each record as one line with one write(2) on the stream's file descriptor: a
    line is whole on its own (O_APPEND files and pipes keep writes of a line apart), so calls
    of many threads log without taking a lock, and nothing waits in a buffer. A stream with no
    descriptor (a test's capture) is written as StreamHandler does."""

    def handle(self, record: logging.LogRecord) -> bool:
        try:
            fd = self.stream.fileno()
        except (AttributeError, OSError, ValueError):
            return super().handle(record)
        if not self.filter(record):
            return False
        try:
            line = (self.format(record) + "\n").encode("utf-8", "replace")
            while line:  # a long line may take more than one write
                line = line[os.write(fd, line):]
        except Exception:  # a log line must never fail the call that writes it
            self.handleError(record)
        return True


def configure_logging(form: str) -> None:
    """Logs to stderr as JSON lines (`json`, the default) or as `key=value` text (`text`): every
    line the process writes through Python, its own records and those of the libraries it runs
    (gunicorn's, through rest_shim.gunicorn_log; grpc's), a warning and an uncaught exception."""
    handler = LineHandler()
    handler.setFormatter(JsonFormatter() if form == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    # No form here shows a record's thread, process (id or name) or source line: not working
    # them out for every record saves a good part of a log line's cost (there is an access line
    # per request and per servicer call; the process id is a system call).
    logging.logThreads = logging.logMultiprocessing = logging.logProcesses = False
    logging._srcfile = None
    # Python writes warnings and the traceback of an exception nothing caught straight to
    # stderr, in lines of its own: they become records (logger py.warnings, uncaught).
    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught
    threading.excepthook = lambda hook: _log_uncaught(
        hook.exc_type, hook.exc_value, hook.exc_traceback)


def _log_uncaught(kind: type[BaseException], value: BaseException | None,
                  traceback: TracebackType | None) -> None:
    logging.getLogger("uncaught").critical(
        "uncaught %s", kind.__name__, exc_info=(kind, value, traceback))  # type: ignore[arg-type]


class ObservingInterceptor(grpc.ServerInterceptor):
    """Outermost on every evidence.v2 method: takes the call's request id from its metadata (or
    makes one), answers it back as trailing metadata, records the call's metrics under
    `transport` (network: a gRPC client; in-process: the REST shim's call) and logs the call
    through either door: the shim's line tells of an HTTP request, this one of each call the
    request made (a page makes several) and the code it answered."""

    def __init__(self, transport: str) -> None:
        self.transport = transport

    def intercept_service(self, continuation: Callable, handler_call_details: Any) -> Any:
        handler = continuation(handler_call_details)
        if handler is None:
            return handler
        method = handler_call_details.method
        if handler.unary_stream is not None:
            streamed = handler.unary_stream

            def observed_stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                with _Observing(method, context, self.transport):
                    yield from streamed(request, context)

            return handler._replace(unary_stream=observed_stream)
        if handler.unary_unary is None:
            return handler
        behavior = handler.unary_unary

        def observed(request: Any, context: grpc.ServicerContext) -> Any:
            with _Observing(method, context, self.transport):
                return behavior(request, context)

        return handler._replace(unary_unary=observed)


class _Observing:
    """The call's request id current within, its metrics and line when it ends (a stream's
    when its last answer is sent). A class, not a generator's context manager, which every
    call would pay several times over."""

    __slots__ = ("method", "context", "transport", "token", "started")

    def __init__(self, method: str, context: grpc.ServicerContext, transport: str) -> None:
        self.method, self.context, self.transport = method, context, transport

    def __enter__(self) -> None:
        sent = dict(self.context.invocation_metadata()).get(REQUEST_ID_HEADER)
        self.token = request_id.set(request_id_of(sent))
        self.started = time.perf_counter()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        context = self.context
        failed = isinstance(error, Exception)
        try:
            if error is None:
                # With the status, in the response's last frame: initial metadata of its own
                # would cost a write per call. (ErrorInterceptor adds it to refusals.)
                context.set_trailing_metadata((*(context.trailing_metadata() or ()),
                                               (REQUEST_ID_HEADER, request_id.get() or "")))
        except Exception:
            failed = True
            raise
        finally:
            seconds = time.perf_counter() - self.started
            code = context.code() or (grpc.StatusCode.UNKNOWN if failed else grpc.StatusCode.OK)
            observe_grpc(self.method, code, seconds, self.transport)
            pool = pool_state()
            if pool is not None:
                observe_pool(*pool)
            access_log.info("rpc", extra={"fields": {
                "request_id": request_id.get(), "rpc": self.method, "transport": self.transport,
                "code": _CODE_NAMES[code], "duration_ms": round(seconds * 1000, 3)}})
            request_id.reset(self.token)
