"""Writers of several processes on one SQLite file queue on one lock (storage.db.SqliteWriterLock):
a writer killed with -9 mid-stream releases it with its life, and every attestation a 201
acknowledged is stored."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import sqlite3
import threading
import time

import pytest
import requests

from tests.conftest import RunningServer, bearer

pytestmark = pytest.mark.e2e
WRITERS = 6


def _children(pid: int) -> list[int]:
    return [int(c) for c in pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _http_workers(server: RunningServer) -> list[int]:
    """The gunicorn workers of serve's REST shim."""
    for child in _children(server.process.pid):
        if b"\0shim\0" in pathlib.Path(f"/proc/{child}/cmdline").read_bytes():
            return _children(child)
    raise AssertionError("serve has no shim process")


@pytest.mark.parametrize("engine", ["sqlite"], indirect=True)
def test_no_acknowledged_attestation_is_lost_when_a_writer_is_killed(server: RunningServer):
    url = f"{server.http_url}/api/v2/attestations/acme/ingest/trail/t1/generic"
    first = requests.post(url, headers=bearer(), timeout=30, files={"data_json": (None, json.dumps(
        {"attestation_name": "first", "is_compliant": True}))})
    assert first.status_code == 201, first.text  # flow and trail are made by the first one
    workers = _http_workers(server)
    assert len(workers) >= 2

    acknowledged: list[list[str]] = [[] for _ in range(WRITERS)]
    after_kill: list[int] = [0] * WRITERS
    killed = threading.Event()
    stop = time.monotonic() + 4

    def write(number: int) -> None:
        session = requests.Session()
        sequence = 0
        while time.monotonic() < stop:
            seq = f"w{number}-{sequence}"
            sequence += 1
            body = {"attestation_name": f"a{number}", "is_compliant": True,
                    "user_data": {"seq": seq}}
            try:
                answer = session.post(url, headers=bearer(), timeout=30,
                                      files={"data_json": (None, json.dumps(body))})
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
                # in flight on the killed worker, before or while its answer was sent
                session = requests.Session()
                continue
            assert answer.status_code == 201, answer.text
            acknowledged[number].append(seq)
            if killed.is_set():
                after_kill[number] += 1

    threads = [threading.Thread(target=write, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    time.sleep(1.5)
    os.kill(workers[0], signal.SIGKILL)  # maybe holding the write lock: it dies with the process
    killed.set()
    for thread in threads:
        thread.join(60)
    assert sum(after_kill) > 20  # writes went on after the kill: nothing waits on a dead holder

    database = server.database_url.removeprefix("sqlite:///")
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as conn:
        stored = {row[0] for row in conn.execute(
            "SELECT json_extract(data, '$.user_data.seq') FROM attestation WHERE type = 'generic'")}
    sent = {seq for seqs in acknowledged for seq in seqs}
    assert len(sent) > 100
    assert sent <= stored
