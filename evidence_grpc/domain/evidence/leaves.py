"""The transparency log's leaves of the evidence context (domain.transparency.log): an
attestation as it was made, the binding of an attestation made before its artifact to that
artifact once reported, and each other event of a trail's history (trail begun or updated,
artifact reported). A leaf names ids, not names that can change (a flow's), and digests what is
bulky or free-form (an attestation's data and summary, an event's payload) as it is stored. The
same functions re-derive the leaves from the rows, for `evidence-server verify-log`."""

from __future__ import annotations

from typing import Any

import peewee

from ...storage.db import in_chunks
from ...storage.models import Artifact, Attestation, Flow, LogEntry, Organization, Trail, TrailEvent
from ..transparency import log
from . import blobs

ATTESTATION = "attestation"
ATTESTATION_BOUND = "attestation_bound"
TRAIL_EVENT = "trail_event"
TRAIL_MANIFEST = "trail_manifest"  # evidence.manifests
# The trail events logged as such. An attestation's event is logged as the attestation itself,
# a start or stop of running as the snapshot that saw it, an approval as itself (governance).
LOGGED_EVENTS = ("trail_reported", "trail_updated", "artifact_creation_reported")


def content_digests(data: dict[str, Any], summary: dict[str, Any]) -> tuple[str, str]:
    """The digests of an attestation's data and summary in its leaf: made before its write
    transaction takes SQLite's writer lock, where they would hold up other writers."""
    return log.digest(data), log.digest(summary)


def attestation_leaf(org_name: str, trail_name: str, a: Attestation,
                     digests: tuple[str, str] | None = None) -> dict[str, Any]:
    """`digests`: content_digests of its data and summary, when made beforehand."""
    data_sha256, summary_sha256 = digests or content_digests(a.data, a.summary)
    return {
        "kind": ATTESTATION, "org": org_name, "id": a.uid, "flow_id": a.flow_id,
        "trail_id": a.trail_id, "trail": trail_name, "name": a.name, "type": a.type,
        "compliant": a.is_compliant, "artifact_fingerprint": a.artifact_fingerprint,
        "target_artifact": a.target_artifact, "attachment_sha256": a.attachment_id,
        "data_sha256": data_sha256, "summary_sha256": summary_sha256,
        "overrides": a.overrides, "created_at": a.created_at, "actor": a.created_by,
    }


def binding_leaf(org_name: str, a: Attestation, artifact_uid: str | None) -> dict[str, Any]:
    """An attestation made for a template name before its artifact (`--name app.tests` with
    `--commit`), bound to the artifact `artifact_uid` reported later: its own leaf stays as it
    was made (no fingerprint), this one says which artifact it is about."""
    return {
        "kind": ATTESTATION_BOUND, "org": org_name, "id": a.uid, "flow_id": a.flow_id,
        "trail_id": a.trail_id, "artifact_id": artifact_uid,
        "artifact_fingerprint": a.artifact_fingerprint,
    }


def trail_event_leaf(org_name: str, trail: Trail, event_id: int, timestamp: float, type_: str,
                     payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": TRAIL_EVENT, "org": org_name, "id": event_id, "flow_id": trail.flow_id,
        "trail_id": trail.id, "trail": trail.name, "type": type_, "timestamp": timestamp,
        "payload_sha256": log.digest(payload), "actor": payload.get("user"),
    }


def log_attestation(org: Organization, trail: Trail, a: Attestation,
                    digests: tuple[str, str] | None = None) -> None:
    log.append(org.id, ATTESTATION, a.id, attestation_leaf(org.name, trail.name, a, digests),
               (TRAIL_MANIFEST, trail.id))


def log_binding(org: Organization, a: Attestation, artifact: Artifact) -> None:
    """`a` just bound to `artifact` (its artifact and fingerprint set in place)."""
    log.append(org.id, ATTESTATION_BOUND, a.id, binding_leaf(org.name, a, artifact.uid),
               (TRAIL_MANIFEST, a.trail_id))


def binding_log_indexes(uids: list[str]) -> dict[str, int]:
    """Attestation uid -> the log entry of its binding, for those bound to an artifact later."""
    found: dict[str, int] = {}
    for chunk in in_chunks(sorted(set(uids))):
        found.update(Attestation.select(Attestation.uid, LogEntry.number).join(
            LogEntry, on=(LogEntry.kind == ATTESTATION_BOUND) & (LogEntry.record_id == Attestation.id))
            .where(Attestation.uid.in_(chunk)).tuples())
    return found


def log_trail_event(org_id: int, org_name: str, trail: Trail, event: TrailEvent) -> None:
    if event.type in LOGGED_EVENTS:
        log.append(org_id, TRAIL_EVENT, event.id, trail_event_leaf(
            org_name, trail, event.id, event.timestamp, event.type, event.payload),
            (TRAIL_MANIFEST, trail.id))


def artifact_log_indexes(artifacts: list[Artifact]) -> dict[int, int]:
    """Artifact id -> the log entry of its latest report (its trail's artifact_creation_reported
    event of the artifact's fingerprint at its last_modified_at), for artifacts reported since
    the log began."""
    wanted = {(a.trail_id, a.last_modified_at, a.fingerprint): a.id for a in artifacts
              if a.last_modified_at is not None}
    events: dict[int, int] = {}  # event id -> artifact id
    for chunk in in_chunks(sorted({key[:2] for key in wanted})):
        rows = TrailEvent.select(TrailEvent.id, TrailEvent.trail, TrailEvent.timestamp,
                                 TrailEvent.payload).where(
            TrailEvent.trail.in_(sorted({trail for trail, _ in chunk}))
            & TrailEvent.timestamp.in_(sorted({stamp for _, stamp in chunk}))
            & (TrailEvent.type == "artifact_creation_reported"))
        for event in rows:
            found = wanted.get((event.trail_id, event.timestamp, event.payload.get("fingerprint")))
            if found is not None:
                events[event.id] = found
    return {events[event]: number for event, number in log.log_indexes(TRAIL_EVENT, events).items()}


def rebuild_attestations(ids: list[int]) -> dict[int, dict[str, Any]]:
    """The leaves of the attestations as their rows say now, with the SHA-256 of each
    attachment as its stored chunks hash (a chunk changed in SQL shows as another digest).
    One bound later (an entry of its binding is in the log) was made without a fingerprint:
    its binding's leaf holds the one its row has now."""
    rows = (Attestation.select(Attestation, Trail.id, Trail.name, Organization.name)
            .join(Trail).switch(Attestation).join(Organization).where(Attestation.id.in_(ids)))
    bound = log.log_indexes(ATTESTATION_BOUND, ids)
    rebuilt = {}
    for a in rows:
        if a.id in bound:
            a.artifact_fingerprint = None
        leaf = attestation_leaf(a.organization.name, a.trail.name, a)
        if a.attachment_id is not None:
            leaf["attachment_sha256"] = blobs.digest(blobs.content_of(a.attachment_id))
        rebuilt[a.id] = leaf
    return rebuilt


def rebuild_bindings(ids: list[int]) -> dict[int, dict[str, Any]]:
    """The binding leaves of the attestations (by id) as their rows say now."""
    rows = (Attestation.select(Attestation, Artifact.uid, Organization.name)
            .join(Artifact, peewee.JOIN.LEFT_OUTER).switch(Attestation).join(Organization)
            .where(Attestation.id.in_(ids)))
    return {a.id: binding_leaf(a.organization.name, a, a.artifact.uid if a.artifact else None)
            for a in rows}


def rebuild_trail_events(ids: list[int]) -> dict[int, dict[str, Any]]:
    rows = (TrailEvent.select(TrailEvent, Trail, Flow.id, Organization.name).join(Trail).join(Flow)
            .join(Organization).where(TrailEvent.id.in_(ids)))
    return {e.id: trail_event_leaf(e.trail.flow.organization.name, e.trail, e.id, e.timestamp,
                                   e.type, e.payload) for e in rows}


# ---- the rows that must each have an entry (log.register's `rows`, `label`) ----------------------

attestation_rows = log.ids_after(lambda org, after: Attestation.select(Attestation.id).where(
    (Attestation.organization == org) & (Attestation.id > after)).order_by(Attestation.id))
# The attestations bound to an artifact reported after they were made (artifacts._bind_pending):
# made without one, each has the entry of its binding.
bound_rows = log.ids_after(lambda org, after: Attestation.select(Attestation.id).join(
    Artifact).where((Attestation.organization == org) & (Attestation.id > after)
                    & (Artifact.created_at > Attestation.created_at)).order_by(Attestation.id))
trail_event_rows = log.ids_after(lambda org, after: TrailEvent.select(TrailEvent.id).join(Trail)
                                 .join(Flow).where((Flow.organization == org)
                                                   & (TrailEvent.id > after)
                                                   & TrailEvent.type.in_(LOGGED_EVENTS))
                                 .order_by(TrailEvent.id))


def attestation_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"{name} in trail {trail}" for i, name, trail in Attestation.select(
        Attestation.id, Attestation.name, Trail.name).join(Trail)
        .where(Attestation.id.in_(ids)).tuples()}


def trail_event_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"{type_} in trail {trail}" for i, type_, trail in TrailEvent.select(
        TrailEvent.id, TrailEvent.type, Trail.name).join(Trail)
        .where(TrailEvent.id.in_(ids)).tuples()}
