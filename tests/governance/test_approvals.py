"""Approvals (deprecated) and the runtime events of artifacts on their trails, through the REST
shim (`client`) and the servicer, on every engine under test."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import grpc_testing
import pytest
import requests

from evidence_grpc.api.v2 import approval_service_pb2 as pb
from evidence_grpc.domain.evidence import flows
from evidence_grpc.domain.governance import approvals
from evidence_grpc.domain.identity.callers import Caller
from evidence_grpc.domain.kernel.errors import NotFound
from evidence_grpc.domain.runtime import environment_changes
from evidence_grpc.servicers.approvals import ApprovalServicer
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Approval, Artifact, Flow, Organization, Trail, User
from tests.conftest import BOB_KEY, bearer, recorded_statements
from tests.helpers import (
    BACKEND_FP,
    COMMIT,
    FRONTEND_FP,
    OTHER_COMMIT,
    AsCaller,
    begin_trail,
    create_flow,
    get_trail,
    report_artifact,
)

H = bearer()
SERVICE = pb.DESCRIPTOR.services_by_name["ApprovalService"]


def approval(**fields: Any) -> dict[str, Any]:
    return {"artifact_fingerprint": BACKEND_FP, "description": "ship it",
            "src_commit_list": [COMMIT, OTHER_COMMIT], "environment": "prod",
            "approvals": [{"state": "APPROVED", "comment": "ok", "approved_by": "carol",
                           "approval_url": "undefined"}], **fields}


def post(client, body: dict[str, Any], flow: str = "payments", key: str | None = None):
    return client.post(f"/api/v2/approvals/acme/{flow}", headers=bearer(key) if key else H,
                       json=body)


def report(client, env: str, *fingerprints: str):
    answer = client.put(f"/api/v2/environments/acme/{env}/report/server", headers=H, json={
        "artifacts": [{"digests": {f"app-{fp[:6]}": fp}, "creationTimestamp": 1700000000}
                      for fp in fingerprints]})
    assert answer.status_code in (200, 201), answer.json


@pytest.fixture
def reported(client):
    """Flow `payments` with trails release-1 and release-2 both reporting the backend, and
    environment `prod` (server)."""
    create_flow(client)
    for trail in ("release-1", "release-2"):
        begin_trail(client, trail=trail)
        assert report_artifact(client, trail=trail).status_code == 201
    assert client.put("/api/v2/environments/acme", headers=H, json={
        "name": "prod", "type": "server", "description": ""}).status_code == 201
    return client


def test_create_get_and_list_approvals(reported):
    created = post(reported, approval())
    assert created.status_code == 201, created.json
    assert isinstance(created.json, str) and "#1" in created.json
    pending = post(reported, approval(approvals=[], environment=None, user_data=[1, 2]))
    assert pending.status_code == 201

    first = reported.get("/api/v2/approvals/acme/payments/1", headers=H).json
    assert first["release_number"] == 1
    assert first["base_artifact"] == first["target_artifact"] == BACKEND_FP
    assert first["artifact_name"] == "backend.tgz"
    assert first["state"] == "APPROVED" and first["environment"] == "prod"
    assert first["description"] == "ship it" and first["user_data"] is None
    assert first["src_commit_list"] == [
        {"commit_sha": COMMIT, "artifact_fingerprints": [BACKEND_FP]},
        {"commit_sha": OTHER_COMMIT, "artifact_fingerprints": []}]
    [review] = first["approvals"]
    assert review["approved_by"] == "external://carol" and review["state"] == "APPROVED"
    assert review["timestamp"] == first["created_at"] == first["last_modified_at"]

    newest = reported.get("/api/v2/approvals/acme/payments/-1", headers=H).json
    assert (newest["release_number"], newest["state"], newest["environment"],
            newest["approvals"], newest["user_data"]) == (2, "PENDING", None, [], [1, 2])
    assert reported.get("/api/v2/approvals/acme/payments/-2", headers=H).json[
        "release_number"] == 1

    listed = reported.get("/api/v2/approvals/acme/payments", headers=H).json
    assert [a["release_number"] for a in listed] == [2, 1]
    assert listed[1]["src_commit_list"] == [COMMIT, OTHER_COMMIT]
    assert set(listed[1]) == set(first)

    of_artifact = reported.get(f"/api/v2/artifacts/acme/payments/{BACKEND_FP}/approvals",
                               headers=H).json
    assert [(a["release_number"], a["state"]) for a in of_artifact] == [(1, "APPROVED"),
                                                                        (2, "PENDING")]
    artifact = reported.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP}",
                            headers=H).json
    assert artifact["approvals"] == [1, 2]


def test_the_last_review_decides_the_state(reported):
    assert post(reported, approval(approvals=[
        {"state": "APPROVED", "comment": "", "approved_by": "a", "approval_url": ""},
        {"state": "UNAPPROVED", "comment": "no", "approved_by": "b", "approval_url": ""},
    ])).status_code == 201
    got = reported.get("/api/v2/approvals/acme/payments/1", headers=H).json
    assert got["state"] == "UNAPPROVED"
    assert [r["approved_by"] for r in got["approvals"]] == ["external://a", "external://b"]


def test_each_approval_is_an_event_on_every_trail_of_the_artifact(reported):
    post(reported, approval())
    post(reported, approval(approvals=[], environment=None))
    for trail in ("release-1", "release-2"):
        events = [e for e in get_trail(reported, trail=trail)["events"]
                  if e["type"] == "artifact_approval_reported"]
        assert [(e["approval_number"], e["state"], e["reviewer"], e["artifact_fingerprint"])
                for e in events] == [(1, "APPROVED", "external://carol", BACKEND_FP),
                                     (2, "PENDING", None, BACKEND_FP)]
        assert events[0]["environment_id"] is not None and events[1]["environment_id"] is None
        assert events[0]["git_commit_info"] is None and isinstance(events[0]["timestamp"], float)


@pytest.mark.parametrize("fields, field", [
    ({"artifact_fingerprint": BACKEND_FP.upper()}, "artifact_fingerprint"),
    ({"artifact_fingerprint": BACKEND_FP[:63]}, "artifact_fingerprint"),
    ({"artifact_fingerprint": BACKEND_FP + "\n"}, "artifact_fingerprint"),
    ({"src_commit_list": [COMMIT, "abc"]}, "src_commit_list.1"),
    ({"src_commit_list": [COMMIT.upper()]}, "src_commit_list.0"),
    ({"src_commit_list": "abc"}, "src_commit_list"),
    ({"src_commit_list": [1]}, "src_commit_list.0"),
    ({"oldest_commit": "x" * 40}, "oldest_commit"),
    ({"approvals": [{"state": "MAYBE"}]}, "approvals.0.state"),
    ({"approvals": "yes"}, "approvals"),
    ({"approvals": [{"state": "APPROVED", "approved_by": 7}]}, "approved_by"),
    ({"environment": "bad name"}, "environment"),
    ({"environment": 3}, "environment"),
    ({"user_data": "text"}, "user_data"),
    ({"description": None}, "description"),
    ({"surprise": 1}, "surprise"),
])
def test_bad_approvals_are_refused_naming_the_field(reported, fields, field):
    answer = post(reported, approval(**fields))
    assert answer.status_code == 400, answer.json
    assert field in answer.json["errors"], answer.json
    assert reported.get("/api/v2/approvals/acme/payments", headers=H).json == []


def test_missing_things_are_404_and_other_organizations_403(reported):
    unknown = post(reported, approval(artifact_fingerprint=FRONTEND_FP))
    assert unknown.status_code == 404
    assert unknown.json["message"] == (f"Artifact with fingerprint '{FRONTEND_FP}' does not "
                                       "exist in flow 'payments' belonging to organization 'acme'")
    assert post(reported, approval(), flow="nope").status_code == 404
    assert post(reported, approval(), key=BOB_KEY).status_code == 403
    missing = reported.get("/api/v2/approvals/acme/payments/7", headers=H)
    assert missing.status_code == 404
    assert missing.json["message"] == ("Approval number '7' does not exist in flow 'payments' "
                                       "belonging to organization 'acme'")
    for number in ("0", "-1"):
        assert reported.get(f"/api/v2/approvals/acme/payments/{number}",
                            headers=H).status_code == 404
    assert reported.get("/api/v2/approvals/acme/payments/x", headers=H).status_code == 400
    assert reported.get(f"/api/v2/artifacts/acme/payments/{FRONTEND_FP}/approvals",
                        headers=H).status_code == 404
    short = reported.get("/api/v2/artifacts/acme/payments/abc/approvals", headers=H)
    assert short.status_code == 400 and "fingerprint" in short.json["errors"]
    assert reported.get("/api/v2/approvals/acme/payments/artifact-commit/nope",
                        headers=H).status_code == 404
    for path in ("/api/v2/approvals/acme/payments", "/api/v2/approvals/acme/payments/1",
                 "/api/v2/approvals/acme/payments/artifact-commit/prod",
                 f"/api/v2/artifacts/acme/payments/{BACKEND_FP}/approvals"):
        assert reported.get(path, headers=bearer(BOB_KEY)).status_code == 403, path
        assert reported.get(path).status_code == 401, path


def test_commit_of_the_artifact_running_in_an_environment(reported):
    path = "/api/v2/approvals/acme/payments/artifact-commit/prod"
    assert reported.get(path, headers=H).json == {"commit_sha": None}
    report(reported, "prod", BACKEND_FP, FRONTEND_FP)
    assert reported.get(path, headers=H).json == {"commit_sha": COMMIT}
    report(reported, "prod", FRONTEND_FP)
    assert reported.get(path, headers=H).json == {"commit_sha": None}


def test_paging_through_thousands_of_approvals(reported):
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        user = User.get(User.name == "alice")
        started = time.perf_counter()
        for _ in range(1500):
            approvals.create_approval(org, user, "payments", fingerprint=BACKEND_FP,
                                      description="", commits=[COMMIT])
        assert time.perf_counter() - started < 120
        assert Approval.select().count() == 1500
    page = reported.get("/api/v2/approvals/acme/payments?page=3&per_page=100", headers=H).json
    assert [a["release_number"] for a in page] == list(range(1300, 1200, -1))
    last = reported.get("/api/v2/approvals/acme/payments?page=75&per_page=20", headers=H).json
    assert [a["release_number"] for a in last] == list(range(20, 0, -1))
    assert reported.get("/api/v2/approvals/acme/payments?page=76&per_page=20",
                        headers=H).json == []
    assert len(reported.get("/api/v2/approvals/acme/payments", headers=H).json) == 20
    assert reported.get("/api/v2/approvals/acme/payments?per_page=101",
                        headers=H).status_code == 400
    assert reported.get("/api/v2/approvals/acme/payments/-1500", headers=H).json[
        "release_number"] == 1
    assert len(reported.get(f"/api/v2/artifacts/acme/payments/{BACKEND_FP}/approvals",
                            headers=H).json) == 1500


def test_approval_pages_by_number_range_are_the_offset_pages(db):
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        flow, _ = flows.upsert_flow(org, "payments", "")
        flows.upsert_flow(org, "other", "")
        env, _ = environment_changes.upsert_environment(
            org, {"name": "prod", "type": "server", "description": ""})
        Approval.insert_many([
            {"organization": org, "flow": flow, "number": i, "fingerprint": f"{i:064x}",
             "artifact_name": f"app-{i}", "environment": "prod" if i % 2 else None,
             "environment_ref": env if i % 2 else None, "state": "APPROVED",
             "created_at": i, "last_modified_at": i} for i in range(1, 24)]).execute()

        def offset_page(page: int, per_page: int) -> list[dict[str, Any]]:
            return [approvals.approval_view(a) for a in approvals._approvals(
                Approval.flow == flow).order_by(Approval.number.desc()).paginate(page, per_page)]

        for per_page in (2, 5, 20, 100):
            for page in range(1, 23 // per_page + 3):  # and a page past the end
                assert [approvals.approval_view(a) for a in approvals.list_approvals(
                    org, "payments", page, per_page)] == offset_page(page, per_page)
        assert [a.number for a in approvals.list_approvals(org, "payments", 2, None)] == [3, 2, 1]
        assert approvals.list_approvals(org, "other", 1, 100) == []
        assert [approvals.get_approval(org, "payments", n).number for n in (-1, -23, 5)] == \
            [23, 1, 5]
        for missing_number in (-24, 0, 24):
            with pytest.raises(NotFound):
                approvals.get_approval(org, "payments", missing_number)


# ---- artifacts starting and stopping, on their trails ----------------------------------------

def running_events(client, trail: str = "release-1") -> list[tuple]:
    return [(e["type"], e["environment_name"], e["snapshot_index"], e["template_reference_name"],
             e.get("replica_number"))
            for e in get_trail(client, trail=trail)["events"] if "running" in e["type"]]


def test_trails_tell_when_their_artifacts_start_and_stop_running(reported):
    report(reported, "prod", BACKEND_FP)
    report(reported, "prod", BACKEND_FP)  # nothing changed: no new snapshot, no event
    report(reported, "prod", FRONTEND_FP)
    expected = [("artifact_started_running", "prod", 1, "backend", 1),
                ("artifact_stopped_running", "prod", 2, "backend", None)]
    assert running_events(reported) == running_events(reported, "release-2") == expected
    [started] = [e for e in get_trail(reported)["events"] if e["type"] == "artifact_started_running"]
    assert started["artifact_fingerprint"] == BACKEND_FP and started["git_commit_info"] is None
    assert started["environment_id"] and "replica_number" in started


def test_a_snapshot_of_many_artifacts_writes_their_events_in_a_few_statements(
        reported, monkeypatch: pytest.MonkeyPatch):
    fingerprints = [f"{n:064x}" for n in range(600)]
    create_flow(reported, "many")
    begin_trail(reported, flow="many", trail="t")
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        flow = Flow.get(Flow.name == "many")
        trail = Trail.get(Trail.flow == flow)
        Artifact.insert_many([{"organization": org, "flow": flow, "trail": trail,
                               "fingerprint": fp, "name": f"a{fp[-3:]}",
                               "template_reference_name": "backend",
                               "created_at": 1.0, "last_modified_at": 1.0}
                              for fp in fingerprints]).execute()
    statements = recorded_statements(monkeypatch)
    report(reported, "prod", *fingerprints)
    inserts = [sql for sql in statements if sql.startswith('INSERT INTO "trail_event"')]
    assert len(inserts) == 2  # 600 events, EVENT_ROWS at a time
    assert len(statements) < 30, statements
    events = get_trail(reported, flow="many", trail="t")["events"]
    assert sum(e["type"] == "artifact_started_running" for e in events) == 600


# ---- the servicer, typed -------------------------------------------------------------------------

@pytest.fixture
def call(settings, reported):
    with storage.database.connection_context():
        caller = Caller(user=User.get(User.name == "alice"),
                        organization=Organization.get(Organization.name == "acme"))
    server = grpc_testing.server_from_dictionary(
        {SERVICE: AsCaller(ApprovalServicer(), caller)}, grpc_testing.strict_real_time())

    def invoke(method, request):
        rpc = server.invoke_unary_unary(SERVICE.methods_by_name[method], (), request, None)
        response, _, code, details = rpc.termination()
        return response, code, details

    return invoke


def test_approval_service_typed(call):
    created, code, _ = call("CreateApproval", pb.CreateApprovalRequest(
        org="acme", flow_name="payments", artifact_fingerprint=BACKEND_FP, description="d",
        src_commit_list=[COMMIT],
        approvals=[pb.ApprovalReviewInput(state="APPROVED", approved_by="dave")]))
    assert code is grpc.StatusCode.OK and created.release_number == 1
    got, _, _ = call("GetApproval", pb.GetApprovalRequest(org="acme", flow_name="payments",
                                                         approval_number=1))
    assert isinstance(got, pb.Approval)
    assert got.src_commit_list[0].artifact_fingerprints == [BACKEND_FP]
    assert got.approvals[0].approved_by == "external://dave" and not got.HasField("environment")
    listed, _, _ = call("ListApprovals", pb.ListApprovalsRequest(org="acme", flow_name="payments"))
    assert [a.release_number for a in listed.approvals] == [1]
    commit, _, _ = call("GetRunningArtifactCommit", pb.GetRunningArtifactCommitRequest(
        org="acme", flow_name="payments", env_name="prod"))
    assert not commit.HasField("commit_sha")


# ---- numbering under concurrency, on a real server --------------------------------------------

def test_concurrent_approvals_and_artifact_reports_number_every_approval_once(server):
    """Approvals are numbered under a lock of the flow while artifacts are reported to its
    trails: every request succeeds, and the numbers have neither gaps nor repeats."""
    base, clients = f"{server.http_url}/api/v2", 16
    assert requests.put(f"{base}/flows/acme", headers=H, timeout=30, json={
        "name": "busy", "description": "", "visibility": "private",
        "template": []}).status_code == 201
    for n in range(clients + 1):
        assert requests.put(f"{base}/trails/acme/busy", headers=H, timeout=30,
                            files={"data_json": (None, json.dumps({"name": f"t{n}"}))}
                            ).status_code == 201
    first = {"fingerprint": BACKEND_FP, "filename": "b", "trail_name": "t0", "build_url": "",
             "commit_url": ""}
    assert requests.post(f"{base}/artifacts/acme/busy", headers=H, json=first,
                         timeout=30).status_code == 201

    def approve() -> requests.Response:
        return requests.post(f"{base}/approvals/acme/busy", headers=H, timeout=120,
                             json=approval(src_commit_list=[], environment=None))

    def report_to(n: int):
        return lambda: requests.post(f"{base}/artifacts/acme/busy", headers=H, timeout=120,
                                     json={**first, "trail_name": f"t{n}"})

    with ThreadPoolExecutor(max_workers=2 * clients) as pool:
        answers = list(pool.map(lambda c: c(), [approve] * clients
                                + [report_to(n) for n in range(1, clients + 1)]))
    assert [(a.status_code, a.text) for a in answers if not a.ok] == []
    listed = requests.get(f"{base}/approvals/acme/busy?per_page=100", headers=H, timeout=30)
    assert sorted(a["release_number"] for a in listed.json()) == list(range(1, clients + 1))
