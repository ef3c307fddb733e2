"""Evidence end to end: the official kosli CLI attests artifacts and every kind of attestation
to a real `evidence-server serve` process, then reads them back with `get`, `list`, `search`
and `evaluate`, on every engine under test.

One server per engine serves the whole module; every test works in a flow of its own."""

from __future__ import annotations

import hashlib
import io
import json
import pathlib
import subprocess
import sys
import tarfile
import uuid

import pytest
import requests

from evidence_grpc.domain.transparency import notes
from evidence_grpc.domain.views.audit_packages import check_package
from tests.conftest import RunningServer, bearer
from tests.e2e.cli import Repo, attest_backend, failure, write
from tests.helpers import TEMPLATE

pytestmark = pytest.mark.e2e


JUNIT_PASSING = """\
<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="api" tests="3" failures="0" errors="0" skipped="1" time="1.5"
             timestamp="2024-05-01T10:00:00">
    <testcase name="creates" classname="api" time="0.5"/>
    <testcase name="reads" classname="api" time="0.5"/>
    <testcase name="deletes" classname="api" time="0.5"><skipped/></testcase>
  </testsuite>
</testsuites>
"""

JUNIT_FAILING = """\
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="db" tests="2" failures="1" errors="0" skipped="0" time="0.25">
  <testcase name="migrates" classname="db" time="0.125"/>
  <testcase name="rolls back" classname="db" time="0.125"><failure message="boom"/></testcase>
</testsuite>
"""

SARIF_SCHEMA = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"


def sarif(findings: int) -> str:
    results = [{"ruleId": "SNYK-JS-LODASH-1", "level": "error",
                "message": {"text": "lodash is vulnerable to prototype pollution"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": "package.json"},
                                                    "region": {"startLine": 12}}}]}] * findings
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "Snyk Open Source", "version": "1.1293.0", "rules": [
            {"id": "SNYK-JS-LODASH-1", "shortDescription": {"text": "Prototype Pollution"},
             "properties": {"security-severity": "8.1"}}]}},
        "results": results}]})


SBOM = {
    "bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1,
    "serialNumber": "urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79",
    "metadata": {"timestamp": "2024-05-01T10:00:00Z",
                 "tools": {"components": [{"type": "application", "name": "syft",
                                           "version": "1.4.1"}]},
                 "component": {"type": "application", "name": "payments", "version": "1.0.0",
                               "purl": "pkg:generic/payments@1.0.0"}},
    "components": [
        {"type": "library", "name": "lodash", "version": "4.17.21", "purl": "pkg:npm/lodash@4.17.21"},
        {"type": "library", "name": "express", "version": "4.19.2",
         "purl": "pkg:npm/express@4.19.2"}]}

ALLOW_POLICY = "package policy\n\nallow = true\n"
# Denies an artifact whose `scan` attestation's processed Snyk results count high findings.
NO_HIGH_FINDINGS_POLICY = """\
package policy

import rego.v1

default allow := false

allow if count(violations) == 0

violations contains sprintf("%s: scan reports %d high findings", [artifact_name, total]) if {
    some artifact_name, status in input.trail.compliance_status.artifacts_statuses
    scan := status.attestations_statuses.scan
    total := sum([run.high_count | some run in scan.processed_snyk_results.results])
    total > 0
}
"""
# Denies while any attestation of the trail is non-compliant, naming it and its type, which
# only the attestation details fetched by `evaluate` carry alongside the compliance status.
DENY_POLICY = """\
package policy

import rego.v1

default allow := false

allow if count(violations) == 0

violations contains msg if {
    some name, attestation in input.trail.compliance_status.attestations_statuses
    attestation.is_compliant == false
    msg := sprintf("%s (%s by %s) is not compliant", [name, attestation.attestation_type,
                                                      attestation.created_by])
}
"""


@pytest.fixture
def repo(tmp_path: pathlib.Path) -> Repo:
    return Repo(tmp_path / "repo")


@pytest.fixture
def flow(live: RunningServer, tmp_path: pathlib.Path) -> str:
    """A new flow with TEMPLATE and one trail, `release-1`."""
    name = f"payments-{uuid.uuid4().hex[:8]}"
    template = tmp_path / "template.yml"
    template.write_text(TEMPLATE)
    live.kosli("create", "flow", name, "--template-file", str(template))
    assert live.kosli("begin", "trail", "release-1", "--flow", name).stdout.strip() == \
        "trail 'release-1' was begun"
    return name


def download(live: RunningServer, url: str) -> requests.Response:
    assert url.startswith(live.http_url), url
    answer = requests.get(url, headers=bearer(), timeout=30)
    assert answer.status_code == 200
    return answer


# ---- artifacts --------------------------------------------------------------------------------

def test_attest_artifact_then_get_list_and_search_it(live: RunningServer, flow: str, repo: Repo,
                                                      tmp_path: pathlib.Path):
    fingerprint, sha = attest_backend(live, flow, repo, tmp_path)

    by_fingerprint = live.kosli_json("get", "artifact", f"{flow}@{fingerprint}")
    assert by_fingerprint["filename"] == "backend.tar"
    assert by_fingerprint["fingerprint"] == fingerprint
    assert by_fingerprint["flow_name"] == flow
    assert by_fingerprint["trail_name"] == "release-1"
    assert by_fingerprint["template_reference_name"] == "backend"
    assert by_fingerprint["git_commit"] == sha
    assert by_fingerprint["git_commit_info"]["sha1"] == sha
    assert by_fingerprint["git_commit_info"]["branch"] == "main"
    assert by_fingerprint["git_commit_info"]["author"] == "Alice Example <alice@example.com>"
    assert by_fingerprint["build_url"] == "https://ci.example/builds/42"
    assert by_fingerprint["state"] == "INCOMPLETE"

    table = live.kosli("get", "artifact", f"{flow}@{fingerprint[:7]}").stdout
    assert "Name:              backend.tar" in table
    assert "Name in template:  backend" in table
    assert f"Git commit:        {sha}" in table
    assert "State:             INCOMPLETE" in table

    by_commit = live.kosli_json("get", "artifact", f"{flow}:{sha}")
    assert [a["fingerprint"] for a in by_commit] == [fingerprint]
    assert f"Fingerprint:       {fingerprint}" in live.kosli(
        "get", "artifact", f"{flow}:{sha[:7]}").stdout

    listed = live.kosli("list", "artifacts", "--flow", flow).stdout
    assert sha[:7] in listed
    assert f"Fingerprint: {fingerprint}" in listed
    assert [a["fingerprint"] for a in live.kosli_json("list", "artifacts", "--flow", flow)] == [
        fingerprint]

    found = live.kosli("search", fingerprint).stdout
    assert f"Search result resolved to artifact with fingerprint {fingerprint}" in found
    assert f"Flow:              {flow}" in found
    assert "Has provenance:    true" in found
    by_sha = live.kosli_json("search", sha[:7])
    assert by_sha["resolved_to"]["type"] == "commit"
    assert by_sha["resolved_to"]["full_match"] == sha
    assert [a["fingerprint"] for a in by_sha["artifacts"]] == [fingerprint]
    assert f"Search result resolved to commit {sha}" in live.kosli("search", sha[:7]).stdout

    missing = failure(live.kosli("get", "artifact", f"{flow}@{'0' * 64}", check=False))
    assert missing.endswith(f"Artifact with fingerprint '{'0' * 64}' does not exist in flow "
                            f"'{flow}' belonging to organization 'acme'\n")


def test_search_follows_the_artifact_through_environments_as_the_tutorial_shows(
        live: RunningServer, flow: str, repo: Repo, tmp_path: pathlib.Path):
    """The docs' "follow the artifact" tutorial: `kosli search` lists the environments it runs
    in and exited from by name, and a history with every start and exit, each with its time."""
    content = f"{flow} runner".encode()
    fingerprint, sha = attest_backend(live, flow, repo, tmp_path, content)
    built = tmp_path / "dist" / "backend.tar"
    other = write(tmp_path / "other.bin", b"something else")
    beta, prod = f"beta-{flow}", f"prod-{flow}"
    for env in (beta, prod):
        live.kosli("create", "environment", env, "--type", "server")
    live.kosli("snapshot", "server", beta, "--paths", str(built))   # beta#1
    live.kosli("snapshot", "server", prod, "--paths", str(built))   # prod#1
    live.kosli("snapshot", "server", beta, "--paths", str(other))   # beta#2: exited
    found = live.kosli("search", fingerprint).stdout
    assert f"Running in:        [ {prod} ]" in found
    assert f"Exited from:       [ {beta} ]" in found
    history = found.split("History:", 1)[1].splitlines()[1:]
    history = history[:next((i for i, line in enumerate(history)
                             if line.strip() and not line.startswith(" ")), len(history))]
    events = [line.strip().split("  ")[0] for line in history if line.strip()]
    assert events == ["backend reported", f"Started running in {beta}#1 environment",
                      f"Started running in {prod}#1 environment",
                      f"No longer running in {beta}#2 environment"]
    assert all(len(line.strip().split("  ")[-1].strip()) > 20  # its time, as a date
               for line in history if line.strip())
    shown = live.kosli_json("get", "artifact", f"{flow}@{fingerprint}")
    assert all(isinstance(event["timestamp"], int | float) for event in shown["history"])
    # lead times per environment: from the build (and the commit) to the first start there
    starts = {e["event"].split()[3].split("#")[0]: e["timestamp"] for e in shown["history"]
              if e["type"] == "started"}
    assert shown["build_lead_times"] == pytest.approx(
        {env: at - float(shown["created_at"]) for env, at in starts.items()})
    committed = shown["git_commit_info"]["timestamp"]
    assert shown["commit_lead_times"] == pytest.approx(
        {env: at - committed for env, at in starts.items()})


def test_report_artifact_the_deprecated_way(live: RunningServer, repo: Repo,
                                            tmp_path: pathlib.Path):
    name = f"legacy-{uuid.uuid4().hex[:8]}"
    live.kosli("create", "flow", name, "--use-empty-template")
    reported = []
    for n in (1, 2):
        sha = repo.commit(f"Release {n}")
        artifact = write(tmp_path / f"app-{n}.jar", f"jar {n}".encode())
        result = live.kosli("report", "artifact", str(artifact), "--artifact-type", "file",
                            "--flow", name, "--git-commit", sha, "--repo-root", str(repo.root),
                            "--build-url", f"https://ci.example/{n}",
                            "--commit-url", f"https://github.com/acme/payments/commit/{sha}")
        fingerprint = hashlib.sha256(f"jar {n}".encode()).hexdigest()
        assert f"artifact app-{n}.jar was reported with fingerprint: {fingerprint}" in result.stdout
        assert "deprecated" in result.stderr
        reported.append((fingerprint, sha))

    listed = live.kosli_json("list", "artifacts", "--flow", name)
    assert [(a["fingerprint"], a["git_commit"]) for a in listed] == reported[::-1]
    # Without --trail each report begins a trail named after its commit.
    trails = live.kosli_json("list", "trails", "--flow", name)
    assert sorted(t["name"] for t in trails["data"]) == sorted(sha for _, sha in reported)
    # The next report asks for the newest commit already reported on its branch.
    latest = requests.get(f"{live.http_url}/api/v2/artifacts/acme/{name}/{reported[1][0]}"
                          "/latest_commit?branch=main", headers=bearer(), timeout=30)
    assert latest.json() == {"latest_commit": reported[1][1]}
    second = live.kosli_json("get", "artifact", f"{name}@{reported[1][0]}")
    assert [c["sha1"] for c in second["commits"]] == [reported[1][1]]


# ---- attestations -----------------------------------------------------------------------------

def test_attest_generic_with_a_file_and_a_directory(live: RunningServer, flow: str,
                                                    tmp_path: pathlib.Path):
    report = write(tmp_path / "out" / "coverage.html", "<p>93%</p>\n")
    result = live.kosli("attest", "generic", "--name", "coverage", "--flow", flow,
                        "--trail", "release-1", "--attachments", str(report),
                        "--annotate", "tool=coverage_py", "--description", "line coverage")
    assert result.stdout.strip() == "generic attestation 'coverage' is reported to trail: release-1"
    [single] = live.kosli_json("get", "attestation", "coverage", "--flow", flow,
                               "--trail", "release-1")
    assert single["attestation_type"] == "generic"
    assert single["is_compliant"] is True
    assert single["annotations"] == {"tool": "coverage_py"}
    assert single["description"] == "line coverage"
    assert single["evidence"]["filename"] == "coverage.html"
    assert download(live, single["evidence"]["url"]).content == report.read_bytes()

    write(tmp_path / "logs" / "build.log", "built\n")
    write(tmp_path / "logs" / "nested" / "test.log", "tested\n")
    live.kosli("attest", "generic", "--name", "logs", "--flow", flow, "--trail", "release-1",
               "--attachments", str(tmp_path / "logs"), "--compliant=false")
    [bundle] = live.kosli_json("get", "attestation", "logs", "--flow", flow,
                               "--trail", "release-1")
    assert bundle["is_compliant"] is False
    assert bundle["evidence"]["filename"] == "evidence.tgz"
    packed = download(live, bundle["evidence"]["url"])
    assert packed.headers["Content-Type"] == "application/gzip"
    with tarfile.open(fileobj=io.BytesIO(packed.content), mode="r:gz") as archive:
        contents = {pathlib.PurePath(m.name).name: archive.extractfile(m).read()
                    for m in archive.getmembers() if m.isfile()}
    assert contents == {"build.log": b"built\n", "test.log": b"tested\n"}

    table = live.kosli("get", "attestation", "logs", "--flow", flow, "--trail", "release-1").stdout
    assert "Name:             logs" in table
    assert "Type:             generic" in table
    assert "Compliance:       false" in table


def test_attest_junit_from_a_results_directory(live: RunningServer, flow: str,
                                               tmp_path: pathlib.Path):
    passing = write(tmp_path / "passing" / "results.xml", JUNIT_PASSING)
    result = live.kosli("attest", "junit", "--name", "unit-tests", "--flow", flow,
                        "--trail", "release-1", "--results-dir", str(passing.parent))
    assert result.stdout.strip() == "junit attestation 'unit-tests' is reported to trail: release-1"
    [got] = live.kosli_json("get", "attestation", "unit-tests", "--flow", flow,
                            "--trail", "release-1")
    assert got["is_compliant"] is True
    assert got["summary"] == {"total": 3, "failures": 0, "errors": 0, "skipped": 1,
                              "duration": 1.5}
    assert [s["name"] for s in got["junit_results"]] == ["api"]
    assert got["evidence"]["filename"] == "results.xml"
    assert download(live, got["evidence"]["url"]).text == JUNIT_PASSING

    failing = write(tmp_path / "failing" / "db.xml", JUNIT_FAILING)
    live.kosli("attest", "junit", "--name", "unit-tests", "--flow", flow, "--trail", "release-1",
               "--results-dir", str(failing.parent))
    newest, older = live.kosli_json("get", "attestation", "unit-tests", "--flow", flow,
                                    "--trail", "release-1")
    assert (newest["is_compliant"], older["is_compliant"]) == (False, True)
    assert newest["summary"]["failures"] == 1
    trail = live.kosli_json("get", "trail", "release-1", "--flow", flow)
    assert trail["compliance_state"] == "NON-COMPLIANT"


def test_attest_snyk_sarif_about_an_artifact(live: RunningServer, flow: str, repo: Repo,
                                             tmp_path: pathlib.Path):
    fingerprint, _ = attest_backend(live, flow, repo, tmp_path)
    junit_dir = write(tmp_path / "junit" / "results.xml", JUNIT_PASSING).parent
    live.kosli("attest", "junit", "--name", "unit-tests", "--flow", flow, "--trail", "release-1",
               "--results-dir", str(junit_dir))
    clean = write(tmp_path / "clean.sarif.json", sarif(0))
    result = live.kosli("attest", "snyk", "--name", "backend.scan", "--flow", flow,
                        "--trail", "release-1", "--scan-results", str(clean))
    assert result.stdout.strip() == "snyk attestation 'scan' is reported to trail: release-1"
    assert live.kosli_json("get", "trail", "release-1", "--flow", flow)["compliance_state"] == \
        "COMPLIANT"
    assert live.kosli_json("get", "artifact", f"{flow}@{fingerprint}")["state"] == "COMPLIANT"

    vulnerable = write(tmp_path / "snyk.sarif.json", sarif(2))
    live.kosli("attest", "snyk", "--name", "scan", "--fingerprint", fingerprint, "--flow", flow,
               "--trail", "release-1", "--scan-results", str(vulnerable))
    about = live.kosli_json("get", "attestation", "scan", "--flow", flow,
                            "--fingerprint", fingerprint)
    assert [a["is_compliant"] for a in about] == [False, True]
    assert about[0]["target_artifact"] == "backend"
    assert about[0]["artifact_fingerprint"] == fingerprint
    assert about[0]["summary"] == {"high_count": 2, "medium_count": 0, "low_count": 0}
    assert about[0]["processed_snyk_results"]["tool"] == {"name": "Snyk Open Source", "version": "1.1293.0"}
    assert about[0]["evidence"]["filename"] == "snyk.sarif.json"
    assert download(live, about[0]["evidence"]["url"]).content == vulnerable.read_bytes()
    assert live.kosli_json("get", "trail", "release-1", "--flow", flow)["compliance_state"] == \
        "NON-COMPLIANT"
    assert "State:             NON-COMPLIANT" in live.kosli(
        "get", "artifact", f"{flow}@{fingerprint}").stdout
    # The hosted docs' way to gate on high-severity findings: a Rego policy over the processed
    # scan that `kosli evaluate trail` merges into the trail's attestation statuses.
    gate = write(tmp_path / "no-high.rego", NO_HIGH_FINDINGS_POLICY)
    denied = live.kosli("evaluate", "trail", "release-1", "--flow", flow, "--policy", str(gate),
                        "--output", "json", check=False)
    assert denied.returncode == 1, denied.stdout + denied.stderr
    assert json.loads(denied.stdout)["violations"] == ["backend: scan reports 2 high findings"]


def test_custom_attestation_types_from_create_to_archive(live: RunningServer, flow: str,
                                                         tmp_path: pathlib.Path):
    type_name = f"coverage-{uuid.uuid4().hex[:6]}"
    schema = write(tmp_path / "schema.json", json.dumps({
        "type": "object", "required": ["line_coverage"],
        "properties": {"line_coverage": {"type": "number"}}}))
    created = live.kosli("create", "attestation-type", type_name, "--schema", str(schema),
                         "--jq", ".line_coverage >= 80", "--description", "Line coverage")
    assert created.stdout.strip() == f"attestation-type {type_name} was created"

    got = live.kosli_json("get", "attestation-type", type_name)
    assert got["name"] == type_name
    assert got["description"] == "Line coverage"
    assert [(v["version"], v["evaluator"]["rules"]) for v in got["versions"]] == [
        (1, [".line_coverage >= 80"])]
    assert got["versions"][0]["type_schema"]["required"] == ["line_coverage"]
    assert "Rules:" in live.kosli("get", "attestation-type", type_name).stdout
    listed = live.kosli("list", "attestation-types").stdout
    assert type_name in listed and "Line coverage" in listed

    for name, coverage in (("coverage-good", 91.5), ("coverage-low", 40)):
        data = write(tmp_path / f"{name}.json", json.dumps({"line_coverage": coverage}))
        result = live.kosli("attest", "custom", "--type", type_name, "--name", name,
                            "--attestation-data", str(data), "--flow", flow,
                            "--trail", "release-1")
        assert result.stdout.strip() == \
            f"custom:{type_name} attestation '{name}' is reported to trail: release-1"
    good = live.kosli_json("get", "attestation", "coverage-good", "--flow", flow,
                           "--trail", "release-1")[0]
    assert good["attestation_type"] == f"custom:{type_name}"
    assert good["is_compliant"] is True
    assert good["attestation_data"] == {"line_coverage": 91.5}
    low = live.kosli_json("get", "attestation", "coverage-low", "--flow", flow,
                          "--trail", "release-1")[0]
    assert low["is_compliant"] is False

    invalid = write(tmp_path / "invalid.json", json.dumps({"line_coverage": "most"}))
    refused = failure(live.kosli("attest", "custom", "--type", type_name, "--name", "bad",
                                       "--attestation-data", str(invalid), "--flow", flow,
                                       "--trail", "release-1", check=False))
    assert "does not match the type's schema" in refused

    archived = live.kosli("archive", "attestation-type", type_name)
    assert archived.returncode == 0
    assert type_name not in live.kosli("list", "attestation-types").stdout
    assert live.kosli_json("get", "attestation-type", type_name)["archived"] is True


def test_decision_override_and_get_by_id(live: RunningServer, flow: str):
    result = live.kosli("attest", "decision", "--name", "change-approval", "--control", "C1",
                        "--compliant=false", "--flow", flow, "--trail", "release-1")
    assert result.returncode == 0
    [decision] = live.kosli_json("get", "attestation", "change-approval", "--flow", flow,
                                 "--trail", "release-1")
    assert decision["attestation_type"] == "decision"
    assert decision["is_compliant"] is False
    assert decision["control"] == "C1"
    assert decision["summary"] == {"control": "C1"}

    overridden = live.kosli("attest", "override", "--name", "change-approval",
                            "--original-attestation-type", "system:decision",
                            "--new-compliance-status=true", "--reason", "r",
                            "--flow", flow, "--trail", "release-1")
    assert overridden.stdout.strip() == \
        "attestation 'change-approval' has been overridden in trail: release-1"

    newest, original = live.kosli_json("get", "attestation", "change-approval", "--flow", flow,
                                       "--trail", "release-1")
    assert original["attestation_id"] == decision["attestation_id"]
    assert original["is_compliant"] is False
    assert newest["is_compliant"] is True
    assert newest["overridden_attestation_id"] == decision["attestation_id"]
    assert newest["override"]["reason"] == "r"
    table = live.kosli("get", "attestation", "change-approval", "--flow", flow,
                       "--trail", "release-1").stdout
    assert table.count("Name:             change-approval") == 2
    assert table.index("Compliance:       true") < table.index("Compliance:       false")

    by_id = live.kosli_json("get", "attestation", "--attestation-id", original["attestation_id"])
    assert by_id["data"] == [original]
    shown = live.kosli("get", "attestation", "--attestation-id", newest["attestation_id"]).stdout
    assert f"attestation_id={newest['attestation_id']}" in shown
    assert "Compliance:       true" in shown

    status = live.kosli_json("get", "trail", "release-1", "--flow", flow)["compliance_status"]
    [entry] = [e for e in status["attestations_statuses"]
               if e["attestation_name"] == "change-approval"]
    assert (entry["attestation_id"], entry["is_compliant"], entry["unexpected"]) == (
        newest["attestation_id"], True, True)

    not_there = failure(live.kosli("attest", "override", "--name", "no-such",
                                         "--original-attestation-type", "generic",
                                         "--new-compliance-status=true", "--reason", "r",
                                         "--flow", flow, "--trail", "release-1", check=False))
    assert "no-such" in not_there


def test_attest_sbom(live: RunningServer, flow: str, tmp_path: pathlib.Path):
    sbom = write(tmp_path / "sbom.cdx.json", json.dumps(SBOM))
    result = live.kosli("attest", "sbom", "--name", "sbom", "--sbom-file", str(sbom),
                        "--flow", flow, "--trail", "release-1")
    assert result.stdout.strip() == "sbom attestation 'sbom' is reported to trail: release-1"
    [got] = live.kosli_json("get", "attestation", "sbom", "--flow", flow, "--trail", "release-1")
    digest = hashlib.sha256(sbom.read_bytes()).hexdigest()
    assert got["attestation_type"] == "sbom"
    assert got["is_compliant"] is True
    assert got["summary"] == {"format": "cyclonedx-1.5", "package_count": 2}
    assert got["attestation_data"]["original_fingerprint"] == digest
    assert got["attestation_data"]["document"]["subject"]["name"] == "payments"
    assert got["annotations"]["sbom_sha256"] == digest
    assert got["evidence"]["filename"] == "sbom.cdx.json"
    assert got["evidence"]["sha256"] == digest
    assert download(live, got["evidence"]["url"]).content == sbom.read_bytes()


def test_evidence_with_a_non_latin1_file_name_downloads(live: RunningServer, flow: str,
                                                        tmp_path: pathlib.Path):
    report = write(tmp_path / "報告.txt", "通过\n")
    live.kosli("attest", "generic", "--name", "report", "--flow", flow, "--trail", "release-1",
               "--attachments", str(report))
    [got] = live.kosli_json("get", "attestation", "report", "--flow", flow, "--trail", "release-1")
    assert got["evidence"]["filename"] == "報告.txt"
    answer = download(live, got["evidence"]["url"])
    assert answer.content == report.read_bytes()
    assert "filename*=UTF-8''%E5%A0%B1%E5%91%8A.txt" in answer.headers["Content-Disposition"]


# ---- policies and tags ------------------------------------------------------------------------

def test_evaluate_trail_with_allowing_and_denying_policies(live: RunningServer, flow: str,
                                                           tmp_path: pathlib.Path):
    live.kosli("attest", "junit", "--name", "unit-tests", "--flow", flow, "--trail", "release-1",
               "--results-dir", str(write(tmp_path / "junit" / "db.xml", JUNIT_FAILING).parent))
    live.kosli("attest", "generic", "--name", "lint", "--flow", flow, "--trail", "release-1")
    allow = write(tmp_path / "allow.rego", ALLOW_POLICY)
    deny = write(tmp_path / "deny.rego", DENY_POLICY)

    allowed = live.kosli("evaluate", "trail", "release-1", "--flow", flow, "--policy", str(allow))
    assert "ALLOWED" in allowed.stdout
    assert live.kosli_json("evaluate", "trail", "release-1", "--flow", flow,
                           "--policy", str(allow)) == {"allow": True, "violations": None}

    denied = live.kosli("evaluate", "trail", "release-1", "--flow", flow, "--policy", str(deny),
                        "--output", "json", check=False)
    assert denied.returncode == 1
    assert json.loads(denied.stdout) == {
        "allow": False, "violations": ["unit-tests (junit by alice) is not compliant"]}
    assert "policy denied" in denied.stderr
    table = live.kosli("evaluate", "trail", "release-1", "--flow", flow, "--policy", str(deny),
                       check=False)
    assert table.returncode == 1
    assert "DENIED" in table.stdout

    # Once the failing tests are overridden the same policy allows the trail.
    live.kosli("attest", "override", "--name", "unit-tests", "--original-attestation-type",
               "junit", "--new-compliance-status=true", "--reason", "flaky",
               "--flow", flow, "--trail", "release-1")
    assert live.kosli_json("evaluate", "trail", "release-1", "--flow", flow,
                           "--policy", str(deny)) == {"allow": True, "violations": None}


def test_tag_flow_set_and_unset(live: RunningServer, flow: str):
    added = live.kosli("tag", "flow", flow, "--set", "team=core", "--set", "tier=1")
    assert added.stdout.strip() == f"Tag(s) [team, tier] added for flow '{flow}'"
    assert live.kosli_json("get", "flow", flow)["tags"] == {"team": "core", "tier": "1"}

    changed = live.kosli("tag", "flow", flow, "--set", "team=platform", "--unset", "tier")
    assert changed.returncode == 0
    assert live.kosli_json("get", "flow", flow)["tags"] == {"team": "platform"}
    listed = live.kosli_json("list", "trails", "--flow-tag", "team=platform")
    assert {t["name"] for t in listed["data"]} >= {"release-1"}

    bad = failure(live.kosli("tag", "flow", flow, "--set", "-bad=1", check=False))
    assert "set_tags.-bad:String should match pattern" in bad
    missing = failure(live.kosli("tag", "flow", "no-such-flow", "--set", "a=b", check=False))
    assert "no-such-flow" in missing


def test_attesting_to_a_flow_and_trail_not_set_up_creates_them(live: RunningServer, flow: str,
                                                              repo: Repo, tmp_path: pathlib.Path):
    """The docs' "Attesting without a template", then "attest before the artifact exists":
    `--name backend.unit-tests --commit` is kept for the template name and commit, and bound
    to the artifact when it is attested."""
    adhoc = f"adhoc-{flow}"
    sha = repo.commit("Build")
    live.kosli("attest", "generic", "--name", "backend.unit-tests", "--flow", adhoc,
               "--trail", sha, "--commit", sha, "--repo-root", str(repo.root))
    assert live.kosli_json("get", "flow", adhoc)["name"] == adhoc
    pending = live.kosli_json("get", "attestation", "backend.unit-tests", "--flow", adhoc,
                              "--trail", sha)
    assert pending[0]["artifact_fingerprint"] is None
    artifact = write(tmp_path / "backend.bin", adhoc.encode())
    live.kosli("attest", "artifact", str(artifact), "--artifact-type", "file", "--name",
               "backend", "--flow", adhoc, "--trail", sha, "--commit", sha,
               "--repo-root", str(repo.root), "--build-url", "https://ci.example/1",
               "--commit-url", f"https://github.com/acme/payments/commit/{sha}")
    fingerprint = hashlib.sha256(adhoc.encode()).hexdigest()
    bound = live.kosli_json("get", "attestation", "backend.unit-tests", "--flow", adhoc,
                            "--trail", sha)
    assert bound[0]["artifact_fingerprint"] == fingerprint
    # the binding is an entry of its own: the untouched log and the trail's package verify
    key = requests.get(f"{live.http_url}/api/v2/transparency/acme/public-key", headers=bearer(),
                       timeout=30).text
    package = requests.get(f"{live.http_url}/api/v2/trails/acme/{adhoc}/{sha}/audit_package",
                           headers=bearer(), timeout=30)
    # with the trail's manifest: none of its entries left out, its verdict judged again
    check = check_package(package.content, notes.parse_verifier_key(key.strip()))
    assert (check.problems, check.notes) == ([], [])
    checked = subprocess.run([sys.executable, "-m", "evidence_grpc.cli", "verify-log",
                              "--database-url", live.database_url, "--org", "acme"],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    shown = live.kosli_json("get", "artifact", f"{adhoc}@{fingerprint}")
    assert list(shown["evidence"]) == ["unit-tests"]
    assert shown["state"] == "COMPLIANT"  # no template: only the attestations made count
    # None of that name in a trail that is there: an empty answer, not an error.
    assert live.kosli("get", "attestation", "nothing", "--flow", flow, "--trail",
                      "release-1").stdout == "No attestations found.\n"


def test_a_rebuilt_artifact_shows_the_attestations_made_for_its_name(
        live: RunningServer, flow: str, repo: Repo, tmp_path: pathlib.Path):
    """`--name backend.unit-tests --commit`, made before any fingerprint, counts for every
    `backend` of that commit in the trail: a rebuild's history and evidence show it, as the
    first build's do."""
    trail = f"rebuilt-{uuid.uuid4().hex[:8]}"
    sha = repo.commit("Build")
    live.kosli("attest", "generic", "--name", "backend.unit-tests", "--flow", flow,
               "--trail", trail, "--commit", sha, "--repo-root", str(repo.root))
    shown = {}
    for build in ("first", "rebuilt"):
        artifact = write(tmp_path / build / "backend.bin", f"{trail} {build}".encode())
        live.kosli("attest", "artifact", str(artifact), "--artifact-type", "file", "--name",
                   "backend", "--flow", flow, "--trail", trail, "--commit", sha,
                   "--repo-root", str(repo.root), "--build-url", "https://ci.example/1",
                   "--commit-url", f"https://github.com/acme/payments/commit/{sha}")
        fingerprint = hashlib.sha256(f"{trail} {build}".encode()).hexdigest()
        shown[build] = live.kosli_json("get", "artifact", f"{flow}@{fingerprint}")
    for answer in shown.values():
        assert list(answer["evidence"]) == ["unit-tests"]
        assert [e["event"] for e in answer["history"] if e["type"] == "attestation"] == [
            "unit-tests reported"]
