"""Actions end to end: `evidence-server serve` runs the delivery worker, the real kosli CLI
reports an environment, and a receiver on 127.0.0.1 (loopback allowed explicitly) gets the
notifications; gRPC callers manage actions with the same rules; a worker killed with -9 loses
nothing."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import grpc
import pytest
import requests
from google.protobuf import struct_pb2

from evidence_grpc.api.v2 import action_service_pb2 as pb
from evidence_grpc.api.v2 import action_service_pb2_grpc as pb_grpc
from evidence_grpc.domain.outbound import targets as outbound
from evidence_grpc.storage.models import OutboxMessage
from tests.conftest import (
    ALICE_KEY,
    ROLE_KEYS,
    RunningServer,
    _close_shared_database,
    bearer,
    start_server,
    stop_server,
)
from tests.helpers import Receiver, create_env, env_action
from tests.helpers import report_fingerprints as report
from tests.outbound.documented_receiver import parse

pytestmark = pytest.mark.e2e


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    yield running
    running.close()


@pytest.fixture
def loopback_server(database_url: str, tmp_path: pathlib.Path,
                    monkeypatch: pytest.MonkeyPatch) -> Iterator[RunningServer]:
    monkeypatch.setenv("EVIDENCE_OUTBOUND_ALLOW_LOOPBACK", "1")
    running = start_server(database_url, tmp_path, bootstrap_with=None)
    yield running
    stop_server(running)


def _wait_for(receiver: Receiver, count: int, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while len(receiver.received) < count and time.monotonic() < deadline:
        time.sleep(0.1)


def test_a_cli_snapshot_reaches_a_webhook(loopback_server: RunningServer, receiver: Receiver,
                                          tmp_path: pathlib.Path):
    server = loopback_server
    server.kosli("create", "environment", "prod", "--type", "server")
    answer = requests.put(f"{server.http_url}/api/v2/actions/acme/environments", headers=bearer(),
                          json={"name": "watch", "environments": ["prod"],
                                "triggers": ["ON_STARTED_ARTIFACT", "ON_EXITED_ARTIFACT"],
                                "targets": [{"type": "WEBHOOK", "webhook": receiver.url}]},
                          timeout=10)
    assert answer.status_code == 201, answer.text
    app = tmp_path / "app.bin"
    app.write_bytes(b"release 1")
    server.kosli("snapshot", "server", "prod", "--paths", str(app))
    _wait_for(receiver, 1)
    [started] = [parse(body) for _, body in receiver.received]
    assert (started.event_type, started.environment, started.org) == (
        "ARTIFACT_STARTED", "prod", "acme")
    assert started.snapshot.index == 1 and started.artifact.provenance is None
    deadline = time.monotonic() + 20  # the outcome is recorded after the send
    while True:
        shown = requests.get(f"{server.http_url}/api/v2/actions/acme/1", headers=bearer(),
                             timeout=10).json()
        if "last_success_timestamp" in shown or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert shown["is_failing"] is False and shown["last_success_timestamp"] > 0


def test_grpc_callers_manage_actions_with_the_same_rules(server: RunningServer):
    server.kosli("create", "environment", "prod", "--type", "server")
    target = struct_pb2.Struct()
    target.update({"type": "WEBHOOK", "webhook": "http://93.184.216.34/hook"})
    with grpc.insecure_channel(server.grpc_target) as channel:
        stub = pb_grpc.ActionServiceStub(channel)
        action = pb.ActionInput(name="watch", environments=["prod"],
                                triggers=["ON_STARTED_ARTIFACT"], targets=[target])
        made = stub.PutEnvironmentAction(pb.PutEnvironmentActionRequest(org="acme", action=action),
                                         metadata=(("authorization", f"Bearer {ALICE_KEY}"),))
        assert made.created and made.action.number == 1
        listed = stub.ListActions(pb.ListActionsRequest(org="acme"),
                                  metadata=(("authorization", f"Bearer {ROLE_KEYS['reader']}"),))
        assert [a.name for a in listed.actions] == ["watch"]
        with pytest.raises(grpc.RpcError) as denied:
            stub.DeleteAction(pb.DeleteActionRequest(org="acme", action_number=1),
                              metadata=(("authorization", f"Bearer {ROLE_KEYS['member']}"),))
        assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
        internal = struct_pb2.Struct()
        internal.update({"type": "WEBHOOK", "webhook": "http://169.254.169.254/latest"})
        with pytest.raises(grpc.RpcError) as refused:
            stub.PutEnvironmentAction(pb.PutEnvironmentActionRequest(org="acme", action=pb.ActionInput(
                name="metadata", environments=["prod"], triggers=["ON_STARTED_ARTIFACT"],
                targets=[internal])), metadata=(("authorization", f"Bearer {ALICE_KEY}"),))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_a_worker_killed_with_sigkill_loses_nothing(client, db: str, receiver: Receiver):
    """Notifications wait in the outbox while no worker runs; a worker killed with -9 leaves
    its claims to expire (here: made to expire), and the next worker delivers every one."""
    outbound.configure(outbound.Policy(allow_loopback=True))
    try:
        create_env(client)
        assert env_action(client, targets=[{"type": "WEBHOOK", "webhook": receiver.url}]
                          ).status_code == 201
    finally:
        outbound.configure(outbound.Policy())
    for n in range(40):
        report(client, "prod", f"{n:064x}")
    _close_shared_database()  # the workers below are other processes
    env = {**os.environ, "EVIDENCE_DATABASE_URL": db, "EVIDENCE_OUTBOUND_ALLOW_LOOPBACK": "1"}
    cli = [sys.executable, "-m", "evidence_grpc.cli", "deliver"]
    worker = subprocess.Popen(cli, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for(receiver, 1)
    worker.send_signal(signal.SIGKILL)
    worker.wait(10)
    OutboxMessage.update(claimed_until=0).where(  # what the end of the lease does
        OutboxMessage.delivered_at.is_null()).execute()
    successor = subprocess.Popen(cli, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
    undelivered = OutboxMessage.select().where(OutboxMessage.delivered_at.is_null())
    try:
        _wait_for(receiver, 40)
        deadline = time.monotonic() + 20  # the batch's outcomes are recorded after its sends
        while undelivered.count() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        successor.terminate()
        successor.wait(10)
    assert {body["artifact"]["fingerprint"] for _, body in receiver.received} == {
        f"{n:064x}" for n in range(40)}
    assert undelivered.count() == 0
