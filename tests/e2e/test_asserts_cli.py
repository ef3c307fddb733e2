"""The real kosli CLI asserting artifacts in its three modes (flow, environment, policy), as a
table and as JSON, compliant and not, on both engines; decisions for controls included."""

from __future__ import annotations

import hashlib
import json
import pathlib

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


def test_a_former_flow_name_is_asserted_and_old_snapshots_follow_their_flow(
        live: RunningServer, tmp_path: pathlib.Path):
    """After its flow is archived (renamed NAME-archived-at-<seconds>), an artifact is asserted
    by the flow's former name, and a snapshot taken before shows the flow by its name now, as
    the hosted docs' old snapshots do."""
    flow, fingerprint = arrange(live, tmp_path)
    env = unique("seen")
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("snapshot", "path", env, "--path", str(tmp_path / "app.bin"), "--name", "app")
    live.kosli("archive", "flow", flow)
    archived = live.kosli_json("get", "flow", flow)["name"]
    assert archived.startswith(f"{flow}-archived-at-")

    asserted = assert_artifact(live, fingerprint, "--flow", flow, "--output", "json")
    assert [f["flow"] for f in json.loads(asserted.stdout)["flows"]] == [archived]
    shot = live.kosli_json("get", "snapshot", f"{env}#1")
    assert (shot["artifacts"][0]["flow_name"], shot["artifacts"][0]["flows"][0]["flow_name"]) \
        == (archived, archived)
    assert archived in live.kosli("get", "snapshot", f"{env}#1").stdout
    table = live.kosli("diff", "snapshots", env, env, "--show-unchanged").stdout
    assert f"Flow:         {archived}" in table
