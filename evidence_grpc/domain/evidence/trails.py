"""Trails: one per change through a flow. Beginning a trail twice updates it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any, NamedTuple

import peewee

from ...api.v2 import views
from ...storage.db import (
    Prepared,
    PreparedInsert,
    as_given,
    for_update,
    in_batches,
    in_chunks,
    locked,
    now,
    retry_on_conflict,
    write_transaction,
)
from ...storage.models import Artifact, Attestation, Flow, Organization, Trail, TrailEvent, User
from ..identity.callers import sees_flow
from ..kernel import events, list_sizes
from ..kernel.errors import missing
from ..kernel.names import check_name
from ..kernel.pages import Page
from ..kernel.urls import check_reported_urls
from ..outbound import actions
from . import leaves
from .compliance import evaluate_trail
from .events import ArtifactRepoKnown
from .flows import find_flow
from .repos import check_repo_info, remember
from .templates import check_template, legacy_template_view, new_version, template_view, version

# Fields of the begin-trail data that are stored as given; absent ones are left as they were.
TRAIL_FIELDS = ("description", "git_commit_info", "repo_info", "origin_url", "external_urls",
                "user_data")


def begin_trail(org: Organization, flow_name: str, data: dict[str, Any], user: User,
                template_yaml: str | None = None) -> tuple[Trail, bool]:
    """Create the trail or update the given fields of an existing one. Returns (trail, created).
    A trail is judged by the template it is begun with: its flow's then, or `template_yaml`,
    its own (templates.py). Concurrent begins of one trail race on the (flow, name) key; the
    loser retries as an update."""
    name = check_name("name", data.get("name", ""))
    check_reported_urls(data)
    check_repo_info(data.get("repo_info"))
    if template_yaml is not None:
        check_template(template_yaml, "trail")
    flow = find_flow(org, flow_name)

    def write() -> tuple[Trail, bool]:
        with write_transaction():
            stamp = now()
            trail = for_update(Trail.select().where((Trail.flow == flow)
                                                    & (Trail.name == name))).first()
            created = trail is None
            if created:  # judged by its flow's template of now, whatever the flow's later
                trail = Trail(flow=flow, name=name, created_by=user.name, created_at=stamp,
                              external_urls={}, flow_template=flow.template)
            for field in TRAIL_FIELDS:
                if field in data:
                    setattr(trail, field, data[field])
            if template_yaml is not None and (created or template_yaml != trail.template_yaml):
                trail.template_yaml = template_yaml  # a template of its own: kept as a version
                trail.flow_template = new_version(flow, template_yaml, None, stamp, for_trail=True)
            trail.last_modified_at = stamp
            trail.save()
            if created:
                list_sizes.added(trail.id, (list_sizes.TRAILS_OF_FLOW, flow.id),
                                 (list_sizes.TRAILS_OF_ORGANIZATION, org.id))
            leaves.log_trail(org, trail)
            if "repo_info" in data:
                _adopt_repo(org, trail, stamp)
            event = _EVENT.create(trail=trail, timestamp=stamp,
                                  type="trail_reported" if created else "trail_updated",
                                  payload=_event_payload(data, user))
            leaves.log_trail_event(org.id, org.name, trail, event)
            if created:
                actions.flow_event(org, flow, "ON_STARTED_TRAIL",
                                   f"trail {name} started by {user.name}", trail=name)
            return trail, created

    return retry_on_conflict(write)


def _adopt_repo(org: Organization, trail: Trail, stamp: float) -> None:
    """Learn the trail's repo; its artifacts reported without repo_info are built from it."""
    repo = remember(org, trail.repo_info, stamp)
    if repo is None:
        return
    for artifact in Artifact.select().where((Artifact.trail == trail) & Artifact.repo.is_null()
                                            & Artifact.repo_info.is_null()):
        artifact.repo = repo
        artifact.save()
        artifact.trail = trail
        events.publish(ArtifactRepoKnown(org, artifact))


_EVENT = PreparedInsert(TrailEvent)
_TOUCH = Prepared(lambda trail, stamp: Trail.update({Trail.last_modified_at: as_given(stamp)})
                  .where(Trail.id == trail), trail=int, stamp=float)


def reported(org: Organization, trail: Trail, stamp: float, kind: str, payload: dict[str, Any]
             ) -> None:
    """Evidence reported to the trail: the event of its history (logged: leaves), and the
    trail modified then. Call inside the write transaction that keeps the evidence."""
    _TOUCH.execute(trail=trail.id, stamp=stamp)
    leaves.log_trail_event(org.id, org.name, trail,
                           _EVENT.create(trail=trail, timestamp=stamp, type=kind, payload=payload))


def _event_payload(data: dict[str, Any], user: User) -> dict[str, Any]:
    payload = {k: data[k] for k in ("git_commit_info", "repo_info", "origin_url", "user_data")
               if data.get(k) is not None}
    payload["user"] = user.name
    return payload


_TRAIL_OF_FLOW = Prepared(lambda flow, name: Trail.select().where((Trail.flow == flow)
                                                                 & (Trail.name == name)),
                         flow=int, name=str)


def _trail_of(org: Organization, flow_name: str, trail_name: str) -> tuple[Flow, Trail | None]:
    """The flow (also found by a former name) and its trail of that name, if any, with the
    trail's flow loaded."""
    flow = find_flow(org, flow_name)
    return flow, _trail_in(flow, trail_name)


def _trail_in(flow: Flow, trail_name: str) -> Trail | None:
    """The flow's trail of that name, if any, with its flow loaded."""
    found = _TRAIL_OF_FLOW.models(Trail, flow=flow.id, name=trail_name)
    if not found:
        return None
    found[0].flow = flow
    return found[0]


def _by_names(org: int, flow: str, name: str, *marks: Any) -> peewee.ModelSelect:
    return Trail.select(Trail, Flow, *marks).join(Flow).where(
        (Flow.organization == org) & (Flow.name == flow) & (Trail.name == name))


# A trail and its flow by their names, in one query: how most reads find a trail; to answer
# it, with its marks (`TrailMarks`).
_TRAIL_BY_NAMES = Prepared(_by_names, org=int, flow=str, name=str)
_MARKED_TRAIL_BY_NAMES = Prepared(lambda org, flow, name: _by_names(
    org, flow, name, *_mark_columns()), org=int, flow=str, name=str)


def find_trail(org: Organization, flow_name: str, trail_name: str, *, marked: bool = False
               ) -> Trail:
    """The trail of that flow, with its flow loaded; `marked`: with its `marks` too, when
    found by its flow's current name (the way answers are kept by, see `TrailMarks`)."""
    query = _MARKED_TRAIL_BY_NAMES if marked else _TRAIL_BY_NAMES
    found = query.models(Trail, org=org.id, flow=flow_name, name=trail_name)
    if found and sees_flow(found[0].flow.visibility):
        return _with_marks(found)[0] if marked else found[0]
    # A flow's former name, or no such flow or trail: found (or refused) step by step.
    flow, trail = _trail_of(org, flow_name, trail_name)
    if trail is None:
        raise missing("trail", organization=org.name, flow=flow.name, trail=trail_name)
    return trail


def marked_trail_row(org: Organization, flow_name: str, trail_name: str) -> tuple | None:
    """The row `find_trail(..., marked=True)` makes the trail of (its flow's columns and its
    marks in it too), when that read finds a trail the caller may see; None otherwise
    (`find_trail` then says why, or finds it by its flow's former name). What an answer kept
    by the row is found by without making the trail of it (parsing its JSON columns, building
    its instances)."""
    found = _MARKED_TRAIL_BY_NAMES.rows(org=org.id, flow=flow_name, name=trail_name)
    if found and sees_flow(found[0][_MARKED_TRAIL_BY_NAMES.column_index(Flow.visibility)]):
        return found[0]
    return None


def trail_to_report_to(org: Organization, flow: Flow, trail_name: str, user: User) -> Trail:
    """The flow's trail evidence is reported to (`flows.flow_to_report_to` gives the flow),
    locked, in the caller's write transaction: reporting to a trail that does not exist begins
    it (with just its name), as the hosted service does."""
    trail = _trail_in(flow, trail_name)
    if trail is None:
        return begin_trail(org, flow.name, {"name": trail_name}, user)[0]
    locked_trail = locked(trail)
    locked_trail.flow = flow
    return locked_trail


def _flow_trails(flow: int) -> peewee.ModelSelect:
    return Trail.select(Trail, Flow, *_mark_columns()).join(Flow).where(
        Trail.flow == flow).order_by(Trail.id.desc())


# A page of a flow's trails, newest first, with their marks, as models that keep their rows
# (what their answers are kept by): the page's ids are found by their positions in the flow's
# list (list_sizes: the same cost at any depth), then read with their marks.
_FLOW_TRAILS_OF = Prepared(lambda flow, ids: _flow_trails(flow).where(Trail.id.in_(ids)),
                           flow=int, ids=list[int])
# The first trails of the flow, newest first (batches of its whole list)
_FLOW_TRAILS_FIRST = Prepared(lambda flow, limit: _flow_trails(flow).limit(limit),
                              flow=int, limit=int)


def list_flow_trails(org: Organization, flow_name: str, page: Page) -> tuple[list[Trail], dict]:
    """A page of the flow's trails (every trail: `flow_trails_in_batches`)."""
    flow = find_flow(org, flow_name)
    ids, total = list_sizes.items_of_page(list_sizes.TRAILS_OF_FLOW, flow.id, page)
    found = list_sizes.in_page_order(
        ids, lambda ids: _FLOW_TRAILS_OF.models(Trail, flow=flow.id, ids=ids))
    return _with_marks(found), page.pagination(total)


# The next batch of a flow's trails, newest first, older than the last one read (by its id:
# a keyset that the index on (flow, id) walks, however deep into the list).
_FLOW_TRAILS_BEFORE = Prepared(lambda flow, before, limit: _flow_trails(flow).where(
    Trail.id < before).limit(limit), flow=int, before=int, limit=int)


def flow_trails_in_batches(org: Organization, flow_name: str, size: int
                           ) -> Iterator[list[Trail]]:
    """Every trail of the flow, in the order and with the marks `list_flow_trails` answers
    them unpaged, `size` at a time (`in_batches`)."""
    flow = find_flow(org, flow_name)

    def read(last: Trail | None) -> list[Trail]:
        # the first batch from the newest (no bound: a prepared statement types it as the id's
        # column, which a number beyond every id may overflow), then each older than the last
        if last is None:
            return _with_marks(_FLOW_TRAILS_FIRST.models(Trail, flow=flow.id, limit=size))
        return _with_marks(_FLOW_TRAILS_BEFORE.models(Trail, flow=flow.id, before=last.id,
                                                      limit=size))

    return in_batches(read, size)


_TRAILS_WITH_FLOWS = Prepared(lambda ids: Trail.select(Trail, Flow).join(Flow).where(
    Trail.id.in_(ids)), ids=list[int])


def list_trails(org: Organization, page: Page, flow_name: str | None = None,
                flow_tags: list[str] | None = None, fingerprint: str | None = None
                ) -> tuple[list[Trail], dict]:
    """The organization's trails, newest first: of one flow, of flows with all these tags,
    and (`fingerprint`) those an artifact of that fingerprint was reported to."""
    active = Flow.archived == False  # noqa: E712
    # One flow's trails are picked by their own column, which the planner walks by index; a
    # flow named (by its name or a former one) answers its trails archived or not, as
    # `trails/{org}/{flow}` does.
    flows: peewee.Expression | list[int] = (
        [find_flow(org, flow_name).id] if flow_name
        else Flow.select(Flow.id).where((Flow.organization == org) & active))
    if flow_tags:  # tags are JSON: the flows that have them are found in Python
        wanted = [tag.partition("=") for tag in flow_tags]
        tagged = [f.id for f in Flow.select(Flow.id, Flow.tags).where((Flow.organization == org) & active)
                  if all((f.tags or {}).get(k) == v for k, _, v in wanted)]
        flows = [f for f in flows if f in tagged] if flow_name else tagged
    of_artifact = [] if fingerprint is None else [Trail.id.in_(Artifact.select(Artifact.trail).where(
        (Artifact.organization == org) & (Artifact.fingerprint == fingerprint)))]
    if page.size is None:
        return page.apply(Trail.select(Trail, Flow).join(Flow).where(
            Trail.flow.in_(flows), *of_artifact).order_by(Trail.id.desc()))
    if not (flow_name or flow_tags or fingerprint is not None) and not list_sizes.size_of_lists(
            list_sizes.TRAILS_OF_FLOW, Flow.select(Flow.id).where(
                (Flow.organization == org) & (Flow.archived == True))):  # noqa: E712
        # Every trail of the organization is listed (no archived flow has any): the page's ids
        # are those at its positions in the organization's list, the same cost at any depth.
        ids, total = list_sizes.items_of_page(list_sizes.TRAILS_OF_ORGANIZATION, org.id, page)
        return (list_sizes.in_page_order(ids, lambda ids: _TRAILS_WITH_FLOWS.models(Trail, ids=ids)),
                page.pagination(total))
    # The page's ids are picked from the trails alone, then joined to their flows. Of one flow:
    # on its index, in id order. Of many: newest first along the trails' own key, their flow
    # tested on the way (`+ 0` keeps the planners off the flow index, whose hits they would
    # sort whole), so a page reads about its size of rows when the organization's trails are
    # most of the server's, as on a server of one organization. The total is the flows' kept
    # sizes (of the trails of one artifact: counted, they are few).
    newest_first = Trail.select(Trail.id).where(
        (Trail.flow if flow_name else Trail.flow + 0).in_(flows), *of_artifact
    ).order_by(Trail.id.desc())
    rows = list(Trail.select(Trail, Flow).join(Flow).where(Trail.id.in_(
        newest_first.paginate(page.number, page.size))).order_by(Trail.id.desc()))
    total = (newest_first.order_by().count() if fingerprint is not None
             else list_sizes.size_of_lists(list_sizes.TRAILS_OF_FLOW, flows))
    return rows, page.pagination(total)


def _events_query() -> peewee.ModelSelect:
    return (TrailEvent.select(TrailEvent.trail, TrailEvent.timestamp, TrailEvent.type,
                              TrailEvent.payload).order_by(TrailEvent.timestamp, TrailEvent.id))


ATTESTATION, ARTIFACT = 0, 1  # the kinds of evidence rows


def _evidence_query(trails: list[int]) -> peewee.SelectBase:
    """The trails' attestations (kind, trail, seq, uid, name, type, is_compliant, target,
    overrides) and artifacts (kind, trail, id, fingerprint, template_reference_name, uid and
    three NULLs) in one statement, each kind in the order of its ids."""
    attestations = Attestation.select(
        peewee.SQL(str(ATTESTATION)), Attestation.trail, Attestation.id, Attestation.uid,
        Attestation.name, Attestation.type, Attestation.is_compliant, Attestation.target_artifact,
        Attestation.overrides).where(Attestation.trail.in_(trails))
    artifacts = Artifact.select(
        peewee.SQL(str(ARTIFACT)), Artifact.trail, Artifact.id, Artifact.fingerprint,
        Artifact.template_reference_name, Artifact.uid, *[peewee.SQL("NULL")] * 3).where(
        Artifact.trail.in_(trails))
    return attestations.union_all(artifacts).order_by(peewee.SQL("1"), peewee.SQL("3"))


# Run on every `get trail` and every snapshot judged: compiled once (see storage.db.Prepared).
_EVENTS_OF = Prepared(lambda trails: _events_query().where(TrailEvent.trail.in_(trails)),
                      trails=list[int])
_EVIDENCE_OF = Prepared(_evidence_query, trails=list[int])


class TrailMarks(NamedTuple):
    """What names a trail's events and evidence without reading them: events and attestations
    are appended, never changed, so their count and last id name them; an artifact changed in
    place (reported again) gets a new last_modified_at, so artifacts are named by their count,
    last id and last change."""

    events: tuple[int, int]
    attestations: tuple[int, int]
    artifacts: tuple[int, int, float]

    @classmethod
    def of(cls, row: tuple) -> TrailMarks:
        """The marks a query of `_mark_columns` ends its row with."""
        events, last_event, attestations, last_attestation, artifacts, last_artifact, changed = \
            row[-len(_MARK_KINDS):]
        return cls((events, last_event or 0), (attestations, last_attestation or 0),
                   (artifacts, last_artifact or 0, changed or 0.0))


_MARK_KINDS = ((TrailEvent, "count"), (TrailEvent, "last"), (Attestation, "count"),
               (Attestation, "last"), (Artifact, "count"), (Artifact, "last"),
               (Artifact, "changed"))


def _mark_columns() -> list[peewee.ModelSelect]:
    """The marks of a selected trail, as columns: a subquery each, answered by an index."""
    def column(model: type[peewee.Model], kind: str) -> peewee.ModelSelect:
        value = (peewee.fn.COUNT(model.id) if kind == "count" else peewee.fn.MAX(model.id)
                 if kind == "last" else peewee.fn.MAX(model.last_modified_at))
        return model.select(value).where(model.trail == Trail.id)

    return [column(model, kind) for model, kind in _MARK_KINDS]


def _with_marks(found: list[Trail]) -> list[Trail]:
    """Trails of a query of `_mark_columns`, each with its `marks`."""
    for trail in found:
        trail.marks = TrailMarks.of(trail.__row__)
    return found


def names(marks: TrailMarks, events: list[Event], evidence: EvidenceRows) -> bool:
    """Whether these events and evidence are the ones the marks name (as read in one read
    snapshot they are; the check keeps anything else from being kept under their name)."""
    return (len(events), len(evidence.attestations), len(evidence.artifacts)) == (
        marks.events[0], marks.attestations[0], marks.artifacts[0])


class Event(NamedTuple):
    """A recorded event as read: its fields stay JSON text until asked for, so an event is
    hashable (the same row makes the same message: `servicers.trails` keeps them by it)."""

    timestamp: float
    type: str
    payload_json: str | None

    def view(self) -> dict[str, Any]:
        """{timestamp, type, ...its fields}."""
        return {"timestamp": self.timestamp, "type": self.type,
                **(TrailEvent.payload.python_value(self.payload_json) or {})}


def events_of(trails: list[Trail]) -> dict[int, list[Event]]:
    """Events of trails, oldest first."""
    by_trail: dict[int, list[Event]] = defaultdict(list)
    if not trails:
        return by_trail
    for trail_id, timestamp, type_, payload in (
            row for chunk in in_chunks([t.id for t in trails]) for row in _EVENTS_OF.rows(trails=chunk)):
        by_trail[trail_id].append(Event(timestamp, type_, payload))
    return by_trail


Evidence = tuple[list[dict[str, Any]], list[dict[str, Any]]]


class EvidenceRows(NamedTuple):
    """A trail's attestations (seq, uid, name, type, is_compliant, target, overrides) and
    artifacts (row id, fingerprint, template_reference_name, uid) as read: hashable, like
    `Event`."""

    attestations: tuple[tuple, ...]
    artifacts: tuple[tuple, ...]

    def evidence(self) -> Evidence:
        """(attestations, artifacts) as compliance reads them."""
        return ([{"id": uid, "name": name, "type": type_, "is_compliant": bool(compliant),
                  "seq": seq, "target": target, "overrides": overrides}
                 for seq, uid, name, type_, compliant, target, overrides in self.attestations],
                [{"id": uid, "fingerprint": fingerprint, "template_reference_name": template_name}
                 for _, fingerprint, template_name, uid in self.artifacts])


def evidence_rows_of(trails: list[Trail]) -> dict[int, EvidenceRows]:
    """The evidence of each trail, as read."""
    attestations: dict[int, list[tuple]] = defaultdict(list)
    artifacts: dict[int, list[tuple]] = defaultdict(list)
    ids = [t.id for t in trails]
    for chunk in in_chunks(ids):  # none for no trails (a snapshot of unknown artifacts)
        for kind, trail_id, *values in _EVIDENCE_OF.rows(trails=chunk):
            if kind == ATTESTATION:
                attestations[trail_id].append(tuple(values))
            else:
                artifacts[trail_id].append(tuple(values[:4]))
    return defaultdict(lambda: EvidenceRows((), ()), {
        i: EvidenceRows(tuple(attestations[i]), tuple(artifacts[i])) for i in ids})


def evidence_of(trails: list[Trail]) -> dict[int, Evidence]:
    """(attestations, artifacts) of trails, as compliance reads them."""
    return defaultdict(lambda: ([], []), {
        trail_id: rows.evidence() for trail_id, rows in evidence_rows_of(trails).items()})


def compliance_of(trail: Trail, evidence: Evidence) -> tuple[views.Template, views.ComplianceStatus]:
    """(template view, compliance_status) of a trail whose `flow` is loaded."""
    return judged(template_in_force(trail), trail.last_modified_at, evidence)


def template_in_force(trail: Trail) -> dict[str, Any]:
    """What judges the trail, as kept (an audit package carries it as `template.json`): the
    template it was begun with (templates.version) and whether its artifacts are judged alone."""
    kept = version(trail.flow_template_id)
    return {"flow_template_id": trail.flow_template_id, "template_yaml": kept.template_yaml,
            "legacy_template": kept.legacy_template,
            "artifacts_judged_alone": bool(trail.artifacts_judged_alone)}


def judged(in_force: dict[str, Any], evaluated_at: float, evidence: Evidence
           ) -> tuple[views.Template, views.ComplianceStatus]:
    """(template view, compliance_status) of a trail judged by `in_force` (template_in_force):
    plain data in, plain data out, so that an audit package's trail is judged again from its
    files alone."""
    attestations, artifacts = evidence
    legacy = in_force["legacy_template"]
    if legacy is not None:
        # artifacts reported without a template name are required by their fingerprint, as
        # attestations about them name it
        artifacts = [{**a, "template_reference_name": a["template_reference_name"]
                      or a["fingerprint"]} for a in artifacts]
        template = legacy_template_view(legacy, [a["template_reference_name"] for a in artifacts])
    else:
        template = template_view(in_force["template_yaml"])
    return template, evaluate_trail(template, evaluated_at, attestations, artifacts,
                                    flow_template_id=in_force["flow_template_id"],
                                    artifacts_judged_alone=in_force["artifacts_judged_alone"])


def trail_view(trail: Trail, org_name: str, html_base: str, evidence: Evidence) -> views.Trail:
    """The trail as the contract answers it, but for its events (encoded apart: see
    servicers.trails)."""
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
        "is_compliant": compliance["is_compliant"] is True,
        "events": [],
        "created_by": trail.created_by,
        "flow": {"name": flow.name, "tags": flow.tags or {}},
        "external_urls": trail.external_urls or {},
        "html_url": f"{html_base}/{org_name}/flows/{flow.name}/trails/{trail.name}",
    }
