"""Deployments: an artifact starting to run in a physical environment.

A deployment is recorded by `snapshots.report_environment` with what is known of the artifact
then: the repo and commit time of the first artifact reported with its fingerprint, hence
`lead_time_seconds` (commit to deployment). An artifact reported after it started running
fills those in on its earlier deployments (`link_fingerprint`), so lists read stored columns
through the (environment, deployed_at) and (repo, ...) indexes, and statistics the packed series
that every write to a repo's deployments rewrites (`repack`) for the days it touched."""

from __future__ import annotations

import bisect
import datetime
import itertools
import math
import operator
import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass

import peewee

from ...api.v2 import views
from ...storage.db import Prepared, as_given, at_transaction_end, for_update, in_chunks, now
from ...storage.models import (
    Artifact,
    Deployment,
    DeploymentSeries,
    Environment,
    Flow,
    Organization,
    Repo,
    Trail,
)
from ..evidence.artifacts import commit_time
from ..evidence.events import ArtifactRepoKnown
from ..evidence.repos import find_repo, repos_named
from ..kernel.errors import missing, validation_error
from ..kernel.numbers import as_whole_number
from ..kernel.pages import Page, counted, page_of
from ..kernel.references import ids_by_name
from .environments import LOGICAL, find_environment

DEFAULT_WINDOW_SECONDS = 28 * 86400
ENVIRONMENT_WINDOW_SECONDS = 30 * 86400
MAX_PER_PAGE = 50
MAX_ENVIRONMENT_PAGE_SIZE = 100


# ---- recording -----------------------------------------------------------------------------

def lead_time(started: float | None, committed: float | None) -> float | None:
    """Seconds from a commit to a start of what was built from it, when both are known (a
    time of 0 is none). Never negative: a start stamped before its commit (a clock behind, a
    build of a commit made after it, a file modified before it was committed) counts as at
    once. Every lead time answered is this: a deployment's `lead_time_seconds`, an
    artifact's `commit_lead_times` and `build_lead_times`, a snapshot's `commit_lead_time`."""
    return max(0.0, started - committed) if started and committed else None


def first_reports(org: Organization, fingerprints: set[str]) -> dict[str, Artifact]:
    """The first artifact reported with each fingerprint (with its trail and flow)."""
    out: dict[str, Artifact] = {}
    if not fingerprints:
        return out
    rows = (Artifact.select(Artifact, Trail, Flow).join(Trail).switch(Artifact).join(Flow)
            .where((Artifact.organization == org) & Artifact.fingerprint.in_(sorted(fingerprints)))
            .order_by(Artifact.id))
    for artifact in rows:
        out.setdefault(artifact.fingerprint, artifact)
    return out


def record(org: Organization, env: Environment, index: int, started: list[tuple[str, str]],
           stamp: float) -> None:
    """Record the artifacts (name, fingerprint) that started running in snapshot `index`."""
    if env.type == LOGICAL or not started:
        return
    known = first_reports(org, {fp for _, fp in started})
    Deployment.insert_many([{
        "organization": org, "environment": env, "snapshot_index": index, "artifact_name": name,
        "fingerprint": fp, "deployed_at": stamp,
        "repo": known[fp].repo_id if fp in known else None,
        "lead_time_seconds": lead_time(stamp, commit_time(known[fp])) if fp in known else None,
    } for name, fp in started]).execute()
    at_transaction_end("deployment series", repack, {
        (known[fp].repo_id, env.id, day_of(stamp)) for _, fp in started
        if fp in known and known[fp].repo_id is not None})
    flows = {a.flow_id for a in known.values()}
    if flows:
        Flow.update(last_deployment_at=stamp).where(Flow.id.in_(sorted(flows))).execute()


def link_fingerprint(org: Organization, fingerprint: str, repo: Repo | None,
                     commit_time: float | None) -> None:
    """Give the fingerprint's earlier deployments the repo and lead time they lacked."""
    scope = (Deployment.organization == org) & (Deployment.fingerprint == fingerprint)
    changed = 0
    if repo is not None:
        changed += Deployment.update(repo=repo).where(scope & Deployment.repo.is_null()).execute()
    if commit_time is not None:
        lead = peewee.Case(None, [(Deployment.deployed_at > commit_time,
                                   Deployment.deployed_at - commit_time)], 0.0)
        changed += Deployment.update(lead_time_seconds=lead).where(
            scope & Deployment.lead_time_seconds.is_null()).execute()
    if changed:
        at_transaction_end("deployment series", repack, {
            (repo_id, env_id, day_of(at)) for repo_id, env_id, at in Deployment.select(
                Deployment.repo, Deployment.environment, Deployment.deployed_at).where(
                scope & Deployment.repo.is_null(False)).tuples()})


def link_artifact(event: ArtifactRepoKnown) -> None:
    """Subscribed to ArtifactRepoKnown (evidence cannot call runtime)."""
    artifact = event.artifact
    link_fingerprint(event.org, artifact.fingerprint, artifact.repo, commit_time(artifact))


# ---- packed series -------------------------------------------------------------------------

DAY_SECONDS = 86400.0
# The day numbers a window is clamped to (PostgreSQL's integer), far past any deployment.
_FIRST_DAY, _LAST_DAY = -(2**31) + 1, 2**31 - 1


def day_of(moment: float) -> int:
    """The UTC day number of `moment`: moment in [day * 86400, (day + 1) * 86400), exactly
    (the division alone can round a moment just before midnight into the next day)."""
    day = math.floor(moment / DAY_SECONDS)
    return day - (moment < day * DAY_SECONDS) + (moment >= (day + 1) * DAY_SECONDS)


def _day_bound(moment: float) -> int:
    """day_of a window's edge, within the days a series can have."""
    return day_of(min(max(_FIRST_DAY * DAY_SECONDS, moment), _LAST_DAY * DAY_SECONDS))


def _packed(values: Iterable[float]) -> bytes:
    doubles = array("d", values)
    if sys.byteorder == "big":
        doubles.byteswap()
    return doubles.tobytes()


_DAY_ROWS = Prepared(lambda repo, env, start, end: Deployment.select(
    Deployment.deployed_at, Deployment.lead_time_seconds).where(
    (Deployment.repo == repo) & (Deployment.environment == env)
    & (Deployment.deployed_at >= as_given(start)) & (Deployment.deployed_at < as_given(end)))
    .order_by(Deployment.deployed_at, Deployment.id),
    repo=int, env=int, start=float, end=float)


def repack(buckets: Iterable[tuple[int, int, int]]) -> None:
    """Rewrite the packed series of each (repo id, environment id, day) from its rows, at the
    end of the write transaction that changed them (at_transaction_end: these locks are its
    last). Each series row is locked first (made empty when new), all in one order: two
    writers of one day take turns, and the later one reads the rows the earlier one
    committed (PostgreSQL; SQLite has one writer)."""
    for repo_id, env_id, day in sorted(set(buckets)):
        key = ((DeploymentSeries.repo == repo_id) & (DeploymentSeries.environment == env_id)
               & (DeploymentSeries.day == day))
        DeploymentSeries.insert(repo=repo_id, environment=env_id, day=day, times=b"",
                                leads=b"").on_conflict_ignore().execute()
        for_update(DeploymentSeries.select(DeploymentSeries.day).where(key)).execute()
        rows = _DAY_ROWS.rows(repo=repo_id, env=env_id, start=day * DAY_SECONDS,
                              end=(day + 1) * DAY_SECONDS)
        if rows:
            DeploymentSeries.update(
                times=_packed(at for at, _ in rows),
                leads=_packed(math.nan if lead is None else lead for _, lead in rows)
            ).where(key).execute()
        else:
            DeploymentSeries.delete().where(key).execute()


# ---- windows -------------------------------------------------------------------------------

def window(start_ts: float | None, end_ts: float | None,
           default_seconds: float = DEFAULT_WINDOW_SECONDS) -> tuple[float, float]:
    """[start, end], inclusive: end defaults to now, start to `default_seconds` before end."""
    end = now() if end_ts is None else end_ts
    start = end - default_seconds if start_ts is None else start_ts
    if start > end:
        raise validation_error("start_ts", "Must not be after end_ts")
    return start, end


def _iso_time(field: str, text: str | None) -> float | None:
    if not text:
        return None
    try:
        moment = datetime.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise validation_error(field, f"'{text}' is not an ISO-8601 time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.timestamp()


# ---- statistics ----------------------------------------------------------------------------

@dataclass(frozen=True)
class EnvironmentSeries:
    """One environment's deployments in a window, oldest first."""
    env_name: str
    deployed_at: list[float]
    lead_times: list[float]  # of those deployments whose lead time is known


@dataclass(frozen=True)
class Statistics:
    start_ts: float
    end_ts: float
    environments: list[EnvironmentSeries]


# The packed series of a repo's environments over whole days, each environment's days in order.
_SERIES = Prepared(lambda repo, envs, first, last: DeploymentSeries.select(
    DeploymentSeries.environment, DeploymentSeries.times, DeploymentSeries.leads).where(
    (DeploymentSeries.repo == repo) & DeploymentSeries.environment.in_(envs)
    & DeploymentSeries.day.between(first, last))
    .order_by(DeploymentSeries.environment, DeploymentSeries.day),
    repo=int, envs=list[int], first=int, last=int)


def deployment_statistics(org: Organization, repo_key: str, envs: list[str] | None = None,
                          start_ts: float | None = None, end_ts: float | None = None
                          ) -> Statistics:
    """Raw deployment times and lead times in the window (both edges included), one item per
    physical environment the repo was ever deployed to (after the `envs` filter), by name.
    Two queries (however many environments): the environments (an EXISTS probe each in the
    repo's series index), then their packed series of the window's days, cut to the window.
    NaN stands for an unknown lead time in a packed series: a stored one never is."""
    start, end = window(start_ts, end_ts)
    repo = find_repo(org, name=repo_key)
    deployed_to = Deployment.select(peewee.SQL("1")).where(
        (Deployment.repo == repo) & (Deployment.environment == Environment.id))
    physical = Environment.select(Environment.id, Environment.name).where(
        (Environment.organization == org) & (Environment.type != LOGICAL)
        & peewee.fn.EXISTS(deployed_to))
    if envs:
        physical = physical.where(Environment.name.in_(envs))
    named = list(physical.order_by(Environment.name).tuples())
    series: dict[int, tuple[list[float], list[float]]] = {}
    for chunk in in_chunks([env_id for env_id, _ in named]):
        rows = _SERIES.rows(repo=repo.id, envs=chunk, first=_day_bound(start),
                            last=_day_bound(end))
        for env_id, days in itertools.groupby(rows, key=operator.itemgetter(0)):
            times, leads = array("d"), array("d")
            for _, packed_times, packed_leads in days:
                times.frombytes(packed_times)
                leads.frombytes(packed_leads)
            if sys.byteorder == "big":
                times.byteswap()
                leads.byteswap()
            # the window's edges fall inside its first and last days; both edges count
            first, last = bisect.bisect_left(times, start), bisect.bisect_right(times, end)
            series[env_id] = (times[first:last].tolist(),
                              [lead for lead in leads[first:last].tolist() if lead == lead])
    return Statistics(start, end, [EnvironmentSeries(name, *series.get(env_id, ([], [])))
                                   for env_id, name in named])


def deployment_frequency(org: Organization, env_name: str, flow_key: str | None = None
                         ) -> views.DeploymentFrequency:
    """Deployment times in the environment over the last 28 days, of artifacts reported to
    one flow (by its name, a former name or its id) or of all."""
    env = find_environment(org, env_name)
    start, end = window(None, None)
    query = (Deployment.select(Deployment.deployed_at)
             .where((Deployment.environment == env) & Deployment.deployed_at.between(start, end)))
    flow_name = None
    if flow_key:
        # by its name or a former one, else by its id
        flow_id = ids_by_name(Flow, org, [flow_key]).get(flow_key, as_whole_number(flow_key))
        flow = None if flow_id is None else Flow.get_or_none(
            (Flow.organization == org) & (Flow.id == flow_id))
        if flow is None:
            raise missing("flow", organization=org.name, flow=flow_key)
        flow_name = flow.name
        query = query.where(Deployment.fingerprint.in_(
            Artifact.select(Artifact.fingerprint).where(Artifact.flow == flow)))
    times = [row[0] for row in query.order_by(Deployment.deployed_at).tuples()]
    return {"env_name": env.name, "flow_name": flow_name, "start_ts": start, "end_ts": end,
            "count": len(times), "deployment_frequency": times}


# ---- lists ---------------------------------------------------------------------------------

def _page(org: Organization, query: peewee.ModelSelect, paging: Page
          ) -> tuple[list[views.Deployment], dict[str, int]]:
    rows = list(query.order_by(Deployment.id.desc())
                .paginate(paging.number, paging.size))
    return deployment_views(org, rows), counted(paging, query.count())


def _selected() -> peewee.ModelSelect:
    return (Deployment.select(Deployment, Environment, Repo).join(Environment)
            .switch(Deployment).join(Repo, peewee.JOIN.LEFT_OUTER))


def list_deployments(org: Organization, page: int | None, per_page: int | None, *,
                     repo_name: str | None = None, env_name: str | None = None,
                     start_ts: float | None = None, end_ts: float | None = None
                     ) -> tuple[list[views.Deployment], dict[str, int]]:
    """Deployments of the organization in the window, newest first."""
    paging = page_of(page, per_page, 15, MAX_PER_PAGE)
    start, end = window(start_ts, end_ts)
    query = _selected().where((Deployment.organization == org)
                              & Deployment.deployed_at.between(start, end))
    if env_name:
        query = query.where(Environment.name == env_name)
    if repo_name:
        query = query.where(Deployment.repo.in_([r.id for r in repos_named(org, [repo_name])]))
    return _page(org, query, paging)


def list_repo_deployments(org: Organization, repo_key: str, page: int | None,
                          per_page: int | None, *, envs: list[str] | None = None,
                          start_ts: float | None = None, end_ts: float | None = None
                          ) -> tuple[list[views.Deployment], dict[str, int]]:
    """Deployments of one repo's artifacts in the window, newest first."""
    paging = page_of(page, per_page, 15, MAX_PER_PAGE)
    start, end = window(start_ts, end_ts)
    repo = find_repo(org, name=repo_key)
    query = _selected().where((Deployment.repo == repo)
                              & Deployment.deployed_at.between(start, end))
    if envs:
        query = query.where(Environment.name.in_(envs))
    return _page(org, query, paging)


def list_environment_deployments(org: Organization, env_name: str, page: int | None,
                                 page_size: int | None, *, start: str | None = None,
                                 end: str | None = None
                                 ) -> tuple[list[views.Deployment], dict[str, int]]:
    """Deployments to one environment between two ISO-8601 times (default: the last 30 days),
    newest first."""
    paging = page_of(page, page_size, 50, MAX_ENVIRONMENT_PAGE_SIZE, "page_size")
    low, high = window(_iso_time("from", start), _iso_time("to", end), ENVIRONMENT_WINDOW_SECONDS)
    env = find_environment(org, env_name)
    query = _selected().where((Deployment.environment == env)
                              & Deployment.deployed_at.between(low, high))
    return _page(org, query, paging)


def get_deployment(org: Organization, env_name: str, fingerprint: str) -> views.Deployment:
    """The latest deployment of the fingerprint to the environment."""
    env = find_environment(org, env_name)
    row = (_selected().where((Deployment.environment == env)
                             & (Deployment.fingerprint == fingerprint))
           .order_by(Deployment.id.desc()).first())
    if row is None:
        raise missing("deployment", fingerprint=fingerprint, environment=env.name)
    return deployment_views(org, [row])[0]


def deployment_views(org: Organization, rows: list[Deployment]) -> list[views.Deployment]:
    known = first_reports(org, {d.fingerprint for d in rows})
    out: list[views.Deployment] = []
    for d in rows:
        artifact = known.get(d.fingerprint)
        repo = d.repo if d.repo_id else None
        out.append({
            "id": d.id, "environment_name": d.environment.name, "snapshot_index": d.snapshot_index,
            "artifact_name": d.artifact_name, "fingerprint": d.fingerprint,
            "flow_name": artifact.flow.name if artifact else None,
            "trail_name": artifact.trail.name if artifact else None,
            "git_commit": artifact.git_commit if artifact else None,
            "repo_name": repo.name if repo else None, "repo_id": repo.repo_id if repo else None,
            "deployed_at": d.deployed_at, "lead_time_seconds": d.lead_time_seconds})
    return out
