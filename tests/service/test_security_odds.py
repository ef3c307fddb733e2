"""Issue 31, item 7: odds and ends of hostile or careless input, on both doors where it applies
and both engines."""

from __future__ import annotations

import io
import json
import time

import grpc
import pytest

from evidence_grpc.api.v2 import approval_service_pb2 as approval_pb
from evidence_grpc.api.v2 import approval_service_pb2_grpc as approval_grpc
from evidence_grpc.api.v2 import common_pb2
from evidence_grpc.api.v2 import policy_service_pb2 as policy_pb
from evidence_grpc.api.v2 import policy_service_pb2_grpc as policy_grpc
from evidence_grpc.api.v2 import service_account_service_pb2 as sa_pb
from evidence_grpc.api.v2 import service_account_service_pb2_grpc as sa_grpc
from evidence_grpc.api.v2 import snapshot_service_pb2 as snapshot_pb
from evidence_grpc.api.v2 import snapshot_service_pb2_grpc as snapshot_grpc
from evidence_grpc.domain.evidence import rules
from evidence_grpc.domain.kernel import limits, sandbox
from evidence_grpc.domain.kernel.errors import ResourceExhausted
from tests.conftest import ALICE_KEY, bearer, grpc_channel
from tests.helpers import BACKEND_FP, attest, begin_trail, create_flow, create_type, custom, report_artifact

AUTH = (("authorization", f"Bearer {ALICE_KEY}"),)
H = bearer()


def _raw(channel: grpc.Channel, path: str, data: bytes) -> grpc.RpcError:
    call = channel.unary_unary(path, request_serializer=lambda b: b,
                               response_deserializer=lambda b: b)
    with pytest.raises(grpc.RpcError) as refused:
        call(data, metadata=AUTH, timeout=10)
    return refused.value


# ---- a. undecodable request bytes -----------------------------------------------------------

@pytest.mark.parametrize("garbage", [b"\xff\xff\xff\xff", b"\x0a\xff\x01abc", b"\x08"])
def test_undecodable_request_bytes_are_invalid_argument(db: str, garbage: bytes):
    with grpc_channel(db) as channel:
        error = _raw(channel, "/evidence.v2.FlowService/ListFlows", garbage)
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
        assert "not a valid evidence.v2.ListFlowsRequest protobuf message" in error.details()
        # the server still answers well-formed calls afterwards
        from evidence_grpc.api.v2 import flow_service_pb2 as pb
        answer = _raw_ok(channel, "/evidence.v2.FlowService/ListFlows",
                         pb.ListFlowsRequest(org="acme").SerializeToString())
        assert answer is not None


def _raw_ok(channel: grpc.Channel, path: str, data: bytes) -> bytes:
    call = channel.unary_unary(path, request_serializer=lambda b: b,
                               response_deserializer=lambda b: b)
    return call(data, metadata=AUTH, timeout=10)


# ---- b. an approval names an environment that does not exist ---------------------------------

def test_an_approval_for_an_unknown_environment_is_404_on_both_doors(client, db: str):
    create_flow(client)
    assert report_artifact(client).status_code == 201
    refused = client.post("/api/v2/approvals/acme/payments", headers=H, json={
        "artifact_fingerprint": BACKEND_FP, "description": "ok", "environment": "nowhere",
        "approvals": []})
    assert refused.status_code == 404, refused.get_json()
    assert refused.get_json()["message"] == (
        "Environment named 'nowhere' does not exist for organization 'acme'")
    with grpc_channel(db) as channel:
        stub = approval_grpc.ApprovalServiceStub(channel)
        with pytest.raises(grpc.RpcError) as error:
            stub.CreateApproval(approval_pb.CreateApprovalRequest(
                org="acme", flow_name="payments", artifact_fingerprint=BACKEND_FP,
                description="", environment="nowhere"), metadata=AUTH, timeout=10)
        assert error.value.code() == grpc.StatusCode.NOT_FOUND
        assert "'nowhere'" in error.value.details()
    assert client.get("/api/v2/approvals/acme/payments", headers=H).get_json() == []


# ---- c. PATCH of a service account: what it would silently ignore ----------------------------

SA = "/api/v2/service-accounts/acme"


def create_account(client) -> None:
    created = client.post(SA, headers=H, json={"name": "ci-bot", "privilege": "member"})
    assert created.status_code == 201, created.get_json()


@pytest.mark.parametrize("body, field", [
    ({"descripton": "typo"}, "descripton"),
    ({"description": "x", "bogus": 1}, "bogus"),
])
def test_patching_a_service_account_refuses_fields_it_would_ignore(client, body, field):
    create_account(client)
    answer = client.patch(f"{SA}/ci-bot", headers=H, json=body)
    assert answer.status_code == 400, answer.get_json()
    assert field in answer.get_json()["errors"]
    got = client.get(f"{SA}/ci-bot", headers=H).get_json()
    assert (got["name"], got["description"]) == ("ci-bot", None)


# ---- d. a policy rule of type `custom:` names no type -----------------------------------------

def _policy(attestation_type: str) -> bytes:
    return (b"_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n"
            b"  attestations:\n    - name: cov\n      type: " + attestation_type.encode() + b"\n")


@pytest.mark.parametrize("kind, status", [("'custom:'", 400), ("'custom: '", 400),
                                          ("custom:coverage", 201)])
def test_a_custom_rule_type_must_name_the_type(client, db: str, kind: str, status: int):
    answer = client.put("/api/v2/policies/acme", headers=H, content_type="multipart/form-data",
                        data={"payload": json.dumps({"name": "p", "type": "env"}),
                              "policy_file": (io.BytesIO(_policy(kind)), "p.yml")})
    assert answer.status_code == status, answer.get_json()
    if status == 400:
        assert "artifacts.attestations.0.type" in answer.get_json()["errors"]
        with grpc_channel(db) as channel:
            with pytest.raises(grpc.RpcError) as error:
                policy_grpc.PolicyServiceStub(channel).UpsertPolicy(policy_pb.UpsertPolicyRequest(
                    org="acme", payload=policy_pb.PolicyPayload(name="p", type="env"),
                    policy_file=common_pb2.UploadedFile(filename="p.yml", content=_policy(kind))),
                    metadata=AUTH, timeout=10)
            assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT


# ---- e. rotating a key that is already being replaced ------------------------------------------

def test_rotating_a_rotated_key_again_is_409_and_keeps_the_first_grace_period(client, db: str):
    create_account(client)
    old = client.post(f"{SA}/ci-bot/api-keys", headers=H, json={"description": "k"}).get_json()
    first = client.post(f"{SA}/ci-bot/api-keys/{old['id']}/rotate", headers=H,
                        json={"grace_period_hours": 48})
    assert first.status_code == 200, first.get_json()
    again = client.post(f"{SA}/ci-bot/api-keys/{old['id']}/rotate", headers=H,
                        json={"grace_period_hours": 1})
    assert again.status_code == 409, again.get_json()
    assert old["id"] in again.get_json()["message"]
    assert old["id"] in again.get_json()["errors"]["key_id"]
    keys = client.get(f"{SA}/ci-bot/api-keys", headers=H).get_json()
    assert sorted(k["id"] for k in keys) == sorted([old["id"], first.get_json()["id"]])
    [kept] = [k for k in keys if k["id"] == old["id"]]
    assert kept["expires_at"] == pytest.approx(first.get_json()["grace_period_expires_at"])
    with grpc_channel(db) as channel:
        with pytest.raises(grpc.RpcError) as error:
            sa_grpc.ServiceAccountServiceStub(channel).RotateApiKey(sa_pb.RotateApiKeyRequest(
                org="acme", name="ci-bot", key_id=old["id"]), metadata=AUTH, timeout=10)
        assert error.value.code() == grpc.StatusCode.ALREADY_EXISTS
    # its successor may be rotated in turn
    successor = first.get_json()["id"]
    assert client.post(f"{SA}/ci-bot/api-keys/{successor}/rotate", headers=H,
                       json={}).status_code == 200


# ---- f. a policy named many times is attached once ---------------------------------------------

def test_policy_names_are_attached_once_in_the_order_given(client):
    for name in ("p1", "p2"):
        assert client.put("/api/v2/policies/acme", headers=H, content_type="multipart/form-data",
                          data={"payload": json.dumps({"name": name, "type": "env"}),
                                "policy_file": (io.BytesIO(_policy("generic")), "p.yml")}
                          ).status_code == 201
    assert client.put("/api/v2/environments/acme", headers=H, json={
        "name": "prod", "type": "server", "description": ""}).status_code == 201
    attached = client.post("/api/v2/environments/acme/prod/policies", headers=H,
                           json={"policy_names": ["p2"] + ["p1"] * (limits.ITEMS.most - 1)})
    assert attached.status_code == 200, attached.get_json()
    got = client.get("/api/v2/environments/acme/prod", headers=H).get_json()
    assert got["policies"] == ["p2", "p1"]
    patched = client.patch("/api/v2/environments/acme/prod", headers=H,
                           json={"policies": ["p1", "p2", "p1", "p2"]})
    assert patched.status_code == 200, patched.get_json()
    assert client.get("/api/v2/environments/acme/prod", headers=H).get_json()[
        "policies"] == ["p1", "p2"]
    put = client.put("/api/v2/environments/acme", headers=H, json={
        "name": "prod", "type": "server", "description": "", "policies": ["p2", "p2", "p1"]})
    assert put.status_code in (200, 201), put.get_json()
    assert client.get("/api/v2/environments/acme/prod", headers=H).get_json()[
        "policies"] == ["p2", "p1"]


# ---- g. texts that said the wrong thing --------------------------------------------------------

def test_an_expiry_beyond_int64_says_it_is_out_of_range(client):
    create_account(client)
    answer = client.post(f"{SA}/ci-bot/api-keys", headers=H,
                         data='{"description": "k", "expires_at": 9223372036854775808}',
                         content_type="application/json")
    assert answer.status_code == 400, answer.get_json()
    problem = answer.get_json()["errors"]["expires_at"]
    assert problem == ("9223372036854775808 is out of range: must be between "
                       "-9223372036854775808 and 9223372036854775807")


def test_a_too_long_url_is_refused_as_too_long(client):
    assert client.put("/api/v2/environments/acme", headers=H, json={
        "name": "prod", "type": "server", "description": ""}).status_code == 201
    url = "https://example.com/" + "a" * 100_000
    answer = client.put("/api/v2/actions/acme/environments", headers=H, json={
        "name": "a1", "environments": ["prod"], "triggers": ["ON_STARTED_ARTIFACT"],
        "targets": [{"type": "WEBHOOK", "webhook": url}]})
    assert answer.status_code == 400, answer.get_json()
    [problem] = answer.get_json()["errors"].values()
    assert "2048" in problem and "spaces" not in problem, problem


def test_snapshot_minus_zero_is_refused_with_what_minus_n_means(client, db: str):
    assert client.put("/api/v2/environments/acme", headers=H, json={
        "name": "prod", "type": "server", "description": ""}).status_code == 201
    for fingerprint in ("a" * 64, "b" * 64):
        assert client.put("/api/v2/environments/acme/prod/report/server", headers=H, json={
            "artifacts": [{"digests": {"app": fingerprint}, "creationTimestamp": 5}]}
                          ).status_code in (200, 201)
    assert client.get("/api/v2/snapshots/acme/prod/-1", headers=H).get_json()["index"] == 2
    answer = client.get("/api/v2/snapshots/acme/prod/-0", headers=H)
    assert answer.status_code == 400, answer.get_json()
    problem = answer.get_json()["errors"]["snapshot_expression"]
    assert "-1 is the latest" in problem and "#3" not in problem
    with grpc_channel(db) as channel:
        with pytest.raises(grpc.RpcError) as error:
            snapshot_grpc.SnapshotServiceStub(channel).GetSnapshot(snapshot_pb.GetSnapshotRequest(
                org="acme", env_name="prod", snapshot_expression="-0"), metadata=AUTH,
                timeout=10)
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT


# ---- h. sandboxed rule evaluations of one organization at once ---------------------------------

@pytest.mark.timeout(120)
def test_an_organization_has_at_most_its_share_of_rule_evaluations_at_once():
    box = sandbox.Sandbox(sandbox.Limits(seconds=0.3, workers=4, per_organization=1))
    step = ("attestation_data", "Custom attestation type 't'")
    try:
        with box._organization_slot("acme"):  # one evaluation of acme is running
            started = time.monotonic()
            with pytest.raises(ResourceExhausted) as refused:
                box.run(rules.evaluate, None, [".ok"], [], {"ok": True}, first_step=step,
                        organization="acme")
            assert time.monotonic() - started >= 0.3  # it waited before giving up
            assert "'acme'" in refused.value.message
            # another organization is not held up
            assert box.run(rules.evaluate, None, [".ok"], [], {"ok": True}, first_step=step,
                           organization="other") == ({}, [], {})
        assert box.run(rules.evaluate, None, [".ok"], [], {"ok": True}, first_step=step,
                       organization="acme") == ({}, [], {})
        assert not box._running  # every slot given back, refused or not
    finally:
        box.close()


def test_a_custom_attestation_beyond_the_share_is_429(client):
    create_flow(client)
    begin_trail(client)
    assert create_type(client, rules=[".line_coverage >= 80"]).status_code == 201
    held = [sandbox._sandbox._organization_slot("acme")
            for _ in range(sandbox._sandbox.limits.per_organization)]
    for slot in held:
        slot.__enter__()
    try:
        answer = attest(client, "custom", custom({"line_coverage": 90}))
        assert answer.status_code == 429, answer.get_json()
        assert "'acme'" in answer.get_json()["message"]
    finally:
        for slot in held:
            slot.__exit__(None, None, None)
    assert attest(client, "custom", custom({"line_coverage": 90})).status_code == 201


# ---- times no client can show (issue 47, item 8) --------------------------------------------------

YEAR_1 = -62135596800  # 0001-01-01T00:00:00Z
MAX_TIMESTAMP = 253402300799  # 9999-12-31T23:59:59Z
BAD_TIMES = [1e19, MAX_TIMESTAMP + 1, YEAR_1, -1]


def test_times_outside_the_years_1970_to_9999_are_refused_at_the_door(client, db: str):
    """A commit's time (trail, artifact, attestation), a running artifact's creation time and a
    time filter are refused (400 naming the field) beyond what the CLI can print; the bounds
    themselves pass. Over gRPC, a trail's commit time too."""
    from evidence_grpc.api.v2 import trail_service_pb2 as trail_pb
    from evidence_grpc.api.v2 import trail_service_pb2_grpc as trail_grpc
    from tests.helpers import details_of

    create_flow(client)
    commit = {"sha1": "c0ffee" * 6 + "c0ff", "message": "m", "author": "a", "branch": "main"}
    client.put("/api/v2/environments/acme", headers=bearer(),
               json={"name": "prod", "type": "server", "description": ""})

    def sent(stamp: float) -> list[tuple[str, object, str]]:
        """(what, answer, the field its error names) of each way a time comes in."""
        trail = client.put("/api/v2/trails/acme/payments", headers=bearer(),
                           content_type="multipart/form-data", data={"data_json": json.dumps({
                               "name": f"t-{abs(int(stamp))}",
                               "git_commit_info": {**commit, "timestamp": stamp}})})
        artifact = client.post("/api/v2/artifacts/acme/payments", headers=bearer(), json={
            "fingerprint": "e" * 64, "filename": "x", "trail_name": f"t-{abs(int(stamp))}",
            "git_commit": commit["sha1"], "build_url": "https://ci.example/1",
            "commit_url": "https://ci.example/c", "repo_url": "https://ci.example/r",
            "git_commit_info": {**commit, "timestamp": stamp}})
        attestation = attest(client, "generic", {
            "attestation_name": "a", "is_compliant": True,
            "git_commit_info": {**commit, "timestamp": stamp}},
            trail=f"t-{abs(int(stamp))}")
        report = client.put("/api/v2/environments/acme/prod/report/server", headers=bearer(),
                            json={"artifacts": [{"digests": {"app": "f" * 64},
                                                 "creationTimestamp": int(stamp)}]})
        listed = client.get("/api/v2/attestations/acme", headers=bearer(),
                            query_string={"from_timestamp": repr(stamp)})
        return [("trail", trail, "git_commit_info.timestamp"),
                ("artifact", artifact, "git_commit_info.timestamp"),
                ("attestation", attestation, "git_commit_info.timestamp"),
                ("report", report, "artifacts.0.creationTimestamp"),
                ("filter", listed, "from_timestamp")]

    for stamp in (0, 1700000000.5, MAX_TIMESTAMP):
        for what, answer, _ in sent(stamp):
            assert answer.status_code < 300, (what, stamp, answer.get_json())
    for stamp in BAD_TIMES:
        for what, answer, field in sent(stamp):
            assert answer.status_code == 400, (what, stamp, answer.get_json())
            if what == "report" and abs(stamp) > 2**53:
                continue  # a JSON integer beyond a double's: refused as such by the shim
            errors = answer.get_json()["errors"]
            assert any(field in key for key in errors), (what, stamp, errors)
            assert "1970 to 9999" in " ".join(errors.values()), (what, stamp, errors)
    with grpc_channel(db) as channel:
        stub = trail_grpc.TrailServiceStub(channel)
        for stamp in BAD_TIMES:
            request = trail_pb.BeginTrailRequest(org="acme", flow_name="payments")
            request.data_json.name = "grpc"
            request.data_json.git_commit_info.sha1 = commit["sha1"]
            request.data_json.git_commit_info.timestamp = stamp
            with pytest.raises(grpc.RpcError) as refused:
                stub.BeginTrail(request, metadata=(("authorization", f"Bearer {ALICE_KEY}"),),
                                timeout=10)
            assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
            errors = details_of(refused.value)[1]
            assert "1970 to 9999" in errors["data_json.git_commit_info.timestamp"], errors
