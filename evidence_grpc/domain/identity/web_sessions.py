"""Server-side sessions of the web pages (docs/operator.md, "Web sessions").

The browser's `evidence_session` cookie holds a random id and nothing else; the database keeps
its SHA-256, the SHA-256 of the API key the visitor signed in with and the organization. A
page calls the servicers with `authorization: Session <id>`, which the auth interceptor
resolves here to that key's hash and the session's organization, and then authenticates like
any key in that organization only (a call naming another one is refused as a foreign key's
is): a revoked or expired key, or a lost membership, ends the session at the next request. A
session acts at most as a reader (the pages only read). Its id is made here, never by a
client (no session fixation). It also ends by sign-out (its row is deleted), after
`IDLE_SECONDS` without a request, `ABSOLUTE_SECONDS` after sign-in, and when its key is
revoked (`end_for_key`), and when an admin of its organization ends it (`end_one`,
`end_all`: OrganizationService, /api/v2/organizations/{org}/sessions), which the membership
audit log records."""

from __future__ import annotations

import hashlib
import logging
import secrets
from typing import Any

import peewee

from ...api.v2 import views
from ...storage.db import now, write_transaction
from ...storage.models import (
    ApiKey,
    MembershipAuditEvent,
    Organization,
    ServiceAccount,
    ServiceAccountKey,
    User,
    WebSession,
)
from ..kernel import list_sizes
from ..kernel.errors import NotFound, Unauthenticated, validation_error
from ..kernel.numbers import as_whole_number
from .callers import current_actor_type

log = logging.getLogger(__name__)

IDLE_SECONDS = 12 * 3600
ABSOLUTE_SECONDS = 7 * 86400
LAST_SEEN_RESOLUTION = 60.0  # seconds: last_seen_at is written at most once a minute
SESSION_SCHEME = "session"  # `authorization: Session <id>`
# Metadata of the calls the web pages make to open a session (on the sign-in check, with the
# key: opened once the call succeeded, its new id answered in the trailing metadata
# ID_METADATA) and to end one (with the session's own `authorization`: the call does nothing
# else).
OPEN_METADATA = "x-evidence-session-open"
ID_METADATA = "x-evidence-session-id"
END_METADATA = "x-evidence-session-end"
MIN_ID_LENGTH = 32
ID_BYTES = 32  # of randomness in an id the server makes (43 characters of base64url)


def hash_id(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def session_id_of(header: str | None) -> str | None:
    """The session id of a `Session <id>` authorization header, or None for any other."""
    scheme, _, value = (header or "").strip().partition(" ")
    return value.strip() if scheme.lower() == SESSION_SCHEME else None


def open_session(key_hash: str, org_name: str) -> str:
    """Open a session with the key of that hash in that organization (after the key was
    authenticated there): its new random id. Sessions past their time are swept out on the
    way."""
    org = Organization.get_or_none(Organization.name == org_name)
    if org is None:
        raise Unauthenticated("Invalid session", reason="SESSION_INVALID")
    session_id = secrets.token_urlsafe(ID_BYTES)
    stamp = now()
    with write_transaction():
        _sweep(stamp)
        WebSession.insert(id_hash=hash_id(session_id), key_hash=key_hash, organization=org.id,
                          created_at=stamp, last_seen_at=stamp).execute()
    return session_id


def end_session(session_id: str) -> None:
    """Sign-out: the session is gone for every copy of its cookie."""
    with write_transaction():
        WebSession.delete().where(WebSession.id_hash == hash_id(session_id)).execute()


def end_for_key(key_hash: str) -> int:
    """End every session opened with that key (its revocation); how many there were."""
    return WebSession.delete().where(WebSession.key_hash == key_hash).execute()


def opened_with(session_id: str) -> tuple[str, str]:
    """The hash of the key a live session was opened with and the name of the organization it
    was opened for; Unauthenticated for an unknown, idle or too old one (which is deleted).
    Notes the session's use, at most once a minute."""
    found = (WebSession.select(WebSession, Organization.name).join(Organization)
             .where(WebSession.id_hash == hash_id(session_id)).first())
    stamp = now()
    if found is None:
        raise Unauthenticated("The session ended: sign in again", reason="SESSION_ENDED")
    if stamp - found.last_seen_at > IDLE_SECONDS or stamp - found.created_at > ABSOLUTE_SECONDS:
        try:
            WebSession.delete().where(WebSession.id == found.id).execute()
        except peewee.OperationalError:
            log.warning("could not delete an expired web session; it is swept later")
        raise Unauthenticated("The session expired: sign in again", reason="SESSION_EXPIRED")
    if stamp - found.last_seen_at >= LAST_SEEN_RESOLUTION:
        try:
            WebSession.update(last_seen_at=stamp).where(WebSession.id == found.id).execute()
        except peewee.OperationalError:  # a busy database: recorded at the next request
            log.warning("could not record the use of a web session")
    return found.key_hash, found.organization.name


def _sweep(stamp: float) -> None:
    WebSession.delete().where((WebSession.last_seen_at < stamp - IDLE_SECONDS)
                              | (WebSession.created_at < stamp - ABSOLUTE_SECONDS)).execute()


# ---- an admin's view ---------------------------------------------------------------------------

ENDED_EVENT = "sessions_ended"  # the membership audit log's event of an admin ending sessions


def _live_rows(org: Organization, stamp: float, *, actor: str | None = None,
               row_id: int | None = None) -> list[dict[str, Any]]:
    """The organization's live sessions (within IDLE_SECONDS of their last use and
    ABSOLUTE_SECONDS of sign-in) whose key is a user's or one of the organization's service
    accounts' (however that key stands now: `authenticate` judges it at every request), with
    who opened them, oldest first; of one actor or one row only when given."""
    live = ((WebSession.organization == org.id)
            & (WebSession.last_seen_at >= stamp - IDLE_SECONDS)
            & (WebSession.created_at >= stamp - ABSOLUTE_SECONDS))
    if row_id is not None:
        live &= WebSession.id == row_id
    columns = (WebSession.id, WebSession.created_at, WebSession.last_seen_at)
    users = (WebSession.select(*columns, User.name)
             .join(ApiKey, on=ApiKey.key_hash == WebSession.key_hash)
             .join(User, on=User.id == ApiKey.user)
             .where(live if actor is None else live & (User.name == actor)))
    accounts = (WebSession.select(*columns, ServiceAccount.name)
                .join(ServiceAccountKey, on=ServiceAccountKey.key_hash == WebSession.key_hash)
                .join(ServiceAccount, on=(ServiceAccount.id == ServiceAccountKey.service_account)
                      & (ServiceAccount.organization == WebSession.organization))
                .where(live if actor is None else live & (ServiceAccount.name == actor)))
    found = [{"id": row[0], "created_at": row[1], "last_seen_at": row[2], "actor": row[3],
              "actor_type": actor_type}
             for query, actor_type in ((users, "user"), (accounts, "service_account"))
             for row in query.tuples()]
    return sorted(found, key=lambda s: (s["created_at"], s["id"]))


def session_view(session: dict[str, Any]) -> views.WebSession:
    """A session as an admin sees it: its row's number as its handle (text, as API keys'
    handles are), never its id's or key's hash."""
    return {"id": str(session["id"]), "created_at": session["created_at"],
            "last_seen_at": session["last_seen_at"], "actor": session["actor"],
            "actor_type": session["actor_type"],
            "expires_at": min(session["last_seen_at"] + IDLE_SECONDS,
                              session["created_at"] + ABSOLUTE_SECONDS)}


MAX_ROW_ID = 2**63 - 1


def row_id_of(handle: str) -> int:
    """The row number a session's handle names; InvalidArgument for text that is no handle."""
    row_id = as_whole_number(handle, MAX_ROW_ID)
    if row_id is None:
        raise validation_error("id", "Input should be a session id as listed (a decimal "
                                     "number)")
    return row_id


def list_live(org: Organization) -> list[views.WebSession]:
    return [session_view(s) for s in _live_rows(org, now())]


def _record_ended(org: Organization, by: str, ended: list[dict[str, Any]]) -> None:
    """One `sessions_ended` event per actor whose sessions ended (their subject)."""
    stamp = now()
    whose: dict[tuple[str, str], list[str]] = {}
    for session in ended:  # the sessions by their handles, as listed
        whose.setdefault((session["actor"], session["actor_type"]), []).append(
            str(session["id"]))
    for (subject, subject_type), ids in sorted(whose.items()):
        event = MembershipAuditEvent.create(
            organization=org, event_type=ENDED_EVENT, timestamp=stamp, actor=by,
            actor_type=current_actor_type(), subject=subject,
            details={"subject_type": subject_type, "count": len(ids), "session_ids": ids})
        list_sizes.added(event.id, (list_sizes.AUDIT_EVENTS_OF_ORGANIZATION, org.id))


def end_one(org: Organization, by: str, handle: str) -> dict[str, Any]:
    """An admin (`by`) ends one live session of the organization by its handle (`id` as
    listed): every copy of its cookie opens nothing from now on. NotFound for any other
    session (another organization's, an ended or expired one)."""
    row_id = row_id_of(handle)
    found = _live_rows(org, now(), row_id=row_id)
    # a concurrent sign-out or end may have deleted it since: then it was not ended here
    if not found or not WebSession.delete().where(WebSession.id == row_id).execute():
        raise NotFound("Session not found", {"id": f"No live web session '{handle}' in "
                                                   f"organization '{org.name}'"},
                       reason="SESSION_NOT_FOUND", metadata={"organization": org.name, "id": handle})
    _record_ended(org, by, found)
    return found[0]


def _keys_of(org: Organization, actor: str) -> peewee.Expression:
    """WebSession rows opened with any key, however it stands, of that user or of the
    organization's service account of that name."""
    personal = ApiKey.select(ApiKey.key_hash).join(User).where(User.name == actor)
    machine = (ServiceAccountKey.select(ServiceAccountKey.key_hash).join(ServiceAccount)
               .where((ServiceAccount.organization == org.id) & (ServiceAccount.name == actor)))
    return (WebSession.key_hash << personal) | (WebSession.key_hash << machine)


def end_all(org: Organization, by: str, actor: str | None = None) -> int:
    """An admin (`by`) ends every session of the organization, or every one `actor` (a user's or
    service account's name) opened in it; how many live ones ended. Rows of sessions that had
    already ended (idle, too old) go too."""
    if actor is not None and not actor:  # `?actor=` must not end everyone's
        raise validation_error("actor", "String should have at least 1 character")
    live = _live_rows(org, now(), actor=actor)
    scope = WebSession.organization == org.id
    if actor is not None:
        scope &= _keys_of(org, actor)
    WebSession.delete().where(scope).execute()
    _record_ended(org, by, live)
    return len(live)
