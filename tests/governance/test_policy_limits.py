"""Bounded policy work (issue 30, item 6), on both engines: rules per policy, policies per
environment and rule resolutions per snapshot are limited and refused beyond with the field and
the limit (REST 400, gRPC INVALID_ARGUMENT); a policy at the limit on a few hundred artifacts
attaches, judges reports and reads back in a bounded answer; judging holds no writer's lock;
the parse caches are bounded by bytes."""

from __future__ import annotations

import io
import json
import threading

import grpc
import pytest

from evidence_grpc.api.v2 import common_pb2
from evidence_grpc.api.v2 import policy_service_pb2 as pb
from evidence_grpc.api.v2 import policy_service_pb2_grpc as pb_grpc
from evidence_grpc.domain.evidence import templates
from evidence_grpc.domain.governance import policies
from evidence_grpc.domain.runtime import environment_changes, policy_eval, snapshots
from evidence_grpc.domain.runtime.policy_eval import (
    MAX_ATTESTATION_RULES,
    MAX_ENVIRONMENT_POLICIES,
    MAX_EXCEPTIONS,
    MAX_JUDGED_RESOLUTIONS,
)
from evidence_grpc.domain.runtime.snapshots import MAX_SHOWN_REASONS
from evidence_grpc.memo import BytesLru
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Environment, Organization
from tests.conftest import ALICE_KEY, bearer, grpc_channel
from tests.helpers import details_of

SCHEMA = "_schema: https://kosli.com/schemas/policy/environment/v1\n"
ANSWER_BOUND = 12 * 1024 * 1024  # 8.7 MB at the limits (all rules failing)


def policy_text(attestation_rules: int, exceptions: int = 0) -> str:
    """A policy requiring provenance and trail compliance (with `exceptions` on each) and
    `attestation_rules` attestations, every other one under an `if` reading the artifact (so
    that artifacts are judged one by one, not as a group judged once)."""
    lines = [SCHEMA.rstrip("\n"), "artifacts:"]
    for rule in ("provenance", "trail-compliance"):
        lines += [f"  {rule}:", "    required: true", "    exceptions:" if exceptions else ""]
        lines += [f"      - if: ${{{{ artifact.name == \"vendor-{i}\" }}}}"
                  for i in range(exceptions)]
    lines.append("  attestations:" if attestation_rules else "")
    for i in range(attestation_rules):
        lines.append(f"    - name: check-{i}\n      type: generic")
        if i % 2:
            lines.append(f"      if: ${{{{ not matches(artifact.name, \"^skip-{i}-\") }}}}")
    return "\n".join(line for line in lines if line) + "\n"


def put_policy(client, text: str, name: str = "big"):
    return client.put("/api/v2/policies/acme", headers=bearer(), content_type="multipart/form-data",
                      data={"payload": json.dumps({"name": name, "description": "", "type": "env"}),
                            "policy_file": (io.BytesIO(text.encode()), "policy.yml")})


def report(client, env: str, count: int, first: int = 0):
    """`count` artifacts without provenance (every rule fails: the largest answer) run in
    `env`."""
    artifacts = [{"digests": {f"app-{n}": f"{n:064x}"}, "creationTimestamp": 1_700_000_000}
                 for n in range(first, first + count)]
    return client.put(f"/api/v2/environments/acme/{env}/report/server", headers=bearer(),
                      json={"artifacts": artifacts})


def create_env(client, name: str) -> None:
    created = client.put("/api/v2/environments/acme", headers=bearer(),
                         json={"name": name, "type": "server", "description": ""})
    assert created.status_code in (200, 201), created.get_json()


def attach(client, env: str, *names: str):
    return client.post(f"/api/v2/environments/acme/{env}/policies", headers=bearer(),
                       json={"policy_names": list(names)})


def test_a_policy_of_4000_rules_is_refused_over_rest_and_grpc(client, db):
    text = policy_text(4000)
    assert len(text) > 100_000
    refused = put_policy(client, text)
    assert refused.status_code == 400
    assert refused.get_json()["errors"] == {"artifacts.attestations": (
        f"A policy has at most {MAX_ATTESTATION_RULES} attestation rules; this one has 4000")}
    many_exceptions = put_policy(client, policy_text(1, exceptions=MAX_EXCEPTIONS + 1))
    assert many_exceptions.status_code == 400
    assert set(many_exceptions.get_json()["errors"]) == {
        "artifacts.provenance.exceptions", "artifacts.trail-compliance.exceptions"}
    assert client.get("/api/v2/policies/acme/big", headers=bearer()).status_code == 404

    with grpc_channel(db) as channel:
        upsert = pb_grpc.PolicyServiceStub(channel).UpsertPolicy
        request = pb.UpsertPolicyRequest(
            org="acme", payload=pb.PolicyPayload(name="big", type="env"),
            policy_file=common_pb2.UploadedFile(filename="p.yml", content=text.encode()))
        with pytest.raises(grpc.RpcError) as caught:
            upsert(request, metadata=(("authorization", f"Bearer {ALICE_KEY}"),), timeout=60)
    assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    _, violations = details_of(caught.value)
    assert violations == {"artifacts.attestations": (
        f"A policy has at most {MAX_ATTESTATION_RULES} attestation rules; this one has 4000")}


def test_a_policy_at_the_limit_on_hundreds_of_artifacts_reads_back_bounded(client):
    at_limit = policy_text(MAX_ATTESTATION_RULES, exceptions=MAX_EXCEPTIONS)
    assert put_policy(client, at_limit).status_code == 201
    create_env(client, "prod")
    assert report(client, "prod", 230).status_code == 200
    assert attach(client, "prod", "big").status_code == 200  # judged again: snapshot 2
    assert report(client, "prod", 240).status_code == 200  # ten more start: snapshot 3

    answer = client.get("/api/v2/snapshots/acme/prod/-1", headers=bearer())
    assert answer.status_code == 200
    assert len(answer.data) < ANSWER_BOUND
    snapshot = answer.get_json()
    assert snapshot["index"] == 3 and snapshot["compliant"] is False
    assert snapshot["artifact_compliance_count"] == {"true": 0, "false": 240, "null": 0}
    rules = MAX_ATTESTATION_RULES + 2
    for artifact in snapshot["artifacts"]:
        [decision] = artifact["policy_decisions"]
        assert decision["status"] == "NON-COMPLIANT"
        assert len(decision["rule_evaluations"]) == rules
        reasons = artifact["reasons_for_incompliance"]
        assert len(reasons) == MAX_SHOWN_REASONS + 1
        assert reasons[-1] == {"type": "more_reasons", "message": (
            f"{rules - MAX_SHOWN_REASONS} more reasons: see policy_decisions for every failed "
            "rule")}
    [applied] = snapshot["applied_policies"]
    assert len(applied["failing_artifacts"]) == 240
    listed = client.get("/api/v2/snapshots/acme/prod", headers=bearer()).get_json()
    assert [(s["index"], s["compliant"]) for s in listed] == [(3, False), (2, False), (1, False)]


def test_policies_per_environment_and_resolutions_per_snapshot_are_bounded(client):
    create_env(client, "prod")
    small = [f"p{i}" for i in range(MAX_ENVIRONMENT_POLICIES + 1)]
    for name in small:
        assert put_policy(client, policy_text(1), name).status_code == 201
    too_many = attach(client, "prod", *small)
    assert too_many.status_code == 400
    assert too_many.get_json()["errors"] == {"policy_names": (
        f"An environment has at most {MAX_ENVIRONMENT_POLICIES} policies attached; this would "
        f"attach {MAX_ENVIRONMENT_POLICIES + 1}")}
    put = client.put("/api/v2/environments/acme", headers=bearer(),
                     json={"name": "prod", "type": "server", "description": "",
                           "policies": small})
    assert put.status_code == 400 and list(put.get_json()["errors"]) == ["policies"]
    assert client.get("/api/v2/environments/acme/prod", headers=bearer()).get_json()[
        "policies"] == []

    assert put_policy(client, policy_text(MAX_ATTESTATION_RULES)).status_code == 201
    artifacts = MAX_JUDGED_RESOLUTIONS // (MAX_ATTESTATION_RULES + 2) + 1
    assert report(client, "prod", artifacts).status_code == 200
    over = attach(client, "prod", "big")
    assert over.status_code == 400
    [(field, message)] = over.get_json()["errors"].items()
    assert field == "policy_names"
    assert f"takes {artifacts * (MAX_ATTESTATION_RULES + 2)} rule resolutions" in message
    assert f"at most {MAX_JUDGED_RESOLUTIONS} per snapshot" in message
    assert client.get("/api/v2/environments/acme/prod", headers=bearer()).get_json()[
        "policies"] == []

    assert report(client, "prod", artifacts - 1).status_code == 200  # one fewer fits
    assert attach(client, "prod", "big").status_code == 200
    refused = report(client, "prod", artifacts)
    assert refused.status_code == 400 and list(refused.get_json()["errors"]) == ["artifacts"]
    assert len(client.get("/api/v2/snapshots/acme/prod", headers=bearer()).get_json()) == 3


def test_an_unrelated_write_is_not_held_up_by_judging(client, monkeypatch):
    """While a report is being judged, another organization's write completes: judging holds
    no writer's lock (on SQLite it would wait for the judging to end)."""
    assert put_policy(client, policy_text(10)).status_code == 201
    create_env(client, "prod")
    assert attach(client, "prod", "big").status_code == 200
    with storage.database.connection_context():
        other = Organization.get(Organization.name == "other")
    judging = snapshots.evaluate
    written_while_judging = []

    def unrelated_write() -> None:
        with storage.database.connection_context():
            environment_changes.upsert_environment(other, {"name": "elsewhere", "type": "server",
                                                    "description": ""})

    def evaluate_and_write_meanwhile(*args, **kwargs):
        writer = threading.Thread(target=unrelated_write)
        writer.start()
        writer.join(timeout=60)  # a writer blocked behind this judging would still be waiting
        written_while_judging.append(not writer.is_alive())
        return judging(*args, **kwargs)

    monkeypatch.setattr(snapshots, "evaluate", evaluate_and_write_meanwhile)
    assert report(client, "prod", 20).status_code == 200
    assert written_while_judging == [True]
    with storage.database.connection_context():
        assert Environment.get(Environment.name == "elsewhere").organization_id == other.id


def test_an_environment_changed_while_judging_is_judged_again(client, monkeypatch):
    """A judgement is written only for the environment as it was judged: a policy attached in
    between makes the report be judged again, under both policies."""
    assert put_policy(client, policy_text(1), "first").status_code == 201
    assert put_policy(client, policy_text(2), "second").status_code == 201
    create_env(client, "prod")
    assert attach(client, "prod", "first").status_code == 200
    judging = snapshots.evaluate
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
    judged_by = []

    def evaluate_once_attaching_meanwhile(org_, fingerprints, loaded, **kwargs):
        judged_by.append([p.name for p in loaded])
        if len(judged_by) == 1:
            writer = threading.Thread(target=lambda: _attach_in_thread(org, "second"))
            writer.start()
            writer.join(timeout=60)
        return judging(org_, fingerprints, loaded, **kwargs)

    monkeypatch.setattr(snapshots, "evaluate", evaluate_once_attaching_meanwhile)
    assert report(client, "prod", 3).status_code == 200
    # the report, the attach (its environment has no snapshot yet), the report again
    assert judged_by == [["first"], ["first", "second"]]
    snapshot = client.get("/api/v2/snapshots/acme/prod/-1", headers=bearer()).get_json()
    assert [p["name"] for p in snapshot["applied_policies"]] == ["first", "second"]
    assert snapshot["index"] == 1


def _attach_in_thread(org: Organization, name: str) -> None:
    with storage.database.connection_context():
        policies.attach_policies(org, "prod", [name])


def test_parse_caches_are_bounded_by_bytes(db, monkeypatch):
    assert policy_eval.COMPILED_POLICY_BYTES <= 16 * 1024 * 1024
    kept = BytesLru(max_bytes=8192)
    monkeypatch.setattr(policy_eval.compile_policy, "kept", kept)
    for n in range(20):
        text = policy_text(3) + f"# {n}\n" + "#" * 1000 + "\n"
        rules, _ = policy_eval.compile_policy(text)
        assert len(rules) == 5
        assert 0 < kept.bytes <= 8192
    assert policy_eval.compile_policy(text) is policy_eval.compile_policy(text)
    assert policy_eval.compile_policy("#" * 9000 + "\n" + policy_text(1))[0]  # never kept
    assert kept.bytes <= 8192

    references = BytesLru(max_bytes=300)
    monkeypatch.setattr(policies, "_REFERENCES", references)
    for n in range(40):
        controls = policies._controls_of(
            SCHEMA + f"artifacts:\n  attestations:\n    - name: a\n      type: decision\n"
                     f"      for_control: control-{n:04}\n")
        assert controls == {f"control-{n:04}"}
        assert 0 < references.bytes <= 300
    assert policies._controls_of(policy_text(50)) == frozenset()  # no for_control: not parsed
    legacy = BytesLru(max_bytes=20_000)
    monkeypatch.setattr(templates._legacy_yaml, "kept", legacy)
    for n in range(30):
        names = tuple(f"step-{n}-{i}" for i in range(10))
        assert templates.legacy_template_view(list(names), ["backend", "frontend"])["content"]
        assert 0 < legacy.bytes <= 20_000
