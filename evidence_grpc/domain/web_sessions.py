"""Server-side sessions of the web pages (docs/operator.md, "Web sessions").

The browser's `evidence_session` cookie holds a random id and nothing else; the database keeps
its SHA-256, the SHA-256 of the API key the visitor signed in with and the organization. A
page calls the servicers with `authorization: Session <id>`, which the auth interceptor
resolves here to that key's hash and then authenticates like any key: a revoked or expired key,
or a lost membership, ends the session at the next request. A session acts at most as a
reader (the pages only read). It also ends by sign-out (its row is deleted), after
`IDLE_SECONDS` without a request, `ABSOLUTE_SECONDS` after sign-in, and when its key is
revoked (`end_for_key`)."""

from __future__ import annotations

import hashlib
import logging

import peewee

from ..storage.db import now, write_transaction
from ..storage.models import Organization, WebSession
from .errors import Unauthenticated

log = logging.getLogger(__name__)

IDLE_SECONDS = 12 * 3600
ABSOLUTE_SECONDS = 7 * 86400
LAST_SEEN_RESOLUTION = 60.0  # seconds: last_seen_at is written at most once a minute
SESSION_SCHEME = "session"  # `authorization: Session <id>`
# Metadata of the calls the web pages make to open a session (on the sign-in check, with the
# key: recorded once the call succeeded) and to end one (the call does nothing else).
OPEN_METADATA = "x-evidence-session-open"
END_METADATA = "x-evidence-session-end"
MIN_ID_LENGTH = 32


def hash_id(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def session_id_of(header: str | None) -> str | None:
    """The session id of a `Session <id>` authorization header, or None for any other."""
    scheme, _, value = (header or "").strip().partition(" ")
    return value.strip() if scheme.lower() == SESSION_SCHEME else None


def open_session(session_id: str, key_hash: str, org_name: str) -> None:
    """Record a session opened with the key of that hash in that organization (after the key
    was authenticated there). Sessions past their time are swept out on the way."""
    if len(session_id) < MIN_ID_LENGTH:
        raise Unauthenticated("A session id is too short")
    org = Organization.get_or_none(Organization.name == org_name)
    if org is None:
        raise Unauthenticated("Invalid session")
    stamp = now()
    with write_transaction():
        _sweep(stamp)
        WebSession.insert(id_hash=hash_id(session_id), key_hash=key_hash, organization=org.id,
                          created_at=stamp, last_seen_at=stamp).execute()


def end_session(session_id: str) -> None:
    """Sign-out: the session is gone for every copy of its cookie."""
    with write_transaction():
        WebSession.delete().where(WebSession.id_hash == hash_id(session_id)).execute()


def end_for_key(key_hash: str) -> int:
    """End every session opened with that key (its revocation); how many there were."""
    return WebSession.delete().where(WebSession.key_hash == key_hash).execute()


def key_hash_of(session_id: str) -> str:
    """The hash of the key a live session was opened with; Unauthenticated for an unknown,
    idle or too old one (which is deleted). Notes the session's use, at most once a minute."""
    found = WebSession.get_or_none(WebSession.id_hash == hash_id(session_id))
    stamp = now()
    if found is None:
        raise Unauthenticated("The session ended: sign in again")
    if stamp - found.last_seen_at > IDLE_SECONDS or stamp - found.created_at > ABSOLUTE_SECONDS:
        try:
            WebSession.delete().where(WebSession.id == found.id).execute()
        except peewee.OperationalError:
            log.warning("could not delete an expired web session; it is swept later")
        raise Unauthenticated("The session expired: sign in again")
    if stamp - found.last_seen_at >= LAST_SEEN_RESOLUTION:
        try:
            WebSession.update(last_seen_at=stamp).where(WebSession.id == found.id).execute()
        except peewee.OperationalError:  # a busy database: recorded at the next request
            log.warning("could not record the use of a web session")
    return found.key_hash


def _sweep(stamp: float) -> None:
    WebSession.delete().where((WebSession.last_seen_at < stamp - IDLE_SECONDS)
                              | (WebSession.created_at < stamp - ABSOLUTE_SECONDS)).execute()
