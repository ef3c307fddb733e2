"""Approvals and runtime events on a real server: the approval is posted over HTTP (the CLI has
no approval commands any more) and over gRPC, the artifact starts and stops running through
`kosli snapshot server`, and `kosli get trail` shows all three in its table and its JSON."""

from __future__ import annotations

import hashlib
import pathlib

import grpc
import pytest
import requests

from evidence_grpc.api.v2 import approval_service_pb2 as pb
from evidence_grpc.api.v2 import approval_service_pb2_grpc as pb_grpc
from tests.conftest import ALICE_KEY, BOB_KEY, RunningServer, bearer
from tests.e2e.cli import Repo, attest_backend, unique, write
from tests.helpers import TEMPLATE

pytestmark = pytest.mark.e2e


@pytest.fixture
def backend(live: RunningServer, tmp_path: pathlib.Path) -> tuple[str, str, pathlib.Path]:
    """(flow, fingerprint, artifact file): a flow whose trail release-1 attested `backend`."""
    flow = unique("approvals")
    template = write(tmp_path / "template.yml", TEMPLATE)
    live.kosli("create", "flow", flow, "--template-file", str(template))
    live.kosli("begin", "trail", "release-1", "--flow", flow)
    fingerprint, _ = attest_backend(live, flow, Repo(tmp_path / "repo"), tmp_path)
    return flow, fingerprint, tmp_path / "dist" / "backend.tar"


def test_get_trail_shows_the_approval_and_the_runs(live: RunningServer, backend,
                                                   tmp_path: pathlib.Path):
    flow, fingerprint, artifact = backend
    env = unique("prod")
    live.kosli("create", "environment", env, "--type", "server")
    answer = requests.post(f"{live.http_url}/api/v2/approvals/acme/{flow}", headers=bearer(),
                           json={"artifact_fingerprint": fingerprint, "description": "ok",
                                 "src_commit_list": [], "environment": env,
                                 "approvals": [{"state": "APPROVED", "comment": "ok",
                                                "approved_by": "carol",
                                                "approval_url": "undefined"}]}, timeout=10)
    assert answer.status_code == 201 and isinstance(answer.json(), str)
    live.kosli("snapshot", "server", env, "--paths", str(artifact))
    other = write(tmp_path / "other.bin", b"something else")
    live.kosli("snapshot", "server", env, "--paths", str(other))

    table = live.kosli("get", "trail", "release-1", "--flow", flow).stdout
    assert "approval #1 created by 'external://carol'" in table
    assert f"artifact 'backend' started running in '{env}'" in table
    assert f"artifact 'backend' stopped running in '{env}'" in table
    assert "%!" not in table and "<nil>" not in table

    events = live.kosli_json("get", "trail", "release-1", "--flow", flow)["events"]
    shown = [(e["type"], e.get("snapshot_index"), e.get("environment_name"))
             for e in events if e["type"].startswith("artifact_") and "attestation" not in e["type"]]
    assert shown == [("artifact_creation_reported", None, None),
                     ("artifact_approval_reported", None, None),
                     ("artifact_started_running", 1, env),
                     ("artifact_stopped_running", 2, env)]
    commit = requests.get(f"{live.http_url}/api/v2/approvals/acme/{flow}/artifact-commit/{env}",
                          headers=bearer(), timeout=10).json()
    assert commit == {"commit_sha": None}  # the backend no longer runs there


def test_approvals_over_grpc(live: RunningServer, backend):
    flow, fingerprint, _ = backend
    with grpc.insecure_channel(live.grpc_target) as channel:
        stub = pb_grpc.ApprovalServiceStub(channel)
        alice = [("authorization", f"Bearer {ALICE_KEY}")]
        request = pb.CreateApprovalRequest(org="acme", flow_name=flow,
                                           artifact_fingerprint=fingerprint, description="")
        created = stub.CreateApproval(request, metadata=alice, timeout=10)
        assert created.release_number == 1
        [listed] = stub.ListArtifactApprovals(pb.ListArtifactApprovalsRequest(
            org="acme", flow_name=flow, fingerprint=fingerprint), metadata=alice,
            timeout=10).approvals
        assert (listed.release_number, listed.state) == (1, "PENDING")
        got = stub.GetApproval(pb.GetApprovalRequest(org="acme", flow_name=flow,
                                                     approval_number=-1), metadata=alice,
                               timeout=10)
        assert got.base_artifact == fingerprint

        refusals = [
            (pb.CreateApprovalRequest(org="acme", flow_name=flow, description="",
                                      artifact_fingerprint=fingerprint.upper()), alice,
             grpc.StatusCode.INVALID_ARGUMENT),
            (pb.CreateApprovalRequest(org="acme", flow_name=flow, description="",
                                      artifact_fingerprint=hashlib.sha256(b"x").hexdigest()),
             alice, grpc.StatusCode.NOT_FOUND),
            (request, [("authorization", f"Bearer {BOB_KEY}")], grpc.StatusCode.PERMISSION_DENIED),
            (request, [], grpc.StatusCode.UNAUTHENTICATED),
        ]
        for refused, metadata, code in refusals:
            with pytest.raises(grpc.RpcError) as error:
                stub.CreateApproval(refused, metadata=metadata, timeout=10)
            assert error.value.code() is code
    assert [a["release_number"] for a in requests.get(
        f"{live.http_url}/api/v2/approvals/acme/{flow}", headers=bearer(), timeout=10).json()] == [1]
