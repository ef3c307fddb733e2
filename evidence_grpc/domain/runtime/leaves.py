"""The transparency log's leaves of the runtime context (domain.transparency.log): each
snapshot of an environment, with digests of what ran (as reported) and of its verdicts and
applied policies as they were judged when it was made; its environment by id (a name can
change). Re-derived from the rows by `evidence-server verify-log`."""

from __future__ import annotations

from typing import Any

from ...storage.models import Environment, Organization, Snapshot
from ..transparency import log

SNAPSHOT = "snapshot"


SNAPSHOT_LEAF = log.shape(SNAPSHOT, Snapshot, {
    "id": log.Derived("the entry's record id"), "environment": log.Bound("environment_id"),
    "index": log.Bound("index"), "type": log.Bound("type"),
    "artifacts": log.Bound("artifacts_sha256", digested=True),
    "created_at": log.Bound("created_at"), "verdicts": log.Bound("verdicts_sha256", digested=True),
    "compliant": log.Bound("compliant"),
    "applied_policies": log.Bound("applied_policies_sha256", digested=True),
}, extra={"org": "the organization's name"}, whole_text=True)


def snapshot_leaf(org_name: str, s: Snapshot) -> dict[str, Any]:
    return SNAPSHOT_LEAF.leaf(s, org=org_name)


def log_snapshot(org: Organization, snapshot: Snapshot) -> None:
    log.append(org.id, SNAPSHOT, snapshot.id, snapshot_leaf(org.name, snapshot))


def rebuild_snapshots(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = (Snapshot.select(Snapshot, Environment.id, Organization.name).join(Environment)
            .join(Organization).where(Snapshot.id.in_(list(versions))))
    return {s.id: snapshot_leaf(s.environment.organization.name, s) for s in rows}
