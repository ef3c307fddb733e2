"""What the upgrade fixtures hold and what is read back from them: evidence written by a release's
own code through the official CLI, and the reads compared before and after an upgrade.

Every name and artifact is fixed (file contents, not random), so a fixture's reads are keyed the
same way by the release that wrote it and by the release that upgrades it."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import pathlib
import subprocess
from collections.abc import Callable
from typing import Any

import requests

ORG = "acme"
KEY = "upgrade-fixture-key-0123456789"
# The organization has the Controls feature (only bootstrap gives it; releases before 2026-11-28b
# wrote no controls, and a policy names none).
BOOTSTRAP = {"organizations": [{"name": ORG, "features": ["controls"]}],
             "users": [{"name": "alice", "organizations": [ORG], "api_keys": [{"key": KEY}]}]}
PUBLIC_URL = "http://evidence.example"

# A trail needs a compliant review; the artifact `app` needs a compliant scan.
TEMPLATE = """version: 1
trail:
  attestations:
    - name: review
      type: generic
  artifacts:
    - name: app
      attestations:
        - name: scan
          type: generic
"""
# name: file content; a file's fingerprint is the SHA-256 of its content.
FILES = {"app-1": b"app 1.0\n", "app-2": b"app 2.0\n", "tool": b"vendor tool\n",
         "stray": b"nobody reported this\n", "app-3": b"app 3.0\n", "app-4": b"app 4.0\n",
         "app-5": b"app 5.0\n", "app-6": b"app 6.0\n", "app-7": b"app 7.0\n",
         "app-8": b"app 8.0\n", "app-9": b"app 9.0\n", "app-10": b"app 10.0\n",
         "app-11": b"app 11.0\n", "app-12": b"app 12.0\n", "app-13": b"app 13.0\n"}


def fingerprint(name: str) -> str:
    return hashlib.sha256(FILES[name]).hexdigest()


def _git_commit(root: pathlib.Path) -> str:
    """A repository at `root` with one commit of fixed author and date: the same SHA each time."""
    fixed = {**os.environ, "GIT_AUTHOR_NAME": "Alice Example", "GIT_AUTHOR_EMAIL": "alice@example.com",
             "GIT_AUTHOR_DATE": "2026-11-20T12:00:00Z", "GIT_COMMITTER_NAME": "Alice Example",
             "GIT_COMMITTER_EMAIL": "alice@example.com", "GIT_COMMITTER_DATE": "2026-11-20T12:00:00Z"}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), "-c", "commit.gpgsign=false", *args],
                              check=True, capture_output=True, text=True, env=fixed).stdout.strip()

    git("init", "-q", "-b", "main")
    git("remote", "add", "origin", "https://github.com/acme/shop.git")
    git("commit", "-q", "--allow-empty", "-m", "Release the shop")
    return git("rev-parse", "HEAD")


class Cli:
    """The official kosli CLI against one server."""

    def __init__(self, binary: str, host: str, work: pathlib.Path) -> None:
        self.binary, self.host, self.work = binary, host, work
        work.mkdir(parents=True, exist_ok=True)
        for name, content in FILES.items():
            (work / name).write_bytes(content)
        (work / "template.yml").write_text(TEMPLATE)
        self.commit = _git_commit(work)

    def run(self, *args: str, check: bool = True, token: str = KEY) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KOSLI_")}
        result = subprocess.run(
            [self.binary, *args, "--host", self.host, "--api-token", token, "--org", ORG,
             "--max-api-retries", "0"], capture_output=True, text=True, env=env, timeout=60,
            cwd=self.work)
        if check and result.returncode != 0:
            raise AssertionError(f"kosli {' '.join(args)}: {result.stdout}{result.stderr}")
        return result

    def file(self, name: str) -> str:
        return str(self.work / name)

    def artifact(self, name: str, flow: str, trail: str, *extra: str) -> None:
        self.run("attest", "artifact", self.file(name), "--artifact-type", "file",
                 "--name", "app", "--flow", flow, "--trail", trail,
                 "--build-url", f"https://ci.example/{trail}", "--commit", self.commit,
                 "--repo-root", str(self.work), "--commit-url", f"https://git.example/{trail}",
                 *extra)

    def attest(self, kind: str, name: str, flow: str, trail: str, compliant: bool,
               artifact: str | None = None, *extra: str) -> None:
        target = ["--fingerprint", fingerprint(artifact)] if artifact else []
        self.run("attest", kind, "--name", name, "--flow", flow, "--trail", trail,
                 f"--compliant={'true' if compliant else 'false'}", *target, *extra)

    def generic(self, name: str, flow: str, trail: str, compliant: bool,
                artifact: str | None = None) -> None:
        self.attest("generic", name, flow, trail, compliant, artifact)

    def post(self, path: str, body: dict[str, Any]) -> None:
        """A write the CLI has no command for, through REST."""
        answer = requests.post(self.host + path, json=body, timeout=30,
                               headers={"Authorization": f"Bearer {KEY}"})
        if not answer.ok:
            raise AssertionError(f"POST {path}: {answer.status_code} {answer.text}")

    def snapshot(self, env: str, *names: str) -> None:
        """A report of the files `names` running: paths relative to the work directory, which
        the CLI names them by, so every run names them alike."""
        self.run("snapshot", "server", env, "--paths", ",".join(names))


def write_2026_11_23(cli: Cli) -> None:
    """Evidence and snapshots as the release of 2026-11-23 (6342035) judged them when read:
    every environment without policies, snapshots compliant when every artifact is allowlisted
    or compliant in all its trails."""
    cli.run("create", "flow", "shop", "--template-file", cli.file("template.yml"))
    cli.run("create", "flow", "tools", "--use-empty-template")
    cli.run("begin", "trail", "r1", "--flow", "shop")
    cli.artifact("app-1", "shop", "r1")
    cli.generic("review", "shop", "r1", True)
    cli.generic("scan", "shop", "r1", True, artifact="app-1")
    cli.run("begin", "trail", "r2", "--flow", "shop")
    cli.artifact("app-2", "shop", "r2")
    cli.generic("review", "shop", "r2", True)
    cli.generic("scan", "shop", "r2", False, artifact="app-2")
    cli.run("begin", "trail", "t1", "--flow", "tools")
    cli.run("attest", "artifact", cli.file("tool"), "--artifact-type", "file", "--name", "tool",
            "--flow", "tools", "--trail", "t1", "--build-url", "https://ci.example/t1",
            "--commit", cli.commit, "--repo-root", str(cli.work),
            "--commit-url", "https://git.example/t1")
    cli.run("create", "environment", "prod", "--type", "server")
    cli.snapshot("prod", "app-1", "tool")  # #1 compliant
    cli.snapshot("prod", "app-1", "app-2")  # #2 app-2 fails its scan
    cli.snapshot("prod", "app-1")  # #3 compliant
    cli.run("create", "environment", "edge", "--type", "server")
    cli.snapshot("edge", "app-2", "stray")  # #1 neither is compliant
    cli.run("allow", "artifact", cli.file("app-2"), "--artifact-type", "file",
            "--environment", "edge", "--reason", "accepted risk")
    cli.snapshot("edge", "app-2")  # #2 allowlisted


def write_2026_11_28(cli: Cli) -> None:
    """On top of the 2026-11-23 evidence, upgraded: what the release before issue 30 (5f3facb)
    added, judged when taken: an environment without policies is of Unknown compliance, one
    with policies is judged by them."""
    cli.snapshot("prod", "app-1", "tool")  # #4 Unknown
    (cli.work / "rules.yml").write_text(
        "_schema: https://kosli.com/schemas/policy/environment/v1\n"
        "artifacts:\n  provenance:\n    required: true\n  trail-compliance:\n    required: true\n")
    cli.run("create", "policy", "house-rules", cli.file("rules.yml"))
    cli.run("create", "environment", "governed", "--type", "server")
    cli.run("attach-policy", "house-rules", "--environment", "governed")
    cli.snapshot("governed", "app-1")  # #1 compliant
    cli.snapshot("governed", "app-1", "app-2")  # #2 non-compliant
    cli.run("begin", "trail", "r3", "--flow", "shop")
    cli.artifact("app-3", "shop", "r3")
    cli.generic("review", "shop", "r3", True)
    cli.snapshot("governed", "app-3")  # #3 incomplete trail: non-compliant


JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="shop" tests="3" failures="0" errors="0" skipped="1" time="0.25"
             timestamp="2026-11-20T12:00:00">
    <testcase classname="shop.cart" name="adds an item" time="0.1"/>
    <testcase classname="shop.cart" name="removes an item" time="0.15"/>
    <testcase classname="shop.checkout" name="pays by card" time="0"><skipped/></testcase>
  </testsuite>
</testsuites>
"""
# An artifact in `staging` needs compliant line coverage and a decision on control RCTL-001.
TESTED = """_schema: https://kosli.com/schemas/policy/environment/v1
artifacts:
  attestations:
    - name: coverage
      type: custom:coverage
    - name: tests-pass
      type: decision
      for_control: RCTL-001
"""
# name: text of the other files the 2026-11-28b evidence reports.
DOCUMENTS = {
    "tested.yml": TESTED,
    "review.json": '{"reviewers": ["bob", "carol"], "approved": true}\n',
    "coverage-type.json": '{"type": "object", "properties": {"lines": {"type": "number"}}, '
                          '"required": ["lines"]}\n',
    "coverage.json": '{"lines": 91.5}\n',
    "junit/results.xml": JUNIT,
}


def write_2026_11_28b(cli: Cli) -> None:
    """On top of the 2026-11-28 evidence, upgraded: what the release before the transparency log
    (9188cd5, schema up to 0022) added that the CLI writes: environments with a description, a
    logical one of members, a control, a policy naming it, a service account with an API key
    that takes a snapshot (its audit events say so), and a trail with attestations of other
    types (generic with annotations and user data, one overridden; junit; custom; a decision).
    Approvals and actions have no CLI commands: not here."""
    for name, text in DOCUMENTS.items():
        (cli.work / name).parent.mkdir(parents=True, exist_ok=True)
        (cli.work / name).write_text(text)
    fp4 = fingerprint("app-4")
    cli.run("create", "environment", "staging", "--type", "server",
            "--description", "where releases wait for prod")
    cli.run("create", "environment", "everywhere", "--type", "logical",
            "--included-environments", "prod,governed", "--description", "prod and governed")
    cli.run("create", "control", "RCTL-001", "--name", "Tests pass",
            "--description", "every release passes its tests")
    cli.run("create", "policy", "tested", cli.file("tested.yml"))
    cli.run("attach-policy", "tested", "--environment", "staging")
    cli.run("create", "service-account", "deployer", "--privilege", "snapshotter",
            "--description", "takes snapshots")
    created = cli.run("create", "api-key", "--service-account", "deployer", "--description",
                      "key for the deployer", "--expires-at", "2030-01-01", "--output", "json")
    cli.run("begin", "trail", "r4", "--flow", "shop", "--description", "release 4")
    cli.artifact("app-4", "shop", "r4")
    cli.run("attest", "generic", "--name", "review", "--flow", "shop", "--trail", "r4",
            "--compliant=true", "--annotate", "ticket=SHOP-4", "--annotate", "reviewers=2",
            "--user-data", cli.file("review.json"))
    cli.generic("scan", "shop", "r4", False, artifact="app-4")
    cli.generic("scan", "shop", "r4", True, artifact="app-4")  # overrides the failed one
    cli.run("attest", "junit", "--name", "unit-tests", "--flow", "shop", "--trail", "r4",
            "--results-dir", cli.file("junit"))
    cli.run("create", "attestation-type", "coverage", "--description", "line coverage",
            "--schema", cli.file("coverage-type.json"), "--jq", ".lines >= 80")
    cli.run("attest", "custom", "--type", "coverage", "--name", "coverage", "--flow", "shop",
            "--trail", "r4", "--fingerprint", fp4, "--attestation-data", cli.file("coverage.json"))
    cli.attest("decision", "tests-pass", "shop", "r4", True, "app-4", "--control", "RCTL-001",
               "--description", "unit tests pass")
    cli.snapshot("staging", "app-4")  # #1 compliant
    cli.run("snapshot", "server", "staging", "--paths", "app-3,app-4",  # #2 app-3 is not
            token=json.loads(created.stdout)["key"])
    cli.snapshot("governed", "app-1", "app-4")  # #4 compliant
    cli.snapshot("prod", "app-4")  # #5 Unknown


def write_2026_11_28c(cli: Cli) -> None:
    """On top of the 2026-11-28b evidence, upgraded: what the first release of the transparency
    log (79150c8, schema up to 0023) logged as it was written: a trail begun, an artifact
    reported, 36 attestations (one overridden) and two snapshots, 41 entries, so that the log
    has subtrees of five levels and the level-0 tile is partial. The log's signing key is the
    fixture's `log.key` (make_fixture), so its checkpoints are signed alike after an upgrade."""
    cli.run("begin", "trail", "r5", "--flow", "shop", "--description", "release 5")
    cli.artifact("app-5", "shop", "r5")
    cli.generic("review", "shop", "r5", True)
    cli.generic("scan", "shop", "r5", False, artifact="app-5")
    cli.generic("scan", "shop", "r5", True, artifact="app-5")  # overrides the failed one
    for n in range(33):
        cli.generic(f"check-{n:02d}", "shop", "r5", n % 5 != 0)
    cli.snapshot("staging", "app-5")  # #3 app-5 has no tested attestation
    cli.snapshot("prod", "app-4", "app-5")  # #6 Unknown


# The flow `evolving`'s templates: the first, and the one that replaced it after trail e1 was
# begun, which also wants an `sbom` of the artifact `app`; trail e3's own.
EVOLVING = {"evolving-1.yml": TEMPLATE,
            "evolving-2.yml": TEMPLATE + "        - name: sbom\n          type: generic\n",
            "own.yml": "version: 1\ntrail:\n  attestations:\n    - name: sign-off\n"
                       "      type: generic\n"}


def write_2026_12_02(cli: Cli) -> None:
    """On top of the 2026-11-28c evidence, upgraded: what the release before issue 44 (1a75db8,
    schema up to 0024) judged a trail by, its flow's template as it is when read, and artifact
    ids made of their row ids. Flow `evolving`: trail e1 begun, its artifact app-6 reported and
    attested (`kosli assert artifact` passes) before the flow's template changed to want an
    sbom of it too; e2 begun after (app-7), e3 with a template of its own, e4 whose app-8 has
    all its own evidence while the trail lacks its review. That release answers e1 by the new
    template (INCOMPLETE, the assert fails) and app-8 COMPLIANT: upgraded, every trail answers
    as it did, pinned to the template of the upgrade and judged by the rule of the upgrade."""
    for name, text in EVOLVING.items():
        (cli.work / name).write_text(text)
    cli.run("create", "flow", "evolving", "--template-file", cli.file("evolving-1.yml"))
    cli.run("begin", "trail", "e1", "--flow", "evolving")
    cli.artifact("app-6", "evolving", "e1")
    cli.generic("review", "evolving", "e1", True)
    cli.generic("scan", "evolving", "e1", True, artifact="app-6")
    cli.run("assert", "artifact", cli.file("app-6"), "--artifact-type", "file", "--flow",
            "evolving")  # passes: checked
    cli.run("create", "flow", "evolving", "--template-file", cli.file("evolving-2.yml"))
    cli.run("begin", "trail", "e2", "--flow", "evolving")
    cli.artifact("app-7", "evolving", "e2")
    cli.generic("review", "evolving", "e2", True)
    cli.generic("scan", "evolving", "e2", True, artifact="app-7")
    cli.generic("sbom", "evolving", "e2", True, artifact="app-7")
    cli.run("begin", "trail", "e3", "--flow", "evolving", "--template-file", cli.file("own.yml"))
    cli.generic("sign-off", "evolving", "e3", True)
    # e4: app-8 has all the template wants of it, the trail lacks its review; that release
    # answers app-8 COMPLIANT (what the trail needs did not count for its artifacts)
    cli.run("begin", "trail", "e4", "--flow", "evolving")
    cli.artifact("app-8", "evolving", "e4")
    cli.generic("scan", "evolving", "e4", True, artifact="app-8")
    cli.generic("sbom", "evolving", "e4", True, artifact="app-8")
    cli.snapshot("prod", "app-6", "app-7")  # #7 Unknown


def repository(name: str) -> tuple[str, ...]:
    """The CLI's flags naming a repository (ID, name and URL: what it needs to report one)."""
    return ("--repo-id", f"id-{name}", "--repository", f"acme/{name}",
            "--repo-url", f"https://github.com/acme/{name}", "--repo-provider", "github")


def write_2026_12_02b(cli: Cli) -> None:
    """On top of the 2026-12-02 evidence, upgraded: what the release before issue 48's kept list
    positions (cd2d0a4, schema up to 0032) wrote, so that every paged list runs to several pages
    of 2 or 3 items, its rows written by several releases: flow shop's trails r6..r12 (each of
    a repository of its own; their reviews, artifacts app-10..app-13 of one more repository and
    their scans, a decision of RCTL-001 in each and of a second control in some, which is
    edited, archived and restored), one more attestation of r5 after them, seven approvals
    (through REST: the CLI has no command for them), three snapshots of prod (its events and
    deployments), and service accounts and keys made, changed and removed (the membership audit
    log)."""
    cli.run("create", "control", "RCTL-002", "--name", "Reviewed",
            "--description", "every release is reviewed")
    for n in range(6, 13):
        trail, artifact = f"r{n}", f"app-{n + 4}" if n <= 9 else None
        if n in (9, 12):  # RCTL-002's later decisions are of a later version
            cli.run("update", "control", "RCTL-002", "--description", f"reviewed, from r{n} on")
        cli.run("begin", "trail", trail, "--flow", "shop", "--description", f"release {n}",
                *repository(f"svc-{n}"))
        if artifact:
            cli.artifact(artifact, "shop", trail, *repository("shop-api"))
            cli.generic("scan", "shop", trail, True, artifact=artifact)
        cli.generic("review", "shop", trail, n % 3 != 0)
        cli.attest("decision", "tests-pass", "shop", trail, n % 4 != 0, artifact,
                   "--control", "RCTL-001")
        if n % 3 == 0:
            cli.attest("decision", "reviewed", "shop", trail, n != 9, None, "--control", "RCTL-002")
    cli.generic("late-check", "shop", "r5", True)
    cli.run("archive", "control", "RCTL-002")
    cli.run("unarchive", "control", "RCTL-002")
    for number in range(1, 8):
        cli.post(f"/api/v2/approvals/{ORG}/shop", {
            "artifact_fingerprint": fingerprint(f"app-{10 + number % 4}"),
            "description": f"approval {number}", "src_commit_list": [cli.commit],
            **({"environment": "prod"} if number % 2 else {}),
            "approvals": [{"state": "APPROVED" if number != 5 else "UNAPPROVED",
                           "comment": "looked", "approved_by": "carol",
                           "approval_url": f"https://review.example/{number}"}]})
    cli.snapshot("prod", "app-10", "app-11")  # #8 Unknown
    cli.snapshot("prod", "app-10", "app-12")  # #9 Unknown
    cli.snapshot("prod", "app-13")  # #10 Unknown
    keys: dict[tuple[str, int], str] = {}
    for account, privilege in (("auditor", "reader"), ("builder", "member")):
        cli.run("create", "service-account", account, "--privilege", privilege)
        for n in range(2):
            keys[account, n] = json.loads(cli.run(
                "create", "api-key", "--service-account", account, "--description",
                f"{account} key {n}", "--output", "json").stdout)["id"]
    cli.run("rotate", "api-key", keys["builder", 0], "--service-account", "builder",
            "--grace-period-hours", "1", "--output", "json")
    cli.run("delete", "api-key", keys["builder", 1], "--service-account", "builder", "--yes")
    cli.run("update", "service-account", "auditor", "--description", "reads evidence")
    cli.run("delete", "service-account", "auditor", "--yes")


# Each release's evidence, in order: a fixture holds the evidence of its release and of every
# release before it, each written by its own code.
WRITERS: dict[str, Callable[[Cli], None]] = {
    "2026-11-23": write_2026_11_23, "2026-11-28": write_2026_11_28,
    "2026-11-28b": write_2026_11_28b, "2026-11-28c": write_2026_11_28c,
    "2026-12-02": write_2026_12_02, "2026-12-02b": write_2026_12_02b}
# What the reads cover: environments and how many snapshots each has, flows and their trails.
SNAPSHOTS = {"2026-11-23": {"prod": 3, "edge": 2},
             "2026-11-28": {"prod": 4, "edge": 2, "governed": 3},
             "2026-11-28b": {"prod": 5, "edge": 2, "governed": 4, "staging": 2, "everywhere": 0},
             "2026-11-28c": {"prod": 6, "edge": 2, "governed": 4, "staging": 3, "everywhere": 0},
             "2026-12-02": {"prod": 7, "edge": 2, "governed": 4, "staging": 3, "everywhere": 0},
             "2026-12-02b": {"prod": 10, "edge": 2, "governed": 4, "staging": 3, "everywhere": 0}}
TRAILS = {"2026-11-23": {"shop": ["r1", "r2"], "tools": ["t1"]},
          "2026-11-28": {"shop": ["r1", "r2", "r3"], "tools": ["t1"]},
          "2026-11-28b": {"shop": ["r1", "r2", "r3", "r4"], "tools": ["t1"]},
          "2026-11-28c": {"shop": ["r1", "r2", "r3", "r4", "r5"], "tools": ["t1"]},
          "2026-12-02": {"shop": ["r1", "r2", "r3", "r4", "r5"], "tools": ["t1"],
                         "evolving": ["e1", "e2", "e3", "e4"]},
          "2026-12-02b": {"shop": [f"r{n}" for n in range(1, 13)], "tools": ["t1"],
                          "evolving": ["e1", "e2", "e3", "e4"]}}


# The end of a window of time that holds every record (2033-05-18).
WHENEVER = 2_000_000_000


def pages(path: str, total: int, per_page: int, *orders: str) -> list[str]:
    """The reads of a list of `total` items at `per_page` a page: its first, middle, last and
    past-the-last page, with each of `orders` (a query; none: the list's default order)."""
    last = -(-total // per_page)
    return [f"{path}{'&' if '?' in path else '?'}{order}{'&' if order else ''}page={page}"
            f"&per_page={per_page}"
            for order in orders or ("",) for page in sorted({1, (last + 1) // 2, last, last + 1})]


# Reads of what a release added, from that release on.
LATER_READS = {"2026-11-28b": [
    f"/api/v2/artifacts/{ORG}/shop/fingerprint/{fingerprint('app-4')}",
    *(f"/api/v2/attestations/{ORG}/shop/trail/r4/{name}"
      for name in ("review", "unit-tests", "tests-pass")),
    *(f"/api/v2/attestations/{ORG}/shop/artifact/{fingerprint('app-4')}/{name}"
      for name in ("scan", "coverage")),
    f"/api/v2/custom-attestation-types/{ORG}/coverage",
    f"/api/v2/controls/{ORG}/RCTL-001", f"/api/v2/controls/{ORG}/RCTL-001/decisions",
    f"/api/v2/controls/{ORG}/RCTL-001/coverage", f"/api/v2/policies/{ORG}/tested",
    f"/api/v2/service-accounts/{ORG}/deployer", f"/api/v2/service-accounts/{ORG}/deployer/api-keys",
    f"/api/v2/membership-audit-log/{ORG}",
    *(f"/api/v2/environments/{ORG}/{env}/auditlog" for env in SNAPSHOTS["2026-11-28b"])],
    "2026-11-28c": [
        f"/api/v2/artifacts/{ORG}/shop/fingerprint/{fingerprint('app-5')}",
        f"/api/v2/attestations/{ORG}/shop/trail/r5/review",
        f"/api/v2/attestations/{ORG}/shop/artifact/{fingerprint('app-5')}/scan",
        f"/api/v2/attestations/{ORG}?flow=shop&per_page=50",
        f"/api/v2/transparency/{ORG}/public-key", f"/api/v2/transparency/{ORG}/checkpoint"],
    "2026-12-02": [
        f"/api/v2/flows/{ORG}/evolving",
        *(f"/api/v2/artifacts/{ORG}/evolving/fingerprint/{fingerprint(name)}"
          for name in ("app-6", "app-7", "app-8")),
        *(f"/api/v2/asserts/{ORG}/fingerprint/{fingerprint(name)}?flow_name=evolving"
          for name in ("app-6", "app-8")),
        f"/api/v2/trails/{ORG}/evolving"],
    # every paged list's first, middle, last and past-the-last page, in each order it takes:
    # what keeping each item's position in its lists (issue 48) must answer alike
    "2026-12-02b": [
        *pages(f"/api/v2/trails/{ORG}/shop", 12, 3),
        *pages(f"/api/v2/trails/{ORG}", 17, 3),
        *pages(f"/api/v2/trails/{ORG}?flow=shop", 12, 3),  # kosli list trails --flow shop
        *pages(f"/api/v2/attestations/{ORG}/shop", 69, 3),
        *pages(f"/api/v2/attestations/{ORG}/shop?trail_name=r5", 37, 3),
        *pages(f"/api/v2/artifacts/{ORG}/shop", 9, 2),
        *pages(f"/api/v2/artifacts/{ORG}?flow_name=shop", 9, 2),
        *pages(f"/api/v2/artifacts/{ORG}?repo_name=acme/shop-api", 4, 2),
        *pages(f"/api/v2/repos/{ORG}", 8, 3, "", "sort_direction=desc"),
        # as kosli list snapshots and kosli log environment ask too (--reverse or not)
        *pages(f"/api/v2/snapshots/{ORG}/prod", 10, 3, "", "interval=&reverse=false",
               "interval=&reverse=true"),
        *pages(f"/api/v2/environments/{ORG}/prod/events", 23, 3, "", "interval=&reverse=false",
               "interval=&reverse=true"),
        *pages(f"/api/v2/approvals/{ORG}/shop", 7, 2),
        *pages(f"/api/v2/membership-audit-log/{ORG}", 12, 3, "", "sort_dir=asc",
               "sort_dir=desc"),
        *pages(f"/api/v2/controls/{ORG}/RCTL-001/decisions", 8, 3, "", "sort_direction=asc",
               "sort_direction=desc"),
        *pages(f"/api/v2/controls/{ORG}/RCTL-002/decisions", 3, 2),
        *pages(f"/api/v2/environments/{ORG}", 5, 2),
        *pages(f"/api/v2/flows/{ORG}", 3, 2),
        *pages(f"/api/v2/controls/{ORG}", 2, 1),
        *pages(f"/api/v2/controls/{ORG}/RCTL-002/versions", 5, 2, "sort_direction=asc",
               "sort_direction=desc"),
        *pages(f"/api/v2/controls/{ORG}/RCTL-001/coverage", 5, 2),
        # lists in a window of time: one that holds every record, whenever read
        *pages(f"/api/v2/builds/{ORG}?start_ts=0&end_ts={WHENEVER}", 13, 3),
        *pages(f"/api/v2/deployments/{ORG}?start_ts=0&end_ts={WHENEVER}", 22, 3),
        *pages(f"/api/v2/repos/{ORG}/acme/shop-api/deployments?start_ts=0&end_ts={WHENEVER}", 4,
               2),
        *(read.replace("per_page=", "page_size=") for read in pages(
            f"/api/v2/environments/{ORG}/prod/deployments?from=2020-01-01T00:00:00"
            "&to=2033-01-01T00:00:00", 12, 3))]}
# Pages as the official CLI asks for them and prints them (`--output json`), from 2026-12-02b on
# (the snapshots of one that ends before the latest, whose duration lasts until the read).
CLI_PAGES = [("list", "trails", "--flow", "shop", "--page", "2", "--page-limit", "3"),
             ("list", "snapshots", "prod", "--reverse", "--page", "2", "--page-limit", "3"),
             ("log", "environment", "prod", "--page", "4", "--page-limit", "3"),
             ("list", "artifacts", "--flow", "shop", "--page", "3", "--page-limit", "2")]
# The transparency log's reads, from the release that began it: every entry, its inclusion
# proof in the whole log, the consistency proof of every earlier size, and the tiles.
LOGGED_FROM = "2026-11-28c"


def reads(cli: Cli, release: str, log_size: int | None = None) -> dict[str, Any]:
    """Every read of the evidence written up to `release`, by name: REST answers (status and
    JSON) and what `kosli assert snapshot` says of each snapshot (exit code). The log's proofs
    and tiles are read at `log_size` (what the release's log held), else at its size now."""
    found: dict[str, Any] = {}
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {KEY}"

    def get(path: str) -> Any:
        answer = session.get(cli.host + path, timeout=30)
        kind = answer.headers.get("Content-Type", "")
        if kind.startswith("text/csv"):  # rows by column
            body: Any = list(csv.DictReader(io.StringIO(answer.text)))
        elif kind.startswith("text/plain"):  # a checkpoint, a key
            body = answer.text
        elif kind.startswith("application/octet-stream"):  # a tile
            body = base64.b64encode(answer.content).decode()
        else:
            body = answer.json()
        if path.startswith("/api/v2/snapshots/") and path.count("/") == 5 and answer.ok:
            for item in body:  # the latest snapshot lasts until the read: not a stored fact
                if not item["to"]:
                    del item["duration"]
        found[f"GET {path}"] = {"status": answer.status_code, "body": body}
        return body

    get(f"/api/v2/environments/{ORG}")
    for env, count in SNAPSHOTS[release].items():
        get(f"/api/v2/environments/{ORG}/{env}")
        get(f"/api/v2/snapshots/{ORG}/{env}")
        get(f"/api/v2/environments/{ORG}/{env}/events")
        for index in range(1, count + 1):
            get(f"/api/v2/snapshots/{ORG}/{env}/{index}")
            found[f"kosli assert snapshot {env}#{index}"] = cli.run(
                "assert", "snapshot", f"{env}#{index}", check=False).returncode
    get(f"/api/v2/flows/{ORG}")
    for flow, trails in TRAILS[release].items():
        for trail in trails:
            get(f"/api/v2/trails/{ORG}/{flow}/{trail}")
    for name in ("app-1", "app-2", "tool"):
        get(f"/api/v2/artifacts/{ORG}/{'tools' if name == 'tool' else 'shop'}/fingerprint/"
            f"{fingerprint(name)}")
    releases = list(WRITERS)
    for later in releases[1:releases.index(release) + 1]:
        for path in LATER_READS.get(later, []):
            get(path)
    if releases.index(release) >= releases.index("2026-12-02"):
        for name in ("app-6", "app-7"):
            found[f"kosli assert artifact {name}"] = cli.run(
                "assert", "artifact", cli.file(name), "--artifact-type", "file", "--flow",
                "evolving", check=False).returncode
    if releases.index(release) >= releases.index("2026-12-02b"):
        # the organization's attestations, paged by cursor: the first page and the next
        first = get(f"/api/v2/attestations/{ORG}?per_page=3")
        get(first["_links"]["next"].removeprefix(PUBLIC_URL))
        for command in CLI_PAGES:
            shown = cli.run(*command, "--output", "json", check=False)
            found[f"kosli {' '.join(command)}"] = {
                "exit": shown.returncode, "body": json.loads(shown.stdout) if shown.returncode == 0
                else shown.stdout + shown.stderr}
    if releases.index(release) >= releases.index(LOGGED_FROM):
        log = f"/api/v2/transparency/{ORG}"
        now = int(get(f"{log}/checkpoint").split("\n")[1])
        size = log_size or now
        for index in range(size):
            get(f"{log}/entries/{index}")
            get(f"{log}/proofs/inclusion?index={index}&tree_size={size}")
            get(f"{log}/proofs/consistency?first={index + 1}&second={size}")
        get(f"{log}/tile/0/000.p/{size}")
        get(f"{log}/tile/0/000.p/32")
    return found


def dump(answers: dict[str, Any]) -> str:
    return json.dumps(answers, indent=1, sort_keys=True) + "\n"
