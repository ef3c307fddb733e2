"""Privileges per field: what a caller may change of a resource that already exists.

An RPC that creates or updates declares in its proto options the least privilege to change an
existing resource (`update_privilege`, else the RPC's own `privilege`) and, field by field,
where more is needed (`change_privilege`). The auth interceptor hands those rules to the call
(`declare`); the domain, which alone knows what a request would change, names the fields it
would change under the lock it writes with, before writing (`require_to_change`). A call that
changes nothing needs nothing more than the RPC's privilege, so a pipeline may re-send what
created a resource."""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..kernel.errors import permission_denied
from .callers import current_caller
from .service_accounts import privilege_name


@dataclass(frozen=True)
class ChangeRules:
    """The privileges one RPC declares for changing what exists (options_pb2.Privilege
    values: 1 reader .. 4 admin)."""

    update: int
    fields: Mapping[str, int] = field(default_factory=dict)

    def needed(self, name: str) -> int:
        return max(self.update, self.fields.get(name, 0))


_rules: contextvars.ContextVar[ChangeRules | None] = contextvars.ContextVar(
    "change_rules", default=None)


def declare(rules: ChangeRules | None) -> contextvars.Token:
    return _rules.set(rules)


def reset(token: contextvars.Token) -> None:
    _rules.reset(token)


def require_to_change(what: str, changed: Iterable[str]) -> None:
    """PermissionDenied, naming each field, when the caller may not change those fields of an
    existing `what` (e.g. "environment 'prod'") through the RPC being served. Calls made
    in-process without an RPC (bootstrap, tests of the domain) have no rules and may."""
    rules = _rules.get()
    if rules is None:
        return
    caller = current_caller()
    short = {name: rules.needed(name) for name in dict.fromkeys(changed)
             if caller.privilege < rules.needed(name)}
    if not short:
        return
    errors = {name: f"changing it needs {privilege_name(needed)} privilege"
              for name, needed in short.items()}
    errors["privilege"] = (f"needs {privilege_name(max(short.values()))} privilege to change "
                           f"{', '.join(short)} of the existing {what}, the key has "
                           f"{privilege_name(caller.privilege)}")
    raise permission_denied(errors)
