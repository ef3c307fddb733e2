"""The walk-throughs of the docs, run as written with the real kosli CLI against a real server
(one per engine, shared by this module's tests): docs/pipeline.md's delivery, in a git
repository with a built file and a JUnit report, and the README's five-minute tour. Each stays
true."""

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
README = ROOT / "README.md"
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


def tour() -> str:
    """The README's tour without its `export KOSLI_…` line: the test gives the CLI this
    server's address, a key and its organization instead of the quick start's."""
    section = README.read_text().split("## A five-minute tour\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the tour is one shell block"
    lines = blocks[0].splitlines()
    assert lines[0].startswith("export KOSLI_HOST=") and "KOSLI_ORG=" in lines[0] \
        and "KOSLI_API_TOKEN=" in lines[0], "the tour begins by pointing the CLI at the server"
    return "\n".join(lines[1:]) + "\n"


def cli_env(server: RunningServer) -> dict[str, str]:
    cli = pathlib.Path(kosli_binary())
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOSLI_")}
    env.update(KOSLI_HOST=server.http_url, KOSLI_API_TOKEN=ALICE_KEY, KOSLI_ORG="acme",
               PATH=f"{cli.parent}:{env['PATH']}", GIT_AUTHOR_NAME="Alice",
               GIT_COMMITTER_NAME="Alice", GIT_AUTHOR_EMAIL="a@x", GIT_COMMITTER_EMAIL="a@x")
    return env


def test_the_pipeline_guide_runs_as_written(live: RunningServer, tmp_path: pathlib.Path):
    repo = Repo(tmp_path / "work")
    commit = repo.commit("Add refunds")
    (repo.root / "app.tar").write_bytes(b"payments 1.0\n")
    (repo.root / "reports").mkdir()
    (repo.root / "reports" / "junit.xml").write_text(JUNIT)
    run = subprocess.run(["bash", "-c", example()], cwd=repo.root, env=cli_env(live),
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "COMPLIANT" in run.stdout

    trail = requests.get(f"{live.http_url}/api/v2/trails/acme/payments/{commit}",
                         headers=bearer(), timeout=10).json()
    assert trail["compliance_state"] == "COMPLIANT"
    assert {s["attestation_name"] for s in trail["compliance_status"]["attestations_statuses"]} \
        == {"ticket"}
    snapshot = requests.get(f"{live.http_url}/api/v2/snapshots/acme/prod/-1",
                            headers=bearer(), timeout=10).json()
    assert [a["flow_name"] for a in snapshot["artifacts"]] == ["payments"]


def test_the_readme_tour_runs_as_written(live: RunningServer, tmp_path: pathlib.Path):
    """Run in a git checkout, as the README says, with `set -e`: every command must succeed
    but the one the tour expects to be refused."""
    repo = Repo(tmp_path / "checkout")
    repo.commit("First")
    run = subprocess.run(["bash", "-e", "-c", tour()], cwd=repo.root, env=cli_env(live),
                         capture_output=True, text=True, timeout=120)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    # What the tour's comments promise: the trail is compliant, so is the snapshot under the
    # policy, the build passes the environment's gate, and the next one, failing its tests,
    # is refused by it.
    assert re.search(r"^Compliance:\s+COMPLIANT$", run.stdout, re.M), out
    assert re.search(r"^\w+\s+Name: app\s+tour\s+COMPLIANT\s", run.stdout, re.M), out
    assert re.search(r"^COMPLIANT\nEnvironment:\s+tour-prod", run.stdout, re.M), out
    assert re.search(r"^Error: NON-COMPLIANT\nEnvironment:\s+tour-prod", run.stdout, re.M), out
    assert run.stdout.rstrip().endswith("refused: NON-COMPLIANT"), out

    def get(path: str) -> dict:
        return requests.get(f"{live.http_url}/api/v2/{path}", headers=bearer(), timeout=10).json()

    assert get("trails/acme/tour/change-1")["compliance_state"] == "COMPLIANT"
    assert get("trails/acme/tour/change-2")["compliance_state"] == "NON-COMPLIANT"
    snapshot = get("snapshots/acme/tour-prod/-1")
    assert snapshot["compliant"] is True and snapshot["applied_policies"], snapshot
    assert [(a["name"], a["flow_name"]) for a in snapshot["artifacts"]] == [("app", "tour")]
