"""Builds: the artifacts produced, one per fingerprint (its first report), optionally of one
repo. A fingerprint reported again, to another flow or trail, is the same build."""

from __future__ import annotations

import peewee

from ...api.v2 import views
from ...storage.models import Artifact, Flow, Organization, Repo, Trail
from ..evidence.repos import find_repo
from ..kernel.pages import counted, page_of
from .deployments import MAX_PER_PAGE, first_reports, window


def _builds(org: Organization, start: float, end: float, *, repo_id: str | None,
            repo_name: str | None, repo_inner_id: str | None) -> peewee.ModelSelect:
    """(fingerprint, first report time) of the builds made in [start, end]."""
    first = peewee.fn.MIN(Artifact.created_at)
    query = Artifact.select(Artifact.fingerprint, first.alias("built_at")).where(
        Artifact.organization == org)
    key = repo_inner_id or repo_id
    if key or repo_name:
        repo = find_repo(org, repo_id=key) if key else find_repo(org, name=repo_name)
        query = query.where(Artifact.repo == repo)
    return query.group_by(Artifact.fingerprint).having(first.between(start, end))


def build_statistics(org: Organization, *, repo_id: str | None = None,
                     repo_name: str | None = None, repo_inner_id: str | None = None,
                     start_ts: float | None = None, end_ts: float | None = None
                     ) -> views.BuildStatistics:
    """One timestamp per build in the window (both edges included), oldest first."""
    start, end = window(start_ts, end_ts)
    rows = _builds(org, start, end, repo_id=repo_id, repo_name=repo_name,
                   repo_inner_id=repo_inner_id).order_by(peewee.SQL("built_at")).tuples()
    times = [built_at for _, built_at in rows]
    return {"start_ts": start, "end_ts": end, "count": len(times),
            "builds": [{"created_at": t} for t in times]}


def list_builds(org: Organization, page: int | None, per_page: int | None, *,
                repo_id: str | None = None, repo_name: str | None = None,
                repo_inner_id: str | None = None, start_ts: float | None = None,
                end_ts: float | None = None, html_base: str = ""
                ) -> tuple[list[views.Build], dict[str, int]]:
    """Builds in the window, newest first."""
    paging = page_of(page, per_page, 15, MAX_PER_PAGE)
    start, end = window(start_ts, end_ts)
    query = _builds(org, start, end, repo_id=repo_id, repo_name=repo_name,
                    repo_inner_id=repo_inner_id)
    total = query.count()
    page_rows = list(query.order_by(peewee.SQL("built_at DESC"), Artifact.fingerprint)
                     .paginate(paging.number, paging.size).tuples())
    known = first_reports(org, {fp for fp, _ in page_rows})
    repos = {r.id: r for r in Repo.select().where(
        Repo.id.in_(sorted({a.repo_id for a in known.values() if a.repo_id})))}
    builds = [_build_view(org, known[fp], repos.get(known[fp].repo_id), html_base)
              for fp, _ in page_rows]
    return builds, counted(paging, total)


def _build_view(org: Organization, artifact: Artifact, repo: Repo | None, html_base: str
                ) -> views.Build:
    flow: Flow = artifact.flow
    trail: Trail = artifact.trail
    return {
        "created_at": artifact.created_at, "fingerprint": artifact.fingerprint,
        "flow_name": flow.name, "trail_name": trail.name,
        "repo_info": {"name": repo.name, "repo_id": repo.repo_id} if repo else None,
        "links": {"artifact": f"{html_base}/api/v2/artifacts/{org.name}/{flow.name}/"
                              f"fingerprint/{artifact.fingerprint}"},
    }
