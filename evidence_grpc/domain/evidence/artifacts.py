"""Artifacts: reported to a flow and trail, found by fingerprint (or a 5-64 character prefix),
by commit, and searched. Prefixes are index range queries, never LIKE (which scans)."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, Literal

import peewee

from ...api.v2 import views
from ...storage.db import Prepared, for_update, in_chunks, now, retry_on_conflict, write_transaction
from ...storage.models import Artifact, Attestation, Flow, Organization, Trail, User
from ..kernel import contract, events, list_sizes
from ..kernel.artifact_links import artifact_html_url
from ..kernel.errors import InvalidArgument, missing, not_found, validation_error
from ..kernel.ids import hosted_id
from ..kernel.names import check_name
from ..kernel.numbers import timestamp_text
from ..kernel.pages import Page
from ..kernel.urls import check_reported_urls
from ..outbound import actions, notifications
from . import leaves, manifests, trails
from .compliance import artifact_state
from .events import ArtifactRepoKnown
from .flows import find_flow, flow_to_report_to
from .repos import check_repo_info, remember, repos_named

HEX = re.compile(r"[a-f0-9]+")  # fullmatch: `$` would also take a final newline
MIN_PREFIX, FINGERPRINT_LENGTH, COMMIT_LENGTH = 5, 64, 40
MAX_CANDIDATES = 10
# Artifacts read at a time while looking for the newest commit on a branch (filtered in Python).
LATEST_COMMIT_BATCH = 500
# Artifacts a fingerprint lookup reads at once: when fewer come, and all of one fingerprint,
# they are all there are and the prefix is not ambiguous.
ONE_READ = 16


def _bounds(prefix: str) -> dict[str, str]:
    """{low, high}: the values starting with `prefix` (lowercase hex) are those in [low, high),
    an index-friendly range (never LIKE)."""
    return {"low": prefix, "high": prefix[:-1] + chr(ord(prefix[-1]) + 1)}


def _in_range(field: peewee.Field, low: str, high: str) -> peewee.Expression:
    return (field >= low) & (field < high)


def check_prefix(field: str, value: str, full_length: int, minimum: int = MIN_PREFIX) -> str:
    value = value.lower()
    if not (minimum <= len(value) <= full_length) or not HEX.fullmatch(value):
        raise validation_error(field, f"'{value}' must be {minimum} to {full_length} "
                                      "lowercase hexadecimal characters")
    return value


def report_artifact(org: Organization, user: User, flow_name: str, data: dict[str, Any]
                    ) -> Artifact:
    """Create or update the artifact with this fingerprint in its trail, which is begun if it
    does not exist. Without a trail name (the legacy `report artifact`), the trail is named
    after the commit or the fingerprint."""
    contract.validate("create_artifact", data)
    check_reported_urls(data)
    check_repo_info(data.get("repo_info"))
    fingerprint = data["fingerprint"]
    if len(fingerprint) != FINGERPRINT_LENGTH or not HEX.fullmatch(fingerprint):
        raise validation_error("fingerprint", "Must be 64 lowercase hexadecimal characters")
    git_commit = data.get("git_commit") or (data.get("git_commit_info") or {}).get("sha1")
    if git_commit is not None and not is_commit(git_commit):
        raise validation_error("git_commit", "Must be 40 lowercase hexadecimal characters")
    template_name = data.get("template_reference_name")
    if template_name is not None:
        check_name("template_reference_name", template_name)
    trail_name = data.get("trail_name")

    def write() -> Artifact:
        # A flow or trail begun here goes if the report fails. The trail is locked first
        # (begin_trail locks it too), as beginning a trail and attesting do: one locking order,
        # trail then repo, so no two writers deadlock.
        with write_transaction():
            flow = flow_to_report_to(org, flow_name)
            if trail_name is None:
                trail = trails.begin_trail(org, flow.name, {"name": git_commit or fingerprint},
                                           user)[0]
            else:
                trail = trails.trail_to_report_to(org, flow, trail_name, user)
            stamp = now()
            artifact = for_update(Artifact.select().where(
                (Artifact.trail == trail) & (Artifact.fingerprint == fingerprint))).first()
            created = artifact is None
            if artifact is None:
                artifact = Artifact(uid=hosted_id(), organization=org, flow=flow, trail=trail,
                                    fingerprint=fingerprint, created_at=stamp, created_by=user.name)
            artifact.name = data["filename"]
            artifact.template_reference_name = template_name
            artifact.git_commit = git_commit
            artifact.git_commit_info = data.get("git_commit_info")
            artifact.repo_info = data.get("repo_info")
            artifact.build_url = data.get("build_url")
            artifact.commit_url = data.get("commit_url")
            artifact.repo_url = data.get("repo_url")
            artifact.external_urls = data.get("external_urls") or {}
            artifact.annotations = data.get("annotations") or {}
            artifact.commits = data.get("commits_list") or []
            artifact.repo = remember(org, artifact.repo_info or trail.repo_info, stamp)
            artifact.last_modified_at = stamp
            artifact.save()
            if created:
                list_sizes.added(artifact.id, (list_sizes.ARTIFACTS_OF_FLOW, flow.id),
                                 (list_sizes.ARTIFACTS_OF_ORGANIZATION, org.id))
            leaves.log_artifact(org, artifact)
            events.publish(ArtifactRepoKnown(org, artifact))
            _bind_pending(org, trail, artifact)
            trails.reported(org, trail, stamp, "artifact_creation_reported",
                            {"artifact_name": artifact.name, "fingerprint": fingerprint,
                             "template_reference_name": template_name,
                             "git_commit_info": artifact.git_commit_info, "user": user.name})
            actions.flow_event(org, flow, "ON_ATTESTED_PROVENANCE",
                               f"{artifact.name} reported to trail {trail.name} by {user.name}",
                               artifact=(artifact.name, fingerprint), trail=trail.name)
            return artifact

    return retry_on_conflict(write)


def commit_timestamp(info: Any) -> float | None:
    """The timestamp of a reported git_commit_info, if it has one."""
    stamp = info.get("timestamp") if isinstance(info, dict) else None
    return float(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else None


def commit_time(artifact: Artifact) -> float | None:
    """When the artifact's commit was made, what its lead times count from: its
    git_commit_info's timestamp, else its trail's (a trail begun with --commit)."""
    own = commit_timestamp(artifact.git_commit_info)
    return own if own is not None else commit_timestamp(artifact.trail.git_commit_info)


def is_commit(text: str) -> bool:
    """Whether the text is a full git commit id: 40 lowercase hexadecimal characters."""
    return len(text) == COMMIT_LENGTH and HEX.fullmatch(text) is not None


def _bind_pending(org: Organization, trail: Trail, artifact: Artifact) -> None:
    """Attestations made before the artifact for its template name (`--name backend.tests`
    with `--commit` and no fingerprint) are bound to it when it arrives, matched by template
    name and commit (the hosted docs: "binds it to the real fingerprint later"). Each binding
    is an entry of the log of its own: the attestation's entry says what it was made as."""
    if not artifact.template_reference_name:
        return
    commit = Attestation.git_commit.is_null()
    if artifact.git_commit:
        commit = commit | (Attestation.git_commit == artifact.git_commit)
    pending = list(for_update(Attestation.select().where(
        (Attestation.trail == trail)
        & (Attestation.target_artifact == artifact.template_reference_name)
        & Attestation.artifact_fingerprint.is_null() & commit)).order_by(Attestation.id))
    if not pending:
        return
    (Attestation.update(artifact=artifact, artifact_fingerprint=artifact.fingerprint)
     .where(Attestation.id.in_([a.id for a in pending])).execute())
    for attestation in pending:
        attestation.artifact, attestation.artifact_fingerprint = artifact, artifact.fingerprint
        leaves.log_binding(org, attestation, artifact, manifests.about(attestation))


def _distinct_prefixed(field: peewee.Field, in_flow: bool) -> Prepared:
    """The distinct values of `field` in [low, high) of an organization (or one of its flows),
    at most MAX_CANDIDATES + 1 of them."""
    def build(org: Any, low: Any, high: Any, flow: Any = None) -> peewee.Query:
        scope = Artifact.organization == org
        if in_flow:
            scope &= Artifact.flow == flow
        return (Artifact.select(field).distinct().where(scope & _in_range(field, low, high))
                .order_by(field).limit(MAX_CANDIDATES + 1))

    return Prepared(build, org=int, low=str, high=str, **({"flow": int} if in_flow else {}))


# Lookups run on every `get artifact`, search and prefix: compiled once (storage.db.Prepared).
_PREFIXED = {(field.name, in_flow): _distinct_prefixed(field, in_flow)
             for field in (Artifact.fingerprint, Artifact.git_commit) for in_flow in (False, True)}


def _matching(field: peewee.Field, org: Organization, prefix: str, flow: Flow | None) -> list[str]:
    scope = {"org": org.id} if flow is None else {"org": org.id, "flow": flow.id}
    prepared = _PREFIXED[(field.name, flow is not None)]
    return [row[0] for row in prepared.rows(**scope, **_bounds(prefix))]


def matching_fingerprints(org: Organization, prefix: str, flow: Flow | None = None) -> list[str]:
    """Distinct fingerprints starting with `prefix` (at most MAX_CANDIDATES + 1)."""
    return _matching(Artifact.fingerprint, org, prefix, flow)


def matching_commits(org: Organization, prefix: str, flow: Flow | None = None) -> list[str]:
    return _matching(Artifact.git_commit, org, prefix, flow)


def resolve_fingerprint(org: Organization, value: str, flow: Flow | None = None) -> str:
    """The one full fingerprint a (prefix) value stands for."""
    prefix = check_prefix("fingerprint", value, FINGERPRINT_LENGTH)
    candidates = matching_fingerprints(org, prefix, flow)
    if not candidates:
        raise (missing("artifact_in_flow", organization=org.name, flow=flow.name,
                       fingerprint=value) if flow is not None
               else missing("artifact_in_org", organization=org.name, fingerprint=value))
    if len(candidates) > 1:
        shown = ", ".join(candidates[:MAX_CANDIDATES])
        raise InvalidArgument(f"Fingerprint prefix '{value}' is ambiguous",
                              {"fingerprint": f"matches several artifacts: {shown}"},
                              reason="FINGERPRINT_AMBIGUOUS")
    return candidates[0]


def _of_fingerprint(flow: Any, fingerprint: Any, trail: Any = None) -> peewee.Query:
    query = (Artifact.select(Artifact, Trail).join(Trail)
             .where((Artifact.flow == flow) & (Artifact.fingerprint == fingerprint)))
    return query if trail is None else query.where(Trail.name == trail)


def _of_commit(flow: Any, low: Any, high: Any, trail: Any = None) -> peewee.Query:
    query = (Artifact.select(Artifact, Trail, Flow).join(Trail).switch(Artifact).join(Flow)
             .where((Artifact.flow == flow) & _in_range(Artifact.git_commit, low, high)))
    if trail is not None:
        query = query.where(Trail.name == trail)
    return query.order_by(Artifact.id.desc())


def _of_prefix(flow: Any, low: Any, high: Any) -> peewee.Query:
    """A flow's first artifacts, by fingerprint, whose fingerprint is in [low, high): the
    (flow, fingerprint) index read in its own order."""
    return (Artifact.select(Artifact, Trail).join(Trail)
            .where((Artifact.flow == flow) & _in_range(Artifact.fingerprint, low, high))
            .order_by(Artifact.fingerprint).limit(ONE_READ))


_OF_FINGERPRINT = {False: Prepared(_of_fingerprint, flow=int, fingerprint=str),
                   True: Prepared(_of_fingerprint, flow=int, fingerprint=str, trail=str)}
_OF_PREFIX = Prepared(_of_prefix, flow=int, low=str, high=str)
_OF_COMMIT = {False: Prepared(_of_commit, flow=int, low=str, high=str),
              True: Prepared(_of_commit, flow=int, low=str, high=str, trail=str)}


def _in_one_read(flow: Flow, fingerprint: str) -> list[Artifact] | None:
    """The flow's artifacts of the fingerprint (prefix) in one statement, when that can tell:
    fewer than ONE_READ came, all of one fingerprint. None: resolve the fingerprint first."""
    found = _OF_PREFIX.models(Artifact, flow=flow.id, **_bounds(
        check_prefix("fingerprint", fingerprint, FINGERPRINT_LENGTH)))
    one = 0 < len(found) < ONE_READ and len({a.fingerprint for a in found}) == 1
    return found if one else None


def find_by_fingerprint(org: Organization, flow_name: str, fingerprint: str,
                        trail_name: str | None = None, uid: str | None = None) -> Artifact:
    """The newest artifact of the flow with that fingerprint (in that trail, if given; the
    report of that id, if given: ids are kept, so an id answered once finds its report)."""
    flow = find_flow(org, flow_name)
    found = None if trail_name else _in_one_read(flow, fingerprint)
    if found is None:
        full = resolve_fingerprint(org, fingerprint, flow)  # names the candidates of an ambiguity
        in_trail = {"trail": trail_name} if trail_name else {}
        found = _OF_FINGERPRINT[bool(trail_name)].models(Artifact, flow=flow.id, fingerprint=full,
                                                          **in_trail)
    # Few rows share a fingerprint; sorting them here keeps the planner on the
    # (flow, fingerprint) index instead of walking the flow by creation time.
    artifact = max((a for a in found if uid in (None, a.uid)), key=lambda a: a.id, default=None)
    if artifact is None and uid is not None:
        raise not_found("artifact", f"Artifact with id '{uid}' and fingerprint {fingerprint} "
                        f"does not exist in flow '{flow.name}' belonging to organization "
                        f"'{org.name}'", organization=org.name, flow=flow.name,
                        fingerprint=fingerprint, artifact_id=uid)
    if artifact is None:
        raise missing("artifact_in_trail", organization=org.name, flow=flow.name,
                      trail=trail_name, fingerprint=fingerprint)
    artifact.flow = flow
    return artifact


def find_by_commit(org: Organization, flow_name: str, commit: str,
                   trail_name: str | None = None) -> list[Artifact]:
    flow = find_flow(org, flow_name)
    prefix = check_prefix("commit_sha", commit, COMMIT_LENGTH, minimum=4)
    in_trail = {"trail": trail_name} if trail_name else {}
    found = _OF_COMMIT[bool(trail_name)].models(Artifact, flow=flow.id, **_bounds(prefix),
                                                 **in_trail)
    if not found:
        raise missing("artifact_of_commit", organization=org.name, flow=flow.name, commit=commit)
    return found


def latest_commit(org: Organization, flow_name: str, branch: str | None) -> str | None:
    """The commit of the flow's newest artifact on `branch` (any branch when not given)."""
    flow = find_flow(org, flow_name)
    newest_first = (Artifact.select(Artifact.git_commit, Artifact.git_commit_info, Artifact.commits)
                    .where((Artifact.flow == flow) & Artifact.git_commit.is_null(False))
                    .order_by(Artifact.id.desc()))
    page = 1
    while rows := list(newest_first.paginate(page, LATEST_COMMIT_BATCH)):
        for artifact in rows:
            if branch is None or _branch_of(artifact) == branch:
                return artifact.git_commit
        page += 1
    return None


def _branch_of(artifact: Artifact) -> str | None:
    """The branch of an artifact's commit: from git_commit_info (`attest artifact`), else from
    its entry in commits_list (the deprecated `report artifact` sends only that)."""
    branch = (artifact.git_commit_info or {}).get("branch")
    if branch is None:
        branch = next((c.get("branch") for c in artifact.commits or []
                       if isinstance(c, dict) and c.get("sha1") == artifact.git_commit), None)
    return branch


def _with_trails(which: peewee.Expression) -> peewee.ModelSelect:
    return (Artifact.select(Artifact, Trail, Flow).join(Trail).switch(Artifact).join(Flow)
            .where(which))


def list_artifacts(org: Organization, page: Page, flow_name: str | None = None,
                   repo_name: str | None = None, trail_name: str | None = None) -> list[Artifact]:
    """A page of the organization's artifacts, newest first: of a flow, of a trail of it, of a
    repo. Those of a flow or of the organization, unnarrowed, are the items at the page's
    positions in their list (list_sizes: the same cost at any depth)."""
    # a flow's or a trail's artifacts by its own column alone: its index holds the page's ids
    scope = Artifact.organization == org
    listed: tuple[str, int] | None = (list_sizes.ARTIFACTS_OF_ORGANIZATION, org.id)
    if flow_name:
        flow = find_flow(org, flow_name)
        scope, listed = Artifact.flow == flow, (list_sizes.ARTIFACTS_OF_FLOW, flow.id)
    if flow_name and trail_name:
        scope, listed = Artifact.trail == trails.find_trail(org, flow_name, trail_name), None
    if repo_name:  # an unknown repo is not there, as an unknown flow is
        named = repos_named(org, [repo_name])
        if not named:
            raise missing("repo", repo=repo_name)
        scope, listed = scope & Artifact.repo.in_([r.id for r in named]), None
    if listed is not None and page.size is not None:
        ids, _ = list_sizes.items_of_page(*listed, page)
        return list_sizes.in_page_order(ids, lambda ids: _with_trails(Artifact.id.in_(ids)))
    # The page's ids are picked from the artifacts alone (the OFFSET walks index entries, not
    # joined rows); only they are joined to their trails and flows.
    ids = Artifact.select(Artifact.id).where(scope).order_by(Artifact.id.desc())
    return list(_with_trails(Artifact.id.in_(ids.paginate(page.number, page.size)))
                .order_by(Artifact.id.desc()))


# ---- views ---------------------------------------------------------------------------------

def compliance_of_trails(artifacts: list[Artifact]) -> dict[int, views.ComplianceStatus]:
    """The compliance_status of each of the artifacts' trails (by trail id), each evaluated
    once: what every compliance field about these artifacts is derived from."""
    trail_rows = {}
    for artifact in artifacts:
        artifact.trail.flow = artifact.flow  # same flow; spares a query per trail
        trail_rows[artifact.trail_id] = artifact.trail
    evidence = trails.evidence_of(list(trail_rows.values()))
    return {tid: trails.compliance_of(t, evidence[tid])[1] for tid, t in trail_rows.items()}


def states_of(artifacts: list[Artifact]) -> dict[int, str]:
    """Compliance state of each artifact, evaluating each of their trails once."""
    compliance = compliance_of_trails(artifacts)
    return {a.id: artifact_state(compliance[a.trail_id], a.template_reference_name)
            for a in artifacts}


_RESULTS: tuple[Literal["snyk_results", "junit_results", "jira_results", "git_provider", "pull_requests"],
                ...] = ("snyk_results", "junit_results", "jira_results", "git_provider", "pull_requests")


_ABOUT = Prepared(lambda artifacts: Attestation.select().where(Attestation.artifact.in_(artifacts))
                  .order_by(Attestation.id), artifacts=list[int])
_BY_TEMPLATE_NAME = Prepared(lambda trails, names: Attestation.select().where(
    Attestation.trail.in_(trails) & Attestation.target_artifact.in_(names)), trails=list[int],
    names=list[str])


def _counts_by_name(row: Attestation, artifact: Artifact) -> bool:
    """Whether an attestation made for the artifact's template name, without a fingerprint
    (`--name backend.tests`), counts for it as it does for the first artifact of that name it
    was bound to: in the same trail, of no commit or the artifact's."""
    return (row.trail_id == artifact.trail_id
            and row.target_artifact == artifact.template_reference_name
            and not (row.data or {}).get("artifact_fingerprint")
            and row.git_commit in (None, artifact.git_commit))


def attestations_about(artifacts: list[Artifact]) -> dict[int, list[Attestation]]:
    """Every attestation about each artifact, in report order: those bound to it, and those
    made for its template name without a fingerprint that count for it (`_counts_by_name`;
    bound to the first artifact of that name, they count for a rebuilt one too). Two queries
    per chunk of artifacts."""
    found: dict[int, dict[int, Attestation]] = {a.id: {} for a in artifacts}
    for chunk in in_chunks(sorted(found)):
        for row in _ABOUT.models(Attestation, artifacts=chunk):
            found[row.artifact_id][row.id] = row
    named = [a for a in artifacts if a.template_reference_name]
    for chunk_of in in_chunks(named):
        for row in _BY_TEMPLATE_NAME.models(
                Attestation, trails=sorted({a.trail_id for a in chunk_of}),
                names=sorted({a.template_reference_name for a in chunk_of})):
            for artifact in chunk_of:
                if _counts_by_name(row, artifact):
                    found[artifact.id][row.id] = row
    return {artifact: [rows[i] for i in sorted(rows)] for artifact, rows in found.items()}


def evidence_of(org: Organization, artifact: Artifact, attested: list[Attestation],
                html_base: str) -> dict[str, views.ArtifactEvidence]:
    """{attestation name: the newest attestation of that name about the artifact} in the
    published `evidence` shape."""
    evidence: dict[str, views.ArtifactEvidence] = {}
    for row in attested:
        data = row.data or {}
        url = (f"{html_base}/api/v2/attestations/{org.name}/{artifact.flow.name}/trail/"
               f"{artifact.trail.name}/attestation/{row.uid}/evidence"
               if row.attachment_id else None)
        entry: views.ArtifactEvidence = {
            "evidence_type": row.type, "is_compliant": row.is_compliant,
            "created_at": timestamp_text(row.created_at), "has_audit_package": True,
            "build_url": data.get("build_url"), "description": data.get("description"),
            "user_data": data.get("user_data") or {},
            "evidence_archive_fingerprint": row.attachment_id,
            "evidence_fingerprint": row.attachment_id, "evidence_url": url,
            "commit_sha": row.git_commit}
        for key in _RESULTS:
            if key in data:
                entry[key] = data[key]
        evidence[row.name] = entry
    return evidence


# Every snapshot judges its artifacts' provenance: compiled once (see storage.db.Prepared).
_REPORTED = Prepared(lambda org, fingerprints: (
    Artifact.select(Artifact, Flow, Trail).join(Flow).switch(Artifact).join(Trail)
    .where((Artifact.organization == org) & Artifact.fingerprint.in_(fingerprints))
    .order_by(Artifact.id)), org=int, fingerprints=list[str])

def first_reports(org: Organization, fingerprints: list[str], flow_id: int | None
                  ) -> dict[str, notifications.Reported]:
    """Where each fingerprint was built, as notifications say it: its first report (to the flow
    of `flow_id`, when given) and the artifact's compliance in that report's trail."""
    first: dict[str, Artifact] = {}
    for chunk in in_chunks(fingerprints):
        for artifact in _REPORTED.models(Artifact, org=org.id, fingerprints=chunk):  # by id
            if flow_id is None or artifact.flow_id == flow_id:
                first.setdefault(artifact.fingerprint, artifact)
    states = states_of(list(first.values()))
    return {fingerprint: notifications.Reported(
        uid=a.uid, flow=a.flow.name, state=states[a.id], commit=a.git_commit or None,
        commit_url=a.commit_url or None, build_url=a.build_url or None)
        for fingerprint, a in first.items()}


_REPORT_NAMES = Prepared(lambda org, fingerprints: (
    Artifact.select(Artifact.fingerprint, Trail.name, Flow.name).join(Flow).switch(Artifact)
    .join(Trail).where((Artifact.organization == org) & Artifact.fingerprint.in_(fingerprints))
    .order_by(Artifact.id)), org=int, fingerprints=list[str])


def report_names(org: Organization, fingerprints: list[str]) -> dict[str, list[tuple[str, str]]]:
    """(trail name, its flow's current name) of each report of these fingerprints, in report
    order, as `provenance_of` lists them: reports are never deleted and never move, so the
    reports a snapshot kept are the first ones here."""
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for chunk in in_chunks(sorted(set(fingerprints))):
        for fingerprint, trail, flow in _REPORT_NAMES.rows(org=org.id, fingerprints=chunk):
            found[fingerprint].append((trail, flow))
    return dict(found)


def provenance_of(org: Organization, wanted: list[str], html_base: str
                  ) -> dict[str, list[dict[str, Any]]]:
    """The reports of each fingerprint, in report order (the id sequence). Keys starting with
    `_` are for policy evaluation and asserts and never shown or kept: `_compliance` is the
    compliance_status of the report's trail that its `compliance_state` was derived from."""
    reported = [a for chunk in in_chunks(wanted)
                for a in _REPORTED.models(Artifact, org=org.id, fingerprints=chunk)]
    compliance = compliance_of_trails(reported)
    provenance: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for a in sorted(reported, key=lambda a: a.id):  # report order, across chunks
        flow_url = f"{html_base}/{org.name}/flows/{a.flow.name}"
        provenance[a.fingerprint].append({
            "flow_name": a.flow.name, "trail_name": a.trail.name,
            "template_reference_name": a.template_reference_name,
            "git_commit": a.git_commit or "", "commit_url": a.commit_url or "",
            "git_commit_info": a.git_commit_info,
            "html_url": artifact_html_url(html_base, org.name, a.flow.name, a.fingerprint, a.uid),
            "flow_html_url": flow_url,
            "compliance_state": artifact_state(compliance[a.trail_id], a.template_reference_name),
            "commit_timestamp": commit_time(a),
            "_trail_id": a.trail_id, "_flow_tags": a.flow.tags or {}, "_artifact_name": a.name,
            "_compliance": compliance[a.trail_id],
        })
    return dict(provenance)
