"""What an operator gets (issue 13): the OpenAPI document and its reference page, /metrics,
request ids and JSON logs, through the REST shim and a network gRPC server."""

from __future__ import annotations

import datetime
import json
import logging
import os
import subprocess
import sys

import grpc
import pytest
from openapi_spec_validator.validation import OpenAPIV31SpecValidator
from prometheus_client.parser import text_string_to_metric_families

from evidence_grpc import observability
from evidence_grpc.api.v2 import flow_service_pb2 as flow_pb
from evidence_grpc.api.v2 import flow_service_pb2_grpc as flow_grpc
from evidence_grpc.services import service_descriptors
from rest_shim.openapi import DOCUMENT_PATH, document
from rest_shim.transcoder import routes_of
from tests.conftest import ALICE_KEY, bearer, grpc_channel


def _samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    return {tuple(sorted(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples
            if s.name == name}


def test_the_openapi_document_lists_every_route_and_is_valid_openapi_3_1(client):
    answer = client.get("/api/v2/openapi.json")  # no key: the contract is public
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    spec = answer.json
    assert spec["openapi"] == "3.1.0"
    assert not list(OpenAPIV31SpecValidator(spec).iter_errors())
    listed = {(verb.upper(), path) for path, verbs in spec["paths"].items() for verb in verbs}
    routes = routes_of(service_descriptors())
    assert len(listed) == len(routes) > 100
    for route in routes:
        rule = route.rule.replace("<path:", "{").replace("<", "{").replace(">", "}")
        assert (route.http_method, rule) in listed


def test_the_served_document_is_the_one_the_protos_make(client):
    """Generated at build time (scripts/gen_protos.py), so it must match the protos as they are."""
    made = document(service_descriptors(), json.loads(DOCUMENT_PATH.read_text())["info"]["version"])
    assert json.loads(DOCUMENT_PATH.read_text()) == json.loads(json.dumps(made))


def test_the_document_describes_answers_as_the_codec_renders_them(client):
    spec = client.get("/api/v2/openapi.json").json
    schemas = spec["components"]["schemas"]
    attestation = schemas["evidence.v2.Attestation"]
    # Inline kinds add their keys beside the common ones, none of them required.
    assert {"junit_results", "jira_results", "processed_snyk_results", "type_name"} <= \
        set(attestation["properties"])
    assert "junit_results" not in attestation["required"] and "_links" in attestation["required"]
    trail = spec["paths"]["/api/v2/trails/{org}/{flow_name}/{trail_name}"]["get"]
    assert trail["responses"]["200"]["content"]["application/json"]["schema"] == \
        {"$ref": "#/components/schemas/evidence.v2.Trail"}
    assert trail["x-privilege"] == "PRIVILEGE_READER"
    listed = spec["paths"]["/api/v2/attestations/{org}/{flow_name}/trail/{trail_name}/{attestation_name}"]
    assert listed["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "type": "array", "items": {"$ref": "#/components/schemas/evidence.v2.Attestation"}}
    created = spec["paths"]["/api/v2/attestations/{org}/{flow_name}/trail/{trail_name}/{kind}"]
    assert "multipart/form-data" in created["post"]["requestBody"]["content"]
    assert "201" in created["post"]["responses"]


def test_the_reference_page_renders_every_operation_escaped(client):
    page = client.get("/api/v2/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    assert "<script" not in text
    for route in routes_of(service_descriptors()):
        assert f'id="{route.method.containing_service.name}_{route.method.name}"' in text
    assert "&lt;" in text or "`kind`" in text  # comments are escaped, never markup


def test_metrics_count_requests_by_route_and_status(client):
    client.get("/api/v2/flows/acme", headers=bearer())
    client.get("/api/v2/flows/acme")  # no key: 401
    client.get("/api/v2/no/such/route/at/all")
    client.open("/api/v2/flows/acme", method="BREW-1234", headers=bearer())
    text = client.get("/metrics").get_data(as_text=True)
    counts = _samples(text, "evidence_http_requests_total")
    flows = (("method", "GET"), ("route", "/api/v2/flows/<org>"))
    assert counts[(*flows[:1], *flows[1:], ("status", "200"))] >= 1
    assert counts[(*flows, ("status", "401"))] >= 1
    assert counts[(("method", "GET"), ("route", "unmatched"), ("status", "404"))] >= 1
    assert not any("no/such" in dict(labels)["route"] for labels in counts)  # bounded labels
    assert counts[(("method", "OTHER"), ("route", "unmatched"), ("status", "405"))] >= 1
    assert not any("BREW" in dict(labels)["method"] for labels in counts)
    latency = _samples(text, "evidence_http_request_duration_seconds_count")
    assert latency[flows] >= 2
    # The shim's calls into the servicers are counted as in-process gRPC calls.
    calls = _samples(text, "evidence_grpc_requests_total")
    assert calls[(("code", "OK"), ("method", "/evidence.v2.FlowService/ListFlows"),
                  ("transport", "in-process"))] >= 1


@pytest.mark.parametrize("sent, kept", [("build-42.a:b/c", True), ("has space", False),
                                        ("x" * 129, False), ("", False), ("<script>", False)])
def test_a_request_id_is_answered_back_or_made(client, sent: str, kept: bool):
    answer = client.get("/api/v2/flows/acme", headers={**bearer(), "x-request-id": sent})
    made = answer.headers["x-request-id"]
    if kept:
        assert made == sent
    else:
        assert made != sent and len(made) == 32 and int(made, 16) >= 0


def test_request_logs_are_json_with_the_request_id_and_no_secrets(client, caplog):
    formatter = observability.JsonFormatter()
    # a page of flows (the unary ListFlows), and the whole list (streamed: StreamFlows)
    for path, rpc in (("/api/v2/flows/acme?page=1&per_page=10", "ListFlows"),
                      ("/api/v2/flows/acme", "StreamFlows")):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="evidence.access"):
            answer = client.get(path, headers={**bearer(), "x-request-id": "trace-1"})
            length = len(answer.get_data())
        # the servicer's line of the shim's in-process call, then the shim's line of the request
        call, request = [json.loads(formatter.format(r)) for r in caplog.records]
        assert request["request_id"] == "trace-1" and request["message"] == "request"
        assert (request["method"], request["route"], request["status"]) == \
            ("GET", "/api/v2/flows/<org>", 200)
        assert isinstance(request["duration_ms"], float) and request["bytes"] == length > 0
        assert (call["request_id"], call["message"], call["rpc"], call["transport"],
                call["code"]) == ("trace-1", "rpc", f"/evidence.v2.FlowService/{rpc}",
                                  "in-process", "OK")
        for line in (call, request):
            assert ALICE_KEY not in json.dumps(line) and "Bearer" not in json.dumps(line)


def test_a_log_lines_time_is_its_records_to_the_millisecond_in_utc():
    formatter = observability.JsonFormatter()
    for created in (0.0, 1_764_633_599.9994, 1_764_633_600.25, 1_764_633_600.999):
        record = logging.makeLogRecord({"msg": "m", "created": created,
                                        "msecs": (created - int(created)) * 1000})
        expected = datetime.datetime.fromtimestamp(int(created), datetime.UTC).strftime(
            "%Y-%m-%dT%H:%M:%S") + f".{int((created - int(created)) * 1000):03d}Z"
        assert json.loads(formatter.format(record))["time"] == expected


def test_a_servicer_logs_with_the_request_id_of_the_shims_request(client, caplog, monkeypatch):
    """In-process, the servicer runs under the shim's request id: what it logs carries it."""
    from evidence_grpc.servicers import flows

    def failing(*_: object, **__: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(flows.flows, "list_flows", failing)
    formatter = observability.JsonFormatter()
    with caplog.at_level(logging.INFO):
        answer = client.get("/api/v2/flows/acme?page=1&per_page=10",
                            headers={**bearer(), "x-request-id": "trace-2"})
    assert answer.status_code == 500
    lines = [json.loads(formatter.format(r)) for r in caplog.records]
    failure = next(line for line in lines if line["level"] == "error")
    assert failure["request_id"] == "trace-2" and "boom" in failure["error"]
    assert next(line for line in lines if line["message"] == "rpc")["code"] == "INTERNAL"
    assert next(line for line in lines if line["message"] == "request")["request_id"] == "trace-2"


def test_network_grpc_calls_carry_request_ids_and_are_counted(db):
    with grpc_channel(db) as channel:
        stub = flow_grpc.FlowServiceStub(channel)
        _, call = stub.ListFlows.with_call(
            flow_pb.ListFlowsRequest(org="acme"), timeout=10,
            metadata=(("authorization", f"Bearer {ALICE_KEY}"), ("x-request-id", "grpc-7")))
        assert ("x-request-id", "grpc-7") in call.trailing_metadata()
        with pytest.raises(grpc.RpcError) as refused:
            stub.ListFlows(flow_pb.ListFlowsRequest(org="acme"), timeout=10)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        made = dict(refused.value.trailing_metadata())["x-request-id"]
        assert len(made) == 32
    body, _ = observability.exposition()
    counts = _samples(body.decode(), "evidence_grpc_requests_total")
    method = ("method", "/evidence.v2.FlowService/ListFlows")
    assert counts[(("code", "OK"), method, ("transport", "network"))] >= 1
    assert counts[(("code", "UNAUTHENTICATED"), method, ("transport", "network"))] >= 1


def test_api_routes_and_pages_share_one_routing_table(client):
    """API routes are served without Flask's request context; what Flask answered for them
    before (OPTIONS, HEAD, a page's route label) is still answered the same way."""
    options = client.options("/api/v2/flows/acme")
    assert options.status_code == 200 and options.data == b""
    assert set(options.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS", "PUT"}
    paged = "/api/v2/flows/acme?page=1&per_page=10"  # answered whole (unpaged, streamed)
    head = client.head(paged, headers=bearer())
    assert head.status_code == 200 and head.data == b""
    assert int(head.headers["Content-Length"]) == len(client.get(paged, headers=bearer()).data)
    assert client.head("/api/v2/flows/acme", headers=bearer()).data == b""
    assert client.get("/sign-in").status_code == 200  # a page, served by Flask
    client.get("/metrics")  # a scrape is counted once it is answered: the next one shows it
    counts = _samples(client.get("/metrics").get_data(as_text=True),
                      "evidence_http_requests_total")
    routes = {dict(labels)["route"] for labels in counts}
    assert {"/api/v2/flows/<org>", "/sign-in", "/metrics"} <= routes


def test_a_failure_outside_the_servicers_is_a_logged_json_500(settings, caplog):
    """Even a fault in the shim itself (here: its backend) answers the contract's error body."""
    from rest_shim.app import create_app

    class Broken:
        def call(self, *_: object, **__: object) -> None:
            raise RuntimeError("backend fault")

    client = create_app(settings, Broken()).test_client()  # type: ignore[arg-type]
    with caplog.at_level(logging.ERROR):
        answer = client.get("/api/v2/flows/acme", headers=bearer())
    assert answer.status_code == 500 and answer.json == {"message": "Internal server error"}
    assert "backend fault" not in answer.get_data(as_text=True)
    [logged] = [r for r in caplog.records if r.exc_info]
    assert "GET /api/v2/flows/acme" in logged.getMessage()


def test_files_written_on_every_request_are_kept_in_memory(monkeypatch: pytest.MonkeyPatch):
    """The metrics' mmaps (and gunicorn's worker heartbeat, told the same directory) go to
    /dev/shm where there is one: dirty pages of a disk-backed file are written back, and a
    request writing to a page under writeback may wait for the disk."""
    # set (not deleted) first, so that the variable prepare_metrics_dir sets is undone after
    # the test: servers started later by this test process would inherit it
    monkeypatch.setenv(observability.MULTIPROC_ENV, "")
    directory = observability.prepare_metrics_dir(None)
    try:
        memory = observability.memory_dir()
        assert memory is None or os.path.dirname(directory) == memory
        assert os.environ[observability.MULTIPROC_ENV] == directory
    finally:
        observability.remove_metrics_dir(directory)


def test_warnings_and_uncaught_exceptions_are_log_lines_too():
    """What Python itself writes to stderr (a warning, the traceback of an exception nothing
    caught, in a thread or the main one) is a record in the chosen form, one line each."""
    program = ("import threading, warnings\n"
               "from evidence_grpc import observability\n"
               "observability.configure_logging('json')\n"
               "warnings.warn('careful')\n"
               "thread = threading.Thread(target=lambda: 1 / 0)\n"
               "thread.start(); thread.join()\n"
               "raise KeyError('gone')\n")
    ended = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                           timeout=60)
    assert ended.returncode == 1  # an uncaught exception still fails the process
    lines = [json.loads(line) for line in ended.stderr.splitlines()]
    assert [(line["level"], line["logger"], line["message"].split(":")[-1].strip())
            for line in lines] == [("warning", "py.warnings", "careful"),
                                   ("critical", "uncaught", "uncaught ZeroDivisionError"),
                                   ("critical", "uncaught", "uncaught KeyError")]
    assert "KeyError: 'gone'" in lines[-1]["error"]
