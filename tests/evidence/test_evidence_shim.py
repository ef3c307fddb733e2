"""Evidence over HTTP: attestations of every kind, custom attestation types, artifacts, search
and tags, through the REST shim (`client`) on every engine under test.

Requests are shaped the way the kosli CLI sends them (multipart `data_json` plus an optional
`attachment_file`; override and artifacts as JSON), and the assertions read what a user sees:
status codes and the JSON bodies the CLI prints."""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any
from urllib.parse import urlsplit

import grpc
import peewee
import pytest
from google.protobuf import struct_pb2

from evidence_grpc.api.v2 import attestation_service_pb2 as attestation_pb
from evidence_grpc.api.v2 import attestation_service_pb2_grpc as attestation_pb_grpc
from evidence_grpc.domain.evidence.artifacts import ONE_READ
from evidence_grpc.memo import BytesLru
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Blob
from tests.conftest import ROLE_KEYS, grpc_channel, recorded_statements, sent_statements
from tests.helpers import (
    BACKEND_FP,
    COMMIT,
    COVERAGE_SCHEMA,
    FRONTEND_FP,
    OTHER_COMMIT,
    H,
    attest,
    begin_trail,
    create_flow,
    create_type,
    custom,
    details_of,
    get_trail,
    override,
    report_artifact,
    trail_attestations,
)
from tests.helpers import trail as trail  # noqa: F401 - fixture

# ---- arranging through the public API -----------------------------------------------------------


def attested(client, kind: str, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Attest, expect 201, and return the newest attestation of that name on the trail."""
    answer = attest(client, kind, data, **kwargs)
    assert answer.status_code == 201, answer.json
    flow, trail = kwargs.get("flow", "payments"), kwargs.get("trail", "release-1")
    return trail_attestations(client, data["attestation_name"], flow, trail)[0]


def junit(name: str = "unit-tests", failures: int = 0, errors: int = 0, **extra: Any
          ) -> dict[str, Any]:
    return {"attestation_name": name, "user_data": {}, "junit_results": [
        {"name": "api", "failures": failures, "errors": errors, "skipped": 1, "total": 10,
         "duration": 1.5, "timestamp": 1700000000},
        {"name": "db", "failures": 0, "errors": 0, "skipped": 0, "total": 5, "duration": 0.25}],
        **extra}


def snyk(name: str = "scan", high: int = 0, **extra: Any) -> dict[str, Any]:
    findings = [{"id": f"SNYK-{n}", "message": "Prototype pollution",
                 "locations": [{"uri": "package.json", "lines": "12"}], "priority_score": 700}
                for n in range(high)]
    return {"attestation_name": name, "user_data": {}, "snyk_results": {
        "schema_version": 1, "tool": {"name": "Snyk Open Source", "version": "1.1293.0"},
        "results": [{"high_count": high, "medium_count": 0, "low_count": 0, "high": findings}]},
        **extra}


# ---- every kind -------------------------------------------------------------------------------

def test_generic_attestation_with_attachment_reads_back_and_downloads(trail):
    content = b"<html>coverage 93%</html>\n"
    answer = attest(trail, "generic", {"attestation_name": "coverage", "is_compliant": True,
                                       "description": "line coverage", "user_data": {"pct": 93},
                                       "annotations": {"tool": "coverage_py"}},
                    attachment=("reports/coverage.html", content))
    assert answer.status_code == 201
    assert answer.json == "generic attestation 'coverage' was reported"

    [got] = trail_attestations(trail, "coverage")
    assert got["attestation_name"] == "coverage"
    assert got["attestation_type"] == "generic"
    assert got["is_compliant"] is True
    assert got["flow_name"] == "payments"
    assert got["trail_name"] == "release-1"
    assert got["description"] == "line coverage"
    assert got["user_data"] == {"pct": 93}
    assert got["annotations"] == {"tool": "coverage_py"}
    assert got["created_by"] == "alice"
    assert isinstance(got["created_at"], float)
    assert got["html_url"] == ("http://evidence.test/acme/flows/payments/trails/release-1"
                               f"?attestation_id={got['attestation_id']}")
    evidence = got["evidence"]
    assert evidence["filename"] == "coverage.html"
    assert evidence["size"] == len(content)
    assert evidence["sha256"] == hashlib.sha256(content).hexdigest()

    download = trail.get(urlsplit(evidence["url"]).path, headers=H)
    assert download.status_code == 200
    assert download.data == content
    assert download.mimetype == "text/html"
    assert download.headers["Content-Disposition"] == "attachment; filename=coverage.html"

    got = attested(trail, "generic", {"attestation_name": "manual-check", "is_compliant": False})
    assert got["is_compliant"] is False
    assert got["evidence"] is None
    missing = trail.get(f"/api/v2/attestations/acme/payments/trail/release-1/attestation/"
                        f"{got['attestation_id']}/evidence", headers=H)
    assert missing.status_code == 404
    assert "No evidence file" in missing.json["message"]


def test_junit_sums_the_suites_and_failures_make_it_non_compliant(trail):
    xml = b"<testsuites><testsuite name='api' tests='10'/></testsuites>"
    passed = attested(trail, "junit", junit(), attachment=("results.xml", xml))
    assert passed["attestation_type"] == "junit"
    assert passed["is_compliant"] is True
    assert passed["summary"] == {"total": 15, "failures": 0, "errors": 0, "skipped": 1,
                                 "duration": 1.75}
    assert passed["junit_results"][0]["name"] == "api"
    assert passed["evidence"]["filename"] == "results.xml"
    download = trail.get(urlsplit(passed["evidence"]["url"]).path, headers=H)
    assert download.data == xml
    assert download.mimetype in ("application/xml", "text/xml")

    failed = attested(trail, "junit", junit(failures=2))
    assert failed["is_compliant"] is False
    assert failed["summary"]["failures"] == 2
    errored = attested(trail, "junit", junit(errors=1))
    assert errored["is_compliant"] is False
    assert errored["summary"]["errors"] == 1


def test_snyk_is_compliant_only_without_findings(trail):
    clean = attested(trail, "snyk", snyk(high=0))
    assert clean["attestation_type"] == "snyk"
    assert clean["is_compliant"] is True
    assert clean["summary"] == {"high_count": 0, "medium_count": 0, "low_count": 0}

    dirty = attested(trail, "snyk", snyk(high=2))
    assert dirty["is_compliant"] is False
    assert dirty["summary"]["high_count"] == 2
    assert dirty["processed_snyk_results"]["results"][0]["high"][1]["id"] == "SNYK-1"


def sonar(gate: str) -> dict[str, Any]:
    return {"attestation_name": "quality", "user_data": {}, "sonar_results": {
        "serverUrl": "https://sonar.example", "taskId": "AY1", "status": "SUCCESS",
        "analysedAt": "2024-05-01T10:00:00+0000", "revision": COMMIT,
        "project": {"key": "payments", "name": "Payments", "url": "https://sonar.example/p"},
        "qualityGate": {"status": gate, "conditions": [
            {"metric": "coverage", "errorThreshold": "80", "operator": "LESS_THAN",
             "value": "91.2", "status": gate}]}}}


def test_sonar_follows_the_quality_gate(trail):
    ok = attested(trail, "sonar", sonar("OK"))
    assert (ok["attestation_type"], ok["is_compliant"]) == ("sonar", True)
    assert ok["summary"] == {"quality_gate": "OK"}
    assert ok["sonar_results"]["project"]["key"] == "payments"
    failed = attested(trail, "sonar", sonar("ERROR"))
    assert failed["is_compliant"] is False
    assert failed["summary"] == {"quality_gate": "ERROR"}


def test_jira_needs_every_issue_to_exist(trail):
    def issues(*exists: bool) -> dict[str, Any]:
        return {"attestation_name": "tickets", "user_data": {}, "jira_results": [
            {"issue_id": f"PAY-{n}", "issue_url": f"https://jira.example/browse/PAY-{n}",
             "issue_exists": e, "issue_fields": {"summary": "Fix"}} for n, e in enumerate(exists)]}

    found = attested(trail, "jira", issues(True, True))
    assert (found["attestation_type"], found["is_compliant"]) == ("jira", True)
    assert found["summary"] == {"issues": ["PAY-0", "PAY-1"]}
    assert attested(trail, "jira", issues(True, False))["is_compliant"] is False
    assert attested(trail, "jira", issues())["is_compliant"] is False


def github_pr(number: int = 7) -> dict[str, Any]:
    return {
        "url": f"https://github.com/acme/payments/pull/{number}", "state": "MERGED",
        "merge_commit": COMMIT, "author": "alice", "title": "Add refunds",
        "created_at": 1700000000, "merged_at": 1700003600, "head_ref": "refunds",
        "base_ref": "main",
        "approvers": [{"username": "bob", "state": "APPROVED", "timestamp": 1700001000}],
        "commits": [{"sha1": OTHER_COMMIT, "message": "Refunds", "author": "Alice <a@x>",
                     "author_username": "alice", "timestamp": 1699999000, "branch": "refunds",
                     "url": f"https://github.com/acme/payments/commit/{OTHER_COMMIT}",
                     "verified": True, "signature_state": "valid"}]}


def test_pull_request_in_the_github_shape(trail):
    data = {"attestation_name": "pr", "user_data": {}, "git_provider": "github",
            "pull_requests": [github_pr()],
            "git_commit_info": {"sha1": COMMIT, "message": "Merge", "author": "Alice <a@x>",
                                "branch": "main", "timestamp": 1700003600}}
    got = attested(trail, "pull_request", data)
    assert got["attestation_type"] == "pull_request"
    assert got["is_compliant"] is True
    assert got["summary"] == {"git_provider": "github", "pull_request_count": 1}
    assert got["git_provider"] == "github"
    assert got["pull_requests"][0]["approvers"][0]["username"] == "bob"
    assert got["git_commit_info"]["sha1"] == COMMIT

    none_found = attested(trail, "pull_request", {**data, "pull_requests": []})
    assert none_found["is_compliant"] is False


def scanner(high: int, medium: int = 0) -> dict[str, Any]:
    finding = {"id": "CVE-2024-1", "message": "Heap overflow", "locations": [],
               "priority_score": 9.8}
    return {"attestation_name": "trivy", "user_data": {}, "description": "image scan",
            "scanner_results": {
                "schema_version": 1, "tool": {"name": "trivy", "version": "0.50.1"},
                "results": [{"low_count": 0, "medium_count": medium, "high_count": high,
                             "low": [], "medium": [finding] * medium, "high": [finding] * high}]}}


def test_scanner_results_of_the_spec(trail):
    clean = attested(trail, "scanner", scanner(high=0),
                     attachment=("trivy.json", b'{"Results": []}'))
    assert clean["attestation_type"] == "scanner"
    assert clean["is_compliant"] is True
    assert clean["summary"] == {"high_count": 0, "medium_count": 0, "low_count": 0,
                                "tool": {"name": "trivy", "version": "0.50.1"}}
    assert clean["scanner_results"]["schema_version"] == 1
    assert clean["evidence"]["filename"] == "trivy.json"

    found = attested(trail, "scanner", scanner(high=1, medium=2))
    assert found["is_compliant"] is False
    assert (found["summary"]["high_count"], found["summary"]["medium_count"]) == (1, 2)

    wrong_version = scanner(high=0)
    wrong_version["scanner_results"]["schema_version"] = 2
    refused = attest(trail, "scanner", wrong_version)
    assert refused.status_code == 400
    assert "scanner_results.schema_version" in refused.json["errors"]


def test_system_decision_and_sbom(trail):
    decision = attested(trail, "system", {
        "attestation_name": "change-approval", "type_name": "decision", "control": "C1",
        "attestation_data": {"is_compliant": False}, "user_data": {}})
    assert decision["attestation_type"] == "decision"
    assert decision["is_compliant"] is False
    assert decision["summary"] == {"control": "C1"}
    assert (decision["type_name"], decision["control"]) == ("decision", "C1")  # as reported
    assert decision["attestation_data"] == {"is_compliant": False}

    sbom_file = json.dumps({"bomFormat": "CycloneDX", "specVersion": "1.5"}).encode()
    sbom = attested(trail, "system", {
        "attestation_name": "sbom", "type_name": "sbom", "user_data": {},
        "annotations": {"sbom_format": "cyclonedx-1.5",
                        "sbom_sha256": hashlib.sha256(sbom_file).hexdigest()},
        "attestation_data": {
            "format": "cyclonedx-1.5", "original_fingerprint": hashlib.sha256(sbom_file).hexdigest(),
            "document": {"created_at": "2024-05-01T10:00:00Z", "tools": ["syft 1.0"],
                         "subject": {"name": "payments", "version": "1.0", "purl": "pkg:x/p",
                                     "sha256": BACKEND_FP}, "package_count": 42}}},
        attachment=("sbom.cdx.json", sbom_file))
    assert sbom["attestation_type"] == "sbom"
    assert sbom["is_compliant"] is True
    assert sbom["summary"] == {"format": "cyclonedx-1.5", "package_count": 42}
    assert sbom["evidence"]["filename"] == "sbom.cdx.json"
    assert trail.get(urlsplit(sbom["evidence"]["url"]).path, headers=H).mimetype == \
        "application/json"

    not_a_decision = attest(trail, "system", {
        "attestation_name": "x", "type_name": "decision", "attestation_data": {"is_compliant": "yes"}})
    assert not_a_decision.status_code == 400
    unknown_system_type = attest(trail, "system", {
        "attestation_name": "x", "type_name": "audit", "attestation_data": {}})
    assert unknown_system_type.status_code == 400
    assert "type_name" in unknown_system_type.json["errors"]


# ---- custom attestation types -----------------------------------------------------------------


def test_custom_type_validates_and_judges_attestations(trail):
    created = create_type(trail, rules=[".line_coverage >= 80"],
                          summary=[{"name": "coverage", "expression": ".line_coverage"}])
    assert created.status_code == 201, created.json
    assert created.json == "custom attestation type 'coverage' was created"

    got = trail.get("/api/v2/custom-attestation-types/acme/coverage", headers=H).json
    assert got["name"] == "coverage"
    assert got["org"] == "acme"
    assert got["archived"] is False
    assert [v["version"] for v in got["versions"]] == [1]
    assert got["versions"][0]["type_schema"] == COVERAGE_SCHEMA
    assert got["versions"][0]["evaluator"] == {"content_type": "jq",
                                              "rules": [".line_coverage >= 80"]}

    good = attested(trail, "custom", custom({"line_coverage": 91.5, "tool": "coverage.py"}))
    assert good["attestation_type"] == "custom:coverage"
    assert good["is_compliant"] is True
    assert good["summary"] == {"type_version": 1, "failed_rules": [], "coverage": 91.5}
    assert good["attestation_data"] == {"line_coverage": 91.5, "tool": "coverage.py"}

    low = attested(trail, "custom", custom({"line_coverage": 42}))
    assert low["is_compliant"] is False
    assert low["summary"]["failed_rules"] == [".line_coverage >= 80"]

    # The catalog's JSON-encoded string form is accepted too.
    as_text = attested(trail, "custom", custom(json.dumps({"line_coverage": 85})))
    assert as_text["is_compliant"] is True

    before = len(trail_attestations(trail, "coverage"))
    invalid = attest(trail, "custom", custom({"line_coverage": "lots"}))
    assert invalid.status_code == 400
    assert invalid.json["message"] == "Attestation data does not match the type's schema"
    assert "attestation_data.line_coverage" in invalid.json["errors"]
    assert len(trail_attestations(trail, "coverage")) == before

    unknown = attest(trail, "custom", custom({"line_coverage": 90}, type_name="nope"))
    assert unknown.status_code == 404


def test_custom_type_versions_list_and_archive(client):
    assert create_type(client, rules=[".line_coverage >= 80"]).status_code == 201
    second = create_type(client, rules=[".line_coverage >= 90"])
    assert second.status_code == 201  # a new version is created (the Terraform provider needs 201)
    assert second.json == "custom attestation type 'coverage' was updated"
    assert create_type(client, name="review", schema=None).status_code == 201

    got = client.get("/api/v2/custom-attestation-types/acme/coverage", headers=H).json
    # Newest first: the Terraform provider reads versions[0] as the latest.
    assert [(v["version"], v["evaluator"]["rules"]) for v in got["versions"]] == [
        (2, [".line_coverage >= 90"]), (1, [".line_coverage >= 80"])]
    first = client.get("/api/v2/custom-attestation-types/acme/coverage?version=1", headers=H).json
    assert [v["evaluator"]["rules"] for v in first["versions"]] == [[".line_coverage >= 80"]]
    assert client.get("/api/v2/custom-attestation-types/acme/coverage?version=9",
                      headers=H).status_code == 404

    listed = client.get("/api/v2/custom-attestation-types/acme", headers=H).json
    assert [(t["name"], len(t["versions"])) for t in listed] == [("coverage", 2), ("review", 1)]

    archived = client.put("/api/v2/custom-attestation-types/acme/review/archive", headers=H,
                          data="null", content_type="application/json; charset=utf-8")
    assert archived.status_code == 200, archived.json
    assert [t["name"] for t in client.get("/api/v2/custom-attestation-types/acme",
                                          headers=H).json] == ["coverage"]
    assert client.get("/api/v2/custom-attestation-types/acme/review",
                      headers=H).json["archived"] is True

    bad_rule = create_type(client, name="broken", rules=[".a >>> 1"])
    assert bad_rule.status_code == 400
    assert "evaluator.rules" in bad_rule.json["errors"]
    bad_schema = create_type(client, name="broken", schema={"type": "no-such-type"})
    assert bad_schema.status_code == 400
    assert "type_schema" in bad_schema.json["errors"]
    assert client.get("/api/v2/custom-attestation-types/acme/broken", headers=H).status_code == 404


# ---- override ---------------------------------------------------------------------------------


def test_override_keeps_history_and_changes_trail_compliance(trail):
    assert report_artifact(trail).status_code == 201
    attested(trail, "snyk", snyk(high=0, target_artifacts=["backend"]))
    failed = attested(trail, "junit", junit(failures=3), attachment=("results.xml", b"<x/>"))
    assert get_trail(trail)["compliance_state"] == "NON-COMPLIANT"

    answer = override(trail, "unit-tests", "junit", True, reason="flaky test, rerun green")
    assert answer.status_code == 201, answer.json
    assert answer.json == "attestation 'unit-tests' was overridden"

    newest, original = trail_attestations(trail, "unit-tests")
    assert original["attestation_id"] == failed["attestation_id"]
    assert original["is_compliant"] is False
    assert original["overridden_attestation_id"] is None
    assert newest["is_compliant"] is True
    assert newest["attestation_type"] == "junit"
    assert newest["overridden_attestation_id"] == failed["attestation_id"]
    assert newest["override"]["reason"] == "flaky test, rerun green"
    assert newest["override"]["previous_compliance"] is False
    assert newest["summary"] == original["summary"]

    status = get_trail(trail)
    assert status["compliance_state"] == "COMPLIANT"
    [entry] = status["compliance_status"]["attestations_statuses"]
    assert entry["attestation_id"] == newest["attestation_id"]
    assert entry["overridden_attestation_id"] == failed["attestation_id"]

    # An artifact-level attestation is overridden through its target artifact.
    assert override(trail, "scan", "snyk", False, target_artifacts=["backend"]).status_code == 201
    status = get_trail(trail)
    assert status["compliance_status"]["artifacts_statuses"]["backend"]["status"] == \
        "NON-COMPLIANT"
    assert status["compliance_state"] == "NON-COMPLIANT"

    wrong_type = override(trail, "unit-tests", "snyk", True)
    assert wrong_type.status_code == 404
    nothing = override(trail, "no-such", "generic", True)
    assert nothing.status_code == 404
    assert len(trail_attestations(trail, "unit-tests")) == 2


def test_override_of_custom_and_system_attestations(trail):
    assert create_type(trail, rules=[".line_coverage >= 80"]).status_code == 201
    attested(trail, "custom", custom({"line_coverage": 10}))
    assert override(trail, "coverage", "custom:coverage", True).status_code == 201
    assert trail_attestations(trail, "coverage")[0]["is_compliant"] is True

    attested(trail, "system", {"attestation_name": "gate", "type_name": "decision",
                               "attestation_data": {"is_compliant": True}})
    assert override(trail, "gate", "system:decision", False).status_code == 201
    newest = trail_attestations(trail, "gate")[0]
    assert (newest["attestation_type"], newest["is_compliant"]) == ("decision", False)


def test_override_of_an_expected_attestation_not_yet_reported(trail):
    """The template expects `unit-tests` (junit) of the trail and `scan` (snyk) of `backend`:
    either may be overridden before one is reported; what it does not expect may not."""
    answer = override(trail, "unit-tests", "junit", True, reason="run elsewhere",
                      description="see the release ticket")
    assert answer.status_code == 201, answer.json
    [newest] = trail_attestations(trail, "unit-tests")
    assert (newest["attestation_type"], newest["is_compliant"]) == ("junit", True)
    assert newest["overridden_attestation_id"] is None
    assert (newest["override"]["reason"], newest["override"]["by"]) == ("run elsewhere", "alice")
    assert newest["description"] == "see the release ticket"
    [entry] = get_trail(trail)["compliance_status"]["attestations_statuses"]
    assert (entry["attestation_name"], entry["is_compliant"]) == ("unit-tests", True)

    assert report_artifact(trail).status_code == 201
    assert override(trail, "scan", "snyk", False, artifact_fingerprint=BACKEND_FP
                    ).status_code == 201
    backend = get_trail(trail)["compliance_status"]["artifacts_statuses"]["backend"]
    assert [(s["attestation_name"], s["is_compliant"]) for s in backend["attestations_statuses"]
            ] == [("scan", False)]

    for name, kind, where in (("unit-tests", "snyk", {}), ("no-such", "generic", {}),
                              ("scan", "snyk", {})):  # `scan` is expected of backend only
        refused = override(trail, name, kind, True, **where)
        assert refused.status_code == 404, (name, kind)
        assert refused.json["message"] == (f"No {kind} attestation '{name}' to override in "
                                           "trail 'release-1'")
    assert len(trail_attestations(trail, "unit-tests")) == 1  # nothing more was written


# ---- binding to artifacts ---------------------------------------------------------------------

def test_attestations_made_before_their_artifact_are_bound_by_template_name_and_commit(trail):
    """The docs: `--name backend.unit-tests --commit` without a fingerprint is kept for
    (template name, commit) and bound to the fingerprint when that artifact arrives."""
    on = {"sha1": COMMIT, "message": "m", "author": "a", "branch": "main", "timestamp": 1}
    early = attested(trail, "generic", {"attestation_name": "unit-tests", "is_compliant": True,
                                        "target_artifacts": ["backend"], "git_commit_info": on})
    other = attested(trail, "generic", {"attestation_name": "lint", "is_compliant": True,
                                        "target_artifacts": ["backend"],
                                        "git_commit_info": {**on, "sha1": OTHER_COMMIT}})
    assert early["artifact_fingerprint"] is None and other["artifact_fingerprint"] is None
    assert report_artifact(trail).status_code == 201  # backend, built from COMMIT
    assert trail_attestations(trail, "unit-tests")[0]["artifact_fingerprint"] == BACKEND_FP
    assert trail_attestations(trail, "backend.unit-tests")[0]["attestation_id"] == \
        early["attestation_id"]
    assert trail_attestations(trail, "lint")[0]["artifact_fingerprint"] is None  # other commit
    got = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP}", headers=H).json
    assert list(got["evidence"]) == ["unit-tests"]
    # its history has every event with its time, oldest first, the attestation included
    assert [(h["type"], h["event"]) for h in got["history"]] == [
        ("attestation", "unit-tests reported"), ("created", "backend reported")]


def test_attestations_bind_to_artifacts_by_target_or_fingerprint(trail):
    assert report_artifact(trail).status_code == 201
    assert report_artifact(trail, FRONTEND_FP, "frontend.tgz", template_name="frontend",
                           commit=OTHER_COMMIT).status_code == 201

    by_target = attested(trail, "snyk", snyk(target_artifacts=["backend"]))
    assert by_target["target_artifact"] == "backend"
    assert by_target["artifact_fingerprint"] == BACKEND_FP

    by_fingerprint = attested(trail, "generic", {"attestation_name": "signed",
                                                 "is_compliant": True,
                                                 "artifact_fingerprint": FRONTEND_FP})
    assert by_fingerprint["target_artifact"] == "frontend"
    assert by_fingerprint["artifact_fingerprint"] == FRONTEND_FP

    trail_level = attested(trail, "generic", {"attestation_name": "signed", "is_compliant": True})
    assert trail_level["target_artifact"] is None
    assert trail_level["artifact_fingerprint"] is None

    # Read back through the artifact: full fingerprint and a 5-character prefix.
    for fingerprint in (FRONTEND_FP, FRONTEND_FP[:5]):
        about = trail.get(f"/api/v2/attestations/acme/payments/artifact/{fingerprint}/signed",
                          headers=H)
        assert about.status_code == 200, about.json
        assert [a["attestation_id"] for a in about.json] == [by_fingerprint["attestation_id"]]
    # None of that name about an artifact that is there: an empty list, not an error.
    none = trail.get(f"/api/v2/attestations/acme/payments/artifact/{BACKEND_FP}/signed",
                     headers=H)
    assert (none.status_code, none.json) == (200, [])

    status = get_trail(trail)["compliance_status"]
    backend = status["artifacts_statuses"]["backend"]
    assert backend["artifact_fingerprint"] == BACKEND_FP
    assert [(e["attestation_name"], e["status"]) for e in backend["attestations_statuses"]] == [
        ("scan", "COMPLETE")]
    frontend = status["artifacts_statuses"]["frontend"]
    assert frontend["unexpected"] is True

    # The artifact answers carry the published `evidence` map: the newest attestation of each
    # name about the artifact (trail-level ones are not about it).
    got = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP}", headers=H).json
    assert list(got["evidence"]) == ["scan"]
    scan = got["evidence"]["scan"]
    assert (scan["evidence_type"], scan["is_compliant"], scan["has_audit_package"]) == (
        "snyk", by_target["is_compliant"], True)
    assert float(scan["created_at"]) == by_target["created_at"]
    listed = trail.get("/api/v2/artifacts/acme?flow_name=payments", headers=H).json
    assert {a["fingerprint"]: list(a["evidence"]) for a in listed} == {
        BACKEND_FP: ["scan"], FRONTEND_FP: ["signed"]}
    assert [e["attestation_name"] for e in frontend["attestations_statuses"]] == ["signed"]
    events = [e for e in get_trail(trail)["events"] if "attestation" in e["type"]]
    assert [(e["type"], e["target_artifact"]) for e in events] == [
        ("artifact_attestation_reported", "backend"),
        ("artifact_attestation_reported", "frontend"),
        ("trail_attestation_reported", None)]

    unknown = attest(trail, "generic", {"attestation_name": "signed", "is_compliant": True,
                                        "artifact_fingerprint": "0" * 64})
    assert unknown.status_code == 404


# ---- reading attestations ---------------------------------------------------------------------

def test_get_attestation_by_id_answers_a_data_list(trail):
    first = attested(trail, "generic", {"attestation_name": "one", "is_compliant": True})
    attested(trail, "generic", {"attestation_name": "two", "is_compliant": True})

    got = trail.get(f"/api/v2/attestations/acme?attestation_id={first['attestation_id']}",
                    headers=H)
    assert got.status_code == 200
    assert [a["attestation_id"] for a in got.json["data"]] == [first["attestation_id"]]
    assert got.json["data"][0] == first
    assert got.json["_links"] == {"next": None}

    nothing = trail.get("/api/v2/attestations/acme?attestation_id=no-such-id", headers=H)
    assert nothing.status_code == 200
    assert nothing.json["data"] == []
    by_name = trail.get("/api/v2/attestations/acme/payments/trail/release-1/no-such", headers=H)
    assert (by_name.status_code, by_name.json) == (200, [])
    assert trail.get("/api/v2/attestations/acme/payments/trail/no-such-trail/no-such",
                     headers=H).status_code == 404


def walk(client, first_path: str) -> tuple[list[str], int]:
    """Follow `_links.next` from `first_path`: (attestation ids in order, pages read)."""
    ids: list[str] = []
    path, pages = first_path, 0
    while path:
        got = client.get(path, headers=H)
        assert got.status_code == 200, got.json
        pages += 1
        ids += [a["attestation_id"] for a in got.json["data"]]
        link = got.json["_links"]["next"]
        if link:
            parts = urlsplit(link)
            path = f"{parts.path}?{parts.query}"
        else:
            path = None
    return ids, pages


def test_cursor_listing_walks_every_page_once(trail):
    reported = []
    for n in range(7):
        name = "lint" if n % 2 else "build"
        reported.append(attested(trail, "generic", {"attestation_name": name,
                                                    "is_compliant": True})["attestation_id"])
    newest_first = list(reversed(reported))

    ids, pages = walk(trail, "/api/v2/attestations/acme?per_page=3")
    assert ids == newest_first
    assert pages == 3

    first = trail.get("/api/v2/attestations/acme?per_page=3", headers=H).json
    assert first["_links"]["next"].startswith("http://evidence.test/api/v2/attestations/acme?")
    after = trail.get(f"/api/v2/attestations/acme?per_page=3&after={newest_first[2]}",
                      headers=H).json
    assert [a["attestation_id"] for a in after["data"]] == newest_first[3:6]

    exact, pages = walk(trail, "/api/v2/attestations/acme?per_page=7")
    assert (exact, pages) == (newest_first, 1)

    # A filter holds on every page the links lead to.
    lint_ids, _ = walk(trail, "/api/v2/attestations/acme?name=lint&per_page=2")
    assert lint_ids == [i for n, i in enumerate(reported) if n % 2][::-1]
    build_ids, pages = walk(trail, "/api/v2/attestations/acme?name_regex=^bu&is_compliant=true"
                                   "&type=generic&per_page=1")
    assert (build_ids, pages) == ([i for n, i in enumerate(reported) if not n % 2][::-1], 4)

    bad_cursor = trail.get("/api/v2/attestations/acme?after=nope", headers=H)
    assert bad_cursor.status_code == 400
    assert "after" in bad_cursor.json["errors"]
    assert trail.get("/api/v2/attestations/acme?per_page=0", headers=H).status_code == 400


def test_flow_listing_is_page_numbered(trail):
    create_flow(trail, "other")
    begin_trail(trail, "other", "t")
    attested(trail, "generic", {"attestation_name": "elsewhere", "is_compliant": True},
             flow="other", trail="t")
    ids = [attested(trail, "generic", {"attestation_name": f"a{n}", "is_compliant": True}
                    )["attestation_id"] for n in range(5)]

    seen = []
    for page in (1, 2, 3):
        got = trail.get(f"/api/v2/attestations/acme/payments?page={page}&per_page=2", headers=H)
        assert got.status_code == 200
        assert got.json["pagination"] == {"total": 5, "page": page, "per_page": 2,
                                          "page_count": 3}
        seen += [a["attestation_id"] for a in got.json["data"]]
    assert seen == list(reversed(ids))
    assert trail.get("/api/v2/attestations/acme/nope", headers=H).status_code == 404


def test_flow_lists_narrow_to_one_trail(trail):
    begin_trail(trail, "payments", "release-2")
    mine = attested(trail, "generic", {"attestation_name": "a", "is_compliant": True})
    attested(trail, "generic", {"attestation_name": "b", "is_compliant": True}, trail="release-2")
    assert report_artifact(trail).status_code == 201
    other = hashlib.sha256(b"other build").hexdigest()
    assert report_artifact(trail, other, "other.tgz", trail="release-2").status_code == 201

    got = trail.get("/api/v2/attestations/acme/payments?trail_name=release-1", headers=H)
    assert [a["attestation_id"] for a in got.json["data"]] == [mine["attestation_id"]]
    assert got.json["pagination"]["total"] == 1
    listed = trail.get("/api/v2/artifacts/acme/payments?trail_name=release-2", headers=H)
    assert [a["filename"] for a in listed.json] == ["other.tgz"]
    for path in ("/api/v2/attestations/acme/payments?trail_name=absent",
                 "/api/v2/artifacts/acme/payments?trail_name=absent"):
        assert trail.get(path, headers=H).status_code == 404, path


def test_one_trails_list_pages_newest_first_and_narrows_by_time(trail):
    begin_trail(trail, "payments", "release-2")
    attested(trail, "generic", {"attestation_name": "elsewhere", "is_compliant": True},
             trail="release-2")
    made = [attested(trail, "generic", {"attestation_name": f"a{n}", "is_compliant": n % 2 == 0},
                     attachment=("e.txt", b"evidence") if n == 3 else None)
            for n in range(7)]
    seen = []
    for page in (1, 2, 3):
        got = trail.get(f"/api/v2/attestations/acme/payments?trail_name=release-1&page={page}"
                        "&per_page=3", headers=H)
        assert got.status_code == 200
        assert got.json["pagination"] == {"total": 7, "page": page, "per_page": 3,
                                          "page_count": 3}
        seen += got.json["data"]
    assert [a["attestation_id"] for a in seen] == [a["attestation_id"] for a in reversed(made)]
    assert [a["is_compliant"] for a in seen] == [n % 2 == 0 for n in reversed(range(7))]
    assert {a["trail_name"] for a in seen} == {"release-1"}
    [with_file] = [a for a in seen if a["evidence"]]
    assert with_file["attestation_name"] == "a3" and with_file["evidence"]["size"] == 8
    beyond = trail.get("/api/v2/attestations/acme/payments?trail_name=release-1&page=4&per_page=3",
                       headers=H)
    assert beyond.json["data"] == [] and beyond.json["pagination"]["total"] == 7

    middle = seen[3]["created_at"]
    narrowed = trail.get("/api/v2/attestations/acme/payments?trail_name=release-1"
                         f"&to_timestamp={middle}", headers=H)
    assert [a["attestation_id"] for a in narrowed.json["data"]] == [
        a["attestation_id"] for a in seen[3:]]


def test_listed_attestations_answer_what_their_rows_hold_now(trail):
    # Answers are kept by the row they are made of: a rename changes the row (the flow's name
    # is part of it), so the next list answers the new name, never the kept one.
    made = attested(trail, "generic", {"attestation_name": "kept", "is_compliant": True})
    listed = trail.get("/api/v2/attestations/acme/payments?trail_name=release-1", headers=H)
    assert listed.json["data"][0]["flow_name"] == "payments"
    assert trail.put("/api/v2/flows/acme/payments/rename", json={"new_name": "payouts"},
                     headers=H).status_code == 200
    for flow in ("payouts", "payments"):  # the former name still finds the flow
        [again] = trail.get(f"/api/v2/attestations/acme/{flow}?trail_name=release-1",
                            headers=H).json["data"]
        assert again["attestation_id"] == made["attestation_id"]
        assert again["flow_name"] == "payouts"
        assert "/flows/payouts/trails/release-1" in again["html_url"]


def test_a_trail_answers_what_its_rows_hold_now(trail):
    # A trail's answer is kept by the rows it is made of (the trail's, its flow's, its events
    # and evidence): each change below changes one of them, so no kept answer is answered again.
    first = get_trail(trail)
    assert get_trail(trail) == first
    assert first["compliance_status"]["status"] == "INCOMPLETE"

    attested(trail, "junit", junit())
    tested = get_trail(trail)
    assert tested["events"][-1]["type"] == "trail_attestation_reported"
    assert tested["compliance_status"]["attestations_statuses"][0]["status"] == "COMPLETE"

    report_artifact(trail)
    reported = get_trail(trail)
    assert reported["events"][-1]["type"] == "artifact_creation_reported"
    assert "backend" in reported["compliance_status"]["artifacts_statuses"]

    changed = trail.put("/api/v2/flows/acme/template_file", headers=H,  # the flow's row
                        content_type="multipart/form-data",
                        data={"data_json": json.dumps({"name": "payments", "description": ""}),
                              "template_file": (io.BytesIO(b"version: 1\n"), "template.yml")})
    assert changed.status_code == 200, changed.json
    # a trail begun is judged by the template it was begun with: the flow's new one judges
    # the trails begun after it
    kept = get_trail(trail)
    assert (kept["compliance_status"], kept["template"]) == (
        reported["compliance_status"], reported["template"])
    assert kept["compliance_status"]["status"] == "INCOMPLETE"

    assert trail.put("/api/v2/flows/acme/payments/rename", json={"new_name": "payouts"},
                     headers=H).status_code == 200
    for flow in ("payouts", "payments"):  # by its former name the flow is read otherwise
        renamed = get_trail(trail, flow=flow)
        assert renamed["flow"]["name"] == "payouts"
        assert renamed["html_url"].endswith("/flows/payouts/trails/release-1")
        assert renamed["events"] == reported["events"]


def _events_read(statements: list[str]) -> int:
    """Statements that read events' or evidence's fields (not just their marks)."""
    return sum(('"payload"' in sql and '"trail_event"' in sql) or '"uid"' in sql
               for sql in statements)


def test_a_kept_trail_answer_costs_no_read_of_its_events_or_evidence(trail, monkeypatch):
    from evidence_grpc.servicers import trails as servicer

    report_artifact(trail)
    attested(trail, "junit", junit())
    servicer._KEPT_TRAILS.clear()
    statements = recorded_statements(monkeypatch)
    first = get_trail(trail)
    assert _events_read(statements) == 2 and len(servicer._KEPT_TRAILS) == 1
    again = get_trail(trail)
    assert again == first and _events_read(statements) == 2  # named by their marks
    assert servicer._KEPT_TRAILS.bytes <= servicer.TRAIL_BYTES
    attested(trail, "junit", junit("more-tests"))  # one more event: another key
    statements.clear()
    assert len(get_trail(trail)["events"]) == len(first["events"]) + 1
    assert _events_read(statements) == 2


def test_a_kept_trail_answer_is_one_statement_in_no_transaction(trail, monkeypatch):
    """GetTrail answers what it keeps from the statement that finds the trail with its marks,
    outside any transaction (on SQLite BEGIN and COMMIT were a third of its server CPU); a
    trail not kept is found again with its events and evidence, in one snapshot."""
    from evidence_grpc.servicers import trails as servicer

    attested(trail, "junit", junit())
    servicer._KEPT_TRAILS.clear()
    run: list[tuple[str, bool]] = []
    hooks = storage.database.obj.query_hooks
    monkeypatch.setattr(storage.database.obj, "query_hooks", [*hooks, lambda event: run.append(
        (event.sql, storage.database.in_transaction()))])
    first = get_trail(trail)
    in_snapshot = [sql for sql, transaction in run if transaction]
    assert len(in_snapshot) == 3 and '"trail"' in in_snapshot[0]  # the trail again, events, evidence
    assert _events_read(in_snapshot) == 2 and _events_read(sql for sql, _ in run) == 2
    run.clear()
    assert get_trail(trail) == first
    assert [transaction for _, transaction in run] == [False, False]  # authentication, the trail


def test_a_kept_trail_read_and_readiness_send_a_statement_each_of_their_own(trail):
    """What the driver sends (each a round trip on PostgreSQL) for a kept trail read: the
    key's authentication and the trail with its marks, on PostgreSQL as statements the
    connection prepared, and nothing else: no BEGIN or COMMIT, no pool check of the connection
    (`SELECT 1`); for `/ready` its one `SELECT 1`."""
    attested(trail, "junit", junit())
    get_trail(trail)  # now kept
    with sent_statements() as sent:
        first = get_trail(trail)  # a new connection: prepares them
        sent.clear()
        assert get_trail(trail) == first
        assert len(sent) == 2, sent
        assert not [sql for sql in sent if sql.split()[0] in ("BEGIN", "COMMIT", "ROLLBACK")
                    or sql == "SELECT 1"], sent
        if isinstance(storage.database.obj, peewee.PostgresqlDatabase):
            assert all(sql.startswith("EXECUTE ") for sql in sent), sent
        sent.clear()
        assert trail.get("/ready").status_code == 200
        assert sent == ["SELECT 1"]


def _list_statements(client, monkeypatch) -> tuple[list[dict[str, Any]], int]:
    statements = recorded_statements(monkeypatch)
    listed = client.get("/api/v2/trails/acme/payments", headers=H)
    assert listed.status_code == 200, listed.json
    count = len(statements)
    monkeypatch.undo()
    return listed.json, count


def test_an_unpaged_list_of_trails_runs_as_many_statements_whatever_its_length(trail,
                                                                               monkeypatch):
    """Cold (nothing kept) or warm, the list of 3 trails and of 12 run the same statements,
    and the list answers each trail as reading it alone does."""
    from evidence_grpc.servicers import trails as servicer

    counts, made = [], 1
    for total in (3, 12):
        for n in range(made + 1, total + 1):
            begin_trail(trail, trail=f"release-{n}")
            attested(trail, "junit", junit(), trail=f"release-{n}")
        made = total
        servicer._KEPT_TRAILS.clear()
        cold, cold_count = _list_statements(trail, monkeypatch)
        warm, warm_count = _list_statements(trail, monkeypatch)
        assert len(cold) == total and warm == cold
        counts.append((cold_count, warm_count))
        assert cold == [get_trail(trail, trail=t["name"]) for t in cold]
    assert counts[0] == counts[1], counts
    assert counts[0][1] < counts[0][0]  # warm: no events read


def test_a_long_list_adds_its_share_to_what_is_kept_and_leaves_the_rest(trail, monkeypatch):
    """An unpaged list longer than what a process keeps adds at most half of it (memo.Share),
    in the shim (items' JSON) and in the server (trails' answers): a trail read alone before
    stays kept, and the list read again finds the items it kept, not none (with the last read
    first out, each item would have pushed out one kept before it)."""
    from evidence_grpc.servicers import trails as servicer
    from rest_shim import transcoder

    for n in range(2, 13):
        begin_trail(trail, trail=f"release-{n}")
    caches = ((transcoder, "_KEPT_JSON"), (servicer, "_KEPT_TRAILS"))
    for module, name in caches:  # one trail's entry, to size the caches by
        monkeypatch.setattr(module, name, BytesLru(10**9))
    get_trail(trail, trail="release-12")
    sizes = [getattr(module, name).bytes for module, name in caches]
    for (module, name), size in zip(caches, sizes, strict=True):
        monkeypatch.setattr(module, name, BytesLru(6 * size + size // 2))  # 6 trails
    get_trail(trail)
    alone = [next(iter(getattr(module, name)._entries)) for module, name in caches]
    rendered, render = [], transcoder._json
    monkeypatch.setattr(transcoder, "_json", lambda *args: rendered.append(args) or render(*args))
    listed = trail.get("/api/v2/trails/acme/payments", headers=H)
    assert listed.status_code == 200 and len(listed.json) == 12 and len(rendered) == 11
    for (module, name), key in zip(caches, alone, strict=True):
        kept = getattr(module, name)
        assert key in kept and len(kept) == 1 + 3, name  # the lone read, and a share of 3
    rendered.clear()
    assert trail.get("/api/v2/trails/acme/payments", headers=H).json == listed.json
    assert len(rendered) == 12 - 3  # read again, the list found the items it kept


def test_list_attestations_for_criteria_is_not_taken_for_a_flow_name(trail):
    on_commit = {"sha1": COMMIT, "message": "m", "author": "a", "branch": "main",
                 "timestamp": 1700000000}
    first = attested(trail, "generic", {"attestation_name": "review", "is_compliant": True,
                                        "git_commit_info": on_commit})
    attested(trail, "generic", {"attestation_name": "review", "is_compliant": True,
                                "git_commit_info": {**on_commit, "sha1": OTHER_COMMIT}})
    attested(trail, "junit", junit())

    # the catalog's answer: {commit: [attestations naming it, newest first]}; commit_list is
    # required and every commit asked for is answered
    missing = trail.get("/api/v2/attestations/acme/list_attestations_for_criteria", headers=H)
    assert missing.status_code == 400 and "commit_list" in missing.json["errors"]
    bad = trail.get("/api/v2/attestations/acme/list_attestations_for_criteria?commit_list=abc",
                    headers=H)
    assert bad.status_code == 400 and "commit_list.0" in bad.json["errors"]
    unknown = "f" * 40
    everything = trail.get("/api/v2/attestations/acme/list_attestations_for_criteria"
                           f"?commit_list={COMMIT}&commit_list={OTHER_COMMIT}"
                           f"&commit_list={unknown}", headers=H)
    assert everything.status_code == 200
    assert {c: len(found) for c, found in everything.json.items()} == {
        COMMIT: 1, OTHER_COMMIT: 1, unknown: 0}

    by_commit = trail.get("/api/v2/attestations/acme/list_attestations_for_criteria"
                          f"?flow_name=payments&attestation_name=review&commit_list={COMMIT}",
                          headers=H).json
    assert [a["attestation_id"] for a in by_commit[COMMIT]] == [first["attestation_id"]]
    by_type = trail.get("/api/v2/attestations/acme/list_attestations_for_criteria"
                        f"?attestation_type=junit&commit_list={COMMIT}", headers=H).json
    assert by_type == {COMMIT: []}


# ---- evidence files ---------------------------------------------------------------------------

def test_identical_attachments_are_stored_once(trail):
    content = b"PK\x03\x04 the same report bytes \x00\xff"
    first = attested(trail, "generic", {"attestation_name": "report-a", "is_compliant": True},
                     attachment=("report.zip", content))
    second = attested(trail, "junit", junit(), attachment=("nested/dir/copy.zip", content))

    assert first["evidence"]["sha256"] == second["evidence"]["sha256"] == \
        hashlib.sha256(content).hexdigest()
    assert (first["evidence"]["filename"], second["evidence"]["filename"]) == (
        "report.zip", "copy.zip")
    with storage.database.connection_context():
        assert Blob.select().count() == 1

    download = trail.get(urlsplit(second["evidence"]["url"]).path, headers=H)
    assert download.data == content
    assert download.mimetype == "application/zip"
    assert download.headers["Content-Disposition"] == "attachment; filename=copy.zip"
    tarball = attested(trail, "generic", {"attestation_name": "bundle", "is_compliant": True},
                       attachment=("evidence.tgz", b"\x1f\x8b not really"))
    got = trail.get(urlsplit(tarball["evidence"]["url"]).path, headers=H)
    assert got.mimetype == "application/gzip"
    assert got.headers["Content-Disposition"] == "attachment; filename=evidence.tgz"
    # The download is scoped by the trail in its path.
    begin_trail(trail, trail="release-2")
    assert trail.get(f"/api/v2/attestations/acme/payments/trail/release-2/attestation/"
                     f"{first['attestation_id']}/evidence", headers=H).status_code == 404


# ---- artifacts --------------------------------------------------------------------------------

ARTIFACT_FIELDS = {"filename", "flow_name", "fingerprint", "git_commit", "commit_url",
                   "build_url", "html_url", "state", "created_at", "trail_name",
                   "template_reference_name", "running", "exited", "history"}


def test_report_artifact_and_get_it_by_fingerprint_or_prefix(trail):
    answer = report_artifact(trail)
    assert answer.status_code == 201, answer.json
    assert answer.json == f"artifact 'backend.tgz' was reported with fingerprint {BACKEND_FP}"

    full = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP}", headers=H)
    assert full.status_code == 200
    artifact = full.json
    assert ARTIFACT_FIELDS <= set(artifact)
    assert artifact["filename"] == "backend.tgz"
    assert artifact["flow_name"] == "payments"
    assert artifact["trail_name"] == "release-1"
    assert artifact["template_reference_name"] == "backend"
    assert artifact["fingerprint"] == BACKEND_FP
    assert artifact["git_commit"] == COMMIT
    assert artifact["build_url"] == "https://ci.example/build/1"
    assert artifact["html_url"] == (f"http://evidence.test/acme/flows/payments/artifacts/"
                                    f"{BACKEND_FP}?artifact_id={artifact['id']}")
    assert artifact["state"] == "INCOMPLETE"  # its scan is still missing
    assert (artifact["running"], artifact["exited"]) == ([], [])
    # in the hosted service's words, as `kosli get artifact` prints them: no line for its commit
    assert [h["event"] for h in artifact["history"]] == ["backend reported"]

    prefix = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP[:5]}", headers=H)
    assert prefix.status_code == 200
    assert prefix.json == artifact
    upper = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP[:8].upper()}",
                      headers=H)
    assert upper.json["fingerprint"] == BACKEND_FP

    in_trail = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP[:8]}"
                         "?trail=release-1", headers=H)
    assert in_trail.json == artifact
    assert trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP}?trail=other",
                     headers=H).status_code == 404

    assert trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{'0' * 64}",
                     headers=H).status_code == 404
    trail_event = get_trail(trail)["events"][-1]
    assert (trail_event["type"], trail_event["artifact_name"]) == (
        "artifact_creation_reported", "backend.tgz")


def test_fingerprint_prefixes_must_be_long_enough_and_unambiguous(trail):
    twins = ["abcde" + hashlib.sha256(str(n).encode()).hexdigest()[5:] for n in range(2)]
    for n, fingerprint in enumerate(twins):
        assert report_artifact(trail, fingerprint, f"twin-{n}", template_name=None
                               ).status_code == 201

    ambiguous = trail.get("/api/v2/artifacts/acme/payments/fingerprint/abcde", headers=H)
    assert 400 <= ambiguous.status_code < 500
    assert "ambiguous" in ambiguous.json["message"]
    assert all(fp in ambiguous.json["errors"]["fingerprint"] for fp in twins)

    unique = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{twins[1][:12]}", headers=H)
    assert unique.json["fingerprint"] == twins[1]

    for too_short in ("abcd", "a"):
        short = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{too_short}", headers=H)
        assert short.status_code == 400
        assert "fingerprint" in short.json["errors"]
    not_hex = trail.get("/api/v2/artifacts/acme/payments/fingerprint/xyzxyz", headers=H)
    assert not_hex.status_code == 400
    too_long = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{twins[0]}0", headers=H)
    assert too_long.status_code == 400


@pytest.mark.parametrize("trails", [3, ONE_READ + 4])
def test_a_fingerprint_in_many_trails_answers_its_newest_artifact(trail, monkeypatch, trails):
    """One read finds the artifacts of a fingerprint when they are fewer than ONE_READ; more of
    them are found as before, by their fingerprint resolved first. Both answer the newest."""
    for n in range(2, trails + 1):
        begin_trail(trail, trail=f"release-{n}")
    for n in range(1, trails + 1):
        assert report_artifact(trail, trail=f"release-{n}").status_code == 201
    statements = recorded_statements(monkeypatch)
    for value in (BACKEND_FP, BACKEND_FP[:7]):
        got = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{value}", headers=H)
        assert got.status_code == 200, got.json
        assert got.json["trail_name"] == f"release-{trails}"
    resolved = sum(sql.startswith('SELECT DISTINCT "t1"."fingerprint"') for sql in statements)
    assert resolved == (0 if trails < ONE_READ else 2)


def test_a_trail_answer_reads_its_attestations_and_artifacts_in_one_statement(trail, monkeypatch):
    report_artifact(trail)
    assert attest(trail, "junit", {**junit(), "artifact_fingerprint": BACKEND_FP}
                  ).status_code == 201
    statements = recorded_statements(monkeypatch)
    answer = get_trail(trail)
    assert [e["type"] for e in answer["events"]][-2:] == [
        "artifact_creation_reported", "artifact_attestation_reported"]
    evidence = [sql for sql in statements if ('"attestation"' in sql or '"artifact"' in sql)
                and "COUNT(" not in sql]  # the rows, besides their marks
    assert len(evidence) == 1 and "UNION ALL" in evidence[0]


def test_artifacts_by_commit_and_latest_commit(trail):
    assert trail.get(f"/api/v2/artifacts/acme/payments/{BACKEND_FP}/latest_commit",
                     headers=H).json == {"latest_commit": None}
    report_artifact(trail, commit=OTHER_COMMIT, branch="feature")
    report_artifact(trail, FRONTEND_FP, "frontend.tgz", template_name="frontend", commit=COMMIT)

    by_commit = trail.get(f"/api/v2/artifacts/acme/payments/commit_sha/{COMMIT}", headers=H)
    assert by_commit.status_code == 200
    assert [a["fingerprint"] for a in by_commit.json] == [FRONTEND_FP]
    assert ARTIFACT_FIELDS <= set(by_commit.json[0])
    short = trail.get(f"/api/v2/artifacts/acme/payments/commit_sha/{OTHER_COMMIT[:7]}", headers=H)
    assert [a["fingerprint"] for a in short.json] == [BACKEND_FP]
    in_trail = trail.get(f"/api/v2/artifacts/acme/payments/commit_sha/{COMMIT}?trail=release-1",
                         headers=H)
    assert len(in_trail.json) == 1
    assert trail.get(f"/api/v2/artifacts/acme/payments/commit_sha/{COMMIT}?trail=other",
                     headers=H).status_code == 404
    assert trail.get(f"/api/v2/artifacts/acme/payments/commit_sha/{'0' * 40}",
                     headers=H).status_code == 404

    latest = trail.get(f"/api/v2/artifacts/acme/payments/{BACKEND_FP}/latest_commit", headers=H)
    assert latest.json == {"latest_commit": COMMIT}
    on_feature = trail.get(f"/api/v2/artifacts/acme/payments/{BACKEND_FP}/latest_commit"
                           "?branch=feature", headers=H)
    assert on_feature.json == {"latest_commit": OTHER_COMMIT}
    assert trail.get(f"/api/v2/artifacts/acme/payments/{BACKEND_FP}/latest_commit?branch=nope",
                     headers=H).json == {"latest_commit": None}


def test_a_legacy_report_begins_a_trail_per_commit_and_counts_for_latest_commit(client):
    create_flow(client, "legacy", "version: 1\n")
    for n, commit in enumerate((COMMIT, OTHER_COMMIT)):
        fingerprint = hashlib.sha256(f"jar {n}".encode()).hexdigest()
        answer = client.post("/api/v2/artifacts/acme/legacy", headers=H, json={
            "fingerprint": fingerprint, "filename": f"app-{n}.jar", "git_commit": commit,
            "build_url": "https://ci.example/1", "commit_url": "https://git.example/c",
            "repo_url": "", "commits_list": [
                {"sha1": commit, "message": f"Release {n}", "author": "Alice <a@x>",
                 "timestamp": 1700000000 + n, "branch": "main", "parents": []}]})
        assert answer.status_code == 201, answer.json
        trail = client.get(f"/api/v2/trails/acme/legacy/{commit}", headers=H)
        assert trail.status_code == 200
        assert [e["type"] for e in trail.json["events"]] == [
            "trail_reported", "artifact_creation_reported"]

    latest = client.get(f"/api/v2/artifacts/acme/legacy/{BACKEND_FP}/latest_commit?branch=main",
                        headers=H)
    assert latest.json == {"latest_commit": OTHER_COMMIT}
    assert client.get(f"/api/v2/artifacts/acme/legacy/{BACKEND_FP}/latest_commit?branch=dev",
                      headers=H).json == {"latest_commit": None}
    listed = client.get("/api/v2/artifacts/acme?flow_name=legacy", headers=H).json
    assert [a["commits"][0]["message"] for a in listed] == ["Release 1", "Release 0"]


def test_list_artifacts_per_flow_and_organization(trail):
    create_flow(trail, "ledger", "version: 1\n")
    begin_trail(trail, "ledger", "l-1")
    report_artifact(trail)
    report_artifact(trail, FRONTEND_FP, "frontend.tgz", template_name="frontend")
    ledger_fp = hashlib.sha256(b"ledger").hexdigest()
    report_artifact(trail, ledger_fp, "ledger.jar", flow="ledger", trail="l-1",
                    template_name=None, commit=None)

    per_flow = trail.get("/api/v2/artifacts/acme?flow_name=payments&page=1&per_page=15",
                         headers=H)
    assert per_flow.status_code == 200
    assert isinstance(per_flow.json, list)
    assert [a["filename"] for a in per_flow.json] == ["frontend.tgz", "backend.tgz"]
    for artifact in per_flow.json:
        for field in ("git_commit", "filename", "fingerprint", "state", "created_at",
                      "running", "exited", "history"):
            assert field in artifact, field
        assert len(artifact["git_commit"]) >= 7

    org_wide = trail.get("/api/v2/artifacts/acme", headers=H).json
    assert {a["fingerprint"] for a in org_wide} == {BACKEND_FP, FRONTEND_FP, ledger_fp}
    ledger = next(a for a in org_wide if a["fingerprint"] == ledger_fp)
    assert ledger["git_commit"] == "unknown"
    assert ledger["state"] == "COMPLIANT"  # the empty template asks for nothing

    second_page = trail.get("/api/v2/artifacts/acme?page=2&per_page=2", headers=H).json
    assert len(second_page) == 1
    assert trail.get("/api/v2/artifacts/acme?flow_name=nope", headers=H).status_code == 404
    # A repo nothing was built from is as unknown as a flow that is not there.
    unknown = trail.get("/api/v2/artifacts/acme?repo_name=nope", headers=H)
    assert (unknown.status_code, unknown.json["message"]) == (404, "Repo 'nope' not found")


SEARCH_ENTRY_FIELDS = {"fingerprint", "name", "has_provenance", "git_commit", "pipeline", "flow",
                       "trail", "template_reference_name", "build_url", "commit_url",
                       "compliance_state", "running_in", "exited_from", "html_url", "api_url",
                       "history"}


def test_search_by_fingerprint_or_commit_full_or_prefix(trail):
    report_artifact(trail)
    report_artifact(trail, FRONTEND_FP, "frontend.tgz", template_name="frontend",
                    commit=OTHER_COMMIT)

    def search(value: str) -> dict[str, Any]:
        got = trail.get(f"/api/v2/search/acme/sha/{value}", headers=H)
        assert got.status_code == 200, got.json
        assert set(got.json) == {"resolved_to", "artifacts"}
        assert set(got.json["resolved_to"]) == {"type", "full_match", "fingerprints", "commits"}
        for group in ("fingerprints", "commits"):
            assert set(got.json["resolved_to"][group]) == {"type", "count", "matches"}
        for entry in got.json["artifacts"]:
            assert set(entry) == SEARCH_ENTRY_FIELDS
        return got.json

    for value in (BACKEND_FP, BACKEND_FP[:7]):
        found = search(value)
        assert found["resolved_to"]["type"] == "fingerprint"
        assert found["resolved_to"]["full_match"] == BACKEND_FP
        assert found["resolved_to"]["fingerprints"] == {
            "type": "fingerprint", "count": 1, "matches": [BACKEND_FP]}
        [entry] = found["artifacts"]
        assert entry["fingerprint"] == BACKEND_FP
        assert entry["name"] == "backend.tgz"
        assert entry["has_provenance"] is True
        assert (entry["flow"], entry["pipeline"], entry["trail"]) == (
            "payments", "payments", "release-1")
        assert entry["template_reference_name"] == "backend"
        assert entry["git_commit"] == COMMIT
        assert entry["compliance_state"] == "INCOMPLETE"
        assert (entry["running_in"], entry["exited_from"]) == ([], [])
        assert entry["api_url"] == ("http://evidence.test/api/v2/artifacts/acme/payments/"
                                    f"fingerprint/{BACKEND_FP}")

    for value in (OTHER_COMMIT, OTHER_COMMIT[:7]):
        found = search(value)
        assert found["resolved_to"]["type"] == "commit"
        assert found["resolved_to"]["full_match"] == OTHER_COMMIT
        assert found["resolved_to"]["commits"] == {
            "type": "commit", "count": 1, "matches": [OTHER_COMMIT]}
        assert [a["fingerprint"] for a in found["artifacts"]] == [FRONTEND_FP]

    assert trail.get("/api/v2/search/acme/sha/0000000", headers=H).status_code == 404
    assert trail.get("/api/v2/search/acme/sha/zz", headers=H).status_code == 400


# ---- compliance as evidence arrives -----------------------------------------------------------

def test_trail_compliance_follows_the_evidence(trail):
    assert get_trail(trail)["compliance_state"] == "INCOMPLETE"
    attested(trail, "junit", junit())
    assert get_trail(trail)["compliance_state"] == "INCOMPLETE"  # backend not reported yet
    report_artifact(trail)
    assert get_trail(trail)["compliance_state"] == "INCOMPLETE"  # backend's scan missing
    attested(trail, "snyk", snyk(target_artifacts=["backend"]))
    status = get_trail(trail)
    assert status["compliance_state"] == "COMPLIANT"
    assert status["is_compliant"] is True
    artifact = trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP}", headers=H)
    assert artifact.json["state"] == "COMPLIANT"

    attested(trail, "snyk", snyk(high=1, target_artifacts=["backend"]))
    status = get_trail(trail)
    assert status["compliance_state"] == "NON-COMPLIANT"
    assert status["compliance_status"]["artifacts_statuses"]["backend"]["status"] == \
        "NON-COMPLIANT"
    assert trail.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP}",
                     headers=H).json["state"] == "NON-COMPLIANT"


# ---- tags -------------------------------------------------------------------------------------

def tag(client, resource: str, body: Any, resource_type: str = "flow"):
    return client.patch(f"/api/v2/tags/acme/{resource_type}/{resource}", headers=H, json=body)


def test_tags_on_a_flow(client):
    create_flow(client)
    first = tag(client, "payments", {"set_tags": {"team": "core", "tier": "1"}, "remove_tags": []})
    assert first.status_code == 200, first.json
    assert first.json == "tags of flow 'payments' were updated"
    assert client.get("/api/v2/flows/acme/payments", headers=H).json["tags"] == {
        "team": "core", "tier": "1"}

    plural = tag(client, "payments", {"set_tags": {"team": "platform"}, "remove_tags": ["tier"]},
                 resource_type="flows")
    assert plural.status_code == 200
    assert client.get("/api/v2/flows/acme/payments", headers=H).json["tags"] == {
        "team": "platform"}
    assert tag(client, "payments", {"set_tags": {}, "remove_tags": ["never-set"]}
               ).status_code == 200

    unknown_type = tag(client, "payments", {"set_tags": {"a": "b"}, "remove_tags": []},
                       resource_type="widgets")
    assert unknown_type.status_code == 404
    assert "widgets" in unknown_type.json["message"]
    bad_key = tag(client, "payments", {"set_tags": {"-bad key": "x"}, "remove_tags": []})
    assert bad_key.status_code == 400
    assert "set_tags.-bad key" in bad_key.json["errors"]
    unknown_field = tag(client, "payments", {"set_tags": {}, "remove_tags": [], "labels": {}})
    assert unknown_field.status_code == 400
    assert unknown_field.json["errors"] == {"labels": "Unknown field"}
    assert tag(client, "nope", {"set_tags": {"a": "b"}, "remove_tags": []}).status_code == 404
    assert client.get("/api/v2/flows/acme/payments", headers=H).json["tags"] == {
        "team": "platform"}
    listed = client.get("/api/v2/flows/acme", headers=H).json
    flows = listed["data"] if isinstance(listed, dict) else listed
    assert [f["tags"] for f in flows if f["name"] == "payments"] == [{"team": "platform"}]


def test_the_system_attestation_types_with_their_schemas(client):
    listed = client.get("/api/v2/attestations/system-attestation-types", headers=H)
    assert listed.status_code == 200
    types = {t["name"]: t for t in listed.get_json()}
    assert set(types) == {"decision", "sbom"}
    schema = types["decision"]["versions"][0]["attestation_data_schema"]
    assert schema["required"] == ["is_compliant"]
    assert client.get("/api/v2/attestations/system-attestation-types").status_code == 401


def test_attestations_carry_the_hosted_fields(trail):
    assert report_artifact(trail).status_code == 201
    content = b"scan output"
    attest(trail, "generic", {"attestation_name": "review", "is_compliant": True,
                              "artifact_fingerprint": BACKEND_FP},
           attachment=("review.txt", content))
    [got] = trail_attestations(trail, "review")
    assert got["schema_version"] == 2 and got["has_audit_package"] is True
    assert got["target_artifacts"] == ["backend"] and got["reported_by"] == "alice"
    assert got["evidence_archive_fingerprint"] == hashlib.sha256(content).hexdigest()
    assert got["_links"]["self"]["href"].endswith(
        f"/api/v2/attestations/acme/payments/artifact/{BACKEND_FP}/review")
    assert got["_links"]["evidence"]["href"] == got["evidence"]["url"]
    assert trail.get(got["_links"]["self"]["href"].removeprefix("http://evidence.test"),
                     headers=H).status_code == 200


def test_a_legacy_flows_template_list_is_required_of_its_artifacts(client):
    """Flows made with a template list (the legacy `--template artifact,unit-test,...`)
    require every listed evidence but `artifact` of each artifact reported to them."""
    made = client.put("/api/v2/flows/acme", headers=H, json={
        "name": "legacy", "description": "", "template": ["artifact", "unit-test", "pull-request"]})
    assert made.status_code == 201, made.json
    body = {"fingerprint": BACKEND_FP, "filename": "backend.tgz", "git_commit": COMMIT,
            "build_url": "https://ci.example/build/1",
            "commit_url": f"https://github.com/acme/payments/commit/{COMMIT}"}
    assert client.post("/api/v2/artifacts/acme/legacy", headers=H, json=body).status_code == 201

    def state() -> str:
        return client.get(f"/api/v2/artifacts/acme/legacy/fingerprint/{BACKEND_FP}",
                          headers=H).json["state"]

    assert state() == "INCOMPLETE"
    trail = client.get(f"/api/v2/trails/acme/legacy/{COMMIT}", headers=H).json
    entry = trail["compliance_status"]["artifacts_statuses"][BACKEND_FP]
    assert [(s["attestation_name"], s["status"]) for s in entry["attestations_statuses"]] == [
        ("unit-test", "MISSING"), ("pull-request", "MISSING")]
    for name, compliant in (("unit-test", True), ("pull-request", True)):
        assert attest(client, "generic", {"attestation_name": name, "is_compliant": compliant,
                                          "artifact_fingerprint": BACKEND_FP},
                      flow="legacy", trail=COMMIT).status_code == 201
    assert state() == "COMPLIANT"
    assert attest(client, "generic", {"attestation_name": "unit-test", "is_compliant": False,
                                      "artifact_fingerprint": BACKEND_FP},
                  flow="legacy", trail=COMMIT).status_code == 201
    assert state() == "NON-COMPLIANT"


def test_a_decision_may_name_an_artifact_of_another_flow_on_both_doors(client, db):
    """A decision is recorded on any flow's trail about an artifact reported anywhere in the
    organization (the newest of that fingerprint); other attestations keep to their trail's
    and flow's artifacts."""
    create_flow(client)
    begin_trail(client)
    assert report_artifact(client).status_code == 201
    create_flow(client, "release")
    begin_trail(client, "release", "r1")
    decision = {"attestation_name": "go-live", "type_name": "decision", "control": "C1",
                "attestation_data": {"is_compliant": True}, "artifact_fingerprint": BACKEND_FP}
    assert attest(client, "system", decision, flow="release", trail="r1").status_code == 201
    with grpc_channel(db) as channel:
        stub = attestation_pb_grpc.AttestationServiceStub(channel)
        metadata = [("authorization", f"Bearer {ROLE_KEYS['member']}")]
        data = struct_pb2.Struct()
        data.update({**decision, "attestation_name": "go-live-2"})
        stub.CreateAttestation(attestation_pb.CreateAttestationRequest(
            org="acme", flow_name="release", trail_name="r1", kind="system", data_json=data),
            metadata=metadata)
        data.update({"artifact_fingerprint": "f" * 64})
        with pytest.raises(grpc.RpcError) as nowhere:
            stub.CreateAttestation(attestation_pb.CreateAttestationRequest(
                org="acme", flow_name="release", trail_name="r1", kind="system",
                data_json=data), metadata=metadata)
        assert nowhere.value.code() is grpc.StatusCode.NOT_FOUND
        assert details_of(nowhere.value)[0].reason == "ARTIFACT_NOT_FOUND"
    for name in ("go-live", "go-live-2"):
        [kept] = trail_attestations(client, name, flow="release", trail="r1")
        assert (kept["artifact_fingerprint"], kept["target_artifact"]) == (BACKEND_FP, BACKEND_FP)
    generic = attest(client, "generic", {"attestation_name": "scan", "is_compliant": True,
                                         "artifact_fingerprint": BACKEND_FP},
                     flow="release", trail="r1")
    assert generic.status_code == 404 and "does not exist in trail" in generic.json["message"]
    assert client.get("/api/v2/trails/acme/release/r1", headers=H).status_code == 200


def test_trails_listed_by_the_fingerprint_of_an_artifact_reported_to_them(client, db):
    """GET /api/v2/trails/{org}?fingerprint= (and ListTrails): the trails an artifact of that
    fingerprint was reported to, newest first; none for another fingerprint."""
    from evidence_grpc.api.v2 import trail_service_pb2 as trail_pb
    from evidence_grpc.api.v2 import trail_service_pb2_grpc as trail_pb_grpc

    create_flow(client)
    for name in ("release-1", "release-2", "release-3"):
        begin_trail(client, trail=name)
    for name in ("release-1", "release-3"):
        assert report_artifact(client, trail=name).status_code == 201
    assert report_artifact(client, FRONTEND_FP, "frontend.tgz", trail="release-2",
                           template_name="frontend").status_code == 201
    listed = client.get(f"/api/v2/trails/acme?fingerprint={BACKEND_FP}", headers=H)
    assert listed.status_code == 200, listed.json
    assert [t["name"] for t in listed.json["data"]] == ["release-3", "release-1"]
    assert listed.json["pagination"]["total"] == 2
    none = client.get(f"/api/v2/trails/acme?fingerprint={'0' * 64}", headers=H).json
    assert (none["data"], none["pagination"]["total"]) == ([], 0)
    with grpc_channel(db) as channel:
        answer = trail_pb_grpc.TrailServiceStub(channel).ListTrails(
            trail_pb.ListTrailsRequest(org="acme", fingerprint=FRONTEND_FP),
            metadata=[("authorization", f"Bearer {ROLE_KEYS['member']}")])
    assert [t.name for t in answer.data] == ["release-2"]


def test_a_streamed_list_that_fails_midway_is_cut_short_and_leaves_nothing_behind(
        trail, monkeypatch):
    """The unpaged list streams a chunk at a time: an unknown flow is a 404 (its first chunk is
    read before the answer starts); a failure after the first chunk cuts the answer short (no
    complete JSON array is ever sent), and the caller, the request id and the snapshot it held
    are gone with it: the next request is answered as usual."""
    from evidence_grpc.domain.identity import callers
    from evidence_grpc.observability import request_id
    from evidence_grpc.servicers import lists
    from evidence_grpc.servicers import trails as servicer

    for n in range(2, 4):
        begin_trail(trail, trail=f"release-{n}")
    whole = trail.get("/api/v2/trails/acme/payments", headers=H)
    assert whole.status_code == 200 and len(whole.json) == 3
    missing = trail.get("/api/v2/trails/acme/nope", headers=H)
    assert missing.status_code == 404 and "nope" in missing.json["message"]

    made, answers = [], servicer._answers

    def failing(*args: Any) -> list[bytes]:
        made.append(args)
        if len(made) == 2:
            raise RuntimeError("the database went away")
        return answers(*args)

    monkeypatch.setattr(lists, "STREAM_CHUNK", 1)
    monkeypatch.setattr(servicer, "_answers", failing)
    cut = trail.get("/api/v2/trails/acme/payments", headers=H, buffered=False)
    assert cut.status_code == 200
    sent = b""
    with pytest.raises(grpc.RpcError):
        for piece in cut.response:
            sent += piece
    cut.close()
    assert sent.startswith(b"[{") and not sent.endswith(b"]")
    assert request_id.get() is None and callers._caller.get() is None
    assert not storage.database.in_transaction()
    monkeypatch.undo()
    assert trail.get("/api/v2/trails/acme/payments", headers=H).json == whole.json
