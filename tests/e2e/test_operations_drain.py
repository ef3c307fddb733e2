"""A real `evidence-server serve` stopped with SIGTERM under load, and what it writes meanwhile
(issue 30, operations): every REST request and gRPC call it received is answered, kept-alive
connections are told to close, new connections are refused, and it exits 0 within the grace
period; every line of its output is a JSON object of the service's fields (`key=value` text with
the same fields under EVIDENCE_LOG_FORMAT=text), the servicer line of an in-process call
included.

Requests are held in flight by the database itself: the test takes the write lock (SQLite's,
or a table lock on PostgreSQL), so the server's writes wait for it, and lets go only after the
signal."""

from __future__ import annotations

import contextlib
import http.client
import json
import pathlib
import re
import signal
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import psycopg2
import pytest
import requests

from evidence_grpc.api.v2 import flow_service_pb2 as flow_pb
from evidence_grpc.api.v2 import flow_service_pb2_grpc as flow_grpc
from evidence_grpc.cli import GRACE
from tests.conftest import ALICE_KEY, ENGINES, RunningServer, bearer, fresh_database, start_server

pytestmark = pytest.mark.e2e

REST_IN_FLIGHT = 8  # kept-alive connections, each with a request in flight at the signal
GRPC_IN_FLIGHT = 3  # calls in flight on one channel (one gRPC process's handler threads)
AUTH = (("authorization", f"Bearer {ALICE_KEY}"),)
FIELDS = {"time", "level", "logger", "message"}  # on every line
REQUEST_FIELDS = {"request_id", "method", "path", "route", "status", "duration_ms", "bytes",
                  "remote"}
RPC_FIELDS = {"request_id", "rpc", "transport", "code", "duration_ms"}


@contextlib.contextmanager
def writes_held(database_url: str) -> Iterator[None]:
    """The server's writes to flows wait until the block ends (its reads do not)."""
    if database_url.startswith("sqlite:///"):
        holder = sqlite3.connect(database_url.removeprefix("sqlite:///"), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # the write lock; the server waits (busy_timeout)
    else:
        holder = psycopg2.connect(database_url)
        holder.cursor().execute("LOCK TABLE flow IN EXCLUSIVE MODE")  # in a transaction
    try:
        yield
    finally:
        holder.rollback()
        holder.close()


def flow_names(database_url: str) -> set[str]:
    if database_url.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(database_url.removeprefix("sqlite:///"))) as db:
            return {name for (name,) in db.execute("SELECT name FROM flow")}
    with contextlib.closing(psycopg2.connect(database_url)) as db, db.cursor() as cursor:
        cursor.execute("SELECT name FROM flow")
        return {name for (name,) in cursor.fetchall()}


def refused_soon(address: str, seconds: float = 3) -> bool:
    """Whether connecting to `address` is refused within `seconds` (the processes stop
    listening as they take the signal)."""
    host, port = address.rsplit(":", 1)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, int(port)), timeout=2).close()
        except ConnectionRefusedError:
            return True
        time.sleep(0.1)
    return False


@dataclass
class Answer:
    name: str  # of the flow the request or call makes
    status: int | None = None  # HTTP
    connection: str | None = None
    body: Any = None
    error: str | None = None


@dataclass
class Drained:
    """What a server stopped under load did."""
    database_url: str
    rest: list[Answer] = field(default_factory=list)
    grpc: list[Answer] = field(default_factory=list)
    rest_refused: bool = False
    grpc_refused: bool = False
    exit_code: int | None = None
    seconds: float = 0.0  # from the signal to the exit
    log: str = ""


def put_flow_in_flight(server: RunningServer, name: str, sent: threading.Barrier,
                       answer: Answer) -> None:
    """Open a kept-alive connection (one answered request), then send a write on it and read
    its answer."""
    connection = http.client.HTTPConnection(server.http_url.removeprefix("http://"), timeout=60)
    try:
        connection.request("GET", "/ready")
        first = connection.getresponse()
        first.read()
        assert first.getheader("Connection") != "close"
        connection.request("PUT", "/api/v2/flows/acme", body=json.dumps(
            {"name": name, "description": "in flight at SIGTERM"}),
            headers={**bearer(), "Content-Type": "application/json"})
        sent.wait()
        response = connection.getresponse()
        answer.status, answer.connection = response.status, response.getheader("Connection")
        answer.body = json.loads(response.read())  # all of it, or IncompleteRead
    except Exception as error:  # a reset, a close before the answer, a short body
        answer.error = repr(error)
        sent.abort()
    finally:
        connection.close()


def calls_before_the_signal(server: RunningServer) -> None:
    """Calls to be logged, REST and gRPC: one of each answered, one refused for want of a key."""
    assert requests.get(f"{server.http_url}/api/v2/flows/acme", timeout=10, headers={
        **bearer(), "x-request-id": "rest-ok"}).status_code == 200
    assert requests.get(f"{server.http_url}/api/v2/flows/acme", timeout=10, headers={
        "x-request-id": "rest-refused"}).status_code == 401
    with grpc.insecure_channel(server.grpc_target) as channel:
        stub = flow_grpc.FlowServiceStub(channel)
        stub.ListFlows(flow_pb.ListFlowsRequest(org="acme"), timeout=10,
                       metadata=(*AUTH, ("x-request-id", "grpc-ok")))
        with pytest.raises(grpc.RpcError) as refusal:
            stub.ListFlows(flow_pb.ListFlowsRequest(org="acme"), timeout=10,
                           metadata=(("x-request-id", "grpc-refused"),))
        assert refusal.value.code() == grpc.StatusCode.UNAUTHENTICATED


def stop_under_load(server: RunningServer, log_path: pathlib.Path) -> Drained:
    drained = Drained(server.database_url)
    calls_before_the_signal(server)
    run = uuid.uuid4().hex[:8]
    drained.rest = [Answer(f"rest-{run}-{i}") for i in range(REST_IN_FLIGHT)]
    sent = threading.Barrier(REST_IN_FLIGHT + 1)
    clients = [threading.Thread(target=put_flow_in_flight, args=(server, a.name, sent, a))
               for a in drained.rest]
    with grpc.insecure_channel(server.grpc_target) as channel:
        with writes_held(server.database_url):
            for client in clients:
                client.start()
            upsert = flow_grpc.FlowServiceStub(channel).UpsertFlow
            calls = {f"grpc-{run}-{i}": upsert.future(
                flow_pb.UpsertFlowRequest(org="acme", name=f"grpc-{run}-{i}"), timeout=60,
                metadata=AUTH) for i in range(GRPC_IN_FLIGHT)}
            sent.wait(timeout=30)  # every request written
            time.sleep(1)  # ... and read by the server, where it waits for the lock
            server.process.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            # the processes stop listening; what they serve still waits for the lock
            drained.rest_refused = refused_soon(server.http_url.removeprefix("http://"))
            drained.grpc_refused = refused_soon(server.grpc_target)
            assert server.process.poll() is None, "the server did not wait for its requests"
        for client in clients:  # the lock is released: the writes go on
            client.join(30)
        for name, call in calls.items():
            answer = Answer(name)
            try:
                answer.body = call.result(timeout=30)
            except grpc.RpcError as error:
                answer.error = f"{error.code()}: {error.details()}"
            drained.grpc.append(answer)
    drained.exit_code = server.process.wait(GRACE + 10)
    drained.seconds = time.monotonic() - signalled
    drained.log = log_path.read_text()
    return drained


@pytest.fixture(scope="module", params=ENGINES)
def drained(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[Drained]:
    """A real server on each engine, stopped with SIGTERM while requests and calls are in
    flight; what it answered and wrote."""
    tmp = tmp_path_factory.mktemp(f"drain-{request.param}")
    with fresh_database(request.param, tmp, request) as url:
        server = start_server(url, tmp, "--workers", "2", bootstrap_with=None)
        try:
            yield stop_under_load(server, tmp / "server.log")
        finally:
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait()


def test_every_request_in_flight_at_sigterm_is_answered_and_told_to_close(drained: Drained):
    for answer in drained.rest:
        assert answer.error is None, answer
        assert (answer.status, answer.connection, answer.body["name"]) == \
            (201, "close", answer.name), answer


def test_every_grpc_call_in_flight_at_sigterm_completes(drained: Drained):
    assert len(drained.grpc) == GRPC_IN_FLIGHT
    for answer in drained.grpc:
        assert answer.error is None and answer.body.created, answer


def test_nothing_answered_is_lost(drained: Drained):
    answered = {a.name for a in [*drained.rest, *drained.grpc] if a.error is None}
    assert len(answered) == REST_IN_FLIGHT + GRPC_IN_FLIGHT
    assert answered <= flow_names(drained.database_url)


def test_new_connections_are_refused_while_the_server_drains(drained: Drained):
    assert drained.rest_refused and drained.grpc_refused


def test_the_server_exits_0_within_the_grace_period(drained: Drained):
    assert drained.exit_code == 0
    assert drained.seconds < GRACE, drained.seconds


def test_every_line_of_the_server_is_a_json_object_of_the_services_fields(drained: Drained):
    lines = []
    for number, raw in enumerate(drained.log.splitlines(), 1):
        try:
            line = json.loads(raw)
        except ValueError:
            pytest.fail(f"line {number} is not JSON: {raw!r}")
        assert isinstance(line, dict) and FIELDS <= line.keys(), raw
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["time"]), raw
        lines.append(line)
    said = {(line["logger"], line["message"].split(":")[0]) for line in lines}
    assert {("gunicorn.error", "Listening at"), ("gunicorn.error", "Booting worker with pid"),
            ("gunicorn.error", "Handling signal")} <= said
    assert any(line["message"].startswith("REST on http://") for line in lines)  # the banner
    refused_request = [line for line in lines if line.get("request_id") == "rest-refused"]
    assert {line["message"] for line in refused_request} == {"request", "rpc"}
    for line in refused_request:
        assert (REQUEST_FIELDS if line["message"] == "request" else RPC_FIELDS) <= line.keys()
    grpc_refused = [line for line in lines if line.get("request_id") == "grpc-refused"]
    assert [(line["transport"], line["code"]) for line in grpc_refused] == \
        [("network", "UNAUTHENTICATED")]


def test_an_in_process_call_writes_its_servicer_line(drained: Drained):
    """The shim runs the servicers in-process under `serve`: each call has its line, with the
    request id of the HTTP request that made it and the code it answered."""
    lines = [json.loads(raw) for raw in drained.log.splitlines() if raw.startswith("{")]
    rpc = {line["request_id"]: line for line in lines if line["message"] == "rpc"}
    assert (rpc["rest-ok"]["rpc"], rpc["rest-ok"]["transport"], rpc["rest-ok"]["code"]) == \
        ("/evidence.v2.FlowService/StreamFlows", "in-process", "OK")  # the whole list
    assert (rpc["rest-refused"]["transport"], rpc["rest-refused"]["code"]) == \
        ("in-process", "UNAUTHENTICATED")
    assert rpc["grpc-ok"]["transport"] == "network"


# A `key=value` pair of a text line: a bare value, or a JSON string.
PAIR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^\s"]*)(?:\s|$)')


def text_fields(raw: str) -> dict[str, Any]:
    pairs = PAIR.findall(raw)
    assert " ".join(f"{k}={v}" for k, v in pairs) == raw, f"not key=value pairs: {raw!r}"
    return {k: json.loads(v) if v.startswith('"') else v for k, v in pairs}


def test_text_logs_carry_the_same_fields_as_key_value_pairs(tmp_path: pathlib.Path,
                                                           monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("EVIDENCE_LOG_FORMAT", "text")
    server = start_server(f"sqlite:///{tmp_path / 'evidence.db'}", tmp_path, "--workers", "1")
    try:
        calls_before_the_signal(server)
    finally:
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(GRACE + 10) == 0
    lines = [text_fields(raw) for raw in (tmp_path / "server.log").read_text().splitlines()]
    assert all(FIELDS <= line.keys() for line in lines)
    by_id = {(line.get("request_id"), line["message"]): line for line in lines}
    refused_request = by_id[("rest-refused", "request")]
    assert REQUEST_FIELDS <= refused_request.keys()
    assert (refused_request["method"], refused_request["path"], refused_request["status"]) == \
        ("GET", "/api/v2/flows/acme", "401")
    assert by_id[("rest-refused", "rpc")]["code"] == "UNAUTHENTICATED"
    assert by_id[("grpc-ok", "rpc")]["transport"] == "network"
    assert any(line["logger"] == "gunicorn.error" and line["message"].startswith("Listening at")
               for line in lines)
