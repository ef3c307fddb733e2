"""The REST shim's HTTP worker (rest_shim.worker): a thread that answered a kept-alive
connection serves that connection's next request itself when it comes at once and no other
connection waits; otherwise the connection goes back to gunicorn's poller. The decision is
tested on its own, the worker through a real server given one request thread per worker:
pipelined and back-to-back requests are all answered, and a busy connection never keeps a
thread from another one."""

from __future__ import annotations

import io
import socket
import threading
import time
import types
from collections.abc import Iterator

import pytest

from rest_shim import worker
from tests.conftest import RunningServer, start_server, stop_server


def _worker(alive: bool = True, waiting: int = 0) -> worker.ThreadWorker:
    w = object.__new__(worker.ThreadWorker)  # the decision needs no gunicorn arbiter
    w.alive, w._waiting, w._count = alive, waiting, threading.Lock()
    return w


@pytest.fixture
def connection() -> Iterator[tuple[types.SimpleNamespace, socket.socket]]:
    ours, client = socket.socketpair()
    conn = types.SimpleNamespace(sock=ours, parser=types.SimpleNamespace(
        unreader=types.SimpleNamespace(buf=io.BytesIO())))
    yield conn, client
    ours.close()
    client.close()


def test_the_thread_keeps_a_connection_whose_next_request_has_come(connection):
    conn, client = connection
    client.sendall(b"GET /ready HTTP/1.1\r\n\r\n")
    assert _worker()._next_request_here(conn)


def test_the_thread_keeps_a_connection_whose_next_request_was_read_ahead(connection):
    conn, _ = connection
    conn.parser.unreader.buf.write(b"GET /ready HTTP/1.1\r\n\r\n")
    assert _worker()._next_request_here(conn)


def test_the_thread_keeps_a_connection_whose_next_request_comes_within_the_linger(connection,
                                                                                 monkeypatch):
    # A linger long enough that the request sent while the thread waits arrives within it on a
    # busy machine too (2 ms, the real one, is shorter than a loaded scheduler's delays): the
    # wait ends as soon as it does.
    monkeypatch.setattr(worker, "LINGER", 5.0)
    conn, client = connection
    threading.Timer(0.01, client.sendall, [b"GET / HTTP/1.1\r\n\r\n"]).start()
    assert _worker()._next_request_here(conn)


def test_an_idle_connection_goes_back_to_the_poller_after_the_linger(connection):
    conn, _ = connection
    started = time.monotonic()
    assert not _worker()._next_request_here(conn)
    assert time.monotonic() - started >= worker.LINGER * 0.9


def test_a_connection_waiting_for_a_thread_comes_first(connection):
    conn, client = connection
    client.sendall(b"GET /ready HTTP/1.1\r\n\r\n")
    assert not _worker(waiting=1)._next_request_here(conn)


def test_a_stopping_worker_keeps_no_connection(connection):
    conn, client = connection
    client.sendall(b"GET /ready HTTP/1.1\r\n\r\n")
    assert not _worker(alive=False)._next_request_here(conn)


@pytest.fixture
def one_thread_server(tmp_path) -> Iterator[RunningServer]:
    running = start_server(f"sqlite:///{tmp_path}/db.sqlite", tmp_path, "--workers", "1",
                           "--http-threads", "1")
    try:
        yield running
    finally:
        stop_server(running)


def _connect(server: RunningServer) -> socket.socket:
    host, port = server.http_url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    return sock


def _read_answers(sock: socket.socket, count: int) -> list[bytes]:
    """`count` HTTP/1.1 answers with Content-Length bodies, in order: their status lines."""
    data, statuses = b"", []
    while len(statuses) < count:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, f"connection closed after {len(statuses)} answers"
            data += chunk
        head, data = data.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        length = next(int(line.split(b":")[1]) for line in lines
                      if line.lower().startswith(b"content-length:"))
        while len(data) < length:
            data += sock.recv(65536)
        data = data[length:]
        statuses.append(lines[0])
    return statuses


def test_pipelined_and_back_to_back_requests_on_one_connection_are_all_answered(
        one_thread_server):
    with _connect(one_thread_server) as sock:
        sock.sendall(b"GET /ready HTTP/1.1\r\nHost: x\r\n\r\n" * 3)  # one write, three requests
        assert _read_answers(sock, 3) == [b"HTTP/1.1 200 OK"] * 3
        for _ in range(300):
            sock.sendall(b"GET /ready HTTP/1.1\r\nHost: x\r\n\r\n")
            assert _read_answers(sock, 1) == [b"HTTP/1.1 200 OK"]


def test_a_busy_connection_does_not_keep_the_only_thread_from_another(one_thread_server):
    """One request thread; connection A sends requests back to back. Connection B's one
    request is answered after a few of A's, not when A pauses: A's thread hands A back to the
    poller as soon as B waits for a thread."""
    stop, answered_a = threading.Event(), []

    def busy() -> None:
        with _connect(one_thread_server) as sock:
            while not stop.is_set():
                sock.sendall(b"GET /ready HTTP/1.1\r\nHost: x\r\n\r\n")
                answered_a.extend(_read_answers(sock, 1))

    hammer = threading.Thread(target=busy)
    hammer.start()
    try:
        deadline = time.monotonic() + 20
        while len(answered_a) < 50 and time.monotonic() < deadline:
            time.sleep(0.01)
        with _connect(one_thread_server) as sock:
            before = len(answered_a)
            sock.sendall(b"GET /ready HTTP/1.1\r\nHost: x\r\n\r\n")
            assert _read_answers(sock, 1) == [b"HTTP/1.1 200 OK"]
            meanwhile = len(answered_a) - before
        assert hammer.is_alive() and meanwhile <= 20  # 1-2 here; 60-150 if A kept the thread
    finally:
        stop.set()
        hammer.join(30)
    assert len(answered_a) >= 50
