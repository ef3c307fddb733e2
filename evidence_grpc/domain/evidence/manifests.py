"""A trail's manifest in the transparency log (domain.transparency.log.Subject): each append that
logs entries of a trail (its attestations, their bindings to artifacts, its events) ends with
one manifest of the trail: how many entries it has and the digest of their numbers in order
(log.entries_digest), its verdict then (what the service answers: trails.compliance_of) and the
digest of the template in force (trails.template_in_force), so that an audit package can show
that none of its entries is left out and that its verdict is the one logged (docs/api.md).
Manifests are appended, never re-derived from older ones: verify-log compares a trail's latest
manifest with its rows now."""

from __future__ import annotations

from typing import Any

import peewee

from ...storage.db import Prepared
from ...storage.models import (
    Artifact,
    Attestation,
    Flow,
    LogEntry,
    Organization,
    Trail,
    TrailEvent,
    TrailNewest,
)
from ..transparency import log
from . import trails
from .leaves import ATTESTATION, ATTESTATION_BOUND, TRAIL_EVENT, TRAIL_MANIFEST


def trail_entries(trail_id: int) -> list[int]:
    """The numbers of the trail's entries, in order: its attestations', their bindings' and
    its logged events'."""
    about = [(kind, model.select(model.id).where(model.trail == trail_id))
             for kind, model in ((ATTESTATION, Attestation), (ATTESTATION_BOUND, Attestation),
                                 (TRAIL_EVENT, TrailEvent))]
    query: peewee.SelectBase | None = None
    for kind, ids in about:
        part = LogEntry.select(LogEntry.number).where((LogEntry.kind == kind)
                                                      & LogEntry.record_id.in_(ids))
        query = part if query is None else query.union_all(part)
    assert query is not None
    return sorted(number for (number,) in query.tuples())


def _trail(trail_id: int) -> Trail | None:
    return (Trail.select(Trail, Flow, Organization).join(Flow).join(Organization)
            .where(Trail.id == trail_id).first())


def _fields(trail: Trail, status: str | None) -> dict[str, Any]:
    """A trail's manifest fields but its entries: its names by id, the digest of its template
    in force, its verdict."""
    return {"org": trail.flow.organization.name, "flow_id": trail.flow_id, "trail": trail.name,
            "template_sha256": log.digest(trails.template_in_force(trail)), "status": status}


_ATTESTATIONS = Prepared(lambda ids: Attestation.select(
    Attestation.id, Attestation.uid, Attestation.name, Attestation.type, Attestation.is_compliant,
    Attestation.target_artifact, Attestation.overrides).where(Attestation.id.in_(ids)),
    ids=list[int])
_ARTIFACTS = Prepared(lambda trail: Artifact.select(
    Artifact.id, Artifact.fingerprint, Artifact.template_reference_name, Artifact.uid).where(
    Artifact.trail == trail).order_by(Artifact.id), trail=int)


def _newest(rows: list[list[Any]]) -> list[list[Any]]:
    """The newest (highest seq) of each name at each level (target): all a verdict reads."""
    kept: dict[tuple[Any, Any], list[Any]] = {}
    for row in sorted(rows, key=lambda row: row[0]):
        kept[(row[5], row[2])] = row
    return sorted(kept.values(), key=lambda row: row[0])


def describe(trail_id: int, records: list[tuple[str, int]]) -> dict[str, Any]:
    """The trail's manifest fields, its verdict as the service answers it (trails.compliance_of)
    judged from the newest attestation of each name (TrailNewest, kept here: the attestations
    among `records` added to it) and its artifacts: a few rows, however many attestations it
    has."""
    trail = _trail(trail_id)
    assert trail is not None, "a trail's entries are logged in the transaction that keeps it"
    kept = TrailNewest.get_or_none(TrailNewest.trail == trail_id)
    if kept is None:  # made from every attestation of the trail, once
        made = [list(row) for row in trails.evidence_rows_of([trail])[trail.id].attestations]
        newest = _newest(made)
        TrailNewest.insert(trail=trail_id, newest=newest).execute()
    else:
        added = [list(row) for row in _ATTESTATIONS.rows(
            ids=[record for kind, record in records if kind == ATTESTATION])] \
            if any(kind == ATTESTATION for kind, _ in records) else []
        newest = _newest(kept.newest + added)
        if added:
            TrailNewest.update(newest=newest).where(TrailNewest.trail == trail_id).execute()
    rows = trails.EvidenceRows(tuple(tuple(row) for row in newest),
                               tuple(_ARTIFACTS.rows(trail=trail_id)))
    _, compliance = trails.judged(trails.template_in_force(trail), trail.last_modified_at,
                                  rows.evidence())
    return _fields(trail, compliance["status"])


def rebuild_manifests(ids: list[int]) -> dict[int, dict[str, Any]]:
    """The latest manifest of each trail (by id) as its rows say now (verify-log)."""
    rebuilt = {}
    for trail_id in ids:
        trail = _trail(trail_id)
        if trail is None:
            continue
        every = trail_entries(trail_id)
        manifests = [number for (number,) in LogEntry.select(LogEntry.number).where(
            (LogEntry.kind == TRAIL_MANIFEST) & (LogEntry.record_id == trail_id))
            .order_by(LogEntry.number.desc()).limit(2).tuples()]
        _, compliance = trails.compliance_of(trail, trails.evidence_of([trail])[trail.id])
        rebuilt[trail_id] = {**_fields(trail, compliance["status"]), "kind": TRAIL_MANIFEST,
                             "id": trail_id, "count": len(every),
                             "entries_sha256": log.entries_digest(every),
                             "previous": manifests[1] if len(manifests) > 1 else None}
    return rebuilt


SUBJECT = log.Subject(TRAIL_MANIFEST, trail_entries, describe)
