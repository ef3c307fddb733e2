"""The transparency log's leaves of the runtime context (domain.transparency.log): each
snapshot of an environment, with digests of what ran (as reported) and of its verdicts and
applied policies as they were judged when it was made; its environment by id (a name can
change). Re-derived from the rows by `evidence-server verify-log`."""

from __future__ import annotations

from typing import Any

from ...storage.models import Environment, Organization, Snapshot
from ..transparency import log

SNAPSHOT = "snapshot"


def snapshot_leaf(org_name: str, s: Snapshot) -> dict[str, Any]:
    return {
        "kind": SNAPSHOT, "org": org_name, "environment_id": s.environment_id, "index": s.index,
        "type": s.type, "compliant": s.compliant, "created_at": s.created_at,
        "artifacts_sha256": log.digest(s.artifacts), "verdicts_sha256": log.digest(s.verdicts),
        "applied_policies_sha256": log.digest(s.applied_policies),
    }


def log_snapshot(org: Organization, snapshot: Snapshot) -> None:
    log.append(org.id, SNAPSHOT, snapshot.id, snapshot_leaf(org.name, snapshot))


def rebuild_snapshots(ids: list[int]) -> dict[int, dict[str, Any]]:
    rows = (Snapshot.select(Snapshot, Environment.id, Organization.name).join(Environment)
            .join(Organization).where(Snapshot.id.in_(ids)))
    return {s.id: snapshot_leaf(s.environment.organization.name, s) for s in rows}


# The snapshots of the organization's environments: each must have an entry.
snapshot_rows = log.ids_after(lambda org, after: Snapshot.select(Snapshot.id).join(Environment)
                              .where((Environment.organization == org) & (Snapshot.id > after))
                              .order_by(Snapshot.id))


def snapshot_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"#{index} of environment {name}" for i, index, name in Snapshot.select(
        Snapshot.id, Snapshot.index, Environment.name).join(Environment)
        .where(Snapshot.id.in_(ids)).tuples()}
