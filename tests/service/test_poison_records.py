"""Every accepted record stays readable (issue 30, item 4): a value no read could render - a
report timestamp beyond what an int64 holds, a URL urllib.parse refuses, an annotation that is
not a string - is refused at the door with a 400 / INVALID_ARGUMENT naming the field; and one
stored before the door refused it (written here straight to the database) is shown as well as
it can be by every list, get and page of the organization, never a 500."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2

from evidence_grpc.api.v2 import attestation_service_pb2 as attestation_pb
from evidence_grpc.api.v2 import attestation_service_pb2_grpc as attestation_grpc
from evidence_grpc.api.v2 import common_pb2
from evidence_grpc.api.v2 import environment_service_pb2 as env_pb
from evidence_grpc.api.v2 import environment_service_pb2_grpc as env_grpc
from evidence_grpc.api.v2 import repo_service_pb2 as repo_pb
from evidence_grpc.api.v2 import repo_service_pb2_grpc as repo_grpc
from evidence_grpc.api.v2 import snapshot_service_pb2 as snapshot_pb
from evidence_grpc.api.v2 import snapshot_service_pb2_grpc as snapshot_grpc
from evidence_grpc.api.v2 import trail_service_pb2 as trail_pb
from evidence_grpc.api.v2 import trail_service_pb2_grpc as trail_grpc
from evidence_grpc.domain.kernel.numbers import INT64_MAX, INT64_MIN, MAX_TIMESTAMP
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Artifact, Attestation, Flow, Repo, Snapshot, Trail
from tests.conftest import ALICE_KEY, bearer, grpc_channel
from tests.helpers import assert_error, details_of

H = bearer()
AUTH = (("authorization", f"Bearer {ALICE_KEY}"),)
FP = "a" * 64
REPORT = "/api/v2/environments/acme/prod/report/server"
ATTEST = "/api/v2/attestations/acme/f/trail/t/generic"
# Text urllib.parse refuses: an unbalanced IPv6 bracket (when split) and ports it cannot read.
BAD_URLS = ["http://[::1", "http://[::1/", "https://git.example:99999/r", "http://h:port/x"]
# Whole numbers a double holds that no int64 (nor 2^53, the exact ones) does.
BAD_STAMPS = ["1e19", "9.3e18", "1e30", "-1e30", "9007199254740992.0"]


def put(client, path: str, body: Any):
    return client.put(path, data=json.dumps(body), content_type="application/json", headers=H)


def multipart(client, method: str, path: str, data: dict[str, Any]):
    return client.open(path, method=method, headers=H, content_type="multipart/form-data",
                       data={"data_json": json.dumps(data)})


@pytest.fixture
def world(client):
    """Flow f with trail t, artifact FP and a generic attestation in it; server environment
    prod running FP (snapshot 1)."""
    assert put(client, "/api/v2/flows/acme", {"name": "f", "description": ""}).status_code == 201
    assert multipart(client, "PUT", "/api/v2/trails/acme/f", {
        "name": "t", "repo_info": {"id": "r1", "name": "acme/r", "url": "https://git.example/r"}}
    ).status_code == 201
    assert client.post("/api/v2/artifacts/acme/f", headers=H, json={
        "fingerprint": FP, "filename": "app", "trail_name": "t",
        "build_url": "https://ci.example/1", "commit_url": "https://git.example/c"}
    ).status_code == 201
    assert multipart(client, "POST", ATTEST, {"attestation_name": "g", "is_compliant": True,
                                              "annotations": {"k": "v"}}).status_code == 201
    assert put(client, "/api/v2/environments/acme",
               {"name": "prod", "type": "server", "description": ""}).status_code == 201
    assert put(client, REPORT, {"artifacts": [{"digests": {"app": FP}, "creationTimestamp": 5}]}
               ).status_code < 300
    return client


def report_with(stamp: str) -> str:
    """A server report whose artifact's creationTimestamp is `stamp` written as JSON text."""
    return '{"artifacts": [{"digests": {"app": "' + "b" * 64 + '"}, "creationTimestamp": ' + \
        stamp + "}]}"


@pytest.fixture
def channel(db: str) -> Iterator[grpc.Channel]:
    with grpc_channel(db) as opened:
        yield opened


def refused_over_grpc(call: Any, request: Any) -> dict[str, str]:
    """The field violations of a call that must be INVALID_ARGUMENT."""
    with pytest.raises(grpc.RpcError) as refused:
        call(request, metadata=AUTH, timeout=10)
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT, refused.value.details()
    return details_of(refused.value)[1]


# ---- report timestamps ----------------------------------------------------------------------

@pytest.mark.parametrize("env_type", ["server", "K8S", "docker"])
def test_report_timestamps_beyond_an_exact_integer_are_refused(world, env_type: str):
    assert put(world, "/api/v2/environments/acme",
               {"name": "other", "type": env_type, "description": ""}).status_code == 201
    path = f"/api/v2/environments/acme/other/report/{env_type}"
    pod = ', "podName": "p", "namespace": "n"' if env_type == "K8S" else ""
    for stamp in [*BAD_STAMPS, "1.5"]:
        body = report_with(stamp).replace("}]}", pod + "}]}")
        answer = world.put(path, data=body, content_type="application/json", headers=H)
        assert_error(answer, 400, "artifacts.0.creationTimestamp")
    assert world.get("/api/v2/snapshots/acme/other", headers=H).get_json() == []
    # The largest accepted stamp (the end of the year 9999, issue 47) is read back as it was
    # sent; one more is refused as a time no client can show.
    body = report_with(str(MAX_TIMESTAMP + 1)).replace("}]}", pod + "}]}")
    assert_error(world.put(path, data=body, content_type="application/json", headers=H), 400,
                 "artifacts.0.creationTimestamp")
    body = report_with(str(MAX_TIMESTAMP)).replace("}]}", pod + "}]}")
    assert world.put(path, data=body, content_type="application/json", headers=H).status_code < 300
    latest = world.get("/api/v2/snapshots/acme/other/-1", headers=H)
    assert latest.status_code == 200
    assert latest.get_json()["artifacts"][0]["creationTimestamp"] == [MAX_TIMESTAMP]
    assert world.get("/acme/environments/other", headers=H).status_code == 200


def test_grpc_reports_with_a_timestamp_beyond_an_exact_integer_are_refused(world, channel):
    stub = env_grpc.EnvironmentServiceStub(channel)
    for stamp in (1e19, -1e30, 2.0**53):
        report = struct_pb2.Struct()
        report.update({"artifacts": [{"digests": {"app": FP}, "creationTimestamp": stamp}]})
        violations = refused_over_grpc(stub.ReportEnvironment, env_pb.ReportEnvironmentRequest(
            org="acme", env_name="prod", type="server", report=report))
        assert "artifacts.0.creationTimestamp" in violations, violations


def test_other_integers_of_reported_evidence_are_bounded_the_same_way(world):
    """Test counts land in int64 fields of the attestation's message."""
    suite = {"name": "s", "failures": 0, "errors": 0, "skipped": 0, "total": 1, "duration": 1}
    answer = multipart(world, "POST", "/api/v2/attestations/acme/f/trail/t/junit", {
        "attestation_name": "tests", "junit_results": [{**suite, "total": 1e19}]})
    assert_error(answer, 400, "junit_results.0.total")
    assert world.get("/api/v2/attestations/acme/f/trail/t/tests", headers=H).json == []


# ---- URLs -----------------------------------------------------------------------------------

def test_urls_the_reads_cannot_parse_are_refused_with_the_field_named(world):
    for url in BAD_URLS:
        for data, field in [({"origin_url": url}, "origin_url"),
                            ({"repo_info": {"id": "r2", "name": "acme/x", "url": url}},
                             "repo_info.url"),
                            ({"git_commit_info": {"sha1": "c" * 40, "url": url}},
                             "git_commit_info.url"),
                            ({"external_urls": {"docs": {"href": url}}},
                             "external_urls.docs.href")]:
            assert_error(multipart(world, "PUT", "/api/v2/trails/acme/f", {"name": "t2", **data}),
                         400, field)
            assert_error(multipart(world, "POST", ATTEST, {
                "attestation_name": "g2", "is_compliant": True, **data}), 400, field)
        for field in ("build_url", "commit_url", "repo_url"):
            assert_error(world.post("/api/v2/artifacts/acme/f", headers=H, json={
                "fingerprint": "c" * 64, "filename": "app", "trail_name": "t", "build_url": "b",
                "commit_url": "c", field: url}), 400, field)
        assert_error(put(world, "/api/v2/flows/acme",
                         {"name": "f2", "description": "", "repo_url": url}), 400, "repo_url")
    assert world.get("/api/v2/trails/acme/f/t2", headers=H).status_code == 404
    assert [r["url"] for r in world.get("/api/v2/repos/acme", headers=H).get_json()["repos"]] == [
        "https://git.example/r"]
    assert world.get("/api/v2/flows/acme/f2", headers=H).status_code == 404


def test_grpc_begin_trail_refuses_a_repo_url_the_reads_cannot_parse(world, channel):
    stub = trail_grpc.TrailServiceStub(channel)
    violations = refused_over_grpc(stub.BeginTrail, trail_pb.BeginTrailRequest(
        org="acme", flow_name="f", data_json=trail_pb.TrailData(
            name="t2", repo_info=common_pb2.RepoInfo(id="r2", name="acme/x", url="http://[::1"))))
    assert "repo_info.url" in violations, violations


def test_a_policy_schema_url_and_a_webhook_the_parser_refuses_are_400(world):
    policy = b"_schema: 'http://[::1'\nartifacts:\n  provenance:\n    required: true\n"
    answer = world.put("/api/v2/policies/acme", headers=H, content_type="multipart/form-data",
                       data={"payload": json.dumps({"name": "p", "description": "",
                                                    "type": "env"}),
                             "policy_file": (io.BytesIO(policy), "policy.yml")})
    assert_error(answer, 400, "_schema")
    assert world.get("/api/v2/policies/acme", headers=H).get_json() == []
    for hook in ("http://[::1/", "http://[::1"):
        answer = put(world, "/api/v2/actions/acme/environments", {
            "name": "watch", "targets": [{"type": "WEBHOOK", "webhook": hook}],
            "environments": ["prod"], "triggers": ["ON_STARTED_ARTIFACT"]})
        assert_error(answer, 400, "targets[0].webhook")


# ---- annotations ----------------------------------------------------------------------------

def test_annotation_values_that_are_not_strings_are_refused(world):
    for given, field in [({"k": None}, "annotations.k"), ({"a.b": None}, "annotations.a.b"),
                               ({"n": 1}, "annotations.n"), ({"l": ["x"]}, "annotations.l"),
                               ({"o": {"x": "y"}}, "annotations.o"), ({"t": True}, "annotations.t")]:
        assert_error(multipart(world, "POST", ATTEST, {
            "attestation_name": "g2", "is_compliant": True, "annotations": given}), 400, field)
        assert_error(multipart(world, "POST", "/api/v2/attestations/acme/f/trail/t/override", {
            "attestation_name": "g", "original_attestation_type": "generic",
            "new_compliance_status": False, "reason": "r", "annotations": given}), 400, field)
    listed = world.get("/api/v2/attestations/acme/f", headers=H)
    assert listed.status_code == 200
    assert [a["annotations"] for a in listed.get_json()["data"]] == [{"k": "v"}]


def test_grpc_attestations_refuse_annotation_values_that_are_not_strings(world, channel):
    stub = attestation_grpc.AttestationServiceStub(channel)
    data = struct_pb2.Struct()
    data.update({"attestation_name": "g2", "is_compliant": True, "annotations": {"n": 1}})
    violations = refused_over_grpc(stub.CreateAttestation, attestation_pb.CreateAttestationRequest(
        org="acme", flow_name="f", trail_name="t", kind="generic", data_json=data))
    assert "annotations.n" in violations, violations


# ---- values stored before the door refused them ---------------------------------------------

def poison(url: str = "http://[::1") -> None:
    """What the door now refuses, written straight to the database as older releases kept it."""
    with storage.database.connection_context():
        Repo.update(url=url).execute()
        Flow.update(repo_url=url).execute()
        Trail.update(origin_url=url, repo_info={"id": "r1", "name": "acme/r", "url": url},
                     external_urls={"docs": {"href": url}}).execute()
        Artifact.update(build_url=url, commit_url=url, repo_url=url).execute()
        attestation = Attestation.get()
        attestation.data = {**attestation.data, "origin_url": url, "annotations": {
            "k": None, "n": 1, "l": [1, "é"], "o": {"x": 1}, "s": "v"}}
        attestation.save()
        snapshot = Snapshot.get()
        snapshot.artifacts = [{**snapshot.artifacts[0],
                               "creationTimestamp": [10**19, -10**30]}]
        snapshot.save()


READS = [
    "/api/v2/repos/acme", "/api/v2/repos/acme/filter-options", "/api/v2/repos/acme/acme/r",
    "/api/v2/repos/acme/acme/r/deployment-statistics", "/api/v2/flows/acme/f",
    "/api/v2/trails/acme/f", "/api/v2/trails/acme", "/api/v2/trails/acme/f/t",
    "/api/v2/artifacts/acme", "/api/v2/artifacts/acme/f", f"/api/v2/artifacts/acme/f/fingerprint/{FP}",
    "/api/v2/attestations/acme", "/api/v2/attestations/acme/f",
    "/api/v2/attestations/acme/f/trail/t/g", f"/api/v2/search/acme/sha/{FP}",
    "/api/v2/snapshots/acme/prod", "/api/v2/snapshots/acme/prod/-1",
    "/api/v2/env-diff/acme?snappish1=prod%231&snappish2=prod%231",
    "/api/v2/environments/acme/prod/events",
    "/acme", "/acme/flows/f", "/acme/flows/f/trails/t", f"/acme/flows/f/artifacts/{FP}",
    "/acme/environments/prod", "/acme/environments/prod/snapshots/1",
    "/acme/environments/prod/diff?from=1&to=1", "/acme/repos/acme/r",
]


def test_every_read_of_the_organization_survives_values_stored_before_the_door(world):
    poison()
    failures = [f"{path} -> {answer.status_code}: {answer.get_data(as_text=True)[:200]}"
                for path in READS if (answer := world.get(path, headers=H)).status_code != 200]
    assert not failures, "\n".join(failures)

    [repo] = world.get("/api/v2/repos/acme", headers=H).get_json()["repos"]
    assert (repo["url"], repo["vcs_instance"]) == ("http://[::1", None)
    [attestation] = world.get("/api/v2/attestations/acme/f", headers=H).get_json()["data"]
    assert attestation["annotations"] == {"k": "null", "n": "1", "l": '[1, "é"]',
                                          "o": '{"x": 1}', "s": "v"}
    [running] = world.get("/api/v2/snapshots/acme/prod/-1", headers=H).get_json()["artifacts"]
    assert running["creationTimestamp"] == [INT64_MAX, INT64_MIN]
    for page in ("/acme/flows/f/trails/t", f"/acme/flows/f/artifacts/{FP}", "/acme/flows/f",
                 "/acme/repos/acme/r"):
        text = world.get(page, headers=H).get_data(as_text=True)
        assert "http://[::1" in text and 'href="http://[::1' not in text, page  # text, no link


def test_grpc_reads_survive_values_stored_before_the_door(world, channel):
    poison()
    repos = repo_grpc.RepoServiceStub(channel).ListRepos(
        repo_pb.ListReposRequest(org="acme"), metadata=AUTH, timeout=10)
    assert [(r.url, r.HasField("vcs_instance")) for r in repos.repos] == [("http://[::1", False)]
    snapshot = snapshot_grpc.SnapshotServiceStub(channel).GetSnapshot(
        snapshot_pb.GetSnapshotRequest(org="acme", env_name="prod", snapshot_expression="-1"),
        metadata=AUTH, timeout=10)
    assert list(snapshot.artifacts[0].creation_timestamp) == [INT64_MAX, INT64_MIN]
    listed = attestation_grpc.AttestationServiceStub(channel).ListFlowAttestations(
        attestation_pb.ListFlowAttestationsRequest(org="acme", flow_name="f"),
        metadata=AUTH, timeout=10)
    assert dict(listed.data[0].annotations)["k"] == "null"
