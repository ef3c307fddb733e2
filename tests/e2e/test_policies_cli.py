"""The real kosli CLI creating, reading, listing, attaching and detaching policies."""

from __future__ import annotations

import pathlib

from tests.e2e.cli import unique

POLICY = "_schema: https://docs.kosli.com/schemas/policy/v1\nartifacts:\n  provenance:\n    required: true\n"


def test_policy_lifecycle_with_the_cli(live, tmp_path: pathlib.Path):
    name, env = unique("policy"), unique("env")
    path = tmp_path / "policy.yml"
    path.write_text(POLICY)
    assert "was created" in live.kosli("create", "policy", name, str(path)).stdout
    path.write_text(POLICY + "  trail-compliance:\n    required: true\n")
    assert "was updated" in live.kosli("create", "policy", name, str(path),
                                       "--comment", "stricter").stdout
    got = live.kosli_json("get", "policy", name, "--output", "json")
    assert [v["version"] for v in got["versions"]] == [1, 2]
    assert "trail-compliance" in live.kosli("get", "policy", name).stdout
    assert name in live.kosli("list", "policies").stdout
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("attach-policy", name, "--environment", env)
    assert live.kosli_json("get", "environment", env, "--output", "json")["policies"] == [name]
    assert live.kosli_json("get", "policy", name, "--output", "json")["consuming_envs"] == [env]
    live.kosli("detach-policy", name, "--environment", env)
    assert live.kosli_json("get", "environment", env, "--output", "json")["policies"] == []
