"""The transparency log's leaves of the evidence context (domain.transparency.log): an
attestation as it was made, the binding of an attestation made before its artifact to that
artifact once reported, each other event of a trail's history (trail begun or updated,
artifact reported), and what changes in place, an entry at each change: an artifact at each
report, a flow (created, its template or settings changed, renamed, archived, tagged), a trail
(begun or updated). Each kind's leaf is declared column by column (`log.shape`); a leaf names
ids, not names that can change (a flow's), and digests what is bulky or free-form (an
attestation's data and summary, an event's payload, a template) as it is stored. The same
functions re-derive the leaves from the rows, for `evidence-server verify-log`."""

from __future__ import annotations

from typing import Any

import peewee

from ...storage.db import in_chunks
from ...storage.models import (
    Artifact,
    Attestation,
    AttestationType,
    AttestationTypeVersion,
    Flow,
    FlowTemplate,
    LogEntry,
    Organization,
    Repo,
    Trail,
    TrailEvent,
)
from ..kernel import limits
from ..transparency import log
from . import blobs

ATTESTATION = "attestation"
ATTESTATION_BOUND = "attestation_bound"
TRAIL_EVENT = "trail_event"
TRAIL_MANIFEST = "trail_manifest"  # evidence.manifests
ARTIFACT_MANIFEST = "artifact_manifest"  # evidence.manifests
ARTIFACT = "artifact"
FLOW = "flow"
FLOW_TEMPLATE = "flow_template"
TRAIL = "trail"
REPO = "repo"
ATTESTATION_TYPE = "attestation_type"
ATTESTATION_TYPE_VERSION = "attestation_type_version"
# The trail events logged as such. An attestation's event is logged as the attestation itself,
# a start or stop of running as the snapshot that saw it, an approval as itself (governance).
LOGGED_EVENTS = ("trail_reported", "trail_updated", "artifact_creation_reported")

_RECORD_ID = log.Derived("the entry's record id")
_ORG = log.Bound("org")  # the organization's name, given by the builder
_FLOW, _TRAIL = log.Bound("flow_id"), log.Bound("trail_id")

ATTESTATION_LEAF = log.shape(ATTESTATION, Attestation, {
    "id": _RECORD_ID, "uid": log.Bound("id"), "organization": _ORG, "flow": _FLOW,
    "trail": _TRAIL, "artifact": log.Bound("artifact_id"), "name": log.Bound("name"),
    "type": log.Bound("type"), "target_artifact": log.Bound("target_artifact"),
    "artifact_fingerprint": log.Bound("artifact_fingerprint"),
    "is_compliant": log.Bound("compliant"), "data": log.Bound("data_sha256", digested=True),
    "summary": log.Bound("summary_sha256", digested=True),
    "attachment": log.Bound("attachment_sha256"), "attachment_name": log.Bound("attachment_name"),
    "overrides": log.Bound("overrides"), "git_commit": log.Bound("git_commit"),
    "control": log.Derived("a decision's control, as its summary (bound) names it: "
                           "verify-log derives it again"),
    "created_by": log.Bound("actor"), "created_at": log.Bound("created_at"),
}, extra={"trail": "the trail's name (a trail is never renamed)"}, version=2)
# A binding says which artifact an attestation made before it is about; the rest of the
# attestation is its own entry's.
BINDING_LEAF = log.shape(ATTESTATION_BOUND, Attestation, {
    "uid": log.Bound("id"), "organization": _ORG, "flow": _FLOW, "trail": _TRAIL,
    "artifact_fingerprint": log.Bound("artifact_fingerprint"),
    "artifact": log.Derived("held as the artifact's uid (artifact_id)"),
}, extra={"artifact_id": "the uid of the artifact it is bound to"}, whole_text=True,
    others=log.Derived("bound by the attestation's own entry"))
TRAIL_EVENT_LEAF = log.shape(TRAIL_EVENT, TrailEvent, {
    "id": log.Bound("id"), "trail": _TRAIL, "timestamp": log.Bound("timestamp"),
    "type": log.Bound("type"), "payload": log.Bound("payload_sha256", digested=True),
}, extra={"org": "the organization's name", "flow_id": "the trail's flow",
          "trail": "the trail's name (at most 256 characters)",
          "actor": "the payload's user"}, whole_text=True)
ARTIFACT_LEAF = log.shape(ARTIFACT, Artifact, {
    "id": _RECORD_ID, "uid": log.Bound("id"), "organization": _ORG, "flow": _FLOW,
    "trail": _TRAIL, "fingerprint": log.Bound("fingerprint"), "name": log.Bound("name"),
    "template_reference_name": log.Bound("template_reference_name"),
    "git_commit": log.Bound("git_commit"),
    "git_commit_info": log.Bound("git_commit_info_sha256", digested=True),
    "repo_info": log.Bound("repo_info_sha256", digested=True),
    "repo": log.Derived("the repository its repo_info, or its trail's, names (both bound), "
                        "learned when either is reported"),
    "build_url": log.Bound("build_url"), "commit_url": log.Bound("commit_url"),
    "repo_url": log.Bound("repo_url"),
    "external_urls": log.Bound("external_urls_sha256", digested=True),
    "annotations": log.Bound("annotations_sha256", digested=True),
    "commits": log.Bound("commits_sha256", digested=True), "created_by": log.Bound("actor"),
    "created_at": log.Bound("created_at"), "last_modified_at": log.Bound("last_modified_at"),
}, changes=True)
FLOW_TEMPLATE_LEAF = log.shape(FLOW_TEMPLATE, FlowTemplate, {
    "id": log.Bound("id"), "flow": _FLOW,
    "template_yaml": log.Bound("template_yaml_sha256", digested=True),
    "legacy_template": log.Bound("legacy_template_sha256", digested=True),
    "for_trail": log.Bound("for_trail"), "created_at": log.Bound("created_at"),
})  # a part: its digest is in the leaves of the flow that has it and of the trails judged by it
FLOW_LEAF = log.shape(FLOW, Flow, {
    "id": _RECORD_ID, "organization": _ORG, "name": log.Bound("name"),
    "description": log.Bound("description"), "visibility": log.Bound("visibility"),
    "template_yaml": log.Bound("template_yaml_sha256", digested=True),
    "legacy_template": log.Bound("legacy_template_sha256", digested=True),
    "template": log.Bound("template_id"), "repo_url": log.Bound("repo_url"),
    "tags": log.Bound("tags_sha256", digested=True),
    "archived": log.Bound("archived"), "created_at": log.Bound("created_at"),
    "last_modified_at": log.Bound("last_modified_at"),
    "last_deployment_at": log.Derived("when an artifact of it last started running: the "
                                      "snapshots' entries bind it"),
}, extra={"template_sha256": "the digest of its template's flow_template leaf"}, changes=True)
TRAIL_LEAF = log.shape(TRAIL, Trail, {
    "id": _RECORD_ID, "flow": _FLOW, "name": log.Bound("name"),
    "description": log.Bound("description"),
    "git_commit_info": log.Bound("git_commit_info_sha256", digested=True),
    "repo_info": log.Bound("repo_info_sha256", digested=True),
    "origin_url": log.Bound("origin_url"),
    "external_urls": log.Bound("external_urls_sha256", digested=True),
    "user_data": log.Bound("user_data_sha256", digested=True),
    "template_yaml": log.Bound("template_yaml_sha256", digested=True),
    "flow_template": log.Bound("flow_template_id"),
    "artifacts_judged_alone": log.Bound("artifacts_judged_alone"),
    "created_by": log.Bound("actor"), "created_at": log.Bound("created_at"),
    "last_modified_at": log.Derived("the time of its latest event: each is an entry"),
}, extra={"org": "the organization's name",
          "flow_template_sha256": "the digest of the flow_template leaf it is judged by"},
    changes=True)


REPO_LEAF = log.shape(REPO, Repo, {
    "id": _RECORD_ID, "organization": _ORG, "repo_id": log.Bound("repo_id"),
    "name": log.Bound("name"), "url": log.Bound("url"), "provider": log.Bound("provider"),
    "description": log.Bound("description"),
    "namespace_path": log.Bound("namespace_path_sha256", digested=True),
    "tags": log.Bound("tags_sha256", digested=True), "created_at": log.Bound("created_at"),
    "last_seen_at": log.Derived("when evidence last named it, in steps of a minute: each report "
                                "that did is an entry of its own"),
}, changes=True)
ATTESTATION_TYPE_LEAF = log.shape(ATTESTATION_TYPE, AttestationType, {
    "id": _RECORD_ID, "organization": _ORG, "name": log.Bound("name"),
    "archived": log.Bound("archived"), "created_by": log.Bound("actor"),
    "created_at": log.Bound("created_at"), "last_modified_at": log.Bound("last_modified_at"),
}, changes=True)
ATTESTATION_TYPE_VERSION_LEAF = log.shape(ATTESTATION_TYPE_VERSION, AttestationTypeVersion, {
    "id": _RECORD_ID, "type": log.Bound("type_id"), "version": log.Bound("version"),
    "description": log.Bound("description"), "comment": log.Bound("comment"),
    "type_schema": log.Bound("type_schema_sha256", digested=True),
    "evaluator": log.Bound("evaluator_sha256", digested=True),
    "summary": log.Bound("summary_sha256", digested=True), "created_by": log.Bound("actor"),
    "timestamp": log.Bound("timestamp"),
}, extra={"org": "the organization's name"})


def decision_control(type_name: str, summary: Any) -> str | None:
    """The control a decision names: its summary's `control` when a text that can be a
    control's identifier (at most limits.NAME characters); None for any other attestation.
    Kept in the attestation's `control` column, where a control's decisions are found; the
    same rows as a substring match of `"control":"<identifier>"` in the summary (compact JSON,
    attestations._judge_system) finds, as they were found before migration 0034."""
    control = summary.get("control") if type_name == "decision" and isinstance(summary, dict) \
        else None
    return control if isinstance(control, str) and len(control) <= limits.NAME.most else None


def content_digests(data: dict[str, Any], summary: dict[str, Any]) -> tuple[str, str]:
    """The digests of an attestation's data and summary in its leaf: made before its write
    transaction takes SQLite's writer lock, where they would hold up other writers."""
    return log.digest(data), log.digest(summary)


def attestation_leaf(org_name: str, trail_name: str, a: Attestation,
                     digests: tuple[str, str] | None = None) -> dict[str, Any]:
    """`digests`: content_digests of its data and summary, when made beforehand."""
    if digests is None:
        return ATTESTATION_LEAF.leaf(a, org=org_name, trail=trail_name)
    return ATTESTATION_LEAF.leaf(a, org=org_name, trail=trail_name, data_sha256=digests[0],
                                 summary_sha256=digests[1])


def _attestation_leaf_v1(org_name: str, trail_name: str, a: Attestation) -> dict[str, Any]:
    """The attestation's leaf as written before 2026-12-02 (no "v")."""
    return {
        "kind": ATTESTATION, "org": org_name, "id": a.uid, "flow_id": a.flow_id,
        "trail_id": a.trail_id, "trail": trail_name, "name": a.name, "type": a.type,
        "compliant": a.is_compliant, "artifact_fingerprint": a.artifact_fingerprint,
        "target_artifact": a.target_artifact, "attachment_sha256": a.attachment_id,
        "data_sha256": log.digest(a.data), "summary_sha256": log.digest(a.summary),
        "overrides": a.overrides, "created_at": a.created_at, "actor": a.created_by,
    }


def binding_leaf(org_name: str, a: Attestation, artifact_uid: str | None) -> dict[str, Any]:
    """An attestation made for a template name before its artifact (`--name app.tests` with
    `--commit`), bound to the artifact `artifact_uid` reported later: its own leaf stays as it
    was made (no fingerprint), this one says which artifact it is about."""
    return BINDING_LEAF.leaf(a, org=org_name, artifact_id=artifact_uid)


def trail_event_leaf(org_name: str, trail: Trail, event: TrailEvent) -> dict[str, Any]:
    return TRAIL_EVENT_LEAF.leaf(event, org=org_name, flow_id=trail.flow_id, trail=trail.name,
                                 actor=event.payload.get("user"))


def log_attestation(org: Organization, trail: Trail, a: Attestation, about: list[int],
                    digests: tuple[str, str] | None = None) -> None:
    """`about`: the artifacts (ids) it is an entry of (manifests.about)."""
    log.append(org.id, ATTESTATION, a.id, attestation_leaf(org.name, trail.name, a, digests),
               (TRAIL_MANIFEST, trail.id), *((ARTIFACT_MANIFEST, each) for each in about))


def log_binding(org: Organization, a: Attestation, artifact: Artifact, about: list[int]) -> None:
    """`a` just bound to `artifact` (its artifact and fingerprint set in place); `about`: the
    artifacts (ids) it is an entry of (manifests.about)."""
    log.append(org.id, ATTESTATION_BOUND, a.id, binding_leaf(org.name, a, artifact.uid),
               (TRAIL_MANIFEST, a.trail_id), *((ARTIFACT_MANIFEST, each) for each in about))


def log_artifact(org: Organization, artifact: Artifact) -> None:
    """`artifact` reported, or reported again (its row written over)."""
    log.append(org.id, ARTIFACT, artifact.id, ARTIFACT_LEAF.leaf(artifact, org=org.name),
               (ARTIFACT_MANIFEST, artifact.id))


def _template_digest(template: FlowTemplate | None) -> str | None:
    return None if template is None else log.digest(FLOW_TEMPLATE_LEAF.leaf(template))


def log_flow(org: Organization, flow: Flow) -> None:
    """`flow` created or changed (template, description, visibility, name, archived)."""
    template = FlowTemplate.get_or_none(FlowTemplate.id == flow.template) if flow.template else None
    log.append(org.id, FLOW, flow.id, FLOW_LEAF.leaf(
        flow, org=org.name, template_sha256=_template_digest(template)))


def log_trail(org: Organization, trail: Trail) -> None:
    """`trail` begun or updated (description, URLs, template, ...)."""
    template = (FlowTemplate.get_or_none(FlowTemplate.id == trail.flow_template_id)
                if trail.flow_template_id else None)
    log.append(org.id, TRAIL, trail.id, _trail_leaf(org.name, trail, template))


def _trail_leaf(org_name: str, trail: Trail, template: FlowTemplate | None) -> dict[str, Any]:
    # artifacts_judged_alone: null when written is the column's default, false, when read
    return TRAIL_LEAF.leaf(trail, org=org_name, flow_template_sha256=_template_digest(template),
                           artifacts_judged_alone=bool(trail.artifacts_judged_alone))


def log_repo(org: Organization, repo: Repo) -> None:
    """`repo` learned, or changed (its name, URL, provider, description, namespace, tags)."""
    log.append(org.id, REPO, repo.id, REPO_LEAF.leaf(repo, org=org.name))


def log_attestation_type(org: Organization, type_: AttestationType,
                         version: AttestationTypeVersion | None = None) -> None:
    """`type_` created or changed (archived, brought back: its new `version`)."""
    log.append(org.id, ATTESTATION_TYPE, type_.id, ATTESTATION_TYPE_LEAF.leaf(type_, org=org.name))
    if version is not None:
        log.append(org.id, ATTESTATION_TYPE_VERSION, version.id,
                   ATTESTATION_TYPE_VERSION_LEAF.leaf(version, org=org.name))

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
        log.append(org_id, TRAIL_EVENT, event.id, trail_event_leaf(org_name, trail, event),
                   (TRAIL_MANIFEST, trail.id))


def artifact_log_indexes(org_id: int, artifacts: list[Artifact]) -> dict[int, int]:
    """Artifact id -> the log entry of its latest report, for artifacts reported since the log
    began: its own entry when logged once the log covers artifacts (a log begun with migration
    0030 in place, or from its genesis on); before, as answered then, its trail's
    artifact_creation_reported event of the artifact's fingerprint at its last_modified_at."""
    since = log.covered_from(org_id, ARTIFACT)
    own = {} if since is None else {
        record_id: number for record_id, number in
        log.latest_indexes(ARTIFACT, [a.id for a in artifacts]).items() if number > since}
    return {**_report_event_indexes([a for a in artifacts if a.id not in own]), **own}


def _report_event_indexes(artifacts: list[Artifact]) -> dict[int, int]:
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


def rebuild_attestations(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    """The leaves of the attestations as their rows say now, with the SHA-256 of each
    attachment as its stored chunks hash (a chunk changed in SQL shows as another digest).
    One bound later (an entry of its binding is in the log) was made without an artifact:
    its binding's leaf holds the one its row has now. A `control` column other than the one
    its summary names shows as a `control` key no leaf holds."""
    ids = list(versions)
    rows = (Attestation.select(Attestation, Trail.id, Trail.name, Organization.name)
            .join(Trail).switch(Attestation).join(Organization).where(Attestation.id.in_(ids)))
    bound = log.log_indexes(ATTESTATION_BOUND, ids)
    rebuilt = {}
    for a in rows:
        if a.id in bound:
            a.artifact_fingerprint = a.artifact_id = None
        if a.attachment_id is not None:
            a.attachment_id = blobs.digest(blobs.content_of(a.attachment_id))
        leaf = (attestation_leaf(a.organization.name, a.trail.name, a)
                if versions[a.id] == ATTESTATION_LEAF.version
                else _attestation_leaf_v1(a.organization.name, a.trail.name, a))
        if a.control != decision_control(a.type, a.summary):  # not what its summary says
            leaf["control"] = a.control
        rebuilt[a.id] = leaf
    return rebuilt


def rebuild_bindings(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    """The binding leaves of the attestations (by id) as their rows say now."""
    rows = (Attestation.select(Attestation, Artifact.uid, Organization.name)
            .join(Artifact, peewee.JOIN.LEFT_OUTER).switch(Attestation).join(Organization)
            .where(Attestation.id.in_(list(versions))))
    return {a.id: binding_leaf(a.organization.name, a, a.artifact.uid if a.artifact else None)
            for a in rows}


def rebuild_trail_events(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = (TrailEvent.select(TrailEvent, Trail, Flow.id, Organization.name).join(Trail).join(Flow)
            .join(Organization).where(TrailEvent.id.in_(list(versions))))
    return {e.id: trail_event_leaf(e.trail.flow.organization.name, e.trail, e) for e in rows}


def rebuild_artifacts(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = Artifact.select(Artifact, Organization.name).join(Organization).where(
        Artifact.id.in_(list(versions)))
    return {a.id: ARTIFACT_LEAF.leaf(a, org=a.organization.name) for a in rows}


def _templates(ids: set[str | None]) -> dict[str | None, FlowTemplate]:
    wanted = sorted(i for i in ids if i is not None)
    return {t.id: t for chunk in in_chunks(wanted)
            for t in FlowTemplate.select().where(FlowTemplate.id.in_(chunk))}


def rebuild_flows(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = list(Flow.select(Flow, Organization.name).join(Organization).where(
        Flow.id.in_(list(versions))))
    templates = _templates({f.template for f in rows})
    return {f.id: FLOW_LEAF.leaf(f, org=f.organization.name, template_sha256=_template_digest(
        templates.get(f.template))) for f in rows}


def rebuild_trails(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = list(Trail.select(Trail, Flow.id, Organization.name).join(Flow).join(Organization)
                .where(Trail.id.in_(list(versions))))
    templates = _templates({t.flow_template_id for t in rows})
    return {t.id: _trail_leaf(t.flow.organization.name, t, templates.get(t.flow_template_id))
            for t in rows}


def rebuild_repos(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = Repo.select(Repo, Organization.name).join(Organization).where(
        Repo.id.in_(list(versions)))
    return {r.id: REPO_LEAF.leaf(r, org=r.organization.name) for r in rows}


def rebuild_attestation_types(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = AttestationType.select(AttestationType, Organization.name).join(Organization).where(
        AttestationType.id.in_(list(versions)))
    return {t.id: ATTESTATION_TYPE_LEAF.leaf(t, org=t.organization.name) for t in rows}


def rebuild_attestation_type_versions(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = (AttestationTypeVersion.select(AttestationTypeVersion, AttestationType.id,
                                          Organization.name)
            .join(AttestationType).join(Organization)
            .where(AttestationTypeVersion.id.in_(list(versions))))
    return {v.id: ATTESTATION_TYPE_VERSION_LEAF.leaf(v, org=v.type.organization.name)
            for v in rows}

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


flow_rows = log.ids_after(lambda org, after: Flow.select(Flow.id).where(
    (Flow.organization == org) & (Flow.id > after)).order_by(Flow.id))
trail_rows = log.ids_after(lambda org, after: Trail.select(Trail.id).join(Flow).where(
    (Flow.organization == org) & (Trail.id > after)).order_by(Trail.id))
artifact_rows = log.ids_after(lambda org, after: Artifact.select(Artifact.id).where(
    (Artifact.organization == org) & (Artifact.id > after)).order_by(Artifact.id))


def flow_labels(ids: list[int]) -> dict[int, str]:
    return dict(Flow.select(Flow.id, Flow.name).where(Flow.id.in_(ids)).tuples())


def trail_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"{name} in flow {flow}" for i, name, flow in Trail.select(
        Trail.id, Trail.name, Flow.name).join(Flow).where(Trail.id.in_(ids)).tuples()}


def artifact_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"{name} in trail {trail}" for i, name, trail in Artifact.select(
        Artifact.id, Artifact.name, Trail.name).join(Trail).where(Artifact.id.in_(ids)).tuples()}
repo_rows = log.ids_after(lambda org, after: Repo.select(Repo.id).where(
    (Repo.organization == org) & (Repo.id > after)).order_by(Repo.id))
attestation_type_rows = log.ids_after(lambda org, after: AttestationType.select(
    AttestationType.id).where((AttestationType.organization == org)
                              & (AttestationType.id > after)).order_by(AttestationType.id))
attestation_type_version_rows = log.ids_after(lambda org, after: AttestationTypeVersion.select(
    AttestationTypeVersion.id).join(AttestationType).where(
    (AttestationType.organization == org) & (AttestationTypeVersion.id > after))
    .order_by(AttestationTypeVersion.id))


def repo_labels(ids: list[int]) -> dict[int, str]:
    return dict(Repo.select(Repo.id, Repo.name).where(Repo.id.in_(ids)).tuples())


def attestation_type_labels(ids: list[int]) -> dict[int, str]:
    return dict(AttestationType.select(AttestationType.id, AttestationType.name)
                .where(AttestationType.id.in_(ids)).tuples())


def attestation_type_version_labels(ids: list[int]) -> dict[int, str]:
    return {i: f"version {version} of type {name}" for i, version, name in
            AttestationTypeVersion.select(AttestationTypeVersion.id, AttestationTypeVersion.version,
                                          AttestationType.name).join(AttestationType)
            .where(AttestationTypeVersion.id.in_(ids)).tuples()}
