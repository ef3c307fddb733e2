"""The gRPC servicers, asserting on proto responses.

Most tests use grpc_testing, which runs a servicer method in its own thread but without the
server's interceptors: `AsCaller` does their job there (one database connection per call and
the authenticated caller). The last test runs the real interceptor chain on a network server."""

from __future__ import annotations

import base64
import re

import grpc
import grpc_testing
import pytest
from google.protobuf import message_factory, struct_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from evidence_grpc.api.v2 import common_pb2
from evidence_grpc.api.v2 import flow_service_pb2 as flow_pb
from evidence_grpc.api.v2 import flow_service_pb2_grpc as flow_grpc
from evidence_grpc.api.v2 import readiness_service_pb2 as ready_pb
from evidence_grpc.api.v2 import readiness_service_pb2_grpc as ready_grpc
from evidence_grpc.api.v2 import trail_service_pb2 as trail_pb
from evidence_grpc.convert import serialize
from evidence_grpc.domain.identity.callers import Caller
from evidence_grpc.servicers.flows import FlowServicer
from evidence_grpc.servicers.trails import TrailServicer
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Organization, User
from tests.conftest import ALICE_KEY, BOB_KEY, grpc_channel
from tests.helpers import AsCaller, details_of

FLOW_SERVICE = flow_pb.DESCRIPTOR.services_by_name["FlowService"]
TRAIL_SERVICE = trail_pb.DESCRIPTOR.services_by_name["TrailService"]
TEMPLATE = b"version: 1\ntrail:\n  attestations:\n    - name: pr\n      type: pull_request\n"


@pytest.fixture
def call(settings):
    with storage.database.connection_context():
        caller = Caller(user=User.get(User.name == "alice"),
                        organization=Organization.get(Organization.name == "acme"))
    server = grpc_testing.server_from_dictionary({
        FLOW_SERVICE: AsCaller(FlowServicer(), caller),
        TRAIL_SERVICE: AsCaller(TrailServicer(settings), caller),
    }, grpc_testing.strict_real_time())

    def invoke(service, method, request):
        described = service.methods_by_name[method]
        rpc = server.invoke_unary_unary(described, (), request, None)
        response, _, code, details = rpc.termination()
        assert code is grpc.StatusCode.OK, details
        # As the wire gives it: grpc_testing hands over what the servicer returned.
        return message_factory.GetMessageClass(described.output_type).FromString(serialize(response))

    return invoke


def test_flow_service_upsert_get_list_rename_and_archive(call):
    legacy = flow_pb.UpsertFlowRequest(org="acme", name="legacy", description="old style",
                                       template=["build", " test "])
    response = call(FLOW_SERVICE, "UpsertFlow", legacy)
    assert response.created is True
    assert response.flow.name == "legacy"
    assert response.flow.org == "acme"
    assert response.flow.visibility == "private"
    assert [v.string_value for v in response.flow.template.list_value.values] == [
        "build", "test", "artifact"]
    assert not response.flow.HasField("repo_url")
    assert not response.flow.HasField("last_deployment_at")
    assert call(FLOW_SERVICE, "UpsertFlow", legacy).created is False

    with_template = flow_pb.UpsertFlowWithTemplateRequest(
        org="acme", data_json=flow_pb.FlowData(name="modern", description="d", visibility="public"),
        template_file=common_pb2.UploadedFile(filename="template.yml", content=TEMPLATE))
    response = call(FLOW_SERVICE, "UpsertFlowWithTemplate", with_template)
    assert response.created is True
    assert response.flow.template.string_value == TEMPLATE.decode()
    assert response.flow.visibility == "public"

    flow = call(FLOW_SERVICE, "GetFlow", flow_pb.GetFlowRequest(org="acme", flow_name="modern"))
    assert isinstance(flow, flow_pb.Flow)
    assert (flow.name, flow.description, flow.archived) == ("modern", "d", False)
    assert flow.created_at > 0
    assert flow.last_modified_at == flow.created_at

    listed = call(FLOW_SERVICE, "ListFlows", flow_pb.ListFlowsRequest(org="acme"))
    assert [f.name for f in listed.data] == ["legacy", "modern"]
    assert not listed.HasField("pagination")  # no paging asked: the shim answers a bare array

    paged = call(FLOW_SERVICE, "ListFlows", flow_pb.ListFlowsRequest(org="acme", per_page=1, page=2))
    assert [f.name for f in paged.data] == ["modern"]
    assert paged.pagination == common_pb2.Pagination(total=2, page=2, per_page=1, page_count=2)

    searched = call(FLOW_SERVICE, "ListFlows", flow_pb.ListFlowsRequest(
        org="acme", search_by_name="MOD", case_sensitive=False))
    assert [f.name for f in searched.data] == ["modern"]

    renamed = call(FLOW_SERVICE, "RenameFlow",
                   flow_pb.RenameFlowRequest(org="acme", flow_name="legacy", new_name="older"))
    assert renamed.message == "flow 'legacy' was renamed to 'older'"
    assert call(FLOW_SERVICE, "GetFlow",
                flow_pb.GetFlowRequest(org="acme", flow_name="legacy")).name == "older"

    archived = call(FLOW_SERVICE, "ArchiveFlow",
                    flow_pb.ArchiveFlowRequest(org="acme", flow_name="legacy"))
    name = re.fullmatch(r"flow 'legacy' was archived as '(older-archived-at-\d+)'",
                        archived.message).group(1)
    got = call(FLOW_SERVICE, "GetFlow", flow_pb.GetFlowRequest(org="acme", flow_name=name))
    assert (got.name, got.archived) == (name, True)
    # An archived flow's former names are gone with it (without the interceptors here, the
    # domain's NotFound comes back as the failed call's details).
    for former in ("older", "legacy"):
        with pytest.raises(AssertionError, match=f"Flow named '{former}' does not exist"):
            call(FLOW_SERVICE, "GetFlow", flow_pb.GetFlowRequest(org="acme", flow_name=former))
    listed = call(FLOW_SERVICE, "ListFlows", flow_pb.ListFlowsRequest(org="acme"))
    assert [f.name for f in listed.data] == ["modern"]
    recreated = call(FLOW_SERVICE, "UpsertFlow", flow_pb.UpsertFlowRequest(org="acme", name="older"))
    assert (recreated.created, recreated.flow.archived) == (True, False)


def test_flow_service_answers_a_commented_template_from_its_version_line(call):
    commented = b"# yaml-language-server: $schema=https://docs.kosli.com/schemas/flow-template/v1\n"
    call(FLOW_SERVICE, "UpsertFlowWithTemplate", flow_pb.UpsertFlowWithTemplateRequest(
        org="acme", data_json=flow_pb.FlowData(name="documented"),
        template_file=common_pb2.UploadedFile(filename="template.yml", content=commented + TEMPLATE)))
    flow = call(FLOW_SERVICE, "GetFlow", flow_pb.GetFlowRequest(org="acme", flow_name="documented"))
    assert flow.template.string_value == TEMPLATE.decode()
    call(TRAIL_SERVICE, "BeginTrail", trail_pb.BeginTrailRequest(
        org="acme", flow_name="documented", data_json=trail_pb.TrailData(name="t")))
    trail = call(TRAIL_SERVICE, "GetTrail",
                 trail_pb.GetTrailRequest(org="acme", flow_name="documented", trail_name="t"))
    assert trail.template.content == (commented + TEMPLATE).decode()


def test_trail_service_begin_get_and_list(call):
    call(FLOW_SERVICE, "UpsertFlowWithTemplate", flow_pb.UpsertFlowWithTemplateRequest(
        org="acme", data_json=flow_pb.FlowData(name="f"),
        template_file=common_pb2.UploadedFile(filename="t.yml", content=TEMPLATE)))
    user_data = struct_pb2.Value()
    user_data.struct_value.update({"build": 42, "tags": ["a"]})
    data = trail_pb.TrailData(
        name="t1", description="first",
        git_commit_info=common_pb2.GitCommitInfo(sha1="c" * 40, message="m", author="A <a@x>",
                                                 branch="main", timestamp=1700000000),
        repo_info=common_pb2.RepoInfo(name="r", url="https://git.example/r", id="repo-7"),
        origin_url="https://ci.example/1", user_data=user_data,
        external_urls={"docs": common_pb2.ExternalUrl(href="https://docs.example")})
    begun = call(TRAIL_SERVICE, "BeginTrail",
                 trail_pb.BeginTrailRequest(org="acme", flow_name="f", data_json=data))
    assert (begun.message, begun.created) == ("trail 't1' was begun", True)
    updated = call(TRAIL_SERVICE, "BeginTrail", trail_pb.BeginTrailRequest(
        org="acme", flow_name="f", data_json=trail_pb.TrailData(name="t1", description="second")))
    assert (updated.message, updated.created) == ("trail 't1' was updated", False)

    trail = call(TRAIL_SERVICE, "GetTrail",
                 trail_pb.GetTrailRequest(org="acme", flow_name="f", trail_name="t1"))
    assert isinstance(trail, trail_pb.Trail)
    assert (trail.name, trail.description, trail.created_by) == ("t1", "second", "alice")
    assert trail.git_commit_info.sha1 == "c" * 40
    assert trail.git_commit_info.timestamp == 1700000000
    assert trail.origin_url == "https://ci.example/1"
    assert list(trail.repo_ids) == ["repo-7"]
    assert trail.user_data.struct_value["build"] == 42
    assert trail.external_urls["docs"].href == "https://docs.example"
    assert trail.compliance_state == "INCOMPLETE"
    assert trail.is_compliant is False
    assert [(s.attestation_name, s.status) for s in trail.compliance_status.attestations_statuses] \
        == [("pr", "MISSING")]
    assert trail.template.content == TEMPLATE.decode()
    assert [e.type for e in trail.events] == ["trail_reported", "trail_updated"]
    reported = trail.events[0]  # typed: the fields of its kind, as reported
    assert reported.WhichOneof("detail") == "trail"
    assert (reported.trail.user, reported.trail.origin_url) == ("alice", "https://ci.example/1")
    assert reported.trail.repo_info.id == "repo-7"
    assert trail.flow.name == "f"
    assert trail.html_url == "http://evidence.test/acme/flows/f/trails/t1"

    call(TRAIL_SERVICE, "BeginTrail", trail_pb.BeginTrailRequest(
        org="acme", flow_name="f", data_json=trail_pb.TrailData(name="t2")))
    of_flow = call(TRAIL_SERVICE, "ListFlowTrails",
                   trail_pb.ListFlowTrailsRequest(org="acme", flow_name="f"))
    assert [t.name for t in of_flow.data] == ["t2", "t1"]
    assert not of_flow.HasField("pagination")
    of_org = call(TRAIL_SERVICE, "ListTrails", trail_pb.ListTrailsRequest(org="acme", per_page=1))
    assert [t.name for t in of_org.data] == ["t2"]
    assert of_org.pagination == common_pb2.Pagination(total=2, page=1, per_page=1, page_count=2)


# ---- the real interceptor chain --------------------------------------------------------------

@pytest.fixture
def channel(db):
    with grpc_channel(db) as opened:
        yield opened


def failure(callable_, request, metadata=()):
    with pytest.raises(grpc.RpcError) as caught:
        callable_(request, metadata=metadata, timeout=10)
    return caught.value


def test_interceptor_chain_on_a_network_server(channel):
    flows = flow_grpc.FlowServiceStub(channel)
    alice = (("authorization", f"Bearer {ALICE_KEY}"),)
    get = flow_pb.GetFlowRequest(org="acme", flow_name="nope")

    error = failure(flows.GetFlow, get)
    assert error.code() is grpc.StatusCode.UNAUTHENTICATED
    info, _ = details_of(error)
    assert (info.reason, info.domain) == ("AUTHENTICATION_REQUIRED", "evidence.v2")

    error = failure(flows.GetFlow, get, (("authorization", f"Bearer {BOB_KEY}"),))
    assert error.code() is grpc.StatusCode.PERMISSION_DENIED
    assert error.details() == "You do not have access to organization 'acme'"
    info, _ = details_of(error)
    assert (info.reason, dict(info.metadata)) == ("ORGANIZATION_ACCESS_DENIED", {"organization": "acme"})

    error = failure(flows.GetFlow, get, alice)
    assert error.code() is grpc.StatusCode.NOT_FOUND
    assert error.details() == "Flow named 'nope' does not exist for organization 'acme'"
    info, violations = details_of(error)
    assert (info.reason, info.domain) == ("FLOW_NOT_FOUND", "evidence.v2")
    assert dict(info.metadata) == {"organization": "acme", "flow": "nope"}
    assert violations == {}

    error = failure(flows.UpsertFlow,
                    flow_pb.UpsertFlowRequest(org="acme", name="f", visibility="secret"), alice)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    info, violations = details_of(error)
    assert info.reason == "INVALID_FIELD"
    assert violations == {"visibility": "'secret' is not one of ['private', 'public']"}

    # The refusals wrote nothing; a good call goes through, also with Basic credentials.
    assert list(flows.ListFlows(flow_pb.ListFlowsRequest(org="acme"), metadata=alice).data) == []
    created = flows.UpsertFlow(flow_pb.UpsertFlowRequest(org="acme", name="f"), metadata=alice)
    assert created.created is True
    basic = base64.b64encode(f"{ALICE_KEY}:ignored".encode()).decode()
    flow = flows.GetFlow(flow_pb.GetFlowRequest(org="acme", flow_name="f"),
                         metadata=(("authorization", f"Basic {basic}"),))
    assert flow.name == "f"

    # Anonymous methods and the health service need no credentials.
    ready = ready_grpc.ReadinessServiceStub(channel).GetReadiness(ready_pb.GetReadinessRequest())
    assert (ready.content_type, ready.data) == ("text/plain; charset=utf-8", b"OK")
    health = health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service="evidence.v2.FlowService"))
    assert health.status == health_pb2.HealthCheckResponse.SERVING


def test_custom_attestation_types_are_typed_over_grpc(channel):
    from evidence_grpc.api.v2 import attestation_type_service_pb2 as type_pb
    from evidence_grpc.api.v2 import attestation_type_service_pb2_grpc as type_grpc

    stub = type_grpc.AttestationTypeServiceStub(channel)
    auth = (("authorization", f"Bearer {ALICE_KEY}"),)
    data = struct_pb2.Struct()
    data.update({"name": "coverage", "description": "line coverage",
                 "evaluator": {"content_type": "jq", "rules": [".line >= 80"]}})
    made = stub.CreateAttestationType(type_pb.CreateAttestationTypeRequest(
        org="acme", data_json=data), metadata=auth, timeout=10)
    assert made.created
    got = stub.GetAttestationType(type_pb.GetAttestationTypeRequest(
        org="acme", custom_attestation_type_name="coverage"), metadata=auth, timeout=10)
    assert (got.name, got.description, got.org, got.created_by) == \
        ("coverage", "line coverage", "acme", "alice")
    [first] = got.versions
    assert (first.version, first.evaluator.content_type, list(first.evaluator.rules)) == \
        (1, "jq", [".line >= 80"])
    one = stub.GetAttestationType(type_pb.GetAttestationTypeRequest(
        org="acme", custom_attestation_type_name="coverage", version=1), metadata=auth, timeout=10)
    assert not one.HasField("created_at")  # one version comes without the type's history
    listed = stub.ListAttestationTypes(type_pb.ListAttestationTypesRequest(org="acme"),
                                       metadata=auth, timeout=10)
    assert [t.name for t in listed.data] == ["coverage"]
    data.update({"name": "coverage", "evaluator": {"content_type": "jq", "rules": [".line >= 90"]}})
    again = stub.CreateAttestationType(type_pb.CreateAttestationTypeRequest(
        org="acme", data_json=data), metadata=auth, timeout=10)
    assert not again.created  # a new version of a type that was there
    got = stub.GetAttestationType(type_pb.GetAttestationTypeRequest(
        org="acme", custom_attestation_type_name="coverage"), metadata=auth, timeout=10)
    assert [(v.version, list(v.evaluator.rules)) for v in got.versions] == [
        (2, [".line >= 90"]), (1, [".line >= 80"])]  # newest first


def test_environment_settings_are_answered_as_set_over_grpc(channel):
    from evidence_grpc.api.v2 import environment_service_pb2 as env_pb
    from evidence_grpc.api.v2 import environment_service_pb2_grpc as env_grpc

    auth = (("authorization", f"Bearer {ALICE_KEY}"),)
    envs = env_grpc.EnvironmentServiceStub(channel)
    envs.UpsertEnvironment(env_pb.UpsertEnvironmentRequest(
        org="acme", name="prod", type="K8S", include_scaling=True, require_provenance=True),
        metadata=auth, timeout=10)
    got = envs.GetEnvironment(env_pb.GetEnvironmentRequest(org="acme", env_name="prod"),
                              metadata=auth, timeout=10)
    assert (got.include_scaling, got.require_provenance) == (True, True)
    envs.UpdateEnvironment(env_pb.UpdateEnvironmentRequest(
        org="acme", env_name="prod", include_scaling=False), metadata=auth, timeout=10)
    got = envs.GetEnvironment(env_pb.GetEnvironmentRequest(org="acme", env_name="prod"),
                              metadata=auth, timeout=10)
    assert (got.include_scaling, got.require_provenance) == (False, True)


def test_snapshot_artifacts_are_typed_over_grpc(channel):
    from evidence_grpc.api.v2 import environment_service_pb2 as env_pb
    from evidence_grpc.api.v2 import environment_service_pb2_grpc as env_grpc
    from evidence_grpc.api.v2 import snapshot_service_pb2 as snap_pb
    from evidence_grpc.api.v2 import snapshot_service_pb2_grpc as snap_grpc

    auth = (("authorization", f"Bearer {ALICE_KEY}"),)
    envs = env_grpc.EnvironmentServiceStub(channel)
    envs.UpsertEnvironment(env_pb.UpsertEnvironmentRequest(org="acme", name="prod", type="K8S"),
                           metadata=auth, timeout=10)
    report = struct_pb2.Struct()
    report.update({"artifacts": [{"podName": "web-1", "namespace": "default",
                                  "digests": {"web:1": "a" * 64}, "creationTimestamp": 1700000000}]})
    envs.ReportEnvironment(env_pb.ReportEnvironmentRequest(
        org="acme", env_name="prod", type="K8S", report=report), metadata=auth, timeout=10)
    snapshot = snap_grpc.SnapshotServiceStub(channel).GetSnapshot(snap_pb.GetSnapshotRequest(
        org="acme", env_name="prod", snapshot_expression="-1"), metadata=auth, timeout=10)
    [web] = snapshot.artifacts
    assert (web.name, web.fingerprint, web.instance_count) == ("web:1", "a" * 64, 1)
    assert list(web.creation_timestamp) == [1700000000]
    assert (web.annotation.type, web.annotation.was, web.annotation.now) == \
        ("started-non-compliant", 0, 1)
    # no policies: the snapshot is Unknown; the artifact, never reported, is not compliant
    assert (snapshot.compliant, snapshot.compliance_state) == (False, "UNKNOWN")
    assert web.HasField("compliant") and not web.compliant
    assert [r.type for r in web.reasons_for_incompliance] == ["no_provenance"]
    assert not web.HasField("deployment_diff") and not web.flows  # no provenance
    assert web.pods["web-1"]["namespace"] == "default"


def test_search_results_are_typed_over_grpc(channel):
    from evidence_grpc.api.v2 import artifact_service_pb2 as art_pb
    from evidence_grpc.api.v2 import artifact_service_pb2_grpc as art_grpc

    auth = (("authorization", f"Bearer {ALICE_KEY}"),)
    flow_grpc.FlowServiceStub(channel).UpsertFlow(
        flow_pb.UpsertFlowRequest(org="acme", name="app", description=""), metadata=auth, timeout=10)
    fingerprint = "b" * 64
    artifact = struct_pb2.Struct()
    artifact.update({"fingerprint": fingerprint, "filename": "app.tgz", "git_commit": "c" * 40,
                     "build_url": "https://ci.example/1", "commit_url": "https://git.example/c",
                     "trail_name": "t1"})
    art_grpc.ArtifactServiceStub(channel).ReportArtifact(art_pb.ReportArtifactRequest(
        org="acme", flow_name="app", artifact=artifact), metadata=auth, timeout=10)
    found = art_grpc.SearchServiceStub(channel).Search(art_pb.SearchRequest(
        org="acme", search_value=fingerprint[:8]), metadata=auth, timeout=10)
    assert (found.resolved_to.type, found.resolved_to.full_match) == ("fingerprint", fingerprint)
    assert (found.resolved_to.fingerprints.count, found.resolved_to.commits.count) == (1, 0)
    [app] = found.artifacts
    assert (app.name, app.flow, app.trail, app.git_commit) == ("app.tgz", "app", "t1", "c" * 40)
    assert [event.type for event in app.history] == ["created"]
    assert not app.running_in


def test_artifacts_and_attestations_are_typed_over_grpc(channel):
    from evidence_grpc.api.v2 import artifact_service_pb2 as art_pb
    from evidence_grpc.api.v2 import artifact_service_pb2_grpc as art_grpc
    from evidence_grpc.api.v2 import attestation_service_pb2 as att_pb
    from evidence_grpc.api.v2 import attestation_service_pb2_grpc as att_grpc

    auth = (("authorization", f"Bearer {ALICE_KEY}"),)
    flow_grpc.FlowServiceStub(channel).UpsertFlow(
        flow_pb.UpsertFlowRequest(org="acme", name="app", description=""), metadata=auth, timeout=10)
    fingerprint, commit = "d" * 64, "e" * 40
    artifact = struct_pb2.Struct()
    artifact.update({"fingerprint": fingerprint, "filename": "app.tgz", "git_commit": commit,
                     "git_commit_info": {"sha1": commit, "author": "Al <al@x>", "message": "m",
                                         "branch": "main", "timestamp": 1700000000},
                     "build_url": "https://ci.example/1", "commit_url": "https://git.example/c",
                     "trail_name": "t1", "annotations": {"team": {"name": "core"}}})
    artifacts = art_grpc.ArtifactServiceStub(channel)
    artifacts.ReportArtifact(art_pb.ReportArtifactRequest(
        org="acme", flow_name="app", artifact=artifact), metadata=auth, timeout=10)
    attestations = att_grpc.AttestationServiceStub(channel)
    for kind, data in (
            ("junit", {"attestation_name": "tests", "artifact_fingerprint": fingerprint,
                       "junit_results": [{"name": "api", "failures": 1, "errors": 0, "skipped": 0,
                                          "total": 3, "duration": 2}]}),
            ("system", {"attestation_name": "change", "type_name": "decision", "control": "C1",
                        "git_commit_info": {"sha1": commit, "author": "Al", "message": "m",
                                            "branch": "main", "timestamp": 1700000000},
                        "attestation_data": {"is_compliant": True}})):
        data_json = struct_pb2.Struct()
        data_json.update(data)
        attestations.CreateAttestation(att_pb.CreateAttestationRequest(
            org="acme", flow_name="app", trail_name="t1", kind=kind, data_json=data_json),
            metadata=auth, timeout=10)

    found = artifacts.GetArtifactByFingerprint(art_pb.GetArtifactByFingerprintRequest(
        org="acme", flow_name="app", fingerprint=fingerprint), metadata=auth, timeout=10)
    assert isinstance(found, art_pb.Artifact)
    assert (found.filename, found.trail_name, found.state) == ("app.tgz", "t1", "NON-COMPLIANT")
    assert (found.git_commit_info.author, found.git_commit_info.timestamp) == ("Al <al@x>", 1.7e9)
    assert found.annotations["team"]["name"] == "core"
    evidence = found.evidence["tests"]
    assert (evidence.evidence_type, evidence.is_compliant) == ("junit", False)
    assert (evidence.junit_results[0].name, evidence.junit_results[0].failures) == ("api", 1)
    assert [(event.type, event.event) for event in found.history] == [
        ("created", "app.tgz reported"), ("attestation", "tests reported")]

    [tests] = attestations.GetArtifactAttestation(att_pb.GetArtifactAttestationRequest(
        org="acme", flow_name="app", fingerprint=fingerprint, attestation_name="tests"),
        metadata=auth, timeout=10).data
    assert tests.WhichOneof("kind") == "junit"
    assert (tests.junit.junit_results[0].total, tests.summary["failures"]) == (3, 1)
    assert tests.links.self_link.href.endswith(f"/artifact/{fingerprint}/tests")
    [change] = attestations.GetTrailAttestation(att_pb.GetTrailAttestationRequest(
        org="acme", flow_name="app", trail_name="t1", attestation_name="change"),
        metadata=auth, timeout=10).data
    assert change.WhichOneof("kind") == "system"
    assert (change.system.type_name, change.system.more["control"]) == ("decision", "C1")
    assert change.system.attestation_data.struct_value["is_compliant"] is True
    by_commit = attestations.ListAttestationsForCriteria(att_pb.ListAttestationsForCriteriaRequest(
        org="acme", commit_list=[commit, "f" * 40]), metadata=auth, timeout=10).by_commit
    assert [a.attestation_name for a in by_commit[commit].data] == ["change"]
    assert not by_commit["f" * 40].data
    of_trail = attestations.ListFlowAttestations(att_pb.ListFlowAttestationsRequest(
        org="acme", flow_name="app", trail_name="t1"), metadata=auth, timeout=10)
    assert [a.attestation_name for a in of_trail.data] == ["change", "tests"]
    listed = artifacts.ListFlowArtifacts(art_pb.ListFlowArtifactsRequest(
        org="acme", flow_name="app", trail_name="t1"), metadata=auth, timeout=10)
    assert [a.fingerprint for a in listed.data] == [fingerprint]
    with pytest.raises(grpc.RpcError) as missing:
        artifacts.ListFlowArtifacts(art_pb.ListFlowArtifactsRequest(
            org="acme", flow_name="app", trail_name="absent"), metadata=auth, timeout=10)
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
