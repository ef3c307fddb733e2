"""Schema migrations on a database holding rows of the schema before them: 0006 learns the
repos of existing evidence and links artifacts and deployments to them; 0015, 0017; 0019 turns
names into ids; 0020 leaves notifications claimed before it to the claims of its own; 0021
adds the web pages' sessions; 0024 moves the transparency log's hashes into its entries; 0025
pins trails to their templates and keeps artifacts' ids; 0027 keeps what a trail's verdict is
made from; 0028 keeps witnesses' cosignatures; 0029 the rotations of the logs' key; 0030
commits to the rows of the kinds logged from 2026-12-02 on; 0031 counts the paged lists;
0032 what an artifact's latest manifest says; 0033 and 0035 number the paged lists; 0034 names
each decision's control as the summary's match found it and numbers each control's decisions
(both engines). 0011 and 0018, the verdicts of old snapshots, are tested in
tests/upgrade/test_legacy_verdicts.py."""

from __future__ import annotations

import json
import math
from typing import Any

import peewee
import pytest
from playhouse.migrations import Runner

from evidence_grpc.domain.governance import approvals
from evidence_grpc.domain.outbound import actions
from evidence_grpc.domain.runtime import deployments, environments
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import (
    Action,
    Approval,
    Artifact,
    ArtifactManifest,
    Attestation,
    Control,
    Deployment,
    DeploymentSeries,
    Environment,
    EnvironmentAuditEvent,
    EnvironmentEvent,
    Flow,
    FlowAlias,
    FlowTemplate,
    LogCheckpoint,
    LogCosignature,
    LogEntry,
    LogHead,
    LogKeyRotation,
    LogWitness,
    MembershipAuditEvent,
    Organization,
    OutboxMessage,
    Policy,
    PolicyVersion,
    Repo,
    Snapshot,
    Trail,
    TrailEvent,
    TrailManifest,
    User,
    WebSession,
)
from tests.conftest import _close_shared_database

REPO = {"id": "r-42", "name": "acme/demo", "url": "https://github.com/acme/demo"}


def every_page(read: Any) -> list:
    """The pages `read(number)` answers from page 1 up to the first empty one."""
    found, number = [], 1
    while page := read(number):
        found.append(page)
        number += 1
    return found


def test_0006_links_existing_evidence_to_repos(empty_database: str):
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0005_blob_chunks")
        stamp = 1_700_000_000.0
        times = {"created_at": stamp, "last_modified_at": stamp}
        org = Organization.insert(name="acme", **times).execute()
        flow = Flow.insert(organization=org, name="ci", **times).execute()
        # Columns of the old schema only: the repo links do not exist yet.
        trail = Trail.insert(flow=flow, name="t", repo_info=REPO, **times).execute()
        Artifact.insert(organization=org, flow=flow, trail=trail, fingerprint="a" * 64,
                        name="app", git_commit_info={"timestamp": stamp - 60}, **times).execute()
        env = Environment.insert(organization=org, name="prod", type="server", **times).execute()
        for index, fingerprint in ((1, "a" * 64), (2, "b" * 64)):
            Deployment.insert(organization=org, environment=env, snapshot_index=index,
                              artifact_name="app", fingerprint=fingerprint,
                              deployed_at=stamp + 100).execute()

        assert storage.migrate()[0] == "0006_repo_links"

        repo = Repo.get()
        assert (repo.repo_id, repo.name, repo.namespace_path) == ("r-42", "acme/demo", ["acme"])
        assert Artifact.get().repo_id == repo.id
        linked = {d.fingerprint: (d.repo_id, d.lead_time_seconds)
                  for d in Deployment.select()}
        assert linked == {"a" * 64: (repo.id, 160.0), "b" * 64: (None, None)}
    _close_shared_database()


def test_0015_copies_earlier_artifact_changes_into_the_environment_audit_log(empty_database: str):
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0014_actions")
        stamp = 1_700_000_000.0
        times = {"created_at": stamp, "last_modified_at": stamp}
        org = Organization.insert(name="acme", **times).execute()
        env = Environment.insert(organization=org, name="prod", type="server", **times).execute()
        EnvironmentEvent.insert_many([
            {"environment": env, "snapshot_index": 1, "type": "started", "artifact_name": "app",
             "fingerprint": "a" * 64, "was": 0, "now": 2, "reported_at": stamp},
            {"environment": env, "snapshot_index": 2, "type": "scaled", "artifact_name": "app",
             "fingerprint": "a" * 64, "was": 2, "now": 3, "reported_at": stamp + 5}]).execute()

        assert "0015_environment_audit" in storage.migrate()

        copied = [(e.event_type, e.timestamp, e.snapshot_index, e.details, e.actor)
                  for e in EnvironmentAuditEvent.select().order_by(EnvironmentAuditEvent.id)]
        assert copied == [("artifact_started", stamp, 1, {"was": 0, "now": 2}, ""),
                          ("artifact_scaled", stamp + 5, 2, {"was": 2, "now": 3}, "")]
    _close_shared_database()


def test_0017_packs_the_deployments_made_before_it(empty_database: str):
    """Deployments of two repos around a UTC midnight (one a hair before it, one without a
    lead time, one of no repo): after 0017 the statistics read from the packed series answer
    what the rows hold."""
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0016_deployment_series")
        midnight = 20_000 * 86400.0
        times = {"created_at": midnight, "last_modified_at": midnight}
        org = Organization.insert(name="acme", **times).execute()
        env = Environment.insert(organization=org, name="prod", type="server", **times).execute()
        repos = [Repo.insert(organization=org, repo_id=f"r-{n}", name=f"acme/{n}",
                             created_at=midnight, last_seen_at=midnight).execute()
                 for n in (1, 2)]
        rows = [(repos[0], math.nextafter(midnight, 0), 5.0), (repos[0], midnight, None),
                (repos[0], midnight + 100, 7.5), (repos[1], midnight - 3600, 1.0),
                (None, midnight + 1, None)]
        for index, (repo, at, lead) in enumerate(rows, 1):
            Deployment.insert(organization=org, environment=env, snapshot_index=index,
                              artifact_name="app", fingerprint=f"{index:064x}", deployed_at=at,
                              repo=repo, lead_time_seconds=lead).execute()

        assert "0017_packed_deployment_series" in storage.migrate()

        assert set(DeploymentSeries.select(DeploymentSeries.repo, DeploymentSeries.day).tuples()) \
            == {(repos[0], 19_999), (repos[0], 20_000), (repos[1], 19_999)}
        acme = Organization.get()
        [first] = deployments.deployment_statistics(acme, "r-1", start_ts=0).environments
        assert (first.deployed_at, first.lead_times) == \
            ([math.nextafter(midnight, 0), midnight, midnight + 100], [5.0, 7.5])
        [second] = deployments.deployment_statistics(acme, "r-2", start_ts=0).environments
        assert (second.deployed_at, second.lead_times) == ([midnight - 3600], [1.0])
    _close_shared_database()


def test_0019_turns_the_names_that_point_at_environments_and_flows_into_ids(empty_database: str):
    """Actions, a logical environment and approvals naming environments and flows: each name
    becomes the id of what has it (a renamed flow's former name: that flow); a name of nothing
    stays, answered as it was."""
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(
            target="0017_packed_deployment_series")
        stamp = 1_700_000_000.0
        times = {"created_at": stamp, "last_modified_at": stamp}
        org = Organization.insert(name="acme", **times).execute()
        other = Organization.insert(name="other", **times).execute()
        prod, stage = (Environment.insert(organization=org, name=name, type="server", **times)
                       .execute() for name in ("prod", "stage"))
        Environment.insert(organization=other, name="gone", type="server", **times).execute()
        logical = Environment.insert(organization=org, name="all", type="logical",
                                     included_environments=["prod", "gone", "stage"],
                                     **times).execute()
        ci, build = (Flow.insert(organization=org, name=name, **times).execute()
                     for name in ("ci", "build"))
        FlowAlias.insert(organization=org, name="old-build", flow=build).execute()
        rule = {"organization": org, "targets": [], "created_by": "alice", **times}
        Action.insert(number=1, name="envs", type="env", scopes=["stage", "gone", "prod"],
                      triggers=["ON_STARTED_ARTIFACT"], **rule).execute()
        Action.insert(number=2, name="flows", type="flow", scopes=["old-build", "nowhere", "ci"],
                      triggers=["ON_STARTED_TRAIL"], **rule).execute()
        for number, env_name in enumerate(("prod", "gone", None), 1):
            Approval.insert(organization=org, flow=ci, number=number, fingerprint="a" * 64,
                            artifact_name="app", environment=env_name, state="PENDING",
                            **times).execute()

        assert "0019_references_by_id" in storage.migrate()

        assert {a.name: a.scopes for a in Action.select()} == {
            "envs": [stage, "gone", prod], "flows": [build, "nowhere", ci]}
        assert Environment.get_by_id(logical).included_environments == [prod, "gone", stage]
        assert [(a.environment_id, a.environment) for a in Approval.select().order_by(
            Approval.number)] == [(prod, "prod"), (None, "gone"), (None, None)]
        # Answered by name as before, the names of nothing included.
        assert [a["environments" if a["type"] == "env" else "flows"]
                for a in actions.action_views(actions.list_actions(Organization.get_by_id(org)))
                ] == [["stage", "gone", "prod"], ["build", "nowhere", "ci"]]
        assert environments.member_names(Environment.get_by_id(logical)) == [
            "gone", "prod", "stage"]
        assert [approvals.approval_view(a)["environment"] for a in approvals.list_approvals(
            Organization.get_by_id(org), "ci", None, None)] == [None, "gone", "prod"]
    _close_shared_database()


def test_0020_gives_notifications_claimed_before_it_to_the_next_claim_when_their_lease_ends(
        empty_database: str):
    """Outbox rows of the release before have no lease token: one whose lease is still running
    (an old worker may be sending it) is not taken; one whose lease ended is claimed with a
    token, and its outcome recorded by that claim only."""
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0019_references_by_id")
        stamp = storage.now()
        times = {"created_at": stamp, "last_modified_at": stamp}
        org = Organization.insert(name="acme", **times).execute()
        action = Action.insert(organization=org, number=1, name="watch", type="env", targets=[],
                               scopes=[], triggers=["ON_STARTED_ARTIFACT"], created_by="alice",
                               **times).execute()
        ended, running = (OutboxMessage.insert(
            action=action, target_index=0, trigger="ON_STARTED_ARTIFACT", payload={},
            created_at=stamp, next_attempt_at=stamp, claimed_until=until).execute()
            for until in (stamp - 1, stamp + 60))

        assert storage.migrate()[0] == "0020_outbox_lease_tokens"  # (and those after it)

        assert [m.lease_token for m in OutboxMessage.select()] == [None, None]
        [claimed] = actions.claim()
        assert claimed.id == ended and claimed.lease_token is not None
        assert actions.record_outcome(claimed, None)
        stale = OutboxMessage.get_by_id(running)
        assert not actions.still_held(stale) and not actions.record_outcome(stale, None)
        assert OutboxMessage.get_by_id(ended).delivered_at is not None
        assert OutboxMessage.get_by_id(running).delivered_at is None
    _close_shared_database()


def test_0021_adds_the_web_sessions_table_that_goes_with_its_organization(empty_database: str):
    """A database of the release before has no sessions: after 0021 a session is stored (by
    hashes only) and goes with its organization."""
    from evidence_grpc.domain.identity import web_sessions

    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0020_outbox_lease_tokens")
        assert "web_session" not in db.get_tables()
        stamp = storage.now()
        org = Organization.insert(name="acme", created_at=stamp, last_modified_at=stamp).execute()

        assert "0021_web_sessions" in storage.migrate()

        assert {c.name for c in db.get_columns("web_session")} == {
            "id", "id_hash", "key_hash", "organization_id", "created_at", "last_seen_at"}
        session_id = web_sessions.open_session("k" * 64, "acme")
        assert web_sessions.opened_with(session_id) == ("k" * 64, "acme")
        assert WebSession.get().id_hash == web_sessions.hash_id(session_id)
        Organization.delete().where(Organization.id == org).execute()
        assert WebSession.select().count() == 0
    _close_shared_database()


def test_0024_moves_the_logs_subtree_hashes_into_the_entries_that_made_them(
        empty_database: str, monkeypatch: pytest.MonkeyPatch):
    """A log of the release before keeps each subtree's hash in log_hash: after 0024 each entry
    holds those its append made, the same bytes, so roots and proofs are unchanged; an entry
    whose hash was missing keeps those before it, and verify-log names it."""
    from evidence_grpc.domain.transparency import log, merkle

    kind = "migration-0024-test"
    # registered for this test only: the registry is the process's (test_leaves checks it)
    monkeypatch.setitem(log._REBUILDERS, kind, lambda ids: {i: {"kind": kind, "n": i} for i in ids})
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0023_transparency_log")
        stamp = storage.now()
        org = Organization.insert(name="acme", created_at=stamp, last_modified_at=stamp).execute()
        leaves = [log.canonical({"kind": kind, "n": n}) for n in range(70)]
        store = merkle.MemoryHashStore([merkle.leaf_hash(leaf) for leaf in leaves])
        p = db.param
        for n, leaf in enumerate(leaves):
            db.execute_sql(f"INSERT INTO log_entry (organization_id, number, kind, record_id, leaf) "
                           f"VALUES ({p}, {p}, {p}, {p}, {p})", (org, n, kind, n, leaf.decode()))
        lost = (1, 2)  # made by entry 5, with (0, 5) and (2, 1)
        for (level, index), value in store.hashes.items():
            if (level, index) != lost:
                db.execute_sql(f"INSERT INTO log_hash (organization_id, node, hash) VALUES "
                               f"({p}, {p}, {p})", (org, level << 56 | index, value))
        frontier = [store.hashes[(6, 0)].hex(), store.hashes[(2, 16)].hex(),
                    store.hashes[(1, 34)].hex()]
        db.execute_sql(f"INSERT INTO log_head (organization_id, size, frontier) VALUES "
                       f"({p}, {p}, {p})", (org, 70, json.dumps(frontier)))

        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0024_log_hashes_in_entries")

        assert "log_hash" not in db.get_tables()
        assert "log_entry_organization_id" not in {i.name for i in db.get_indexes("log_entry")}
        kept = {e.number: bytes(e.hashes) for e in LogEntry.select()}
        for n in range(70):
            made = b"".join(store.hashes[key] for key in merkle.closed_by(n))
            assert kept[n] == (made[:32] if n == 5 else made), n
        acme = Organization.get_by_id(org)
        assert log.size_and_root(acme) == (70, store.root())
        assert merkle.inclusion_proof(9, 70, store.hash_at) == log.inclusion_proof(acme, 9, 70)
        assert log.verify_log(acme) == ["entry 5: stored hash (level 1, index 2) is missing"]
    _close_shared_database()


def test_0025_pins_each_trail_to_what_judged_it_and_keeps_the_ids_of_artifacts(
        empty_database: str):
    """Trails begun before 0025 are judged as they were: by their own template, or their flow's
    as of the upgrade (a legacy flow's list included), which a later change of the flow's
    template leaves them, and their artifacts by what it requires of them alone; artifacts keep
    the ids they were answered with (their row ids)."""
    from evidence_grpc.domain.evidence import flows, templates, trails

    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0024_log_hashes_in_entries")
        times = {"created_at": 1_700_000_000.0, "last_modified_at": 1_700_000_000.0}
        org = Organization.insert(name="acme", **times).execute()
        ci = Flow.insert(organization=org, name="ci", template_yaml="version: 1\n", **times).execute()
        old = Flow.insert(organization=org, name="old", legacy_template=["artifact", "tests"],
                          **times).execute()
        begun = {name: Trail.insert(flow=flow, name=name, template_yaml=own, **times).execute()
                 for name, flow, own in (("t1", ci, None), ("t2", ci, "version: 2\n"),
                                         ("t3", old, None))}
        made = [Artifact.insert(organization=org, flow=old, trail=begun["t3"],
                                fingerprint=f"{n}" * 64, name="app", **times).execute()
                for n in (1, 2)]

        assert "0025_flow_templates_and_artifact_uids" in storage.migrate()

        assert [a.uid for a in Artifact.select().order_by(Artifact.id)] == [
            f"00000000-0000-0000-0000-{row:08x}" for row in made]
        pinned = {t.name: templates.version(t.flow_template_id) for t in Trail.select()}
        assert pinned == {"t1": ("version: 1\n", None), "t2": ("version: 2\n", None),
                          "t3": (None, ["artifact", "tests"])}
        current = {f.name: f.template for f in Flow.select()}
        assert Trail.get_by_id(begun["t1"]).flow_template_id == current["ci"]
        assert Trail.get_by_id(begun["t3"]).flow_template_id == current["old"]
        # their artifacts judged by what the template requires of them alone, as before; a
        # trail inserted from here on is not (the column's default)
        assert {t.name: t.artifacts_judged_alone for t in Trail.select()} == {
            "t1": True, "t2": True, "t3": True}
        later = Trail.insert(flow=ci, name="t4", **times).execute()
        assert Trail.get_by_id(later).artifacts_judged_alone is False

        flows.upsert_flow(Organization.get_by_id(org), "ci", "", template_yaml="version: 1\n# new\n")
        changed = Flow.get_by_id(ci).template
        assert changed != current["ci"] and templates.version(changed).template_yaml.endswith("new\n")
        t1 = Trail.select(Trail, Flow).join(Flow).where(Trail.id == begun["t1"]).get()
        template, compliance = trails.compliance_of(t1, ([], []))
        assert (template["content"], compliance["flow_template_id"]) == ("version: 1\n", current["ci"])
    _close_shared_database()


def test_0026_begins_each_log_with_a_genesis_of_the_records_from_before_it(empty_database: str):
    """Each organization's log gets a log_begun entry counting the records of the logged kinds
    that have no entry (from before the log): verify-log passes, then names a row inserted among
    them, one of them changed, a row with no entry written after the genesis, and a log deleted
    beside records."""
    from evidence_grpc.domain.evidence import leaves
    from evidence_grpc.domain.transparency import log, merkle

    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(
            target="0025_flow_templates_and_artifact_uids")
        times = {"created_at": 1_700_000_000.0, "last_modified_at": 1_700_000_000.0}
        org = Organization.insert(name="acme", **times).execute()
        quiet = Organization.insert(name="quiet", **times).execute()
        flow = Flow.insert(organization=org, name="ci", **times).execute()
        trail = Trail.insert(flow=flow, name="main", **times).execute()

        def attest(name: str, **given: object) -> int:
            return Attestation.insert(uid=name, organization=org, flow=flow, trail=trail,
                                      name=name, type="generic", is_compliant=False,
                                      created_at=1_700_000_000.5, **given).execute()

        made = [attest(f"a{n}") for n in range(4)]
        TrailEvent.insert(trail=trail, timestamp=1.5, type="trail_reported", payload={}).execute()
        TrailEvent.insert(trail=trail, timestamp=2.5, type="trail_attestation_reported",
                          payload={}).execute()  # logged as its attestation
        Attestation.delete().where(Attestation.id == made[0]).execute()  # a gap among them
        # the log of 2026-11-28b on: a3 has its entry, its leaf as that release made it (of
        # the columns it had: `control` is 0034's)
        written = Attestation.select(*(f for f in Attestation._meta.sorted_fields
                                       if f.name != "control")).where(Attestation.id == made[3])
        leaf = log.canonical(leaves._attestation_leaf_v1("acme", "main", written.get()))
        LogEntry.insert(organization=org, number=0, kind="attestation", record_id=made[3],
                        leaf=leaf.decode(), hashes=merkle.leaf_hash(leaf)).execute()
        LogHead.insert(organization=org, size=1, frontier=[merkle.leaf_hash(leaf).hex()]).execute()

        assert "0026_log_genesis" in storage.migrate()

        acme, other = Organization.get_by_id(org), Organization.get_by_id(quiet)
        genesis = json.loads(LogEntry.get((LogEntry.organization == org)
                                          & (LogEntry.number == 1)).leaf)
        assert genesis["kind"] == "log_begun" and genesis["org"] == "acme"
        counted = {kind: (c["count"], c["last_id"]) for kind, c in genesis["records"].items()}
        assert counted == {"attestation": (2, made[2]), "attestation_bound": (0, 0),
                           "trail_event": (1, 1), "snapshot": (0, 0), "approval": (0, 0)}
        assert [e.kind for e in LogEntry.select().where(LogEntry.organization == quiet)] == [
            "log_begun", "log_begun"]  # 0026's, then 0030's
        assert log.verify_log(acme) == [] and log.verify_log(other) == []
        # a row inserted among those the genesis counted, in the gap
        Attestation.insert(id=made[0], uid="forged", organization=org, flow=flow, trail=trail,
                           name="forged", type="generic", is_compliant=True,
                           created_at=1.0).execute()
        before = f"2 attestation rows before the log (up to id {made[2]})"
        assert log.verify_log(acme) == [
            f"entry 1: the log's genesis counts {before}; 3 are there now"]
        Attestation.delete().where(Attestation.id == made[0]).execute()
        # one of them changed
        Attestation.update(is_compliant=True).where(Attestation.id == made[1]).execute()
        assert log.verify_log(acme) == [f"entry 1: the log's genesis commits to {before}; they "
                                        "have been changed, replaced or added to"]
        Attestation.update(is_compliant=False).where(Attestation.id == made[1]).execute()
        # one written after it with no entry (an older release's write, or SQL)
        late = attest("late")
        assert log.verify_log(acme) == [f"attestation {late} (late in trail main) has no log entry"]
        Attestation.delete().where(Attestation.id == late).execute()
        assert log.verify_log(acme) == []
        # the log deleted
        LogEntry.delete().where(LogEntry.organization == org).execute()
        LogHead.delete().where(LogHead.organization == org).execute()
        assert log.verify_log(acme) == [
            "records but no log: attestation 3, flow 1, trail 1, trail_event 1 rows, and no "
            "log_begun entry (the log is empty, deleted or never began)"]


def test_0027_keeps_what_a_trails_verdict_is_made_from_and_makes_it_for_older_trails(
        empty_database: str):
    """A trail of the release before has no TrailManifest row: its next write makes it from
    every attestation the trail has, and its manifest's verdict is the one its answer gives."""
    from evidence_grpc.domain.evidence import trails

    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0024_log_hashes_in_entries")
        assert "trail_manifest" not in db.get_tables()
        times = {"created_at": 1_700_000_000.0, "last_modified_at": 1_700_000_000.0}
        org = Organization.insert(name="acme", **times).execute()
        flow = Flow.insert(organization=org, name="ci", template_yaml="version: 1\n", **times).execute()
        trail = Trail.insert(flow=flow, name="t1", **times).execute()
        for n, compliant in enumerate((False, True)):  # the newest of its name passes
            Attestation.insert(uid=f"u{n}", organization=org, flow=flow, trail=trail, name="tests",
                               type="generic", is_compliant=compliant, data={}, summary={},
                               created_at=times["created_at"] + n).execute()

        assert "0027_trail_manifests" in storage.migrate()

        assert {c.name for c in db.get_columns("trail_manifest")} == {
            "trail_id", "manifest", "count", "entries_sha256", "newest"}
        user = User.insert(name="alice", created_at=times["created_at"]).execute()
        trails.begin_trail(Organization.get_by_id(org), "ci", {"name": "t1"}, User.get_by_id(user))
        [kept] = TrailManifest.select()
        assert [row[1] for row in kept.newest] == ["u1"]
        assert json.loads(LogEntry.select().order_by(LogEntry.number.desc()).get().leaf)[
            "status"] == "COMPLIANT"
        Trail.delete().where(Trail.id == trail).execute()
        assert TrailManifest.select().count() == 0
    _close_shared_database()


def test_0028_keeps_witnesses_cosignatures_per_organization_gone_with_it(empty_database: str):
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0027_trail_manifests")
        assert "log_cosignature" not in db.get_tables()
        org = Organization.insert(name="acme", created_at=1.0, last_modified_at=1.0).execute()

        assert "0028_log_cosignatures" in storage.migrate()

        assert {c.name for c in db.get_columns("log_witness")} == {
            "id", "organization_id", "witness", "size", "cosigned_at", "attempted_at",
            "failures", "refusals", "problem"}
        kept = LogCheckpoint.insert(organization=org, size=3, root="ab", note="n",
                                    created_at=1.0).execute()
        LogCosignature.insert(checkpoint=kept, witness="w+1+A", line="— w x",
                              cosigned_at=5).execute()
        LogWitness.insert(organization=org, witness="w+1+A", size=3).execute()
        assert LogWitness.get().failures == 0 and LogWitness.get().problem == ""
        Organization.delete().where(Organization.id == org).execute()
        assert [LogCheckpoint.select().count(), LogCosignature.select().count(),
                LogWitness.select().count()] == [0, 0, 0]
    _close_shared_database()


def test_0029_keeps_the_rotations_of_the_logs_key_and_the_origin_of_a_log_begun_again(
        empty_database: str):
    """A database of the release before had no rotations: after 0029 a rotation's row (the
    record of its `key_rotated` entry) is kept, and goes with its organization; a log keeps its
    entries and has no origin of its own."""
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0027_trail_manifests")
        assert "log_key_rotation" not in db.get_tables()
        stamp = storage.now()
        org = Organization.insert(name="acme", created_at=stamp, last_modified_at=stamp).execute()
        LogHead.insert(organization=org, size=1, frontier=["00" * 32]).execute()
        LogEntry.insert(organization=org, number=0, kind="log_begun", record_id=0, leaf="{}",
                        hashes=bytes(32)).execute()

        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0029_log_key_rotations")

        assert LogHead.select(LogHead.size, LogHead.origin).tuples()[:] == [(1, None)]
        assert LogEntry.select().count() == 1

        assert {c.name for c in db.get_columns("log_key_rotation")} == {
            "id", "organization_id", "old_key", "new_key", "size", "checkpoint", "created_at"}
        LogKeyRotation.create(organization=org, old_key="a", new_key="b", created_at=stamp)
        Organization.delete().where(Organization.id == org).execute()
        assert LogKeyRotation.select().count() == 0
    _close_shared_database()


def test_0032_keeps_an_artifacts_latest_manifest_and_makes_it_at_an_older_ones_next_change(
        empty_database: str):
    """An artifact of the release before has no ArtifactManifest row: the next write of its
    trail makes its first manifest from its rows (its report, the attestation about it), with
    the verdict its answer gives."""
    from evidence_grpc.domain.evidence import artifacts, trails

    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        # before 0025: it pins the trail to its template, gives the artifact its id
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0024_log_hashes_in_entries")
        assert "artifact_manifest" not in db.get_tables()
        times = {"created_at": 1_700_000_000.0, "last_modified_at": 1_700_000_000.0}
        org = Organization.insert(name="acme", **times).execute()
        flow = Flow.insert(organization=org, name="ci", template_yaml="version: 1\n", **times).execute()
        trail = Trail.insert(flow=flow, name="t1", **times).execute()
        artifact = Artifact.insert(organization=org, flow=flow, trail=trail,
                                   fingerprint="a" * 64, name="app.bin", created_by="alice",
                                   template_reference_name="app",
                                   **times).execute()
        Attestation.insert(uid="u1", organization=org, flow=flow, trail=trail, artifact=artifact,
                           artifact_fingerprint="a" * 64, target_artifact="app", name="tests",
                           type="generic", is_compliant=False, data={}, summary={},
                           created_at=times["created_at"]).execute()

        assert "0032_artifact_manifests" in storage.migrate()

        assert {c.name for c in db.get_columns("artifact_manifest")} == {
            "artifact_id", "manifest", "count", "entries_sha256", "verdict_sha256"}
        assert ArtifactManifest.select().count() == 0
        user = User.insert(name="alice", created_at=times["created_at"]).execute()
        trails.begin_trail(Organization.get_by_id(org), "ci", {"name": "t1"}, User.get_by_id(user))
        [kept] = ArtifactManifest.select()
        logged = json.loads(LogEntry.get(LogEntry.number == kept.manifest).leaf)
        # its rows have no entry (written before the log): it lists none, its verdict is its own
        assert (logged["kind"], logged["count"], logged["status"]) == (
            "artifact_manifest", 0, "NON-COMPLIANT")
        assert artifacts.states_of(list(Artifact.select())) == {artifact: "NON-COMPLIANT"}
        Artifact.delete().where(Artifact.id == artifact).execute()
        assert ArtifactManifest.select().count() == 0
    _close_shared_database()


def test_0030_commits_to_the_rows_of_the_kinds_logged_later_that_have_no_entry(
        empty_database: str):
    """The flows, trails, environments, policies, repos ... of a release before their kind was
    logged are counted by a second genesis: verify-log passes; an old row changed by the service has an
    entry it is checked against from then on; what never changes of an old row changed by SQL,
    and a row inserted by SQL (after them or among them) are named."""
    from evidence_grpc.domain.evidence import leaves
    from evidence_grpc.domain.transparency import log

    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        runner = Runner(db, directory=str(storage.MIGRATIONS_DIR))
        runner.up(target="0025_flow_templates_and_artifact_uids")
        times = {"created_at": 1_700_000_000.0, "last_modified_at": 1_700_000_000.0}
        org = Organization.insert(name="acme", **times).execute()
        old = [Flow.insert(organization=org, name=f"f{n}", **times).execute() for n in range(3)]
        Flow.delete().where(Flow.id == old[1]).execute()  # a gap among them
        trail = Trail.insert(flow=old[0], name="main", **times).execute()
        env = Environment.insert(organization=org, name="prod", type="K8S", **times).execute()
        policy = Policy.insert(organization=org, name="p", created_by="alice", **times).execute()
        version = PolicyVersion.insert(policy=policy, version=1, policy_yaml="_schema: x\n",
                                       created_by="alice", created_at=1.0).execute()
        repo = Repo.insert(organization=org, repo_id="42", name="acme/demo", created_at=1.0,
                           last_seen_at=1.0).execute()
        runner.up(target="0027_trail_manifests")  # 0026's genesis: entry 0
        # the release of 2026-12-02: a flow it made has its entry
        new = Flow.insert(organization=org, name="new", **times).execute()
        log.append(org, "flow", new, leaves.rebuild_flows({new: 1})[new])

        assert "0030_log_genesis_of_changing_records" in storage.migrate()

        acme = Organization.get_by_id(org)
        genesis = json.loads(LogEntry.get((LogEntry.organization == org)
                                          & (LogEntry.number == 2)).leaf)
        assert genesis["kind"] == "log_begun"
        counted = {kind: (c["count"], c["last_id"], c.get("rows"))
                   for kind, c in genesis["records"].items()}
        assert counted == {
            "flow": (3, new, "all"), "trail": (1, trail, "all"), "artifact": (0, 0, "all"),
            "environment": (1, env, "all"), "allowlist_entry": (0, 0, "all"),
            "policy": (1, policy, "all"), "policy_version": (1, version, None),
            "control": (0, 0, "all"), "control_version": (0, 0, None), "repo": (1, repo, "all"),
            "attestation_type": (0, 0, "all"), "attestation_type_version": (0, 0, None)}
        assert log.verify_log(acme) == []
        # an old flow changed by the service: its entry, then checked against it
        Flow.update(description="now").where(Flow.id == old[0]).execute()
        log.append(org, "flow", old[0], leaves.rebuild_flows({old[0]: 1})[old[0]])
        assert log.verify_log(acme) == []
        Flow.update(description="forged").where(Flow.id == old[0]).execute()
        assert log.verify_log(acme) == [f"entry 3: flow {old[0]} differs from its leaf (description)"]
        Flow.update(description="now").where(Flow.id == old[0]).execute()
        # what never changes of an old row with no entry, changed by SQL; a row put among them
        said = f"entry 2: the log's genesis commits to 1 environment rows up to id {env}"
        Environment.update(created_at=1.0).where(Environment.id == env).execute()
        assert log.verify_log(acme) == [f"{said}; they have been changed, replaced or added to"]
        Environment.update(created_at=times["created_at"]).where(Environment.id == env).execute()
        Flow.insert(id=old[1], organization=org, name="gap", **times).execute()
        assert log.verify_log(acme) == [
            f"entry 2: the log's genesis counts 3 flow rows up to id {new}; 4 are there now"]
        Flow.delete().where(Flow.id == old[1]).execute()
        # rows inserted after them with no entry, named
        forged = Flow.insert(organization=org, name="forged", **times).execute()
        in_it = Trail.insert(flow=forged, name="t", **times).execute()
        late = PolicyVersion.insert(policy=policy, version=2, policy_yaml="_schema: y\n",
                                    created_by="mallory", created_at=2.0).execute()
        assert log.verify_log(acme) == [
            f"flow {forged} (forged) has no log entry",
            f"policy_version {late} (version 2 of policy p) has no log entry",
            f"trail {in_it} (t in flow forged) has no log entry"]
    _close_shared_database()


def test_0031_counts_the_lists_made_before_it_and_each_write_after_grows_them(
        empty_database: str):
    """A flow's trails and attestations and a trail's attestations of the release before are
    counted by the migration; a page tells that total, and a trail or attestation added after
    it is counted in its own write."""
    from evidence_grpc.domain.evidence import attestations, trails
    from evidence_grpc.domain.kernel import list_sizes
    from evidence_grpc.domain.kernel.pages import page_of

    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0024_log_hashes_in_entries")
        times = {"created_at": 1_700_000_000.0, "last_modified_at": 1_700_000_000.0}
        org_id = Organization.insert(name="acme", **times).execute()
        flow = Flow.insert(organization=org_id, name="ci", **times).execute()
        first, second = (Trail.insert(flow=flow, name=f"t{i}", **times).execute() for i in (1, 2))
        for n, trail in enumerate((first, first, second)):
            Attestation.insert(uid=f"u{n}", organization=org_id, flow=flow, trail=trail,
                               name="tests", type="generic", is_compliant=True, data={},
                               summary={}, created_at=times["created_at"] + n).execute()
        MembershipAuditEvent.insert(organization=org_id, event_type="member_added",
                                    timestamp=times["created_at"], actor="alice",
                                    subject="bob").execute()

        assert "0031_list_sizes" in storage.migrate()

        assert list_sizes.size(list_sizes.TRAILS_OF_FLOW, flow) == 2
        assert list_sizes.size(list_sizes.ATTESTATIONS_OF_FLOW, flow) == 3
        assert list_sizes.size(list_sizes.ATTESTATIONS_OF_TRAIL, first) == 2
        assert list_sizes.size(list_sizes.AUDIT_EVENTS_OF_ORGANIZATION, org_id) == 1
        org = Organization.get_by_id(org_id)
        user = User.get_by_id(User.insert(name="alice", created_at=times["created_at"]).execute())
        trails.begin_trail(org, "ci", {"name": "t3"}, user)
        trails.begin_trail(org, "ci", {"name": "t1"}, user)  # not a new one
        attestations.create_attestation(org, user, "ci", "t2", "generic",
                                        {"attestation_name": "lint", "is_compliant": True}, None)
        assert trails.list_flow_trails(org, "ci", page_of(2, 2))[1]["total"] == 3
        for trail_name, total in ((None, 4), ("t2", 2)):
            filters = {"trail_name": trail_name} if trail_name else {}
            listed, pagination = attestations.list_flow_attestations(org, "ci", page_of(1, 1),
                                                                     filters)
            assert (len(listed), pagination["total"], pagination["page_count"]) == (1, total, total)
    _close_shared_database()


def test_0033_numbers_the_lists_made_before_it_so_that_every_page_holds_what_it_held(
        empty_database: str):
    """Trails, attestations and audit events of the release before 0033 are numbered in their
    lists' order: every page of every list (newest first, and the audit log oldest first too)
    holds what the OFFSET query over their rows answers, and items added after it take the
    next positions."""
    from evidence_grpc.domain.evidence import attestations, trails
    from evidence_grpc.domain.identity import service_accounts
    from evidence_grpc.domain.kernel.pages import page_of

    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0024_log_hashes_in_entries")
        times = {"created_at": 1_700_000_000.0, "last_modified_at": 1_700_000_000.0}
        org_id = Organization.insert(name="acme", **times).execute()
        other = Organization.insert(name="other", **times).execute()
        flow = Flow.insert(organization=org_id, name="ci", **times).execute()
        other_flow = Flow.insert(organization=other, name="ci", **times).execute()
        made = {i: Trail.insert(flow=f, name=f"t{i}", **times).execute()
                for i, f in enumerate((flow, other_flow, flow, flow, other_flow, flow))}
        for n, i in enumerate((0, 1, 2, 0, 3, 0)):
            Attestation.insert(uid=f"u{n}", organization=org_id if i != 1 else other,
                               flow=other_flow if i == 1 else flow, trail=made[i], name="tests",
                               type="generic", is_compliant=True, data={}, summary={},
                               created_at=times["created_at"] + n).execute()
        # audit events in the order of their timestamps, not of their ids
        for n, stamp in enumerate((5.0, 1.0, 3.0, 3.0, 2.0)):
            for owner in (org_id, other):
                MembershipAuditEvent.insert(organization=owner, event_type="member_added",
                                            timestamp=times["created_at"] + stamp, actor="alice",
                                            subject=f"user-{n}").execute()

        def chunks(items: list, per_page: int) -> list:
            return [items[i:i + per_page] for i in range(0, len(items), per_page)]

        def expected(per_page: int) -> dict[str, list]:
            """Each list's pages as the OFFSET queries over the rows answer them."""
            audit = [(e.subject, e.id) for e in MembershipAuditEvent.select(
                MembershipAuditEvent.subject, MembershipAuditEvent.id).where(
                MembershipAuditEvent.organization == org_id).order_by(
                MembershipAuditEvent.timestamp, MembershipAuditEvent.id)]
            return {"trails": chunks([t.name for t in Trail.select(Trail.name).where(
                        Trail.flow == flow).order_by(Trail.id.desc())], per_page),
                    "attestations of flow": chunks([a.uid for a in Attestation.select(Attestation.uid).where(
                        Attestation.flow == flow).order_by(Attestation.id.desc())], per_page),
                    "attestations of t0": chunks([a.uid for a in Attestation.select(Attestation.uid).where(
                        Attestation.trail == made[0]).order_by(Attestation.id.desc())], per_page),
                    "audit asc": chunks([s for s, _ in audit], per_page),
                    "audit desc": chunks([s for s, _ in reversed(audit)], per_page)}

        def answered(per_page: int) -> dict[str, list]:
            org = Organization.get_by_id(org_id)

            def attested(filters: dict) -> list:
                return every_page(lambda n: [a.uid for a in attestations.list_flow_attestations(
                    org, "ci", page_of(n, per_page), filters)[0]])

            def audit(direction: str) -> list:
                return every_page(lambda n: [e.subject for e in service_accounts.audit_log(
                    org, n, per_page, sort_dir=direction)[0]])

            return {"trails": every_page(lambda n: [t.name for t in trails.list_flow_trails(
                        org, "ci", page_of(n, per_page))[0]]),
                    "attestations of flow": attested({}),
                    "attestations of t0": attested({"trail_name": "t0"}),
                    "audit asc": audit("asc"), "audit desc": audit("desc")}

        before = {per_page: expected(per_page) for per_page in (1, 2, 4)}
        assert before[2]["audit desc"] == [["user-0", "user-3"], ["user-2", "user-4"], ["user-1"]]
        assert "0033_list_entries" in storage.migrate()
        for per_page in (1, 2, 4):
            assert answered(per_page) == before[per_page]
        org = Organization.get_by_id(org_id)
        user = User.get_by_id(User.insert(name="alice", created_at=times["created_at"]).execute())
        trails.begin_trail(org, "ci", {"name": "t9"}, user)
        attestations.create_attestation(org, user, "ci", "t9", "generic",
                                        {"attestation_name": "lint", "is_compliant": True}, None)
        service_accounts.create_account(org, "alice", "deployer", None, "member")
        for per_page in (1, 3):
            assert answered(per_page) == expected(per_page)
        assert answered(2)["trails"] == [["t9", "t5"], ["t3", "t2"], ["t0"]]
    _close_shared_database()


def test_0034_names_the_control_of_each_decision_as_the_summarys_substring_match_found_it(
        empty_database: str):
    """A decision of the release before is found among its control's decisions by its
    `control` column: the same decisions, for every identifier, as that release's match of
    `"control":"<identifier>"` in their summaries found (case-sensitive, whole identifier, a
    decision only); one whose summary names none, or no text, names none. The decisions of
    each control there is are numbered in the order that release listed them: every page
    holds what it held; a control created after it numbers its own, and a decision made
    after it takes its list's next position."""
    from evidence_grpc.domain.evidence import attestations, flows
    from evidence_grpc.domain.governance import controls
    from evidence_grpc.domain.kernel import list_sizes

    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        # before 0033 too: it numbers the other lists of the rows made here
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0032_artifact_manifests")
        assert "control" not in {c.name for c in db.get_columns("attestation")}
        times = {"created_at": 1_700_000_000.0, "last_modified_at": 1_700_000_000.0}
        org = Organization.insert(name="acme", features=["controls"], **times).execute()
        flow = Flow.insert(organization=org, name="ci", **times).execute()
        trail = Trail.insert(flow=flow, name="t1", **times).execute()
        summaries = [("decision", {"control": "ctl-1"}), ("decision", {"control": "Ctl-1"}),
                     ("decision", {"control": "ctl-1.x"}), ("decision", {"control": "ctl"}),
                     ("decision", {"control": None}), ("decision", {"control": 7}),
                     ("decision", {}), ("decision", {"control": "c" * 256}),
                     ("decision", {"control": "ctl-1"}), ("generic", {"control": "ctl-1"}),
                     ("custom:decision", {"control": "ctl-1"}), ("decision", {"control": "é"})]
        for n, (type_name, summary) in enumerate(summaries):
            Attestation.insert(uid=f"u{n}", organization=org, flow=flow, trail=trail,
                               name="approval", type=type_name, is_compliant=n % 2 == 0,
                               data={}, summary=summary, created_at=times["created_at"] + n
                               ).execute()
        identifiers = ["ctl-1", "Ctl-1", "ctl-1.x", "ctl", "c" * 255, "7", "None", "é"]
        for identifier in ("ctl-1", "Ctl-1", "ctl"):  # the others are created after it
            Control.insert(organization=org, identifier=identifier, name="c", version=1,
                           created_by="alice", **times).execute()

        def substring_match(identifier: str) -> list[str]:  # the release before's query
            fragment = peewee.Value(f'"control":{json.dumps(identifier)}', converter=False)
            return [uid for (uid,) in Attestation.select(Attestation.uid).where(
                (Attestation.organization == org) & (Attestation.type == "decision")
                & storage.contains(Attestation.summary, fragment, case_sensitive=True))
                .order_by(Attestation.id).tuples()]

        before = {identifier: substring_match(identifier) for identifier in identifiers}

        assert "0034_decision_controls" in storage.migrate()

        assert {i: [a.uid for a in controls._decisions(Organization.get_by_id(org), i)
                    .order_by(Attestation.id)] for i in identifiers} == before
        assert before["ctl-1"] == ["u0", "u8"] and before["é"] == ["u11"]
        assert {i.name for i in db.get_indexes("attestation")} >= {
            "attestation_organization_id_control_created_at_id"}
        acme = Organization.get_by_id(org)
        controls.create_control(acme, "alice", "ctl-1.x", "Created after")
        for identifier in ("ctl-1", "Ctl-1", "ctl", "ctl-1.x"):
            for ascending in (False, True):
                for page in (1, 2, 3):
                    listed, pagination = controls.list_decisions(
                        acme, identifier, page, 1, sort_direction="asc" if ascending else "desc")
                    assert [a.uid for a in listed] == (before[identifier] if ascending else
                                                       before[identifier][::-1])[page - 1:page]
                    assert pagination["total_count"] == len(before[identifier])
        alice = User.get_by_id(User.insert(name="alice", created_at=times["created_at"]).execute())
        flows.upsert_flow(acme, "cd", "")
        made = attestations.create_attestation(acme, alice, "cd", "t1", "system", {
            "attestation_name": "approval", "type_name": "decision", "control": "ctl-1",
            "attestation_data": {"is_compliant": True}}, None)
        assert [a.uid for a in controls.list_decisions(acme, "ctl-1", 1, 2)[0]] == [made.uid, "u8"]
        assert list(list_sizes.problems()) == []
    _close_shared_database()


def test_0035_numbers_the_events_trails_and_artifacts_made_before_it(
        empty_database: str):
    """Events, trails and artifacts of the release before 0035 are numbered in their lists'
    order (events by snapshot index, then id; an organization's trails and a flow's and an
    organization's artifacts by id): every page, both orders for events, holds what the OFFSET
    query over their rows answers, and items added after it take the next positions."""
    from evidence_grpc.domain.evidence import artifacts, trails
    from evidence_grpc.domain.kernel.ids import hosted_id
    from evidence_grpc.domain.kernel.pages import page_of
    from evidence_grpc.domain.runtime import snapshots

    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0033_list_entries")
        times = {"created_at": 1_700_000_000.0, "last_modified_at": 1_700_000_000.0}
        org_id = Organization.insert(name="acme", **times).execute()
        other = Organization.insert(name="other", **times).execute()
        ci, cd, foreign = (Flow.insert(organization=o, name=n, **times).execute()
                           for o, n in ((org_id, "ci"), (org_id, "cd"), (other, "ci")))
        for i, flow in enumerate((ci, foreign, cd, ci, cd, foreign, ci)):
            trail = Trail.insert(flow=flow, name=f"t{i}", **times).execute()
            Artifact.insert(organization=other if flow == foreign else org_id, flow=flow,
                            trail=trail, fingerprint=f"{i:064x}", name=f"a{i}", **times).execute()
        template = hosted_id()  # of the flow a trail is begun in after
        FlowTemplate.insert(id=template, flow=cd, created_at=times["created_at"]).execute()
        Flow.update(template=template).where(Flow.id == cd).execute()
        prod, stage = (Environment.insert(organization=org_id, name=name, type="server",
                                          latest_index=3, **times).execute()
                       for name in ("prod", "stage"))
        running = [{"name": "x", "fingerprint": "f" * 64, "instance_count": 1}]
        for env in (prod, stage):
            Snapshot.insert_many([{"environment": env, "index": i, "type": "server",
                                   "artifacts": running if i == 3 else [], "created_at": i}
                                  for i in (1, 2, 3)]).execute()
        # events in the order of their snapshots, not of their ids
        for index, name in ((2, "b"), (1, "a"), (3, "c"), (2, "d"), (1, "e"), (3, "x")):
            for env in (prod, stage):
                EnvironmentEvent.insert(environment=env, snapshot_index=index, type="started",
                                        artifact_name=name, fingerprint=name * 64, was=0, now=1,
                                        reported_at=index).execute()

        def expected(per_page: int) -> dict[str, list]:
            """Each list's pages as the OFFSET queries over the rows answer them."""
            def events(reverse: bool) -> list:
                order = (EnvironmentEvent.snapshot_index, EnvironmentEvent.id)
                return every_page(lambda n: [e.artifact_name for e in EnvironmentEvent.select()
                                             .where(EnvironmentEvent.environment == prod)
                                             .order_by(*(o.asc() if reverse else o.desc()
                                                         for o in order)).paginate(n, per_page)])

            def built(scope) -> list:
                return every_page(lambda n: [a.name for a in Artifact.select(Artifact.name)
                                             .where(scope).order_by(Artifact.id.desc())
                                             .paginate(n, per_page)])

            return {"events": events(False), "events asc": events(True),
                    "trails": every_page(lambda n: [t.name for t in Trail.select(Trail.name)
                                                    .join(Flow).where(Flow.organization == org_id)
                                                    .order_by(Trail.id.desc())
                                                    .paginate(n, per_page)]),
                    "artifacts": built(Artifact.organization == org_id),
                    "artifacts of cd": built(Artifact.flow == cd)}

        def answered(per_page: int) -> dict[str, list]:
            org = Organization.get_by_id(org_id)

            def events(reverse: bool) -> list:
                return every_page(lambda n: [e["artifact_name"] for e in snapshots.list_events(
                    org, "prod", page=n, per_page=per_page, reverse=reverse)])

            def built(flow: str | None) -> list:
                return every_page(lambda n: [a.name for a in artifacts.list_artifacts(
                    org, page_of(n, per_page), flow_name=flow)])

            return {"events": events(False), "events asc": events(True),
                    "trails": every_page(lambda n: [t.name for t in trails.list_trails(
                        org, page_of(n, per_page))[0]]),
                    "artifacts": built(None), "artifacts of cd": built("cd")}

        before = {per_page: expected(per_page) for per_page in (1, 2, 4)}
        assert before[2]["events"] == [["x", "c"], ["d", "b"], ["e", "a"]]
        assert "0035_more_list_entries" in storage.migrate()
        for per_page in (1, 2, 4):
            assert answered(per_page) == before[per_page]
        org = Organization.get_by_id(org_id)
        user = User.get_by_id(User.insert(name="alice", created_at=times["created_at"]).execute())
        trails.begin_trail(org, "cd", {"name": "t7"}, user)
        artifacts.report_artifact(org, user, "cd", {
            "fingerprint": "a" * 64, "filename": "a7", "trail_name": "t7", "git_commit": "c" * 40,
            "build_url": "https://ci.example/1", "commit_url": "https://git.example/c"})
        snapshots.report_environment(org, "prod", "server", {"artifacts": [
            {"digests": {"y": "e" * 64}, "creationTimestamp": 1700000000}]})
        for per_page in (1, 3):
            assert answered(per_page) == expected(per_page)
        assert answered(2)["events"][0] == ["y", "x"]
        assert answered(2)["trails"][0] == ["t7", "t6"]
        assert answered(2)["artifacts"][0] == ["a7", "a6"]
        assert answered(2)["artifacts of cd"] == [["a7", "a4"], ["a2"]]
    _close_shared_database()
