"""Repos and deployments.

Repos are learned from the repo_info reported with trails, artifacts and attestations. A
deployment is an artifact starting to run in a physical environment (recorded by
`snapshots.report_environment`); its repo and lead time come from the artifact's provenance
when read, so an artifact attested after it started running still counts."""

from __future__ import annotations

import json
import math
from typing import Any

from ..storage.db import now, retry_on_conflict, write_transaction
from ..storage.models import (
    Artifact,
    Attestation,
    Deployment,
    Environment,
    Flow,
    Organization,
    Repo,
    Trail,
)
from .environments import LOGICAL
from .errors import NotFound, validation_error
from .pages import page_of

DEFAULT_WINDOW_SECONDS = 28 * 86400
MAX_PER_PAGE = 50


# ---- repos ---------------------------------------------------------------------------------

def _repo_infos(org: Organization) -> list[dict[str, Any]]:
    """Every distinct repo_info reported in the organization."""
    texts: set[str] = set()
    trails = (Trail.select(Trail.repo_info).join(Flow)
              .where((Flow.organization == org) & Trail.repo_info.is_null(False)).distinct())
    texts.update(_dump(t.repo_info) for t in trails)
    artifacts = (Artifact.select(Artifact.repo_info)
                 .where((Artifact.organization == org) & Artifact.repo_info.is_null(False)).distinct())
    texts.update(_dump(a.repo_info) for a in artifacts)
    attestations = Attestation.select(Attestation.data).where(
        (Attestation.organization == org) & Attestation.data.contains('"repo_info"'))
    texts.update(_dump(a.data.get("repo_info")) for a in attestations
                 if isinstance(a.data, dict) and a.data.get("repo_info"))
    infos = [json.loads(t) for t in texts if t]
    return [i for i in infos if isinstance(i, dict) and i.get("id") and i.get("name")]


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True) if value else ""


def learn_repos(org: Organization) -> None:
    """Bring the repo table up to date with the repo_info reported so far."""
    infos = _repo_infos(org)
    known = {r.repo_id: r for r in Repo.select().where(Repo.organization == org)}
    changes = []
    for info in infos:
        repo = known.get(str(info["id"]))
        fields = {"name": str(info["name"]), "url": str(info.get("url") or ""),
                  "provider": info.get("provider"), "description": info.get("description"),
                  "namespace_path": list(info.get("namespace_path") or [])}
        if repo is None or any(getattr(repo, k) != v for k, v in fields.items()):
            changes.append((str(info["id"]), fields))
    if not changes:
        return

    def write() -> None:
        with write_transaction():
            stamp = now()
            for repo_id, fields in changes:
                repo = Repo.get_or_none((Repo.organization == org) & (Repo.repo_id == repo_id))
                if repo is None:
                    Repo.create(organization=org, repo_id=repo_id, tags={}, created_at=stamp,
                                last_seen_at=stamp, **fields)
                else:
                    Repo.update(last_seen_at=stamp, **fields).where(Repo.id == repo.id).execute()

    retry_on_conflict(write)


def find_repo(org: Organization, name: str | None = None, repo_id: str | None = None,
              provider: str | None = None) -> Repo:
    learn_repos(org)
    query = Repo.select().where(Repo.organization == org)
    if repo_id:
        repo = query.where(Repo.repo_id == repo_id).first()
    else:
        by_name = query.where(Repo.name == name)
        if provider:
            by_name = by_name.where(Repo.provider == provider)
        repo = by_name.first() or (query.where(Repo.repo_id == name).first() if name else None)
    if repo is None:
        raise NotFound(f"Repo '{repo_id or name}' not found")
    return repo


def list_repos(org: Organization, page: int | None, per_page: int | None, *,
               name: str | None = None, search: str | None = None, provider: str | None = None,
               repo_id: str | None = None, tags: list[str] | None = None,
               sort_direction: str | None = None) -> tuple[list[Repo], dict[str, int]]:
    paging = page_of(page, per_page, default_size=15)
    if paging.size > MAX_PER_PAGE:
        raise validation_error("per_page", f"Must be between 1 and {MAX_PER_PAGE}")
    if sort_direction is not None and sort_direction not in ("asc", "desc"):
        raise validation_error("sort_direction", f"'{sort_direction}' is not one of ['asc', 'desc']")
    learn_repos(org)
    query = Repo.select().where(Repo.organization == org)
    if name:
        query = query.where(Repo.name == name)
    if search:
        query = query.where(Repo.name.contains(search))
    if provider:
        query = query.where(Repo.provider == provider)
    if repo_id:
        query = query.where(Repo.repo_id == repo_id)
    order = Repo.name.desc() if sort_direction == "desc" else Repo.name.asc()
    rows = list(query.order_by(order, Repo.id))
    for wanted in tags or []:
        key, sep, value = wanted.partition(":")
        rows = [r for r in rows if key in (r.tags or {})
                and (not sep or str(r.tags[key]) == value)]
    total = len(rows)
    start = (paging.number - 1) * paging.size
    return rows[start:start + paging.size], {
        "page": paging.number, "per_page": paging.size, "total_count": total,
        "total_pages": max(1, math.ceil(total / paging.size))}


def repo_view(repo: Repo) -> dict[str, Any]:
    return {"id": repo.repo_id, "name": repo.name, "url": repo.url, "provider": repo.provider,
            "description": repo.description,
            "tags": {k: str(v) for k, v in (repo.tags or {}).items()},
            "latest_activity": repo.last_seen_at, "namespace_path": list(repo.namespace_path or [])}


# ---- provenance of deployed artifacts ------------------------------------------------------

def _matches(info: Any, wanted: set[str]) -> bool:
    return isinstance(info, dict) and (str(info.get("id")) in wanted or info.get("name") in wanted)


def provenance_of(org: Organization, fingerprints: set[str]) -> dict[str, dict[str, Any]]:
    """fingerprint -> {repo_info, commit_timestamp, flow_name, trail_name, git_commit} of the
    first artifact reported with it."""
    out: dict[str, dict[str, Any]] = {}
    if not fingerprints:
        return out
    rows = (Artifact.select(Artifact, Trail, Flow).join(Trail).switch(Artifact).join(Flow)
            .where((Artifact.organization == org) & (Artifact.fingerprint.in_(sorted(fingerprints))))
            .order_by(Artifact.created_at))
    for a in rows:
        if a.fingerprint in out:
            continue
        commit = a.git_commit_info or a.trail.git_commit_info or {}
        out[a.fingerprint] = {
            "repo_info": a.repo_info or a.trail.repo_info, "commit_timestamp": commit.get("timestamp"),
            "flow_name": a.flow.name, "trail_name": a.trail.name, "git_commit": a.git_commit}
    return out


def fingerprints_of_repos(org: Organization, repos: list[str]) -> set[str]:
    """Fingerprints of the artifacts built from any of the repos (by id or name)."""
    wanted = set(repos)
    rows = (Artifact.select(Artifact.fingerprint, Artifact.repo_info, Trail.repo_info)
            .join(Trail).where(Artifact.organization == org))
    return {a.fingerprint for a in rows if _matches(a.repo_info or a.trail.repo_info, wanted)}


def _lead_time(deployed_at: float, commit_timestamp: Any) -> float | None:
    if isinstance(commit_timestamp, int | float) and not isinstance(commit_timestamp, bool):
        return max(0.0, deployed_at - float(commit_timestamp))
    return None


# ---- statistics and lists ------------------------------------------------------------------

def deployment_statistics(org: Organization, repo_key: str, envs: list[str] | None = None,
                          start_ts: float | None = None, end_ts: float | None = None
                          ) -> dict[str, Any]:
    """Raw deployment times and lead times per physical environment the repo was deployed to."""
    end = now() if end_ts is None else end_ts
    start = end - DEFAULT_WINDOW_SECONDS if start_ts is None else start_ts
    if start > end:
        raise validation_error("start_ts", "Must not be after end_ts")
    repo = find_repo(org, name=repo_key)
    fingerprints = fingerprints_of_repos(org, [repo.repo_id, repo.name])
    rows = (Deployment.select(Deployment, Environment).join(Environment)
            .where((Deployment.organization == org) & (Environment.type != LOGICAL)
                   & (Deployment.fingerprint.in_(sorted(fingerprints))))
            .order_by(Deployment.deployed_at, Deployment.id)) if fingerprints else []
    provenance = provenance_of(org, fingerprints)
    series: dict[str, dict[str, list[dict[str, float]]]] = {}
    for d in rows:
        name = d.environment.name
        if envs and name not in envs:
            continue
        item = series.setdefault(name, {"deployment_frequency": [], "lead_times": []})
        if start <= d.deployed_at <= end:
            item["deployment_frequency"].append({"deployed_at": d.deployed_at})
            lead = _lead_time(d.deployed_at, provenance.get(d.fingerprint, {}).get("commit_timestamp"))
            if lead is not None:
                item["lead_times"].append({"lead_time_seconds": lead})
    return {"start_ts": start, "end_ts": end, "links": None,
            "environments": [{"env_name": n, **series[n]} for n in sorted(series)]}


def list_deployments(org: Organization, page: int | None, per_page: int | None, *,
                     repo_name: str | None = None, env_name: str | None = None,
                     start_ts: float | None = None, end_ts: float | None = None
                     ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    paging = page_of(page, per_page, default_size=15)
    if paging.size > MAX_PER_PAGE:
        raise validation_error("per_page", f"Must be between 1 and {MAX_PER_PAGE}")
    if start_ts is not None and end_ts is not None and start_ts > end_ts:
        raise validation_error("start_ts", "Must not be after end_ts")
    query = (Deployment.select(Deployment, Environment).join(Environment)
             .where(Deployment.organization == org))
    if env_name:
        query = query.where(Environment.name == env_name)
    if start_ts is not None:
        query = query.where(Deployment.deployed_at >= start_ts)
    if end_ts is not None:
        query = query.where(Deployment.deployed_at <= end_ts)
    if repo_name:
        query = query.where(Deployment.fingerprint.in_(sorted(fingerprints_of_repos(org, [repo_name]))))
    total = query.count()
    rows = list(query.order_by(Deployment.deployed_at.desc(), Deployment.id.desc())
                .paginate(paging.number, paging.size))
    provenance = provenance_of(org, {d.fingerprint for d in rows})
    views = []
    for d in rows:
        known = provenance.get(d.fingerprint, {})
        repo_info = known.get("repo_info") or {}
        views.append({
            "id": d.id, "environment_name": d.environment.name, "snapshot_index": d.snapshot_index,
            "artifact_name": d.artifact_name, "fingerprint": d.fingerprint,
            "flow_name": known.get("flow_name"), "trail_name": known.get("trail_name"),
            "git_commit": known.get("git_commit"), "repo_name": repo_info.get("name"),
            "deployed_at": d.deployed_at,
            "lead_time_seconds": _lead_time(d.deployed_at, known.get("commit_timestamp"))})
    return views, {"page": paging.number, "per_page": paging.size, "total_count": total,
                   "total_pages": max(1, math.ceil(total / paging.size))}
