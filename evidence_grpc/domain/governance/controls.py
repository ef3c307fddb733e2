"""Controls (beta): an organization's catalog of the controls its policies enforce.

A control is archived, never deleted. Every change of its content or state is a numbered
lifecycle version (Created, Edited, Archived, Unarchived) keeping the control as it left it.
Decisions are the `decision` attestations naming the control (`kosli attest decision
--control`); they are recorded as sent, whether or not the control exists yet. An environment
covers a control when one of its policies, in its latest version, references the control with
`for_control`. Only organizations with the `controls` feature may use any of this.

A control's decisions are a paged list (kernel.list_sizes, DECISIONS_OF_CONTROL, owned by the
control's id): a decision made once its control exists takes the list's next position as it is
recorded; the decisions made before it are numbered when it is created, in its transaction."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import Any

import peewee

from ...api.v2 import views
from ...storage.db import for_update, now, retry_on_conflict, write_transaction
from ...storage.models import (
    Artifact,
    Attestation,
    Control,
    ControlVersion,
    Environment,
    Flow,
    Organization,
    Trail,
)
from ..evidence.events import DecisionRecorded
from ..kernel import limits, list_sizes
from ..kernel.errors import (
    FailedPrecondition,
    PermissionDenied,
    already_exists,
    missing,
    validation_error,
)
from ..kernel.names import CONTROL_CHARACTERS, check_name
from ..kernel.pages import MAX_PER_PAGE, Page, counted, in_time_range, page_of
from ..kernel.references import ids_by_name
from ..kernel.tag_filters import has_tag
from . import leaves
from .policies import policy_controls

FEATURE = "controls"
# The contract's identifier pattern, and its wording of a mismatch; identifiers must also
# start with a letter or digit (names.check_name), as the CLI documents.
IDENTIFIER_PATTERN = r"^[a-zA-Z0-9\-._~]+$"
_IDENTIFIER = re.compile(IDENTIFIER_PATTERN.removeprefix("^").removesuffix("$"))
MAX_IDENTIFIER_LENGTH = limits.NAME.most
MAX_NAME_LENGTH = limits.CONTROL_NAME.most
MAX_DESCRIPTION_LENGTH = limits.DESCRIPTION.most
MAX_LINKS = limits.LINKS.most
MAX_LINK_NAME_LENGTH = limits.NAME.most
MAX_URL_LENGTH = limits.URL.most
DEFAULT_PER_PAGE = 15
SORT_DIRECTIONS = ("asc", "desc")
CREATED, EDITED, ARCHIVED, UNARCHIVED = "Created", "Edited", "Archived", "Unarchived"


def require_controls(org: Organization) -> None:
    """PERMISSION_DENIED (403) unless the organization has the Controls feature."""
    if FEATURE not in (org.features or []):
        raise PermissionDenied(f"The Controls feature (beta) is not enabled for organization "
                               f"'{org.name}'", reason="FEATURE_NOT_ENABLED",
                               metadata={"organization": org.name, "feature": "controls"})


# ---- values ------------------------------------------------------------------------------

def check_identifier(identifier: str) -> str:
    if len(identifier) > MAX_IDENTIFIER_LENGTH:
        raise validation_error("identifier", f"String should have at most "
                                             f"{MAX_IDENTIFIER_LENGTH} characters")
    if not _IDENTIFIER.fullmatch(identifier):
        raise validation_error("identifier", f"String should match pattern "
                                             f"'{IDENTIFIER_PATTERN}' [input: {identifier}]")
    return check_name("identifier", identifier)


def _text(field: str, value: str, limit: int, *, required: bool = False) -> str:
    if required and not value.strip():
        raise validation_error(field, "Field cannot be empty")
    if len(value) > limit:
        raise validation_error(field, f"Must be at most {limit} characters")
    return value


def check_links(links: Any) -> dict[str, str]:
    """{link name: URL}: names kept exactly as sent (dots included), URLs strings."""
    if not isinstance(links, dict):
        raise validation_error("links", "Must be an object of link names to URLs")
    if len(links) > MAX_LINKS:
        raise validation_error("links", f"At most {MAX_LINKS} links")
    for name, url in links.items():
        if not name or len(name) > MAX_LINK_NAME_LENGTH or CONTROL_CHARACTERS.search(name):
            raise validation_error("links", f"Link names have 1 to {MAX_LINK_NAME_LENGTH} "
                                            f"characters and no control characters")
        if not isinstance(url, str):
            raise validation_error(f"links.{name}", "Input should be a valid string")
        _text(f"links.{name}", url, MAX_URL_LENGTH, required=True)
    return dict(links)


# ---- reading -----------------------------------------------------------------------------

def find_control(org: Organization, identifier: str) -> Control:
    """The organization's control (archived or not); the feature is required."""
    require_controls(org)
    control = Control.get_or_none((Control.organization == org)
                                  & (Control.identifier == identifier))
    if control is None:
        raise missing("control", organization=org.name, control=identifier)
    return control


def _sort_direction(value: str | None, default: str) -> str:
    if value is None:
        return default
    if value not in SORT_DIRECTIONS:
        raise validation_error("sort_direction", f"'{value}' is not one of {list(SORT_DIRECTIONS)}")
    return value


def _paging(page: int | None, per_page: int | None) -> Page:
    return page_of(page, per_page, DEFAULT_PER_PAGE, MAX_PER_PAGE)


def _page(paging: Page, query: peewee.ModelSelect) -> tuple[list, dict[str, int]]:
    """One page of a query, counted in the database."""
    total = query.count()
    return list(query.paginate(paging.number, paging.size)), counted(paging, total)


def list_controls(org: Organization, page: int | None = None, per_page: int | None = None, *,
                  sort_direction: str | None = None, search: str | None = None,
                  tags: list[str] | None = None, archived: bool = False
                  ) -> tuple[list[Control], dict[str, int]]:
    """The active (or, with `archived`, the archived) controls by name, paged."""
    require_controls(org)
    paging = _paging(page, per_page)
    direction = _sort_direction(sort_direction, "asc")
    query = Control.select().where((Control.organization == org)
                                   & (Control.archived == archived))
    if search:
        query = query.where(peewee.fn.LOWER(Control.name).contains(search.lower())
                            | peewee.fn.LOWER(Control.identifier).contains(search.lower()))
    order = (Control.name, Control.identifier) if direction == "asc" else \
        (Control.name.desc(), Control.identifier.desc())
    query = query.order_by(*order)
    if not tags:
        return _page(paging, query)
    return paging.slice([c for c in query if all(has_tag(c.tags or {}, t) for t in tags)])


def _referencing(org: Organization, identifiers: list[str]) -> Callable[[str], list[str]]:
    """identifier (one of `identifiers`) -> names of the policies whose latest version
    references it."""
    by_policy = policy_controls(org, identifiers)
    return lambda identifier: sorted(p for p, ids in by_policy.items() if identifier in ids)


def control_views(org: Organization, controls: list[Control]) -> list[views.Control]:
    if not controls:
        return []
    referencing = _referencing(org, [c.identifier for c in controls])
    return [{
        "identifier": c.identifier,
        "name": c.name,
        "description": c.description,
        "links": c.links or {},
        "version": c.version,
        "created_by": c.created_by,
        "created_at": c.created_at,
        "last_modified_at": c.last_modified_at,
        "tags": {k: str(v) for k, v in (c.tags or {}).items()},
        "archived": c.archived,
        "policies_referencing": referencing(c.identifier),
    } for c in controls]


def tag_choices(org: Organization) -> list[views.ControlTagChoice]:
    """Every tag key used on the organization's controls with the distinct values it takes."""
    require_controls(org)
    choices: dict[str, set[str]] = {}
    for (tags,) in Control.select(Control.tags).where(Control.organization == org).tuples():
        for key, value in (tags or {}).items():
            choices.setdefault(key, set()).add(str(value))
    return [{"key": k, "values": sorted(v)} for k, v in sorted(choices.items())]


def list_versions(org: Organization, identifier: str, page: int | None = None,
                  per_page: int | None = None, sort_direction: str | None = None
                  ) -> tuple[list[ControlVersion], dict[str, int]]:
    control = find_control(org, identifier)
    paging = _paging(page, per_page)
    direction = _sort_direction(sort_direction, "desc")
    query = ControlVersion.select().where(ControlVersion.control == control).order_by(
        ControlVersion.version if direction == "asc" else ControlVersion.version.desc())
    return _page(paging, query)


def get_version(org: Organization, identifier: str, number: int) -> ControlVersion:
    control = find_control(org, identifier)
    version = ControlVersion.get_or_none((ControlVersion.control == control)
                                         & (ControlVersion.version == number))
    if version is None:
        raise missing("control_version", control=identifier, version=number)
    return version


def version_view(v: ControlVersion) -> views.ControlVersion:
    return {"version": v.version, "event": v.event, "created_by": v.created_by,
            "created_at": v.created_at, "name": v.name, "description": v.description,
            "links": v.links or {}, "archived": v.archived}


# ---- writing -----------------------------------------------------------------------------

def _record(org: Organization, control: Control, event: str, user_name: str, stamp: float
            ) -> None:
    """Make the control's current state its next version (call inside the write)."""
    control.version = (control.version or 0) + 1
    control.last_modified_at = stamp
    control.save()
    leaves.log_control(org, control, ControlVersion.create(
        control=control, version=control.version, event=event, name=control.name,
        description=control.description, links=control.links or {}, archived=control.archived,
        created_by=user_name, created_at=stamp))


def create_control(org: Organization, user_name: str, identifier: str, name: str,
                   description: str | None = None, links: Any = None) -> Control:
    require_controls(org)
    check_identifier(identifier)
    _text("name", name, MAX_NAME_LENGTH, required=True)
    _text("description", description or "", MAX_DESCRIPTION_LENGTH)
    links = check_links(links) if links is not None else {}

    def write() -> Control:
        with write_transaction():
            _hold(org, "NO KEY UPDATE")  # a decision naming it waits, or is seen below
            if Control.select().where((Control.organization == org)
                                      & (Control.identifier == identifier)).exists():
                raise already_exists("control", f"A control with identifier '{identifier}' already "
                                     f"exists in organization '{org.name}'", control=identifier)
            stamp = now()
            control = Control(organization=org, identifier=identifier, name=name,
                              description=description or "", links=links, tags={}, version=0,
                              created_by=user_name, created_at=stamp)
            _record(org, control, CREATED, user_name, stamp)
            list_sizes.number(list_sizes.DECISIONS_OF_CONTROL, control.id)
            return control

    return retry_on_conflict(write)


def _hold(org: Organization, strength: str) -> None:
    """Lock the organization's row (PostgreSQL; SQLite's writers take turns) `strength`:
    a control created (NO KEY UPDATE) and a decision recorded (SHARE) take turns, so that
    the decisions made before the control are numbered when it is created, and those made
    after, as they are recorded (decision_recorded); never one of them twice or not at all."""
    for_update(Organization.select(Organization.id).where(Organization.id == org.id),
               strength).execute()


def decision_recorded(event: DecisionRecorded) -> None:
    """A decision (its control named) joins the list of its control's decisions, when the
    control exists (create_control numbers those made before it)."""
    _hold(event.org, "SHARE")
    control = (Control.select(Control.id).where((Control.organization == event.org)
                                                & (Control.identifier == event.decision.control))
               .first())
    if control is not None:
        list_sizes.added(event.decision.id, (list_sizes.DECISIONS_OF_CONTROL, control.id))


def _locked(org: Organization, identifier: str) -> Control:
    control = find_control(org, identifier)
    return for_update(Control.select().where(Control.id == control.id)).get()


def update_control(org: Organization, user_name: str, identifier: str, *,
                   name: str | None = None, description: str | None = None,
                   links: Any = None) -> Control:
    """Change what is given (links are replaced whole); an Edited version when anything
    changed. An archived control is unarchived before it is edited."""
    require_controls(org)
    if name is None and description is None and links is None:
        raise validation_error("body", "Give at least one of name, description, links")
    changes: dict[str, Any] = {}
    if name is not None:
        changes["name"] = _text("name", name, MAX_NAME_LENGTH, required=True)
    if description is not None:
        changes["description"] = _text("description", description, MAX_DESCRIPTION_LENGTH)
    if links is not None:
        changes["links"] = check_links(links)
    with write_transaction():
        control = _locked(org, identifier)
        if control.archived:
            raise FailedPrecondition(f"Control '{identifier}' is archived: unarchive it "
                                     f"before editing it", reason="CONTROL_ARCHIVED",
                                     metadata={"control": identifier})
        changed = {k: v for k, v in changes.items() if getattr(control, k) != v}
        if changed:
            for key, value in changed.items():
                setattr(control, key, value)
            _record(org, control, EDITED, user_name, now())
        return control


def set_archived(org: Organization, user_name: str, identifier: str, archived: bool) -> Control:
    """Archive or unarchive; asking for the state the control is in is refused."""
    with write_transaction():
        control = _locked(org, identifier)
        if control.archived == archived:
            raise FailedPrecondition(f"Control '{identifier}' is "
                                     f"{'already' if archived else 'not'} archived",
                                     reason="CONTROL_ARCHIVED" if archived else "CONTROL_NOT_ARCHIVED",
                                     metadata={"control": identifier})
        control.archived = archived
        _record(org, control, ARCHIVED if archived else UNARCHIVED, user_name, now())
        return control


# ---- decisions ---------------------------------------------------------------------------

_ARTIFACT_FLOW = Flow.alias("artifact_flow")


def _joined() -> peewee.ModelSelect:
    """Decisions with what their answers name: flow, trail, artifact and the artifact's flow."""
    return (Attestation.select(Attestation, Flow, Trail, Artifact, _ARTIFACT_FLOW).join(Flow)
            .switch(Attestation).join(Trail)
            .switch(Attestation).join(Artifact, peewee.JOIN.LEFT_OUTER)
            .join(_ARTIFACT_FLOW, peewee.JOIN.LEFT_OUTER, on=Artifact.flow == _ARTIFACT_FLOW.id)
            .switch(Attestation))


def _decisions(org: Organization, identifier: str) -> peewee.ModelSelect:
    """The organization's decision attestations naming the control, by their `control` column
    (the summary's, evidence.leaves.decision_control; indexed with the organization and the
    list's order)."""
    return _joined().where((Attestation.organization == org)
                           & (Attestation.control == identifier)
                           & (Attestation.type == "decision"))


def list_decisions(org: Organization, identifier: str, page: int | None = None,
                   per_page: int | None = None, *, is_compliant: bool | None = None,
                   from_timestamp: float | None = None, to_timestamp: float | None = None,
                   flows: list[str] | None = None, sort_direction: str | None = None
                   ) -> tuple[list[Attestation], dict[str, int]]:
    """Decisions for the control, newest first (or oldest with sort_direction=asc); `flows`
    keeps those of the flows of these names (or former names). A page of them all is read at
    its positions in the control's list (the same cost at any depth), a narrowed one by a query
    of the control's decisions."""
    control = find_control(org, identifier)
    paging = _paging(page, per_page)
    direction = _sort_direction(sort_direction, "desc")
    if is_compliant is None and from_timestamp is None and to_timestamp is None and not flows:
        ids, total = list_sizes.items_of_page(list_sizes.DECISIONS_OF_CONTROL, control.id, paging,
                                              ascending=direction == "asc")
        # by their ids alone: the control's index would be walked through all its decisions
        return (list_sizes.in_page_order(ids, lambda ids: _joined().where(Attestation.id.in_(ids))),
                counted(paging, total))
    query = _decisions(org, identifier)
    if is_compliant is not None:
        query = query.where(Attestation.is_compliant == is_compliant)
    query = in_time_range(query, Attestation.created_at, from_timestamp, to_timestamp)
    if flows:
        query = query.where(Flow.id.in_(list(ids_by_name(Flow, org, flows).values())))
    return _page(paging, query.order_by(
        *((Attestation.created_at, Attestation.id) if direction == "asc"
          else (Attestation.created_at.desc(), Attestation.id.desc()))))


def get_decision(org: Organization, identifier: str, decision_id: str) -> Attestation:
    find_control(org, identifier)
    found = _decisions(org, identifier).where(Attestation.uid == decision_id).first()
    if found is None:
        raise missing("decision", control=identifier, decision=decision_id)
    return found


def decision_views(org: Organization, identifier: str, decisions: list[Attestation],
                   html_base: str) -> list[views.ControlDecision]:
    """The decisions as the API shows them, each with the control's version at its time."""
    if not decisions:
        return []
    version_at = _versions_at(find_control(org, identifier))
    return [_decision_view(a, org.name, html_base, version_at) for a in decisions]


def _versions_at(control: Control) -> Callable[[float], int | None]:
    """time -> the control's version current then (its newest created at or before it); None
    before it was created. Versions are never changed, so the answer for a decision's time
    never changes either."""
    versions = list(ControlVersion.select(ControlVersion.version, ControlVersion.created_at)
                    .where(ControlVersion.control == control)
                    .order_by(ControlVersion.created_at, ControlVersion.version).tuples())
    stamps = [created_at for _, created_at in versions]

    def at(moment: float) -> int | None:
        index = bisect.bisect_right(stamps, moment)
        return versions[index - 1][0] if index else None

    return at


def _decision_view(a: Attestation, org_name: str, html_base: str,
                  version_at: Callable[[float], int | None]) -> views.ControlDecision:
    flow_name, trail_name = a.flow.name, a.trail.name
    artifact = a.artifact if a.artifact_id is not None else None
    return {
        "decision_id": a.uid, "control": (a.summary or {}).get("control", ""),
        "is_compliant": a.is_compliant, "flow_name": flow_name, "trail_name": trail_name,
        "attestation_name": a.name, "artifact_fingerprint": a.artifact_fingerprint,
        "target_artifact": a.target_artifact, "created_by": a.created_by,
        "created_at": a.created_at,
        "html_url": f"{html_base}/{org_name}/flows/{flow_name}/trails/{trail_name}"
                    f"?attestation_id={a.uid}",
        "control_version": version_at(a.created_at),
        "artifact_name": artifact.name if artifact is not None else None,
        "artifact_flow_name": artifact.flow.name if artifact is not None else None,
    }


# ---- coverage ----------------------------------------------------------------------------

def coverage(org: Organization, identifier: str, page: int | None = None,
             per_page: int | None = None, *, search: str | None = None,
             covered: bool | None = None) -> views.ControlCoverage:
    """Each (active) environment by name, covered when one of its policies references the
    control in its latest version; `search` and `covered` keep some; `covered_count` and
    `uncovered_count` ignore `covered`, the summary (`total`, `covered`, `coverage_percent`:
    the docs' `N of M environments`) both."""
    find_control(org, identifier)
    paging = _paging(page, per_page)
    by_policy = policy_controls(org, [identifier])
    every: list[views.CoveredEnvironment] = []
    for env in (Environment.select(Environment.name, Environment.type, Environment.policies)
                .where((Environment.organization == org) & (Environment.archived == False))  # noqa: E712
                .order_by(Environment.name)):
        enforcing = [p for p in env.policies or [] if identifier in by_policy.get(p, ())]
        every.append({"name": env.name, "type": env.type, "covered": bool(enforcing),
                      "policies": enforcing})
    matching = [r for r in every if search.lower() in r["name"].lower()] if search else every
    covered_count = sum(1 for r in matching if r["covered"])
    kept = matching if covered is None else [r for r in matching if r["covered"] == covered]
    environments, pagination = paging.slice(kept)
    total, covering = len(every), sum(1 for r in every if r["covered"])
    return {"identifier": identifier, "environments": environments,
            "covered_count": covered_count, "uncovered_count": len(matching) - covered_count,
            "page": pagination["page"], "per_page": pagination["per_page"],
            "total_count": pagination["total_count"], "total_pages": pagination["total_pages"],
            "total": total, "covered": covering,
            "coverage_percent": round(100 * covering / total, 2) if total else 0.0}
