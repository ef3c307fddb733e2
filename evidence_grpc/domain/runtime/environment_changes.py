"""Changes to environments' definitions: create or update, change fields, archive, rename, join
a physical environment to a logical one, attach policies. Attaching policies judges what
runs again (snapshots), so this module sits above snapshots, which reads environments."""

from __future__ import annotations

from typing import Any

from ...storage.db import for_update, in_chunks, locked, now, retry_on_conflict, write_transaction
from ...storage.models import Environment, Organization, Policy
from ..identity import change_privileges
from ..kernel.errors import (
    FailedPrecondition,
    already_exists,
    missing,
    validation_error,
)
from . import env_audit, leaves
from .environments import LOGICAL, check_env_name, find_environment, validate
from .policy_eval import MAX_ENVIRONMENT_POLICIES
from .snapshots import rejudge_latest


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
                    f"Environment '{name}' is of type '{env.type}', not '{env_type}'",
                    reason="ENVIRONMENT_TYPE_MISMATCH", metadata={"environment": name})
            settings: dict[str, Any] = {"description": data.get("description", "")}
            if included:
                settings["included_environments"] = _physical_ids(org, included)
            for flag in ("require_provenance", "include_scaling"):  # as set, answered back
                if data.get(flag) is not None:
                    settings[flag] = bool(data[flag])
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
            leaves.log_environment(org, env)
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
            raise missing("environment", organization=org.name, environment=name)
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
    absent = [n for n in names if n not in found]
    if absent:
        raise (missing("policy", organization=org.name, policy=absent[0]) if len(absent) == 1
               else missing("policies", organization=org.name, policies=absent))
    return names


def set_policies(org: Organization, env: Environment, names: list[str], *,
                 field: str = "policies", judged: dict[str, Any] | None = None) -> None:
    """Attach exactly the policies `names` (distinct, and known: the callers have read them
    with known_policies; at most MAX_ENVIRONMENT_POLICIES, else InvalidArgument on `field`);
    when that changes what the environment requires, what runs there is judged again in a new
    snapshot (`judged`: as snapshots.rejudge_latest takes it). In the caller's write
    transaction with `env` locked (the caller saves it)."""
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
        if data.get("include_scaling") is not None:
            env.include_scaling = bool(data["include_scaling"])
        if policies is not None:
            set_policies(org, env, policies)
        if "included_environments" in data:
            if env.type != LOGICAL and data["included_environments"]:
                raise validation_error("included_environments",
                                       "Only logical environments include others")
            env.included_environments = _physical_ids(org, list(data["included_environments"] or []))
        env.last_modified_at = now()
        env.save()
        leaves.log_environment(org, env)
        env_audit.record(env, "environment_updated", **data)
        return env


def archive_environment(org: Organization, name: str) -> Environment:
    with write_transaction():
        env = locked(find_environment(org, name))
        env.archived = True
        env.last_modified_at = now()
        env.save()
        leaves.log_environment(org, env)
        env_audit.record(env, "environment_archived")
        return env


def rename_environment(org: Organization, name: str, new_name: str) -> Environment:
    check_env_name("new_name", new_name)
    with write_transaction():
        # Nothing else changes: what points at an environment holds its id (references.py).
        env = locked(find_environment(org, name))
        if Environment.select().where((Environment.organization == org)
                                      & (Environment.name == new_name)).exists():
            raise already_exists("environment", f"An environment named '{new_name}' already exists",
                                 environment=new_name)
        env.name = new_name
        env.last_modified_at = now()
        env.save()
        leaves.log_environment(org, env)
        env_audit.record(env, "environment_renamed", old_name=name, new_name=new_name)
        return env


def join_environment(org: Organization, logical_name: str, physical_name: str) -> Environment:
    if not physical_name:
        raise validation_error("physical_env_name", "Field cannot be empty")
    with write_transaction():
        logical = locked(find_environment(org, logical_name))
        if logical.type != LOGICAL:
            raise FailedPrecondition(f"Environment '{logical_name}' is not a logical environment",
                                     reason="ENVIRONMENT_NOT_LOGICAL",
                                     metadata={"environment": logical_name})
        joining = _physical_ids(org, [physical_name])
        logical.included_environments = list(dict.fromkeys(
            [*(logical.included_environments or []), *joining]))
        logical.last_modified_at = now()
        logical.save()
        leaves.log_environment(org, logical)
        env_audit.record(logical, "environment_joined", physical_env_name=physical_name)
        return logical
