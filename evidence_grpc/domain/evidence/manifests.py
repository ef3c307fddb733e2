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

from ...storage.models import Attestation, Flow, LogEntry, Organization, Trail, TrailEvent
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


def _trail(trail_id: int) -> Trail:
    return (Trail.select(Trail, Flow, Organization).join(Flow).join(Organization)
            .where(Trail.id == trail_id).get())


def describe(trail_id: int) -> dict[str, Any]:
    """A trail's manifest fields but its entries: its names by id, the digest of its template
    in force, its verdict as the service answers it now."""
    trail = _trail(trail_id)
    _, compliance = trails.compliance_of(trail, trails.evidence_of([trail])[trail.id])
    return {"org": trail.flow.organization.name, "flow_id": trail.flow_id, "trail": trail.name,
            "template_sha256": log.digest(trails.template_in_force(trail)),
            "status": compliance["status"]}


def rebuild_manifests(ids: list[int]) -> dict[int, dict[str, Any]]:
    """The latest manifest of each trail (by id) as its rows say now (verify-log)."""
    rebuilt = {}
    for trail_id in ids:
        if not Trail.select().where(Trail.id == trail_id).exists():
            continue
        every = trail_entries(trail_id)
        manifests = [number for (number,) in LogEntry.select(LogEntry.number).where(
            (LogEntry.kind == TRAIL_MANIFEST) & (LogEntry.record_id == trail_id))
            .order_by(LogEntry.number.desc()).limit(2).tuples()]
        rebuilt[trail_id] = {**describe(trail_id), "kind": TRAIL_MANIFEST, "id": trail_id,
                             "count": len(every), "entries_sha256": log.entries_digest(every),
                             "previous": manifests[1] if len(manifests) > 1 else None}
    return rebuilt


SUBJECT = log.Subject(TRAIL_MANIFEST, trail_entries, describe)
