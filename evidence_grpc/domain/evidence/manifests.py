"""A trail's manifest in the transparency log (domain.transparency.log.Subject): each append that
logs entries of a trail (its attestations, their bindings to artifacts, its events) ends with
one manifest of the trail: how many entries it has and the digest of their numbers in order
(log.entries_digest), the number of its manifest before, its verdict then (what the service
answers: trails.compliance_of) and the digest of the template in force (trails.template_in_force,
which an audit package carries), so that a package shows that none of its entries is left out
and that its verdict is the one logged (docs/api.md).

A manifest is made from the trail's TrailManifest row (its previous manifest's count and digest,
and the newest attestation of each name, all a verdict reads), kept in the same transaction: a
few rows a write, however many entries and attestations the trail has. verify-log compares a
trail's latest manifest with its rows now, judged in full."""

from __future__ import annotations

from typing import Any

import peewee

from ...storage.db import Prepared, as_given
from ...storage.models import (
    Artifact,
    Attestation,
    Flow,
    LogEntry,
    Organization,
    Trail,
    TrailEvent,
    TrailManifest,
)
from ..transparency import log
from . import trails
from .leaves import ATTESTATION, ATTESTATION_BOUND, TRAIL_EVENT, TRAIL_MANIFEST


def trail_entries(trail_id: int) -> list[int]:
    """The numbers of the trail's entries, in order: its attestations', their bindings' and
    its logged events'."""
    query: peewee.SelectBase | None = None
    for kind, model in ((ATTESTATION, Attestation), (ATTESTATION_BOUND, Attestation),
                        (TRAIL_EVENT, TrailEvent)):
        part = LogEntry.select(LogEntry.number).where(
            (LogEntry.kind == kind)
            & LogEntry.record_id.in_(model.select(model.id).where(model.trail == trail_id)))
        query = part if query is None else query.union_all(part)
    assert query is not None
    return sorted(number for (number,) in query.tuples())


def latest_manifest(trail: Trail) -> int | None:
    """The number of the trail's latest manifest, if it has one."""
    return TrailManifest.select(TrailManifest.manifest).where(
        TrailManifest.trail == trail).scalar()


_TRAIL = Prepared(lambda trail: Trail.select(
    Trail.name, Trail.flow, Trail.flow_template, Trail.artifacts_judged_alone,
    Organization.name).join(Flow).join(Organization).where(Trail.id == trail), trail=int)
_STATE = Prepared(lambda trail: TrailManifest.select(
    TrailManifest.manifest, TrailManifest.count, TrailManifest.entries_sha256,
    TrailManifest.newest).where(TrailManifest.trail == trail), trail=int)
_SET_STATE = Prepared(lambda trail, manifest, count, listed, newest: TrailManifest.update({
    TrailManifest.manifest: as_given(manifest), TrailManifest.count: as_given(count),
    TrailManifest.entries_sha256: as_given(listed), TrailManifest.newest: as_given(newest)})
    .where(TrailManifest.trail == trail), trail=int, manifest=int, count=int, listed=str,
    newest=str)
_ATTESTATIONS = Prepared(lambda ids: Attestation.select(
    Attestation.id, Attestation.uid, Attestation.name, Attestation.type, Attestation.is_compliant,
    Attestation.target_artifact, Attestation.overrides).where(Attestation.id.in_(ids)),
    ids=list[int])
_ARTIFACTS = Prepared(lambda trail: Artifact.select(
    Artifact.id, Artifact.fingerprint, Artifact.template_reference_name, Artifact.uid).where(
    Artifact.trail == trail).order_by(Artifact.id), trail=int)


def _newest(rows: list[Any]) -> list[list[Any]]:
    """The newest (highest seq) attestation of each name at each level (target), in report
    order: all that judges a trail (compliance: the newest of each name)."""
    kept: dict[tuple[Any, Any], list[Any]] = {}
    for row in sorted(rows, key=lambda row: row[0]):
        kept[(row[5], row[2])] = list(row)
    return sorted(kept.values(), key=lambda row: row[0])


def _fields(trail: Trail, org_name: str, in_force: dict[str, Any], evidence: trails.Evidence,
            evaluated_at: float) -> dict[str, Any]:
    """A trail's manifest fields but its entries': the template in force (its digest) and the
    verdict it makes of `evidence`."""
    _, compliance = trails.judged(in_force, evaluated_at, evidence)
    return {"kind": TRAIL_MANIFEST, "id": trail.id, "org": org_name, "flow_id": trail.flow_id,
            "trail": trail.name, "template_sha256": log.digest(in_force),
            "status": compliance["status"]}


def manifest(trail_id: int, number: int, numbers: list[int], records: list[tuple[str, int]]
             ) -> dict[str, Any]:
    """The leaf of the trail's manifest `number`, once its entries `numbers` (of `records`)
    are logged; the trail's TrailManifest row made to say it."""
    name, flow_id, template_id, alone, org_name = _TRAIL.rows(trail=trail_id)[0]
    trail = Trail(id=trail_id, name=name, flow=flow_id, flow_template=template_id,
                  artifacts_judged_alone=alone)
    state = _STATE.rows(trail=trail_id)
    if state:
        previous, count, listed, kept = state[0]
        added = _ATTESTATIONS.rows(ids=[record for kind, record in records if kind == ATTESTATION]) \
            if any(kind == ATTESTATION for kind, _ in records) else []
        newest = _newest([*TrailManifest.newest.python_value(kept), *added])
        count, listed = count + len(numbers), log.entries_digest(numbers, listed)
        _SET_STATE.execute(trail=trail_id, manifest=number, count=count, listed=listed,
                           newest=TrailManifest.newest.db_value(newest))
    else:  # its first since migration 0027: made from its rows
        every = trail_entries(trail_id)
        previous, count, listed = None, len(every), log.entries_digest(every)
        newest = _newest(list(trails.evidence_rows_of([trail])[trail_id].attestations))
        TrailManifest.insert(trail=trail_id, manifest=number, count=count, entries_sha256=listed,
                             newest=newest).execute()
    evidence = trails.EvidenceRows(tuple(tuple(row) for row in newest),
                                   tuple(_ARTIFACTS.rows(trail=trail_id))).evidence()
    return {**_fields(trail, org_name, trails.template_in_force(trail), evidence, 0.0),
            "count": count, "entries_sha256": listed, "previous": previous}


def rebuild_manifests(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    """The latest manifest of each trail (by id) as its rows say now, judged in full
    (verify-log)."""
    rebuilt = {}
    for trail in Trail.select(Trail, Flow, Organization).join(Flow).join(Organization).where(
            Trail.id.in_(list(versions))):
        every = trail_entries(trail.id)
        manifests = [number for (number,) in LogEntry.select(LogEntry.number).where(
            (LogEntry.kind == TRAIL_MANIFEST) & (LogEntry.record_id == trail.id))
            .order_by(LogEntry.number.desc()).limit(2).tuples()]
        rebuilt[trail.id] = {**_fields(trail, trail.flow.organization.name,
                                       trails.template_in_force(trail),
                                       trails.evidence_of([trail])[trail.id],
                                       trail.last_modified_at),
                             "count": len(every), "entries_sha256": log.entries_digest(every),
                             "previous": manifests[1] if len(manifests) > 1 else None}
    return rebuilt


SUBJECT = log.Subject(TRAIL_MANIFEST, manifest)
