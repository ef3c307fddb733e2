"""Environments of an organization: create or update, find, list, change, archive, rename,
join a physical environment to a logical one, and allow artifacts in one.

Request bodies are checked against the contract's JSON Schemas (`environment-schemas.json`,
copied from the operations catalog by `scripts/extract_environment_schemas.py`)."""

from __future__ import annotations

import functools
import json
import pathlib
from typing import Any

from ..storage.db import (
    Prepared,
    for_update,
    in_chunks,
    locked,
    now,
    retry_on_conflict,
    write_transaction,
)
from ..storage.models import AllowlistEntry, Environment, Organization, Policy, Snapshot, User
from . import actions, change_privileges, env_audit, references
from .contract import SchemaCheck
from .errors import (
    AlreadyExists,
    FailedPrecondition,
    NotFound,
    environment_not_found,
    validation_error,
)
from .names import check_name, whole_string_patterns
from .pages import page_of
from .policy_eval import MAX_ENVIRONMENT_POLICIES

SCHEMAS_PATH = pathlib.Path(__file__).with_name("environment-schemas.json")
LOGICAL = "logical"
MAX_ENVIRONMENTS_PER_PAGE = 50
SORT_FIELDS = ("name", "last_modified_at", "last_changed_at")


@functools.cache
def _schemas() -> dict[str, Any]:
    return whole_string_patterns(json.loads(SCHEMAS_PATH.read_text()))


CHECKS = SchemaCheck(_schemas, "body")


def validate(key: str, payload: Any) -> None:
    """The contract's 400 for a request body, one entry per offending field (dotted path)."""
    CHECKS.validate(key, payload)


def has_schema(key: str) -> bool:
    return key in _schemas()


def environment_types() -> list[str]:
    return list(_schemas()["create_env"]["properties"]["type"]["enum"])


def check_env_name(field: str, name: str) -> str:
    pattern = _schemas()["create_env"]["properties"]["name"]["pattern"]
    return check_name(field, name, pattern)


# ---- lookups -------------------------------------------------------------------------------

_ENVIRONMENT_BY_NAME = Prepared(lambda org, name: Environment.select().where(
    (Environment.organization == org) & (Environment.name == name)), org=int, name=str)


def find_environment(org: Organization, name: str) -> Environment:
    found = _ENVIRONMENT_BY_NAME.models(Environment, org=org.id, name=name)
    if not found:
        raise environment_not_found(org.name, name)
    return found[0]


# ---- writes --------------------------------------------------------------------------------

def upsert_environment(org: Organization, data: dict[str, Any]) -> tuple[Environment, bool]:
    """Create the environment or update it (and bring it back from the archive)."""
    validate("create_env", data)
    name, env_type = data["name"], data["type"]
    included = list(data.get("included_environments") or [])
    if included and env_type != LOGICAL:
        raise validation_error("included_environments", "Only logical environments include others")

    def write() -> tuple[Environment, bool]:
        with write_transaction():
            stamp = now()
            env = for_update(Environment.select().where((Environment.organization == org)
                                                        & (Environment.name == name))).first()
            created = env is None
            if created:
                env = Environment(organization=org, name=name, type=env_type, created_at=stamp,
                                  tags={}, policies=[], included_environments=[])
            elif env.type != env_type:
                raise FailedPrecondition(
                    f"Environment '{name}' is of type '{env.type}', not '{env_type}'")
            settings: dict[str, Any] = {"description": data.get("description", "")}
            if included:
                settings["included_environments"] = _physical_ids(org, included)
            if data.get("require_provenance") is not None:
                settings["require_provenance"] = bool(data["require_provenance"])
            if data.get("include_scaling") is False:
                settings["include_scaling"] = False  # can be turned off, no longer on
            policies = None if data.get("policies") is None else known_policies(
                org, list(data["policies"]))
            if not created:
                change_privileges.require_to_change(f"environment '{name}'", [
                    *(f for f, value in settings.items() if getattr(env, f) != value),
                    *(["policies"] if policies not in (None, list(env.policies or [])) else []),
                    *(["archived"] if env.archived else [])])
            for f, value in settings.items():
                setattr(env, f, value)
            if policies is not None:
                set_policies(org, env, policies)
            env.archived = False
            env.last_modified_at = stamp
            env.save()
            env_audit.record(env, "environment_created" if created else "environment_updated",
                             **{k: v for k, v in data.items() if k != "name"})
            return env, created

    return retry_on_conflict(write)


def _physical_ids(org: Organization, names: list[str]) -> list[int]:
    """The ids of the named physical environments, each once: a logical environment's members
    are kept by id, so renaming one keeps it a member (and its old name does not)."""
    found = {e.name: e for e in Environment.select(Environment.id, Environment.name,
                                                   Environment.type).where(
        (Environment.organization == org) & (Environment.name.in_(names)))}
    for name in names:
        env = found.get(name)
        if env is None:
            raise environment_not_found(org.name, name)
        if env.type == LOGICAL:
            raise validation_error("included_environments",
                                   f"'{name}' is a logical environment; only physical ones join")
    return sorted({found[name].id for name in names})


def known_policies(org: Organization, names: list[str]) -> list[str]:
    """`names`, each once in the order given, when all are policies of the organization;
    NotFound (404) naming the first missing otherwise, as attaching them would answer."""
    names = list(dict.fromkeys(names))
    found = {p.name for chunk in in_chunks(names)
             for p in Policy.select(Policy.name).where((Policy.organization == org)
                                                       & (Policy.name.in_(chunk)))}
    missing = [n for n in names if n not in found]
    if missing:
        raise NotFound(f"Policy '{missing[0]}' not found" if len(missing) == 1
                       else f"Policies {missing} not found")
    return names


def set_policies(org: Organization, env: Environment, names: list[str], *,
                 field: str = "policies", judged: dict[str, Any] | None = None) -> None:
    """Attach exactly the policies `names` (all known, or NotFound; at most
    MAX_ENVIRONMENT_POLICIES, else InvalidArgument on `field`); when that changes what the
    environment requires, what runs there is judged again in a new snapshot (`judged`: as
    snapshots.rejudge_latest takes it). In the caller's write transaction with `env` locked
    (the caller saves it)."""
    from .snapshots import rejudge_latest  # snapshots reads environments: imported when used

    names = known_policies(org, names)
    check_policy_count(names, field)
    if names != list(env.policies or []):
        if env.id is not None:
            env_audit.record(env, "policies_changed", before=list(env.policies or []),
                             after=names)
        env.policies = names
        rejudge_latest(org, env, judged, field)


def check_policy_count(names: list[str], field: str) -> None:
    """InvalidArgument on `field` when `names` (distinct) are more policies than an
    environment may have attached."""
    if len(names) > MAX_ENVIRONMENT_POLICIES:
        raise validation_error(field, f"An environment has at most {MAX_ENVIRONMENT_POLICIES} "
                                      f"policies attached; this would attach {len(names)}")


def update_environment(org: Organization, name: str, data: dict[str, Any]) -> Environment:
    """Change the fields sent; an empty (or null) description clears it."""
    validate("update_env", data)
    with write_transaction():
        env = locked(find_environment(org, name))
        policies = known_policies(org, list(data["policies"] or [])) if "policies" in data else None
        if policies not in (None, list(env.policies or [])):
            change_privileges.require_to_change(f"environment '{name}'", ["policies"])
        if "description" in data:
            env.description = data["description"] or ""
        if data.get("include_scaling") is False:
            env.include_scaling = False
        if policies is not None:
            set_policies(org, env, policies)
        if "included_environments" in data:
            if env.type != LOGICAL and data["included_environments"]:
                raise validation_error("included_environments",
                                       "Only logical environments include others")
            env.included_environments = _physical_ids(org, list(data["included_environments"] or []))
        env.last_modified_at = now()
        env.save()
        env_audit.record(env, "environment_updated", **data)
        return env


def archive_environment(org: Organization, name: str) -> Environment:
    with write_transaction():
        env = locked(find_environment(org, name))
        env.archived = True
        env.last_modified_at = now()
        env.save()
        env_audit.record(env, "environment_archived")
        return env


def rename_environment(org: Organization, name: str, new_name: str) -> Environment:
    check_env_name("new_name", new_name)
    with write_transaction():
        # Nothing else changes: what points at an environment holds its id (references.py).
        env = locked(find_environment(org, name))
        if Environment.select().where((Environment.organization == org)
                                      & (Environment.name == new_name)).exists():
            raise AlreadyExists(f"An environment named '{new_name}' already exists")
        env.name = new_name
        env.last_modified_at = now()
        env.save()
        env_audit.record(env, "environment_renamed", old_name=name, new_name=new_name)
        return env


def join_environment(org: Organization, logical_name: str, physical_name: str) -> Environment:
    if not physical_name:
        raise validation_error("physical_env_name", "Field cannot be empty")
    with write_transaction():
        logical = locked(find_environment(org, logical_name))
        if logical.type != LOGICAL:
            raise FailedPrecondition(f"Environment '{logical_name}' is not a logical environment")
        joining = _physical_ids(org, [physical_name])
        logical.included_environments = list(dict.fromkeys(
            [*(logical.included_environments or []), *joining]))
        logical.last_modified_at = now()
        logical.save()
        env_audit.record(logical, "environment_joined", physical_env_name=physical_name)
        return logical


def allow_artifact(org: Organization, env_name: str, data: dict[str, Any], user: User
                   ) -> AllowlistEntry:
    validate("allow_artifact_for_env", data)
    env = find_environment(org, env_name)

    def write() -> AllowlistEntry:
        with write_transaction():
            entry = for_update(AllowlistEntry.select().where(
                (AllowlistEntry.environment == env)
                & (AllowlistEntry.fingerprint == data["artifact_fingerprint"]))).first()
            if entry is None:
                entry = AllowlistEntry(environment=env, fingerprint=data["artifact_fingerprint"])
            entry.artifact_name = data["artifact_name"]
            entry.description = data["description"]
            entry.user_name = user.name
            entry.created_at = now()
            entry.save()
            actions.artifact_allowed(org, env, allowlist_view(entry, env.name))
            env_audit.record(env, "artifact_allowed", artifact_name=entry.artifact_name,
                             fingerprint=entry.fingerprint, description=entry.description)
            return entry

    return retry_on_conflict(write)


def allowlist_view(entry: AllowlistEntry, env_name: str) -> dict[str, Any]:
    return {"artifact_name": entry.artifact_name, "fingerprint": entry.fingerprint,
            "environment_name": env_name, "timestamp": entry.created_at,
            "user_name": entry.user_name, "description": entry.description}


# ---- reads ---------------------------------------------------------------------------------

def list_allowlist(org: Organization) -> list[dict[str, Any]]:
    """Every allowlist entry of the organization's environments, by environment then time."""
    rows = (AllowlistEntry.select(AllowlistEntry, Environment).join(Environment)
            .where(Environment.organization == org)
            .order_by(Environment.name, AllowlistEntry.created_at, AllowlistEntry.id))
    return [allowlist_view(entry, entry.environment.name) for entry in rows]


def list_environments(org: Organization, page: int | None, per_page: int | None, *,
                      name: str | None = None, types: list[str] | None = None,
                      tags: list[str] | None = None, sort: str | None = None,
                      sort_direction: str | None = None) -> tuple[list[Environment], dict[str, int]]:
    """Active environments, filtered; `name` is a substring match."""
    paging = page_of(page, per_page, MAX_ENVIRONMENTS_PER_PAGE, MAX_ENVIRONMENTS_PER_PAGE,
                     whole_when_unpaged=True)
    if sort is not None and sort not in SORT_FIELDS:
        raise validation_error("sort", f"'{sort}' is not one of {list(SORT_FIELDS)}")
    if sort_direction is not None and sort_direction not in ("asc", "desc"):
        raise validation_error("sort_direction", f"'{sort_direction}' is not one of ['asc', 'desc']")
    query = Environment.select().where((Environment.organization == org)
                                       & (Environment.archived == False))  # noqa: E712
    if name:
        query = query.where(Environment.name.contains(name))
    if types:
        query = query.where(Environment.type.in_(types))
    rows = list(query.order_by(Environment.name))
    if tags:
        rows = [e for e in rows if all(has_tag(e.tags or {}, t) for t in tags)]
    if sort and sort != "name":
        field = "last_modified_at" if sort == "last_modified_at" else "last_changed_at"
        rows.sort(key=lambda e: (getattr(e, field) is None, getattr(e, field) or 0))
    if sort_direction == "desc":
        rows.reverse()
    return paging.slice(rows)


def has_tag(tags: dict[str, Any], wanted: str) -> bool:
    """Whether the tags have the key (`key`) or the key and value (`key:value`)."""
    key, sep, value = wanted.partition(":")
    if key not in tags:
        return False
    return not sep or str(tags[key]) == value


def latest_snapshots(envs: list[Environment]) -> dict[int, Snapshot]:
    """The newest snapshot of each environment that has one: snapshots joined to their
    environment's `latest_index`, one query per IN_CHUNK environments."""
    ids = [e.id for e in envs if e.latest_index]
    if not ids:
        return {}
    newest = (Snapshot.select(Snapshot)
              .join(Environment, on=(Snapshot.environment == Environment.id)
                    & (Snapshot.index == Environment.latest_index)))
    return {s.environment_id: s for chunk in in_chunks(ids)
            for s in newest.where(Environment.id.in_(chunk))}


def _members(env: Environment, names: dict[int, str]) -> list[str]:
    return sorted(references.labels(env.included_environments or [], names))


def member_names(env: Environment) -> list[str]:
    """The names of a logical environment's members, in name order."""
    return _members(env, references.names_by_id(Environment, env.included_environments or []))


def environment_views(envs: list[Environment], org_name: str, states: dict[int, bool | None]
                      ) -> list[dict[str, Any]]:
    """The environments as the contract answers them (`states` by environment id), their
    members by current name, read in one query however many environments."""
    names = references.names_by_id(
        Environment, [m for env in envs for m in env.included_environments or []])
    return [_view(env, org_name, states.get(env.id), _members(env, names)) for env in envs]


def _view(env: Environment, org_name: str, state: bool | None, members: list[str]
          ) -> dict[str, Any]:
    return {
        "org": org_name,
        "name": env.name,
        "type": env.type,
        "description": env.description or "",
        "last_modified_at": env.last_modified_at,
        "last_reported_at": env.last_reported_at,
        "last_changed_at": env.last_changed_at,
        "state": state,
        "include_scaling": env.include_scaling,
        "tags": {k: str(v) for k, v in (env.tags or {}).items()},
        "policies": list(env.policies or []),
        "included_environments": members,
        "archived": env.archived,
        "created_at": env.created_at,
    }
