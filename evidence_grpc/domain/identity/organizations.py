"""Organizations, users, memberships and personal API keys; the caller's identity."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import logging
from typing import Any

import peewee

from ...api.v2 import views
from ...storage.db import Prepared, instance_of, now, write_transaction
from ...storage.models import ApiKey, Membership, Organization, ServiceAccount, ServiceAccountKey, User
from ..kernel.errors import (
    InvalidArgument,
    PermissionDenied,
    Unauthenticated,
    already_exists,
    authentication_required,
    not_found,
)
from ..kernel.names import check_name, reads_as
from . import service_accounts, web_sessions
from .callers import Caller, hash_key

log = logging.getLogger(__name__)


def key_from_authorization(header: str | None) -> str:
    """The API key of a `Bearer <key>` or `Basic base64(<key>:<anything>)` header."""
    if not header:
        raise authentication_required()
    scheme, _, value = header.strip().partition(" ")
    value = value.strip()
    if scheme.lower() == "bearer" and value:
        return value
    if scheme.lower() == "basic" and value:
        try:
            decoded = base64.b64decode(value, validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise Unauthenticated("Malformed basic credentials", reason="CREDENTIALS_MALFORMED") from None
        key, sep, _ = decoded.partition(":")
        if sep and key:
            return key
    raise Unauthenticated("Unsupported Authorization header: use Bearer or Basic",
                          reason="CREDENTIALS_MALFORMED")


READER = 1  # options_pb2.PRIVILEGE_READER
_USER_COLUMNS = ("id", "name", "default_org", "created_at")
_ORG_COLUMNS = ("id", "name", "kind", "features", "experimental_features_enabled", "created_at",
                "last_modified_at")


def _authentication_query(org_name: str, key_hash: str) -> peewee.SelectQuery:
    """Key -> user -> membership of the named organization, in one statement."""
    org_id = Organization.select(Organization.id).where(Organization.name == org_name)
    member = Membership.alias()
    return (ApiKey.select(ApiKey.expires_at, *[getattr(User, c) for c in _USER_COLUMNS],
                          member.role, *[getattr(Organization, c) for c in _ORG_COLUMNS])
            .join(User)
            .join(member, peewee.JOIN.LEFT_OUTER,
                  on=(member.user == User.id) & (member.organization == org_id))
            .join(Organization, peewee.JOIN.LEFT_OUTER, on=(Organization.id == member.organization))
            .where((ApiKey.key_hash == key_hash) & (ApiKey.revoked == False))  # noqa: E712
            .limit(1))


# Runs on every call: compiled once (see storage.db.Prepared).
_AUTHENTICATION = Prepared(_authentication_query, org_name=str, key_hash=str)


def authenticate(header: str | None, org_name: str | None) -> Caller:
    """Resolve the key to its user (a personal key) or service account and, when the request
    names an organization, check the key may act there, with which privilege. An unknown
    organization and a foreign one answer alike."""
    session_id = web_sessions.session_id_of(header)
    if session_id is not None:  # a web page's session: its key, as a reader at most, in the
        # organization it was opened for only (a call naming none acts there)
        key_hash, opened_for = web_sessions.opened_with(session_id)
        if org_name and org_name != opened_for:
            raise _foreign(org_name)
        caller = _authenticate_key(key_hash, opened_for)
        return dataclasses.replace(caller, privilege=min(caller.privilege, READER))
    return _authenticate_key(hash_key(key_from_authorization(header)), org_name)


def _authenticate_key(key_hash: str, org_name: str | None) -> Caller:
    rows = _AUTHENTICATION.rows(org_name=org_name or "", key_hash=key_hash)
    row = rows[0] if rows else None
    if row is None:
        return _authenticate_service_account(key_hash, org_name)
    if row[0] is not None and row[0] < now():
        raise Unauthenticated("Invalid API key", reason="API_KEY_INVALID")
    user = instance_of(User, dict(zip(_USER_COLUMNS, row[1:5], strict=True)))
    if not org_name:
        return Caller(user=user)
    org_values = dict(zip(_ORG_COLUMNS, row[6:], strict=True))
    if org_values["id"] is None:
        raise _foreign(org_name)
    return Caller(user=user, organization=_organization(org_values),
                  privilege=service_accounts.privilege_level(row[5]))


def _foreign(org_name: str) -> PermissionDenied:
    """The refusal of a key (or session) in an organization it may not act in; an unknown
    organization answers alike."""
    return PermissionDenied(f"You do not have access to organization '{org_name}'",
                            reason="ORGANIZATION_ACCESS_DENIED", metadata={"organization": org_name})


def _organization(values: dict[str, Any]) -> Organization:
    values["features"] = Organization.features.python_value(values["features"])
    values["experimental_features_enabled"] = bool(values["experimental_features_enabled"])
    return instance_of(Organization, values)


def _service_account_key_query(key_hash: str) -> peewee.SelectQuery:
    """Key -> service account -> its organization, in one statement."""
    return (ServiceAccountKey.select(ServiceAccountKey.id, ServiceAccountKey.expires_at,
                                     ServiceAccountKey.last_used_at, ServiceAccount.name,
                                     ServiceAccount.privilege,
                                     *[getattr(Organization, c) for c in _ORG_COLUMNS])
            .join(ServiceAccount).join(Organization)
            .where((ServiceAccountKey.key_hash == key_hash)
                   & (ServiceAccountKey.revoked == False))  # noqa: E712
            .limit(1))


_SERVICE_ACCOUNT_KEY = Prepared(_service_account_key_query, key_hash=str)


def _authenticate_service_account(key_hash: str, org_name: str | None) -> Caller:
    """A service account's key acts in its own organization only, with the account's
    privilege; the account stands in as the caller's user (its name is the author)."""
    rows = _SERVICE_ACCOUNT_KEY.rows(key_hash=key_hash)
    row = rows[0] if rows else None
    if row is None or (row[1] and row[1] < now()):
        raise Unauthenticated("Invalid API key", reason="API_KEY_INVALID")
    key_id, _, last_used_at, account_name, privilege = row[:5]
    org = _organization(dict(zip(_ORG_COLUMNS, row[5:], strict=True)))
    if org_name and org_name != org.name:
        raise _foreign(org_name)
    _note_use(key_id, key_hash, last_used_at)
    return Caller(user=User(name=account_name, default_org=org.name), organization=org,
                  privilege=service_accounts.privilege_level(privilege), service_account=True)


LAST_USED_RESOLUTION = 60.0  # seconds: last_used_at is written at most once a minute per key
_last_written: dict[str, float] = {}  # key hash -> when this process last wrote its use


def _note_use(key_id: int, key_hash: str, last_used_at: float | None) -> None:
    """Keep `last_used_at` to the minute without a write on every request: skip while the
    stored value (or this process's last write) is recent. A failed write (a busy database)
    costs the request nothing."""
    stamp = now()
    recent = max(last_used_at or 0.0, _last_written.get(key_hash, 0.0))
    if stamp - recent < LAST_USED_RESOLUTION:
        return
    if len(_last_written) > 100_000:
        _last_written.clear()
    _last_written[key_hash] = stamp
    try:
        ServiceAccountKey.update(last_used_at=stamp).where(
            ServiceAccountKey.id == key_id).execute()
    except peewee.OperationalError:
        log.warning("could not record the use of an API key; it is recorded next time")


def organization_view(org: Organization) -> views.Organization:
    return {
        "name": org.name,
        "kind": org.kind,
        "experimental_features_enabled": org.experimental_features_enabled,
        "created_at": org.created_at,
        "last_modified_at": org.last_modified_at,
        "features": list(org.features or []),
    }


def set_experimental_features(org: Organization, enabled: bool) -> None:
    Organization.update(experimental_features_enabled=enabled, last_modified_at=now()).where(
        Organization.id == org.id).execute()


def default_organization(user: User) -> str:
    return user.default_org or ""


def set_default_organization(user: User, org: Organization) -> None:
    User.update(default_org=org.name).where(User.id == user.id).execute()


def organization_has_feature(org: Organization, feature: str) -> bool:
    return feature in (org.features or [])


MIN_KEY_LENGTH = 20


def _check_key(field: str, secret: Any) -> None:
    """An API key is a string long enough not to be guessed."""
    if not isinstance(secret, str) or len(secret) < MIN_KEY_LENGTH:
        problem = (f"is {len(secret)} characters long" if isinstance(secret, str)
                   else "is not a string")
        raise InvalidArgument(f"API keys must be strings of at least {MIN_KEY_LENGTH} characters "
                              "(e.g. `openssl rand -hex 32`)", {field: problem})


def _membership_of(field: str, membership: Any) -> tuple[str, str]:
    """(organization, role) of a user's membership: an organization's name (an admin) or
    {"name": ..., "role": admin|member|snapshotter|reader}."""
    if isinstance(membership, str):
        return membership, "admin"
    if not isinstance(membership, dict) or not isinstance(membership.get("name"), str):
        raise InvalidArgument("A membership is an organization's name or {name, role}",
                              {field: "is neither"})
    return (membership["name"],
            service_accounts.check_privilege(f"{field}.role", membership.get("role", "admin")))


def _check_new_user_name(field: str, name: str) -> None:
    """A new user's name must not read as an existing user's (but for case or Unicode form);
    users already there keep their names, clashing or not (history is immutable)."""
    if User.select().where(User.name == name).exists():
        return
    existing = reads_as(name, User.select(User.name).scalars())
    if existing is not None:
        raise already_exists("user", f"User '{existing}' has this name but for case or Unicode "
                             "form", {field: f"Reads as user '{existing}': names differ in more "
                                             "than case or Unicode form"}, user=existing)


def bootstrap(spec: dict[str, Any]) -> dict[str, int]:
    """Create organizations, users, memberships (with their roles) and personal keys; running
    it again changes nothing that is already there (features and roles are brought up to
    date)."""
    if not isinstance(spec, dict):
        raise InvalidArgument("bootstrap file must hold a JSON/YAML object")
    counts = {"organizations": 0, "users": 0, "api_keys": 0}
    with write_transaction():
        stamp = now()
        orgs: dict[str, Organization] = {}
        for entry in spec.get("organizations", []):
            name = check_name("organizations.name", entry["name"])
            features = sorted(set(entry.get("features", [])))
            org, created = Organization.get_or_create(
                name=name, defaults={"features": features, "created_at": stamp,
                                     "last_modified_at": stamp})
            if not created and org.features != features:
                org.features = features
                org.last_modified_at = stamp
                org.save()
            counts["organizations"] += created
            orgs[name] = org
        for user_number, entry in enumerate(spec.get("users", [])):
            name = check_name("users.name", entry["name"])
            _check_new_user_name(f"users[{user_number}].name", name)
            user, created = User.get_or_create(name=name, defaults={"created_at": stamp})
            counts["users"] += created
            for membership_number, membership in enumerate(entry.get("organizations", [])):
                org_name, role = _membership_of(f"users[{user_number}].organizations"
                                                f"[{membership_number}]", membership)
                org = orgs.get(org_name) or Organization.get_or_none(Organization.name == org_name)
                if org is None:
                    raise not_found("organization", f"Organization '{org_name}' is not in the "
                                    "bootstrap file nor in the database", organization=org_name)
                account = service_accounts.named_in(org, user.name)
                if account is not None and not Membership.select().where(
                        (Membership.user == user) & (Membership.organization == org)).exists():
                    raise already_exists(
                        "service_account",
                        f"Organization '{org_name}' has a service account named '{account}'",
                        {f"users[{user_number}].name": f"A service account of '{org_name}' has "
                                                       "this name (but for case or Unicode "
                                                       "form): a member's cannot"})
                row, created = Membership.get_or_create(user=user, organization=org,
                                                        defaults={"role": role})
                if not created and row.role != role:
                    Membership.update(role=role).where(Membership.id == row.id).execute()
                if user.default_org is None:
                    user.default_org = org_name
                    user.save()
            for key_number, key in enumerate(entry.get("api_keys", [])):
                secret = key["key"] if isinstance(key, dict) else key
                _check_key(f"users[{user_number}].api_keys[{key_number}]", secret)
                _, created = ApiKey.get_or_create(
                    key_hash=hash_key(secret),
                    defaults={"user": user, "created_at": stamp,
                              "description": key.get("description", "") if isinstance(key, dict) else ""})
                counts["api_keys"] += created
    return counts
