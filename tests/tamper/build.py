"""The honest evidence of the tamper suite: what a real server records when the real kosli CLI
(and, where the CLI has no command, REST) reports a release. Drives the server over HTTP only;
imports nothing of evidence_grpc or rest_shim (from the suite: the CLI helpers of
tests/e2e/cli.py)."""

from __future__ import annotations

import hashlib
import json
import pathlib
from dataclasses import dataclass, field

import requests

from tests.conftest import RunningServer
from tests.e2e.cli import Repo, write

TEMPLATE = """version: 1
trail:
  attestations:
    - name: security
      type: generic
  artifacts:
    - name: app
      attestations:
        - name: unit-tests
          type: junit
"""
JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="app" tests="2" failures="0" errors="0" skipped="0" time="0.5"
 timestamp="2026-12-01T10:00:00"><testcase classname="app" name="adds" time="0.2"/>
<testcase classname="app" name="subtracts" time="0.3"/></testsuite></testsuites>
"""
# The organizations whose logs hold the evidence: acme the release, the two others small logs of
# a trail and its attestations (entry 0 the trail begun, 1..SMALL_ATTESTATIONS its attestations),
# so that cases changing a log's structure can be applied side by side, one a log.
SMALL_LOGS = ("acme-shared", "other")
SMALL_ATTESTATIONS = 7


@dataclass
class Recorded:
    """What the honest run left: files an auditor keeps (verifier key, checkpoints, packages)."""
    public_key: pathlib.Path
    checkpoints: dict[str, pathlib.Path] = field(default_factory=dict)
    packages: dict[str, pathlib.Path] = field(default_factory=dict)


def record(server: RunningServer, keys: dict[str, str], tmp: pathlib.Path) -> Recorded:
    """Report the release to `server` with the API keys of `keys` (organization -> key), then
    download what an auditor keeps."""
    repo = Repo(tmp / "repo")
    sha = repo.commit("Release the shop")
    commit = ("--commit", sha, "--repo-root", str(repo.root))
    kosli = server.kosli
    kosli("create", "flow", "shop", "--template-file", str(write(tmp / "template.yml", TEMPLATE)),
          "--description", "The shop")
    kosli("create", "flow", "ops", "--use-empty-template")
    kosli("begin", "trail", "r1", "--flow", "shop", *commit, "--description", "Release one",
          "--user-data", str(write(tmp / "trail-data.json", '{"ticket": "REL-1"}')),
          "--external-url", "board=https://board.example/REL-1")
    kosli("begin", "trail", "r2", "--flow", "shop")
    kosli("begin", "trail", "o1", "--flow", "ops")
    # made for the template's name before the artifact exists: bound when it is reported
    kosli("attest", "junit", "--name", "app.unit-tests", "--flow", "shop", "--trail", "r1",
          *commit, "--results-dir", str(write(tmp / "junit" / "results.xml", JUNIT).parent),
          "--user-data", str(write(tmp / "junit-data.json", '{"runner": "ci-7"}')),
          "--attachments", str(write(tmp / "junit-log.txt", "2 passed\n")))
    app = write(tmp / "dist" / "app.bin", b"the shop app 1.0\n")
    lib = write(tmp / "dist" / "lib.bin", b"the shop lib 1.0\n")
    for built, name in ((app, "app"), (lib, "lib")):
        kosli("attest", "artifact", str(built), "--artifact-type", "file", "--name", name,
              "--flow", "shop", "--trail", "r1", *commit,
              "--build-url", "https://ci.example/builds/7",
              "--commit-url", f"https://github.com/acme/shop/commit/{sha}")
    fingerprint = hashlib.sha256(app.read_bytes()).hexdigest()
    generic = ("attest", "generic", "--flow", "shop", "--trail", "r1")
    kosli(*generic, "--name", "security", "--compliant",
          "--user-data", str(write(tmp / "security-data.json", '{"scanner": "sec-1"}')),
          "--attachments", str(write(tmp / "security-report.txt", "no findings\n")))
    kosli(*generic, "--name", "lint", "--fingerprint", fingerprint, "--compliant=false",
          "--attachments", str(write(tmp / "lint-report.txt", "3 warnings\n")))
    for name in ("signoff", "retired", "spare", "audit", "waiver"):
        kosli(*generic, "--name", name, "--compliant")
    kosli("attest", "generic", "--name", "smoke", "--flow", "shop", "--trail", "r2", "--compliant")
    kosli("attest", "generic", "--name", "backup", "--flow", "ops", "--trail", "o1", "--compliant")
    kosli("attest", "decision", "--name", "change-approval", "--flow", "ops", "--trail", "o1",
          "--control", "CTL-1", "--compliant")
    kosli("create", "environment", "prod", "--type", "server")
    kosli("snapshot", "server", "prod", "--paths", str(lib))
    kosli("snapshot", "server", "prod", "--paths", str(app))
    with requests.Session() as http:  # closed: no idle connection holds up the server's stop
        http.headers["Authorization"] = f"Bearer {keys['acme']}"
        for number, state in ((1, "APPROVED"), (2, "UNAPPROVED")):
            answer = http.post(f"{server.http_url}/api/v2/approvals/acme/shop", timeout=10, json={
                "artifact_fingerprint": fingerprint, "description": f"approval {number}",
                "src_commit_list": [sha], "environment": "prod", "user_data": {"change": f"CHG-{number}"},
                "approvals": [{"state": state, "comment": "looked", "approved_by": "carol",
                               "approval_url": "https://review.example/1"}]})
            assert answer.status_code == 201, answer.text
        for org in SMALL_LOGS:
            _small_log(server.http_url, org, keys[org])
        kept = Recorded(write(tmp / "log.pub", http.get(
            f"{server.http_url}/api/v2/transparency/acme/public-key", timeout=10).text))
        for org in ("acme", *SMALL_LOGS):
            got = requests.get(f"{server.http_url}/api/v2/transparency/{org}/checkpoint", timeout=10,
                               headers={"Authorization": f"Bearer {keys[org]}"})
            assert got.status_code == 200, got.text
            kept.checkpoints[org] = write(tmp / f"{org}.checkpoint", got.text)
        for name, path in (("trail", "trails/acme/shop/r1/audit_package"),
                           ("artifact", f"artifacts/acme/shop/{fingerprint}/audit_package")):
            got = http.get(f"{server.http_url}/api/v2/{path}", timeout=30)
            assert got.status_code == 200, got.text
            kept.packages[name] = write(tmp / "packages" / f"{name}.tar.gz", got.content)
    return kept


def _small_log(base: str, org: str, key: str) -> None:
    """A flow `side`, its trail t1 and SMALL_ATTESTATIONS generic attestations a1.., over REST."""
    calls = [("PUT", f"flows/{org}/template_file",
              {"data_json": json.dumps({"name": "side", "description": ""}),
               "template_file": ("template.yml", "version: 1\n")}),
             ("PUT", f"trails/{org}/side", {"data_json": json.dumps({"name": "t1"})})]
    calls += [("POST", f"attestations/{org}/side/trail/t1/generic",
               {"data_json": json.dumps({"attestation_name": f"a{n}", "is_compliant": True})})
              for n in range(1, SMALL_ATTESTATIONS + 1)]
    with requests.Session() as http:
        http.headers["Authorization"] = f"Bearer {key}"
        for method, path, form in calls:
            answer = http.request(method, f"{base}/api/v2/{path}", timeout=10,
                                  files={k: v if isinstance(v, tuple) else (None, v)
                                         for k, v in form.items()})
            assert answer.status_code == 201, (path, answer.text)
