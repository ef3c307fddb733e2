"""Schema migrations on a database holding rows of the schema before them: 0006 learns the
repos of existing evidence and links artifacts and deployments to them (both engines)."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest
from playhouse.migrations import Runner

from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import (
    Artifact,
    Deployment,
    Environment,
    Flow,
    Organization,
    Repo,
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
