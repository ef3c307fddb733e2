"""Controls (beta) through the REST shim and the servicer (both engines): the catalog and its
lifecycle versions, tags, decisions, coverage, the feature gate and hostile input."""

from __future__ import annotations

import io
import json
import threading
import time
from typing import Any

import grpc
import grpc_testing
import peewee
import pytest

from evidence_grpc.api.v2 import control_service_pb2 as pb
from evidence_grpc.config import Settings
from evidence_grpc.domain.governance import controls
from evidence_grpc.domain.identity.callers import Caller
from evidence_grpc.domain.kernel import list_sizes
from evidence_grpc.domain.kernel.errors import AlreadyExists
from evidence_grpc.servicers.controls import ControlServicer
from evidence_grpc.services import service_descriptors
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Attestation, Control, ControlVersion, Organization, User
from rest_shim.transcoder import routes_of
from tests.conftest import BOB_KEY, bearer
from tests.helpers import BACKEND_FP, AsCaller, attest, begin_trail, create_flow, report_artifact

BASE = "/api/v2/controls/acme"
IDENTIFIER_PATTERN = r"^[a-zA-Z0-9\-._~]+$"


def create(client, identifier: str = "ctl-1", name: str = "Code review", **extra: Any):
    return client.post(BASE, headers=bearer(), json={"identifier": identifier, "name": name,
                                                     **extra})


def policy(client, name: str, yaml_text: str, org: str = "acme"):
    body = {"name": name, "description": "", "type": "env", "comment": ""}
    return client.put(f"/api/v2/policies/{org}", headers=bearer(),
                      content_type="multipart/form-data",
                      data={"payload": json.dumps(body),
                            "policy_file": (io.BytesIO(yaml_text.encode()), "p.yml")})


def for_control(identifier: str) -> str:
    return ("_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n"
            "  attestations:\n    - name: decision\n      type: decision\n"
            f"      for_control: {identifier}\n")


def test_create_get_update_archive_and_the_version_list(client):
    created = create(client, description="every change reviewed",
                     links={"runbook.v2": "https://wiki.example/runbook"})
    assert created.status_code == 201
    body = created.get_json()
    assert {k: body[k] for k in ("identifier", "name", "description", "links", "version",
                                 "created_by", "archived", "tags", "policies_referencing")} == {
        "identifier": "ctl-1", "name": "Code review", "description": "every change reviewed",
        "links": {"runbook.v2": "https://wiki.example/runbook"}, "version": 1,
        "created_by": "alice", "archived": False, "tags": {}, "policies_referencing": []}
    assert isinstance(body["created_at"], float)

    duplicate = create(client)
    assert duplicate.status_code == 409
    assert duplicate.get_json()["message"] == \
        "A control with identifier 'ctl-1' already exists in organization 'acme'"

    updated = client.put(f"{BASE}/ctl-1", headers=bearer(),
                         json={"name": "Peer review", "links": {"a.b.c": "https://x.example"}})
    assert updated.status_code == 200
    assert (updated.get_json()["version"], updated.get_json()["links"]) == (
        2, {"a.b.c": "https://x.example"})
    # Nothing changes: no new version.
    same = client.put(f"{BASE}/ctl-1", headers=bearer(), json={"name": "Peer review"})
    assert same.get_json()["version"] == 2

    archived = client.post(f"{BASE}/ctl-1/archive", headers=bearer())
    assert (archived.status_code, archived.get_json()["archived"]) == (200, True)
    assert client.get(BASE, headers=bearer()).get_json()["controls"] == []
    listed = client.get(f"{BASE}?archived=true", headers=bearer()).get_json()
    assert [c["identifier"] for c in listed["controls"]] == ["ctl-1"]
    assert client.get(f"{BASE}/ctl-1", headers=bearer()).get_json()["archived"] is True
    again = client.post(f"{BASE}/ctl-1/archive", headers=bearer())
    assert (again.status_code, again.get_json()["message"]) == (
        400, "Control 'ctl-1' is already archived")
    edit = client.put(f"{BASE}/ctl-1", headers=bearer(), json={"name": "x"})
    assert edit.status_code == 400 and "unarchive it" in edit.get_json()["message"]
    assert client.post(f"{BASE}/ctl-1/unarchive", headers=bearer()).get_json()["version"] == 4
    assert client.post(f"{BASE}/ctl-1/unarchive", headers=bearer()).status_code == 400

    versions = client.get(f"{BASE}/ctl-1/versions", headers=bearer()).get_json()
    assert [(v["version"], v["event"], v["created_by"]) for v in versions["versions"]] == [
        (4, "Unarchived", "alice"), (3, "Archived", "alice"), (2, "Edited", "alice"),
        (1, "Created", "alice")]
    assert (versions["total_count"], versions["page"], versions["per_page"]) == (4, 1, 15)
    oldest = client.get(f"{BASE}/ctl-1/versions?sort_direction=asc&per_page=1&page=2",
                        headers=bearer()).get_json()
    assert [v["event"] for v in oldest["versions"]] == ["Edited"]
    first = client.get(f"{BASE}/ctl-1/versions/1", headers=bearer()).get_json()
    assert (first["name"], first["links"], first["archived"]) == (
        "Code review", {"runbook.v2": "https://wiki.example/runbook"}, False)
    assert client.get(f"{BASE}/ctl-1/versions/9", headers=bearer()).status_code == 404
    missing = client.get(f"{BASE}/no-such-control", headers=bearer())
    assert (missing.status_code, missing.get_json()["message"]) == (
        404, "Control 'no-such-control' does not exist in organization 'acme'")


def test_identifier_and_bodies_are_validated(client):
    bad = create(client, identifier="bad identifier")
    assert bad.status_code == 400
    assert bad.get_json() == {"message": "Input payload validation failed", "errors": {
        "identifier": f"String should match pattern '{IDENTIFIER_PATTERN}' "
                      f"[input: bad identifier]"}}
    refusals = [
        {"identifier": ".hidden", "name": "n"},
        {"identifier": "x" * 257, "name": "n"},
        {"identifier": "ok", "name": ""},
        {"identifier": "ok", "name": "n", "links": {"a": 5}},
        {"identifier": "ok", "name": "n", "links": {"a": ""}},
        {"identifier": "ok", "name": "n", "links": {f"l{i}": "u" for i in range(51)}},
        {"identifier": "ok", "name": "n", "links": ["https://x"]},
        {"identifier": "ok", "name": "n", "description": "d" * 20000},
        {"identifier": "ok", "name": "n", "unknown": 1},
        {"identifier": "ok", "name": 7},
    ]
    for body in refusals:
        answer = client.post(BASE, headers=bearer(), json=body)
        assert answer.status_code == 400, (body, answer.get_json())
        assert isinstance(answer.get_json()["message"], str)
    assert client.get(BASE + "?archived=true", headers=bearer()).get_json()["total_count"] == 0
    assert client.get(BASE, headers=bearer()).get_json()["total_count"] == 0
    assert create(client, identifier="ok").status_code == 201
    for query in ("per_page=0", "per_page=101", "page=0", "sort_direction=up", "archived=maybe"):
        assert client.get(f"{BASE}?{query}", headers=bearer()).status_code == 400, query
    for body in ({}, {"links": {"a": 1}}, {"name": ""}):
        assert client.put(f"{BASE}/ok", headers=bearer(), json=body).status_code == 400, body
    assert client.get(f"{BASE}/ok", headers=bearer()).get_json()["version"] == 1


def test_list_search_sort_tags_and_tag_choices(client):
    for identifier, name in (("b-ctl", "Beta"), ("a-ctl", "Alpha"), ("c-ctl", "gamma SDLC")):
        assert create(client, identifier=identifier, name=name).status_code == 201
    listed = client.get(BASE, headers=bearer()).get_json()
    assert [c["identifier"] for c in listed["controls"]] == ["a-ctl", "b-ctl", "c-ctl"]
    assert (listed["page"], listed["per_page"], listed["total_pages"], listed["total_count"]) == (
        1, 15, 1, 3)
    assert [c["identifier"] for c in client.get(f"{BASE}?sort_direction=desc",
                                                headers=bearer()).get_json()["controls"]] == [
        "c-ctl", "b-ctl", "a-ctl"]
    for search, found in (("sdlc", ["c-ctl"]), ("A-CT", ["a-ctl"]), ("zz", [])):
        got = client.get(f"{BASE}?search={search}", headers=bearer()).get_json()["controls"]
        assert [c["identifier"] for c in got] == found

    tagged = client.patch("/api/v2/tags/acme/control/b-ctl", headers=bearer(),
                          json={"set_tags": {"framework": "finos", "tier": "1"}, "remove_tags": []})
    assert tagged.status_code == 200
    client.patch("/api/v2/tags/acme/controls/c-ctl", headers=bearer(),
                 json={"set_tags": {"framework": "soc2"}, "remove_tags": []})
    for tags, found in ((["framework"], ["b-ctl", "c-ctl"]), (["framework:finos"], ["b-ctl"]),
                        (["framework", "tier:1"], ["b-ctl"]), (["tier:2"], [])):
        query = "&".join(f"tag={t}" for t in tags)
        got = client.get(f"{BASE}?{query}&per_page=1", headers=bearer()).get_json()
        assert got["total_count"] == len(found), tags
        assert [c["identifier"] for c in got["controls"]] == found[:1]
    assert client.get(f"{BASE}/b-ctl", headers=bearer()).get_json()["tags"] == {
        "framework": "finos", "tier": "1"}
    assert client.get(f"{BASE}/tags", headers=bearer()).get_json() == {"tags": [
        {"key": "framework", "values": ["finos", "soc2"]}, {"key": "tier", "values": ["1"]}]}
    client.patch("/api/v2/tags/acme/control/b-ctl", headers=bearer(),
                 json={"set_tags": {}, "remove_tags": ["tier"]})
    assert client.get(f"{BASE}/b-ctl", headers=bearer()).get_json()["tags"] == {
        "framework": "finos"}
    unknown = client.patch("/api/v2/tags/acme/control/no-such-control", headers=bearer(),
                           json={"set_tags": {"a": "b"}, "remove_tags": []})
    assert unknown.status_code == 404
    assert unknown.get_json()["message"] == \
        "\"Control 'no-such-control' does not exist in organization 'acme'\""


def test_decisions_of_a_control(client):
    assert create(client, identifier="change-approval").status_code == 201
    create(client, identifier="other")
    for flow in ("payments", "billing"):
        create_flow(client, flow)
        begin_trail(client, flow=flow)

    def decide(flow: str, compliant: bool, control: str = "change-approval") -> None:
        answer = attest(client, "system", {
            "attestation_name": "approval", "type_name": "decision", "control": control,
            "attestation_data": {"is_compliant": compliant}, "user_data": {}}, flow=flow)
        assert answer.status_code == 201, answer.get_json()

    decide("payments", True)
    before_second = time.time()
    decide("payments", False)
    decide("billing", True)
    decide("billing", False, control="other")
    decide("billing", True, control="not-in-the-catalog")  # recorded as sent
    create(client, identifier="Change-Approval")  # identifiers are case-sensitive
    decide("billing", False, control="Change-Approval")
    decide("billing", False, control="change-approval-2")

    url = f"{BASE}/change-approval/decisions"
    listed = client.get(url, headers=bearer()).get_json()
    assert [(d["flow_name"], d["is_compliant"]) for d in listed["decisions"]] == [
        ("billing", True), ("payments", False), ("payments", True)]
    assert listed["total_count"] == 3
    first = listed["decisions"][0]
    assert (first["control"], first["trail_name"], first["attestation_name"],
            first["created_by"]) == ("change-approval", "release-1", "approval", "alice")
    for query, expected in (("is_compliant=false", [False]),
                            ("flow_id=payments", [False, True]),
                            ("flow_id=payments&flow_id=billing", [True, False, True]),
                            ("flow_id=nope", []),
                            (f"from_timestamp={before_second}", [True, False]),
                            (f"to_timestamp={before_second}", [True]),
                            ("sort_direction=asc&per_page=2&page=2", [True])):
        got = client.get(f"{url}?{query}", headers=bearer()).get_json()["decisions"]
        assert [d["is_compliant"] for d in got] == expected, query
    one = client.get(f"{url}/{first['decision_id']}", headers=bearer())
    assert one.status_code == 200 and one.get_json() == first
    others = client.get(f"{BASE}/other/decisions", headers=bearer()).get_json()["decisions"]
    assert len(others) == 1
    wrong_control = client.get(f"{url}/{others[0]['decision_id']}", headers=bearer())
    assert wrong_control.status_code == 404
    assert client.get(f"{BASE}/nope/decisions", headers=bearer()).status_code == 404
    assert client.get(f"{url}?sort_direction=sideways", headers=bearer()).status_code == 400


def test_a_decision_shows_the_control_version_of_its_time_and_its_artifact(client):
    """Each decision names the control's version current when it was recorded, and the
    artifact it is about with the flow that artifact was reported in (another flow than the
    decision's when a release trail decides about a build)."""
    create_flow(client, "build")
    begin_trail(client, flow="build")
    assert report_artifact(client, flow="build", template_name=None).status_code == 201
    create_flow(client, "release")
    begin_trail(client, flow="release")

    def decide(**about: Any) -> None:
        answer = attest(client, "system", {
            "attestation_name": "review", "type_name": "decision", "control": "later-ctl",
            "attestation_data": {"is_compliant": True}, "user_data": {}, **about},
            flow="release")
        assert answer.status_code == 201, answer.get_json()

    decide()  # before its control exists
    assert create(client, identifier="later-ctl").status_code == 201
    decide(artifact_fingerprint=BACKEND_FP)
    client.put(f"{BASE}/later-ctl", headers=bearer(), json={"name": "Second"})
    decide()
    listed = client.get(f"{BASE}/later-ctl/decisions", headers=bearer()).get_json()["decisions"]
    assert [d["control_version"] for d in listed] == [2, 1, None]
    second, first = listed[:2]
    assert (first["artifact_name"], first["artifact_flow_name"], first["flow_name"]) == (
        "backend.tgz", "build", "release")
    assert (second["artifact_name"], second["artifact_flow_name"]) == (None, None)
    one = client.get(f"{BASE}/later-ctl/decisions/{first['decision_id']}", headers=bearer())
    assert one.get_json() == {**first, "control_version": 1}


def test_coverage_and_the_policies_referencing_a_control(client):
    create(client, identifier="ctl-1")
    refused = policy(client, "needs-missing", for_control("missing-ctl"))
    assert refused.status_code == 400
    assert refused.get_json()["errors"] == {"artifacts.attestations.0.for_control":
                                            "Control 'missing-ctl' does not exist in "
                                            "organization 'acme'"}
    assert client.get("/api/v2/policies/acme/needs-missing", headers=bearer()).status_code == 404
    assert policy(client, "enforce", for_control("ctl-1")).status_code == 201
    assert policy(client, "plain", "_schema: https://kosli.com/schemas/policy/environment/v1\n"
                                   "artifacts:\n  provenance:\n    required: true\n"
                  ).status_code == 201
    for env, policies in (("prod", ["enforce", "plain"]), ("staging", ["plain"]), ("dev", [])):
        client.put("/api/v2/environments/acme", headers=bearer(),
                   json={"name": env, "type": "server", "description": ""})
        if policies:
            client.post(f"/api/v2/environments/acme/{env}/policies", headers=bearer(),
                        json={"policy_names": policies})
    assert client.get(f"{BASE}/ctl-1", headers=bearer()).get_json()[
        "policies_referencing"] == ["enforce"]
    url = f"{BASE}/ctl-1/coverage"
    report = client.get(url, headers=bearer()).get_json()
    assert [(e["name"], e["covered"], e["policies"]) for e in report["environments"]] == [
        ("dev", False, []), ("prod", True, ["enforce"]), ("staging", False, [])]
    assert (report["covered_count"], report["uncovered_count"], report["total_count"]) == (1, 2, 3)
    # the documented summary: every active environment, whatever the list is filtered by
    summary = ("total", "covered", "coverage_percent")
    assert [report[k] for k in summary] == [3, 1, 33.33]
    uncovered = client.get(f"{url}?covered=false", headers=bearer()).get_json()
    assert [e["name"] for e in uncovered["environments"]] == ["dev", "staging"]
    searched = client.get(f"{url}?search=PRO", headers=bearer()).get_json()
    assert [e["name"] for e in searched["environments"]] == ["prod"]
    assert [searched[k] for k in (*summary, "covered_count", "uncovered_count", "total_count")
            ] == [3, 1, 33.33, 1, 0, 1]
    assert [e["name"] for e in client.get(f"{url}?per_page=1&page=3", headers=bearer())
            .get_json()["environments"]] == ["staging"]
    for env in ("dev", "staging"):  # archived environments are not counted
        assert client.put(f"/api/v2/environments/acme/{env}/archive",
                          headers=bearer()).status_code == 200
    assert [client.get(url, headers=bearer()).get_json()[k] for k in summary] == [1, 1, 100.0]

    # Only the latest version counts: a new version without the reference uncovers prod.
    assert policy(client, "enforce", "_schema: https://kosli.com/schemas/policy/environment/v1\n"
                                     "artifacts:\n  provenance:\n    required: true\n"
                  ).status_code == 200
    uncovering = client.get(url, headers=bearer()).get_json()
    assert [uncovering[k] for k in ("covered_count", *summary)] == [0, 1, 0, 0]
    assert client.get(f"{BASE}/ctl-1", headers=bearer()).get_json()["policies_referencing"] == []


def test_policies_of_an_organization_without_controls_name_controls_freely(client):
    assert policy(client, "free", for_control("anything"), org="acme-shared").status_code == 201


def control_routes() -> list:
    return [r for r in routes_of(service_descriptors())
            if r.method.containing_service.name == "ControlService"]


def _path(route, values: dict[str, str]) -> str:
    path = route.rule
    for name in route.path_fields:
        path = path.replace(f"<{name}>", values[name]).replace(f"<path:{name}>", values[name])
    return path


@pytest.mark.parametrize("org, key, status", [("acme-shared", None, 403), ("acme", BOB_KEY, 403)])
def test_every_control_endpoint_refuses_without_the_feature_or_membership(
        client, org: str, key: str | None, status: int):
    """acme-shared is alice's but has no Controls feature; bob is no member of acme."""
    routes = control_routes()
    assert len(routes) == 12
    values = {"org": org, "identifier": "ctl-1", "version_number": "1", "decision_id": "d"}
    for route in routes:
        answer = client.open(_path(route, values), method=route.http_method,
                             headers=bearer(key) if key else bearer(),
                             json={"identifier": "x", "name": "y"}
                             if route.http_method in ("POST", "PUT") else None)
        assert answer.status_code == status, (route.rule, answer.get_json())
        assert isinstance(answer.get_json()["message"], str)
    tag = client.patch(f"/api/v2/tags/{org}/control/ctl-1", headers=bearer(key) if key else bearer(),
                       json={"set_tags": {"a": "b"}, "remove_tags": []})
    assert tag.status_code == 403


def test_feature_gate_message(client):
    answer = client.get("/api/v2/controls/acme-shared", headers=bearer())
    assert answer.get_json()["message"] == \
        "The Controls feature (beta) is not enabled for organization 'acme-shared'"


def test_paging_through_thousands_of_controls(client):
    count = 2500
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        rows = [{"organization": org.id, "identifier": f"ctl-{i:05d}", "name": f"Control {i:05d}",
                 "description": "", "links": {}, "tags": {"even": "yes"} if i % 2 == 0 else {},
                 "version": 1, "archived": i % 10 == 0, "created_by": "alice",
                 "created_at": 1.0, "last_modified_at": 1.0} for i in range(count)]
        with storage.database.atomic():
            for start in range(0, count, 500):
                Control.insert_many(rows[start:start + 500]).execute()
    seen: list[str] = []
    page = 1
    started = time.perf_counter()
    while True:
        got = client.get(f"{BASE}?per_page=100&page={page}", headers=bearer()).get_json()
        if not got["controls"]:
            break
        seen += [c["identifier"] for c in got["controls"]]
        page += 1
    elapsed = time.perf_counter() - started
    active = [r["identifier"] for r in rows if not r["archived"]]
    assert seen == active
    assert (got["total_count"], got["total_pages"]) == (len(active), 23)
    assert elapsed < 20, elapsed
    archived = client.get(f"{BASE}?archived=true&per_page=100&page=3&sort_direction=desc",
                          headers=bearer()).get_json()
    assert archived["total_count"] == 250
    assert archived["controls"][0]["identifier"] == "ctl-00490"
    even = client.get(f"{BASE}?tag=even:yes&per_page=100&page=10", headers=bearer()).get_json()
    assert even["total_count"] == 1000 and len(even["controls"]) == 100
    assert even["controls"][-1]["identifier"] == "ctl-02498"
    search = client.get(f"{BASE}?search=CONTROL%200001", headers=bearer()).get_json()
    assert search["total_count"] == 9  # 00011..00019 active of 00010..00019


def test_control_service_over_grpc(client, settings: Settings):
    with storage.database.connection_context():
        caller = Caller(user=User.get(User.name == "alice"),
                        organization=Organization.get(Organization.name == "acme"))
    service = pb.DESCRIPTOR.services_by_name["ControlService"]
    server = grpc_testing.server_from_dictionary(
        {service: AsCaller(ControlServicer(settings), caller)}, grpc_testing.strict_real_time())

    def call(method: str, request: Any) -> Any:
        rpc = server.invoke_unary_unary(service.methods_by_name[method], (), request, None)
        response, _, status, details = rpc.termination()
        assert status is grpc.StatusCode.OK, details
        return response

    request = pb.CreateControlRequest(org="acme", identifier="ctl", name="Control")
    request.links.update({"docs.v1": "https://docs.example"})
    created = call("CreateControl", request)
    assert isinstance(created, pb.Control)
    assert (created.version, dict(created.links)) == (1, {"docs.v1": "https://docs.example"})
    # (refusals over a real gRPC server, with their status codes: e2e/test_grpc.py)
    updated = call("UpdateControl", pb.UpdateControlRequest(org="acme", identifier="ctl",
                                                            description="why"))
    assert (updated.description, updated.version) == ("why", 2)
    assert call("ArchiveControl", pb.ArchiveControlRequest(org="acme", identifier="ctl")).archived
    listed = call("ListControls", pb.ListControlsRequest(org="acme", archived=True))
    assert [c.identifier for c in listed.controls] == ["ctl"] and listed.total_count == 1
    call("UnarchiveControl", pb.UnarchiveControlRequest(org="acme", identifier="ctl"))
    versions = call("ListControlVersions", pb.ListControlVersionsRequest(
        org="acme", identifier="ctl", sort_direction="asc"))
    assert [v.event for v in versions.versions] == ["Created", "Edited", "Archived", "Unarchived"]
    assert call("GetControlVersion", pb.GetControlVersionRequest(
        org="acme", identifier="ctl", version_number=2)).description == "why"
    assert call("GetControl", pb.GetControlRequest(org="acme", identifier="ctl")).version == 4
    assert list(call("ListControlTagChoices", pb.ListControlTagChoicesRequest(org="acme")).tags) == []
    assert list(call("ListControlDecisions", pb.ListControlDecisionsRequest(
        org="acme", identifier="ctl")).decisions) == []
    create_flow(client)
    begin_trail(client)
    assert attest(client, "system", {
        "attestation_name": "review", "type_name": "decision", "control": "ctl",
        "attestation_data": {"is_compliant": True}, "user_data": {}}).status_code == 201
    decided = call("ListControlDecisions", pb.ListControlDecisionsRequest(
        org="acme", identifier="ctl")).decisions[0]
    assert decided.HasField("control_version") and decided.control_version == 4
    assert not decided.HasField("artifact_name") and not decided.HasField("artifact_flow_name")
    assert call("GetControlCoverage", pb.GetControlCoverageRequest(
        org="acme", identifier="ctl")).total_count == 0
    assert policy(client, "enforce", for_control("ctl")).status_code == 201
    for env in ("prod", "dev", "qa"):
        client.put("/api/v2/environments/acme", headers=bearer(),
                   json={"name": env, "type": "server", "description": ""})
    client.post("/api/v2/environments/acme/prod/policies", headers=bearer(),
                json={"policy_names": ["enforce"]})
    coverage = call("GetControlCoverage", pb.GetControlCoverageRequest(
        org="acme", identifier="ctl", search="PRO"))
    assert isinstance(coverage, pb.ControlCoverage)
    assert (coverage.total, coverage.covered, coverage.coverage_percent) == (3, 1, 33.33)
    assert [(e.name, e.covered, list(e.policies)) for e in coverage.environments] == [
        ("prod", True, ["enforce"])]


def test_a_failed_write_changes_nothing(db):
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        controls.create_control(org, "alice", "ctl", "Control")
        with pytest.raises(controls.FailedPrecondition):
            controls.set_archived(org, "alice", "ctl", False)
        with pytest.raises(AlreadyExists):
            controls.create_control(org, "alice", "ctl", "Other")
        assert [(v.version, v.event) for v in ControlVersion.select()] == [(1, "Created")]
        assert Control.get().name == "Control"


def _matched(org: Organization, identifier: str, ascending: bool,
             is_compliant: bool | None) -> list[str]:
    """The decisions (uids) the release before listed for the control, in its order: those of
    the organization whose summary holds `"control":"<identifier>"`, by created_at and id."""
    fragment = peewee.Value(f'"control":{json.dumps(identifier)}', converter=False)
    query = Attestation.select(Attestation.uid).where(
        (Attestation.organization == org) & (Attestation.type == "decision")
        & storage.contains(Attestation.summary, fragment, case_sensitive=True))
    if is_compliant is not None:
        query = query.where(Attestation.is_compliant == is_compliant)
    return [uid for (uid,) in query.order_by(*(
        (Attestation.created_at, Attestation.id) if ascending
        else (Attestation.created_at.desc(), Attestation.id.desc()))).tuples()]


def test_every_page_of_a_controls_decisions_is_what_the_summary_match_found(db):
    """A control's decisions, every page in both orders and one past the end, filtered or not,
    are the ones (and in the order) the release before found by matching its identifier in the
    decisions' summaries: those made before the control was, and after; an override of one;
    not those of a control whose identifier begins with its own or differs in case."""
    from evidence_grpc.domain.evidence import attestations, flows, trails

    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        alice = User.get(User.name == "alice")
        for flow in ("payments", "billing"):
            flows.upsert_flow(org, flow, "")
            trails.begin_trail(org, flow, {"name": "r1"}, alice)

        def decide(control: str, n: int, name: str = "approval") -> None:
            attestations.create_attestation(
                org, alice, ("payments", "billing")[n % 2], "r1", "system",
                {"attestation_name": name, "type_name": "decision", "control": control,
                 "attestation_data": {"is_compliant": n % 3 != 0}, "user_data": {}}, None)

        for n in range(3):  # before the control exists
            decide("ctl-1", n)
        controls.create_control(org, "alice", "ctl-1", "Change approval")
        for n, control in enumerate(["ctl-1", "ctl-10", "ctl-1", "Ctl-1", "ctl-1", "ctl-1",
                                     "ctl-1", "ctl-10", "ctl-1"]):
            decide(control, n)
        decide("ctl-1", 1, name="waiver")
        attestations.override_attestation(org, alice, "billing", "r1", {
            "attestation_name": "waiver", "original_attestation_type": "system:decision",
            "new_compliance_status": True, "reason": "accepted", "user_data": {}})
        for identifier in ("ctl-10", "Ctl-1"):
            controls.create_control(org, "alice", identifier, "Other")

        for identifier in ("ctl-1", "ctl-10", "Ctl-1"):
            for ascending in (False, True):
                for is_compliant in (None, False):
                    everything = _matched(org, identifier, ascending, is_compliant)
                    per_page = 3
                    for page in range(1, len(everything) // per_page + 3):  # one past the end
                        listed, pagination = controls.list_decisions(
                            org, identifier, page, per_page, is_compliant=is_compliant,
                            sort_direction="asc" if ascending else "desc")
                        assert [a.uid for a in listed] == \
                            everything[(page - 1) * per_page:page * per_page], \
                            (identifier, ascending, is_compliant, page)
                        assert pagination["total_count"] == len(everything)
        assert len(_matched(org, "ctl-1", False, None)) == 11
        # the domain writes a control's decisions in the order of their ids
        ids = [a.id for a in controls.list_decisions(org, "ctl-1", 1, 100,
                                                     sort_direction="asc")[0]]
        assert ids == sorted(ids)
        assert list(list_sizes.problems()) == []
        # a decision moved to another control's list in SQL: check-lists names both lists
        Attestation.update(control="ctl-10").where(Attestation.id == ids[0]).execute()
        mine, other = (Control.get(Control.identifier == i).id for i in ("ctl-1", "ctl-10"))
        assert list(list_sizes.problems()) == [
            f"decisions of control {mine}: 10 rows, 11 positions of 11 items up to 11, "
            f"kept size 11",
            f"decisions of control {other}: 3 rows, 2 positions of 2 items up to 2, "
            f"kept size 2",
            f"decisions of control {mine}: position 1 names {ids[0]}, not a row of it"]


def test_a_decision_recorded_while_its_control_is_created_is_listed_once(db, engine, monkeypatch):
    """PostgreSQL's writers run side by side: a decision recorded while its control is being
    created, after the control's transaction numbered the decisions made before it (this one
    not yet committed, so not among them), waits for that transaction and then takes the list's
    next position: it is listed, once."""
    if engine != "postgresql":
        pytest.skip("SQLite's writers take turns")
    from evidence_grpc.domain.evidence import attestations, flows, trails

    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        alice = User.get(User.name == "alice")
        flows.upsert_flow(org, "payments", "")
        trails.begin_trail(org, "payments", {"name": "r1"}, alice)
    recorded, numbered, released = threading.Event(), threading.Event(), threading.Event()
    hold, number = controls._hold, list_sizes.number

    def hold_once_the_control_is_numbered(of: Organization, strength: str) -> None:
        if strength == "SHARE":  # the decision's, before it looks for its control
            recorded.set()
            numbered.wait(30)
        hold(of, strength)

    def number_and_wait(name: str, owner: int | None = None) -> None:
        number(name, owner)
        numbered.set()
        released.wait(30)  # the control's transaction stays open meanwhile

    monkeypatch.setattr(controls, "_hold", hold_once_the_control_is_numbered)
    monkeypatch.setattr(list_sizes, "number", number_and_wait)
    errors: list[BaseException] = []

    def guarded(work: Any) -> None:
        try:
            with storage.database.connection_context():
                work()
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    decision = threading.Thread(target=guarded, args=(lambda: attestations.create_attestation(
        org, alice, "payments", "r1", "system",
        {"attestation_name": "approval", "type_name": "decision", "control": "ctl",
         "attestation_data": {"is_compliant": True}}, None),))
    control = threading.Thread(target=guarded, args=(
        lambda: controls.create_control(org, "alice", "ctl", "Control"),))
    decision.start()
    assert recorded.wait(30)
    control.start()
    assert numbered.wait(30)
    with storage.database.connection_context():
        deadline = time.monotonic() + 20
        while not storage.database.execute_sql(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'").fetchone()[0]:
            assert time.monotonic() < deadline, "the decision did not wait for its control"
        released.set()
        for thread in (decision, control):
            thread.join(60)
        assert errors == []
        listed, pagination = controls.list_decisions(org, "ctl")
        assert (len(listed), pagination["total_count"]) == (1, 1)
        assert list(list_sizes.problems()) == []
