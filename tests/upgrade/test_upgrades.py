"""Upgrades keep history: a database written by an earlier release's own code (tests/upgrade/
fixtures, made by `python -m tests.upgrade.make_fixture`), upgraded by this release, answers every
read as that release answered it, on both engines and through the official CLI.

What a later release shows in addition (new fields, new entries) is not a change; a fact the
old release answered that this one answers otherwise is, unless listed below with its reason.
The 2026-11-28 fixture holds snapshots of 2026-11-23 that its release, through migration 0011 of
that day, showed as Unknown: those get back what 2026-11-23 showed (migration 0018), and every
later fixture holds them so; a verdict is held to the first release that answered it."""

from __future__ import annotations

import base64
import json
import pathlib
import re
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

from evidence_grpc.domain.transparency import log
from evidence_grpc.domain.transparency.kept import SUFFIX as KEPT_SUFFIX
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import LogEntry, Organization
from tests.conftest import (
    POSTGRES_URL,
    _close_shared_database,
    kosli_binary,
    start_server,
    stop_server,
)
from tests.upgrade.make_fixture import FIXTURES, postgres_copy
from tests.upgrade.scenario import (
    EVOLVING,
    KEY,
    ORG,
    PUBLIC_URL,
    SNAPSHOTS,
    WRITERS,
    Cli,
    fingerprint,
    reads,
)

RELEASES = list(WRITERS)
# Changes of a fact by design, by release: (read, fact path) patterns and why.
# After 2026-11-28c: an artifact's id in the hosted service's UUID shape (8-4-4-4-8 hex digits) and
# its html URL naming that report (`?artifact_id=`), as the published snapshot answers have it.
ARTIFACT_IDS = [
    (r"GET /api/v2/artifacts/.*", r"^/body/(id|html_url)$", "an artifact's id and html URL"),
    (r"GET /api/v2/trails/.*", r"/artifacts_statuses/[^/]+/artifact_id$", "an artifact's id"),
]
# After 2026-11-28c (issue 44): an artifact's history in the hosted service's words, as `kosli get
# artifact` prints it ("cli reported"; no line for the commit). Its verdicts are not in it.
HISTORY_WORDS = (r"GET /api/v2/artifacts/.*", r"^/body/history",
                 "an artifact's history in the hosted service's words")
# After 2026-12-02: a trail names the template it is judged by (issue 44), null before.
TEMPLATE_IDS = [(r"GET /api/v2/(trails|asserts)/.*", r"/flow_template_id$",
                 "the template judging a trail")]
# After 2026-12-02: each flow of an assert answer carries the artifact's state in its trail (issue
# 44: every compliance field from one evaluation), the trail's own before.
ASSERTED_FLOWS = (r"GET /api/v2/asserts/.*",
                  r"^/body/flows\[\d+\]/compliance_status/(status|is_compliant)$",
                  "each flow of an assert answer carries the artifact's state there")
# After 2026-12-02: each log's genesis appended by migration 0026 (issue 45): the checkpoint is of
# one entry more.
GENESIS = (rf"GET /api/v2/transparency/{ORG}/checkpoint", r"^/body$",
           "the log's checkpoint, its genesis appended")
BY_DESIGN: dict[str, list[tuple[str, str, str]]] = {
    "2026-11-23": [
        *ARTIFACT_IDS, *TEMPLATE_IDS,
        (r"GET /api/v2/snapshots/.*", r"/deployment_diff$",
         "deployment diffs (2026-11-25): absent where an artifact replaced nothing"),
        (r"GET /api/v2/artifacts/.*", r"^/body/(created_at|last_modified_at)$",
         "an artifact's times as numeric text, as the published shapes have them (2026-11-24)"),
        (r"GET /api/v2/artifacts/.*", r"^/body/history",
         "an artifact's history dates every start and exit, as the published shapes (2026-11-24)"),
    ],
    "2026-11-28": [*ARTIFACT_IDS, *TEMPLATE_IDS, HISTORY_WORDS],
    "2026-11-28b": [*ARTIFACT_IDS, *TEMPLATE_IDS, HISTORY_WORDS],
    "2026-11-28c": [*ARTIFACT_IDS, *TEMPLATE_IDS, HISTORY_WORDS, GENESIS],
    # artifacts keep their ids (migration 0025)
    "2026-12-02": [*TEMPLATE_IDS, HISTORY_WORDS, ASSERTED_FLOWS, GENESIS],
    "2026-12-02b": [],
}
# The facts of an answer that are a verdict (besides `kosli assert snapshot`'s exit code).
VERDICT = re.compile(r"/(compliant|artifact_compliance|snapshot_compliance|state|annotation/type"
                     r"|artifact_compliance_count/\w+|reasons_for_incompliance.*)$")
# List items are told apart by these fields, not by position: a later release's extra entries
# shift positions.
IDENTITIES = (("snapshot_index", "type", "sha256"), ("index",), ("name", "fingerprint"),
              ("name",), ("type", "timestamp"))


def _identity(item: Any) -> str | None:
    if isinstance(item, dict):
        for keys in IDENTITIES:
            if all(k in item for k in keys):
                return ",".join(f"{k}={item[k]}" for k in keys)
    return None


def facts(value: Any, path: str = "", in_order: str | None = None) -> dict[str, Any]:
    """Every scalar of an answer by its path (list items by identity where they have one, but
    those of the list at path `in_order` by position, and each list's length); booleans tagged,
    so that True is not the number 1."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items()
                for k, v in facts(item, f"{path}/{key}", in_order).items()}
    if isinstance(value, list):
        ids = [_identity(item) for item in value]
        keyed = path != in_order and None not in ids and len(set(ids)) == len(ids)
        found = {f"{path}#len": len(value)}
        for i, item in enumerate(value):
            found.update(facts(item, f"{path}[{ids[i] if keyed else i}]", in_order))
        return found
    return {path: ("bool", value) if isinstance(value, bool) else value}


def _page_items(read: str, answer: Any) -> str | None:
    """Where a page of a list (a read with `page=`, or the CLI's `--page`) holds its items, which
    are compared in the order the page answered them: the body, or the one list in it."""
    body = answer.get("body") if re.search(r"[?&]page=|--page ", read) else None
    if isinstance(body, list):
        return "/body"
    listed = [key for key, item in body.items() if isinstance(item, list)] \
        if isinstance(body, dict) else []
    return f"/body/{listed[0]}" if len(listed) == 1 else None


def all_facts(answers: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {(read, path): value for read, answer in answers.items()
            for path, value in facts(answer, in_order=_page_items(read, answer)).items()}


def answers_of(release: str, engine: str) -> dict[str, Any]:
    return json.loads((FIXTURES / release / f"answers-{engine}.json").read_text())


@pytest.fixture
def upgraded(request: pytest.FixtureRequest, engine: str, tmp_path: pathlib.Path
             ) -> Iterator[tuple[str, Cli, str]]:
    """(release, the CLI against this release serving that release's fixture database, the
    database's URL)."""
    release = request.param
    if engine == "sqlite":
        shutil.copy(FIXTURES / release / "sqlite.db", tmp_path / "evidence.db")
        database = f"sqlite:///{tmp_path / 'evidence.db'}"
        restored = None
    else:
        restored = postgres_copy(POSTGRES_URL, FIXTURES / release / "postgresql.sql")
        database = restored.__enter__()
    # the fixture's transparency log key, that its checkpoints were signed with, and the largest
    # checkpoint of each log that the release signed, kept beside it (from 2026-12-02b): a log
    # the upgrade made no extension of is refused at start
    key = FIXTURES / release / "log.key"
    signed = ["--log-key-file", str(shutil.copy(key, tmp_path / "log.key"))] if key.exists() else []
    kept = key.with_name(key.name + KEPT_SUFFIX)
    if kept.exists():
        shutil.copy(kept, tmp_path / kept.name)
    try:
        server = start_server(database, tmp_path, "--public-url", PUBLIC_URL, *signed,
                              bootstrap_with=None)
        try:
            yield release, Cli(kosli_binary(), server.http_url, tmp_path / "files"), database
        finally:
            stop_server(server)
    finally:
        if restored is not None:
            restored.__exit__(None, None, None)


def _recorded(fact: tuple[str, str], older: str, release: str) -> bool:
    """Whether `fact`, answered by `older`, is of a record that `release` made no newer: any
    snapshot's or event's, but an environment's state only while its latest snapshot is the
    same."""
    read, path = fact
    env = re.fullmatch(r"GET /api/v2/environments/[^/]+/([^/]+)", read)
    listed = re.match(r"/body\[name=([^\]]+)\]", path) \
        if re.fullmatch(r"GET /api/v2/environments/[^/]+", read) else None
    name = env or listed
    if name is None:
        return True
    return SNAPSHOTS[older].get(name.group(1)) == SNAPSHOTS[release].get(name.group(1))


def _changed(expected: dict[tuple[str, str], Any], got: dict[tuple[str, str], Any]
             ) -> dict[tuple[str, str], tuple[Any, Any]]:
    return {fact: (value, got.get(fact, "<absent>")) for fact, value in expected.items()
            if got.get(fact, "<absent>") != value}


def _templates_kept(cli: Cli) -> None:
    """Trails begun before the upgrade are pinned to their flow's template as of the upgrade
    (e1, e2, e4) or their own (e3): changing the flow's template afterwards leaves them, their
    artifacts' asserts and their ids as they were, and judges the trails begun after it (e5),
    where what the template requires of the trail counts for its artifacts too."""
    trail = f"{cli.host}/api/v2/trails/acme/evolving"
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {KEY}"
    before = {name: session.get(f"{trail}/{name}", timeout=30).json() for name in ("e1", "e2", "e3")}
    pinned = {name: answer["compliance_status"]["flow_template_id"] for name, answer in before.items()}
    assert pinned["e1"] == pinned["e2"] != pinned["e3"] and None not in pinned.values()

    (cli.work / "evolving-1.yml").write_text(EVOLVING["evolving-1.yml"])
    cli.run("create", "flow", "evolving", "--template-file", cli.file("evolving-1.yml"))
    cli.run("begin", "trail", "e5", "--flow", "evolving")
    cli.artifact("app-9", "evolving", "e5")
    cli.generic("scan", "evolving", "e5", True, artifact="app-9")

    assert {name: session.get(f"{trail}/{name}", timeout=30).json() for name in before} == before
    assert cli.run("assert", "artifact", cli.file("app-6"), "--artifact-type", "file", "--flow",
                   "evolving", check=False).returncode == 1  # its answer before the upgrade
    after = session.get(f"{trail}/e5", timeout=30).json()
    assert after["compliance_status"]["flow_template_id"] not in pinned.values()
    assert after["template"]["content"] == EVOLVING["evolving-1.yml"]
    # e4's app-8 lacks nothing of its own and stays COMPLIANT (compared above); e5's app-9,
    # begun after the upgrade, lacks its trail's review
    assert after["compliance_status"]["artifacts_statuses"]["app"]["status"] == "INCOMPLETE"
    assert cli.run("assert", "artifact", cli.file("app-8"), "--artifact-type", "file", "--flow",
                   "evolving", check=False).returncode == 0

    # An id answered before the upgrade still finds its report, by the API and the web page its
    # html_url names.
    held = before["e1"]["compliance_status"]["artifacts_statuses"]["app"]["artifact_id"]
    assert held == "00000000-0000-0000-0000-00000007"
    report = f"{cli.host}/api/v2/artifacts/acme/evolving/fingerprint/{fingerprint('app-6')}"
    found = session.get(report, params={"artifact_id": held}, timeout=30)
    assert (found.status_code, found.json()["id"], found.json()["trail_name"]) == (200, held, "e1")
    page = session.get(found.json()["html_url"].replace(PUBLIC_URL, cli.host), timeout=30)
    assert page.status_code == 200 and "e1" in page.text


def _new_artifacts_name_their_own_entry(cli: Cli) -> None:
    """An artifact reported after the upgrade (app-9, by _templates_kept) answers its own log
    entry as its log_index; those reported before keep their trail event's (the recorded
    answers, compared above)."""
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {KEY}"
    answer = session.get(f"{cli.host}/api/v2/artifacts/acme/evolving/fingerprint/"
                         f"{fingerprint('app-9')}", timeout=30).json()
    entry = session.get(f"{cli.host}/api/v2/transparency/{ORG}/entries/{answer['log_index']}",
                        timeout=30).json()
    leaf = json.loads(base64.b64decode(entry["leaf"]))
    assert (leaf["kind"], leaf["fingerprint"]) == ("artifact", fingerprint("app-9")), leaf


# What a release's change promises of the data it upgrades: checked by the test below once its
# reads are done, in order, as they change the data (each upgrade costs a server start).
PROMISES: dict[str, list[Callable[[Cli], None]]] = {
    "2026-12-02": [_templates_kept, _new_artifacts_name_their_own_entry]}


@pytest.mark.parametrize("upgraded", RELEASES, indirect=True)
def test_an_upgraded_database_answers_as_its_release_did(upgraded: tuple[str, Cli, str],
                                                         engine: str) -> None:
    release, cli, database = upgraded
    recorded = answers_of(release, engine)
    checkpoint = recorded.get(f"GET /api/v2/transparency/{ORG}/checkpoint")
    # the log's proofs at the size it had: a log that grew since answers them alike
    got = all_facts(reads(cli, release, int(checkpoint["body"].split("\n")[1]) if checkpoint
                          else None))
    changed = _changed(all_facts(recorded), got)

    # Snapshots an earlier release took and judged answer as that release answered them: each
    # verdict as the first release that answered it (a later one may have answered it otherwise,
    # as 2026-11-28 did the Unknowns of 0011 that 0018 undid).
    earlier = RELEASES[:RELEASES.index(release)]
    judged: set[tuple[str, str]] = set()
    for older in earlier:
        history = {fact: value for fact, value in all_facts(answers_of(older, engine)).items()
                   if (VERDICT.search(fact[1]) or fact[0].startswith("kosli assert"))
                   and fact in got and fact not in judged and _recorded(fact, older, release)}
        assert _changed(history, got) == {}, older
        judged |= history.keys()
        changed = {fact: change for fact, change in changed.items() if fact not in history}

    unexplained = {fact: change for fact, change in changed.items()
                   if not any(re.fullmatch(read, fact[0]) and re.search(path, fact[1])
                              for read, path, _ in BY_DESIGN[release])}
    assert unexplained == {}, "\n".join(f"{read} {path}: {was!r} -> {now!r}" for (read, path), (
        was, now) in sorted(unexplained.items()))
    for promise in PROMISES.get(release, []):
        promise(cli)
    _logs_verify(database)


def _logs_verify(database: str) -> None:
    """Every organization's log verifies, its geneses (migrations 0026, 0030) counting the records
    from before the log and every later one having its entry (the release's reads and promises wrote
    some)."""
    storage.init_database(database)
    try:
        with storage.database.connection_context():
            orgs = list(Organization.select())
            assert orgs and {org.name: log.verify_log(org) for org in orgs} == {
                org.name: [] for org in orgs}
            assert all(LogEntry.select().where((LogEntry.organization == org)
                                               & (LogEntry.kind == log.BEGUN)).count() == 2
                       for org in orgs)  # 0026's and 0030's
    finally:
        _close_shared_database()


def test_a_page_is_compared_in_order_a_whole_list_by_identity() -> None:
    """The items of a page (a read with `page=`) are compared by position, as a page shows them;
    those of a whole list by identity (a later release's extra entries shift positions)."""
    def answer(*names: str) -> dict[str, Any]:
        return {"status": 200, "body": {"data": [{"name": name} for name in names],
                                        "pagination": {"total": len(names)}}}

    for read, compared_in_order in (("GET /api/v2/trails/acme/shop?page=1&per_page=2", True),
                                    ("kosli list trails --flow shop --page 1 --page-limit 2", True),
                                    ("GET /api/v2/trails/acme/shop?per_page=2", False),
                                    ("GET /api/v2/trails/acme/shop", False)):
        changed = _changed(all_facts({read: answer("r2", "r1")}), all_facts({read: answer("r1", "r2")}))
        assert bool(changed) == compared_in_order, read
