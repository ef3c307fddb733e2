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

from ...api.v2 import views
from ...storage.db import Prepared, as_given
from ...storage.models import (
    Artifact,
    ArtifactManifest,
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
from .compliance import artifact_state, trail_part, with_trail_part
from .leaves import (
    ARTIFACT,
    ARTIFACT_MANIFEST,
    ATTESTATION,
    ATTESTATION_BOUND,
    TRAIL_EVENT,
    TRAIL_MANIFEST,
)


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


def _trail(trail_id: int) -> tuple[Trail, str]:
    """The trail (what judges it, read in one compiled statement) and its organization's name."""
    name, flow_id, template_id, alone, org_name = _TRAIL.rows(trail=trail_id)[0]
    return Trail(id=trail_id, name=name, flow=flow_id, flow_template=template_id,
                 artifacts_judged_alone=alone), org_name


def _newest(rows: list[Any]) -> list[list[Any]]:
    """The newest (highest seq) attestation of each name at each level (target), in report
    order: all that judges a trail (compliance: the newest of each name)."""
    kept: dict[tuple[Any, Any], list[Any]] = {}
    for row in sorted(rows, key=lambda row: row[0]):
        kept[(row[5], row[2])] = list(row)
    return sorted(kept.values(), key=lambda row: row[0])


def _fields(trail: Trail, org_name: str, in_force: dict[str, Any],
            compliance: views.ComplianceStatus) -> dict[str, Any]:
    """A trail's manifest fields but its entries': the template in force (its digest) and its
    verdict, `compliance`."""
    return {"kind": TRAIL_MANIFEST, "id": trail.id, "org": org_name, "flow_id": trail.flow_id,
            "trail": trail.name, "template_sha256": log.digest(in_force),
            "status": compliance["status"]}


def manifest(trail_id: int, number: int, numbers: list[int], records: list[tuple[str, int]]
             ) -> log.Made:
    """The leaf of the trail's manifest `number`, once its entries `numbers` (of `records`)
    are logged; the trail's TrailManifest row made to say it. With it, its artifacts whose
    verdict is not the one their latest manifest logs (or that have none yet)."""
    trail, org_name = _trail(trail_id)
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
    made = _ARTIFACTS.rows(trail=trail_id)
    evidence = trails.EvidenceRows(tuple(tuple(row) for row in newest), tuple(made)).evidence()
    in_force = trails.template_in_force(trail)
    _, compliance = trails.judged(in_force, 0.0, evidence)
    fields = _fields(trail, org_name, in_force, compliance)
    kept = dict(_VERDICTS.rows(artifacts=[row[0] for row in made])) if made else {}
    changed = [(ARTIFACT_MANIFEST, artifact_id) for artifact_id, _, name, _ in made
               if kept.get(artifact_id) != log.digest(_verdict(
                   compliance, name, in_force, fields["template_sha256"]))]
    return {**fields, "count": count,
            "entries_sha256": listed, "previous": previous}, changed


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
        in_force = trails.template_in_force(trail)
        _, compliance = trails.judged(in_force, trail.last_modified_at,
                                      trails.evidence_of([trail])[trail.id])
        rebuilt[trail.id] = {**_fields(trail, trail.flow.organization.name, in_force, compliance),
                             "count": len(every), "entries_sha256": log.entries_digest(every),
                             "previous": manifests[1] if len(manifests) > 1 else None}
    return rebuilt


SUBJECT = log.Subject(TRAIL_MANIFEST, manifest)


# ---- an artifact's manifest ---------------------------------------------------------------------
# An artifact's entries: its reports (its own entries), and the entries of each attestation about
# it (its row points at the artifact) or, the artifact having a template name, of its trail for
# that name (its verdict reads those: of an artifact built again under the same name too); an
# attestation bound to it after the fact with its binding, listed where it was bound. Its verdict:
# its state as `get artifact` answers it, with the part of it its trail makes (trail_part) and the
# template judging it, so that an artifact package is judged again from its own files.

_VERDICTS = Prepared(lambda artifacts: ArtifactManifest.select(
    ArtifactManifest.artifact, ArtifactManifest.verdict_sha256).where(
    ArtifactManifest.artifact.in_(artifacts)), artifacts=list[int])
_ARTIFACT = Prepared(lambda artifact: Artifact.select(
    Artifact.uid, Artifact.fingerprint, Artifact.template_reference_name, Artifact.trail,
    Artifact.flow, Organization.name).join(Organization).where(Artifact.id == artifact),
    artifact=int)
_ARTIFACT_STATE = Prepared(lambda artifact: ArtifactManifest.select(
    ArtifactManifest.manifest, ArtifactManifest.count, ArtifactManifest.entries_sha256,
    ArtifactManifest.verdict_sha256).where(ArtifactManifest.artifact == artifact), artifact=int)
_SET_ARTIFACT_STATE = Prepared(lambda artifact, manifest, count, listed, verdict: (
    ArtifactManifest.update({
        ArtifactManifest.manifest: as_given(manifest), ArtifactManifest.count: as_given(count),
        ArtifactManifest.entries_sha256: as_given(listed),
        ArtifactManifest.verdict_sha256: as_given(verdict)})
    .where(ArtifactManifest.artifact == artifact)), artifact=int, manifest=int, count=int,
    listed=str, verdict=str)
_ABOUT_BY_NAME = Prepared(lambda trail, name: Artifact.select(Artifact.id).where(
    (Artifact.trail == trail) & (Artifact.template_reference_name == name)), trail=int, name=str)


def about(a: Attestation) -> list[int]:
    """The artifacts (ids) an attestation is an entry of: the one its row points at, and those
    of its trail whose template name it is made for."""
    ids = [row_id for (row_id,) in _ABOUT_BY_NAME.rows(trail=a.trail_id, name=a.target_artifact)
           ] if a.target_artifact else []
    return ids if a.artifact_id is None or a.artifact_id in ids else [a.artifact_id, *ids]


def about_artifact(artifact: Artifact) -> peewee.Expression:
    """The attestations whose entries are the artifact's (`about`)."""
    where = Attestation.artifact == artifact.id
    if artifact.template_reference_name:
        where |= (Attestation.trail == artifact.trail_id) & (
            Attestation.target_artifact == artifact.template_reference_name)
    return where


def artifact_reports(artifact: Artifact) -> list[int]:
    """The numbers of the entries of the artifact's reports (its own), in order."""
    return [number for (number,) in LogEntry.select(LogEntry.number).where(
        (LogEntry.kind == ARTIFACT) & (LogEntry.record_id == artifact.id))
        .order_by(LogEntry.number).tuples()]


def artifact_entries(artifact: Artifact) -> list[int]:
    """The numbers of the artifact's entries, in order: each where it became the artifact's
    (an attestation bound to it after the fact, just before its binding; the binding of one
    made for its name to another artifact, where it was bound)."""
    where = about_artifact(artifact)
    mine = {row_id: pointed == artifact.id for row_id, pointed in
            Attestation.select(Attestation.id, Attestation.artifact).where(where).tuples()}
    numbers: dict[tuple[str, int], int] = {}
    keyed = [(number, number) for number in artifact_reports(artifact)]
    for kind, record_id, number in LogEntry.select(
            LogEntry.kind, LogEntry.record_id, LogEntry.number).where(
            LogEntry.kind.in_([ATTESTATION, ATTESTATION_BOUND])
            & LogEntry.record_id.in_(Attestation.select(Attestation.id).where(where))).tuples():
        numbers[(kind, record_id)] = number
        if kind == ATTESTATION_BOUND:
            keyed.append((number, number))
    for (kind, record_id), number in numbers.items():
        if kind == ATTESTATION:  # bound to it (not to another artifact of its name): there
            bound = numbers.get((ATTESTATION_BOUND, record_id)) if mine[record_id] else None
            keyed.append((number if bound is None else bound, number))
    return [number for _, number in sorted(keyed)]


def _verdict(compliance: views.ComplianceStatus, name: str | None, in_force: dict[str, Any],
             template_sha256: str) -> dict[str, Any]:
    """An artifact's verdict (of template name `name`) in its trail judged `compliance` by
    `in_force` (whose digest is `template_sha256`): its state, and its trail's part of it
    (without a template name, its state is its trail's)."""
    status = artifact_state(compliance, name)
    return {"status": status,
            "trail_status": trail_part(compliance, in_force["artifacts_judged_alone"])
            if name else status, "template_sha256": template_sha256}


def judged_again(in_force: dict[str, Any], name: str | None, trail_status: str,
                 attestations: list[dict[str, Any]]) -> str:
    """An artifact's state made from what its package holds: the template judging it, its trail's
    part (as logged) and the attestations of its trail for its template name (compliance's
    shape: {id, name, type, is_compliant, seq, target, overrides})."""
    if not name:
        return trail_status
    _, compliance = trails.judged(in_force, 0.0, (attestations, [
        {"id": name, "fingerprint": name, "template_reference_name": name}]))
    return with_trail_part(trail_status,
                           compliance["artifacts_statuses"][name]["attestations_statuses"])


def _judged_artifact(artifact: Artifact, evidence: trails.Evidence | None) -> dict[str, Any]:
    """The artifact's verdict: its trail judged from `evidence`, or from what its TrailManifest
    row keeps (its rows when it has none)."""
    trail, _ = _trail(artifact.trail_id)
    if evidence is None:
        kept = _STATE.rows(trail=trail.id)
        newest = TrailManifest.newest.python_value(kept[0][3]) if kept else \
            _newest(list(trails.evidence_rows_of([trail])[trail.id].attestations))
        evidence = trails.EvidenceRows(tuple(tuple(row) for row in newest),
                                       tuple(_ARTIFACTS.rows(trail=trail.id))).evidence()
    in_force = trails.template_in_force(trail)
    _, compliance = trails.judged(in_force, 0.0, evidence)
    return _verdict(compliance, artifact.template_reference_name, in_force, log.digest(in_force))


def _artifact_fields(artifact: Artifact, org_name: str) -> dict[str, Any]:
    return {"kind": ARTIFACT_MANIFEST, "id": artifact.id, "uid": artifact.uid, "org": org_name,
            "flow_id": artifact.flow_id, "trail_id": artifact.trail_id,
            "fingerprint": artifact.fingerprint}


def artifact_manifest(artifact_id: int, number: int, numbers: list[int],
                      records: list[tuple[str, int]]) -> log.Made:
    """The leaf of the artifact's manifest `number`, once its entries `numbers` (of `records`)
    are logged, or none when it has none and its verdict is the one its latest manifest logs;
    its ArtifactManifest row made to say it. A report of it (which binds the attestations made
    for it before) lists its entries from its rows again, as does its first manifest."""
    uid, fingerprint, name, trail_id, flow_id, org_name = _ARTIFACT.rows(artifact=artifact_id)[0]
    artifact = Artifact(id=artifact_id, uid=uid, fingerprint=fingerprint, trail=trail_id,
                        flow=flow_id, template_reference_name=name)
    verdict = _judged_artifact(artifact, None)
    judged = log.digest(verdict)
    state = _ARTIFACT_STATE.rows(artifact=artifact_id)
    if state and not numbers and state[0][3] == judged:
        return None, []
    if state and not any(kind == ARTIFACT for kind, _ in records):
        previous, count, listed, _ = state[0]
        count, listed = count + len(numbers), log.entries_digest(numbers, listed)
    else:
        every = artifact_entries(artifact)
        previous, count, listed = state[0][0] if state else None, len(every), \
            log.entries_digest(every)
    if state:
        _SET_ARTIFACT_STATE.execute(artifact=artifact_id, manifest=number, count=count,
                                    listed=listed, verdict=judged)
    else:
        ArtifactManifest.insert(artifact=artifact_id, manifest=number, count=count,
                                entries_sha256=listed, verdict_sha256=judged).execute()
    return {**_artifact_fields(artifact, org_name), **verdict, "count": count,
            "entries_sha256": listed, "previous": previous}, []


def latest_artifact_manifest(artifact: Artifact) -> int | None:
    """The number of the artifact's latest manifest, if it has one."""
    return ArtifactManifest.select(ArtifactManifest.manifest).where(
        ArtifactManifest.artifact == artifact).scalar()


def rebuild_artifact_manifests(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    """The latest manifest of each artifact (by id) as its rows say now, its trail judged in
    full (verify-log)."""
    rebuilt = {}
    for artifact in Artifact.select(Artifact, Organization.name).join(Organization).where(
            Artifact.id.in_(list(versions))):
        every = artifact_entries(artifact)
        manifests = [number for (number,) in LogEntry.select(LogEntry.number).where(
            (LogEntry.kind == ARTIFACT_MANIFEST) & (LogEntry.record_id == artifact.id))
            .order_by(LogEntry.number.desc()).limit(2).tuples()]
        trail, _ = _trail(artifact.trail_id)
        rebuilt[artifact.id] = {
            **_artifact_fields(artifact, artifact.organization.name),
            **_judged_artifact(artifact, trails.evidence_of([trail])[trail.id]),
            "count": len(every), "entries_sha256": log.entries_digest(every),
            "previous": manifests[1] if len(manifests) > 1 else None}
    return rebuilt


ARTIFACT_SUBJECT = log.Subject(ARTIFACT_MANIFEST, artifact_manifest)
