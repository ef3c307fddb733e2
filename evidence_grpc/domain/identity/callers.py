"""Who is calling: the caller of the request being served (set by the auth interceptor), the
kind of actor it is, and what it may see. The bottom of identity: organizations,
service_accounts and web_sessions all read it, and it reads none of them."""

from __future__ import annotations

import contextvars
import dataclasses
import hashlib

from ...storage.models import Organization, User
from ..kernel.errors import InvalidArgument, Unauthenticated, authentication_required


@dataclasses.dataclass(frozen=True)
class Caller:
    """Who is calling, and the organization the request addresses (if it names one)."""

    user: User
    organization: Organization | None = None
    # The caller's privilege in `organization` (an options_pb2.Privilege value: 1 reader ..
    # 4 admin); personal keys of bootstrap members are admins.
    privilege: int = 4
    # No credentials: a reader of the organization's public flows only (`anonymous_caller`).
    anonymous: bool = False
    # The key is a service account's (its name stands in as `user`): audit logs say so.
    service_account: bool = False

    @property
    def actor_type(self) -> str:
        """Which kind of actor acts: `user` or `service_account`."""
        return "service_account" if self.service_account else "user"

    @property
    def org(self) -> Organization:
        if self.organization is None:
            raise InvalidArgument("This request names no organization")
        return self.organization


_caller: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("caller", default=None)


def current_caller() -> Caller:
    caller = _caller.get()
    if caller is None:
        raise Unauthenticated("Authentication required", reason="AUTHENTICATION_REQUIRED")
    return caller


def sees_flow(visibility: str | None) -> bool:
    """Whether the current caller may see a flow of that visibility: a caller without
    credentials sees public flows only (calls without a caller are the server's own)."""
    caller = _caller.get()
    return caller is None or not caller.anonymous or visibility == "public"


def anonymous_caller(org_name: str) -> Caller:
    """A caller without credentials, reading the public flows of an organization (an unknown
    one answers as a call without credentials does)."""
    found = Organization.get_or_none(Organization.name == org_name)
    if found is None:
        raise authentication_required()
    return Caller(user=User(name="anonymous"), organization=found, privilege=1, anonymous=True)


def current_actor_type(default: str = "user") -> str:
    """`user` or `service_account`: the kind of the current caller; `default` without one (a
    migration, bootstrap or a test acting directly)."""
    caller = _caller.get()
    return default if caller is None else caller.actor_type


def set_current_caller(caller: Caller | None) -> contextvars.Token:
    return _caller.set(caller)


def reset_current_caller(token: contextvars.Token) -> None:
    _caller.reset(token)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
