"""`evidence-server grpc --grpc-workers N`: N forked server processes on one address
(SO_REUSEPORT), each with its own database connections; they start and stop together."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import grpc
import pytest

from evidence_grpc.api.v2 import flow_service_pb2 as flows_pb
from evidence_grpc.api.v2 import flow_service_pb2_grpc as flows_grpc
from tests.conftest import ALICE_KEY, BOOTSTRAP, _grpc_ready, free_port

pytestmark = pytest.mark.e2e
AUTH = (("authorization", f"Bearer {ALICE_KEY}"),)


def _children(pid: int) -> list[int]:
    text = pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in text.split()]


def _sockets(port: int, state: str) -> set[str]:
    """Inodes of the TCP sockets in `state` (0A listening, 01 established) on local `port`."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in pathlib.Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == state:
                found.add(fields[9])
    return found


def _owns(pid: int, inodes: set[str]) -> bool:
    fds = pathlib.Path(f"/proc/{pid}/fd")
    for fd in fds.iterdir():
        try:
            if os.readlink(fd).removeprefix("socket:[").rstrip("]") in inodes:
                return True
        except OSError:  # closed meanwhile
            continue
    return False


@pytest.fixture
def workers(database_url: str, tmp_path: pathlib.Path) -> Iterator[tuple[subprocess.Popen, int]]:
    boot = tmp_path / "bootstrap.json"
    boot.write_text(json.dumps(BOOTSTRAP))
    cli = [sys.executable, "-m", "evidence_grpc.cli"]
    subprocess.run([*cli, "bootstrap", str(boot), "--database-url", database_url],
                   check=True, capture_output=True, timeout=60)
    port = free_port()
    log = (tmp_path / "grpc.log").open("wb")
    process = subprocess.Popen([*cli, "grpc", "--grpc-addr", f"127.0.0.1:{port}",
                                "--grpc-workers", "2", "--database-url", database_url],
                               stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while len(_sockets(port, "0A")) < 2 or not _grpc_ready(f"127.0.0.1:{port}"):
        assert process.poll() is None, (tmp_path / "grpc.log").read_text()
        assert time.monotonic() < deadline, (tmp_path / "grpc.log").read_text()
        time.sleep(0.2)
    yield process, port
    if process.poll() is None:
        process.kill()
        process.wait(10)
    log.close()


def test_workers_share_the_address_and_the_database(workers: tuple[subprocess.Popen, int]):
    process, port = workers
    children = _children(process.pid)
    assert len(children) == 2
    assert len(_sockets(port, "0A")) == 2  # one listening socket per process, one port

    # Sixteen connections (channels share one unless each has its own subchannel pool), each
    # creating a flow: the kernel spreads them over both processes (all on one has odds of 1 in
    # 32,768), and every write is seen through every connection.
    channels = [grpc.insecure_channel(f"127.0.0.1:{port}",
                                      options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(16)]
    try:
        for number, channel in enumerate(channels):
            flows_grpc.FlowServiceStub(channel).UpsertFlow(
                flows_pb.UpsertFlowRequest(org="acme", name=f"w{number}"), metadata=AUTH)
        established = _sockets(port, "01")
        assert all(_owns(child, established) for child in children)
        for channel in channels:
            listed = flows_grpc.FlowServiceStub(channel).ListFlows(
                flows_pb.ListFlowsRequest(org="acme"), metadata=AUTH)
            assert {f"w{n}" for n in range(16)} <= {flow.name for flow in listed.data}
    finally:
        for channel in channels:
            channel.close()

    process.send_signal(signal.SIGTERM)
    assert process.wait(15) == 0
    assert not any(pathlib.Path(f"/proc/{child}").exists() for child in children)


@pytest.mark.parametrize("engine", ["sqlite"], indirect=True)
def test_a_worker_that_dies_stops_the_server(workers: tuple[subprocess.Popen, int]):
    process, port = workers
    first, second = _children(process.pid)
    os.kill(first, signal.SIGKILL)
    assert process.wait(15) == 1  # a supervisor (systemd, serve) sees the failure and restarts
    assert not pathlib.Path(f"/proc/{second}").exists()
