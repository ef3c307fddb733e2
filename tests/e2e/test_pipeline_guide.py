"""docs/pipeline.md's example, run as written with the real kosli CLI against a real server,
in a git repository with a built file and a JUnit report: the guide stays true."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess

import pytest
import requests

from tests.conftest import ALICE_KEY, ROOT, RunningServer, bearer, kosli_binary
from tests.e2e.cli import Repo

pytestmark = pytest.mark.e2e
GUIDE = ROOT / "docs" / "pipeline.md"
JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="payments" tests="2" failures="0" errors="0" skipped="0" time="0.5"
           timestamp="2026-11-25T10:00:00">
  <testcase classname="payments" name="pays" time="0.2"/>
  <testcase classname="payments" name="refunds" time="0.3"/>
</testsuite>
"""


def example() -> str:
    blocks = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(), re.S)
    assert len(blocks) == 1, "the guide has one shell example"
    return blocks[0]


def test_the_pipeline_guide_runs_as_written(server: RunningServer, tmp_path: pathlib.Path):
    repo = Repo(tmp_path / "work")
    commit = repo.commit("Add refunds")
    (repo.root / "app.tar").write_bytes(b"payments 1.0\n")
    (repo.root / "reports").mkdir()
    (repo.root / "reports" / "junit.xml").write_text(JUNIT)
    cli = pathlib.Path(kosli_binary())
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOSLI_")}
    env.update(KOSLI_HOST=server.http_url, KOSLI_API_TOKEN=ALICE_KEY, KOSLI_ORG="acme",
               PATH=f"{cli.parent}:{env['PATH']}", GIT_AUTHOR_NAME="Alice",
               GIT_COMMITTER_NAME="Alice", GIT_AUTHOR_EMAIL="a@x", GIT_COMMITTER_EMAIL="a@x")
    run = subprocess.run(["bash", "-c", example()], cwd=repo.root, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "COMPLIANT" in run.stdout

    trail = requests.get(f"{server.http_url}/api/v2/trails/acme/payments/{commit}",
                         headers=bearer(), timeout=10).json()
    assert trail["compliance_state"] == "COMPLIANT"
    assert {s["attestation_name"] for s in trail["compliance_status"]["attestations_statuses"]} \
        == {"ticket"}
    snapshot = requests.get(f"{server.http_url}/api/v2/snapshots/acme/prod/-1",
                            headers=bearer(), timeout=10).json()
    assert [a["flow_name"] for a in snapshot["artifacts"]] == ["payments"]
