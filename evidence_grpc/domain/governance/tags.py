"""Tags: key/value labels set and removed on flows, environments, repos and controls,
addressed by the resource type as the CLI spells it (`flow`, `flows`, `env`, `environment(s)`,
`repo(s)`, `control(s)`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import peewee

from ...storage.db import locked, write_transaction
from ...storage.models import Control, Environment, Flow, Organization, Repo
from ..evidence import leaves as evidence_leaves
from ..evidence.flows import find_flow
from ..evidence.repos import find_repo
from ..kernel import limits
from ..kernel.errors import NotFound, not_found, validation_error
from ..kernel.names import check_name
from ..runtime import leaves as runtime_leaves
from ..runtime.environments import find_environment
from . import leaves
from .controls import find_control


def _repo(org: Organization, identifier: str) -> Repo:
    """A repo by its provider id (what `kosli tag repo` sends) or by name."""
    try:
        return find_repo(org, repo_id=identifier)
    except NotFound:
        return find_repo(org, name=identifier)


def _control(org: Organization, identifier: str) -> Control:
    """A control (the organization needs the Controls feature). The hosted tag endpoint
    answers an unknown control with its message in double quotes; so do we."""
    try:
        return find_control(org, identifier)
    except NotFound as missing:
        raise NotFound(f'"{missing.message}"', reason=missing.reason,
                       metadata=missing.metadata) from None


# The resources whose tags their transparency log leaves bind (all of them).
_LOGGED: dict[type[peewee.Model], Callable[[Organization, Any], None]] = {
    Flow: evidence_leaves.log_flow, Environment: runtime_leaves.log_environment,
    Repo: evidence_leaves.log_repo, Control: leaves.log_control}

FINDERS: dict[str, Callable[[Organization, str], peewee.Model]] = {
    "flow": find_flow, "flows": find_flow,
    "env": find_environment, "environment": find_environment, "environments": find_environment,
    "repo": _repo, "repos": _repo,
    "control": _control, "controls": _control,
}


def update_tags(org: Organization, resource_type: str, resource_id: str,
                set_tags: dict[str, str], remove_tags: list[str]) -> dict[str, str]:
    """Apply the changes and return the resulting tags."""
    finder = FINDERS.get(resource_type)
    if finder is None:
        raise not_found("resource_type", f"Unknown resource type '{resource_type}': use one of "
                        f"{sorted(FINDERS)}", resource_type=resource_type)
    for key in set_tags:
        check_name(f"set_tags.{key}", key)  # tag keys follow the rules of names
    with write_transaction():
        resource = locked(finder(org, resource_id))
        before = dict(resource.tags or {})
        tags = before | set_tags
        for key in remove_tags:
            tags.pop(key, None)
        if len(tags) > max(len(before), limits.RESOURCE_TAGS.most):
            raise validation_error("set_tags", f"A {resource_type} has at most "
                                   f"{limits.RESOURCE_TAGS.most} tags; this one would have "
                                   f"{len(tags)}")
        model = type(resource)
        model.update(tags=tags).where(model.id == resource.id).execute()
        resource.tags = tags
        logged = _LOGGED.get(model)
        if logged is not None:  # a policy's conditions read tags (flow.tags.risk)
            logged(org, resource)
    return tags
