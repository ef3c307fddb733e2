"""Schema migrations on a database holding rows of the schema before them: 0006 learns the
repos of existing evidence and links artifacts and deployments to them; 0011 judges the
snapshots made before verdicts were kept (both engines)."""

from __future__ import annotations

import math
import pathlib
from collections.abc import Iterator

import peewee
import pytest
from playhouse.migrations import Runner

from evidence_grpc.domain import deployments
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import (
    Artifact,
    Deployment,
    DeploymentSeries,
    Environment,
    EnvironmentAuditEvent,
    EnvironmentEvent,
    Flow,
    JSONField,
    Organization,
    Repo,
    Snapshot,
    Trail,
)
from tests.conftest import _close_shared_database, postgres_database

REPO = {"id": "r-42", "name": "acme/demo", "url": "https://github.com/acme/demo"}


@pytest.fixture
def empty_database(engine: str, tmp_path: pathlib.Path) -> Iterator[str]:
    """A database with no tables at all (the session template is already migrated)."""
    if engine == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    with postgres_database(None) as url:
        yield url


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


class _SnapshotBefore0011(peewee.Model):
    """A snapshot row as the schema before 0011 has it (no verdict columns)."""

    environment_id = peewee.IntegerField()
    index = peewee.IntegerField()
    type = peewee.CharField()
    artifacts = JSONField()
    created_at = peewee.DoubleField()

    class Meta:
        table_name = "snapshot"


def test_0011_judges_the_snapshots_made_before_verdicts_were_kept(empty_database: str):
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0009_policies")
        stamp = 1_700_000_000.0
        times = {"created_at": stamp, "last_modified_at": stamp}
        org = Organization.insert(name="acme", **times).execute()
        flow = Flow.insert(organization=org, name="ci", **times).execute()
        trail = Trail.insert(flow=flow, name="t", **times).execute()
        Artifact.insert(organization=org, flow=flow, trail=trail, fingerprint="a" * 64,
                        name="app", **times).execute()
        governed = Environment.insert(organization=org, name="prod", type="server",
                                      policies=["rules"], latest_index=2, **times).execute()
        free = Environment.insert(organization=org, name="dev", type="server", latest_index=1,
                                  **times).execute()

        def running(*fingerprints: str) -> list[dict]:
            return [{"name": f"app-{fp[0]}", "fingerprint": fp, "instance_count": 1,
                     "creationTimestamp": [1], "pods": None, "context": []}
                    for fp in fingerprints]

        with db.bind_ctx([_SnapshotBefore0011]):
            _SnapshotBefore0011.insert_many([
                {"environment_id": governed, "index": 1, "type": "server",
                 "artifacts": running("a" * 64), "created_at": stamp},
                {"environment_id": governed, "index": 2, "type": "server",
                 "artifacts": running("a" * 64, "b" * 64), "created_at": stamp + 1},
                {"environment_id": free, "index": 1, "type": "server",
                 "artifacts": running("a" * 64), "created_at": stamp}]).execute()

        assert "0011_snapshot_verdicts" in storage.migrate()

        kept = {(s.environment_id, s.index): s for s in Snapshot.select()}
        one, two, dev = kept[(governed, 1)], kept[(governed, 2)], kept[(free, 1)]
        assert (one.compliant, two.compliant, dev.compliant) == (True, False, None)
        assert [(v["name"], v["compliant"], [r["type"] for r in v["reasons_for_incompliance"]])
                for v in two.verdicts] == [("app-a", True, []), ("app-b", False, ["no_provenance"])]
        assert [f["flow_name"] for f in two.verdicts[0]["flows"]] == ["ci"]
        assert [(v["compliant"], v["reasons_for_incompliance"]) for v in dev.verdicts] == [
            (None, [])]
        assert one.applied_policies == []
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

        assert storage.migrate() == ["0017_packed_deployment_series"]

        assert set(DeploymentSeries.select(DeploymentSeries.repo, DeploymentSeries.day).tuples()) \
            == {(repos[0], 19_999), (repos[0], 20_000), (repos[1], 19_999)}
        acme = Organization.get()
        [first] = deployments.deployment_statistics(acme, "r-1", start_ts=0).environments
        assert (first.deployed_at, first.lead_times) == \
            ([math.nextafter(midnight, 0), midnight, midnight + 100], [5.0, 7.5])
        [second] = deployments.deployment_statistics(acme, "r-2", start_ts=0).environments
        assert (second.deployed_at, second.lead_times) == ([midnight - 3600], [1.0])
    _close_shared_database()
