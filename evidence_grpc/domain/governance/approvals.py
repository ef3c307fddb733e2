"""Approvals (deprecated; attestations replace them): an artifact of a flow approved for
deployment, or awaiting approval (no review yet). Approvals are numbered per flow from 1; the
flow row is locked while a number is taken (see _number_lock), and the unique (flow, number)
key with a retry backs that up. Each approval is also an `artifact_approval_reported` event
on every trail of the flow that reported the artifact."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from typing import Any

import peewee

from ...api.v2 import views
from ...storage.db import Prepared, database, in_chunks, now, retry_on_conflict, write_transaction
from ...storage.models import Approval, Artifact, Environment, Flow, Organization, User
from ..evidence.flows import find_flow
from ..evidence.trail_events import add_events, reports_of
from ..kernel import references
from ..kernel.errors import InvalidArgument, missing, not_found
from ..kernel.pages import page_of
from ..outbound import actions
from ..runtime.environments import LOGICAL, check_env_name, find_environment, latest_snapshots
from . import leaves

REVIEW_STATES = ("APPROVED", "UNAPPROVED")
PENDING = "PENDING"
FINGERPRINT = re.compile(r"[a-f0-9]{64}")  # fullmatch: `$` would also take a final newline
COMMIT = re.compile(r"[a-f0-9]{40}")
MAX_COMMITS = 10_000
MAX_REVIEWS = 100
# Reviews reported through the API name their reviewer as the hosted service does.
EXTERNAL = "external://"


@dataclasses.dataclass(frozen=True)
class Review:
    state: str
    comment: str = ""
    approved_by: str = ""
    approval_url: str = ""


def _check_request(fingerprint: str, description: str | None, environment: str | None,
                   commits: list[str], oldest_commit: str | None, reviews: list[Review],
                   user_data: Any) -> None:
    """Refuse the request naming every offending field at once."""
    errors: dict[str, str] = {}
    if not FINGERPRINT.fullmatch(fingerprint):
        errors["artifact_fingerprint"] = "Must match ^[a-f0-9]{64}$"
    if description is None:
        errors["description"] = "Field is required"
    if environment is not None:
        try:
            check_env_name("environment", environment)
        except InvalidArgument as exc:
            errors.update(exc.errors or {})
    if len(commits) > MAX_COMMITS:
        errors["src_commit_list"] = f"At most {MAX_COMMITS} commits"
    for i, commit in enumerate(commits):
        if not COMMIT.fullmatch(commit):
            errors[f"src_commit_list.{i}"] = "Must match ^[a-f0-9]{40}$"
            break
    if oldest_commit is not None and not COMMIT.fullmatch(oldest_commit):
        errors["oldest_commit"] = "Must match ^[a-f0-9]{40}$"
    if len(reviews) > MAX_REVIEWS:
        errors["approvals"] = f"At most {MAX_REVIEWS} approvals"
    for i, review in enumerate(reviews):
        if review.state not in REVIEW_STATES:
            errors[f"approvals.{i}.state"] = f"Must be one of {list(REVIEW_STATES)}"
    if user_data is not None and not isinstance(user_data, dict | list):
        errors["user_data"] = "Must be an object or an array"
    if errors:
        raise InvalidArgument("Input payload validation failed", errors)


def _number_lock(flow: Flow) -> None:
    """Take the flow's numbering lock until the transaction ends. On PostgreSQL it is FOR NO
    KEY UPDATE, which leaves alone the KEY SHARE locks of writers that only insert rows
    pointing at the flow: artifacts and attestations reported to its trails go on while an
    approval is numbered. SQLite admits one writer at a time anyway."""
    if isinstance(database.obj, peewee.PostgresqlDatabase):
        Flow.select(Flow.id).where(Flow.id == flow.id).for_update("FOR NO KEY UPDATE").execute()


def _reviewer(name: str) -> str:
    return name if name.startswith(EXTERNAL) else EXTERNAL + name


def create_approval(org: Organization, user: User, flow_name: str, *, fingerprint: str,
                    description: str | None, environment: str | None = None,
                    commits: list[str] | None = None, oldest_commit: str | None = None,
                    reviews: list[Review] | None = None, user_data: Any = None) -> Approval:
    """Number and store an approval of the flow's artifact with `fingerprint`; PENDING when
    no review is given, else the state of the last review."""
    commits, reviews = list(commits or []), list(reviews or [])
    _check_request(fingerprint, description, environment, commits, oldest_commit, reviews,
                   user_data)
    flow = find_flow(org, flow_name)

    def write() -> Approval:
        with write_transaction():
            _number_lock(flow)
            # Kept by id: the approval follows the environment's renames, not its old name.
            env = find_environment(org, environment) if environment else None
            artifact = (Artifact.select(Artifact.name)
                        .where((Artifact.flow == flow) & (Artifact.fingerprint == fingerprint))
                        .order_by(Artifact.id.desc()).first())
            if artifact is None:
                raise missing("artifact_in_flow", organization=org.name, flow=flow.name,
                              fingerprint=fingerprint)
            stamp = now()
            last = (Approval.select(Approval.number).where(Approval.flow == flow)
                    .order_by(Approval.number.desc()).first())
            stored = [{"state": r.state, "comment": r.comment,
                       "approved_by": _reviewer(r.approved_by), "approval_url": r.approval_url,
                       "timestamp": stamp} for r in reviews]
            approval = Approval.create(
                organization=org, flow=flow, number=last.number + 1 if last else 1,
                fingerprint=fingerprint, artifact_name=artifact.name, environment=environment,
                environment_ref=env,
                description=description or "", commits=commits, oldest_commit=oldest_commit,
                reviews=stored, state=stored[-1]["state"] if stored else PENDING,
                user_data=user_data, created_by=user.name, created_at=stamp,
                last_modified_at=stamp)
            leaves.log_approval(org, approval)
            _report_to_trails(flow, approval)
            actions.flow_event(
                org, flow, "ON_APPROVAL",
                f"approval #{approval.number} of {artifact.name}"
                f"{f' for {env.name}' if env else ''} by {user.name}: {approval.state}",
                artifact=(artifact.name, fingerprint), environment=env.name if env else None,
                approval={"number": approval.number, "state": approval.state})
            return approval

    return retry_on_conflict(write)


def _report_to_trails(flow: Flow, approval: Approval) -> None:
    reviewer = approval.reviews[-1]["approved_by"] if approval.reviews else None
    add_events([{"trail": trail_id, "timestamp": approval.created_at,
                 "type": "artifact_approval_reported",
                 "payload": {"git_commit_info": None, "repo_info": None,
                             "artifact_fingerprint": approval.fingerprint,
                             "approval_id": str(approval.id),
                             "approval_number": approval.number,
                             "environment_id": (str(approval.environment_id)
                                                if approval.environment_id else None),
                             "state": approval.state, "reviewer": reviewer}}
                for trail_id, _, _ in reports_of(Artifact.flow == flow, [approval.fingerprint])])


# ---- reads ---------------------------------------------------------------------------------

def _approvals(which: peewee.Expression) -> peewee.ModelSelect:
    """The approvals `which` picks with the current name of the environment each names, in the
    same query."""
    return (Approval.select(Approval, Environment.id, Environment.name)
            .join(Environment, peewee.JOIN.LEFT_OUTER).where(which))


def _newest(flow: Flow) -> int:
    """The number of the flow's newest approval (0 before the first): one index probe."""
    return Approval.select(peewee.fn.MAX(Approval.number)).where(Approval.flow == flow
                                                                 ).scalar() or 0


def list_approvals(org: Organization, flow_name: str, page: int | None, per_page: int | None
                   ) -> list[Approval]:
    """A page of the flow's approvals, newest first. Numbers run 1..the newest without a gap:
    each is the flow's last + 1, taken under its numbering lock (the unique (flow, number) key
    backs it up), and nothing deletes an approval. So a page is the range of numbers it holds
    below the newest (one index probe), at the same cost at any depth. (A row deleted around
    the domain, which verify-log names, leaves its page one item short.)"""
    flow = find_flow(org, flow_name)
    numbers = page_of(page, per_page).numbered(1, _newest(flow))
    if not numbers:
        return []
    return list(_approvals((Approval.flow == flow) & Approval.number.between(
        numbers[-1], numbers[0])).order_by(Approval.number.desc()))


def get_approval(org: Organization, flow_name: str, number: int) -> Approval:
    """Approval `number` of the flow; a negative number counts back from the newest (-1)."""
    flow = find_flow(org, flow_name)
    wanted = _newest(flow) + number + 1 if number < 0 else number
    found = _approvals((Approval.flow == flow) & (Approval.number == wanted)).first()
    if found is None:
        raise not_found("approval", f"Approval number '{number}' does not exist in flow "
                        f"'{flow.name}' belonging to organization '{org.name}'", flow=flow.name,
                        number=number)
    return found


def artifact_approvals(org: Organization, flow_name: str, fingerprint: str) -> list[Approval]:
    """The approvals of the flow's artifact with `fingerprint`, oldest first (the last one
    decides whether it is approved)."""
    if not FINGERPRINT.fullmatch(fingerprint):
        raise InvalidArgument("Input payload validation failed",
                              {"fingerprint": "Must match ^[a-f0-9]{64}$"})
    flow = find_flow(org, flow_name)
    if not Artifact.select().where((Artifact.flow == flow)
                                   & (Artifact.fingerprint == fingerprint)).exists():
        raise missing("artifact_in_flow", organization=org.name, flow=flow.name,
                      fingerprint=fingerprint)
    return list(_approvals((Approval.flow == flow) & (Approval.fingerprint == fingerprint))
                .order_by(Approval.number))


def running_artifact_commit(org: Organization, flow_name: str, env_name: str) -> str | None:
    """The commit of the newest artifact of the flow (by report) running in the environment's
    latest snapshot (in its members' for a logical environment); None when none runs."""
    flow = find_flow(org, flow_name)
    env = find_environment(org, env_name)
    envs = [env]
    if env.type == LOGICAL:
        members = references.ids_of(env.included_environments or [])
        envs = list(Environment.select().where(Environment.id.in_(members))) if members else []
    running = sorted({a["fingerprint"] for s in latest_snapshots(envs).values()
                      for a in s.artifacts})
    newest: tuple[int, str] | None = None
    for chunk in in_chunks(running):
        for artifact_id, commit in (Artifact.select(Artifact.id, Artifact.git_commit)
                                    .where((Artifact.flow == flow)
                                           & Artifact.fingerprint.in_(chunk)
                                           & Artifact.git_commit.is_null(False)).tuples()):
            if newest is None or artifact_id > newest[0]:
                newest = (artifact_id, commit)
    return newest[1] if newest else None


# ---- views ---------------------------------------------------------------------------------

# Run for every artifact answered: compiled once (storage.db.Prepared).
_NUMBERS = Prepared(lambda fingerprints, flows: (
    Approval.select(Approval.flow, Approval.fingerprint, Approval.number)
    .where(Approval.fingerprint.in_(fingerprints) & Approval.flow.in_(flows))
    .order_by(Approval.number)), fingerprints=list[str], flows=list[int])


def approval_numbers(artifacts: list[Artifact]) -> dict[tuple[int, str], list[int]]:
    """{(flow id, fingerprint): approval numbers, oldest first} of the artifacts: one query per
    IN_CHUNK fingerprints, whatever the number of artifacts."""
    flows = {a.flow_id for a in artifacts}
    numbers: dict[tuple[int, str], list[int]] = defaultdict(list)
    for chunk in in_chunks(sorted({a.fingerprint for a in artifacts})):
        for flow_id, fingerprint, number in _NUMBERS.rows(fingerprints=chunk, flows=sorted(flows)):
            numbers[(flow_id, fingerprint)].append(number)
    return numbers


def _commit_artifacts(approval: Approval) -> dict[str, list[str]]:
    """Fingerprints of the flow's artifacts built from each of the approval's commits."""
    built: dict[str, set[str]] = defaultdict(set)
    for chunk in in_chunks(sorted(set(approval.commits or []))):
        for commit, fingerprint in (Artifact.select(Artifact.git_commit, Artifact.fingerprint)
                                    .where((Artifact.flow == approval.flow_id)
                                           & Artifact.git_commit.in_(chunk)).tuples()):
            built[commit].add(fingerprint)
    return {commit: sorted(fps) for commit, fps in built.items()}


def approval_view(approval: Approval) -> views.ApprovalListItem:
    """The approval as the contract lists it: its commits as bare SHAs."""
    return {
        "release_number": approval.number,
        "base_artifact": approval.fingerprint,
        "artifact_name": approval.artifact_name,
        "target_artifact": approval.fingerprint,
        "environment": (approval.environment_ref.name if approval.environment_id
                        else approval.environment),
        "description": approval.description,
        "src_commit_list": list(approval.commits or []),
        "created_at": approval.created_at,
        "last_modified_at": approval.last_modified_at,
        "state": approval.state,
        "approvals": approval.reviews or [],
        "user_data": approval.user_data,
    }


def approval_detail_view(approval: Approval) -> views.Approval:
    """One approval as the contract answers it: its commits with the artifacts built from
    each."""
    built = _commit_artifacts(approval)
    return {**approval_view(approval), "src_commit_list": [
        {"commit_sha": c, "artifact_fingerprints": built.get(c, [])}
        for c in approval.commits or []]}
