"""Repos: learned when trails, artifacts and attestations report `repo_info`.

A repo is keyed by the provider's id of the repository (`repo_info.id`), or by its name when
the reporter sent no id. Reporting a repo again updates its name, URL and description (a
renamed repository keeps its id) and its latest activity."""

from __future__ import annotations

from typing import Any

import peewee

from ...api.v2 import views
from ...storage.models import Artifact, Organization, Repo
from ..kernel.errors import InvalidArgument, missing, validation_error
from ..kernel.pages import page_of
from ..kernel.tag_filters import has_tag
from ..kernel.urls import parsed_url
from .leaves import log_repo

MAX_PER_PAGE = 50
SORT_DIRECTIONS = ("asc", "desc")
# Repos of one name read to name their providers when the name is ambiguous.
AMBIGUITY_SHOWN = 20
# A repo's latest activity moves in steps of this much: reports of an unchanged repo within it
# do not rewrite its row (every attestation of a busy pipeline would otherwise).
ACTIVITY_RESOLUTION_SECONDS = 60.0
# The longest repo id, name or provider kept (their columns are VARCHAR(255) on PostgreSQL).
REPO_TEXT_MAX = 255


def check_repo_info(info: Any) -> None:
    """A repo_info's id, name and provider fit the repo's columns (a longer one would fail its
    write on PostgreSQL): the contract's 400 naming each that does not."""
    if not isinstance(info, dict):
        return
    problems = {f"repo_info.{key}": f"At most {REPO_TEXT_MAX} characters"
                for key in ("id", "name", "provider")
                if info.get(key) is not None and len(str(info[key])) > REPO_TEXT_MAX}
    if problems:
        raise InvalidArgument("Input payload validation failed", problems)


def repo_key(info: Any) -> str | None:
    """The id a repo_info names its repo by, or None when it names none."""
    if not isinstance(info, dict) or not info.get("name"):
        return None
    return str(info.get("id") or info["name"])


def _namespace(info: dict[str, Any]) -> list[str]:
    given = info.get("namespace_path")
    if isinstance(given, list):
        return [str(part) for part in given]
    return str(info["name"]).split("/")[:-1]


def remember(org: Organization, info: Any, stamp: float) -> Repo | None:
    """The repo a repo_info names, created or brought up to date. Call inside a write
    transaction; concurrent first reports of one repo meet on its unique key (callers retry)."""
    key = repo_key(info)
    if key is None:
        return None
    fields = {"name": str(info["name"]), "url": str(info.get("url") or ""),
              "provider": info.get("provider"), "description": info.get("description"),
              "namespace_path": _namespace(info)}
    repo = Repo.get_or_none((Repo.organization == org) & (Repo.repo_id == key))
    if repo is None:
        repo = Repo.create(organization=org, repo_id=key, tags={}, created_at=stamp,
                           last_seen_at=stamp, **fields)
        log_repo(org, repo)
        return repo
    changed = {k: v for k, v in fields.items() if getattr(repo, k) != v}
    if changed or stamp - repo.last_seen_at >= ACTIVITY_RESOLUTION_SECONDS:
        Repo.update(last_seen_at=stamp, **changed).where(Repo.id == repo.id).execute()
        for name, value in {"last_seen_at": stamp, **changed}.items():
            setattr(repo, name, value)
        if changed:  # its latest activity alone is no entry (REPO_LEAF)
            log_repo(org, repo)
    return repo


def find_repo(org: Organization, name: str | None = None, repo_id: str | None = None,
              provider: str | None = None) -> Repo:
    """A repo by its id, or by name: a name several repos share needs the provider, and
    the newest of that provider's repos of the name is taken. A name that is no repo's name is
    tried as an id."""
    query = Repo.select().where(Repo.organization == org)
    if repo_id:
        repo = query.where(Repo.repo_id == repo_id).first()
    else:
        by_name = query.where(Repo.name == name)
        if provider:
            by_name = by_name.where(Repo.provider == provider)
        named = list(by_name.order_by(Repo.id.desc()).limit(AMBIGUITY_SHOWN))
        if len(named) > 1 and not provider:
            providers = ", ".join(sorted({r.provider or "unknown" for r in named}))
            raise InvalidArgument(f"Multiple repos named '{name}' exist ({providers}). "
                                  "Specify the 'provider' (the newest of its repos is taken) "
                                  "or the repo 'id'", reason="REPO_AMBIGUOUS",
                                  metadata={"repo": name or ""})
        repo = (named[0] if named
                else (query.where(Repo.repo_id == name).first() if name else None))
    if repo is None:
        raise missing("repo", repo=repo_id or name)
    return repo


def repos_named(org: Organization, keys: list[str]) -> list[Repo]:
    """The repos with any of these ids or names."""
    return list(Repo.select().where((Repo.organization == org)
                                    & (Repo.repo_id.in_(keys) | Repo.name.in_(keys))))


def built_from(org: Organization, keys: list[str]) -> peewee.ModelSelect:
    """The fingerprints of the artifacts built from any of these repos (ids or names), as a
    subquery."""
    return Artifact.select(Artifact.fingerprint).where(
        Artifact.repo.in_([r.id for r in repos_named(org, keys)]))


def vcs_instance(repo: Repo) -> str | None:
    """The host of the repo's URL (github.com, gitlab.example.org, ...); None without one, also
    for a URL stored before the door refused what urllib.parse cannot read."""
    parts = parsed_url(repo.url) if repo.url else None
    return parts.hostname if parts is not None else None


def _under(repo: Repo, namespace: str) -> bool:
    wanted = [p for p in namespace.split("/") if p]
    return list(repo.namespace_path or [])[:len(wanted)] == wanted


def _filtered(org: Organization, *, name: str | None = None, search: str | None = None,
              provider: str | None = None, repo_id: str | None = None,
              vcs: str | None = None, namespace: str | None = None,
              tags: list[str] | None = None) -> list[Repo]:
    query = Repo.select().where(Repo.organization == org)
    if name:
        query = query.where(Repo.name == name)
    if search:
        query = query.where(peewee.fn.LOWER(Repo.name).contains(search.lower()))
    if provider:
        query = query.where(Repo.provider == provider)
    if repo_id:
        query = query.where(Repo.repo_id == repo_id)
    rows = [r for r in query.order_by(Repo.name, Repo.id)
            if all(has_tag(r.tags or {}, wanted) for wanted in tags or [])]
    if vcs:
        rows = [r for r in rows if vcs_instance(r) == vcs]
    if namespace:
        rows = [r for r in rows if _under(r, namespace)]
    return rows


def list_repos(org: Organization, page: int | None, per_page: int | None, *,
               name: str | None = None, search: str | None = None, provider: str | None = None,
               repo_id: str | None = None, vcs: str | None = None, namespace: str | None = None,
               tags: list[str] | None = None, sort_direction: str | None = None
               ) -> tuple[list[Repo], dict[str, int]]:
    paging = page_of(page, per_page, 15, MAX_PER_PAGE)
    if sort_direction is not None and sort_direction not in SORT_DIRECTIONS:
        raise validation_error("sort_direction", f"'{sort_direction}' is not one of "
                                                 f"{list(SORT_DIRECTIONS)}")
    rows = _filtered(org, name=name, search=search, provider=provider, repo_id=repo_id, vcs=vcs,
                     namespace=namespace, tags=tags)
    if sort_direction == "desc":
        rows.reverse()
    return paging.slice(rows)


def repo_view(repo: Repo) -> views.Repo:
    return {"id": repo.repo_id, "repo_id": repo.repo_id, "name": repo.name, "url": repo.url,
            "provider": repo.provider, "description": repo.description,
            "tags": {k: str(v) for k, v in (repo.tags or {}).items()},
            "latest_activity": repo.last_seen_at,
            "namespace_path": list(repo.namespace_path or []),
            "vcs_instance": vcs_instance(repo)}


def tag_choices(org: Organization) -> list[views.RepoTagChoice]:
    """Every tag key used on the organization's repos with the distinct values it takes."""
    choices: dict[str, set[str]] = {}
    for tags in Repo.select(Repo.tags).where(Repo.organization == org).tuples():
        for key, value in (tags[0] or {}).items():
            choices.setdefault(key, set()).add(str(value))
    return [{"key": k, "values": sorted(v)} for k, v in sorted(choices.items())]


def filter_options(org: Organization, *, provider: str | None = None, vcs: str | None = None,
                   namespace: str | None = None, tags: list[str] | None = None
                   ) -> views.RepoFilterOptions:
    """Distinct providers, VCS hosts and next-level namespace values of the repos. Each facet
    applies every filter but its own, so its alternatives stay visible."""
    def facet(**skip: None) -> list[Repo]:
        given = {"provider": provider, "vcs": vcs, "namespace": namespace, **skip}
        return _filtered(org, tags=tags, **given)

    depth = len([p for p in (namespace or "").split("/") if p])
    return {
        "providers": sorted({r.provider for r in facet(provider=None) if r.provider}),
        "vcs_instances": sorted({h for r in facet(vcs=None) if (h := vcs_instance(r))}),
        "namespace_values": sorted({r.namespace_path[depth] for r in facet()
                                    if len(r.namespace_path or []) > depth}),
    }
