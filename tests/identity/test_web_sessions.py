"""Server-side sessions of the web pages (issue 31): the cookie holds a random id and no key
material; sign-out, the key's revocation or expiry, a lost membership, the session's own idle
and absolute limits and an admin of its organization (/api/v2/organizations/{org}/sessions, on
both doors) end it for every copy of the cookie (both engines)."""

from __future__ import annotations

import base64
import binascii
import hashlib

import grpc
import peewee
import pytest

from evidence_grpc.api.v2 import organization_service_pb2 as org_pb
from evidence_grpc.api.v2 import organization_service_pb2_grpc as org_grpc
from evidence_grpc.config import Settings
from evidence_grpc.domain.identity import web_sessions
from evidence_grpc.storage.models import ApiKey, Membership, MembershipAuditEvent, User, WebSession
from tests.conftest import ALICE_KEY, BOB_KEY, ROLE_KEYS, bearer, grpc_channel
from tests.helpers import BASE, create_account, csrf_of, details_of, mint, sign_in

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


# ---- an admin's view: /api/v2/organizations/{org}/sessions --------------------------------------

SESSIONS = "/api/v2/organizations/acme/sessions"


def _browser(client, key: str = ALICE_KEY, org: str = "acme"):
    """A new browser signed in with that key."""
    browser = client.application.test_client()
    assert sign_in(browser, key=key, org=org).status_code == 302
    assert browser.get(f"/{org}").status_code == 200
    return browser


def _listed(client) -> list[dict]:
    answer = client.get(SESSIONS, headers=H)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def _newest() -> peewee.Expression:
    """The last session opened."""
    return WebSession.id == WebSession.select(peewee.fn.MAX(WebSession.id)).scalar()


def _id_of(client, actor: str) -> str:
    [found] = [s["id"] for s in _listed(client) if s["actor"] == actor]
    return found


def test_an_admin_lists_the_live_sessions_with_who_opened_them(client):
    create_account(client, "viewer", privilege="reader")
    _browser(client)
    _browser(client, ROLE_KEYS["reader"])
    _browser(client, mint(client, "viewer")["key"])
    _browser(client, BOB_KEY, org="other")  # another organization's
    idle = _browser(client, ROLE_KEYS["member"])
    WebSession.update(last_seen_at=WebSession.last_seen_at - web_sessions.IDLE_SECONDS - 60
                      ).where(_newest()).execute()
    listed = _listed(client)
    assert [(s["actor"], s["actor_type"]) for s in listed] == [
        ("alice", "user"), ("rita", "user"), ("viewer", "service_account")]
    rows = {str(row.id): row for row in WebSession.select()}  # the handle: the row's number
    for session in listed:
        assert set(session) == {"id", "actor", "actor_type", "created_at", "last_seen_at",
                                "expires_at"}
        row = rows[session["id"]]
        assert (session["created_at"], session["last_seen_at"]) == (row.created_at,
                                                                   row.last_seen_at)
        assert session["expires_at"] == pytest.approx(min(
            row.last_seen_at + web_sessions.IDLE_SECONDS,
            row.created_at + web_sessions.ABSOLUTE_SECONDS))
    text = client.get(SESSIONS, headers=H).get_data(as_text=True)
    for row in rows.values():  # neither hash is ever shown
        assert row.id_hash not in text and row.key_hash not in text
    assert idle.get("/acme").status_code == 302  # the idle one, not listed, had ended


def test_a_session_too_old_is_not_listed_and_expires_at_is_its_absolute_end(client):
    _browser(client)
    WebSession.update(created_at=WebSession.created_at - web_sessions.ABSOLUTE_SECONDS + 3600
                      ).execute()
    [session] = _listed(client)
    assert session["expires_at"] == pytest.approx(session["created_at"]
                                                  + web_sessions.ABSOLUTE_SECONDS)
    WebSession.update(created_at=WebSession.created_at - 7200).execute()
    assert _listed(client) == []


def test_ending_one_session_stops_its_cookie_at_once_and_leaves_the_others(client):
    mine = _browser(client)
    ritas = _browser(client, ROLE_KEYS["reader"])
    copied = _copy(ritas, _session_cookie(ritas))
    assert copied.get("/acme").status_code == 200
    session_id = _id_of(client, "rita")
    ended = client.delete(f"{SESSIONS}/{session_id}", headers=H)
    assert (ended.status_code, ended.get_json()) == (200, "ended")
    assert ritas.get("/acme").status_code == 302 and copied.get("/acme").status_code == 302
    assert mine.get("/acme").status_code == 200
    assert [s["actor"] for s in _listed(client)] == ["alice"]
    again = client.delete(f"{SESSIONS}/{session_id}", headers=H)
    assert again.status_code == 404
    assert set(again.get_json()) == {"message", "errors"} and "id" in again.get_json()["errors"]
    # the membership audit log records who ended whose session
    log = client.get("/api/v2/membership-audit-log/acme?event_type=sessions_ended",
                     headers=H).get_json()
    [event] = log["events"]
    assert (event["actor"], event["actor_type"], event["subject"]) == ("alice", "user", "rita")
    assert event["details"] == {"subject_type": "user", "count": 1, "session_ids": [session_id]}


def test_ending_all_sessions_or_one_actors(client):
    create_account(client, "viewer", privilege="reader")
    robot = _browser(client, mint(client, "viewer")["key"])
    alices = [_browser(client), _browser(client)]
    rita = _browser(client, ROLE_KEYS["reader"])
    bob = _browser(client, BOB_KEY, org="other")

    answer = client.delete(f"{SESSIONS}?actor=alice", headers=H)
    assert (answer.status_code, answer.get_json()) == (200, {"ended": 2})
    assert [b.get("/acme").status_code for b in alices] == [302, 302]
    assert rita.get("/acme").status_code == 200 and robot.get("/acme").status_code == 200
    assert client.delete(f"{SESSIONS}?actor=alice", headers=H).get_json() == {"ended": 0}
    assert client.delete(f"{SESSIONS}?actor=nobody", headers=H).get_json() == {"ended": 0}
    assert client.delete(f"{SESSIONS}?actor=viewer", headers=H).get_json() == {"ended": 1}
    assert robot.get("/acme").status_code == 302 and rita.get("/acme").status_code == 200
    blank = client.delete(f"{SESSIONS}?actor=", headers=H)  # never "everyone's"
    assert blank.status_code == 400 and "actor" in blank.get_json()["errors"]
    assert rita.get("/acme").status_code == 200

    # an expired row goes too, but only live sessions count
    _browser(client, ROLE_KEYS["member"])
    WebSession.update(created_at=WebSession.created_at - web_sessions.ABSOLUTE_SECONDS - 60
                      ).where(_newest()).execute()
    everyone = client.delete(SESSIONS, headers=H)
    assert (everyone.status_code, everyone.get_json()) == (200, {"ended": 1})
    assert rita.get("/acme").status_code == 302
    assert [row.organization.name for row in WebSession.select()] == ["other"]
    assert bob.get("/other").status_code == 200  # another organization's stays
    events = (MembershipAuditEvent.select().where(MembershipAuditEvent.event_type
                                                  == "sessions_ended")
              .order_by(MembershipAuditEvent.id))
    assert [(e.subject, e.details["subject_type"], e.details["count"]) for e in events] == [
        ("alice", "user", 2), ("viewer", "service_account", 1), ("rita", "user", 1)]


@pytest.mark.parametrize("role", ["reader", "snapshotter", "member"])
def test_only_admins_see_or_end_sessions(client, role: str):
    _browser(client)
    session_id = _id_of(client, "alice")
    headers = bearer(ROLE_KEYS[role])
    assert client.get(SESSIONS, headers=headers).status_code == 403
    assert client.delete(f"{SESSIONS}/{session_id}", headers=headers).status_code == 403
    assert client.delete(SESSIONS, headers=headers).status_code == 403
    assert client.get(SESSIONS, headers=bearer(BOB_KEY)).status_code == 403  # not a member
    assert client.get(SESSIONS).status_code == 401
    assert len(_listed(client)) == 1


def test_a_session_cannot_end_sessions_even_an_admins(client):
    browser = _browser(client)
    headers = {"Authorization": f"Session {_session_cookie(browser)}"}  # acts as a reader
    assert client.get(SESSIONS, headers=headers).status_code == 403
    assert client.delete(SESSIONS, headers=headers).status_code == 403
    assert browser.get("/acme").status_code == 200


def test_another_organizations_session_and_bad_ids_are_404_or_400(client):
    bob = _browser(client, BOB_KEY, org="other")
    [bobs] = [row.id for row in WebSession.select()]
    mine = _browser(client)
    assert client.delete(f"{SESSIONS}/{bobs}", headers=H).status_code == 404
    assert bob.get("/other").status_code == 200
    for bad in ("0", "00", "9223372036854775807", str(bobs + 1000)):
        answer = client.delete(f"{SESSIONS}/{bad}", headers=H)
        assert answer.status_code == 404, bad
        assert set(answer.get_json()) == {"message", "errors"}
    for bad in ("abc", "-1", "+1", "%201", "1.5", "1e3", "9223372036854775808",
                "99999999999999999999", "9" * 5000, "%C2%B2", "%D9%A1", "%00"):
        answer = client.delete(f"{SESSIONS}/{bad}", headers=H)
        assert answer.status_code == 400, bad
        assert set(answer.get_json()) == {"message", "errors"} and "id" in answer.get_json()[
            "errors"], bad
    # an idle session is no longer one to end
    WebSession.update(last_seen_at=WebSession.last_seen_at - web_sessions.IDLE_SECONDS - 60
                      ).where(WebSession.id != bobs).execute()
    assert client.delete(f"{SESSIONS}/{_only_acme_row(bobs)}", headers=H).status_code == 404
    assert mine.get("/acme").status_code == 302 and bob.get("/other").status_code == 200


def _only_acme_row(other: int) -> int:
    [found] = [row.id for row in WebSession.select() if row.id != other]
    return found


def test_sessions_are_seen_and_ended_through_grpc(client, db: str):
    _browser(client)
    ritas = _browser(client, ROLE_KEYS["reader"])
    admin = (("authorization", f"Bearer {ALICE_KEY}"),)
    with grpc_channel(db) as channel:
        stub = org_grpc.OrganizationServiceStub(channel)
        listed = stub.ListWebSessions(org_pb.ListWebSessionsRequest(org="acme"), metadata=admin,
                                      timeout=10).sessions
        assert [(s.actor, s.actor_type) for s in listed] == [("alice", "user"), ("rita", "user")]
        assert all(s.expires_at > s.last_seen_at >= s.created_at > 0 for s in listed)
        rita_id = [s.id for s in listed if s.actor == "rita"][0]
        ended = stub.EndWebSession(org_pb.EndWebSessionRequest(org="acme", id=rita_id),
                                   metadata=admin, timeout=10)
        assert ended.message == "ended"
        assert ritas.get("/acme").status_code == 302  # at once
        for session_id, code in ((rita_id, "NOT_FOUND"), ("0", "NOT_FOUND"),
                                 (str(2**63 - 1), "NOT_FOUND"), ("", "INVALID_ARGUMENT"),
                                 ("-5", "INVALID_ARGUMENT"), (str(2**63), "INVALID_ARGUMENT"),
                                 ("x", "INVALID_ARGUMENT"), ("\u00b2", "INVALID_ARGUMENT")):
            with pytest.raises(grpc.RpcError) as refused:
                stub.EndWebSession(org_pb.EndWebSessionRequest(org="acme", id=session_id),
                                   metadata=admin, timeout=10)
            assert refused.value.code() is getattr(grpc.StatusCode, code), session_id
            assert "id" in details_of(refused.value)[1]
        reader = (("authorization", f"Bearer {ROLE_KEYS['reader']}"),)
        for call, request in ((stub.ListWebSessions, org_pb.ListWebSessionsRequest(org="acme")),
                              (stub.EndWebSessions, org_pb.EndWebSessionsRequest(org="acme"))):
            with pytest.raises(grpc.RpcError) as denied:
                call(request, metadata=reader, timeout=10)
            assert denied.value.code() is grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.RpcError) as blank:
            stub.EndWebSessions(org_pb.EndWebSessionsRequest(org="acme", actor=""),
                                metadata=admin, timeout=10)
        assert blank.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert stub.EndWebSessions(org_pb.EndWebSessionsRequest(org="acme"), metadata=admin,
                                   timeout=10).ended == 1
        assert not stub.ListWebSessions(org_pb.ListWebSessionsRequest(org="acme"),
                                        metadata=admin, timeout=10).sessions


# ---- one organization per session; ids the server makes (issue 47, items 1 and 2) ------------

def _list_flows(channel, org: str, metadata: tuple) -> tuple:
    """ListFlows over network gRPC: (the answer's code, its trailing metadata)."""
    from evidence_grpc.api.v2 import flow_service_pb2 as flow_pb
    from evidence_grpc.api.v2 import flow_service_pb2_grpc as flow_grpc

    try:
        _, call = flow_grpc.FlowServiceStub(channel).ListFlows.with_call(
            flow_pb.ListFlowsRequest(org=org), metadata=metadata, timeout=10)
    except grpc.RpcError as error:
        return error.code(), ()
    return grpc.StatusCode.OK, tuple(call.trailing_metadata() or ())


def test_a_session_acts_only_in_the_organization_it_was_opened_for(client, db: str):
    """alice is a member of acme and acme-shared: signed in to acme-shared, her session reads
    nothing of acme's (a page, the API with `Authorization: Session`, network gRPC), and acme's
    admin neither lists nor ends it."""
    shared = _browser(client, org="acme-shared")
    value = _session_cookie(shared)
    assert shared.get("/acme").status_code == 403
    as_session = {"Authorization": f"Session {value}"}
    refused = client.get("/api/v2/flows/acme", headers=as_session)
    assert (refused.status_code, refused.get_json()) == (
        403, {"message": "Access denied to /api/v2/flows/acme"})  # as a foreign key's
    assert client.get("/api/v2/flows/acme-shared", headers=as_session).status_code == 200
    assert _listed(client) == []
    assert client.delete(SESSIONS, headers=H).get_json()["ended"] == 0
    assert shared.get("/acme-shared").status_code == 200
    session = (("authorization", f"Session {value}"),)
    with grpc_channel(db) as channel:
        assert _list_flows(channel, "acme", session)[0] is grpc.StatusCode.PERMISSION_DENIED
        assert _list_flows(channel, "acme-shared", session)[0] is grpc.StatusCode.OK


def test_only_the_server_makes_session_ids_and_only_a_session_ends_itself(client, db: str):
    """Network gRPC metadata opens a session with an id the server makes (answered in the
    trailing metadata), never the one the caller sent; `x-evidence-session-end` ends a session
    only on a call authenticated by it. The sign-in form ignores a cookie planted before."""
    chosen = "fixated-session-id-0123456789abcdef"
    with grpc_channel(db) as channel:
        code, trailing = _list_flows(channel, "acme", (
            ("authorization", f"Bearer {ALICE_KEY}"), (web_sessions.OPEN_METADATA, chosen)))
        assert code is grpc.StatusCode.OK
        made = dict(trailing)[web_sessions.ID_METADATA]
        assert made != chosen and len(made) >= web_sessions.MIN_ID_LENGTH
        assert _list_flows(channel, "acme", (("authorization", f"Session {chosen}"),))[0] \
            is grpc.StatusCode.UNAUTHENTICATED
        session = (("authorization", f"Session {made}"),)
        assert _list_flows(channel, "acme", session)[0] is grpc.StatusCode.OK
        for ending in ((), (("authorization", f"Bearer {ALICE_KEY}"),)):
            assert _list_flows(channel, "acme", (*ending, (web_sessions.END_METADATA, made))
                               )[0] is grpc.StatusCode.UNAUTHENTICATED
            assert _list_flows(channel, "acme", session)[0] is grpc.StatusCode.OK
        assert _list_flows(channel, "acme", (*session, (web_sessions.END_METADATA, "1")))[0] \
            is grpc.StatusCode.UNAUTHENTICATED
        assert _list_flows(channel, "acme", session)[0] is grpc.StatusCode.UNAUTHENTICATED
    browser = client.application.test_client()
    browser.set_cookie("evidence_session", chosen)
    assert sign_in(browser).status_code == 302
    assert _session_cookie(browser) != chosen
    assert _copy(browser, chosen).get("/acme").status_code == 302
    assert WebSession.select().where(WebSession.id_hash == web_sessions.hash_id(chosen)).count() == 0
