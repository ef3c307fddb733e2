"""Untrusted rules run contained: user-supplied programs (custom types' jq rules and JSON Schemas
today, policy `if` expressions later) are evaluated in separate worker processes, each under a
time limit per evaluation and a memory limit (RLIMIT_AS), so a hostile rule can neither hold
the server's GIL nor its memory.

Workers come from a forkserver (never forked from a process holding gRPC threads), start with
the evaluating modules imported, and are reused while they behave. A worker that overruns its
time is killed and replaced; one that runs out of memory dies or reports MemoryError and is
replaced too. Either way the caller gets a 400 naming the step that was running: a task marks
its steps with `step(field, description)`, which costs one small message each."""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import resource
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from .errors import InvalidArgument, ResourceExhausted

T = TypeVar("T")
MIB = 1024 * 1024
STARTUP_SECONDS = 60.0  # a cold worker on a loaded machine; not counted against a rule's time
# Imported by the forkserver once, so a new worker is ready as soon as it is forked.
PRELOAD = ("jq", "jsonschema", "evidence_grpc.domain.evidence.rules")

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(list(PRELOAD))


@dataclass(frozen=True)
class Limits:
    seconds: float = 2.0
    memory_bytes: int = 512 * MIB
    workers: int = 4  # evaluations at once per server process; more wait for a free worker
    # Evaluations of one organization at once per server process, so one organization cannot
    # hold every worker; more wait up to `seconds` (one evaluation's limit), then get a 429.
    per_organization: int = 2


# ---- inside a worker ----------------------------------------------------------------------------

_reporter: Connection | None = None


def step(field: str, description: str) -> None:
    """Within a task: say what runs next, so an overrun names it. A no-op outside a worker."""
    if _reporter is not None:
        _reporter.send(("step", (field, description)))


def _serve(connection: Connection, memory_bytes: int) -> None:
    global _reporter
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    for module in PRELOAD:  # already there when the forkserver's preload worked; else now
        importlib.import_module(module)
    _reporter = connection
    connection.send(("ready", None))
    while True:
        try:
            task, args = connection.recv()
        except EOFError:
            return
        try:
            answer: tuple[str, Any] = ("done", task(*args))
        except MemoryError:
            answer = ("memory", None)
        except Exception as exc:  # the task's own failure: the caller re-raises it
            answer = ("raised", exc)
        connection.send(answer)


# ---- in the server ------------------------------------------------------------------------------

class _Worker:
    def __init__(self, memory_bytes: int) -> None:
        self.connection, child = _CONTEXT.Pipe()
        self.process = _CONTEXT.Process(target=_serve, args=(child, memory_bytes), daemon=True,
                                        name="evidence-sandbox")
        self.process.start()
        child.close()
        if not self.connection.poll(STARTUP_SECONDS):
            self.stop()
            raise RuntimeError("sandbox worker did not start")
        self.connection.recv()

    def stop(self) -> None:
        self.process.kill()
        self.process.join()
        self.connection.close()


class Sandbox:
    """A pool of worker processes evaluating untrusted rules under `limits`."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._slots = threading.BoundedSemaphore(limits.workers)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._running: Counter[str] = Counter()  # evaluations running, by organization
        self._org_turns = threading.Condition()

    @contextlib.contextmanager
    def _organization_slot(self, organization: str | None) -> Iterator[None]:
        """One of the organization's `per_organization` evaluations at once, waited for up to
        one evaluation's time limit; ResourceExhausted when none frees by then."""
        if organization is None:
            yield
            return
        limit = self.limits.per_organization
        with self._org_turns:
            if not self._org_turns.wait_for(lambda: self._running[organization] < limit,
                                            timeout=self.limits.seconds):
                raise ResourceExhausted(
                    f"Organization '{organization}' already has {limit} rule evaluations "
                    "running; try again shortly",
                    {"attestation_data": f"at most {limit} evaluations of custom attestation "
                                         "type rules run at once per organization"},
                    reason="EVALUATIONS_BUSY", metadata={"organization": organization})
            self._running[organization] += 1
        try:
            yield
        finally:
            with self._org_turns:
                self._running[organization] -= 1
                if not self._running[organization]:
                    del self._running[organization]
                self._org_turns.notify_all()

    def run(self, task: Callable[..., T], *args: Any, first_step: tuple[str, str],
            organization: str | None = None) -> T:
        """task(*args) in a worker (task and args must pickle). Raises InvalidArgument naming
        the running step when the evaluation overruns its time or memory, ResourceExhausted
        when `organization` already has its share of evaluations running."""
        with self._organization_slot(organization), self._slots:
            worker = self._checkout()
            try:
                kind, value = self._exchange(worker, task, args, first_step)
            except BaseException:
                worker.stop()
                raise
            if kind in ("done", "raised"):
                with self._lock:
                    self._idle.append(worker)
            else:
                worker.stop()
        if kind == "done":
            return value
        if kind == "raised":
            raise value
        field, description = value
        limit = (f"the time limit of {self.limits.seconds:g} s" if kind == "time"
                 else f"the memory limit of {self.limits.memory_bytes // MIB} MiB")
        raise InvalidArgument(f"{description} exceeded {limit}",
                              {field: f"exceeded {limit}"})

    def _checkout(self) -> _Worker:
        """An idle worker that is still alive, or a new one."""
        while True:
            with self._lock:
                worker = self._idle.pop() if self._idle else None
            if worker is None:
                return _Worker(self.limits.memory_bytes)
            if worker.process.is_alive():
                return worker
            worker.stop()

    def _exchange(self, worker: _Worker, task: Callable[..., Any], args: tuple[Any, ...],
                  running: tuple[str, str]) -> tuple[str, Any]:
        """("done", result) | ("raised", exception) | ("time" | "memory", running step)."""
        deadline = time.monotonic() + self.limits.seconds
        worker.connection.send((task, args))
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not worker.connection.poll(remaining):
                return "time", running
            try:
                kind, value = worker.connection.recv()
            except (EOFError, OSError):  # killed by the kernel, or aborted by jq out of memory
                return "memory", running
            if kind == "step":
                running = value
            elif kind == "memory":
                return "memory", running
            else:
                return kind, value

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stop()


_sandbox = Sandbox(Limits())
_configure_lock = threading.Lock()


def configure(limits: Limits) -> None:
    """Use `limits` from now on (the server's settings); idle workers are replaced."""
    global _sandbox
    with _configure_lock:
        previous, _sandbox = _sandbox, Sandbox(limits)
    previous.close()


def run(task: Callable[..., T], *args: Any, first_step: tuple[str, str],
        organization: str | None = None) -> T:
    """task(*args) in the process-wide sandbox; see Sandbox.run."""
    return _sandbox.run(task, *args, first_step=first_step, organization=organization)
