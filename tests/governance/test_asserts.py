"""Policy evaluation through the REST shim (both engines): `GET /api/v2/asserts/...` in its three
scopes, snapshots judged by the policies attached to their environment, and policies whose
expressions are malformed refused when created."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from evidence_grpc.domain.runtime.policy_eval import evaluate, latest_policies
from evidence_grpc.storage.models import Organization, Snapshot
from tests.helpers import (
    NEEDS_SIGNED,
    RISKY_ONLY,
    SCHEMA,
    H,
    attest,
    begin_trail,
    create_flow,
    put_policy,
    report_artifact,
)
from tests.helpers import report_running as report

FP = hashlib.sha256(b"backend build 7").hexdigest()
STRANGER = hashlib.sha256(b"never reported").hexdigest()
TEMPLATE = "version: 1\ntrail:\n  artifacts:\n    - name: backend\n"
NEEDS_DECISION = SCHEMA + """artifacts:
  attestations:
    - name: decision
      type: decision
      for_control: CTL-1
"""


@pytest.fixture
def reported(client):
    """`backend` (FP) reported to payments/release-1, whose template asks for nothing."""
    create_flow(client, "payments", TEMPLATE)
    begin_trail(client, "payments", "release-1")
    assert report_artifact(client, FP, flow="payments", trail="release-1").status_code == 201
    return client


def policy(client, name: str, text: str) -> None:
    answer = put_policy(client, text.encode(), name=name)
    assert answer.status_code in (200, 201), answer.get_json()


def asserted(client, fingerprint: str = FP, expect: int = 200, **query: Any) -> dict[str, Any]:
    answer = client.get(f"/api/v2/asserts/acme/fingerprint/{fingerprint}", headers=H,
                        query_string=query)
    assert answer.status_code == expect, answer.get_json()
    return answer.get_json()


def failures(evaluation: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(e["rule"]["type"], r["type"], r["context"]) for e in evaluation["rule_evaluations"]
            if not e["ignored"] and not e["satisfied"] for r in e["resolutions"]
            if r["type"] not in ("rule_satisfied", "rule_not_applicable")]


def test_every_compliance_field_of_an_assert_comes_from_one_evaluation(client):
    """The artifact in two trails of a template that asks for a ticket on the trail: each flow
    shows its state there (INCOMPLETE without the ticket), `compliant` is false while one is
    not COMPLIANT, and `trail`, `compliance_status` and `html_url` are the same report's: the
    first."""
    create_flow(client, "ticketed", "version: 1\ntrail:\n  attestations:\n    - name: ticket\n"
                "      type: generic\n  artifacts:\n    - name: backend\n")
    for trail in ("release-1", "release-2"):
        begin_trail(client, "ticketed", trail)
        assert report_artifact(client, FP, flow="ticketed", trail=trail).status_code == 201
    attest(client, "generic", {"attestation_name": "ticket", "is_compliant": True},
           flow="ticketed", trail="release-2")
    answer = asserted(client, flow_name="ticketed")
    assert [(f["trail"], f["compliance_status"]["status"], f["compliance_status"]["is_compliant"])
            for f in answer["flows"]] == [("release-1", "INCOMPLETE", False),
                                          ("release-2", "COMPLIANT", True)]
    assert answer["compliant"] is False
    first = client.get(f"/api/v2/artifacts/acme/ticketed/fingerprint/{FP}",
                       query_string={"trail": "release-1"}, headers=H).get_json()
    assert (answer["trail"], answer["compliance_status"]["status"], answer["html_url"]) == (
        "release-1", "INCOMPLETE", first["html_url"])
    assert first["html_url"].endswith(answer["compliance_status"]["artifact_id"])
    attest(client, "generic", {"attestation_name": "ticket", "is_compliant": True},
           flow="ticketed", trail="release-1")
    assert asserted(client, flow_name="ticketed")["compliant"] is True


def test_flow_scope_reports_the_trail_compliance_of_every_flow(reported):
    answer = asserted(reported)
    assert answer["compliant"] is True and answer["scope"] == "flow"
    assert answer["policy_evaluations"] == []
    assert [(f["flow"], f["trail"], f["compliance_status"]["status"])
            for f in answer["flows"]] == [("payments", "release-1", "COMPLIANT")]
    assert answer["html_url"].startswith(f"http://evidence.test/acme/flows/payments/artifacts/"
                                         f"{FP}?artifact_id=")
    attest(reported, "generic", {"attestation_name": "manual", "is_compliant": False,
                                 "artifact_fingerprint": FP})
    answer = asserted(reported, flow_name="payments")
    assert answer["compliant"] is False
    assert [(s["attestation_name"], s["is_compliant"])
            for s in answer["flows"][0]["compliance_status"]["attestations_statuses"]] == [
        ("manual", False)]


def test_the_answer_names_the_artifact_and_its_first_trail_as_published(reported):
    """The published AssertArtifactResponse: fingerprint, flow, trail and the artifact's own
    compliance in that trail, beside the CLI's list of flows. The one report it names is the
    first, where the artifact was built: the hosted `html_url` links the first flow's page (the
    CLI's own test of an artifact reported to two flows), and the rest agrees with it."""
    begin_trail(reported, "payments", "release-2")
    assert report_artifact(reported, FP, flow="payments", trail="release-2").status_code == 201
    answer = asserted(reported)
    assert (answer["fingerprint"], answer["flow"], answer["trail"]) == (
        FP, "payments", "release-1")
    assert [f["trail"] for f in answer["flows"]] == ["release-1", "release-2"]
    status = answer["compliance_status"]
    assert (status["artifact_fingerprint"], status["unexpected"]) == (FP, False)  # templated
    assert status["status"] == answer["flows"][0]["compliance_status"]["status"]


def test_unknown_artifacts_environments_and_policies_are_404(reported):
    create_flow(reported, "other", TEMPLATE)
    missing = asserted(reported, FP, 404, flow_name="other")
    assert missing["message"] == (f"Artifact with fingerprint '{FP}' does not exist in flow "
                                  "'other' belonging to organization 'acme'")
    assert asserted(reported, STRANGER, 404)["message"] == (
        f"Artifact with fingerprint '{STRANGER}' does not exist in organization 'acme'")
    assert asserted(reported, FP, 404, environment_name="nowhere")["message"] == \
        "Environment named 'nowhere' does not exist for organization 'acme'"
    assert asserted(reported, FP, 404, policy_name="nothing")["message"] == \
        "Policy 'nothing' does not exist in organization 'acme'"
    policy(reported, "p", NEEDS_SIGNED)
    reported.put("/api/v2/environments/acme", headers=H,
                 json={"name": "prod", "type": "server", "description": ""})
    assert asserted(reported, FP, 400, environment_name="prod", policy_name="p")["errors"]
    assert asserted(reported, "abc", 400)["errors"] == {
        "fingerprint": "'abc' must be 64 to 64 lowercase hexadecimal characters"}


def test_policy_scope_evaluates_required_attestations_in_the_order_given(reported):
    policy(reported, "signed", NEEDS_SIGNED)
    policy(reported, "risky", RISKY_ONLY)
    answer = asserted(reported, policy_name=["signed", "risky"])
    assert answer["scope"] == "policy" and answer["compliant"] is False
    signed, risky = answer["policy_evaluations"]
    assert (signed["policy_name"], signed["policy_version"], signed["status"]) == (
        "signed", 1, "NON-COMPLIANT")
    assert failures(signed) == [("attestation", "missing_attestation", {
        "flow_name": "payments", "trail_name": "release-1", "artifact_status": None,
        "for_control": None})]
    provenance, trail, signed_rule = signed["rule_evaluations"]
    assert provenance == {
        "rule": {"type": "provenance", "definition": {"required": True, "exceptions": []}},
        "satisfied": True, "ignored": False,
        "resolutions": [{"type": "rule_satisfied", "context": {
            "flow_name": "payments", "trail_name": "release-1", "artifact_status": None,
            "for_control": None}}]}
    assert trail["resolutions"][0]["context"]["artifact_status"] == "COMPLIANT"
    assert signed_rule["rule"]["definition"] == {"name": "signed", "type": "generic",
                                                 "must_be_compliant": True}
    # the pen-test rule applies only to high-risk flows: ignored, and the policy complies
    assert risky["status"] == "COMPLIANT"
    assert risky["rule_evaluations"][2]["ignored"] is True
    assert risky["rule_evaluations"][2]["satisfied"] is None

    attest(reported, "generic", {"attestation_name": "signed", "is_compliant": False,
                                 "artifact_fingerprint": FP})
    answer = asserted(reported, policy_name="signed")
    kinds = {f[1] for f in failures(answer["policy_evaluations"][0])}
    assert kinds == {"non_compliant_attestation", "non_compliant_in_trail"}
    attest(reported, "generic", {"attestation_name": "signed", "is_compliant": True,
                                 "artifact_fingerprint": FP})
    assert asserted(reported, policy_name="signed")["compliant"] is True

    reported.patch("/api/v2/tags/acme/flow/payments", headers=H,
                   json={"set_tags": {"risk": "high"}, "remove_tags": []})
    risky = asserted(reported, policy_name="risky")["policy_evaluations"][0]
    assert risky["status"] == "NON-COMPLIANT"
    assert failures(risky)[0][1] == "missing_attestation"


def govern_by_control(client) -> None:
    """Control CTL-1 and environment `prod`, whose policy needs a decision for it."""
    # acme has the controls feature: a policy may name only controls that exist.
    assert client.post("/api/v2/controls/acme", headers=H, json={
        "identifier": "CTL-1", "name": "Approved before release"}).status_code == 201
    policy(client, "controlled", NEEDS_DECISION)
    client.put("/api/v2/environments/acme", headers=H,
               json={"name": "prod", "type": "server", "description": ""})
    assert client.post("/api/v2/environments/acme/prod/policies", headers=H,
                       json={"policy_names": ["controlled"]}).status_code == 200


def decide(client, control: str, compliant: bool, flow: str = "payments",
           trail: str = "release-1", fingerprint: str | None = None,
           template_name: str | None = None) -> None:
    """`kosli attest decision` (about the artifact of `fingerprint`, or of the trail's template
    name, as `--name backend.decision` says; else about the trail)."""
    about = {"artifact_fingerprint": fingerprint} if fingerprint else {}
    if template_name:
        about["target_artifacts"] = [template_name]
    answer = attest(client, "system", {
        "attestation_name": "decision", "type_name": "decision", "control": control,
        "attestation_data": {"is_compliant": compliant}, "user_data": {}, **about},
        flow=flow, trail=trail)
    assert answer.status_code == 201, answer.get_json()


def test_decisions_are_matched_to_their_control(reported):
    govern_by_control(reported)
    answer = asserted(reported, environment_name="prod")
    assert answer["scope"] == "environment" and answer["environment"] == "prod"
    assert [(f[1], f[2]["for_control"]) for f in failures(answer["policy_evaluations"][0])] == [
        ("missing_attestation", "CTL-1")]

    decide(reported, "CTL-2", True)  # another control's decision does not count
    assert asserted(reported, environment_name="prod")["compliant"] is False
    decide(reported, "CTL-1", False)
    answer = asserted(reported, environment_name="prod")
    assert [f[1] for f in failures(answer["policy_evaluations"][0])] == [
        "non_compliant_attestation"]
    decide(reported, "CTL-1", True)
    assert asserted(reported, environment_name="prod")["compliant"] is True


def test_a_decision_counts_wherever_it_was_recorded(reported):
    """tutorials/working_with_controls, "End-to-end pipeline flow": the decision about the
    artifact is recorded on a release trail of another flow, and satisfies `for_control`. The
    artifact, reported to two flows, misses it once; the details link is where it was built."""
    govern_by_control(reported)
    create_flow(reported, "mirror", TEMPLATE)
    begin_trail(reported, "mirror", "m1")
    assert report_artifact(reported, FP, flow="mirror", trail="m1").status_code == 201
    create_flow(reported, "release", "version: 1\ntrail: {}\n")
    for trail in ("r1", "r2"):
        begin_trail(reported, "release", trail)

    def gate() -> tuple[bool, list[tuple[str, str, str | None]], str]:
        answer = asserted(reported, environment_name="prod")
        return answer["compliant"], [(f[1], f[2]["flow_name"], f[2]["for_control"])
                                     for f in failures(answer["policy_evaluations"][0])
                                     ], answer["html_url"]

    decide(reported, "CTL-1", True, "release", "r1")  # about the trail r1 only
    compliant, missing, link = gate()
    assert (compliant, missing) == (False, [("missing_attestation", "payments", "CTL-1")])
    assert "/flows/payments/artifacts/" in link
    decide(reported, "CTL-1", True, "release", "r1", fingerprint=FP)
    assert gate() == (True, [], link)
    report(reported, "prod", ("backend", FP))
    [running] = reported.get("/api/v2/snapshots/acme/prod/-1", headers=H).get_json()["artifacts"]
    assert running["compliant"] is True
    # the most recent decision decides, wherever it was recorded
    decide(reported, "CTL-1", False, "release", "r2", fingerprint=FP)
    assert gate() == (False, [("non_compliant_attestation", "payments", "CTL-1")], link)
    decide(reported, "CTL-1", True, "mirror", "m1")  # on a trail of the artifact: about it
    assert gate() == (True, [], link)
    # about the template's `backend` of a trail before it was reported there: bound to it then
    begin_trail(reported, "payments", "release-2")
    decide(reported, "CTL-1", False, "payments", "release-2", template_name="backend")
    assert gate()[0] is True
    assert report_artifact(reported, FP, flow="payments", trail="release-2").status_code == 201
    assert gate() == (False, [("non_compliant_attestation", "payments", "CTL-1")], link)


def test_snapshots_follow_the_attached_policies(reported):
    other = hashlib.sha256(b"datadog agent").hexdigest()
    stranger = hashlib.sha256(b"nginx").hexdigest()
    reported.put("/api/v2/environments/acme", headers=H,
                 json={"name": "prod", "type": "server", "description": ""})
    report(reported, "prod", ("backend", FP), ("datadog:7", other), ("nginx", stranger))
    legacy = reported.get("/api/v2/snapshots/acme/prod/-1", headers=H).get_json()
    assert legacy["applied_policies"] == []
    assert [a["policy_decisions"] for a in legacy["artifacts"]] == [[], [], []]

    policy(reported, "risky", RISKY_ONLY)
    policy(reported, "signed", NEEDS_SIGNED)
    reported.post("/api/v2/environments/acme/prod/policies", headers=H,
                  json={"policy_names": ["risky", "signed"]})
    snapshot = reported.get("/api/v2/snapshots/acme/prod/-1", headers=H).get_json()
    by_name = {a["name"]: a for a in snapshot["artifacts"]}
    assert snapshot["compliant"] is False
    assert [(p["name"], p["version"], p["failing_artifacts"])
            for p in snapshot["applied_policies"]] == [
        ("risky", 1, sorted([stranger])), ("signed", 1, sorted([FP, other, stranger]))]
    assert snapshot["applied_policies"][0]["policy_dump"] == {
        "schema_version": "1", "artifacts": {
            "provenance": {"required": True, "exceptions": [
                {"if_condition": {"text": 'matches(artifact.name, "^datadog:")'}}]},
            "trail_compliance": {"required": False, "exceptions": []},
            "attestations": [{"if_condition": {"text": 'flow.tags.risk == "high"'},
                              "name": "pen-test", "type": "*", "must_be_compliant": True}]}}
    datadog = by_name["datadog:7"]["policy_decisions"][0]
    assert datadog["status"] == "COMPLIANT"  # the exception names it: no provenance needed
    assert datadog["rule_evaluations"][0]["resolutions"] == [{"type": "rule_not_applicable",
        "context": {"flow_name": None, "trail_name": None, "artifact_status": None,
                    "for_control": None}}]
    assert by_name["nginx"]["compliant"] is False
    assert by_name["nginx"]["reasons_for_incompliance"][0] == {
        "type": "no_provenance", "message": "Policy 'risky': artifact has no provenance"}
    assert by_name["backend"]["reasons_for_incompliance"] == [{
        "type": "missing_attestation",
        "message": "Policy 'signed': artifact is missing required 'signed' (type: generic) "
                   "attestation in trail 'release-1' of flow 'payments'"}]
    assert "_trail_id" not in by_name["backend"]["flows"][0]
    listed = reported.get("/api/v2/environments/acme", headers=H).get_json()
    assert [(e["name"], e["state"]) for e in listed] == [("prod", False)]

    attest(reported, "generic", {"attestation_name": "signed", "is_compliant": True,
                                 "artifact_fingerprint": FP})
    allowed = reported.put("/api/v2/allowlists/acme/prod", headers=H, json={
        "artifact_name": "nginx", "artifact_fingerprint": stranger, "description": "vendor"})
    assert allowed.status_code in (200, 201), allowed.get_json()
    # The snapshot keeps the verdict it was made with; the next one sees the new evidence.
    kept = reported.get("/api/v2/snapshots/acme/prod/-1", headers=H).get_json()
    assert (kept["index"], kept["compliant"]) == (snapshot["index"], False)
    assert {a["name"]: a["compliant"] for a in kept["artifacts"]} == {
        "backend": False, "datadog:7": False, "nginx": False}
    report(reported, "prod", ("backend", FP), ("datadog:7", other), ("nginx", stranger),
           ("sidecar", FP))
    snapshot = reported.get("/api/v2/snapshots/acme/prod/-1", headers=H).get_json()
    assert snapshot["index"] == kept["index"] + 1
    assert {a["name"]: a["compliant"] for a in snapshot["artifacts"]} == {
        "backend": True, "datadog:7": False, "nginx": True, "sidecar": True}


@pytest.mark.parametrize(("text", "path"), [
    ("if: ${{ flow.name == }}", "artifacts.provenance.exceptions.0.if"),
    ("if: ${{ __import__('os') }}", "artifacts.provenance.exceptions.0.if"),
    ("if: ${{ " + "(" * 10_000 + " }}", "artifacts.provenance.exceptions.0.if"),
    ("if: ${{ matches(artifact.name, '(?=x)') }}", "artifacts.provenance.exceptions.0.if"),
    ("if: 42", "artifacts.provenance.exceptions.0.if"),
])
def test_policies_with_malformed_expressions_are_refused(client, text, path):
    answer = put_policy(client, (SCHEMA + "artifacts:\n  provenance:\n    required: true\n"
                                 "    exceptions:\n      - " + text + "\n").encode())
    assert answer.status_code == 400
    assert path in answer.get_json()["errors"]
    assert client.get("/api/v2/policies/acme/prod-policy", headers=H).status_code == 404


def test_policies_with_impossible_attestation_rules_are_refused(client):
    both_wild = put_policy(client, (SCHEMA + "artifacts:\n  attestations:\n"
                                    "    - name: '*'\n      type: '*'\n").encode())
    assert both_wild.get_json()["errors"] == {
        "artifacts.attestations.0": "name and type must not both be '*'"}
    control = put_policy(client, (SCHEMA + "artifacts:\n  attestations:\n    - name: x\n"
                                  "      type: generic\n      for_control: C\n").encode())
    assert "artifacts.attestations.0.for_control" in control.get_json()["errors"]


def _as_answered(decisions: list[dict]) -> list[dict]:
    """Decisions as a typed answer shows them: every resolution context has `for_control`
    (null when the rule serves no control), as asserts answer it too."""
    return [{**d, "rule_evaluations": [{**e, "resolutions": [
        {**r, "context": {"for_control": None, **r["context"]}} for r in e["resolutions"]]}
        for e in d["rule_evaluations"]]} for d in decisions]


def test_a_snapshot_keeps_outcome_codes_and_renders_the_decisions_the_engine_made(reported):
    """Snapshots keep one letter per rule resolution, not the rendered decisions; read, they
    are exactly what the engine's verdict renders (and old snapshots that kept the rendered
    decisions read unchanged)."""
    other = hashlib.sha256(b"datadog agent").hexdigest()
    reported.put("/api/v2/environments/acme", headers=H,
                 json={"name": "prod", "type": "server", "description": ""})
    policy(reported, "risky", RISKY_ONLY)
    policy(reported, "signed", NEEDS_SIGNED)
    reported.post("/api/v2/environments/acme/prod/policies", headers=H,
                  json={"policy_names": ["risky", "signed"]})
    report(reported, "prod", ("backend", FP), ("datadog:7", other))
    answer = reported.get("/api/v2/snapshots/acme/prod/-1", headers=H).get_json()

    org = Organization.get(name="acme")
    policies = latest_policies(org, ["risky", "signed"])
    engine = evaluate(org, [FP, other], policies, names={FP: "backend", other: "datadog:7"})
    shown = {a["fingerprint"]: a["policy_decisions"] for a in answer["artifacts"]}
    assert shown == {fp: _as_answered(verdict.policy_decisions) for fp, verdict in engine.items()}

    kept = Snapshot.select().order_by(Snapshot.id.desc()).get()
    assert all("policy_decisions" not in v for v in kept.verdicts)
    assert [v["decided"] for v in kept.verdicts if v["fingerprint"] == FP] == ["SNN|SSM"]
    # the policies' failing artifacts are found from the codes, not kept twice
    assert all("failing_artifacts" not in p for p in kept.applied_policies)
    assert {p["name"]: p["failing_artifacts"] for p in answer["applied_policies"]} == {
        "risky": [], "signed": sorted(fp for fp, v in engine.items() if "signed" in v.failing)}
    # snapshots kept in the earlier forms (lists of letters; rendered decisions) read the same
    letters = kept.verdicts
    kept.verdicts = [{**verdict, "decided": [list(codes) for codes in verdict["decided"].split("|")]}
                     for verdict in letters]
    kept.save()
    assert reported.get("/api/v2/snapshots/acme/prod/-1", headers=H).get_json() == answer
    kept.verdicts = letters
    reasons = {a["fingerprint"]: a["reasons_for_incompliance"] for a in answer["artifacts"]}
    assert reasons[FP] and "reasons_for_incompliance" not in kept.verdicts[0]
    kept.applied_policies = answer["applied_policies"]
    kept.verdicts = [{**{k: v for k, v in verdict.items() if k != "decided"},
                      "policy_decisions": shown[verdict["fingerprint"]],
                      "reasons_for_incompliance": reasons[verdict["fingerprint"]]}
                     for verdict in kept.verdicts]
    kept.save()
    assert reported.get("/api/v2/snapshots/acme/prod/-1", headers=H).get_json() == answer
