"""Recorded verdicts do not change afterwards, through the real kosli CLI on every engine: a
snapshot is judged when it is made; a template edit or a later attestation shows in the next
snapshot, never in an old one; an environment without policies is of Unknown compliance."""

from __future__ import annotations

import pathlib

import pytest

from tests.conftest import HOUSE_RULES, RunningServer
from tests.e2e.cli import Repo, attest_backend, failure, unique

pytestmark = pytest.mark.e2e

def compliance(live: RunningServer, snappish: str) -> str:
    """What `kosli assert snapshot` says of a snapshot: COMPLIANT (exit 0) or NON-COMPLIANT."""
    result = live.kosli("assert", "snapshot", snappish, check=False)
    if result.returncode == 0:
        return result.stdout.strip()
    assert "NON-COMPLIANT" in failure(result)
    return "NON-COMPLIANT"


def test_an_old_snapshot_keeps_its_verdict(live: RunningServer, tmp_path: pathlib.Path) -> None:
    repo = Repo(tmp_path / "repo")
    flow, env, policy = unique("payments"), unique("prod"), unique("rules")
    (tmp_path / "policy.yml").write_bytes(HOUSE_RULES)
    live.kosli("create", "policy", policy, str(tmp_path / "policy.yml"))
    live.kosli("create", "flow", flow, "--use-empty-template")
    live.kosli("begin", "trail", "release-1", "--flow", flow)
    fingerprint, _ = attest_backend(live, flow, repo, tmp_path)
    artifact = str(tmp_path / "dist" / "backend.tar")
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("attach-policy", policy, "--environment", env)
    live.kosli("snapshot", "path", env, "--path", artifact, "--name", "backend")
    assert compliance(live, env) == "COMPLIANT"

    # A failed review arrives (a trail keeps its template, so new evidence is what changes its
    # verdict): #1 keeps its verdict, #2 is judged anew.
    live.kosli("attest", "generic", "--name", "review", "--compliant=false", "--fingerprint",
               fingerprint, "--flow", flow, "--trail", "release-1")
    trail = live.kosli_json("get", "trail", "release-1", "--flow", flow)
    assert trail["compliance_state"] == "NON-COMPLIANT", trail
    assert compliance(live, f"{env}#1") == "COMPLIANT"
    live.kosli("snapshot", "path", env, "--path", artifact, "--name", "backend")  # no change
    assert live.kosli_json("get", "snapshot", env)["index"] == 1
    live.kosli("snapshot", "path", env, "--path", artifact, "--name", "api")
    assert compliance(live, env) == "NON-COMPLIANT"

    # A passing review replaces it: #2 stays non-compliant, #3 is compliant.
    live.kosli("attest", "generic", "--name", "review", "--fingerprint", fingerprint,
               "--flow", flow, "--trail", "release-1")
    assert compliance(live, f"{env}#2") == "NON-COMPLIANT"
    live.kosli("snapshot", "path", env, "--path", artifact, "--name", "backend")
    assert compliance(live, env) == "COMPLIANT"
    assert compliance(live, f"{env}#1") == "COMPLIANT"

    assert [(s["index"], s["compliant"]) for s in live.kosli_json("list", "snapshots", env)] == [
        (3, True), (2, False), (1, True)]
    table = live.kosli("list", "snapshots", env).stdout
    assert "false" in table and "true" in table
    second = live.kosli_json("get", "snapshot", f"{env}#2")
    [api] = [a for a in second["artifacts"] if a["name"] == "api"]
    assert (second["compliant"], api["compliant"], api["reasons_for_incompliance"][0]["type"],
            api["flow_name"]) == (False, False, "non_compliant_in_trail", flow)
    events = live.kosli_json("log", "environment", env)
    assert [(e["snapshot_index"], e["type"], e["artifact_compliance"], e["snapshot_compliance"])
            for e in events] == [(3, "started", True, True), (3, "exited", False, True),
                                 (2, "exited", True, False), (2, "started", False, False),
                                 (1, "started", True, True)]
    assert "started running" in live.kosli("log", "environment", env).stdout
    [listed] = [e for e in live.kosli_json("list", "environments") if e["name"] == env]
    assert listed["state"] is True
    assert "COMPLIANT" in live.kosli("get", "environment", env).stdout


def test_an_environment_without_policies_is_unknown(live: RunningServer,
                                                    tmp_path: pathlib.Path) -> None:
    """The environment and its snapshots are Unknown (nothing is required); each artifact
    shows its own compliance, in `kosli get snapshot` as in `kosli get artifact`."""
    repo = Repo(tmp_path / "repo")
    flow, env = unique("payments"), unique("dev")
    live.kosli("create", "flow", flow, "--use-empty-template")
    live.kosli("begin", "trail", "release-1", "--flow", flow)
    fingerprint, _ = attest_backend(live, flow, repo, tmp_path)
    assert "COMPLIANT" in live.kosli("get", "artifact", f"{flow}@{fingerprint}").stdout
    tool = tmp_path / "tool.bin"
    tool.write_bytes(b"anything at all")
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("snapshot", "server", env, "--paths",
               f"{tmp_path / 'dist' / 'backend.tar'},{tool}")
    assert compliance(live, env) == "NON-COMPLIANT"  # Unknown is not COMPLIANT
    snapshot = live.kosli_json("get", "snapshot", env)
    assert (snapshot["compliant"], snapshot["compliance_state"],
            snapshot["artifact_compliance_count"]) == (
        False, "UNKNOWN", {"true": 1, "false": 1, "null": 0})
    table = {line.split("Name: ")[1].split()[0]: line
             for line in live.kosli("get", "snapshot", env).stdout.splitlines() if "Name: " in line}
    backend, unknown = str(tmp_path / "dist" / "backend.tar"), str(tool)
    assert "NON-COMPLIANT" not in table[backend] and "COMPLIANT" in table[backend]
    assert "NON-COMPLIANT" in table[unknown]  # no provenance: nothing known of it
    assert live.kosli_json("get", "environment", env)["state"] is None
    assert "N/A" in live.kosli("get", "environment", env).stdout
    assert [(s["compliant"], s["compliance_state"])
            for s in live.kosli_json("list", "snapshots", env)] == [(False, "UNKNOWN")]
