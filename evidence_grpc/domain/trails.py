"""Trails: one per change through a flow. Beginning a trail twice updates it."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..storage.db import now, retry_on_conflict, write_transaction
from ..storage.models import Artifact, Attestation, Flow, Organization, Trail, TrailEvent, User
from .compliance import evaluate_trail
from .errors import NotFound
from .flows import find_flow
from .names import check_name
from .pages import Page
from .templates import parse_template, template_view

# Fields of the begin-trail data that are stored as given; absent ones are left as they were.
TRAIL_FIELDS = ("description", "git_commit_info", "repo_info", "origin_url", "external_urls",
                "user_data")


def begin_trail(org: Organization, flow_name: str, data: dict[str, Any], user: User,
                template_yaml: str | None = None) -> tuple[Trail, bool]:
    """Create the trail or update the given fields of an existing one. Returns (trail, created).
    Concurrent begins of one trail race on the (flow, name) key; the loser retries as an update."""
    name = check_name("name", data.get("name", ""))
    if template_yaml is not None:
        parse_template(template_yaml)
    flow = find_flow(org, flow_name)

    def write() -> tuple[Trail, bool]:
        with write_transaction():
            stamp = now()
            trail = Trail.get_or_none((Trail.flow == flow) & (Trail.name == name))
            created = trail is None
            if created:
                trail = Trail(flow=flow, name=name, created_by=user.name, created_at=stamp,
                              external_urls={})
            for field in TRAIL_FIELDS:
                if field in data:
                    setattr(trail, field, data[field])
            if template_yaml is not None:
                trail.template_yaml = template_yaml
            trail.last_modified_at = stamp
            trail.save()
            TrailEvent.create(trail=trail, timestamp=stamp,
                              type="trail_reported" if created else "trail_updated",
                              payload=_event_payload(data, user))
            return trail, created

    return retry_on_conflict(write)


def _event_payload(data: dict[str, Any], user: User) -> dict[str, Any]:
    payload = {k: data[k] for k in ("git_commit_info", "repo_info", "origin_url", "user_data")
               if data.get(k) is not None}
    payload["user"] = user.name
    return payload


def find_trail(org: Organization, flow_name: str, trail_name: str) -> Trail:
    """The trail of that flow (the flow also found by a former name), with its flow loaded."""
    trail = (Trail.select(Trail, Flow).join(Flow)
             .where((Flow.organization == org) & (Flow.name == flow_name)
                    & (Trail.name == trail_name)).first())
    if trail is not None:
        return trail
    flow = find_flow(org, flow_name)
    trail = Trail.get_or_none((Trail.flow == flow) & (Trail.name == trail_name))
    if trail is None:
        raise NotFound(f"Trail '{trail_name}' not found in flow '{flow.name}'")
    trail.flow = flow
    return trail


def list_flow_trails(org: Organization, flow_name: str, page: Page) -> tuple[list[Trail], dict]:
    flow = find_flow(org, flow_name)
    query = Trail.select(Trail, Flow).join(Flow).where(Trail.flow == flow)
    return page.apply(query.order_by(Trail.created_at.desc(), Trail.id.desc()))


def list_trails(org: Organization, page: Page, flow_name: str | None = None,
                flow_tags: list[str] | None = None) -> tuple[list[Trail], dict]:
    flows = Flow.select().where((Flow.organization == org) & (Flow.archived == False))  # noqa: E712
    if flow_name:
        flows = flows.where(Flow.id == find_flow(org, flow_name).id)
    wanted = [tag.partition("=") for tag in flow_tags or []]
    flow_ids = [f.id for f in flows
                if all((f.tags or {}).get(k) == v for k, _, v in wanted)]
    query = Trail.select(Trail, Flow).join(Flow).where(Trail.flow.in_(flow_ids))
    return page.apply(query.order_by(Trail.created_at.desc(), Trail.id.desc()))


def events_of(trails: list[Trail]) -> dict[int, list[dict[str, Any]]]:
    """Events of several trails in one query, oldest first."""
    by_trail: dict[int, list[dict[str, Any]]] = defaultdict(list)
    if not trails:
        return by_trail
    rows = (TrailEvent.select().where(TrailEvent.trail.in_([t.id for t in trails]))
            .order_by(TrailEvent.timestamp, TrailEvent.id))
    for event in rows:
        by_trail[event.trail_id].append(
            {"timestamp": event.timestamp, "type": event.type, **(event.payload or {})})
    return by_trail


Evidence = tuple[list[dict[str, Any]], list[dict[str, Any]]]


def evidence_of(trails: list[Trail]) -> dict[int, Evidence]:
    """(attestations, artifacts) of several trails in two queries, as compliance reads them."""
    by_trail: dict[int, Evidence] = defaultdict(lambda: ([], []))
    ids = [t.id for t in trails]
    if not ids:
        return by_trail
    attestation_rows = (Attestation.select(
        Attestation.id, Attestation.trail, Attestation.uid, Attestation.name, Attestation.type,
        Attestation.is_compliant, Attestation.created_at, Attestation.target_artifact,
        Attestation.overrides).where(Attestation.trail.in_(ids)).dicts())
    for row in attestation_rows:
        by_trail[row["trail"]][0].append({
            "id": row["uid"], "name": row["name"], "type": row["type"],
            "is_compliant": row["is_compliant"], "created_at": row["created_at"],
            "seq": row["id"], "target": row["target_artifact"], "overrides": row["overrides"]})
    artifact_rows = (Artifact.select(Artifact.id, Artifact.trail, Artifact.fingerprint,
                                     Artifact.template_reference_name)
                     .where(Artifact.trail.in_(ids)).order_by(Artifact.id).dicts())
    for row in artifact_rows:
        by_trail[row["trail"]][1].append({
            "id": str(row["id"]), "fingerprint": row["fingerprint"],
            "template_reference_name": row["template_reference_name"]})
    return by_trail


def compliance_of(trail: Trail, evidence: Evidence) -> tuple[dict[str, Any], dict[str, Any]]:
    """(template view, compliance_status) of a trail whose `flow` is loaded."""
    template = template_view(trail.template_yaml or trail.flow.template_yaml)
    attestations, artifacts = evidence
    return template, evaluate_trail(template, trail.last_modified_at, attestations, artifacts)


def trail_view(trail: Trail, org_name: str, events: list[dict[str, Any]],
               html_base: str, evidence: Evidence) -> dict[str, Any]:
    """The trail as the contract answers it."""
    flow = trail.flow
    template, compliance = compliance_of(trail, evidence)
    repo_id = (trail.repo_info or {}).get("id")
    return {
        "name": trail.name,
        "description": trail.description or "",
        "git_commit_info": trail.git_commit_info,
        "origin_url": trail.origin_url,
        "user_data": trail.user_data,
        "repo_ids": [repo_id] if repo_id else [],
        "last_modified_at": trail.last_modified_at,
        "created_at": trail.created_at,
        "compliance_status": compliance,
        "template": template,
        "compliance_state": compliance["status"],
        "is_compliant": compliance["is_compliant"],
        "events": events,
        "created_by": trail.created_by,
        "flow": {"name": flow.name, "tags": flow.tags or {}},
        "external_urls": trail.external_urls or {},
        "html_url": f"{html_base}/{org_name}/flows/{flow.name}/trails/{trail.name}",
    }
