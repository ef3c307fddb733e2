"""What actions send, read by a receiver written from the hosted docs alone
(`documented_receiver`): every kind of notification, through REST and gRPC, to a webhook (the
docs' JSON document) and to Slack (a message with the same facts); notifications queued in the
flat shape of earlier releases are still delivered, as stored."""

from __future__ import annotations

import html
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from evidence_grpc.domain.outbound import targets as outbound
from evidence_grpc.storage.db import now
from evidence_grpc.storage.models import Action, OutboxMessage
from evidence_grpc.storage.models import Artifact as ArtifactRow
from tests.conftest import ROLE_KEYS, govern, grpc_channel
from tests.helpers import (
    COMMIT,
    H,
    Receiver,
    begin_trail,
    create_env,
    deliver_all,
    env_action,
    report_artifact,
)
from tests.helpers import report_fingerprints as report
from tests.outbound.documented_receiver import NotDocumented, Notification, parse

BUILT, STRAY = "e" * 64, "b" * 64
ENV_TRIGGERS = ["ON_STARTED_ARTIFACT", "ON_EXITED_ARTIFACT", "ON_SCALED_ARTIFACT",
                "ON_ALLOWED_ARTIFACT", "ON_NON_COMPLIANT_ENV", "ON_COMPLIANT_ENV"]
FLOW_TRIGGERS = ["ON_STARTED_TRAIL", "ON_ATTESTED_PROVENANCE", "ON_ATTESTATION", "ON_APPROVAL",
                 "ON_RELEASE"]


def _targets(receiver: Receiver) -> list[dict[str, str]]:
    return [{"type": "WEBHOOK", "webhook": f"{receiver.url}/hook"},
            {"type": "SLACK", "webhook": f"{receiver.url}/slack"}]


def _facts(value: Any, key: str = "") -> list[str]:
    """The values of a webhook document a person reads: every leaf but the document's version,
    its timestamp and the API links."""
    if isinstance(value, dict):
        return [fact for k, v in value.items() if k not in ("version", "timestamp", "api_url")
                for fact in _facts(v, k)]
    return [] if value is None else [str(value)]


def _received(receiver: Receiver) -> tuple[list[Notification], list[dict[str, Any]], list[str]]:
    """The webhook documents parsed, as sent, and the Slack messages' text (unescaped)."""
    bodies = [body for path, body in receiver.received if path == "/hook"]
    slack = [body for path, body in receiver.received if path == "/slack"]
    assert all(set(message) == {"text"} for message in slack)
    return [parse(b) for b in bodies], bodies, [html.unescape(m["text"]) for m in slack]


def _same_facts_in_slack(bodies: list[dict[str, Any]], texts: list[str]) -> None:
    """Each webhook document has a Slack message of its event carrying each of its facts."""
    assert len(bodies) == len(texts)
    unmatched = list(texts)
    for body in bodies:
        match = next((t for t in unmatched if all(f in t for f in _facts(body))), None)
        assert match is not None, (body, unmatched)
        unmatched.remove(match)


def _path(url: str) -> str:
    return urlsplit(url).path


def test_every_notification_reads_as_the_docs_describe_it(client, receiver):
    create_env(client)
    govern(client, "prod")
    client.put("/api/v2/flows/acme", headers=H, json={"name": "f1", "description": "",
                                                      "template": ["artifact"]})
    assert env_action(client, targets=_targets(receiver), triggers=ENV_TRIGGERS
                      ).status_code == 201
    assert client.put("/api/v2/actions/acme/flows", headers=H, json={
        "name": "flow-watch", "flows": ["f1"], "triggers": FLOW_TRIGGERS,
        "targets": _targets(receiver)}).status_code == 201
    begin_trail(client, "f1", "t1")
    assert report_artifact(client, BUILT, "app", flow="f1", trail="t1",
                           template_name=None).status_code == 201
    assert client.post("/api/v2/attestations/acme/f1/trail/t1/generic", headers=H,
                       content_type="multipart/form-data", data={"data_json": json.dumps({
                           "attestation_name": "review", "is_compliant": True,
                           "artifact_fingerprint": BUILT})}).status_code == 201
    assert client.post("/api/v2/approvals/acme/f1", headers=H, json={
        "artifact_fingerprint": BUILT, "description": "ship it", "environment": "prod",
        "src_commit_list": [COMMIT], "approvals": [{"state": "APPROVED", "comment": "ok",
                                                    "approved_by": "carol"}]}
                       ).status_code == 201
    report(client, "prod", STRAY)  # #1: a first snapshot, non-compliant: no compliance event
    report(client, "prod", BUILT)  # #2: compliant, STRAY exited, BUILT started and released
    report(client, "prod", BUILT, BUILT, STRAY)  # #3: BUILT scaled, STRAY back: non-compliant
    assert client.put("/api/v2/allowlists/acme/prod", headers=H, json={
        "artifact_fingerprint": STRAY, "artifact_name": "tool", "description": "a known tool"}
                      ).status_code in (200, 201)
    deliver_all()

    notifications, bodies, texts = _received(receiver)
    assert sorted(n.event_type for n in notifications) == sorted([
        "TRAIL_STARTED", "ARTIFACT_REPORTED", "ATTESTATION_REPORTED", "APPROVAL_REPORTED",
        "ARTIFACT_STARTED", "ENVIRONMENT_COMPLIANT", "ARTIFACT_EXITED", "ARTIFACT_STARTED",
        "ARTIFACT_RELEASED", "ARTIFACT_SCALED", "ENVIRONMENT_NON_COMPLIANT", "ARTIFACT_STARTED",
        "ARTIFACT_ALLOWED"])
    assert {n.org for n in notifications} == {"acme"}
    assert all(abs(n.timestamp - now()) < 120 for n in notifications)
    _same_facts_in_slack(bodies, texts)

    by_kind = {(n.event_type, n.snapshot.index if n.snapshot else None): n for n in notifications}
    started = by_kind[("ARTIFACT_STARTED", 2)]
    assert (started.environment, started.description) == (
        "prod", "1 instance started running (from 0 to 1)")
    assert (started.snapshot.status, started.snapshot.html_url) == (
        "compliant", "http://evidence.test/acme/environments/prod/snapshots/2")
    built = started.artifact
    assert (built.name, built.fingerprint) == ("app-eeee", BUILT)
    assert (built.provenance.flow, built.provenance.status, built.provenance.commit,
            built.provenance.build_url) == ("f1", "compliant", COMMIT, "https://ci.example/build/1")
    assert built.provenance.commit_url.endswith(COMMIT)
    assert built.provenance.html_url.startswith(
        f"http://evidence.test/acme/flows/f1/artifacts/{BUILT}?artifact_id=")
    # The API links answer what they name.
    assert client.get(_path(started.snapshot.api_url), headers=H).get_json()["index"] == 2
    assert client.get(_path(built.provenance.api_url), headers=H
                      ).get_json()["fingerprint"] == BUILT

    stray = by_kind[("ARTIFACT_STARTED", 1)].artifact
    assert stray.fingerprint == STRAY and stray.provenance is None  # never reported
    assert by_kind[("ARTIFACT_EXITED", 2)].description == "1 instance stopped running (from 1 to 0)"
    assert by_kind[("ARTIFACT_SCALED", 3)].description == "1 instance started running (from 1 to 2)"
    for kind, index, before, after in (("ENVIRONMENT_COMPLIANT", 2, "non-compliant", "compliant"),
                                       ("ENVIRONMENT_NON_COMPLIANT", 3, "compliant",
                                        "non-compliant")):
        changed = by_kind[(kind, index)]
        assert (changed.snapshot.status, changed.artifact) == (after, None)
        assert changed.description == f"changed from {before} to {after}"
    allowed = by_kind[("ARTIFACT_ALLOWED", 3)]  # the latest snapshot when it was allowed
    assert (allowed.artifact.name, allowed.artifact.fingerprint) == ("tool", STRAY)
    assert "a known tool" in allowed.description
    release = by_kind[("ARTIFACT_RELEASED", 2)]
    assert (release.environment, release.extra, release.artifact) == ("prod", {"flow": "f1"}, built)
    trail = by_kind[("TRAIL_STARTED", None)]
    assert (trail.environment, trail.artifact, trail.extra) == (
        None, None, {"flow": "f1", "trail": "t1"})
    attested = by_kind[("ATTESTATION_REPORTED", None)]
    assert attested.extra["attestation"] == {"name": "review", "type": "generic",
                                             "status": "compliant"}
    assert attested.artifact.fingerprint == BUILT
    approved = by_kind[("APPROVAL_REPORTED", None)]
    assert (approved.environment, approved.extra["approval"]) == (
        "prod", {"number": 1, "state": "APPROVED"})


def test_grpc_reports_notify_in_the_documented_shape(db, receiver):
    from google.protobuf import struct_pb2

    from evidence_grpc.api.v2 import action_service_pb2 as pb
    from evidence_grpc.api.v2 import action_service_pb2_grpc as pb_grpc
    from evidence_grpc.api.v2 import environment_service_pb2 as env_pb
    from evidence_grpc.api.v2 import environment_service_pb2_grpc as env_grpc

    auth = (("authorization", f"Bearer {ROLE_KEYS['admin']}"),)
    with grpc_channel(db) as channel:
        # The server's own policy refuses loopback receivers; this test's allows them.
        outbound.configure(outbound.Policy(allow_loopback=True, timeout_seconds=2))
        envs = env_grpc.EnvironmentServiceStub(channel)
        envs.UpsertEnvironment(env_pb.UpsertEnvironmentRequest(org="acme", name="prod",
                                                               type="server"),
                               metadata=auth, timeout=10)
        targets = []
        for target in _targets(receiver):
            targets.append(struct_pb2.Struct())
            targets[-1].update(target)
        pb_grpc.ActionServiceStub(channel).PutEnvironmentAction(
            pb.PutEnvironmentActionRequest(org="acme", action=pb.ActionInput(
                name="a1", targets=targets, environments=["prod"],
                triggers=["ON_STARTED_ARTIFACT", "ON_EXITED_ARTIFACT"])),
            metadata=auth, timeout=10)
        for running in ([STRAY], []):
            report_body = struct_pb2.Struct()
            report_body.update({"artifacts": [{"digests": {"tool": fp}, "creationTimestamp": 5}
                                              for fp in running]})
            envs.ReportEnvironment(env_pb.ReportEnvironmentRequest(
                org="acme", env_name="prod", type="server", report=report_body),
                metadata=auth, timeout=10)
    assert deliver_all() == 4
    notifications, bodies, texts = _received(receiver)
    assert sorted((n.event_type, n.snapshot.index, n.snapshot.status) for n in notifications) == [
        ("ARTIFACT_EXITED", 2, "unknown"), ("ARTIFACT_STARTED", 1, "unknown")]
    assert all(n.artifact.fingerprint == STRAY and n.artifact.provenance is None
               for n in notifications)
    _same_facts_in_slack(bodies, texts)


def test_notifications_queued_in_the_earlier_flat_shape_are_sent_as_stored(client, receiver):
    """A notification written by a release before the documented shape (its `payload_version`,
    `ON_...` event type and float timestamp) reaches a webhook as it was written, and Slack as
    a message listing its fields."""
    client.put("/api/v2/environments/acme", headers=H,
               json={"name": "prod", "type": "server", "description": ""})
    assert env_action(client, targets=_targets(receiver)).status_code == 201
    flat = {"payload_version": "1.0", "event_type": "ON_STARTED_ARTIFACT", "org": "acme",
            "timestamp": 1700000000.5, "environment": "prod", "snapshot_index": 3,
            "artifact_name": "app", "fingerprint": BUILT, "instances_before": 0,
            "instances_now": 1}
    action = Action.get()
    OutboxMessage.insert_many([{"action": action.id, "target_index": index,
                                "trigger": "ON_STARTED_ARTIFACT", "payload": flat,
                                "created_at": now(), "next_attempt_at": now()}
                               for index in (0, 1)]).execute()
    assert deliver_all() == 2
    [hook] = [body for path, body in receiver.received if path == "/hook"]
    [slack] = [body for path, body in receiver.received if path == "/slack"]
    assert hook == flat
    with pytest.raises(NotDocumented):
        parse(hook)
    assert slack["text"].startswith("[acme] ON_STARTED_ARTIFACT")
    assert "artifact_name: app" in slack["text"] and f"fingerprint: {BUILT}" in slack["text"]
    assert OutboxMessage.select().where(OutboxMessage.delivered_at.is_null()).count() == 0


def test_slack_messages_show_names_as_written(client, receiver):
    """Slack reads `<`, `>` and `&` as markup: a name carrying them is escaped, and shows as
    written."""
    client.put("/api/v2/environments/acme", headers=H,
               json={"name": "prod", "type": "server", "description": ""})
    assert env_action(client, targets=_targets(receiver),
                      triggers=["ON_ALLOWED_ARTIFACT"]).status_code == 201
    assert client.put("/api/v2/allowlists/acme/prod", headers=H, json={
        "artifact_fingerprint": STRAY, "artifact_name": "tool", "description": "<!channel> & co"}
                      ).status_code in (200, 201)
    deliver_all()
    [slack] = [body for path, body in receiver.received if path == "/slack"]
    assert "&lt;!channel&gt; &amp; co" in slack["text"] and "<!channel>" not in slack["text"]
    [allowed], _, _ = _received(receiver)
    assert allowed.snapshot is None  # no snapshot yet


def test_reported_urls_a_receiver_cannot_follow_are_null(client, receiver):
    """A commit or build URL kept before the door refused it (no host to read), or of another
    scheme, is sent as null: the document's links are http(s) URLs a receiver can follow."""
    create_env(client)
    client.put("/api/v2/flows/acme", headers=H, json={"name": "f1", "description": "",
                                                      "template": ["artifact"]})
    begin_trail(client, "f1", "t1")
    assert report_artifact(client, BUILT, "app", flow="f1", trail="t1",
                           template_name=None).status_code == 201
    ArtifactRow.update(build_url="http://[::1", commit_url="javascript:alert(1)").execute()
    assert env_action(client, targets=_targets(receiver)).status_code == 201
    report(client, "prod", BUILT)
    assert deliver_all() == 2
    [started], _, _ = _received(receiver)
    made = started.artifact.provenance
    assert (made.flow, made.commit, made.commit_url, made.build_url) == ("f1", COMMIT, None, None)
