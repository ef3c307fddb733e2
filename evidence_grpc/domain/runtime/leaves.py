"""The transparency log's leaves of the runtime context (domain.transparency.log): each
snapshot of an environment, with digests of what ran (as reported) and of its verdicts and
applied policies as they were judged when it was made; its environment by id (a name can
change); each change of an environment (its policies, members, settings, name, archiving) and
of its allowlist. Re-derived from the rows by `evidence-server verify-log`."""

from __future__ import annotations

from typing import Any

from ...storage.models import AllowlistEntry, Environment, Organization, Snapshot
from ..transparency import log

SNAPSHOT = "snapshot"
ENVIRONMENT = "environment"
ALLOWLIST_ENTRY = "allowlist_entry"
_RECORD_ID = log.Derived("the entry's record id")


SNAPSHOT_LEAF = log.shape(SNAPSHOT, Snapshot, {
    "id": _RECORD_ID, "environment": log.Bound("environment_id"),
    "index": log.Bound("index"), "type": log.Bound("type"),
    "artifacts": log.Bound("artifacts_sha256", digested=True),
    "created_at": log.Bound("created_at"), "verdicts": log.Bound("verdicts_sha256", digested=True),
    "compliant": log.Bound("compliant"),
    "applied_policies": log.Bound("applied_policies_sha256", digested=True),
}, extra={"org": "the organization's name"}, whole_text=True)
ENVIRONMENT_LEAF = log.shape(ENVIRONMENT, Environment, {
    "id": _RECORD_ID, "organization": log.Bound("org"), "name": log.Bound("name"),
    "type": log.Bound("type"), "description": log.Bound("description"),
    "include_scaling": log.Bound("include_scaling"),
    "require_provenance": log.Bound("require_provenance"),
    "tags": log.Bound("tags_sha256", digested=True),
    "policies": log.Bound("policies_sha256", digested=True),
    "included_environments": log.Bound("included_environments_sha256", digested=True),
    "archived": log.Bound("archived"),
    "latest_index": log.Derived("its newest snapshot's index: each snapshot is an entry"),
    "created_at": log.Bound("created_at"), "last_modified_at": log.Bound("last_modified_at"),
    "last_reported_at": log.Derived("when it last reported: a report that changed what runs "
                                    "is a snapshot's entry, one that did not changes no answer "
                                    "but this time"),
    "last_changed_at": log.Derived("its newest snapshot's created_at"),
}, changes=True)
ALLOWLIST_LEAF = log.shape(ALLOWLIST_ENTRY, AllowlistEntry, {
    "id": _RECORD_ID, "environment": log.Bound("environment_id"),
    "fingerprint": log.Bound("fingerprint"), "artifact_name": log.Bound("artifact_name"),
    "description": log.Bound("description"), "user_name": log.Bound("actor"),
    "created_at": log.Bound("created_at"),
}, extra={"org": "the organization's name"}, changes=True)


def snapshot_leaf(org_name: str, s: Snapshot) -> dict[str, Any]:
    return SNAPSHOT_LEAF.leaf(s, org=org_name)


def log_snapshot(org: Organization, snapshot: Snapshot) -> None:
    log.append(org.id, SNAPSHOT, snapshot.id, snapshot_leaf(org.name, snapshot))


def log_environment(org: Organization, env: Environment) -> None:
    """`env` created or changed (policies, members, settings, name, archived): after its save."""
    log.append(org.id, ENVIRONMENT, env.id, ENVIRONMENT_LEAF.leaf(env, org=org.name))


def log_allowed(org: Organization, entry: AllowlistEntry) -> None:
    """An artifact allowed in an environment (again: its entry written over)."""
    log.append(org.id, ALLOWLIST_ENTRY, entry.id, ALLOWLIST_LEAF.leaf(entry, org=org.name))


def rebuild_environments(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = Environment.select(Environment, Organization.name).join(Organization).where(
        Environment.id.in_(list(versions)))
    return {e.id: ENVIRONMENT_LEAF.leaf(e, org=e.organization.name) for e in rows}


def rebuild_allowlist(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = (AllowlistEntry.select(AllowlistEntry, Environment.id, Organization.name)
            .join(Environment).join(Organization).where(AllowlistEntry.id.in_(list(versions))))
    return {a.id: ALLOWLIST_LEAF.leaf(a, org=a.environment.organization.name) for a in rows}


def rebuild_snapshots(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = (Snapshot.select(Snapshot, Environment.id, Organization.name).join(Environment)
            .join(Organization).where(Snapshot.id.in_(list(versions))))
    return {s.id: snapshot_leaf(s.environment.organization.name, s) for s in rows}


# The snapshots of the organization's environments: each must have an entry.
snapshot_rows = log.ids_after(lambda org, after: Snapshot.select(Snapshot.id).join(Environment)
                              .where((Environment.organization == org) & (Snapshot.id > after))
                              .order_by(Snapshot.id))


def snapshot_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"#{index} of environment {name}" for i, index, name in Snapshot.select(
        Snapshot.id, Snapshot.index, Environment.name).join(Environment)
        .where(Snapshot.id.in_(ids)).tuples()}


environment_rows = log.ids_after(lambda org, after: Environment.select(Environment.id).where(
    (Environment.organization == org) & (Environment.id > after)).order_by(Environment.id))
allowlist_rows = log.ids_after(lambda org, after: AllowlistEntry.select(AllowlistEntry.id)
                               .join(Environment).where((Environment.organization == org)
                                                        & (AllowlistEntry.id > after))
                               .order_by(AllowlistEntry.id))


def environment_labels(ids: list[int]) -> dict[int, str]:
    return dict(Environment.select(Environment.id, Environment.name)
                .where(Environment.id.in_(ids)).tuples())


def allowlist_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"{name} in environment {env}" for i, name, env in AllowlistEntry.select(
        AllowlistEntry.id, AllowlistEntry.artifact_name, Environment.name).join(Environment)
        .where(AllowlistEntry.id.in_(ids)).tuples()}
