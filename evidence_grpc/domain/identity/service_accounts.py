"""Service accounts of an organization and their API keys, and the membership audit log that
records every change to them (in the transaction that makes the change).

A key's secret is shown once, when it is minted or rotated; only its SHA-256 is stored. A key
works in its account's organization only, with the account's privilege, until it is revoked,
its account is deleted, or its `expires_at` (0: never) has passed. Rotation mints a new key and
leaves the old one working for a grace period (its `expires_at` becomes the end of it)."""

from __future__ import annotations

import secrets
from typing import Any

import peewee

from ...api.v2 import views
from ...storage.db import for_update, now
from ...storage.models import (
    Membership,
    MembershipAuditEvent,
    Organization,
    ServiceAccount,
    ServiceAccountKey,
    User,
)
from ..kernel import limits, list_sizes
from ..kernel.errors import NotFound, already_exists, validation_error
from ..kernel.names import CONTROL_CHARACTERS, pattern_mismatch, reads_as
from ..kernel.pages import in_time_range, page_of
from . import web_sessions
from .callers import current_actor_type, hash_key

PRIVILEGES = ("reader", "snapshotter", "member", "admin")  # in increasing order
NAME_PATTERN = r"^[a-zA-Z0-9\-]+$"
MAX_NAME = limits.SERVICE_ACCOUNT_NAME.most
MAX_ACCOUNT_DESCRIPTION = limits.ACCOUNT_DESCRIPTION.most
MAX_KEY_DESCRIPTION = limits.KEY_DESCRIPTION.most
LATEST_EXPIRY = 4102444800  # 2100-01-01, the contract's maximum
DEFAULT_GRACE_HOURS = 24
MAX_GRACE_HOURS = 720
KEY_PREFIX = "evk_"
EVENT_TYPES = ("service_account_created", "service_account_updated", "service_account_deleted",
               "api_key_created", "api_key_revoked", "api_key_rotated",
               "sessions_ended")  # web_sessions.ENDED_EVENT


def privilege_level(privilege: str) -> int:
    """1 (reader) .. 4 (admin): the options_pb2.Privilege value of a privilege's name."""
    return PRIVILEGES.index(privilege) + 1


def privilege_name(level: int) -> str:
    """The name of an options_pb2.Privilege value (privilege_level's inverse)."""
    return PRIVILEGES[level - 1]


def check_privilege(field: str, privilege: Any) -> str:
    if privilege not in PRIVILEGES:
        raise validation_error(field, f"Input should be {', '.join(repr(p) for p in PRIVILEGES)}"
                                      f" [input: {privilege}]")
    return privilege


def _check_account_name(name: str) -> str:
    if not name:
        raise validation_error("name", "String should have at least 1 character")
    if len(name) > MAX_NAME:
        raise validation_error("name", f"String should have at most {MAX_NAME} characters")
    if not all(c.isascii() and (c.isalnum() or c == "-") for c in name):
        raise validation_error("name", pattern_mismatch(NAME_PATTERN, name))
    return name


def _check_text(field: str, text: str, maximum: int, *, required: bool = False) -> str:
    if required and not text:
        raise validation_error(field, "String should have at least 1 character")
    if len(text) > maximum:
        raise validation_error(field, f"String should have at most {maximum} characters")
    if CONTROL_CHARACTERS.search(text.replace("\n", "").replace("\t", "")):
        raise validation_error(field, "Must not contain control characters")
    return text


def _check_expiry(field: str, expires_at: int | None) -> int:
    """0 for never; else a moment in the future, no later than the contract allows."""
    if not expires_at:
        return 0
    if expires_at > LATEST_EXPIRY:
        raise validation_error(field, f"Input should be less than or equal to {LATEST_EXPIRY}")
    if expires_at <= now():
        raise validation_error(field, "Expiry date must be in the future")
    return expires_at


def _record(org: Organization, actor: str, event_type: str, account: ServiceAccount,
            **details: Any) -> None:
    event = MembershipAuditEvent.create(
        organization=org, event_type=event_type, timestamp=now(), actor=actor,
        actor_type=current_actor_type(), subject=account.name, role=account.privilege,
        details=details)
    list_sizes.added(event.id, (list_sizes.AUDIT_EVENTS_OF_ORGANIZATION, org.id))


def named_in(org: Organization, name: str) -> str | None:
    """The name of the organization's service account that reads as `name` (the same but for
    case and Unicode compatibility forms: kernel.names.folded), if there is one."""
    return reads_as(name, ServiceAccount.select(ServiceAccount.name)
                    .where(ServiceAccount.organization == org).scalars())


def member_named(org: Organization, name: str) -> str | None:
    """The name of the organization's member that reads as `name`, if there is one."""
    return reads_as(name, User.select(User.name).join(Membership)
                    .where(Membership.organization == org).scalars())


def account_view(account: ServiceAccount) -> views.ServiceAccount:
    view: views.ServiceAccount = {"name": account.name, "privilege": account.privilege,
                                  "created_at": account.created_at,
                                  "created_by": account.created_by,
                                  "display_name": account.name,
                                  "creating_user_id": account.created_by, "for_webhook": False}
    if account.description is not None:
        view["description"] = account.description
    return view


def find_account(org: Organization, name: str, *, lock: bool = False) -> ServiceAccount:
    query = ServiceAccount.select().where((ServiceAccount.organization == org)
                                          & (ServiceAccount.name == name))
    account = (for_update(query) if lock else query).first()
    if account is None:
        raise NotFound("Service account not found", {"name": f"No service account '{name}' "
                                                             f"in organization '{org.name}'"},
                       reason="SERVICE_ACCOUNT_NOT_FOUND",
                       metadata={"organization": org.name, "service_account": name})
    return account


def create_account(org: Organization, actor: str, name: str, description: str | None,
                   privilege: str | None) -> ServiceAccount:
    _check_account_name(name)
    if description is not None:
        _check_text("description", description, MAX_ACCOUNT_DESCRIPTION)
    privilege = check_privilege("privilege", privilege or "reader")
    # Names are unique as people read them: `MIKE` beside `mike` would pass for it.
    existing = named_in(org, name)
    if existing == name:
        raise already_exists("service_account", f"Service account '{name}' already exists in "
                             f"organization '{org.name}'", organization=org.name,
                             service_account=name)
    if existing is not None:
        raise already_exists("service_account", f"Service account '{existing}' of organization "
                             f"'{org.name}' has this name but for case or Unicode form",
                             {"name": f"Reads as service account '{existing}': names differ in "
                                      "more than case or Unicode form"},
                             organization=org.name, service_account=existing)
    member = member_named(org, name)
    if member is not None:  # its records and audit events would read as the member's
        raise already_exists("member", f"A member of organization '{org.name}' is named "
                             f"'{member}'",
                             {"name": f"A member of '{org.name}' has this name (but for case or "
                                      "Unicode form): a service account's cannot"})
    account = ServiceAccount.create(organization=org, name=name, description=description,
                                    privilege=privilege, created_by=actor, created_at=now())
    _record(org, actor, "service_account_created", account)
    return account


def list_accounts(org: Organization) -> list[ServiceAccount]:
    return list(ServiceAccount.select().where(ServiceAccount.organization == org)
                .order_by(ServiceAccount.name))


UNCHANGED = object()  # an update argument left out


def update_account(org: Organization, actor: str, name: str, description: Any = UNCHANGED,
                   privilege: Any = UNCHANGED) -> ServiceAccount:
    """`description`: a string replaces it, None clears it; `privilege`: a name replaces it,
    None leaves it. Leave either out to keep it."""
    account = find_account(org, name, lock=True)
    changes: dict[str, Any] = {}
    if description is not UNCHANGED:
        if description is not None:
            if not isinstance(description, str):
                raise validation_error("description", "Input should be a valid string")
            _check_text("description", description, MAX_ACCOUNT_DESCRIPTION)
        changes["description"] = description
    if privilege is not UNCHANGED and privilege is not None:
        changes["privilege"] = check_privilege("privilege", privilege)
    for field, value in changes.items():
        setattr(account, field, value)
    if changes:
        account.save()
        _record(org, actor, "service_account_updated", account, changes=changes)
    return account


def delete_account(org: Organization, actor: str, name: str) -> None:
    account = find_account(org, name, lock=True)
    _record(org, actor, "service_account_deleted", account)
    account.delete_instance()  # its keys go with it (ON DELETE CASCADE)



# ---- keys ---------------------------------------------------------------------------------------

def _active(query: peewee.ModelSelect) -> peewee.ModelSelect:
    stamp = now()
    return query.where((ServiceAccountKey.revoked == False)  # noqa: E712
                       & ((ServiceAccountKey.expires_at == 0)
                          | (ServiceAccountKey.expires_at > stamp)))


def key_view(key: ServiceAccountKey) -> views.ApiKey:
    view: views.ApiKey = {"id": key.key_id, "description": key.description,
                          "created_at": key.created_at, "expires_at": key.expires_at}
    if key.last_used_at is not None:
        view["last_used_at"] = key.last_used_at
    return view


def _mint(account: ServiceAccount, description: str, expires_at: int
          ) -> tuple[ServiceAccountKey, str]:
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    key = ServiceAccountKey.create(service_account=account, key_id=secrets.token_hex(12),
                                   key_hash=hash_key(secret), description=description,
                                   created_at=now(), expires_at=expires_at)
    return key, secret


def _secret_view(key: ServiceAccountKey, secret: str) -> views.ApiKeySecret:
    """A key just minted, with its secret (shown this once); never used yet."""
    return {"id": key.key_id, "description": key.description, "created_at": key.created_at,
            "expires_at": key.expires_at, "key": secret}


def create_key(org: Organization, actor: str, name: str, description: str,
               expires_at: int | None) -> views.ApiKeySecret:
    _check_text("description", description, MAX_KEY_DESCRIPTION, required=True)
    expiry = _check_expiry("expires_at", expires_at)
    account = find_account(org, name)
    key, secret = _mint(account, description, expiry)
    _record(org, actor, "api_key_created", account, key_id=key.key_id)
    return _secret_view(key, secret)


def list_keys(org: Organization, name: str) -> list[ServiceAccountKey]:
    account = find_account(org, name)
    return list(_active(ServiceAccountKey.select().where(
        ServiceAccountKey.service_account == account)).order_by(ServiceAccountKey.created_at,
                                                                 ServiceAccountKey.id))


def find_key(org: Organization, name: str, key_id: str, *, lock: bool = False
             ) -> tuple[ServiceAccount, ServiceAccountKey]:
    account = find_account(org, name)
    query = _active(ServiceAccountKey.select().where(
        (ServiceAccountKey.service_account == account) & (ServiceAccountKey.key_id == key_id)))
    key = (for_update(query) if lock else query).first()
    if key is None:
        raise NotFound("API key not found", {"key_id": f"No active API key '{key_id}' of "
                                                       f"service account '{name}'"},
                       reason="API_KEY_NOT_FOUND", metadata={"service_account": name, "key_id": key_id})
    return account, key


def revoke_key(org: Organization, actor: str, name: str, key_id: str) -> None:
    account, key = find_key(org, name, key_id, lock=True)
    ServiceAccountKey.update(revoked=True).where(ServiceAccountKey.id == key.id).execute()
    web_sessions.end_for_key(key.key_hash)  # its web sessions end with it
    _record(org, actor, "api_key_revoked", account, key_id=key_id)


def rotate_key(org: Organization, actor: str, name: str, key_id: str,
               grace_period_hours: int | None, expires_at: int | None) -> views.ApiKeySecret:
    hours = DEFAULT_GRACE_HOURS if grace_period_hours is None else grace_period_hours
    if not 1 <= hours <= MAX_GRACE_HOURS:
        raise validation_error("grace_period_hours",
                               f"Input should be between 1 and {MAX_GRACE_HOURS}")
    expiry = _check_expiry("expires_at", expires_at)
    account, old = find_key(org, name, key_id, lock=True)
    if old.rotated:  # a second successor would cut the first one's grace period short
        raise already_exists(
            "api_key_rotation", f"API key '{key_id}' is already being replaced",
            {"key_id": f"API key '{key_id}' of service account '{name}' was rotated and stays "
                       f"valid until {int(old.expires_at)} (epoch seconds); rotate its "
                       "successor or revoke it instead"})
    grace_end = now() + hours * 3600
    old_expiry = int(grace_end) if not old.expires_at else min(old.expires_at, int(grace_end))
    ServiceAccountKey.update(expires_at=old_expiry, rotated=True).where(
        ServiceAccountKey.id == old.id).execute()
    key, secret = _mint(account, old.description, expiry)
    _record(org, actor, "api_key_rotated", account, key_id=key_id, new_key_id=key.key_id,
            grace_period_hours=hours)
    return {**_secret_view(key, secret), "grace_period_expires_at": float(old_expiry)}


# ---- audit log ----------------------------------------------------------------------------------

def audit_log(org: Organization, page: int | None, per_page: int | None, *,
              search: str | None = None, event_type: str | None = None,
              from_timestamp: float | None = None, to_timestamp: float | None = None,
              sort_dir: str | None = None) -> tuple[list[MembershipAuditEvent], dict[str, int]]:
    query = MembershipAuditEvent.select().where(MembershipAuditEvent.organization == org)
    if event_type is not None:
        if event_type not in EVENT_TYPES:
            raise validation_error("event_type", f"Input should be one of {', '.join(EVENT_TYPES)}")
        query = query.where(MembershipAuditEvent.event_type == event_type)
    query = in_time_range(query, MembershipAuditEvent.timestamp, from_timestamp, to_timestamp)
    if search:
        text = search.lower()
        query = query.where(peewee.fn.LOWER(MembershipAuditEvent.subject).contains(text)
                            | peewee.fn.LOWER(MembershipAuditEvent.actor).contains(text))
    if sort_dir not in (None, "asc", "desc"):
        raise validation_error("sort_dir", "Input should be 'asc' or 'desc'")
    ascending = sort_dir == "asc"
    order = (MembershipAuditEvent.timestamp.asc() if ascending
             else MembershipAuditEvent.timestamp.desc(),
             MembershipAuditEvent.id.asc() if ascending else MembershipAuditEvent.id.desc())
    paging = page_of(page, per_page)
    if paging.size is None:
        rows, pagination = paging.apply(query.order_by(*order))
        total = pagination["total"]
    elif not (event_type is not None or from_timestamp is not None or to_timestamp is not None
              or search):  # the page's ids at their positions in the organization's list
        ids, total = list_sizes.items_of_page(list_sizes.AUDIT_EVENTS_OF_ORGANIZATION, org.id,
                                              paging, ascending)
        rows = list_sizes.in_page_order(ids, lambda ids: MembershipAuditEvent.select().where(
            MembershipAuditEvent.id.in_(ids)))
    else:  # the page's ids picked on the (organization, timestamp) index first
        ids_query = MembershipAuditEvent.select(MembershipAuditEvent.id).where(query._where)
        rows = list(MembershipAuditEvent.select().where(MembershipAuditEvent.id.in_(
            ids_query.order_by(*order).paginate(paging.number, paging.size))).order_by(*order))
        total = ids_query.count()
    return rows, {"page": paging.number, "per_page": paging.size or max(1, total),
                  "total_count": total}


def audit_view(event: MembershipAuditEvent) -> views.MembershipAuditEvent:
    return {"event_type": event.event_type, "timestamp": event.timestamp, "actor": event.actor,
            "actor_type": event.actor_type, "subject": event.subject, "role": event.role,
            "source": event.source, "details": event.details}
