"""Attestations: evidence reported to a trail, optionally about one of its artifacts.

Each kind's payload is validated against the contract's schema for it, then judged: the kind
decides whether the evidence is compliant and what summary is kept. An override re-judges an
earlier attestation as a new row, so the history keeps both."""

from __future__ import annotations

import dataclasses
import json
import mimetypes
import uuid
from collections.abc import Callable, Iterable
from typing import Any, cast

import peewee
import re2

from ...api.v2 import views
from ...storage.db import (
    Prepared,
    PreparedInsert,
    database,
    in_chunks,
    now,
    retry_on_conflict,
    write_transaction,
)
from ...storage.models import Artifact, Attestation, Blob, Flow, LogEntry, Organization, Trail, User
from ..kernel import contract, list_sizes
from ..kernel.errors import missing, not_found, validation_error
from ..kernel.pages import Page
from ..kernel.urls import check_reported_urls
from ..outbound import actions, notifications
from . import attestation_types, blobs, leaves, manifests, trails
from .artifacts import is_commit, resolve_fingerprint
from .flows import find_flow, flow_to_report_to
from .repos import check_repo_info, remember
from .templates import parse_template, version
from .trails import find_trail, trail_to_report_to

Judgement = tuple[str, bool, dict[str, Any]]  # (attestation type, is_compliant, summary)
MAX_CURSOR_PAGE = 100


def _judge_generic(org: Organization, data: dict[str, Any]) -> Judgement:
    return "generic", bool(data["is_compliant"]), {}


def _judge_junit(org: Organization, data: dict[str, Any]) -> Judgement:
    suites = data["junit_results"]
    summary = {key: sum(s[key] for s in suites) for key in ("total", "failures", "errors", "skipped")}
    summary["duration"] = sum(s["duration"] for s in suites)
    return "junit", summary["failures"] == 0 and summary["errors"] == 0, summary


def _finding_counts(results: list[dict[str, Any]]) -> dict[str, int]:
    return {f"{level}_count": sum(r.get(f"{level}_count", 0) for r in results)
            for level in ("high", "medium", "low")}


def _judge_snyk(org: Organization, data: dict[str, Any]) -> Judgement:
    # As the hosted service documents: compliant only when no vulnerability was found.
    counts = _finding_counts(data["snyk_results"].get("results", []))
    return "snyk", sum(counts.values()) == 0, counts


def _judge_scanner(org: Organization, data: dict[str, Any]) -> Judgement:
    results = data["scanner_results"]
    counts = _finding_counts(results["results"])
    counts["tool"] = results["tool"]
    return "scanner", counts["high_count"] + counts["medium_count"] + counts["low_count"] == 0, counts


def _judge_sonar(org: Organization, data: dict[str, Any]) -> Judgement:
    results = data["sonar_results"]
    gate = (results.get("qualityGate") or {}).get("status") or results.get("status")
    return "sonar", gate == "OK", {"quality_gate": gate}


def _judge_jira(org: Organization, data: dict[str, Any]) -> Judgement:
    issues = data["jira_results"]
    compliant = bool(issues) and all(i.get("issue_exists") for i in issues)
    return "jira", compliant, {"issues": [i.get("issue_id") for i in issues]}


def _judge_pull_request(org: Organization, data: dict[str, Any]) -> Judgement:
    prs = data["pull_requests"]
    return "pull_request", len(prs) > 0, {"git_provider": data["git_provider"],
                                          "pull_request_count": len(prs)}


def _judge_custom(org: Organization, data: dict[str, Any]) -> Judgement:
    compliant, summary = attestation_types.judge(org, data["type_name"], data["attestation_data"])
    return f"custom:{data['type_name']}", compliant, summary


def _judge_system(org: Organization, data: dict[str, Any]) -> Judgement:
    type_name, payload = data["type_name"], data["attestation_data"]
    if type_name == "decision":
        if not isinstance(payload, dict) or not isinstance(payload.get("is_compliant"), bool):
            raise validation_error("attestation_data.is_compliant", "A decision needs a boolean")
        return "decision", payload["is_compliant"], {"control": data.get("control")}
    if type_name == "sbom":
        document = payload.get("document", {}) if isinstance(payload, dict) else {}
        return "sbom", True, {"format": payload.get("format") if isinstance(payload, dict) else None,
                              "package_count": document.get("package_count")}
    raise validation_error("type_name", f"'{type_name}' is not one of ['decision', 'sbom']")


SYSTEM_TYPES = [
    {"name": "decision",
     "description": "A decision about a control (kosli attest decision --control): compliant or not",
     "versions": [{"version": 1, "attestation_data_schema": {
         "type": "object", "required": ["is_compliant"],
         "properties": {"is_compliant": {"type": "boolean"}}}}]},
    {"name": "sbom",
     "description": "A software bill of materials: its format and document",
     "versions": [{"version": 1, "attestation_data_schema": {
         "type": "object", "properties": {"format": {"type": "string"},
                                          "document": {"type": "object"}}}}]},
]


KINDS: dict[str, tuple[str, Callable[[Organization, dict[str, Any]], Judgement]]] = {
    "generic": ("post_generic_attestation", _judge_generic),
    "junit": ("post_junit_attestation", _judge_junit),
    "snyk": ("post_snyk_attestation", _judge_snyk),
    "sonar": ("post_sonar_attestation", _judge_sonar),
    "jira": ("post_jira_attestation", _judge_jira),
    "pull_request": ("post_pull_request_attestation", _judge_pull_request),
    "custom": ("post_custom_attestation", _judge_custom),
    "system": ("post_system_attestation", _judge_system),
    "scanner": ("scanner", _judge_scanner),
}


_ATTESTATION = PreparedInsert(Attestation)
# The artifact an attestation is about: by fingerprint in its trail, else in its flow; or the
# newest of the trail's artifacts of a template name.
_FINGERPRINT_IN_TRAIL = Prepared(lambda trail, fingerprint: Artifact.select().where(
    (Artifact.trail == trail) & (Artifact.fingerprint == fingerprint)).limit(1),
    trail=int, fingerprint=str)
_FINGERPRINT_IN_FLOW = Prepared(lambda flow, fingerprint: Artifact.select().where(
    (Artifact.flow == flow) & (Artifact.fingerprint == fingerprint)).limit(1),
    flow=int, fingerprint=str)
_FINGERPRINT_IN_ORG = Prepared(lambda org, fingerprint: Artifact.select().where(
    (Artifact.organization == org) & (Artifact.fingerprint == fingerprint))
    .order_by(Artifact.id.desc()).limit(1), org=int, fingerprint=str)
_NAMED_IN_TRAIL = Prepared(lambda trail, name: Artifact.select().where(
    (Artifact.trail == trail) & (Artifact.template_reference_name == name))
    .order_by(Artifact.id.desc()).limit(1), trail=int, name=str)


def _target(org: Organization, trail: Trail, data: dict[str, Any], *, anywhere: bool = False
            ) -> tuple[str | None, Artifact | None, str | None]:
    """(template name of the artifact it is about, that artifact, its fingerprint). `anywhere`
    (a decision: the docs put no restriction on the flow or trail it is recorded on): an
    artifact of another flow too, the newest reported with that fingerprint, named by its
    fingerprint (its template name is another flow's)."""
    targets = data.get("target_artifacts") or []
    fingerprint = data.get("artifact_fingerprint")
    if fingerprint:
        found = (_FINGERPRINT_IN_TRAIL.models(Artifact, trail=trail.id, fingerprint=fingerprint)
                 or _FINGERPRINT_IN_FLOW.models(Artifact, flow=trail.flow_id,
                                                fingerprint=fingerprint))
        if found:
            artifact = found[0]
            return artifact.template_reference_name or fingerprint, artifact, fingerprint
        if not anywhere:
            raise missing("artifact_in_trail", organization=org.name, flow=trail.flow.name,
                          trail=trail.name, fingerprint=fingerprint)
        elsewhere = _FINGERPRINT_IN_ORG.models(Artifact, org=org.id, fingerprint=fingerprint)
        if not elsewhere:
            raise missing("artifact_in_org", organization=org.name, fingerprint=fingerprint)
        return fingerprint, elsewhere[0], fingerprint
    if targets:
        name = targets[0]
        found = _NAMED_IN_TRAIL.models(Artifact, trail=trail.id, name=name)
        artifact = found[0] if found else None
        return name, artifact, artifact.fingerprint if artifact else None
    return None, None, None


def _record(org: Organization, user: User, trail_of: Callable[[], Trail], data: dict[str, Any],
            judgement: Judgement, attachment: tuple[str, bytes] | None,
            overrides: Attestation | None = None) -> Attestation:
    """Keep an attestation in the trail `trail_of()` finds (or begins) in its transaction."""
    type_name, compliant, summary = judgement
    address = blobs.digest(attachment[1]) if attachment else None
    digests = leaves.content_digests(data, summary)

    def write() -> Attestation:
        with write_transaction():
            trail = trail_of()
            target, artifact, fingerprint = (
                (overrides.target_artifact, overrides.artifact, overrides.artifact_fingerprint)
                if overrides else _target(org, trail, data, anywhere=type_name == "decision"))
            stamp = now()
            blob = blobs.store(attachment[1], address) if attachment and address else None
            attestation = _ATTESTATION.create(
                uid=str(uuid.uuid4()), organization=org, flow=trail.flow_id, trail=trail,
                artifact=artifact, name=data["attestation_name"], type=type_name,
                target_artifact=target, artifact_fingerprint=fingerprint, is_compliant=compliant,
                data=data, summary=summary, attachment=blob,
                attachment_name=attachment[0] if attachment else None,
                overrides=overrides.uid if overrides else None,
                git_commit=_commit_of(data), created_by=user.name, created_at=stamp)
            list_sizes.added(attestation.id, (list_sizes.ATTESTATIONS_OF_FLOW, trail.flow_id),
                             (list_sizes.ATTESTATIONS_OF_TRAIL, trail.id))
            remember(org, data.get("repo_info"), stamp)
            leaves.log_attestation(org, trail, attestation, manifests.about(attestation), digests)
            trails.reported(
                org, trail, stamp,
                "artifact_attestation_reported" if target else "trail_attestation_reported",
                {"attestation_type": type_name, "attestation_id": attestation.uid,
                 "template_reference_name": data["attestation_name"],
                 "target_artifact": target, "is_compliant": compliant,
                 "git_commit_info": data.get("git_commit_info"), "user": user.name})
            name, verdict = data["attestation_name"], notifications.status(compliant)
            actions.flow_event(
                org, trail.flow, "ON_ATTESTATION",
                f"{type_name} attestation {name} reported to trail {trail.name} by "
                f"{user.name}: {verdict}",
                artifact=(artifact.name, fingerprint) if artifact and fingerprint else None,
                trail=trail.name, attestation={"name": name, "type": type_name,
                                               "status": verdict})
            return attestation

    return retry_on_conflict(write)


def create_attestation(org: Organization, user: User, flow_name: str, trail_name: str,
                       kind: str, data: dict[str, Any], attachment: tuple[str, bytes] | None
                       ) -> Attestation:
    if kind not in KINDS:
        raise not_found("attestation_kind", f"Unknown attestation kind '{kind}': use one of "
                        f"{sorted(KINDS)}", kind=kind)
    operation, judge = KINDS[kind]
    contract.validate(operation, data)
    check_reported_urls(data)
    check_repo_info(data.get("repo_info"))
    judgement = judge(org, data)
    return _record(org, user, lambda: trail_to_report_to(
        org, flow_to_report_to(org, flow_name), trail_name, user), data, judgement, attachment)


def override_attestation(org: Organization, user: User, flow_name: str, trail_name: str,
                         data: dict[str, Any]) -> Attestation:
    """A new verdict on the newest attestation of that name and type in the trail (about the
    artifact named, or the trail itself), or, before one is reported, on the one the trail's
    template expects there: an override needs something to override, of the type named."""
    contract.validate("post_override_attestation", data)
    check_reported_urls(data)
    trail = find_trail(org, flow_name, trail_name)
    target, _, _ = _target(org, trail, data)
    name, wanted = data["attestation_name"], data["original_attestation_type"]
    query = Attestation.select().where((Attestation.trail == trail) & (Attestation.name == name))
    query = query.where(Attestation.target_artifact.is_null() if target is None
                        else Attestation.target_artifact == target)
    original = query.order_by(Attestation.id.desc()).first()
    type_name = original.type if original else _expected_type(trail, name, target, wanted)
    # Custom types are named `custom:<name>` or `custom`; system ones `system:<name>`.
    if type_name is None or wanted not in (type_name, type_name.partition(":")[0],
                                           f"system:{type_name}"):
        raise not_found("attestation", f"No {wanted} attestation '{name}' to override in trail "
                        f"'{trail.name}'", trail=trail.name, attestation=name)
    verdict = dict(original.data) if original else {k: v for k, v in data.items() if k in _COMMON}
    verdict["override"] = {"reason": data["reason"], "by": user.name, **(
        {"overridden_attestation_id": original.uid, "previous_compliance": original.is_compliant}
        if original else {})}
    for key in ("description", "origin_url", "user_data", "annotations", "external_urls"):
        if data.get(key) is not None:
            verdict[key] = data[key]
    judgement = (type_name, bool(data["new_compliance_status"]),
                 original.summary if original else {})
    return _record(org, user, lambda: trail, verdict, judgement, None, overrides=original)


def _expected_type(trail: Trail, name: str, target: str | None, wanted: str) -> str | None:
    """The type of attestation the trail's template expects by that name about the artifact
    `target` (the trail itself when None), `wanted` where it takes any type; None when it
    expects none there (or the trail is of a legacy flow)."""
    text = version(trail.flow_template_id).template_yaml  # the template it was begun with
    if text is None:
        return None
    required = parse_template(text)["trail"]
    expected = required["attestations"] if target is None else next(
        (a["attestations"] for a in required["artifacts"] if a["name"] == target), [])
    found = next((a["type"] for a in expected if a["name"] == name), None)
    return wanted.removeprefix("system:") if found == "*" else found


# ---- reading -------------------------------------------------------------------------------

_COMMON = {"attestation_name", "artifact_fingerprint", "target_artifacts", "git_commit_info",
           "repo_info", "origin_url", "description", "external_urls", "annotations", "user_data"}


@dataclasses.dataclass(frozen=True, slots=True)
class Listed:
    """An attestation as lists read it: its own columns, its attachment's size and the names of
    its flow and trail, read as plain rows (building ORM objects for every row of a long list
    costs more than its query). Its JSON columns stay text until read, so a row is hashable: the
    same row makes the same answer (`servicers.attestations` keeps answers by it)."""

    uid: str
    name: str
    type: str
    target_artifact: str | None
    artifact_fingerprint: str | None
    is_compliant: bool
    data_json: str | None
    summary_json: str | None
    attachment_id: str | None
    attachment_name: str | None
    attachment_size: int | None
    overrides: str | None
    git_commit: str | None
    created_by: str
    created_at: float
    flow_name: str
    trail_name: str
    log_index: int | None  # its entry in the organization's transparency log

    @property
    def data(self) -> dict[str, Any]:
        return Attestation.data.python_value(self.data_json) or {}

    @property
    def summary(self) -> dict[str, Any]:
        return Attestation.summary.python_value(self.summary_json) or {}


_LISTED = (Attestation.uid, Attestation.name, Attestation.type, Attestation.target_artifact,
           Attestation.artifact_fingerprint, Attestation.is_compliant, Attestation.data,
           Attestation.summary, Attestation.attachment, Attestation.attachment_name, Blob.size,
           Attestation.overrides, Attestation.git_commit, Attestation.created_by,
           Attestation.created_at, Flow.name, Trail.name, LogEntry.number)


def _listing() -> peewee.ModelSelect:
    """Attestations as `Listed` rows (run by `_listed`)."""
    return (Attestation.select(*_LISTED)
            .join(Flow).switch(Attestation).join(Trail).switch(Attestation)
            .join(Blob, peewee.JOIN.LEFT_OUTER).switch(Attestation)
            .join(LogEntry, peewee.JOIN.LEFT_OUTER, on=(
                (LogEntry.kind == leaves.ATTESTATION) & (LogEntry.record_id == Attestation.id))))


def _query(org: Organization) -> peewee.ModelSelect:
    return _listing().where(Attestation.organization == org)


# What a flow's and a trail's attestations are counted as (list_sizes)
_SIZE_OF = {Attestation.flow: list_sizes.ATTESTATIONS_OF_FLOW,
            Attestation.trail: list_sizes.ATTESTATIONS_OF_TRAIL}


def _page_of(column: peewee.Field, value: int, skip: int, take: int) -> peewee.ModelSelect:
    """The attestations with `value` in `column` (their flow or trail) a page at a time, newest
    first, each row ended by how many there are (their kept size, a subquery the database runs
    once), so a page is one round trip. The page's ids are those at its positions in the list
    (list_sizes: an index range, the same cost at any depth); only they are joined into
    `Listed` rows."""
    kind = _SIZE_OF[column]
    ids = list_sizes.ids_at(kind, value, skip, take)
    return (_listing().select_extend(list_sizes.size_column(kind, value))
            .where(Attestation.id.in_(ids)).order_by(Attestation.id.desc()))


# A flow's or a trail's attestations a page at a time, prepared.
_PAGE_OF = {column: Prepared(lambda value, skip, take, column=column: _page_of(
                column, value, skip, take), value=int, skip=int, take=int)
            for column in _SIZE_OF}


def _listed(rows: peewee.Query | Iterable[tuple[Any, ...]]) -> list[Listed]:
    """`Listed` attestations of a `_listing` query (run here), or of its rows as the driver
    gives them: only the flag is converted (SQLite answers 0 or 1)."""
    if isinstance(rows, peewee.Query):
        rows = database.execute_sql(*rows.sql())
    return [Listed(*[*row[:5], bool(row[5]), *row[6:]]) for row in rows]


@dataclasses.dataclass(frozen=True, slots=True)
class Links:
    """Where an attestation is seen: its page, its own API answer and its attachment's."""

    html_url: str
    self_href: str
    evidence_url: str | None


def links_of(a: Listed, org_name: str, html_base: str) -> Links:
    api = f"{html_base}/api/v2/attestations/{org_name}/{a.flow_name}"
    return Links(
        html_url=f"{html_base}/{org_name}/flows/{a.flow_name}/trails/{a.trail_name}"
                 f"?attestation_id={a.uid}",
        self_href=f"{api}/artifact/{a.artifact_fingerprint}/{a.name}" if a.artifact_fingerprint
        else f"{api}/trail/{a.trail_name}/{a.name}",
        evidence_url=f"{api}/trail/{a.trail_name}/attestation/{a.uid}/evidence"
        if a.attachment_id else None)


def kind_part(data: dict[str, Any]) -> dict[str, Any]:
    """What an attestation's data holds beyond the fields every kind has: its kind's results."""
    part = {k: v for k, v in data.items() if k not in _COMMON}
    if "snyk_results" in part:  # the hosted name of the processed scan (the docs' Rego reads it)
        part["processed_snyk_results"] = part.pop("snyk_results")
    return part


def common_fields(a: Listed, org_name: str, html_base: str) -> views.Attestation:
    """The fields every attestation has, as the API answers them (the gRPC message reads the
    same keys, `_links` and its `self` by their contract names)."""
    data = a.data
    links = links_of(a, org_name, html_base)
    evidence: views.AttestationAttachment | None = None
    if a.attachment_id:
        evidence = {"filename": a.attachment_name or "", "sha256": a.attachment_id,
                    "size": a.attachment_size or 0, "url": links.evidence_url or ""}
    links_view: views.AttestationLinks = {"self": {"href": links.self_href}}
    if evidence:
        links_view["evidence"] = {"href": evidence["url"]}
    return {
        "schema_version": 2,
        "attestation_id": a.uid,
        "attestation_name": a.name,
        "attestation_type": a.type,
        "is_compliant": a.is_compliant,
        "artifact_fingerprint": a.artifact_fingerprint,
        "target_artifact": a.target_artifact,
        "flow_name": a.flow_name,
        "trail_name": a.trail_name,
        "created_at": a.created_at,
        "created_by": a.created_by,
        **data_fields(data),  # type: ignore[typeddict-item]  # its keys are views.Attestation's
        "summary": a.summary,
        "evidence": evidence,
        "overridden_attestation_id": a.overrides,
        "html_url": links.html_url,
        "log_index": a.log_index,
        "target_artifacts": [a.target_artifact] if a.target_artifact else [],
        "reported_by": a.created_by,
        "evidence_archive_fingerprint": a.attachment_id,
        "has_audit_package": True,
        "_links": links_view,
    }


def data_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The common fields of an attestation's answer that its data says (kind_part: the others
    it says), as an audit package's check reads them back."""
    return {
        "git_commit_info": data.get("git_commit_info"),
        "repo_info": data.get("repo_info"),
        "origin_url": data.get("origin_url"),
        "description": data.get("description"),
        "user_data": data.get("user_data") or {},
        "annotations": _annotations(data.get("annotations")),
        "external_urls": data.get("external_urls") or {},
    }


def _annotations(stored: Any) -> dict[str, str]:
    """Annotations as their message's map of string to string: a value stored before the door
    refused all but strings (null, a number, a list, an object) is shown as its JSON text."""
    if not isinstance(stored, dict):
        return {}
    return {str(key): value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            for key, value in stored.items()}


def attestation_document(a: Listed, org_name: str, html_base: str) -> dict[str, Any]:
    """An attestation as the REST API answers it (the JSON document of an audit package): the
    part of its kind and the common fields, in one object."""
    view = kind_part(a.data)
    view.update(common_fields(a, org_name, html_base))
    return view


def recorded_in(org: Organization, trail: Trail | None = None, *,
                about: Artifact | None = None) -> list[Listed]:
    """Every attestation of a trail, or about an artifact (its entries': manifests.about),
    oldest first."""
    query = _query(org)
    if trail is not None:
        query = query.where(Attestation.trail == trail)
    if about is not None:
        query = query.where(manifests.about_artifact(about))
    return _listed(query.order_by(Attestation.created_at, Attestation.id))


def trail_attestations(org: Organization, flow_name: str, trail_name: str, name: str
                       ) -> list[Listed]:
    """The attestations of that name in the trail, newest first (none: an empty list, as for
    any question about a trail that is there); `backend.unit-tests` also names `unit-tests`
    about the template's artifact `backend`, as attest commands write it."""
    trail = find_trail(org, flow_name, trail_name)
    where = Attestation.name == name
    target, dot, short = name.partition(".")
    if dot and short:
        where = where | ((Attestation.name == short) & (Attestation.target_artifact == target))
    return _listed(_query(org).where((Attestation.trail == trail) & where)
                   .order_by(Attestation.id.desc()))


def artifact_attestations(org: Organization, flow_name: str, fingerprint: str, name: str
                          ) -> list[Listed]:
    """The attestations of that name about the flow's artifact, newest first (none: an empty
    list; an unknown flow or artifact is not found)."""
    flow = find_flow(org, flow_name)
    full = resolve_fingerprint(org, fingerprint, flow)
    return _listed(_query(org).where((Attestation.flow == flow) & (Attestation.name == name)
                                     & (Attestation.artifact_fingerprint == full))
                   .order_by(Attestation.id.desc()))


def list_attestations(org: Organization, filters: dict[str, Any], after: str | None,
                      per_page: int) -> tuple[list[Listed], str | None]:
    """Newest first, after the attestation with id `after`. Returns (rows, next cursor)."""
    if not 1 <= per_page <= MAX_CURSOR_PAGE:
        raise validation_error("per_page", f"Must be between 1 and {MAX_CURSOR_PAGE}")
    query = _filtered(_query(org), org, filters)
    if after:
        anchor = Attestation.get_or_none((Attestation.uid == after) & (Attestation.organization == org))
        if anchor is None:
            raise validation_error("after", f"Unknown attestation id '{after}'")
        query = query.where(Attestation.id < anchor.id)
    rows = _listed(query.order_by(Attestation.id.desc()).limit(per_page + 1))
    more = len(rows) > per_page
    rows = rows[:per_page]
    return rows, (rows[-1].uid if more else None)


def _name_search(text: str) -> Callable[[str], Any]:
    """The search function of a user's name_regex compiled by RE2, which matches in linear
    time: constructs that need backtracking (backreferences, lookaround) are refused rather than run."""
    options = re2.Options()
    options.log_errors = False
    options.never_capture = True
    try:
        return re2.compile(text, options=options).search
    except re2.error as exc:
        problem = exc.args[0].decode(errors="replace") if exc.args else "unsupported"
        raise validation_error("name_regex", "Invalid or unsupported regular expression "
                               f"(RE2 syntax, no backreferences or lookaround): {problem}") from None


def _filtered(query: peewee.ModelSelect, org: Organization, filters: dict[str, Any]
              ) -> peewee.ModelSelect:
    if filters.get("attestation_id"):
        query = query.where(Attestation.uid == filters["attestation_id"])
    if filters.get("name"):
        query = query.where(Attestation.name == filters["name"])
    if filters.get("flow"):
        query = query.where(Attestation.flow == find_flow(org, filters["flow"]))
    if filters.get("type"):
        query = query.where(Attestation.type == filters["type"])
    if filters.get("is_compliant") is not None:
        query = query.where(Attestation.is_compliant == filters["is_compliant"])
    if filters.get("from_timestamp") is not None:
        query = query.where(Attestation.created_at >= filters["from_timestamp"])
    if filters.get("to_timestamp") is not None:
        query = query.where(Attestation.created_at <= filters["to_timestamp"])
    if filters.get("name_regex"):
        search = _name_search(filters["name_regex"])
        names = {n for (n,) in Attestation.select(Attestation.name).distinct()
                 .where(Attestation.organization == org).tuples() if search(n)}
        query = query.where(Attestation.name.in_(sorted(names)))
    return query


_NARROWING = ("attestation_id", "name", "flow", "type", "is_compliant", "from_timestamp",
              "to_timestamp", "name_regex")  # what `_filtered` narrows a list by


def list_flow_attestations(org: Organization, flow_name: str, page: Page,
                           filters: dict[str, Any]) -> tuple[list[Listed], dict[str, int]]:
    """The flow's attestations, or one trail's of it, newest first."""
    if not filters.get("trail_name"):
        column, value = Attestation.flow, find_flow(org, flow_name).id
    else:
        column, value = Attestation.trail, find_trail(org, flow_name, filters["trail_name"]).id
    if page.size is not None and not any(filters.get(k) is not None for k in _NARROWING):
        rows = _PAGE_OF[column].rows(value=value, skip=page.offset, take=page.size)
        if rows:
            total = rows[0][-1]
        else:  # a page past the end (or of an empty list) has no row to tell the count
            total = list_sizes.size(_SIZE_OF[column], value) if page.offset else 0
        return _listed(row[:-1] for row in rows), page.pagination(total)
    query = _query(org).where(column == value)
    return page.apply(_filtered(query, org, filters).order_by(Attestation.id.desc()), _listed)


def attestations_for_criteria(org: Organization, criteria: dict[str, Any]
                              ) -> dict[str, list[Listed]]:
    """{commit: the attestations naming it, newest first} for every commit of `commit_list`
    (required, 40 lowercase hex each), narrowed by flow, name, id and type."""
    commits = list(dict.fromkeys(criteria.get("commit_list") or []))
    if not commits:
        raise validation_error("commit_list", "Required: the commits to list attestations for")
    for i, commit in enumerate(commits):
        if not is_commit(commit):
            raise validation_error(f"commit_list.{i}", "Must match ^[a-f0-9]{40}$")
    query = _filtered(_query(org), org, {
        "flow": criteria.get("flow_name"), "name": criteria.get("attestation_name"),
        "attestation_id": criteria.get("attestation_id"), "type": criteria.get("attestation_type")})
    by_commit: dict[str, list[Listed]] = {commit: [] for commit in commits}
    for chunk in in_chunks(sorted(commits)):
        for a in _listed(query.where(Attestation.git_commit.in_(chunk))
                         .order_by(Attestation.id.desc())):
            by_commit[cast(str, a.git_commit)].append(a)  # the query asks for these commits
    return by_commit


def _commit_of(data: dict[str, Any]) -> str | None:
    """The commit an attestation names (data.git_commit_info.sha1), kept in its own column."""
    info = data.get("git_commit_info")
    sha1 = info.get("sha1") if isinstance(info, dict) else None
    return sha1 if isinstance(sha1, str) else None


def evidence_file(org: Organization, flow_name: str, trail_name: str, uid: str
                  ) -> tuple[str, str, bytes]:
    """(file name, content type, content) of an attestation's attachment."""
    trail = find_trail(org, flow_name, trail_name)
    attestation = Attestation.get_or_none((Attestation.trail == trail) & (Attestation.uid == uid))
    if attestation is None or not attestation.attachment_id:
        raise missing("evidence_file", attestation_id=uid)
    name = attestation.attachment_name or "evidence"
    content_type = ("application/gzip" if name.endswith(".tgz")
                    else mimetypes.guess_type(name)[0] or "application/octet-stream")
    return name, content_type, blobs.content_of(attestation.attachment_id)
