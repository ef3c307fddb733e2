"""Environments, snapshots, allowlists and repos end to end: the official kosli CLI against a
real `evidence-server serve` process, on every engine under test.

One server per engine serves the module; every test works on environments of its own names."""

from __future__ import annotations

import hashlib
import json
import pathlib
import subprocess
import uuid

import pytest

from tests.conftest import (
    ALICE_KEY,
    HOUSE_RULES,
    RunningServer,
)
from tests.e2e.cli import failure, unique

pytestmark = pytest.mark.e2e


def sha256_of(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_environment_lifecycle(live: RunningServer) -> None:
    env, logical = unique("prod"), unique("all")
    created = live.kosli("create", "environment", env, "--type", "K8S",
                         "--description", "the cluster")
    assert created.stdout.strip() == f"environment {env} was created"
    got = live.kosli_json("get", "environment", env)
    assert (got["name"], got["type"], got["description"], got["state"]) == \
        (env, "K8S", "the cluster", None)
    table = live.kosli("get", "environment", env).stdout
    assert env in table and "K8S" in table
    listed = live.kosli_json("list", "environments")
    assert env in [e["name"] for e in listed]
    assert env in live.kosli("list", "environments", "--type", "K8S").stdout
    paged = live.kosli_json("list", "environments", "--page", "1", "--page-limit", "50")
    assert env in [e["name"] for e in paged["environments"]]

    live.kosli("create", "environment", logical, "--type", "logical")
    live.kosli("join", "environment", "--physical", env, "--logical", logical)
    assert live.kosli_json("get", "environment", logical)["included_environments"] == [env]
    no_snapshot = failure(live.kosli("get", "snapshot", logical, check=False))
    assert "is logical and has no snapshots of its own: ask the environments it includes " \
        f"({env})" in no_snapshot

    renamed = unique("production")
    live.kosli("rename", "environment", env, renamed)
    assert live.kosli_json("get", "environment", renamed)["name"] == renamed
    assert "does not exist for organization" in failure(live.kosli("get", "environment", env,
                                                                   check=False))
    live.kosli("archive", "environment", renamed)
    assert renamed not in [e["name"] for e in live.kosli_json("list", "environments")]

    bad = failure(live.kosli("create", "environment", unique("x"), "--type", "mainframe",
                             check=False))
    assert "Input payload validation failed" in bad and "type" in bad


def test_snapshots_from_the_filesystem(live: RunningServer, tmp_path: pathlib.Path) -> None:
    env = unique("servers")
    app = tmp_path / "app.bin"
    app.write_bytes(b"version one")
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<h1>hi</h1>")

    # --auto-environment: 404 on GET creates the environment.
    live.kosli("snapshot", "path", env, "--path", str(app), "--name", "app",
               "--auto-environment")
    assert live.kosli_json("get", "environment", env)["type"] == "server"
    spec = tmp_path / "paths.yml"
    spec.write_text(f"version: 1\nartifacts:\n  app:\n    path: {app}\n  web:\n    path: {web}\n")
    live.kosli("snapshot", "paths", env, "--paths-file", str(spec))
    live.kosli("snapshot", "paths", env, "--paths-file", str(spec))  # unchanged: no snapshot
    app.write_bytes(b"version two")
    live.kosli("snapshot", "server", env, "--paths", str(app))

    snapshots = live.kosli_json("list", "snapshots", env)
    assert [s["index"] for s in snapshots] == [3, 2, 1]
    assert snapshots[0]["to"] == 0 and snapshots[1]["to"] > 0
    assert "SNAPSHOT" in live.kosli("list", "snapshots", env).stdout

    latest = live.kosli_json("get", "snapshot", env)
    running = {a["name"]: a["fingerprint"] for a in latest["artifacts"]
               if a["annotation"]["now"]}
    assert running == {str(app): sha256_of(app)}
    second = live.kosli_json("get", "snapshot", f"{env}#2")
    assert {a["name"] for a in second["artifacts"] if a["annotation"]["now"]} == {"app", "web"}
    assert live.kosli_json("get", "snapshot", f"{env}~2")["index"] == 1
    assert live.kosli_json("get", "snapshot", f"{env}@{{now}}")["index"] == 3
    assert "COMMIT" in live.kosli("get", "snapshot", env).stdout
    missing = failure(live.kosli("get", "snapshot", f"{env}@{{2.hours.ago}}", check=False))
    assert missing.endswith(f"Org: 'acme'. Snapshot '{env}#@{{2.hours.ago}}' resolves to "
                            f"'{env}#0'. len(snapshots) == 3. Indexes are 1-based\n")

    diff = live.kosli_json("diff", "snapshots", f"{env}#2", env)
    assert {a["name"] for a in diff["snappish1"]["artifacts"]} == {"app", "web"}
    assert [a["name"] for a in diff["snappish2"]["artifacts"]] == [str(app)]
    assert "Only present in" in live.kosli("diff", "snapshots", f"{env}#2", env).stdout

    log = live.kosli_json("log", "environment", env)
    assert [e["snapshot_index"] for e in log] == [3, 3, 3, 2, 1]
    assert {(e["type"], e["artifact_name"]) for e in log if e["snapshot_index"] == 3} == \
        {("exited", "app"), ("exited", "web"), ("started", str(app))}
    assert [e["snapshot_index"] for e in live.kosli_json("log", "environment", env,
                                                         "--reverse")] == [1, 2, 3, 3, 3]
    table = live.kosli("log", "environment", env).stdout
    assert "started running" in table
    assert live.kosli_json("log", "environment", env, "--start-ts", "1", "--end-ts", "2") == []


def test_diff_snapshots_tells_artifacts_apart_by_fingerprint(live: RunningServer,
                                                             tmp_path: pathlib.Path) -> None:
    """One build reported as `app` in #1 and as `app1` in #2 is not changed (docs/api.md)."""
    env = unique("renamed-build")
    build = tmp_path / "build.bin"
    build.write_bytes(b"one build")
    live.kosli("create", "environment", env, "--type", "server")
    for name in ("app", "app1"):
        live.kosli("snapshot", "path", env, "--path", str(build), "--name", name)
    diff = live.kosli_json("diff", "snapshots", f"{env}#1", f"{env}#2")
    assert diff["snappish1"]["artifacts"] == diff["snappish2"]["artifacts"] == []
    assert [(a["name"], a["fingerprint"]) for a in diff["not-changed"]["artifacts"]] == [
        ("app", sha256_of(build))]
    table = live.kosli("diff", "snapshots", f"{env}#1", f"{env}#2", "--show-unchanged").stdout
    assert "Only present in" not in table
    assert "Not changed in both snapshots" in table


def test_allowlist_and_assert_snapshot(live: RunningServer, tmp_path: pathlib.Path) -> None:
    env, policy = unique("edge"), unique("rules")
    tool = tmp_path / "tool.bin"
    tool.write_bytes(b"unknown provenance")
    (tmp_path / "policy.yml").write_bytes(HOUSE_RULES)
    live.kosli("create", "policy", policy, str(tmp_path / "policy.yml"))
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("attach-policy", policy, "--environment", env)
    live.kosli("snapshot", "path", env, "--path", str(tool), "--name", "tool")
    assert "NON-COMPLIANT" in failure(live.kosli("assert", "snapshot", env, check=False))
    allowed = live.kosli("allow", "artifact", str(tool), "--artifact-type", "file",
                         "--environment", env, "--reason", "vendor tool")
    assert f"was allow listed in environment: {env}" in allowed.stdout
    # Snapshot #1 keeps the verdict it was made with; the next one sees the allowlisting.
    assert "NON-COMPLIANT" in failure(live.kosli("assert", "snapshot", env, check=False))
    live.kosli("snapshot", "path", env, "--path", str(tool), "--name", "vendor-tool")
    assert live.kosli("assert", "snapshot", env).stdout.strip() == "COMPLIANT"
    assert live.kosli("assert", "snapshot", f"{env}#2").stdout.strip() == "COMPLIANT"
    assert "NON-COMPLIANT" in failure(live.kosli("assert", "snapshot", f"{env}#1", check=False))
    assert live.kosli_json("get", "environment", env)["state"] is True


def test_reports_refused(live: RunningServer, tmp_path: pathlib.Path) -> None:
    env = unique("gone")
    thing = tmp_path / "thing"
    thing.write_text("x")
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("archive", "environment", env)
    assert "archived" in failure(live.kosli("snapshot", "path", env, "--path", str(thing),
                                            "--name", "thing", check=False))
    bogus = failure(live.kosli("get", "snapshot", f"{env}~x", check=False))
    assert "snapshot expression" in bogus
    ghost = failure(live.kosli("snapshot", "path", unique("ghost"), "--path", str(thing),
                               "--name", "thing", check=False))
    assert "does not exist for organization" in ghost


def test_repos_learned_from_artifacts(live: RunningServer, tmp_path: pathlib.Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), "-c", "user.name=A", "-c",
                               "user.email=a@example.com", "-c", "commit.gpgsign=false", *args],
                              check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q", "-b", "main")
    git("remote", "add", "origin", "https://github.com/acme/runtime-demo.git")
    (root / "f").write_text("1")
    git("add", "f")
    git("commit", "-q", "-m", "one")
    sha = git("rev-parse", "HEAD")
    flow, trail, env = unique("ci"), unique("t"), unique("live")
    repo_name, repo_id = unique("acme/runtime"), unique("rid")
    binary = tmp_path / "service.bin"
    binary.write_bytes(uuid.uuid4().bytes)
    live.kosli("create", "flow", flow, "--use-empty-template")
    live.kosli("begin", "trail", trail, "--flow", flow)
    live.kosli("attest", "artifact", str(binary), "--artifact-type", "file", "--flow", flow,
               "--trail", trail, "--name", "service", "--commit", sha, "--repo-root", str(root),
               "--build-url", "https://ci.example/1", "--commit-url", "https://x/c",
               "--repository", repo_name, "--repo-id", repo_id,
               "--repo-url", "https://github.com/acme/runtime-demo")
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("snapshot", "path", env, "--path", str(binary), "--name", "service")

    got = live.kosli_json("get", "repo", repo_name)
    assert (got["name"], got["id"]) == (repo_name, repo_id)
    assert live.kosli_json("get", "repo", "--repo-id", repo_id)["name"] == repo_name
    assert repo_name in live.kosli("get", "repo", repo_name).stdout
    listed = live.kosli_json("list", "repos", "--name", repo_name)
    assert [r["name"] for r in listed["repos"]] == [repo_name]
    assert repo_name in live.kosli("list", "repos").stdout
    by_repo = live.kosli_json("list", "artifacts", "--repo", repo_name)
    assert [a["fingerprint"] for a in by_repo] == [sha256_of(binary)]
    # The table outputs, which unmarshal into the CLI's typed structs, of what now runs.
    assert sha[:7] in live.kosli("list", "artifacts", "--repo", repo_name).stdout
    assert env in live.kosli("get", "artifact", f"{flow}@{sha256_of(binary)}").stdout

    snapshot = live.kosli_json("get", "snapshot", env)
    # No policies: nothing is required, the snapshot is Unknown (and not COMPLIANT); the
    # artifact keeps its own compliance.
    own = live.kosli_json("get", "artifact", f"{flow}@{sha256_of(binary)}")["state"]
    assert (snapshot["compliant"], snapshot["compliance_state"],
            snapshot["artifacts"][0]["compliant"]) == (False, "UNKNOWN", own == "COMPLIANT")
    assert snapshot["artifacts"][0]["flow_name"] == flow

    import requests

    stats = requests.get(f"{live.http_url}/api/v2/repos/acme/{repo_id}/deployment-statistics",
                         headers={"Authorization": f"Bearer {ALICE_KEY}"}, timeout=10).json()
    assert [e["env_name"] for e in stats["environments"]] == [env]
    assert len(stats["environments"][0]["deployment_frequency"]) == 1
    assert stats["environments"][0]["lead_times"][0]["lead_time_seconds"] >= 0
    assert json.dumps(stats["_links"]) == "null"


def test_tag_environment(live: RunningServer) -> None:
    env = unique("tagged")
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("tag", "env", env, "--set", "tier=prod", "--set", "team=core")
    live.kosli("tag", "environment", env, "--unset", "team")
    assert live.kosli_json("get", "environment", env)["tags"] == {"tier": "prod"}
