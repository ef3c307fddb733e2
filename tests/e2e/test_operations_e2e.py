"""A real `evidence-server serve` as an operator sees it (issue 13): /metrics adds up every
process (gunicorn workers, gRPC server processes, the delivery worker), the logs are JSON lines
with request ids (tests/e2e/test_grpc.py follows one from a shim into a separate gRPC server),
and the API's description is served."""

from __future__ import annotations

import json
import os
import pathlib

import grpc
import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from evidence_grpc.api.v2 import flow_service_pb2 as flow_pb
from evidence_grpc.api.v2 import flow_service_pb2_grpc as flow_grpc
from tests.conftest import ALICE_KEY, RunningServer, bearer, start_server, stop_server

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


def test_metrics_logs_and_api_description_of_a_real_server(server: RunningServer,
                                                          tmp_path: pathlib.Path):
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
    assert _metric(text, "evidence_grpc_requests_total", transport="in-process",
                   method="/evidence.v2.FlowService/ListFlows") == 6
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
