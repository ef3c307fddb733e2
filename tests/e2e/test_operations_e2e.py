"""A real `evidence-server serve` as an operator sees it (issue 13): /metrics adds up every
process (gunicorn workers, gRPC server processes, the delivery worker), the logs are JSON lines
with request ids (tests/e2e/test_grpc.py follows one from a shim into a separate gRPC server),
and the API's description is served. The server asks witnesses to cosign its log (issue 46):
two `evidence-server witness` processes and one witness that is down."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from evidence_grpc.api.v2 import flow_service_pb2 as flow_pb
from evidence_grpc.api.v2 import flow_service_pb2_grpc as flow_grpc
from evidence_grpc.domain.transparency import log
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import LogHead
from tests.c2sp import c2sp
from tests.conftest import (
    ALICE_KEY,
    ENGINES,
    RunningServer,
    _close_shared_database,
    bearer,
    free_port,
    fresh_database,
    start_server,
    stop_server,
)

pytestmark = pytest.mark.e2e


def _metric(text: str, name: str, **labels: str) -> float:
    return sum(s.value for family in text_string_to_metric_families(text) for s in family.samples
               if s.name == name and labels.items() <= s.labels.items())


def _log_lines(tmp_path: pathlib.Path) -> list[dict]:
    lines = []
    for raw in (tmp_path / "server.log").read_text().splitlines():
        if raw.startswith("{"):
            lines.append(json.loads(raw))
    return lines


@dataclass
class Witnessed:
    server: RunningServer
    directory: pathlib.Path
    log_key: c2sp.Key
    witnesses: list[c2sp.Key]  # the two running, then the one down


def _witness(directory: pathlib.Path, key: c2sp.Key, log_vkey: str) -> tuple[subprocess.Popen, str]:
    """An `evidence-server witness` process of this key following the log, started (it answers
    once it has said where it listens: `_listening`), and its URL."""
    key_file = directory / f"{key.name}.key"
    key_file.write_text(key.skey + "\n")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "evidence_grpc.cli", "witness", "--name", key.name, "--key-file",
         str(key_file), "--state", str(directory / f"{key.name}.json"), "--listen",
         f"127.0.0.1:{port}", "--log", log_vkey], stderr=subprocess.PIPE, text=True,
        env={**os.environ, "EVIDENCE_LOG_FORMAT": "json"})
    return process, f"http://127.0.0.1:{port}"


def _listening(process: subprocess.Popen, name: str) -> None:
    assert process.stderr is not None
    for line in process.stderr:
        if json.loads(line)["message"].startswith(f"witness {name} on http://"):
            return
    raise AssertionError(f"the witness {name} did not start")


@pytest.fixture(scope="module", params=ENGINES)
def witnessed(request: pytest.FixtureRequest,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[Witnessed]:
    """A real server on a fresh database of each engine, with two witnesses of ours running
    and a third down (quorum 2), shared by the module's tests. The witnesses start while the
    server does (it asks again one that does not answer yet, a second later)."""
    tmp = tmp_path_factory.mktemp(f"server-{request.param}")
    key_file = tmp / "log.key"
    signer = log.prepare_signer(str(key_file), "evidence.test", has_log=False, default=False)
    keys = [c2sp.new_key(name, c2sp.WITNESS_KEY) for name in ("w1.test", "w2.test", "w3.test")]
    processes, options = [], []
    try:
        for key in keys[:2]:
            process, url = _witness(tmp, key, signer.vkey)
            processes.append(process)
            options += ["--witness", f"{key.public_only().vkey}={url}"]
        options += ["--witness", f"{keys[2].public_only().vkey}=http://127.0.0.1:{free_port()}/",
                    "--witness-quorum", "2"]
        with fresh_database(request.param, tmp, request) as url:
            running = start_server(url, tmp, "--public-url", "http://evidence.test",
                                   "--log-key-file", str(key_file), *options,
                                   bootstrap_with=None)
            try:
                for process, key in zip(processes, keys, strict=False):
                    _listening(process, key.name)
                yield Witnessed(running, tmp, c2sp.read_vkey(signer.vkey),
                                [key.public_only() for key in keys])
            finally:
                stop_server(running)
    finally:
        for process in processes:
            process.terminate()
            process.wait(10)


def test_metrics_logs_and_api_description_of_a_real_server(witnessed: Witnessed):
    server, tmp_path = witnessed.server, witnessed.directory
    for i in range(6):  # over a new connection each: both gunicorn workers answer some
        assert requests.get(f"{server.http_url}/api/v2/flows/acme", headers={
            **bearer(), "x-request-id": f"rest-{i}"}, timeout=10).status_code == 200
    for i in range(4):
        with grpc.insecure_channel(server.grpc_target,
                                   options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            flow_grpc.FlowServiceStub(channel).ListFlows(
                flow_pb.ListFlowsRequest(org="acme"), timeout=10,
                metadata=(("authorization", f"Bearer {ALICE_KEY}"), ("x-request-id", f"grpc-{i}")))

    scraped = requests.get(f"{server.http_url}/metrics", timeout=10)
    assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain")
    text = scraped.text
    assert _metric(text, "evidence_http_requests_total", route="/api/v2/flows/<org>",
                   status="200") == 6
    assert _metric(text, "evidence_grpc_requests_total", transport="network", code="OK",
                   method="/evidence.v2.FlowService/ListFlows") == 4
    # the shim answers the unpaged list from the stream
    assert _metric(text, "evidence_grpc_requests_total", transport="in-process",
                   method="/evidence.v2.FlowService/StreamFlows") == 6
    assert _metric(text, "evidence_http_request_duration_seconds_count",
                   route="/api/v2/flows/<org>") == 6
    # The delivery worker counts the outbox (every few seconds, from its start).
    assert "evidence_outbox_messages" in text

    lines = _log_lines(tmp_path)
    for i in range(6):
        mine = [line for line in lines if line.get("request_id") == f"rest-{i}"]
        # the servicer's line of the in-process call, then the shim's of the request
        assert [(line["message"], line.get("status"), line.get("transport")) for line in mine] \
            == [("rpc", None, "in-process"), ("request", 200, None)], mine
    assert {line["request_id"] for line in lines if line.get("transport") == "network"} == \
        {f"grpc-{i}" for i in range(4)}
    assert ALICE_KEY not in (tmp_path / "server.log").read_text()

    spec = requests.get(f"{server.http_url}/api/v2/openapi.json", timeout=10).json()
    assert spec["openapi"] == "3.1.0" and "/api/v2/flows/{org}" in spec["paths"]
    page = requests.get(f"{server.http_url}/api/v2/docs", timeout=10)
    assert page.status_code == 200 and "FlowService_ListFlows" in page.text


def test_an_operator_chosen_metrics_dir_is_emptied_at_start_and_kept(database_url: str,
                                                                    tmp_path: pathlib.Path,
                                                                    monkeypatch):
    chosen = tmp_path / "metrics"
    chosen.mkdir()
    (chosen / "counter_999999.db").write_bytes(b"left by a server that ran before")
    monkeypatch.setenv("EVIDENCE_METRICS_DIR", str(chosen))
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    running = start_server(database_url, tmp_path, bootstrap_with=None)
    try:
        assert not (chosen / "counter_999999.db").exists()
        requests.get(f"{running.http_url}/api/v2/flows/acme", headers=bearer(), timeout=10)
        text = requests.get(f"{running.http_url}/metrics", timeout=10).text
        assert _metric(text, "evidence_http_requests_total", status="200") >= 1
    finally:
        stop_server(running)
    assert chosen.is_dir() and os.listdir(chosen)  # kept for the operator


def _until(what, seconds: float = 30):
    """The first truthy answer of `what()`, asked until `seconds` pass (the server asks the
    witnesses in the background, about once a second)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError("not in time")


def test_two_witnesses_cosign_a_real_servers_log_and_refuse_it_rewritten(witnessed: Witnessed):
    server, [w1, w2, w3] = witnessed.server, witnessed.witnesses
    base = f"{server.http_url}/api/v2/transparency/acme"
    server.kosli("create", "environment", "witnessed-1", "--type", "server")

    def cosigned_by_both() -> str | None:
        note = requests.get(f"{base}/checkpoint", headers=bearer(), timeout=10).text
        return note if len(c2sp.parse_note(note)[1]) == 3 else None

    note = _until(cosigned_by_both)
    text = c2sp.verify_note(note, witnessed.log_key)
    assert c2sp.cosigners(note, [w1, w2, w3]) == ["w1.test", "w2.test"]
    size = c2sp.read_checkpoint(text)[1]
    assert text.startswith("evidence.test/acme\n") and size > 0
    # /metrics says it as of the last round (about a second ago)
    def scraped() -> str:
        return requests.get(f"{server.http_url}/metrics", timeout=10).text

    _until(lambda: _metric(scraped(), "evidence_witness_cosigned_size", org="acme",
                           witness="w1.test") == size)
    metrics = scraped()
    assert _metric(metrics, "evidence_witness_failures", org="acme", witness="w3.test") >= 1
    assert _metric(metrics, "evidence_witness_refusals", org="acme", witness="w2.test") == 0

    # the log rewritten in the database, and signed by the server: both witnesses refuse it
    storage.init_database(server.database_url)
    try:
        with storage.database.connection_context():
            head = LogHead.get()
            LogHead.update(frontier=[os.urandom(32).hex(), *head.frontier[1:]]).execute()
    finally:
        _close_shared_database()
    server.kosli("create", "environment", "witnessed-2", "--type", "server")
    # the server signs no tree that does not extend its kept checkpoint: nothing is submitted
    _until(lambda: any(" is not submitted to witness " in line["message"]
                       for line in _log_lines(witnessed.directory)))
    # an operator who also removes the kept checkpoints gets it signed: both witnesses refuse it
    os.remove(witnessed.directory / "log.key.checkpoints")
    server.kosli("create", "environment", "witnessed-3", "--type", "server")
    _until(lambda: _metric(scraped(), "evidence_witness_refusals", org="acme") >= 2)
    lines = _log_lines(witnessed.directory)
    assert {line["message"].split(" refuses")[0] for line in lines
            if line["level"] == "error" and " refuses the log of acme" in line["message"]} == {
        "witness w1.test", "witness w2.test"}
    # what both cosigned is still what is served
    assert requests.get(f"{base}/checkpoint", headers=bearer(), timeout=10).text == note
    page = requests.get(f"{server.http_url}/acme", headers=bearer(), timeout=10).text
    assert page.count("refused the log") == 2 and "not reached" in page
