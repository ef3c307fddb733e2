"""The transparency log's leaves of the governance context (domain.transparency.log): each
approval of an artifact, as it was given (approvals are never changed), with digests of its
reviews, commits, description and user data; its flow and environment by id (names can
change); each version of a policy and of a control, and each change of either. Re-derived
from the rows by `evidence-server verify-log`."""

from __future__ import annotations

from typing import Any

from ...storage.models import (
    Approval,
    Control,
    ControlVersion,
    Flow,
    Organization,
    Policy,
    PolicyVersion,
)
from ..transparency import log

APPROVAL = "approval"
POLICY = "policy"
POLICY_VERSION = "policy_version"
CONTROL = "control"
CONTROL_VERSION = "control_version"
_RECORD_ID = log.Derived("the entry's record id")
_ORG = log.Bound("org")
_ACTOR = log.Bound("actor")

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
POLICY_LEAF = log.shape(POLICY, Policy, {
    "id": _RECORD_ID, "organization": _ORG, "name": log.Bound("name"),
    "description": log.Bound("description"), "created_by": _ACTOR,
    "archived": log.Bound("archived"), "created_at": log.Bound("created_at"),
    "last_modified_at": log.Bound("last_modified_at"),
}, changes=True)
POLICY_VERSION_LEAF = log.shape(POLICY_VERSION, PolicyVersion, {
    "id": _RECORD_ID, "policy": log.Bound("policy_id"), "version": log.Bound("version"),
    "policy_yaml": log.Bound("policy_yaml_sha256", digested=True),
    "comment": log.Bound("comment"), "created_by": _ACTOR, "created_at": log.Bound("created_at"),
}, extra={"org": "the organization's name"})
CONTROL_LEAF = log.shape(CONTROL, Control, {
    "id": _RECORD_ID, "organization": _ORG, "identifier": log.Bound("identifier"),
    "name": log.Bound("name"), "description": log.Bound("description"),
    "links": log.Bound("links_sha256", digested=True), "tags": log.Bound("tags_sha256", digested=True),
    "version": log.Bound("version"), "archived": log.Bound("archived"), "created_by": _ACTOR,
    "created_at": log.Bound("created_at"), "last_modified_at": log.Bound("last_modified_at"),
}, changes=True)
CONTROL_VERSION_LEAF = log.shape(CONTROL_VERSION, ControlVersion, {
    "id": _RECORD_ID, "control": log.Bound("control_id"), "version": log.Bound("version"),
    "event": log.Bound("event"), "name": log.Bound("name"),
    "description": log.Bound("description"), "links": log.Bound("links_sha256", digested=True),
    "archived": log.Bound("archived"), "created_by": _ACTOR, "created_at": log.Bound("created_at"),
}, extra={"org": "the organization's name"})


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


def log_policy(org: Organization, policy: Policy, version: PolicyVersion | None) -> None:
    """`policy` created or changed, with its new `version` if one was made."""
    log.append(org.id, POLICY, policy.id, POLICY_LEAF.leaf(policy, org=org.name))
    if version is not None:
        log.append(org.id, POLICY_VERSION, version.id, POLICY_VERSION_LEAF.leaf(version, org=org.name))


def log_control(org: Organization, control: Control, version: ControlVersion | None = None
                ) -> None:
    """`control` changed (created, edited, archived, brought back: its new `version`; tagged)."""
    log.append(org.id, CONTROL, control.id, CONTROL_LEAF.leaf(control, org=org.name))
    if version is not None:
        log.append(org.id, CONTROL_VERSION, version.id,
                   CONTROL_VERSION_LEAF.leaf(version, org=org.name))


def _rebuild(shape: log.Shape, versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    """The leaves of `shape`'s rows (by id), of a table with an organization, as they are now."""
    model = shape.model
    rows = model.select(model, Organization.name).join(Organization).where(
        model.id.in_(list(versions)))
    return {row.id: shape.leaf(row, org=row.organization.name) for row in rows}


def _rebuild_versions(shape: log.Shape, owner: Any, versions: dict[int, int]
                      ) -> dict[int, dict[str, Any]]:
    """The same of a table of versions of `owner` (a table with an organization)."""
    model = shape.model
    rows = (model.select(model, owner.id, Organization.name).join(owner).join(Organization)
            .where(model.id.in_(list(versions))))
    return {row.id: shape.leaf(row, org=getattr(row, owner.__name__.lower()).organization.name)
            for row in rows}


def rebuild_policies(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    return _rebuild(POLICY_LEAF, versions)


def rebuild_policy_versions(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    return _rebuild_versions(POLICY_VERSION_LEAF, Policy, versions)


def rebuild_controls(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    return _rebuild(CONTROL_LEAF, versions)


def rebuild_control_versions(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    return _rebuild_versions(CONTROL_VERSION_LEAF, Control, versions)


def rebuild_approvals(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = Approval.select(Approval, Organization.name).join(Organization).where(
        Approval.id.in_(list(versions)))
    return {a.id: (approval_leaf if versions[a.id] == APPROVAL_LEAF.version else _approval_leaf_v1)(
        a.organization.name, a) for a in rows}


# The organization's approvals: each must have an entry.
approval_rows = log.ids_after(lambda org, after: Approval.select(Approval.id).where(
    (Approval.organization == org) & (Approval.id > after)).order_by(Approval.id))


def approval_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"#{number} of flow {name}" for i, number, name in Approval.select(
        Approval.id, Approval.number, Flow.name).join(Flow).where(Approval.id.in_(ids)).tuples()}


policy_rows = log.ids_after(lambda org, after: Policy.select(Policy.id).where(
    (Policy.organization == org) & (Policy.id > after)).order_by(Policy.id))
policy_version_rows = log.ids_after(lambda org, after: PolicyVersion.select(PolicyVersion.id)
                                    .join(Policy).where((Policy.organization == org)
                                                        & (PolicyVersion.id > after))
                                    .order_by(PolicyVersion.id))
control_rows = log.ids_after(lambda org, after: Control.select(Control.id).where(
    (Control.organization == org) & (Control.id > after)).order_by(Control.id))
control_version_rows = log.ids_after(lambda org, after: ControlVersion.select(ControlVersion.id)
                                     .join(Control).where((Control.organization == org)
                                                          & (ControlVersion.id > after))
                                     .order_by(ControlVersion.id))


def policy_labels(ids: list[int]) -> dict[int, str]:
    return dict(Policy.select(Policy.id, Policy.name).where(Policy.id.in_(ids)).tuples())


def policy_version_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"version {version} of policy {name}" for i, version, name in PolicyVersion.select(
        PolicyVersion.id, PolicyVersion.version, Policy.name).join(Policy)
        .where(PolicyVersion.id.in_(ids)).tuples()}


def control_labels(ids: list[int]) -> dict[int, str]:
    return dict(Control.select(Control.id, Control.identifier).where(Control.id.in_(ids)).tuples())


def control_version_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"version {version} of control {name}" for i, version, name in
            ControlVersion.select(ControlVersion.id, ControlVersion.version, Control.identifier)
            .join(Control).where(ControlVersion.id.in_(ids)).tuples()}
