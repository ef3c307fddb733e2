"""Environments of an organization: find and list them, allow artifacts in one (their
definitions change in environment_changes, which re-judges what runs through snapshots).

Request bodies are checked against the contract's JSON Schemas (`environment-schemas.json`,
copied from the operations catalog by `scripts/extract_environment_schemas.py`)."""

from __future__ import annotations

import functools
import json
import pathlib
from collections.abc import Iterator
from typing import Any

import peewee

from ...api.v2 import views
from ...storage.db import (
    Prepared,
    for_update,
    in_chunks,
    keyset_batches,
    now,
    retry_on_conflict,
    write_transaction,
)
from ...storage.models import AllowlistEntry, Environment, Organization, Snapshot, User
from ..kernel import references
from ..kernel.contract import SchemaCheck
from ..kernel.errors import missing, validation_error
from ..kernel.names import check_name, whole_string_patterns
from ..kernel.pages import counted, page_of
from ..kernel.tag_filters import has_tag
from ..outbound import actions
from . import env_audit, leaves

SCHEMAS_PATH = pathlib.Path(__file__).with_name("environment-schemas.json")
LOGICAL = "logical"
MAX_ENVIRONMENTS_PER_PAGE = 50
# Environments read at a time when a page's are found by matching tags (in Python)
TAGS_MATCHED_IN_BATCHES_OF = 500
# Environments read at a time in an order no index holds (by a time)
UNINDEXED_ORDER_READ = 2_000
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
        raise missing("environment", organization=org.name, environment=name)
    return found[0]


# ---- writes --------------------------------------------------------------------------------

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
            leaves.log_allowed(org, entry)
            actions.artifact_allowed(org, env, allowlist_view(entry, env.name))
            env_audit.record(env, "artifact_allowed", artifact_name=entry.artifact_name,
                             fingerprint=entry.fingerprint, description=entry.description)
            return entry

    return retry_on_conflict(write)


def allowlist_view(entry: AllowlistEntry, env_name: str) -> views.AllowlistEntry:
    return {"artifact_name": entry.artifact_name, "fingerprint": entry.fingerprint,
            "environment_name": env_name, "timestamp": entry.created_at,
            "user_name": entry.user_name, "description": entry.description}


# ---- reads ---------------------------------------------------------------------------------

def list_allowlist(org: Organization) -> list[views.AllowlistEntry]:
    """Every allowlist entry of the organization's environments, by environment then time."""
    rows = (AllowlistEntry.select(AllowlistEntry, Environment).join(Environment)
            .where(Environment.organization == org)
            .order_by(Environment.name, AllowlistEntry.created_at, AllowlistEntry.id))
    return [allowlist_view(entry, entry.environment.name) for entry in rows]


def list_environments(org: Organization, page: int | None, per_page: int | None, *,
                      name: str | None = None, types: list[str] | None = None,
                      tags: list[str] | None = None, sort: str | None = None,
                      sort_direction: str | None = None) -> tuple[list[Environment], dict[str, int]]:
    """A page of the active environments, filtered (`name` is a substring) and sorted (every
    one: `environments_in_batches`)."""
    paging = page_of(page, per_page, MAX_ENVIRONMENTS_PER_PAGE, MAX_ENVIRONMENTS_PER_PAGE)
    query, keys, descending = _listed(org, name, types, sort, sort_direction)
    if not tags:
        rows = list(query.order_by(*(key.desc() if descending else key for key in keys))
                    .paginate(paging.number, paging.size))
        return rows, counted(paging, query.count())
    # tags are matched in Python: the list is walked in batches, keeping the page's
    start, end, total, rows = paging.offset, paging.offset + (paging.size or 0), 0, []
    for batch in environments_in_batches(org, TAGS_MATCHED_IN_BATCHES_OF, name=name, types=types,
                                         tags=tags, sort=sort, sort_direction=sort_direction):
        rows += batch[max(0, start - total):max(0, end - total)]
        total += len(batch)
    return rows, counted(paging, total)


def environments_in_batches(org: Organization, size: int, *, name: str | None = None,
                            types: list[str] | None = None, tags: list[str] | None = None,
                            sort: str | None = None, sort_direction: str | None = None
                            ) -> Iterator[list[Environment]]:
    """Every environment `list_environments` lists, in its order, in batches of at most `size`
    read by keyset (`keyset_batches`); a batch holds those of the rows read that have the tags.
    In a time's order, which no index holds, each read scans the organization's environments:
    they are read UNINDEXED_ORDER_READ at a time (at 100,000 environments, 1,000 reads of 100
    took 32 s on SQLite)."""
    query, keys, descending = _listed(org, name, types, sort, sort_direction)
    read = size if sort in (None, "name") else max(size, UNINDEXED_ORDER_READ)
    for rows in keyset_batches(query, keys, read, descending):
        kept = [env for env in rows if _tagged(env, tags)]
        for start in range(0, len(kept), size):
            yield kept[start:start + size]


def _listed(org: Organization, name: str | None, types: list[str] | None, sort: str | None,
            sort_direction: str | None) -> tuple[peewee.ModelSelect, list[peewee.ColumnBase], bool]:
    """(The active environments of the filters that SQL applies, the keys of their order,
    whether descending): by name, or by a time with those that have none last and ties by
    name; descending reverses the whole order."""
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
    keys: list[peewee.ColumnBase] = [Environment.name]
    if sort and sort != "name":
        field = getattr(Environment, sort)
        keys = [peewee.Case(None, [(field.is_null(), 1)], 0), peewee.fn.COALESCE(field, 0.0),
                Environment.name]
    return query, keys, sort_direction == "desc"


def _tagged(env: Environment, tags: list[str] | None) -> bool:
    return all(has_tag(env.tags or {}, t) for t in tags or ())


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
                      ) -> list[views.Environment]:
    """The environments as the contract answers them (`states` by environment id), their
    members by current name, read in one query however many environments."""
    names = references.names_by_id(
        Environment, [m for env in envs for m in env.included_environments or []])
    return [_view(env, org_name, states.get(env.id), _members(env, names)) for env in envs]


def _view(env: Environment, org_name: str, state: bool | None, members: list[str]
          ) -> views.Environment:
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
        "require_provenance": env.require_provenance,
        "tags": {k: str(v) for k, v in (env.tags or {}).items()},
        "policies": list(env.policies or []),
        "included_environments": members,
        "archived": env.archived,
        "created_at": env.created_at,
    }
