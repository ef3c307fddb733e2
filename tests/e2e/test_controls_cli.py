"""The real kosli CLI on controls (beta): create, get, list, update, archive, unarchive, tag,
and a decision attested for a control."""

from __future__ import annotations

import json
import pathlib

import requests

from tests.conftest import RunningServer, bearer
from tests.e2e.cli import Repo, attest_backend, failure, unique, write


def test_control_lifecycle_with_the_cli(live: RunningServer):
    ident = unique("ctl")
    assert live.kosli("create", "control", ident, "--name", "Code review",
                      "--description", "every change reviewed").stdout == \
        f"control {ident} was created\n"
    duplicate = failure(live.kosli("create", "control", ident, "--name", "x", check=False))
    assert f"A control with identifier '{ident}' already exists in organization 'acme'\n" \
        in duplicate
    bad = failure(live.kosli("create", "control", "bad identifier", "--name", "x", check=False))
    assert "Input payload validation failed: map[identifier:String should match pattern " \
           "'^[a-zA-Z0-9\\-._~]+$' [input: bad identifier]]\n" in bad

    assert "was updated" in live.kosli("update", "control", ident, "--name", "Peer review",
                                       "--link", "runbook.v2=https://wiki.example/r").stdout
    table = live.kosli("get", "control", ident).stdout
    for line in ("Peer review", "every change reviewed", "Version:", "2", "Created by:",
                 "alice", "runbook.v2:", "https://wiki.example/r"):
        assert line in table, table
    got = live.kosli_json("get", "control", ident)
    assert (got["identifier"], got["version"], got["links"]) == (
        ident, 2, {"runbook.v2": "https://wiki.example/r"})

    live.kosli("tag", "control", ident, "--set", "framework=finos")
    listed = live.kosli_json("list", "controls", "--tag", "framework:finos")
    assert [c["identifier"] for c in listed["controls"]] == [ident]
    table = live.kosli("list", "controls", "--search", ident).stdout
    assert ident in table and "Showing page 1 of 1, total 1 controls" in table

    assert live.kosli("archive", "control", ident).stdout == f"control {ident} was archived\n"
    assert live.kosli_json("list", "controls", "--search", ident)["controls"] == []
    assert "Archived:" in live.kosli("get", "control", ident).stdout
    archived = live.kosli_json("list", "controls", "--archived", "--search", ident)
    assert [c["identifier"] for c in archived["controls"]] == [ident]
    assert live.kosli("unarchive", "control", ident).stdout == \
        f"control {ident} was unarchived\n"
    assert live.kosli_json("get", "control", ident)["version"] == 4

    missing = failure(live.kosli("get", "control", "no-such-control", check=False))
    assert "Control 'no-such-control' does not exist in organization 'acme'" in missing
    untagged = failure(live.kosli("tag", "control", "no-such-control", "--set", "a=b",
                                  check=False))
    assert "\"Control 'no-such-control' does not exist in organization 'acme'\"" in untagged
    gated = failure(live.kosli("list", "controls", org="acme-shared", check=False))
    assert "Controls feature" in gated


def test_decisions_attested_for_a_control(live: RunningServer, tmp_path: pathlib.Path):
    ident, flow = unique("ctl"), unique("flow")
    live.kosli("create", "control", ident, "--name", "Change approval")
    live.kosli("create", "flow", flow, "--use-empty-template")
    live.kosli("begin", "trail", "t1", "--flow", flow)
    live.kosli("attest", "decision", "--name", "approval", "--control", ident,
               "--flow", flow, "--trail", "t1", "--compliant=false")
    answer = requests.get(f"{live.http_url}/api/v2/controls/acme/{ident}/decisions",
                          headers=bearer(), timeout=10).json()
    assert [(d["flow_name"], d["trail_name"], d["is_compliant"]) for d in answer["decisions"]] \
        == [(flow, "t1", False)]
    policy = tmp_path / "policy.yml"
    policy.write_text("_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n"
                      "  attestations:\n    - name: decision\n      type: decision\n"
                      f"      for_control: {ident}\n")
    name = unique("policy")
    live.kosli("create", "policy", name, str(policy))
    assert live.kosli_json("get", "control", ident)["policies_referencing"] == [name]
    assert name in live.kosli("get", "control", ident).stdout
    policy.write_text(policy.read_text().replace(ident, "no-such-control"))
    refused = failure(live.kosli("create", "policy", unique("policy"), str(policy), check=False))
    assert "Control 'no-such-control' does not exist" in refused


def test_the_tutorials_pipeline_a_release_decision_gates_the_artifact_built_elsewhere(
        live: RunningServer, tmp_path: pathlib.Path):
    """tutorials/working_with_controls, "End-to-end pipeline flow", compactly: the artifact is
    built in one flow; in a release trail of another flow `kosli evaluate` (the PDP) decides and
    `kosli attest decision --fingerprint` records it ("no restrictions on which flow or trail a
    decision can be recorded on"); `kosli assert artifact --environment` (the PEP) then exits 0
    under a policy requiring the control. Before the decision the control is missing once,
    however many trails the artifact is in; the details link is where it was built."""
    ident, build, release = unique("RCTL-043"), unique("my-app"), unique("my-release")
    mirror = unique("mirror")  # where the artifact is reported too
    live.kosli("create", "control", ident, "--name", "Source code review",
               "--description", "All changes are reviewed by a second developer.")
    for flow in (build, mirror, release):
        live.kosli("create", "flow", flow, "--use-empty-template")
    repo = Repo(tmp_path / "repo")
    for flow in (build, mirror):
        live.kosli("begin", "trail", "release-1", "--flow", flow)
        fingerprint, _ = attest_backend(live, flow, repo, tmp_path)
    live.kosli("begin", "trail", "release-456", "--flow", release)

    env, name = unique("production"), unique("prod-policy")
    policy = write(tmp_path / "prod-policy.yaml",
                   "_schema: https://docs.kosli.com/schemas/policy/v1\nartifacts:\n"
                   "  provenance:\n    required: true\n  attestations:\n"
                   f"    - type: decision\n      for_control: {ident}\n")
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("create", "policy", name, str(policy))
    live.kosli("attach-policy", name, "--environment", env)
    gate = ("assert", "artifact", "--fingerprint", fingerprint, "--environment", env)
    refused = live.kosli(*gate, check=False)
    assert refused.returncode == 1, refused
    assert refused.stdout.count(f"artifact is missing required decision for control '{ident}'"
                                ) == 1, refused.stdout
    link = f"See more details at {live.http_url}/acme/flows/{build}/artifacts/{fingerprint}"
    assert link in refused.stdout

    rego = write(tmp_path / "rctl-043.rego", "package policy\n\nallow := true\n")
    report = live.kosli("evaluate", "trail", "release-456", "--policy", str(rego),
                        "--flow", release, "--no-assert", "--output", "json").stdout
    write(tmp_path / "eval-report.json", report)
    compliant = json.loads(report)["allow"]
    assert compliant is True
    live.kosli("attest", "decision", "--flow", release, "--trail", "release-456",
               "--fingerprint", fingerprint, "--control", ident, f"--compliant={compliant}",
               "--name", "source-code-review-decision",
               "--attachments", str(tmp_path / "eval-report.json"))
    passed = live.kosli(*gate)
    assert passed.stdout.startswith(f"COMPLIANT\nEnvironment: {env}\n"), passed.stdout
    assert link in passed.stdout

    decisions = requests.get(f"{live.http_url}/api/v2/controls/acme/{ident}/decisions",
                             headers=bearer(), timeout=10).json()["decisions"]
    assert [(d["flow_name"], d["trail_name"], d["is_compliant"]) for d in decisions] == [
        (release, "release-456", True)]
    [decision] = requests.get(f"{live.http_url}/api/v2/attestations/acme/{release}/trail/"
                              "release-456/source-code-review-decision", headers=bearer(),
                              timeout=10).json()
    assert (decision["artifact_fingerprint"], decision["target_artifact"]) == (fingerprint,
                                                                               fingerprint)
    nowhere = "f" * 64
    refused = live.kosli("attest", "decision", "--name", "go-live", "--control", ident,
                         "--flow", release, "--trail", "release-456", "--fingerprint", nowhere,
                         "--compliant=true", check=False)
    assert f"Artifact with fingerprint '{nowhere}' does not exist in organization 'acme'" in \
        failure(refused)
