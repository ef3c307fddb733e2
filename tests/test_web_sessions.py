"""Server-side sessions of the web pages (issue 31): the cookie holds a random id and no key
material; sign-out, the key's revocation or expiry, a lost membership and the session's own idle
and absolute limits end it for every copy of the cookie (both engines)."""

from __future__ import annotations

import base64
import binascii
import hashlib

import pytest

from evidence_grpc.config import Settings
from evidence_grpc.domain import web_sessions
from evidence_grpc.storage.models import ApiKey, Membership, User, WebSession
from tests.conftest import ALICE_KEY, bearer
from tests.test_service_accounts import BASE, create_account, mint
from tests.test_web import csrf_of, sign_in

H = bearer()


def _decodings(value: str) -> list[bytes]:
    """The cookie's value as it is and as every base64 reading of it (and of its dotted parts,
    as a signed Flask cookie was) gives."""
    found = [value.encode()]
    for part in [value, *value.split(".")]:
        for decode in (base64.urlsafe_b64decode, base64.b64decode):
            try:
                found.append(decode(part + "=" * (-len(part) % 4)))
            except (binascii.Error, ValueError):
                pass
    return found


def _session_cookie(client) -> str:
    cookie = client.get_cookie("evidence_session")
    assert cookie is not None
    return cookie.value


def _copy(client, value: str):
    """A second browser holding a copy of the cookie."""
    other = client.application.test_client()
    other.set_cookie("evidence_session", value)
    return other


def test_the_cookie_holds_a_random_id_and_no_key_material(client):
    signed = sign_in(client)
    assert signed.status_code == 302
    header = [h for h in signed.headers.getlist("Set-Cookie") if h.startswith("evidence_session=")]
    assert header and "HttpOnly" in header[0] and "SameSite=Lax" in header[0]
    assert "Secure" not in header[0]  # http://evidence.test
    value = _session_cookie(client)
    key_hash = hashlib.sha256(ALICE_KEY.encode()).hexdigest()
    for decoded in _decodings(value):
        assert ALICE_KEY.encode() not in decoded and key_hash.encode() not in decoded
        assert b"alice" not in decoded and b"acme" not in decoded
    [row] = WebSession.select()
    assert row.id_hash == web_sessions.hash_id(value) and row.id_hash != value
    assert row.key_hash == key_hash and row.organization.name == "acme"
    assert client.get("/acme").status_code == 200


def test_a_cookie_copied_before_sign_out_opens_nothing_after_it(client):
    sign_in(client)
    copied = _copy(client, _session_cookie(client))
    assert copied.get("/acme").status_code == 200
    token = csrf_of(client.get("/acme"))
    assert client.post("/sign-out", data={"csrf": token}).status_code == 302
    assert WebSession.select().count() == 0
    refused = copied.get("/acme")
    assert refused.status_code == 302 and refused.headers["Location"].startswith("/sign-in")
    assert client.get("/acme").status_code == 302


def test_signing_in_again_ends_the_session_before(client):
    sign_in(client)
    first = _session_cookie(client)
    sign_in(client)
    assert _session_cookie(client) != first
    assert _copy(client, first).get("/acme").status_code == 302
    assert WebSession.select().count() == 1


def test_revoking_a_service_account_key_ends_its_sessions(client):
    create_account(client, "viewer", privilege="reader")
    minted = mint(client, "viewer")
    assert sign_in(client, key=minted["key"]).status_code == 302
    copied = _copy(client, _session_cookie(client))
    assert client.get("/acme").status_code == 200
    assert client.delete(f"{BASE}/viewer/api-keys/{minted['id']}", headers=H).status_code == 200
    assert WebSession.select().count() == 0
    assert client.get("/acme").status_code == 302
    assert copied.get("/acme").status_code == 302


def test_a_revoked_or_expired_personal_key_and_a_lost_membership_end_the_session(client):
    sign_in(client)
    assert client.get("/acme").status_code == 200
    key = ApiKey.get(ApiKey.key_hash == hashlib.sha256(ALICE_KEY.encode()).hexdigest())
    ApiKey.update(revoked=True).where(ApiKey.id == key.id).execute()
    assert client.get("/acme").status_code == 302  # checked on every request

    ApiKey.update(revoked=False).where(ApiKey.id == key.id).execute()
    sign_in(client)
    assert client.get("/acme").status_code == 200
    ApiKey.update(expires_at=1.0).where(ApiKey.id == key.id).execute()
    assert client.get("/acme").status_code == 302

    ApiKey.update(expires_at=None).where(ApiKey.id == key.id).execute()
    sign_in(client)
    alice = User.get(User.name == "alice")
    Membership.delete().where(Membership.user == alice).execute()
    assert client.get("/acme").status_code == 403


@pytest.mark.parametrize("column, age", [
    ("last_seen_at", web_sessions.IDLE_SECONDS + 60),
    ("created_at", web_sessions.ABSOLUTE_SECONDS + 60)])
def test_an_idle_or_too_old_session_is_refused_and_deleted(client, column: str, age: int):
    sign_in(client)
    assert client.get("/acme").status_code == 200
    [row] = WebSession.select()
    WebSession.update({column: getattr(row, column) - age}).execute()
    assert client.get("/acme").status_code == 302
    assert WebSession.select().count() == 0


def test_use_keeps_a_session_alive_and_is_noted_at_most_once_a_minute(client):
    sign_in(client)
    [row] = WebSession.select()
    WebSession.update(last_seen_at=row.last_seen_at - web_sessions.IDLE_SECONDS + 600).execute()
    assert client.get("/acme").status_code == 200
    seen = WebSession.get().last_seen_at
    assert seen >= row.last_seen_at
    assert client.get("/acme").status_code == 200
    assert WebSession.get().last_seen_at == seen  # within the minute: no write


def test_a_session_reads_only_even_with_an_admins_key(client):
    """A session id sent as a credential acts as a reader: it is no API key."""
    sign_in(client)
    value = _session_cookie(client)
    headers = {"Authorization": f"Session {value}"}
    assert client.get("/api/v2/flows/acme", headers=headers).status_code == 200
    denied = client.post("/api/v2/service-accounts/acme", headers=headers,
                         json={"name": "sneaky"})
    assert denied.status_code == 403


def test_the_csrf_token_is_bound_to_the_session(client):
    sign_in(client)
    token = csrf_of(client.get("/acme"))
    other = client.application.test_client()
    sign_in(other)
    assert other.post("/sign-out", data={"csrf": token}).status_code == 400
    assert other.get("/acme").status_code == 200


def test_cookies_are_secure_on_an_https_site(db: str):
    from rest_shim.app import create_app

    app = create_app(Settings(database_url=db, public_url="https://evidence.example"))
    secure = app.test_client()
    form = secure.get("/sign-in", base_url="https://evidence.example")
    signed = secure.post("/sign-in", data={"csrf": csrf_of(form), "org": "acme",
                                           "key": ALICE_KEY},
                         base_url="https://evidence.example")
    assert signed.status_code == 302
    cookies = signed.headers.getlist("Set-Cookie")
    assert cookies and all("Secure" in c and "HttpOnly" in c for c in cookies)


def test_sessions_work_the_same_through_a_grpc_server(server):
    """The pages of a shim that calls a gRPC server in another process (EVIDENCE_GRPC_TARGET):
    the session is opened, checked and ended there, through the same auth path."""
    import requests

    from rest_shim.app import create_app

    app = create_app(Settings(grpc_target=server.grpc_target, public_url="http://evidence.test"))
    browser = app.test_client()
    assert sign_in(browser).status_code == 302
    value = _session_cookie(browser)
    copied = _copy(browser, value)
    assert browser.get("/acme").status_code == 200 and copied.get("/acme").status_code == 200
    # the server's own pages (another process) accept the same session
    assert requests.get(f"{server.http_url}/acme", cookies={"evidence_session": value},
                        allow_redirects=False, timeout=30).status_code == 200
    assert browser.post("/sign-out", data={"csrf": csrf_of(browser.get("/acme"))}
                        ).status_code == 302
    assert copied.get("/acme").status_code == 302
    assert requests.get(f"{server.http_url}/acme", cookies={"evidence_session": value},
                        allow_redirects=False, timeout=30).status_code == 302
