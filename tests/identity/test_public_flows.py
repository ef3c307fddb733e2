"""Reads without credentials (SPEC.md authentication rule 5): a public flow's evidence answers
anyone; a private or unknown flow, any other read and every write answer 401 as a call without
credentials does, so no name is confirmed."""

from __future__ import annotations

import hashlib
import json

import grpc
import pytest

from evidence_grpc.api.v2 import flow_service_pb2, flow_service_pb2_grpc
from tests.conftest import RunningServer, bearer
from tests.helpers import attest, begin_trail, report_artifact

H = bearer()
FP = hashlib.sha256(b"open build").hexdigest()
COMMIT = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"


def flow_paths(flow: str) -> list[str]:
    """Every read of one flow's evidence that answers without credentials."""
    return [f"/api/v2/flows/acme/{flow}", f"/api/v2/trails/acme/{flow}",
            f"/api/v2/artifacts/acme/{flow}",
            f"/api/v2/trails/acme/{flow}/t1",
            f"/api/v2/artifacts/acme/{flow}/fingerprint/{FP}",
            f"/api/v2/artifacts/acme/{flow}/commit_sha/{COMMIT}",
            f"/api/v2/attestations/acme/{flow}/trail/t1/scan",
            f"/api/v2/attestations/acme/{flow}/artifact/{FP}/scan",
            f"/api/v2/attestations/acme/{flow}"]


@pytest.fixture
def flows(client):
    for name, visibility in (("open", "public"), ("closed", "private")):
        made = client.put("/api/v2/flows/acme", headers=H, json={
            "name": name, "description": "", "visibility": visibility})
        assert made.status_code == 201, made.json
        begin_trail(client, name, "t1")
        assert report_artifact(client, FP, "app.bin", flow=name, trail="t1",
                               template_name="app", commit=COMMIT).status_code == 201
        assert attest(client, "generic", {"attestation_name": "scan", "is_compliant": True,
                                          "artifact_fingerprint": FP},
                      flow=name, trail="t1").status_code == 201
    return client


def test_a_public_flows_evidence_answers_without_credentials(flows):
    for path in flow_paths("open"):
        anonymous = flows.get(path)
        assert anonymous.status_code == 200, (path, anonymous.json)
        assert anonymous.json == flows.get(path, headers=H).json, path


def test_a_flows_artifacts_list_the_same_by_path_as_by_query(flows):
    by_path = flows.get("/api/v2/artifacts/acme/open?per_page=5", headers=H)
    assert by_path.status_code == 200
    assert by_path.json == flows.get("/api/v2/artifacts/acme?flow_name=open&per_page=5",
                                     headers=H).json
    assert [a["fingerprint"] for a in by_path.json] == [FP]


def test_private_and_unknown_flows_answer_as_any_call_without_credentials(flows):
    for flow in ("closed", "no-such-flow"):
        for path in flow_paths(flow):
            refused = flows.get(path)
            assert refused.status_code == 401, (path, refused.json)
            assert refused.json["message"].startswith("Authentication required")
    assert flows.get("/api/v2/flows/nobody/open").status_code == 401  # an unknown organization
    for path in flow_paths("closed"):  # a key still reads them
        assert flows.get(path, headers=H).status_code == 200, path


def test_a_private_trail_kept_for_a_key_is_not_answered_without_one(flows):
    """A trail's answer is kept by the row that finds it (servicers.trails): whoever reads it
    next is still judged by that row's flow."""
    read = flows.get("/api/v2/trails/acme/closed/t1", headers=H)
    assert read.status_code == 200 and flows.get("/api/v2/trails/acme/closed/t1",
                                                 headers=H).json == read.json  # now kept
    refused = flows.get("/api/v2/trails/acme/closed/t1")
    assert refused.status_code == 401, refused.json


def test_other_reads_and_every_write_need_credentials(flows):
    for path in ("/api/v2/flows/acme", "/api/v2/environments/acme", "/api/v2/trails/acme",
                 "/api/v2/attestations/acme", "/api/v2/artifacts/acme?flow_name=open",
                 f"/api/v2/search/acme/sha/{FP[:8]}"):
        assert flows.get(path).status_code == 401, path
    assert flows.put("/api/v2/flows/acme", json={"name": "open", "description": "x",
                                                 "visibility": "public"}).status_code == 401
    begun = flows.put("/api/v2/trails/acme/open", content_type="multipart/form-data",
                      data={"data_json": json.dumps({"name": "t2"})})
    assert begun.status_code == 401
    assert flows.get("/api/v2/trails/acme/open/t2", headers=H).status_code == 404


def test_grpc_callers_without_credentials_read_public_flows_only(server: RunningServer):
    with grpc.insecure_channel(server.grpc_target) as channel:
        stub = flow_service_pb2_grpc.FlowServiceStub(channel)
        made = server.kosli("create", "flow", "open-grpc", "--use-empty-template",
                            "--visibility", "public", check=False)
        assert made.returncode == 0, made.stderr
        server.kosli("create", "flow", "closed-grpc", "--use-empty-template")
        assert stub.GetFlow(flow_service_pb2.GetFlowRequest(org="acme", flow_name="open-grpc"),
                            timeout=10).name == "open-grpc"
        with pytest.raises(grpc.RpcError) as refused:
            stub.GetFlow(flow_service_pb2.GetFlowRequest(org="acme", flow_name="closed-grpc"),
                         timeout=10)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
