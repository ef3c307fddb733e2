"""The transparency log's leaves of the governance context (domain.transparency.log): each
approval of an artifact, as it was given (approvals are never changed), with digests of its
reviews, commits, description and user data; its flow and environment by id (names can
change). Re-derived from the rows by `evidence-server verify-log`."""

from __future__ import annotations

from typing import Any

from ...storage.models import Approval, Organization
from ..transparency import log

APPROVAL = "approval"

APPROVAL_LEAF = log.shape(APPROVAL, Approval, {
    "id": log.Bound("id"), "organization": log.Bound("org"), "flow": log.Bound("flow_id"),
    "number": log.Bound("number"), "fingerprint": log.Bound("fingerprint"),
    "artifact_name": log.Bound("artifact_name"), "environment": log.Bound("environment"),
    "environment_ref": log.Bound("environment_id"),
    "description": log.Bound("description_sha256", digested=True),
    "commits": log.Bound("commits_sha256", digested=True),
    "oldest_commit": log.Bound("oldest_commit"),
    "reviews": log.Bound("reviews_sha256", digested=True), "state": log.Bound("state"),
    "user_data": log.Bound("user_data_sha256", digested=True), "created_by": log.Bound("actor"),
    "created_at": log.Bound("created_at"), "last_modified_at": log.Bound("last_modified_at"),
}, version=2)


def approval_leaf(org_name: str, a: Approval) -> dict[str, Any]:
    return APPROVAL_LEAF.leaf(a, org=org_name)


def _approval_leaf_v1(org_name: str, a: Approval) -> dict[str, Any]:
    """The approval's leaf as written before 2026-12-02 (no "v")."""
    return {
        "kind": APPROVAL, "org": org_name, "id": a.id, "flow_id": a.flow_id, "number": a.number,
        "fingerprint": a.fingerprint, "environment_id": a.environment_id,
        "environment": a.environment, "state": a.state, "created_at": a.created_at,
        "actor": a.created_by, "reviews_sha256": log.digest(a.reviews),
        "commits_sha256": log.digest(a.commits), "description_sha256": log.digest(a.description),
        "user_data_sha256": log.digest(a.user_data),
    }


def log_approval(org: Organization, approval: Approval) -> None:
    log.append(org.id, APPROVAL, approval.id, approval_leaf(org.name, approval))


def rebuild_approvals(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = Approval.select(Approval, Organization.name).join(Organization).where(
        Approval.id.in_(list(versions)))
    return {a.id: (approval_leaf if versions[a.id] == APPROVAL_LEAF.version else _approval_leaf_v1)(
        a.organization.name, a) for a in rows}
