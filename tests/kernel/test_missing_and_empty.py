"""One table words every kind of thing that is not there (kernel.errors.NOT_FOUND_WORDINGS),
raised with `missing` as a NotFound whose reason names the resource and whose metadata names
what was looked for; over gRPC a caller reads the same message, reason and names. A question
about something that is there but has nothing to show answers an empty list."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator

import grpc
import pytest

from evidence_grpc.api.v2 import attestation_service_pb2 as att_pb
from evidence_grpc.api.v2 import attestation_service_pb2_grpc as att_grpc
from evidence_grpc.api.v2 import policy_service_pb2 as policy_pb
from evidence_grpc.api.v2 import policy_service_pb2_grpc as policy_grpc
from evidence_grpc.api.v2 import snapshot_service_pb2 as snapshot_pb
from evidence_grpc.api.v2 import snapshot_service_pb2_grpc as snapshot_grpc
from evidence_grpc.domain.kernel.artifact_links import artifact_html_url
from evidence_grpc.domain.kernel.errors import NOT_FOUND_WORDINGS, NotFound, missing
from evidence_grpc.domain.kernel.ids import hosted_id
from tests.conftest import ALICE_KEY, grpc_channel
from tests.helpers import begin_trail, create_flow, details_of

AUTH = (("authorization", f"Bearer {ALICE_KEY}"),)


@pytest.mark.parametrize("kind", sorted(NOT_FOUND_WORDINGS))
def test_every_kind_is_worded_from_the_names_it_was_looked_for_by(kind: str):
    resource, wording = NOT_FOUND_WORDINGS[kind]
    names = {field: f"<{field}>" for _, field, _, _ in string.Formatter().parse(wording) if field}
    error = missing(kind, **names)  # type: ignore[arg-type]
    assert isinstance(error, NotFound)
    assert error.message == wording.format(**names)
    assert all(f"<{field}>" in error.message for field in names)
    assert error.reason == f"{resource.upper()}_NOT_FOUND"
    assert error.metadata == names


def test_the_hosted_wordings():
    assert missing("policy", organization="acme", policy="p").message == \
        "Policy 'p' does not exist in organization 'acme'"
    assert missing("artifact_in_flow", organization="acme", flow="f", fingerprint="ab").message \
        == "Artifact with fingerprint 'ab' does not exist in flow 'f' belonging to organization 'acme'"
    assert missing("repo", repo="acme/x").message == "Repo 'acme/x' not found"


def test_an_id_is_a_random_uuid4_in_the_hosted_shape_and_an_artifacts_names_its_report():
    """As the live answers' ids (`c5d209a3-9139-4f5b-a553-c6351091`): 8-4-4-4-8 hex digits of
    a version 4 UUID, random (no count of anything in them)."""
    made = [hosted_id() for _ in range(200)]
    assert len(set(made)) == 200
    for made_id in made:
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{8}",
                            made_id), made_id
    assert artifact_html_url("https://e.example", "acme", "ci", "f" * 64, made[0]) == (
        f"https://e.example/acme/flows/ci/artifacts/{'f' * 64}?artifact_id={made[0]}")


@pytest.fixture
def channel(db: str) -> Iterator[grpc.Channel]:
    with grpc_channel(db) as opened:
        yield opened


def test_over_grpc_missing_things_carry_the_wording_reason_and_names(client,
                                                                    channel: grpc.Channel):
    with pytest.raises(grpc.RpcError) as policy:
        policy_grpc.PolicyServiceStub(channel).GetPolicy(
            policy_pb.GetPolicyRequest(org="acme", policy_name="nope"), metadata=AUTH, timeout=10)
    assert policy.value.code() is grpc.StatusCode.NOT_FOUND
    assert policy.value.details() == "Policy 'nope' does not exist in organization 'acme'"
    info, _ = details_of(policy.value)
    assert (info.reason, dict(info.metadata)) == (
        "POLICY_NOT_FOUND", {"organization": "acme", "policy": "nope"})

    client.put("/api/v2/environments/acme", headers=dict(AUTH),
               json={"name": "empty", "type": "server", "description": ""})
    with pytest.raises(grpc.RpcError) as diff:
        snapshot_grpc.SnapshotServiceStub(channel).DiffSnapshots(
            snapshot_pb.DiffSnapshotsRequest(org="acme", snappish1="empty", snappish2="empty"),
            metadata=AUTH, timeout=10)
    assert diff.value.code() is grpc.StatusCode.NOT_FOUND
    assert diff.value.details() == ("Org: 'acme'. Snapshot 'empty' resolves to 'empty#0'. "
                                    "len(snapshots) == 0. Indexes are 1-based")
    assert details_of(diff.value)[0].reason == "SNAPSHOT_NOT_FOUND"


def test_over_grpc_attestations_of_a_name_never_reported_are_an_empty_list(
        client, channel: grpc.Channel):
    create_flow(client)
    begin_trail(client)
    stub = att_grpc.AttestationServiceStub(channel)
    none = stub.GetTrailAttestation(att_pb.GetTrailAttestationRequest(
        org="acme", flow_name="payments", trail_name="release-1", attestation_name="never"),
        metadata=AUTH, timeout=10)
    assert list(none.data) == []
    with pytest.raises(grpc.RpcError) as unknown:
        stub.GetTrailAttestation(att_pb.GetTrailAttestationRequest(
            org="acme", flow_name="payments", trail_name="no-such", attestation_name="never"),
            metadata=AUTH, timeout=10)
    assert details_of(unknown.value)[0].reason == "TRAIL_NOT_FOUND"
