"""A flow taken by name is also found by a former name (a rename or an archiving left it, until a
flow takes that name): every route of the protos that takes a flow's name (path, query or body)
goes through the one lookup (`kernel.references.ids_by_name`, `evidence.flows.find_flow`).

The routes are enumerated from the service descriptors: every request field whose name says
flow (and the tag route's resource id), so a new route fails
`test_every_route_that_takes_a_flow_name_is_decided` until it has a probe below or the reason
its field names no flow. Both engines, through the REST shim; old snapshots, which show their
flows by the names they have now, through REST and gRPC."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from google.protobuf import descriptor, json_format

from evidence_grpc.api.v2 import control_service_pb2 as control_pb
from evidence_grpc.api.v2 import control_service_pb2_grpc as control_grpc
from evidence_grpc.api.v2 import deployment_service_pb2 as deployment_pb
from evidence_grpc.api.v2 import deployment_service_pb2_grpc as deployment_grpc
from evidence_grpc.api.v2 import snapshot_service_pb2 as snapshot_pb
from evidence_grpc.api.v2 import snapshot_service_pb2_grpc as snapshot_grpc
from evidence_grpc.services import service_descriptors
from tests.conftest import ALICE_KEY, bearer, grpc_channel
from tests.helpers import (
    BACKEND_FP,
    COMMIT,
    FRONTEND_FP,
    PUBLIC_HOOK,
    attest,
    begin_trail,
    create_env,
    create_flow,
    report_artifact,
)

H = bearer()
AUTH = (("authorization", f"Bearer {ALICE_KEY}"),)
OLD, NEW = "checkout", "checkout-v2"
Probe = Callable[[Any], None]


# ---- which routes take a flow's name ----------------------------------------------------------

def _flow_fields(message: descriptor.Descriptor, prefix: str = "") -> Iterator[str]:
    for field in message.fields:
        if "flow" in field.name:
            yield prefix + field.name
        if field.message_type is not None and field.message_type.file.package == "evidence.v2":
            yield from _flow_fields(field.message_type, f"{prefix}{field.name}.")


def taken() -> set[tuple[str, str]]:
    """(Service.Method, field) of every request field that may name a flow."""
    found = {(f"{service.name}.{method.name}", field)
             for service in service_descriptors() for method in service.methods
             for field in _flow_fields(method.input_type)}
    found.add(("TagService.UpdateTags", "resource_id"))  # a flow's name when resource_type is
    return found


# ---- probes: each takes the flow by its former name -----------------------------------------

def _get(client, path: str, status: int = 200) -> Any:
    answer = client.get(path, headers=H)
    # read whole before the next request, as a client does (a streamed answer is written as it
    # is read, on this thread's connection)
    body = answer.get_data()
    assert answer.status_code == status, (path, body[:500])
    return answer


def same(path: str, view: Callable[[Any], Any] = lambda body: body, binary: bool = False
         ) -> Probe:
    """GET `path` by the former and by the current name: the same answer, which is not empty
    (`view`: the part of it to compare; `binary`: compared by status only)."""
    def probe(client) -> None:
        by_old, by_new = (_get(client, path.format(flow=name)) for name in (OLD, NEW))
        if binary:
            return
        if by_old.mimetype == "application/json":
            old, new = view(by_old.get_json()), view(by_new.get_json())
        else:
            old, new = by_old.get_data(as_text=True), by_new.get_data(as_text=True)
        assert old == new, path
        assert old, f"{path}: an empty answer proves nothing"
    return probe


def written(method: str, path: str, body: dict[str, Any], then: str, multipart: bool = False
            ) -> Probe:
    """A write by the former name lands in the renamed flow: `then` (by the current name)
    answers it."""
    def probe(client) -> None:
        sent = (dict(content_type="multipart/form-data", data={"data_json": json.dumps(body)})
                if multipart else dict(json=body))
        answer = client.open(path.format(flow=OLD), method=method, headers=H, **sent)
        assert answer.status_code in (200, 201), (path, answer.get_json())
        _get(client, then.format(flow=NEW))
    return probe


def flow_action(client) -> None:
    answer = client.put("/api/v2/actions/acme/flows", headers=H, json={
        "name": "watch", "flows": [OLD], "triggers": ["ON_STARTED_TRAIL"],
        "targets": [{"type": "WEBHOOK", "webhook": PUBLIC_HOOK}]})
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["flows"] == [NEW]


def tags(client) -> None:
    answer = client.patch(f"/api/v2/tags/acme/flow/{OLD}", headers=H,
                          json={"set_tags": {"team": "shop"}})
    assert answer.status_code == 200, answer.get_json()
    assert _get(client, f"/api/v2/flows/acme/{NEW}").get_json()["tags"] == {"team": "shop"}


def rename(client) -> None:
    answer = client.put(f"/api/v2/flows/acme/{OLD}/rename", headers=H, json={"new_name": "v3"})
    assert answer.status_code == 200, answer.get_json()
    assert _get(client, "/api/v2/flows/acme/v3").get_json()["description"] == "the shop"


def archived(client, name: str) -> str:
    """Archive the flow found by `name`: the name archiving gave it (NAME-archived-at-<unix
    seconds>), the only one an archived flow answers to."""
    before = int(time.time())
    answer = client.put(f"/api/v2/flows/acme/{name}/archive", headers=H, json={})
    assert answer.status_code == 200, answer.get_json()
    _get(client, f"/api/v2/flows/acme/{name}", status=404)
    [found] = [body["name"] for seconds in range(before, int(time.time()) + 1)
               for answer in [client.get(f"/api/v2/flows/acme/{name}-archived-at-{seconds}",
                                         headers=H)]
               if answer.status_code == 200 for body in [answer.get_json()] if body["archived"]]
    return found


def archive(client) -> None:  # last, after `rename`: OLD is a former name of `v3` too
    answer = client.put(f"/api/v2/flows/acme/{OLD}/archive", headers=H, json={})
    assert answer.status_code == 200, answer.get_json()
    # an archived flow answers only to the name archiving gave it
    _get(client, f"/api/v2/flows/acme/{OLD}", status=404)


TRAIL = "/api/v2/trails/acme/{flow}/release-1"
ATTESTATIONS = "/api/v2/attestations/acme/{flow}"
ARTIFACT = "/api/v2/artifacts/acme/{flow}/" + BACKEND_FP
APPROVAL = {"artifact_fingerprint": BACKEND_FP, "description": "ship it", "environment": "prod",
            "src_commit_list": [COMMIT], "approvals": [
                {"state": "APPROVED", "comment": "ok", "approved_by": "carol",
                 "approval_url": "undefined"}]}
ARTIFACT_REPORT = {"fingerprint": FRONTEND_FP, "filename": "frontend.tgz",
                   "trail_name": "release-1", "git_commit": COMMIT,
                   "build_url": "https://ci.example/build/2",
                   "commit_url": f"https://github.com/acme/shop/commit/{COMMIT}"}
# Every route that takes a flow's name: its probe, or why the field names no flow. Writes that
# change the flow's name come last, in this order.
DECIDED: dict[tuple[str, str], Probe | str] = {
    ("ActionService.PutEnvironmentAction", "action.flows"):
        "an environment action watches environments: its flows are not read",
    ("ActionService.PutEnvironmentNotification", "notification.flows"):
        "an environment notification watches environments: its flows are not read",
    ("ActionService.UpdateEnvironmentNotification", "notification.flows"):
        "an environment notification watches environments: its flows are not read",
    ("TrailService.ListTrails", "flow_tag"): "a flow's tag, not its name",
    ("ActionService.PutFlowAction", "action.flows"): flow_action,
    ("ApprovalService.ListApprovals", "flow_name"): same("/api/v2/approvals/acme/{flow}"),
    ("ApprovalService.GetApproval", "flow_name"): same("/api/v2/approvals/acme/{flow}/1"),
    ("ApprovalService.GetRunningArtifactCommit", "flow_name"):
        same("/api/v2/approvals/acme/{flow}/artifact-commit/prod"),
    ("ApprovalService.ListArtifactApprovals", "flow_name"): same(ARTIFACT + "/approvals"),
    ("ApprovalService.CreateApproval", "flow_name"): written(
        "POST", "/api/v2/approvals/acme/{flow}", APPROVAL, "/api/v2/approvals/acme/{flow}/2"),
    ("ArtifactService.GetArtifactByFingerprint", "flow_name"):
        same("/api/v2/artifacts/acme/{flow}/fingerprint/" + BACKEND_FP),
    ("ArtifactService.GetArtifactsByCommit", "flow_name"):
        same(f"/api/v2/artifacts/acme/{{flow}}/commit_sha/{COMMIT}"),
    ("ArtifactService.GetLatestArtifactCommit", "flow_name"):
        same(ARTIFACT + "/latest_commit"),
    ("ArtifactService.GetArtifactAuditPackage", "flow_name"):
        same(ARTIFACT + "/audit_package", binary=True),
    ("ArtifactService.ListArtifacts", "flow_name"):
        same("/api/v2/artifacts/acme?flow_name={flow}"),
    ("ArtifactService.ListFlowArtifacts", "flow_name"): same("/api/v2/artifacts/acme/{flow}"),
    ("ArtifactService.ReportArtifact", "flow_name"): written(
        "POST", "/api/v2/artifacts/acme/{flow}", ARTIFACT_REPORT,
        "/api/v2/artifacts/acme/{flow}/fingerprint/" + FRONTEND_FP),
    ("AssertService.AssertArtifact", "flow_name"):
        same(f"/api/v2/asserts/acme/fingerprint/{BACKEND_FP}?flow_name={{flow}}",
             lambda body: body["flows"]),
    ("AttestationService.GetTrailAttestation", "flow_name"):
        same(ATTESTATIONS + "/trail/release-1/review"),
    ("AttestationService.GetAttestationInToto", "flow_name"):
        same(ATTESTATIONS + "/trail/release-1/review/in-toto", binary=True),
    ("AttestationService.GetArtifactAttestation", "flow_name"):
        same(ATTESTATIONS + f"/artifact/{BACKEND_FP}/scan"),
    ("AttestationService.ListAttestations", "flow"):
        same("/api/v2/attestations/acme?flow={flow}", lambda body: body["data"]),
    ("AttestationService.ListFlowAttestations", "flow_name"):
        same(ATTESTATIONS, lambda body: body["data"]),
    ("AttestationService.ListAttestationsForCriteria", "flow_name"): same(
        f"/api/v2/attestations/acme/list_attestations_for_criteria?flow_name={{flow}}"
        f"&commit_list={COMMIT}", lambda body: body[COMMIT]),
    ("AttestationService.GetAttestationEvidence", "flow_name"): "probed by evidence_probe",
    ("AttestationService.CreateAttestation", "flow_name"): written(
        "POST", ATTESTATIONS + "/trail/release-1/generic",
        {"attestation_name": "later", "is_compliant": True},
        ATTESTATIONS + "/trail/release-1/later", multipart=True),
    ("AttestationService.OverrideAttestation", "flow_name"): written(
        "POST", ATTESTATIONS + "/trail/release-1/override",
        {"attestation_name": "review", "original_attestation_type": "generic",
         "new_compliance_status": False, "reason": "re-judged", "user_data": {}},
        ATTESTATIONS + "/trail/release-1/review"),
    ("ControlService.ListControlDecisions", "flow_id"): same(
        "/api/v2/controls/acme/ctl/decisions?flow_id={flow}", lambda body: body["decisions"]),
    ("DeploymentService.GetDeploymentFrequency", "flow_id"): same(
        "/api/v2/environments/acme/prod/deployment_frequency?flow_id={flow}",
        lambda body: (body["flow_name"], body["count"], body["deployment_frequency"])),
    ("EnvironmentService.GetEnvironmentAuditLog", "flow_names"):
        same("/api/v2/environments/acme/prod/auditlog?flow_names={flow}"),
    ("FlowService.GetFlow", "flow_name"): same("/api/v2/flows/acme/{flow}"),
    ("TrailService.GetTrail", "flow_name"): same(TRAIL),
    ("TrailService.GetTrailAuditPackage", "flow_name"):
        same(TRAIL + "/audit_package", binary=True),
    ("TrailService.GetTrailAuditPdf", "flow_name"): same(TRAIL + "/audit_pdf", binary=True),
    ("TrailService.ListFlowTrails", "flow_name"): same("/api/v2/trails/acme/{flow}"),
    ("TrailService.StreamFlowTrails", "flow_name"):
        "the answer of ListFlowTrails' route unpaged (probed above: it streams)",
    ("TrailService.ListTrails", "flow"):
        same("/api/v2/trails/acme?flow={flow}", lambda body: body["data"]),
    ("TrailService.BeginTrail", "flow_name"): written(
        "PUT", "/api/v2/trails/acme/{flow}", {"name": "release-2"},
        "/api/v2/trails/acme/{flow}/release-2", multipart=True),
    ("TagService.UpdateTags", "resource_id"): tags,
    ("FlowService.RenameFlow", "flow_name"): rename,
    ("FlowService.ArchiveFlow", "flow_name"): archive,
}


def evidence_probe(client) -> None:
    """The evidence file of an attestation, found by its id in the renamed flow."""
    [attested] = _get(client, f"/api/v2/attestations/acme/{NEW}/trail/release-1/report"
                      ).get_json()
    same(ATTESTATIONS + f"/trail/release-1/attestation/{attested['attestation_id']}/evidence",
         binary=True)(client)


def test_every_route_that_takes_a_flow_name_is_decided():
    assert taken() == set(DECIDED), (
        "decide each new route that takes a flow's name: a probe in DECIDED, or why not")


def _arrange(client) -> None:
    """Flow OLD (the shop): a trail with an artifact, attestations (one with an attachment,
    one a control's decision), an approval, a deployment to prod; then renamed NEW."""
    assert client.post("/api/v2/controls/acme", headers=H,
                       json={"identifier": "ctl", "name": "Review"}).status_code == 201
    create_flow(client, OLD)
    client.put("/api/v2/flows/acme", headers=H, json={"name": OLD, "description": "the shop"})
    begin_trail(client, flow=OLD)
    assert report_artifact(client, flow=OLD).status_code == 201
    for kind, data, attachment in (
            ("generic", {"attestation_name": "review", "is_compliant": True,
                         "git_commit_info": {"sha1": COMMIT, "message": "Build", "branch": "main",
                                             "author": "Alice <a@x>", "timestamp": 1700000000}},
             None),
            ("generic", {"attestation_name": "scan", "is_compliant": True,
                         "artifact_fingerprint": BACKEND_FP}, None),
            ("generic", {"attestation_name": "report", "is_compliant": True},
             ("report.txt", b"all good")),
            ("system", {"attestation_name": "approval", "type_name": "decision",
                        "control": "ctl", "attestation_data": {"is_compliant": True},
                        "user_data": {}}, None)):
        answer = attest(client, kind, data, flow=OLD, attachment=attachment)
        assert answer.status_code == 201, answer.get_json()
    create_env(client, "prod")
    assert client.put("/api/v2/environments/acme/prod/report/server", headers=H, json={
        "artifacts": [{"digests": {"backend": BACKEND_FP}, "creationTimestamp": 1700000100}]}
        ).status_code == 200
    assert client.post(f"/api/v2/approvals/acme/{OLD}", headers=H, json=APPROVAL).status_code == 201
    renamed = client.put(f"/api/v2/flows/acme/{OLD}/rename", headers=H, json={"new_name": NEW})
    assert renamed.status_code == 200, renamed.get_json()


def test_every_route_resolves_a_former_flow_name(client, database_url: str):
    _arrange(client)
    _by_grpc(database_url)
    failed = {}
    for route, decided in [(("AttestationService.GetAttestationEvidence", "flow_name"),
                            evidence_probe), *DECIDED.items()]:
        if isinstance(decided, str):
            continue
        try:
            decided(client)
        except AssertionError as error:
            failed[route] = str(error)[:300]
    assert sorted(failed) == [], failed


def _by_grpc(database_url: str) -> None:
    """The filters that took a flow by its current name alone, through gRPC."""
    with grpc_channel(database_url) as channel:
        frequency = deployment_grpc.DeploymentServiceStub(channel).GetDeploymentFrequency(
            deployment_pb.GetDeploymentFrequencyRequest(org="acme", env_name="prod",
                                                         flow_id=OLD), metadata=AUTH, timeout=10)
        assert (frequency.flow_name, frequency.count) == (NEW, 1)
        decisions = control_grpc.ControlServiceStub(channel).ListControlDecisions(
            control_pb.ListControlDecisionsRequest(org="acme", identifier="ctl", flow_id=[OLD]),
            metadata=AUTH, timeout=10).decisions
        assert [d.flow_name for d in decisions] == [NEW]


# ---- old snapshots follow their flows -------------------------------------------------------

def _named(url: str) -> str:
    """The flow a web URL leads to."""
    return url.partition("/acme/flows/")[2].partition("/")[0]


def _flows_shown(snapshot: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """Each flow of the snapshot's first artifact: as the artifact names it and as the flow
    does, and where their URLs lead."""
    first = snapshot["artifacts"][0]
    return [(first["flow_name"], f["flow_name"], _named(f["html_url"]), _named(f["flow_html_url"]))
            for f in first["flows"]]


def test_an_old_snapshot_shows_its_flows_by_their_current_names(client, database_url: str):
    """Read before and after the rename (kept answers are keyed by the names they show), then
    after the flow is archived and a new flow takes its first name: the snapshot follows its
    own flow (the hosted docs' old snapshots show NAME-archived-at-...), by REST and gRPC."""
    create_flow(client, OLD)
    begin_trail(client, flow=OLD)
    assert report_artifact(client, flow=OLD).status_code == 201
    create_env(client, "prod")
    for running in ({"backend": BACKEND_FP}, {"backend": BACKEND_FP, "web": FRONTEND_FP}):
        assert client.put("/api/v2/environments/acme/prod/report/server", headers=H, json={
            "artifacts": [{"digests": {name: fp}, "creationTimestamp": 1700000100}
                          for name, fp in running.items()]}).status_code == 200
    def shown(name: str) -> list[tuple[str, str, str, str]]:
        return [(name, name, name, name)]

    def events() -> set[str]:
        return {e["pipeline"] for e in _get(client, "/api/v2/environments/acme/prod/events"
                                            ).get_json() if e["pipeline"]}

    def diff() -> list[str | None]:
        body = _get(client, "/api/v2/env-diff/acme?snappish1=prod%231&snappish2=prod").get_json()
        return [a["flow"] for a in body["not-changed"]["artifacts"]]

    with grpc_channel(database_url) as channel:
        stub = snapshot_grpc.SnapshotServiceStub(channel)

        def by_grpc() -> list[tuple[str, str, str, str]]:
            answer = stub.GetSnapshot(snapshot_pb.GetSnapshotRequest(
                org="acme", env_name="prod", snapshot_expression="1"),
                metadata=AUTH, timeout=10)
            return _flows_shown(json_format.MessageToDict(answer,
                                                          preserving_proto_field_name=True))

        def everywhere() -> tuple[Any, ...]:
            return (_flows_shown(_get(client, "/api/v2/snapshots/acme/prod/1").get_json()),
                    by_grpc(), events(), diff())

        assert everywhere() == (shown(OLD), shown(OLD), {OLD}, [OLD])
        client.put(f"/api/v2/flows/acme/{OLD}/rename", headers=H, json={"new_name": NEW})
        assert everywhere() == (shown(NEW), shown(NEW), {NEW}, [NEW])
        # Its links lead to it.
        _get(client, f"/api/v2/artifacts/acme/{NEW}/fingerprint/{BACKEND_FP}")

        gone = archived(client, NEW)
        create_flow(client, NEW)  # a new flow of that name: not the snapshot's
        assert everywhere() == (shown(gone), shown(gone), {gone}, [gone])
        # Where a flow was reported to first, as kept, the snapshot still says so.
        assert _get(client, "/api/v2/snapshots/acme/prod/2").get_json()["artifacts"][0][
            "flow_name"] == gone
