"""The real kosli CLI asserting artifacts in its three modes (flow, environment, policy), as a
table and as JSON, compliant and not, on both engines; decisions for controls included; what
the template requires of a trail counting for its artifacts; the hosted labs' policy gate."""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import time

from tests.conftest import RunningServer
from tests.e2e.cli import Repo, failure, unique

SCHEMA = "_schema: https://docs.kosli.com/schemas/policy/v1\n"
NEEDS_REVIEW = SCHEMA + """artifacts:
  provenance:
    required: true
  attestations:
    - name: review
      type: generic
"""
NEEDS_DECISION = SCHEMA + """artifacts:
  attestations:
    - name: approval
      type: decision
      for_control: CTL-7
"""
# getting_started/attestations.md: `jira-ticket` on the trail, `backend.unit-tests`.
TICKETED = """version: 1
trail:
  attestations:
    - name: jira-ticket
      type: generic
  artifacts:
    - name: backend
      attestations:
        - name: unit-tests
          type: generic
"""
# Lab 5 of the hosted labs ("Push and verify").
LAB_5 = SCHEMA + """artifacts:
  provenance:
    required: true
  attestations:
    - name: unit-tests
      type: junit
    - name: sbom
      type: "*"
"""
JUNIT_PASSING = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="app" tests="1" failures="0" errors="0" skipped="0" time="0.5">
  <testcase name="adds" classname="app.Calculator" time="0.5"/>
</testsuite>
"""


def arrange(live: RunningServer, tmp_path: pathlib.Path) -> tuple[str, str]:
    """A flow with an empty template and one trail whose artifact is attested: (flow, fp)."""
    flow = unique("asserted")
    repo = Repo(tmp_path / "repo")
    sha = repo.commit("Build")
    live.kosli("create", "flow", flow, "--use-empty-template")
    live.kosli("begin", "trail", "release-1", "--flow", flow)
    artifact = tmp_path / "app.bin"
    artifact.write_bytes(flow.encode())
    live.kosli("attest", "artifact", str(artifact), "--artifact-type", "file", "--flow", flow,
               "--trail", "release-1", "--name", "app", "--commit", sha,
               "--repo-root", str(repo.root), "--build-url", "https://ci.example/1",
               "--commit-url", f"https://github.com/acme/payments/commit/{sha}")
    return flow, hashlib.sha256(flow.encode()).hexdigest()


def policy(live: RunningServer, tmp_path: pathlib.Path, text: str) -> str:
    name = unique("policy")
    path = tmp_path / f"{name}.yml"
    path.write_text(text)
    live.kosli("create", "policy", name, str(path))
    return name


def assert_artifact(live: RunningServer, fingerprint: str, *args: str, check: bool = True):
    return live.kosli("assert", "artifact", "--fingerprint", fingerprint, *args, check=check)


def test_flow_mode_as_table_and_json(live: RunningServer, tmp_path: pathlib.Path):
    flow, fingerprint = arrange(live, tmp_path)
    table = assert_artifact(live, fingerprint)
    text = table.stdout + table.stderr
    assert text.startswith("COMPLIANT\n")
    assert f"Flow: {flow}\n  Trail: release-1" in text
    assert f"See more details at {live.http_url}/acme/flows/{flow}/artifacts/{fingerprint}" \
        in text
    answer = json.loads(assert_artifact(live, fingerprint, "--output", "json").stdout)
    assert (answer["compliant"], answer["scope"], len(answer["flows"])) == (True, "flow", 1)

    live.kosli("attest", "generic", "--name", "smoke", "--compliant=false", "--flow", flow,
               "--trail", "release-1", "--fingerprint", fingerprint)
    refused = assert_artifact(live, fingerprint, "--flow", flow, check=False)
    assert "Artifact is not compliant" in failure(refused)
    assert refused.stdout.startswith("Error: NON-COMPLIANT\n")
    assert "smoke" in refused.stdout

    missing = assert_artifact(live, "e" * 64, "--flow", flow, check=False)
    assert failure(missing).endswith(f"Artifact with fingerprint '{'e' * 64}' does not exist "
                                     f"in flow '{flow}' belonging to organization 'acme'\n")


def test_policy_mode_lists_the_policies_in_order_and_what_fails(live: RunningServer,
                                                                  tmp_path: pathlib.Path):
    flow, fingerprint = arrange(live, tmp_path)
    review = policy(live, tmp_path, NEEDS_REVIEW)
    provenance = policy(live, tmp_path, SCHEMA + "artifacts:\n  provenance:\n    required: true\n")
    refused = assert_artifact(live, fingerprint, "--policy", f"{review},{provenance}",
                              check=False)
    text = failure(refused) + refused.stdout
    assert "Error: NON-COMPLIANT" in text
    assert f"{review}" in text and "NON-COMPLIANT" in text
    assert "artifact is missing required 'review' (type: generic) attestation in trail" in text
    answer = json.loads(assert_artifact(live, fingerprint, "--policy", review, "--policy",
                                        provenance, "--output", "json", check=False).stdout)
    assert [(p["policy_name"], p["status"]) for p in answer["policy_evaluations"]] == [
        (review, "NON-COMPLIANT"), (provenance, "COMPLIANT")]

    live.kosli("attest", "generic", "--name", "review", "--flow", flow, "--trail", "release-1",
               "--fingerprint", fingerprint)
    passed = assert_artifact(live, fingerprint, "--policy", review)
    assert (passed.stdout + passed.stderr).startswith("COMPLIANT\n")
    assert json.loads(assert_artifact(live, fingerprint, "--policy", review, "--output",
                                      "json").stdout)["compliant"] is True
    unknown = assert_artifact(live, fingerprint, "--policy", "no-such-policy", check=False)
    assert failure(unknown).endswith(
        "Policy 'no-such-policy' does not exist in organization 'acme'\n")


def test_environment_mode_with_decisions_for_a_control(live: RunningServer,
                                                        tmp_path: pathlib.Path):
    flow, fingerprint = arrange(live, tmp_path)
    env = unique("prod")
    live.kosli("create", "environment", env, "--type", "server")
    compliant = json.loads(assert_artifact(live, fingerprint, "--environment", env,
                                           "--output", "json").stdout)
    assert (compliant["compliant"], compliant["scope"], compliant["environment"]) == (
        True, "environment", env)
    # acme has the controls feature: a policy may name only controls that exist.
    live.kosli("create", "control", "CTL-7", "--name", "Approved before release")
    live.kosli("attach-policy", policy(live, tmp_path, NEEDS_DECISION), "--environment", env)

    missing = assert_artifact(live, fingerprint, "--environment", env, check=False)
    text = failure(missing) + missing.stdout
    assert f"Environment: {env}" in text
    assert "artifact is missing required decision for control 'CTL-7'" in text

    live.kosli("attest", "decision", "--name", "approval", "--control", "CTL-7",
               "--compliant=false", "--flow", flow, "--trail", "release-1")
    bad = assert_artifact(live, fingerprint, "--environment", env, check=False)
    assert "decision for control 'CTL-7' is non-compliant in trail" in failure(bad) + bad.stdout

    live.kosli("attest", "decision", "--name", "approval", "--control", "CTL-7",
               "--compliant=true", "--flow", flow, "--trail", "release-1")
    good = assert_artifact(live, fingerprint, "--environment", env)
    assert (good.stdout + good.stderr).startswith("COMPLIANT\n")
    answer = json.loads(assert_artifact(live, fingerprint, "--environment", env, "--output",
                                        "json").stdout)
    assert answer["policy_evaluations"][0]["status"] == "COMPLIANT"
    unknown = assert_artifact(live, fingerprint, "--environment", "nowhere", check=False)
    assert failure(unknown).endswith("Environment named 'nowhere' does not exist for organization 'acme'\n")


def test_what_the_template_requires_of_the_trail_counts_for_its_artifact(
        live: RunningServer, tmp_path: pathlib.Path):
    """The hosted docs: "An attested `backend` artifact is then compliant if and only if all the
    template attestations have been made against it and are themselves compliant: `jira-ticket`
    on its Trail, ..." `get artifact`, `get trail` and `assert artifact` say so alike."""
    flow = unique("ticketed")
    (tmp_path / "template.yml").write_text(TICKETED)
    live.kosli("create", "flow", flow, "--template-file", str(tmp_path / "template.yml"))
    live.kosli("begin", "trail", "release-1", "--flow", flow)
    (tmp_path / "backend.bin").write_bytes(flow.encode())
    live.kosli("attest", "artifact", str(tmp_path / "backend.bin"), "--artifact-type", "file",
               "--flow", flow, "--trail", "release-1", "--name", "backend",
               "--build-url", "https://ci.example/1", "--commit-url", "https://git.example/1",
               "--commit", Repo(tmp_path / "repo").commit("Build"),
               "--repo-root", str(tmp_path / "repo"))
    fingerprint = hashlib.sha256(flow.encode()).hexdigest()
    live.kosli("attest", "generic", "--name", "backend.unit-tests", "--flow", flow,
               "--trail", "release-1", "--fingerprint", fingerprint)

    def states() -> tuple[str, str, str, str, bool]:
        answer = json.loads(assert_artifact(live, fingerprint, "--flow", flow, "--output",
                                            "json", check=False).stdout)
        trail = live.kosli_json("get", "trail", "release-1", "--flow", flow)
        return (live.kosli_json("get", "artifact", f"{flow}@{fingerprint}")["state"],
                trail["compliance_status"]["artifacts_statuses"]["backend"]["status"],
                answer["compliance_status"]["status"],
                answer["flows"][0]["compliance_status"]["status"], answer["compliant"])

    assert states() == ("INCOMPLETE", "INCOMPLETE", "INCOMPLETE", "INCOMPLETE", False)
    refused = assert_artifact(live, fingerprint, "--flow", flow, check=False)
    assert refused.stdout.startswith("Error: NON-COMPLIANT\n")
    assert re.search(r"jira-ticket +generic +MISSING +false", refused.stdout)
    assert "Artifact is not compliant" in failure(refused)

    live.kosli("attest", "generic", "--name", "jira-ticket", "--flow", flow,
               "--trail", "release-1")
    assert states() == ("COMPLIANT", "COMPLIANT", "COMPLIANT", "COMPLIANT", True)
    passed = assert_artifact(live, fingerprint, "--flow", flow)
    assert (passed.stdout + passed.stderr).startswith("COMPLIANT\n")


def test_an_artifact_reported_in_two_trails_is_answered_by_its_first_report(
        live: RunningServer, tmp_path: pathlib.Path):
    """`trail`, `compliance_status` and `html_url` name one report: the first, whose page the
    hosted `html_url` links (the CLI's own test of an artifact reported to two flows)."""
    flow, fingerprint = arrange(live, tmp_path)
    live.kosli("attest", "artifact", str(tmp_path / "app.bin"), "--artifact-type", "file",
               "--flow", flow, "--trail", "release-2", "--name", "app",
               "--build-url", "https://ci.example/2", "--commit-url", "https://git.example/2",
               "--commit", Repo(tmp_path / "again").commit("Rebuild"),
               "--repo-root", str(tmp_path / "again"))
    first = live.kosli_json("get", "artifact", f"{flow}@{fingerprint}", "--trail", "release-1")
    answer = json.loads(assert_artifact(live, fingerprint, "--output", "json").stdout)
    assert [f["trail"] for f in answer["flows"]] == ["release-1", "release-2"]
    assert (answer["trail"], answer["html_url"]) == ("release-1", first["html_url"])
    assert first["html_url"].endswith(f"?artifact_id={answer['compliance_status']['artifact_id']}")
    table = assert_artifact(live, fingerprint)
    assert (table.stdout + table.stderr).count(f"See more details at {first['html_url']}\n") == 2


def test_lab_5_the_running_image_counts_the_unit_tests_of_the_jar_of_its_trail(
        live: RunningServer, tmp_path: pathlib.Path):
    """Lab 5 of the hosted labs ends Compliant "since you've been attesting unit tests and
    SBOM since Lab 3": `application.unit-tests` is about the JAR, `docker-image.sbom` about the
    image, both in the image's trail."""
    flow, env = unique("labs-pipeline"), unique("labs-prod")
    commit = Repo(tmp_path / "repo").commit("Build")
    live.kosli("create", "flow", flow, "--use-empty-template")
    live.kosli("begin", "trail", commit, "--flow", flow)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "TEST-app.xml").write_text(JUNIT_PASSING)
    (tmp_path / "app-1.0.jar").write_bytes(f"{flow} jar".encode())
    (tmp_path / "image").write_bytes(f"{flow} image".encode())
    built = ("--flow", flow, "--trail", commit, "--build-url", "https://ci.example/3",
             "--commit-url", "https://git.example/3", "--commit", commit,
             "--repo-root", str(tmp_path / "repo"))
    live.kosli("attest", "artifact", str(tmp_path / "app-1.0.jar"), "--artifact-type", "file",
               "--name", "application", *built)
    live.kosli("attest", "junit", "--name", "application.unit-tests", "--flow", flow,
               "--trail", commit, "--results-dir", str(tmp_path / "results"))
    live.kosli("attest", "artifact", str(tmp_path / "image"), "--artifact-type", "file",
               "--name", "docker-image", *built)
    image = hashlib.sha256(f"{flow} image".encode()).hexdigest()
    live.kosli("attest", "generic", "--name", "docker-image.sbom", "--flow", flow,
               "--trail", commit, "--fingerprint", image)
    rules = policy(live, tmp_path, LAB_5)

    passed = assert_artifact(live, image, "--policy", rules)
    assert (passed.stdout + passed.stderr).startswith("COMPLIANT\n")
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("attach-policy", rules, "--environment", env)
    live.kosli("snapshot", "server", env, "--paths", str(tmp_path / "image"))
    assert live.kosli("assert", "snapshot", env, check=False).returncode == 0

    # the JAR's failing tests fail the image, and the reason names the trail that holds them
    (tmp_path / "results" / "TEST-app.xml").write_text(JUNIT_PASSING.replace(
        'failures="0"', 'failures="1"').replace('time="0.5"/>', 'time="0.5"><failure/></testcase>'))
    live.kosli("attest", "junit", "--name", "application.unit-tests", "--flow", flow,
               "--trail", commit, "--results-dir", str(tmp_path / "results"))
    refused = assert_artifact(live, image, "--policy", rules, check=False)
    assert "attestation 'unit-tests' is non-compliant in trail" in refused.stdout


def test_a_former_flow_name_is_asserted_and_old_snapshots_follow_their_flow(
        live: RunningServer, tmp_path: pathlib.Path):
    """After its flow is renamed, an artifact is asserted by the flow's former name; after the
    flow is archived (renamed NAME-archived-at-<seconds>), by that name only, and a snapshot
    taken before shows the flow by its name now, as the hosted docs' old snapshots do."""
    flow, fingerprint = arrange(live, tmp_path)
    env, renamed = unique("seen"), unique("renamed")
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("snapshot", "path", env, "--path", str(tmp_path / "app.bin"), "--name", "app")
    live.kosli("rename", "flow", flow, renamed)
    asserted = assert_artifact(live, fingerprint, "--flow", flow, "--output", "json")
    assert [f["flow"] for f in json.loads(asserted.stdout)["flows"]] == [renamed]

    before = int(time.time())
    live.kosli("archive", "flow", renamed)
    assert live.kosli("get", "flow", renamed, check=False).returncode != 0
    [archived] = [name for seconds in range(before, int(time.time()) + 1)
                  for name in [f"{renamed}-archived-at-{seconds}"]
                  if live.kosli("get", "flow", name, check=False).returncode == 0]
    asserted = assert_artifact(live, fingerprint, "--flow", archived, "--output", "json")
    assert [f["flow"] for f in json.loads(asserted.stdout)["flows"]] == [archived]
    shot = live.kosli_json("get", "snapshot", f"{env}#1")
    assert (shot["artifacts"][0]["flow_name"], shot["artifacts"][0]["flows"][0]["flow_name"]) \
        == (archived, archived)
    assert archived in live.kosli("get", "snapshot", f"{env}#1").stdout
    table = live.kosli("diff", "snapshots", env, env, "--show-unchanged").stdout
    assert f"Flow:         {archived}" in table
