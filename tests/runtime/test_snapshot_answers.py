"""A snapshot's answer is kept, in part, between reads (issue 35): the server keeps what never
changes encoded (`SnapshotRead.kept_view`) and the shim the JSON of answers the server keys.
Reads answer exactly what an answer built afresh says, on both doors (as JSON: the keys of a
Struct or map come in the order of protobuf's hash tables, which vary by process); what can change after a
snapshot was made (whether it is the latest, when the next began, the deployment diffs, the
environment's name in its URL) is never served stale; both caches are bounded by bytes."""

from __future__ import annotations

import gzip
import json

import grpc
import pytest

from evidence_grpc.api.v2 import snapshot_service_pb2 as pb
from evidence_grpc.api.v2 import snapshot_service_pb2_grpc as pb_grpc
from evidence_grpc.config import Settings
from evidence_grpc.convert import to_message
from evidence_grpc.domain.runtime import snapshots
from evidence_grpc.memo import BytesLru
from evidence_grpc.servicers import snapshots as snapshot_servicer
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Organization
from rest_shim import codec, transcoder
from tests.conftest import ALICE_KEY, govern, grpc_channel
from tests.helpers import COMMIT, NEEDS_SIGNED, OTHER_COMMIT, H, attest, create_flow, put_policy
from tests.runtime.test_deployment_diffs import TEMPLATE, V1, V2, _report_artifact, report

HTML_BASE = "http://evidence.test"


def _history(client) -> None:
    """prod, governed: snapshot 1 runs V1, snapshot 2 runs V2 (which replaced V1)."""
    create_flow(client, "payments", TEMPLATE)
    _report_artifact(client, V1, "v1", OTHER_COMMIT,
                     f"https://github.com/acme/payments/commit/{OTHER_COMMIT}")
    _report_artifact(client, V2, "v2", COMMIT, f"https://github.com/acme/payments/commit/{COMMIT}")
    client.put("/api/v2/environments/acme", headers=H,
               json={"name": "prod", "type": "server", "description": ""})
    assert put_policy(client, NEEDS_SIGNED.encode(), name="signed").status_code == 201
    assert client.post("/api/v2/environments/acme/prod/policies", headers=H,
                       json={"policy_names": ["signed"]}).status_code == 200
    report(client, "prod", ("backend", V1))
    report(client, "prod", ("backend", V2))


def _read(client, expression: str, env: str = "prod") -> bytes:
    answer = client.get(f"/api/v2/snapshots/acme/{env}/{expression}", headers=H)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_data()


def _built_afresh(expression: str, env: str = "prod") -> bytes:
    """The answer as the domain's whole view makes it, with no cache on the way."""
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        view = snapshots.get_snapshot(org, env, expression, HTML_BASE)
    return codec.dumps(codec.message_to_json(to_message(view, pb.Snapshot)))


def test_kept_answers_are_the_answers_built_afresh_on_both_doors(client, database_url):
    _history(client)
    for expression in ("1", "2", "-1"):
        first = _read(client, expression)
        assert _read(client, expression) == first  # from the kept encoding and kept JSON
        assert json.loads(first) == json.loads(_built_afresh(expression))
    second = json.loads(_read(client, "2"))
    [v2] = [a for a in second["artifacts"] if a["fingerprint"] == V2]
    assert v2["deployment_diff"]["previous_fingerprint"] == V1  # a fresh part is there
    assert v2["policy_decisions"][0]["rule_evaluations"]  # and the judged part

    with grpc_channel(database_url) as channel:
        stub = pb_grpc.SnapshotServiceStub(channel)
        request = pb.GetSnapshotRequest(org="acme", env_name="prod", snapshot_expression="2")
        metadata = (("authorization", f"Bearer {ALICE_KEY}"),)
        answers = [stub.GetSnapshot(request, metadata=metadata) for _ in range(2)]
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        html_base = Settings(database_url=database_url).html_base
        expected = to_message(snapshots.get_snapshot(org, "prod", "2", html_base), pb.Snapshot)
    assert answers[0] == answers[1] == expected


def test_what_changes_after_a_snapshot_is_never_served_stale(client):
    _history(client)
    latest = json.loads(_read(client, "2"))
    assert latest["is_latest"] is True and latest["next_snapshot_timestamp"] is None
    [v2] = [a for a in latest["artifacts"] if a["fingerprint"] == V2]
    assert v2["deployment_diff"]["previous_artifact_compliance_state"] == "COMPLIANT"

    # The previous version's trail is found non-compliant: its state in the diff follows.
    assert attest(client, "generic", {"attestation_name": "scan", "is_compliant": False,
                                      "artifact_fingerprint": V1},
                  trail="v1").status_code == 201
    [v2] = [a for a in json.loads(_read(client, "2"))["artifacts"] if a["fingerprint"] == V2]
    assert v2["deployment_diff"]["previous_artifact_compliance_state"] == "NON-COMPLIANT"
    assert json.loads(_read(client, "2")) == json.loads(_built_afresh("2"))

    # A newer snapshot: 2 is no longer the latest, and says when the next one began.
    report(client, "prod", ("backend", V1))
    second = json.loads(_read(client, "2"))
    third = json.loads(_read(client, "-1"))
    assert (second["is_latest"], third["is_latest"], third["index"]) == (False, True, 3)
    assert second["next_snapshot_timestamp"] == third["timestamp"]
    assert json.loads(_read(client, "2")) == json.loads(_built_afresh("2"))

    # A renamed environment: its snapshots' URLs say the new name.
    renamed = client.put("/api/v2/environments/acme/prod/rename", headers=H,
                         json={"new_name": "production"})
    assert renamed.status_code == 200, renamed.get_json()
    assert json.loads(_read(client, "2", env="production"))["html_url"] == \
        f"{HTML_BASE}/acme/environments/production/snapshots/2"
    assert json.loads(_read(client, "2", env="production")) == \
        json.loads(_built_afresh("2", env="production"))


def test_both_caches_are_bounded_by_bytes(client, settings, monkeypatch):
    from rest_shim.app import create_app

    kept: list[BytesLru] = []

    class Recorded(BytesLru):
        def __init__(self, max_bytes: int) -> None:
            super().__init__(max_bytes)
            kept.append(self)

    monkeypatch.setattr(snapshot_servicer, "BytesLru", Recorded)
    monkeypatch.setattr(snapshot_servicer, "KEPT_SNAPSHOT_BYTES", 6000)
    answers = BytesLru(9000)
    monkeypatch.setattr(transcoder, "_KEYED_ANSWERS", answers)
    bounded = create_app(settings).test_client()
    client.put("/api/v2/environments/acme", headers=H,
               json={"name": "prod", "type": "server", "description": ""})
    govern(client, "prod")
    for n in range(12):
        report(client, "prod", (f"app-{n}", f"{n:064x}"), *((f"app-{n}-b", f"{n + 99:064x}"),) * (n % 3))
    expected = {index: json.loads(_built_afresh(str(index))) for index in range(1, 13)}
    for _ in range(2):
        for index in range(1, 13):
            assert json.loads(_read(bounded, str(index))) == expected[index]
            assert 0 < answers.bytes <= 9000
            assert all(0 < cache.bytes <= 6000 for cache in kept if cache.bytes)
    assert kept and any(cache.bytes for cache in kept)


def test_a_snapshot_read_again_is_not_made_again_when_its_json_is_kept(client, monkeypatch):
    """The shim keeps the JSON of a keyed answer: the same snapshot read again answers that
    JSON without the answer's message being made (parsed from its kept encoding) at all."""
    _history(client)
    made: list[object] = []
    making = snapshot_servicer._answer
    monkeypatch.setattr(snapshot_servicer, "_answer",
                        lambda *args: made.append(args) or making(*args))
    first = _read(client, "2")
    assert len(made) == 1
    assert _read(client, "2") == first
    assert len(made) == 1
    assert json.loads(first) == json.loads(_built_afresh("2"))


def test_a_server_without_the_answer_key_is_rendered_as_before(client, monkeypatch):
    """A server that keys no answers (an older one behind the shim) is answered as it was."""
    _history(client)
    monkeypatch.setattr(snapshot_servicer, "keyed_answer", lambda *args: None)
    assert json.loads(_read(client, "2")) == json.loads(_built_afresh("2"))


@pytest.mark.parametrize("expression", ["0", "9", "-9"])
def test_a_missing_snapshot_is_refused_as_before(client, expression):
    _history(client)
    answer = client.get(f"/api/v2/snapshots/acme/prod/{expression}", headers=H)
    assert answer.status_code == 404
    assert "resolves to" in answer.get_json()["message"]


def test_grpc_refusals_are_unchanged(database_url, client):
    _history(client)
    with grpc_channel(database_url) as channel:
        stub = pb_grpc.SnapshotServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.GetSnapshot(pb.GetSnapshotRequest(org="acme", env_name="prod",
                                                   snapshot_expression="7"),
                             metadata=(("authorization", f"Bearer {ALICE_KEY}"),))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND


def test_a_large_keyed_answer_is_gzipped_for_a_client_that_accepts_it(client, monkeypatch):
    _history(client)
    plain = client.get("/api/v2/snapshots/acme/prod/2", headers=H)
    assert plain.headers.get("Content-Encoding") is None
    assert "Accept-Encoding" in plain.headers["Vary"]
    monkeypatch.setattr(transcoder, "GZIP_FROM_BYTES", 1000)  # the answer is a few KB here
    for _ in range(2):  # compressed, then from the kept gzip
        zipped = client.get("/api/v2/snapshots/acme/prod/2",
                            headers={**H, "Accept-Encoding": "br, gzip;q=0.8"})
        assert zipped.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(zipped.get_data()) == plain.get_data()
        assert int(zipped.headers["Content-Length"]) == len(zipped.get_data())
    refused = client.get("/api/v2/snapshots/acme/prod/2", headers={**H, "Accept-Encoding": "gzip;q=0"})
    assert refused.headers.get("Content-Encoding") is None
    assert refused.get_data() == plain.get_data()
    monkeypatch.setattr(transcoder, "GZIP_FROM_BYTES", 10**9)
    small = client.get("/api/v2/snapshots/acme/prod/1", headers={**H, "Accept-Encoding": "gzip"})
    assert small.headers.get("Content-Encoding") is None


def test_the_kept_message_is_the_message_of_the_view():
    """Policy decisions built from one message per distinct rule and resolution are those the
    view converts to, decisions kept in an older shape (keys missing) included."""
    rule = {"type": "attestation", "definition": {"name": "signed", "type": "generic",
                                                  "must_be_compliant": True}}

    def decisions(trail: str) -> list[dict]:
        context = {"flow_name": "ci", "trail_name": trail, "artifact_status": None}
        return [{"policy_name": "p", "policy_version": 2, "status": "NON-COMPLIANT",
                 "rule_evaluations": [
                     {"rule": rule, "satisfied": False, "ignored": False,
                      "resolutions": [{"type": "missing_attestation", "context": context}]},
                     {"rule": rule, "satisfied": None, "ignored": True, "resolutions": []}]}]

    older = [{"policy_name": "p", "status": "COMPLIANT",
              "rule_evaluations": [{"rule": {"type": "provenance"}, "satisfied": True}]}]
    view = {"index": 3, "artifacts": [
        {"name": "a", "fingerprint": "1" * 64, "policy_decisions": decisions("t1")},
        {"name": "b", "fingerprint": "2" * 64, "policy_decisions": decisions("t2")},
        {"name": "c", "fingerprint": "3" * 64, "policy_decisions": older}]}
    expected = to_message(view, pb.Snapshot)
    assert snapshot_servicer._kept_message(view) == expected
    assert len(expected.artifacts[1].policy_decisions[0].rule_evaluations) == 2


def test_messages_rendered_once_answer_what_they_answered_before(monkeypatch):
    from evidence_grpc.api.v2 import assert_service_pb2 as apb

    evaluations = apb.PolicyEvaluation(policy_name="p", rule_evaluations=[apb.RuleEvaluation(
        rule=apb.PolicyRule(type="attestation", definition={"name": f"check-{n % 7}"}),
        satisfied=n % 2 == 0, resolutions=[apb.RuleResolution(
            type="rule_satisfied", context=apb.RuleResolutionContext(trail_name=f"t{n % 3}"))])
        for n in range(50)])
    monkeypatch.setattr(codec, "RENDERED_ONCE_ITEMS", 4)  # kept: at most 4 of each type
    codec._renderer.cache_clear()
    once = [codec.message_to_json(evaluations) for _ in range(2)]
    monkeypatch.setattr(codec, "_rendered_once", lambda message_class, render: render)
    codec._renderer.cache_clear()
    try:
        assert once[0] == once[1] == codec.message_to_json(evaluations)
    finally:
        codec._renderer.cache_clear()
    assert once[0]["rule_evaluations"][9]["rule"] == {
        "type": "attestation", "definition": {"name": "check-2"}}


def test_a_shim_calling_a_grpc_server_keeps_answers_alike(server):
    """EVIDENCE_GRPC_TARGET: the answer's key comes in the call's trailing metadata."""
    import requests

    from rest_shim.app import create_app

    base = f"{server.http_url}/api/v2"
    requests.put(f"{base}/environments/acme", headers=H, timeout=30,
                 json={"name": "prod", "type": "server", "description": ""})
    for fingerprint in ("a" * 64, "b" * 64):
        requests.put(f"{base}/environments/acme/prod/report/server", headers=H, timeout=30,
                     json={"artifacts": [{"digests": {"app": fingerprint},
                                          "creationTimestamp": 5}]})
    shim = create_app(Settings(grpc_target=server.grpc_target)).test_client()
    answers = [_read(shim, "2") for _ in range(2)]
    direct = requests.get(f"{base}/snapshots/acme/prod/2", headers=H, timeout=30).content
    assert answers[0] == answers[1]
    assert json.loads(answers[0]) == json.loads(direct)
    assert json.loads(answers[0])["is_latest"] is True
    requests.put(f"{base}/environments/acme/prod/report/server", headers=H, timeout=30,
                 json={"artifacts": []})
    assert json.loads(_read(shim, "2"))["is_latest"] is False
