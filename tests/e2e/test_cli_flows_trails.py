"""Flows, trails and organization settings end to end: the official kosli CLI against a real
`evidence-server serve` process, on every engine under test.

One server per engine serves the whole module (a start costs a second or two), so every test
works on flows and trails of its own names and restores the settings it changes."""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import subprocess
import time

import grpc
import pytest
import requests

from tests.conftest import (
    BOB_KEY,
    RunningServer,
    bearer,
)
from tests.e2e.cli import failure, unique, write

pytestmark = pytest.mark.e2e

TEMPLATE = """\
version: 1
trail:
  attestations:
    - name: unit-tests
      type: junit
  artifacts:
    - name: backend
"""


@pytest.fixture
def template_file(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "template.yml"
    path.write_text(TEMPLATE)
    return path


@pytest.fixture
def git_repo(tmp_path: pathlib.Path) -> tuple[pathlib.Path, str]:
    """A git repository with one commit on `main` and a GitHub origin; returns (root, sha)."""
    root = tmp_path / "repo"
    root.mkdir()

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(root), "-c", "user.name=Alice Example",
             "-c", "user.email=alice@example.com", "-c", "commit.gpgsign=false", *args],
            check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q", "-b", "main")
    git("remote", "add", "origin", "https://github.com/acme/demo.git")
    (root / "README.md").write_text("demo\n")
    git("add", "README.md")
    git("commit", "-q", "-m", "Add the README\n\nWith a body line.")
    return root, git("rev-parse", "HEAD")


# ---- status -----------------------------------------------------------------------------------

def test_status_prints_ok(live: RunningServer):
    result = live.kosli("status")
    assert result.stdout.strip() == "OK"
    live.kosli("status", "--assert")


# ---- flows ------------------------------------------------------------------------------------

def test_create_flow_with_template_file_creates_then_updates(live: RunningServer,
                                                            template_file: pathlib.Path):
    flow = unique("tf")
    first = live.kosli("create", "flow", flow, "--template-file", str(template_file),
                       "--description", "first version")
    assert first.stdout.strip() == f"flow '{flow}' was created"
    second = live.kosli("create", "flow", flow, "--template-file", str(template_file),
                        "--description", "second version")
    assert second.stdout.strip() == f"flow '{flow}' was updated"

    got = live.kosli_json("get", "flow", flow)
    assert got["name"] == flow
    assert got["description"] == "second version"
    assert got["template"] == TEMPLATE
    assert got["archived"] is False
    assert isinstance(got["created_at"], float)


def test_create_flow_with_empty_template(live: RunningServer):
    flow = unique("empty")
    result = live.kosli("create", "flow", flow, "--use-empty-template")
    assert result.stdout.strip() == f"flow '{flow}' was created"
    assert live.kosli_json("get", "flow", flow)["template"].strip() == "version: 1"


def test_create_flow_with_legacy_template_list(live: RunningServer):
    flow = unique("legacy")
    result = live.kosli("create", "flow", flow, "--template", "pull-request,unit-tests",
                        "--description", "old style")
    assert result.stdout.strip() == f"flow '{flow}' was created"
    assert "deprecated" in result.stderr
    got = live.kosli_json("get", "flow", flow)
    assert got["template"] == ["pull-request", "unit-tests", "artifact"]
    assert got["description"] == "old style"
    table = live.kosli("get", "flow", flow).stdout
    assert "[pull-request, unit-tests, artifact]" in table
    again = live.kosli("create", "flow", flow, "--template", "unit-tests")
    assert again.stdout.strip() == f"flow '{flow}' was updated"


def test_get_flow_table(live: RunningServer, template_file: pathlib.Path):
    flow = unique("table")
    live.kosli("create", "flow", flow, "--template-file", str(template_file),
               "--description", "shown in the table")
    lines = live.kosli("get", "flow", flow).stdout.splitlines()
    fields = {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in lines
              if line and not line.startswith(" ")}
    assert fields["Name"] == flow
    assert fields["Description"] == "shown in the table"
    assert fields["Last Deployment At"] == "N/A"
    assert fields["Tags"] == "None"
    # The YAML template is rendered line by line under the Template row.
    assert any(line.strip() == "- name: unit-tests" for line in lines)


def test_get_flow_renders_a_template_that_opens_with_comments(live: RunningServer,
                                                              tmp_path: pathlib.Path):
    """Templates as the docs write them open with a `# yaml-language-server:` line; the CLI
    renders a template as YAML only when it starts with `version: `."""
    flow = unique("documented")
    path = tmp_path / "documented.yml"
    path.write_text("# yaml-language-server: $schema=https://docs.kosli.com/schemas/flow-template/v1\n"
                    + TEMPLATE)
    live.kosli("create", "flow", flow, "--template-file", str(path))
    table = live.kosli("get", "flow", flow).stdout
    assert "yaml-language-server" not in table
    lines = table.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Template:"))
    assert [line.strip() for line in lines[at + 1:at + 1 + len(TEMPLATE.splitlines())]] == [
        line.strip() for line in TEMPLATE.splitlines()]
    assert live.kosli_json("get", "flow", flow)["template"] == TEMPLATE


def test_list_flows_plain_and_paged(live: RunningServer):
    flows = sorted(unique("listed") for _ in range(3))
    for flow in flows:
        live.kosli("create", "flow", flow, "--use-empty-template", "--description", f"d {flow}")

    table = live.kosli("list", "flows").stdout
    assert table.splitlines()[0].split() == ["NAME", "DESCRIPTION", "TAGS"]
    for flow in flows:
        assert f"d {flow}" in table
    assert "Showing page" not in table  # the bare-array answer has no pagination line

    listed = live.kosli_json("list", "flows")
    assert isinstance(listed, list)
    assert set(flows) <= {f["name"] for f in listed}

    paged = live.kosli_json("list", "flows", "--page-limit", "2")
    assert len(paged["data"]) == 2
    assert paged["pagination"]["total"] == len(listed)
    assert paged["pagination"]["page_count"] == (len(listed) + 1) // 2
    paged_table = live.kosli("list", "flows", "--page-limit", "2").stdout
    rows = [line for line in paged_table.splitlines()[1:] if line.strip()]
    assert len(rows) == 3  # two flows and the pagination line
    assert rows[-1].strip() == (f"Showing page 1 of {paged['pagination']['page_count']}, "
                                f"total {len(listed)} items")
    last = live.kosli_json("list", "flows", "--page-limit", "2",
                           "--page", str(paged["pagination"]["page_count"]))
    assert 1 <= len(last["data"]) <= 2


def test_archive_flow_renames_it_and_frees_its_name(live: RunningServer):
    flow = unique("archived")
    live.kosli("create", "flow", flow, "--use-empty-template", "--description", "first")
    live.kosli("begin", "trail", "t1", "--flow", flow)
    before = int(time.time())
    result = live.kosli("archive", "flow", flow)
    after = int(time.time())
    assert result.stdout.strip() == f"flow {flow} was archived"
    assert flow not in {f["name"] for f in live.kosli_json("list", "flows")}
    assert flow not in live.kosli("list", "flows").stdout

    # Renamed as the hosted service does; its former name is gone with it.
    gone = live.kosli("get", "flow", flow, check=False)
    assert failure(gone) == (f"Error: [kosli get flow] Flow named '{flow}' does not exist for "
                             f"organization 'acme'\n")
    [archived] = [found for seconds in range(before, after + 1)
                  for found in [live.kosli("get", "flow", f"{flow}-archived-at-{seconds}",
                                           "--output", "json", check=False)]
                  if found.returncode == 0]
    archived = json.loads(archived.stdout)
    assert archived["archived"] is True
    assert archived["name"].removeprefix(f"{flow}-archived-at-").isdigit()
    # Named by its own name, an archived flow lists its trails; its former name is gone with it.
    listed = live.kosli_json("list", "trails", "--flow", archived["name"])["data"]
    assert [(t["name"], t["flow"]["name"]) for t in listed] == [("t1", archived["name"])]

    again = live.kosli("create", "flow", flow, "--use-empty-template", "--description", "second")
    assert again.stdout.strip() == f"flow '{flow}' was created"
    got = live.kosli_json("get", "flow", flow)
    assert (got["name"], got["description"], got["archived"]) == (flow, "second", False)
    assert live.kosli_json("list", "trails", "--flow", flow)["data"] == []
    # The archived flow keeps its trails under its new name.
    kept = live.kosli_json("get", "trail", "t1", "--flow", archived["name"])
    assert (kept["name"], kept["flow"]["name"]) == ("t1", archived["name"])
    assert live.kosli_json("get", "flow", archived["name"])["description"] == "first"


def test_rename_flow_keeps_the_old_name_resolving(live: RunningServer):
    old, new = unique("old"), unique("new")
    live.kosli("create", "flow", old, "--use-empty-template", "--description", "renamed")
    result = live.kosli("rename", "flow", old, new)
    assert result.stdout.strip() == f"flow {old} was renamed to {new}"

    by_old = live.kosli_json("get", "flow", old)
    assert by_old["name"] == new
    assert by_old["description"] == "renamed"
    assert live.kosli_json("get", "flow", new)["name"] == new
    names = {f["name"] for f in live.kosli_json("list", "flows")}
    assert new in names and old not in names
    # Trails can be begun through the old name too.
    live.kosli("begin", "trail", "via-old-name", "--flow", old)
    trails = live.kosli_json("list", "trails", "--flow", new)
    assert [t["name"] for t in trails["data"]] == ["via-old-name"]


# ---- trails -----------------------------------------------------------------------------------

def test_begin_trail_creates_then_updates_with_everything(live: RunningServer, tmp_path: pathlib.Path,
                                                          git_repo: tuple[pathlib.Path, str]):
    flow, trail = unique("trails"), unique("trail")
    repo, sha = git_repo
    user_data = tmp_path / "user-data.json"
    user_data.write_text(json.dumps({"build": 42, "nested": {"ok": True, "tags": ["a", "b"]}}))
    live.kosli("create", "flow", flow, "--use-empty-template")

    begun = live.kosli("begin", "trail", trail, "--flow", flow)
    assert begun.stdout.strip() == f"trail '{trail}' was begun"
    updated = live.kosli(
        "begin", "trail", trail, "--flow", flow, "--description", "release 1.2",
        "--user-data", str(user_data), "--origin-url", "https://ci.example/runs/7",
        "--external-url", "label=https://x.example/report",
        "--commit", sha, "--repo-root", str(repo))
    assert updated.stdout.strip() == f"trail '{trail}' was updated"

    got = live.kosli_json("get", "trail", trail, "--flow", flow)
    assert got["name"] == trail
    assert got["description"] == "release 1.2"
    assert got["origin_url"] == "https://ci.example/runs/7"
    assert got["user_data"] == {"build": 42, "nested": {"ok": True, "tags": ["a", "b"]}}
    assert got["external_urls"]["label"]["href"] == "https://x.example/report"
    commit = got["git_commit_info"]
    assert commit["sha1"] == sha
    assert commit["author"] == "Alice Example <alice@example.com>"
    assert commit["message"].startswith("Add the README")
    assert commit["branch"] == "main"
    assert commit["url"] == f"https://github.com/acme/demo/commit/{sha}"
    assert isinstance(commit["timestamp"], float)
    assert got["flow"]["name"] == flow
    assert got["compliance_state"] == "COMPLIANT"
    assert got["created_by"] == "alice"
    assert [e["type"] for e in got["events"]] == ["trail_reported", "trail_updated"]
    assert got["events"][1]["git_commit_info"]["sha1"] == sha
    assert got["html_url"].endswith(f"/acme/flows/{flow}/trails/{trail}")

    table = live.kosli("get", "trail", trail, "--flow", flow).stdout
    assert f"Name:              {trail}" in table
    assert "Description:       release 1.2" in table
    assert "Compliance:        COMPLIANT" in table
    assert f"Sha1:            {sha}" in table
    assert "Author:          Alice Example <alice@example.com>" in table
    assert f"url:             https://github.com/acme/demo/commit/{sha}" in table
    assert "trail started" in table and "trail updated" in table and sha[:7] in table
    assert "<nil>" not in table

    markdown = live.kosli("get", "trail", trail, "--flow", flow, "-o", "markdown").stdout
    assert markdown.startswith(f"## Trail: [{trail}](")
    assert "| Origin | https://ci.example/runs/7 |" in markdown
    assert f"| Sha1 | [{sha}](https://github.com/acme/demo/commit/{sha}) |" in markdown
    assert "| Message | Add the README |" in markdown
    assert "trail updated" in markdown


def test_begin_trail_with_template_file_and_markdown(live: RunningServer,
                                                    template_file: pathlib.Path):
    flow, trail = unique("tmpl"), unique("trail")
    live.kosli("create", "flow", flow, "--template-file", str(template_file))
    live.kosli("begin", "trail", trail, "--flow", flow)
    got = live.kosli_json("get", "trail", trail, "--flow", flow)
    assert got["git_commit_info"] is None
    assert got["compliance_state"] != "COMPLIANT"  # the template's evidence is still missing
    statuses = {s["attestation_name"]: s for s in got["compliance_status"]["attestations_statuses"]}
    assert statuses["unit-tests"]["status"] == "MISSING"
    # Table and markdown render a trail with missing evidence and no commit.
    table = live.kosli("get", "trail", trail, "--flow", flow).stdout
    assert "Git commit" not in table and "trail started" in table
    markdown = live.kosli("get", "trail", trail, "--flow", flow, "-o", "markdown").stdout
    assert "### Git commit" not in markdown and "trail started" in markdown


# A flow's templates: the first wants a scan of the artifact `backend`; the second an sbom too.
PINNED = ("version: 1\ntrail:\n  artifacts:\n    - name: backend\n      attestations:\n"
          "        - name: scan\n          type: generic\n")
HOSTED_ID = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{8}"


def test_a_trail_keeps_the_template_it_was_begun_with(live: RunningServer, tmp_path: pathlib.Path,
                                                      git_repo: tuple[pathlib.Path, str]):
    """Changing a flow's template judges the trails begun after it; a trail begun before keeps
    its verdict (and `kosli assert artifact` its exit code), a trail given its own template
    keeps that, and every answer (REST, gRPC) names the template it was judged by."""
    from evidence_grpc.api.v2 import artifact_service_pb2 as artifact_pb
    from evidence_grpc.api.v2 import artifact_service_pb2_grpc as artifact_grpc
    from evidence_grpc.api.v2 import trail_service_pb2 as trail_pb
    from evidence_grpc.api.v2 import trail_service_pb2_grpc as trail_grpc

    repo, sha = git_repo
    flow = unique("pinned")
    first, second, own = (write(tmp_path / name, text) for name, text in (
        ("first.yml", PINNED), ("second.yml", PINNED + "        - name: sbom\n          type: generic\n"),
        ("own.yml", "version: 1\n")))
    artifact = write(tmp_path / "backend.tar", b"pinned backend\n")
    fingerprint = hashlib.sha256(b"pinned backend\n").hexdigest()
    live.kosli("create", "flow", flow, "--template-file", str(first))
    live.kosli("begin", "trail", "t1", "--flow", flow)
    live.kosli("attest", "artifact", str(artifact), "--artifact-type", "file", "--flow", flow,
               "--trail", "t1", "--name", "backend", "--commit", sha, "--repo-root", str(repo),
               "--build-url", "https://ci.example/1", "--commit-url", "https://git.example/1")
    live.kosli("attest", "generic", "--name", "scan", "--flow", flow, "--trail", "t1",
               "--fingerprint", fingerprint, "--compliant=true")
    asserted = ("assert", "artifact", str(artifact), "--artifact-type", "file", "--flow", flow)
    live.kosli(*asserted)
    before = live.kosli_json("get", "trail", "t1", "--flow", flow)
    assert before["compliance_status"]["status"] == "COMPLIANT"

    live.kosli("create", "flow", flow, "--template-file", str(second))
    live.kosli("begin", "trail", "t2", "--flow", flow)
    live.kosli("begin", "trail", "t3", "--flow", flow, "--template-file", str(own))

    assert live.kosli_json("get", "trail", "t1", "--flow", flow) == before
    assert live.kosli(*asserted, check=False).returncode == 0
    kept = before["compliance_status"]["flow_template_id"]
    assert re.fullmatch(HOSTED_ID, kept)
    assert before["compliance_status"]["artifacts_statuses"]["backend"]["flow_template_id"] == kept
    later = live.kosli_json("get", "trail", "t2", "--flow", flow)
    assert later["template"]["content"] == second.read_text()
    assert later["compliance_status"]["status"] == "INCOMPLETE"  # no backend yet
    changed = later["compliance_status"]["flow_template_id"]
    given = requests.get(f"{live.http_url}/api/v2/trails/acme/{flow}/t3", headers=bearer(),
                         timeout=10).json()
    assert given["template"]["content"] == "version: 1\n"
    assert len({kept, changed, given["compliance_status"]["flow_template_id"]}) == 3
    made = before["compliance_status"]["artifacts_statuses"]["backend"]["artifact_id"]
    metadata = (("authorization", bearer()["Authorization"]),)
    with grpc.insecure_channel(live.grpc_target) as channel:
        answered = trail_grpc.TrailServiceStub(channel).GetTrail(
            trail_pb.GetTrailRequest(org="acme", flow_name=flow, trail_name="t1"),
            metadata=metadata, timeout=10)
        found = artifact_grpc.ArtifactServiceStub(channel).GetArtifactByFingerprint(
            artifact_pb.GetArtifactByFingerprintRequest(
                org="acme", flow_name=flow, fingerprint=fingerprint, artifact_id=made),
            metadata=metadata, timeout=10)
    assert answered.compliance_status.flow_template_id == kept
    assert answered.compliance_status.artifacts_statuses["backend"].flow_template_id == kept
    assert (found.id, found.trail_name) == (made, "t1")

    # the artifact's id: random, in the hosted shape, and it finds its report
    assert re.fullmatch(HOSTED_ID, made)
    report = f"{live.http_url}/api/v2/artifacts/acme/{flow}/fingerprint/{fingerprint}"
    assert requests.get(report, params={"artifact_id": made}, headers=bearer(),
                        timeout=10).json()["id"] == made
    unknown = requests.get(report, params={"artifact_id": made[::-1]}, headers=bearer(), timeout=10)
    assert unknown.status_code == 404 and made[::-1] in unknown.json()["message"]


def test_list_trails_of_a_flow(live: RunningServer):
    flow, other_flow = unique("listing"), unique("listing")
    live.kosli("create", "flow", flow, "--use-empty-template")
    live.kosli("create", "flow", other_flow, "--use-empty-template")
    for trail in ("first", "second", "third"):
        live.kosli("begin", "trail", trail, "--flow", flow, "--description", f"the {trail}")
    live.kosli("begin", "trail", "elsewhere", "--flow", other_flow)

    listed = live.kosli_json("list", "trails", "--flow", flow)
    assert sorted(t["name"] for t in listed["data"]) == ["first", "second", "third"]
    assert listed["pagination"]["total"] == 3
    assert listed["pagination"]["page"] == 1
    table = live.kosli("list", "trails", "--flow", flow).stdout
    assert table.splitlines()[0].split() == ["NAME", "DESCRIPTION", "COMPLIANCE"]
    assert "the second" in table and "elsewhere" not in table
    assert "Showing page 1 of 1, total 3 items" in table


# ---- organization and user settings -----------------------------------------------------------

def test_default_org_get_and_update(live: RunningServer):
    assert live.kosli("get", "default-org").stdout.strip() == "Default user organization: acme"
    try:
        result = live.kosli("update", "default-org", "acme-shared")
        assert result.stdout.strip() == "default organization is set to: acme-shared"
        assert live.kosli("get", "default-org").stdout.strip() == \
            "Default user organization: acme-shared"
        assert live.kosli_json("get", "default-org") == {"default_org_name": "acme-shared"}
    finally:
        live.kosli("update", "default-org", "acme")
    refused = live.kosli("update", "default-org", "other", org="other", check=False)
    assert failure(refused).endswith("] Access denied to /api/v2/user/other\n")
    assert live.kosli("get", "default-org").stdout.strip() == "Default user organization: acme"


def test_enable_and_disable_beta(live: RunningServer):
    url = f"{live.http_url}/api/v2/organizations/acme"

    def beta() -> bool:
        response = requests.get(url, headers=bearer(), timeout=10)
        assert response.status_code == 200
        return response.json()["experimental_features_enabled"]

    try:
        result = live.kosli("enable", "beta")
        assert result.stdout.strip() == "beta features have been enabled for organization: acme"
        assert beta() is True
        result = live.kosli("disable", "beta")
        assert result.stdout.strip() == "beta features have been disabled for organization: acme"
        assert beta() is False
    finally:
        live.kosli("disable", "beta")


# ---- error paths ------------------------------------------------------------------------------

def test_get_unknown_flow_fails_cleanly(live: RunningServer):
    result = live.kosli("get", "flow", "no-such-flow", check=False)
    assert failure(result).strip() == ("Error: [kosli get flow] Flow named 'no-such-flow' does not exist "
                                     "for organization 'acme'")


def test_unknown_trail_and_flow_of_a_trail_fail_cleanly(live: RunningServer):
    flow = unique("errs")
    live.kosli("create", "flow", flow, "--use-empty-template")
    result = live.kosli("get", "trail", "no-such-trail", "--flow", flow, check=False)
    assert "Trail with name 'no-such-trail' does not exist" in failure(result)
    result = live.kosli("begin", "trail", "t", "--flow", "no-such-flow", check=False)
    assert "Flow named 'no-such-flow' does not exist" in failure(result)


def test_another_organizations_key_is_refused(live: RunningServer):
    flow = unique("private")
    live.kosli("create", "flow", flow, "--use-empty-template")
    for args in (("get", "flow", flow), ("list", "flows"),
                 ("create", "flow", unique("intruder"), "--use-empty-template"),
                 ("list", "trails", "--flow", flow)):
        result = live.kosli(*args, key=BOB_KEY, check=False)
        assert re.search(r"\] Access denied to /api/v2/\w+/acme\b", failure(result)), args
    # Bob's own organization knows nothing of acme's flow.
    result = live.kosli("get", "flow", flow, key=BOB_KEY, org="other", check=False)
    assert f"Flow named '{flow}' does not exist for organization 'other'" in failure(result)
    result = live.kosli("list", "flows", key="not-a-key", check=False)
    failure(result)
    response = requests.get(f"{live.http_url}/api/v2/flows/acme/{flow}", headers=bearer(BOB_KEY),
                            timeout=10)
    assert response.status_code == 403


@pytest.mark.parametrize(("text", "said"), [
    ("version: 1\ntrail: [unclosed\n", "Invalid flow template: not valid YAML"),
    # A template YAML can read but its schema refuses is a field of the flow's payload.
    ("version: 1\ntrail:\n  attestations: 3\n", "Input payload validation failed: "
     "map[template_file:trail.attestations: 3 is not of type 'array']"),
    ("version: 7\n", "Input payload validation failed: map[template_file:version: 1 was expected]"),
])
def test_bad_template_is_refused_with_a_4xx_message(live: RunningServer, tmp_path: pathlib.Path,
                                                    text: str, said: str):
    flow = unique("badtmpl")
    bad = tmp_path / "bad.yml"
    bad.write_text(text)
    result = live.kosli("create", "flow", flow, "--template-file", str(bad), check=False)
    assert said in failure(result)
    assert live.kosli("get", "flow", flow, check=False).returncode == 1  # nothing was created

    response = requests.put(
        f"{live.http_url}/api/v2/flows/acme/template_file", headers=bearer(),
        files={"data_json": (None, json.dumps({"name": flow, "description": ""})),
               "template_file": ("template.yml", text.encode(), "application/octet-stream")},
        timeout=10)
    assert 400 <= response.status_code < 500, response.text
    assert response.json()["message"] == said.partition(": map[")[0]
