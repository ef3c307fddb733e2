"""The transparency log's leaves of the governance context (domain.transparency.log): each
approval of an artifact, as it was given (approvals are never changed), with digests of its
reviews, commits, description and user data; its flow and environment by id (names can
change). Re-derived from the rows by `evidence-server verify-log`."""

from __future__ import annotations

from typing import Any

from ...storage.models import Approval, Flow, Organization
from ..transparency import log

APPROVAL = "approval"


def approval_leaf(org_name: str, a: Approval) -> dict[str, Any]:
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


def rebuild_approvals(ids: list[int]) -> dict[int, dict[str, Any]]:
    rows = Approval.select(Approval, Organization.name).join(Organization).where(Approval.id.in_(ids))
    return {a.id: approval_leaf(a.organization.name, a) for a in rows}


# The organization's approvals: each must have an entry.
approval_rows = log.ids_after(lambda org, after: Approval.select(Approval.id).where(
    (Approval.organization == org) & (Approval.id > after)).order_by(Approval.id))


def approval_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"#{number} of flow {name}" for i, number, name in Approval.select(
        Approval.id, Approval.number, Flow.name).join(Flow).where(Approval.id.in_(ids)).tuples()}
