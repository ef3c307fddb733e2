"""The transparency log's leaves of the evidence context (domain.transparency.log): an
attestation, and each other event of a trail's history (trail begun or updated, artifact
reported). A leaf names ids, not names that can change (a flow's), and digests what is bulky or
free-form (an attestation's data and summary, an event's payload) as it is stored. The same
functions re-derive the leaves from the rows, for `evidence-server verify-log`."""

from __future__ import annotations

from typing import Any

from ...storage.models import Attestation, Flow, Organization, Trail, TrailEvent
from ..transparency import log
from . import blobs

ATTESTATION = "attestation"
TRAIL_EVENT = "trail_event"
# The trail events logged as such. An attestation's event is logged as the attestation itself,
# a start or stop of running as the snapshot that saw it, an approval as itself (governance).
LOGGED_EVENTS = ("trail_reported", "trail_updated", "artifact_creation_reported")


def attestation_leaf(org_name: str, trail_name: str, a: Attestation) -> dict[str, Any]:
    return {
        "kind": ATTESTATION, "org": org_name, "id": a.uid, "flow_id": a.flow_id,
        "trail_id": a.trail_id, "trail": trail_name, "name": a.name, "type": a.type,
        "compliant": a.is_compliant, "artifact_fingerprint": a.artifact_fingerprint,
        "target_artifact": a.target_artifact, "attachment_sha256": a.attachment_id,
        "data_sha256": log.digest(a.data), "summary_sha256": log.digest(a.summary),
        "overrides": a.overrides, "created_at": a.created_at, "actor": a.created_by,
    }


def trail_event_leaf(org_name: str, trail: Trail, event_id: int, timestamp: float, type_: str,
                     payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": TRAIL_EVENT, "org": org_name, "id": event_id, "flow_id": trail.flow_id,
        "trail_id": trail.id, "trail": trail.name, "type": type_, "timestamp": timestamp,
        "payload_sha256": log.digest(payload), "actor": payload.get("user"),
    }


def log_attestation(org: Organization, trail: Trail, a: Attestation) -> None:
    log.append(org.id, ATTESTATION, a.id, attestation_leaf(org.name, trail.name, a))


def log_trail_event(org_id: int, org_name: str, trail: Trail, event: TrailEvent) -> None:
    if event.type in LOGGED_EVENTS:
        log.append(org_id, TRAIL_EVENT, event.id, trail_event_leaf(
            org_name, trail, event.id, event.timestamp, event.type, event.payload))


def rebuild_attestations(ids: list[int]) -> dict[int, dict[str, Any]]:
    """The leaves of the attestations as their rows say now, with the SHA-256 of each
    attachment as its stored chunks hash (a chunk changed in SQL shows as another digest)."""
    rows = (Attestation.select(Attestation, Trail.id, Trail.name, Organization.name)
            .join(Trail).switch(Attestation).join(Organization).where(Attestation.id.in_(ids)))
    rebuilt = {}
    for a in rows:
        leaf = attestation_leaf(a.organization.name, a.trail.name, a)
        if a.attachment_id is not None:
            leaf["attachment_sha256"] = blobs.digest(blobs.content_of(a.attachment_id))
        rebuilt[a.id] = leaf
    return rebuilt


def rebuild_trail_events(ids: list[int]) -> dict[int, dict[str, Any]]:
    rows = (TrailEvent.select(TrailEvent, Trail, Flow.id, Organization.name).join(Trail).join(Flow)
            .join(Organization).where(TrailEvent.id.in_(ids)))
    return {e.id: trail_event_leaf(e.trail.flow.organization.name, e.trail, e.id, e.timestamp,
                                   e.type, e.payload) for e in rows}
