"""Environment policies: versioned YAML documents attached to environments by name.

A policy changes version only when its YAML text changes; each version keeps its comment and
author. Attachments are the names in `environment.policies`."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Collection
from typing import Any

from ...api.v2 import views
from ...memo import BytesLru
from ...storage.db import for_update, in_chunks, now, retry_on_conflict, write_transaction
from ...storage.models import Control, Environment, Organization, Policy, PolicyEvent, PolicyVersion
from ..identity.callers import current_actor_type
from ..kernel.errors import InvalidArgument, missing, validation_error
from ..kernel.names import check_name
from ..kernel.urls import not_a_url, parsed_url
from ..kernel.yaml_documents import load_mapping, load_stored_mapping, schema_violations
from ..runtime import leaves as runtime_leaves
from ..runtime.environment_changes import check_policy_count, known_policies, set_policies
from ..runtime.policy_eval import normalize_conditions, rule_problems
from ..runtime.snapshots import judged_fields, judged_write, latest_running
from . import leaves

SCHEMA_FILE = "environment-policy-v1.json"
POLICY_TYPES = ("env",)
_MAJOR_VERSION = re.compile(r"/v(\d+)/?$")


def check_policy_yaml(text: str) -> dict[str, Any]:
    """The policy document of `text`, or InvalidArgument naming each offending path (a
    malformed `if` expression included)."""
    document = load_mapping(text, "policy_file", "policy")
    expressions = normalize_conditions(document)
    violations = schema_violations(SCHEMA_FILE, document, "policy_file")
    if not violations:
        violations = rule_problems(document)
    violations.update(expressions)
    schema_url = document.get("_schema")
    if isinstance(schema_url, str) and "_schema" not in violations:
        parts = parsed_url(schema_url)
        major = _MAJOR_VERSION.search(parts.path) if parts is not None else None
        if parts is None:
            violations["_schema"] = not_a_url(schema_url)
        elif major is None:
            violations["_schema"] = f"'{schema_url}' must end with /v{{n}}, the major version"
        elif major.group(1) != "1":
            violations["_schema"] = f"Version {major.group(1)} is not supported; use v1"
    if violations:
        raise InvalidArgument("Invalid policy", violations)
    return document


def _control_references(document: dict[str, Any]) -> list[tuple[str, str]]:
    """(path, control identifier) of each `for_control` of a valid policy document."""
    rules = (document.get("artifacts") or {}).get("attestations") or []
    return [(f"artifacts.attestations.{i}.for_control", rule["for_control"])
            for i, rule in enumerate(rules) if rule.get("for_control") is not None]


# sha256 of a policy YAML -> the controls it references, counted as the identifiers' bytes:
# keyed by digests, the cache never holds the (up to 1 MiB) texts themselves.
_REFERENCES = BytesLru(1024 * 1024)
_DIGEST_BYTES = 32


def _may_reference(policy_yaml: str, identifiers: Collection[str] | None) -> bool:
    """Whether the text can reference any of `identifiers` (any control when None). A control
    identifier ([a-zA-Z0-9-._~]) is spelled as it is in any YAML scalar but a double-quoted one
    with escapes: a text holding neither it (nor `for_control`) nor a backslash references
    none, and is not parsed."""
    if "\\" in policy_yaml:
        return True
    if "for_control" not in policy_yaml:
        return False
    return identifiers is None or any(i in policy_yaml for i in identifiers)


def _controls_of(policy_yaml: str, identifiers: Collection[str] | None = None
                 ) -> frozenset[str]:
    """The controls a stored (valid) policy YAML references (only those among `identifiers`
    when given), parsed once per text (by libyaml: `load_stored_mapping`) and only when it
    may reference them: every control answer reads every policy's."""
    if not _may_reference(policy_yaml, identifiers):
        return frozenset()
    key = hashlib.sha256(policy_yaml.encode()).digest()
    found = _REFERENCES.get(key)
    if found is None:
        found = frozenset(c for _, c in _control_references(
            load_stored_mapping(policy_yaml, "policy_file", "policy")))
        _REFERENCES.put(key, found, _DIGEST_BYTES + sum(len(c.encode()) for c in found))
    return found if identifiers is None else found & frozenset(identifiers)


def policy_controls(org: Organization, identifiers: Collection[str] | None = None
                    ) -> dict[str, frozenset[str]]:
    """{policy name: identifiers of the controls its latest version references (those among
    `identifiers` when given)}, for the organization's active policies."""
    latest: dict[int, tuple[int, int]] = {}  # policy id -> (version, PolicyVersion id)
    for version_id, policy_id, number in (
            PolicyVersion.select(PolicyVersion.id, PolicyVersion.policy, PolicyVersion.version)
            .join(Policy).where((Policy.organization == org)
                                & (Policy.archived == False)).tuples()):  # noqa: E712
        if number > latest.get(policy_id, (0, 0))[0]:
            latest[policy_id] = (number, version_id)
    found: dict[str, frozenset[str]] = {}
    for chunk in in_chunks([version_id for _, version_id in latest.values()]):
        for name, policy_yaml in (PolicyVersion.select(Policy.name, PolicyVersion.policy_yaml)
                                  .join(Policy).where(PolicyVersion.id.in_(chunk)).tuples()):
            found[name] = _controls_of(policy_yaml, identifiers)
    return found


def _check_controls(org: Organization, document: dict[str, Any]) -> None:
    """Refuse references to controls the organization does not have. Only organizations with
    the Controls feature have a catalog to check against; elsewhere `for_control` stays a
    free-form name."""
    if "controls" not in (org.features or []):
        return
    references = _control_references(document)
    known = {c for chunk in in_chunks(list({c for _, c in references}))
             for (c,) in Control.select(Control.identifier).where(
                 (Control.organization == org) & (Control.identifier.in_(chunk))).tuples()}
    missing = {path: f"Control '{c}' does not exist in organization '{org.name}'"
               for path, c in references if c not in known}
    if missing:
        raise InvalidArgument("Invalid policy", missing)


def upsert_policy(org: Organization, user_name: str, name: str, *, description: str,
                  comment: str, policy_type: str | None,
                  policy_yaml: str | None) -> tuple[Policy, bool]:
    """Create the policy or update it. Returns (policy, created). The YAML may be left out
    only when the policy exists (its description alone changes)."""
    check_name("name", name)
    if policy_type is not None and policy_type not in POLICY_TYPES:
        raise validation_error("type", f"'{policy_type}' is not one of {list(POLICY_TYPES)}")
    if policy_yaml is not None:
        _check_controls(org, check_policy_yaml(policy_yaml))

    def write() -> tuple[Policy, bool]:
        with write_transaction():
            stamp = now()
            # Locked: concurrent writers of one policy take turns (its next version number,
            # its description) instead of each writing back the row it read.
            policy = for_update(Policy.select().where((Policy.organization == org)
                                                      & (Policy.name == name))).first()
            created = policy is None
            if created:
                if policy_yaml is None:
                    raise validation_error("policy_file", "A new policy needs its YAML file")
                policy = Policy.create(organization=org, name=name, description=description,
                                       created_by=user_name, created_at=stamp,
                                       last_modified_at=stamp)
                _event(policy, "creation", user_name, stamp, {"version": 1})
            elif policy.description != description:
                _event(policy, "metadata_update", user_name, stamp,
                       {"description": {"from": policy.description, "to": description}})
                policy.description = description
                policy.last_modified_at = stamp
            latest = (PolicyVersion.select().where(PolicyVersion.policy == policy)
                      .order_by(PolicyVersion.version.desc()).first())
            made = None
            if policy_yaml is not None and (latest is None or latest.policy_yaml != policy_yaml):
                version = latest.version + 1 if latest else 1
                made = PolicyVersion.create(policy=policy, version=version, policy_yaml=policy_yaml,
                                            comment=comment, created_by=user_name, created_at=stamp)
                if not created:
                    _event(policy, "new_version", user_name, stamp, {"version": version})
                policy.last_modified_at = stamp
            if created or policy.dirty_fields:
                if policy.dirty_fields:
                    policy.save(only=policy.dirty_fields)
                leaves.log_policy(org, policy, made)
            return policy, created

    return retry_on_conflict(write)


def _event(policy: Policy, kind: str, user_name: str, stamp: float, data: dict[str, Any]) -> None:
    PolicyEvent.create(policy=policy, type=kind, user_name=user_name,
                       user_type=current_actor_type(), data=data, created_at=stamp)


def find_policy(org: Organization, name: str) -> Policy:
    policy = Policy.get_or_none((Policy.organization == org) & (Policy.name == name))
    if policy is None:
        raise missing("policy", organization=org.name, policy=name)
    return policy


def list_policies(org: Organization) -> list[Policy]:
    return list(Policy.select().where((Policy.organization == org)
                                      & (Policy.archived == False))  # noqa: E712
                .order_by(Policy.name))


def _requested_names(names: list[str]) -> list[str]:
    """The policy names of an attach or detach request, each once, in the order given."""
    if not names:
        raise validation_error("policy_names", "Name at least one policy")
    return list(dict.fromkeys(names))


def attach_policies(org: Organization, env_name: str, names: list[str]) -> Environment:
    """Attach every named policy, or none when one of them (or the environment) is unknown."""
    names = _requested_names(names)
    return _change_policies(org, env_name, lambda attached: attached + [
        n for n in known_policies(org, names) if n not in attached])


def detach_policies(org: Organization, env_name: str, names: list[str]) -> Environment:
    """Detach the named policies; naming one that is not attached is no error."""
    names = _requested_names(names)

    def detached(attached: list[str]) -> list[str]:
        known_policies(org, names)  # an unknown name is refused (404), as attaching it is
        return [n for n in attached if n not in names]

    return _change_policies(org, env_name, detached)


def _change_policies(org: Organization, env_name: str,
                     change: Callable[[list[str]], list[str]]) -> Environment:
    """Attach the policies `change` makes of those attached, what runs judged again by them
    before the write transaction (snapshots.judged_write)."""

    def prepare(env: Environment) -> tuple[list[str], dict[str, Any] | None]:
        wanted = change(list(env.policies or []))
        check_policy_count(wanted, "policy_names")
        latest = latest_running(env)
        if latest is None or wanted == list(env.policies or []):
            return wanted, None
        return wanted, judged_fields(org, env, latest.artifacts, wanted, "policy_names")

    def write(env: Environment, prepared: tuple[list[str], dict[str, Any] | None]
              ) -> Environment:
        wanted, judged = prepared
        set_policies(org, env, wanted, field="policy_names", judged=judged)
        env.last_modified_at = now()
        env.save()
        runtime_leaves.log_environment(org, env)
        return env

    return judged_write(org, env_name, prepare, write)


def _consuming_envs(org: Organization) -> dict[str, list[str]]:
    """{policy name: names of the organization's (unarchived) environments it is attached to}."""
    consumers: dict[str, list[str]] = defaultdict(list)
    for env in (Environment.select(Environment.name, Environment.policies)
                .where((Environment.organization == org) & (Environment.archived == False))  # noqa: E712
                .order_by(Environment.name)):
        for name in env.policies or []:
            consumers[name].append(env.name)
    return consumers


def policy_views(org: Organization, policies: list[Policy]) -> list[views.Policy]:
    """The contract's policy objects: versions, events and consuming environments read by one
    query each for all `policies`."""
    versions: dict[int, list[views.PolicyVersion]] = defaultdict(list)
    events: dict[int, list[views.PolicyEvent]] = defaultdict(list)
    for chunk in in_chunks([p.id for p in policies]):
        for v in (PolicyVersion.select().where(PolicyVersion.policy.in_(chunk))
                  .order_by(PolicyVersion.version)):
            versions[v.policy_id].append({
                "version": v.version, "comment": v.comment, "timestamp": v.created_at,
                "created_by": v.created_by, "policy_yaml": v.policy_yaml})
        for e in (PolicyEvent.select().where(PolicyEvent.policy.in_(chunk))
                  .order_by(PolicyEvent.created_at, PolicyEvent.id)):
            events[e.policy_id].append({"type": e.type, "timestamp": e.created_at,
                                        "user": e.user_name, "user_type": e.user_type,
                                        "data": e.data or {}})
    consumers = _consuming_envs(org) if policies else {}
    return [{
        "name": p.name,
        "description": p.description,
        "created_by": p.created_by,
        "created_at": p.created_at,
        "last_modified_at": p.last_modified_at,
        "archived": p.archived,
        "versions": versions[p.id],
        "events": events[p.id],
        "consuming_envs": consumers.get(p.name, []),
    } for p in policies]
