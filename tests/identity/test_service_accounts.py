"""Service accounts, their API keys, the membership audit log and privileges through the REST
shim (both engines): the secret shown once and stored as a hash only, revocation, rotation
within and after the grace period, expiry, another organization's keys, and every privilege
against a read and a write."""

from __future__ import annotations

import logging
import pathlib
from typing import Any

import pytest

from evidence_grpc.api.v2 import options_pb2
from evidence_grpc.domain.identity import callers, organizations
from evidence_grpc.services import service_descriptors
from evidence_grpc.storage.db import database
from evidence_grpc.storage.models import MembershipAuditEvent, ServiceAccountKey
from tests.conftest import BOB_KEY, ROLE_KEYS, bearer
from tests.helpers import BASE, H, create_account, mint, put_policy_as


def flows_with(client, key: str, org: str = "acme") -> int:
    return client.get(f"/api/v2/flows/{org}", headers=bearer(key)).status_code


def expire(key_id: str, when: float) -> None:
    ServiceAccountKey.update(expires_at=int(when)).where(ServiceAccountKey.key_id == key_id
                                                         ).execute()


def test_create_list_get_update_and_delete_a_service_account(client):
    created = create_account(client, description="CI bot")
    assert created.status_code == 201
    assert {k: created.get_json()[k] for k in (
        "name", "description", "privilege", "created_by", "display_name", "creating_user_id",
        "for_webhook")} == {
        "name": "ci-bot", "description": "CI bot", "privilege": "member", "created_by": "alice",
        "display_name": "ci-bot", "creating_user_id": "alice", "for_webhook": False}
    assert create_account(client).status_code == 409
    assert create_account(client, "auditor", privilege=None).get_json()["privilege"] == "reader"
    assert [a["name"] for a in client.get(BASE, headers=H).get_json()] == ["auditor", "ci-bot"]

    # absent fields stay, null clears the description, a privilege replaces
    patched = client.patch(f"{BASE}/ci-bot", headers=H, json={"privilege": "admin"}).get_json()
    assert (patched["description"], patched["privilege"]) == ("CI bot", "admin")
    cleared = client.patch(f"{BASE}/ci-bot", headers=H, json={"description": None}).get_json()
    assert cleared["description"] is None and cleared["privilege"] == "admin"
    assert client.get(f"{BASE}/ci-bot", headers=H).get_json()["privilege"] == "admin"

    deleted = client.delete(f"{BASE}/ci-bot", headers=H, data="null",
                            content_type="application/json")
    assert (deleted.status_code, deleted.get_json()) == (200, "OK")
    missing = client.get(f"{BASE}/ci-bot", headers=H)
    assert (missing.status_code, missing.get_json()["message"]) == (404,
                                                                    "Service account not found")
    assert client.delete(f"{BASE}/ci-bot", headers=H).status_code == 404


@pytest.mark.parametrize("body, field", [
    ({"name": "has space"}, "name"), ({"name": "dot.ted"}, "name"), ({"name": ""}, "name"),
    ({"name": "x" * 65}, "name"), ({"name": "ok", "privilege": "owner"}, "privilege"),
    ({"name": "ok", "description": "d" * 513}, "description"),
    ({"name": "ok", "description": "bell\x07"}, "description"),
])
def test_bad_service_accounts_are_refused_with_the_field(client, body, field):
    answer = client.post(BASE, headers=H, json=body)
    assert answer.status_code == 400, answer.get_json()
    assert field in answer.get_json()["errors"]
    assert client.get(BASE, headers=H).get_json() == []


def test_the_name_limit_is_64_and_patch_refuses_wrong_types(client):
    assert create_account(client, "x" * 64).status_code == 201
    assert create_account(client).status_code == 201
    for body in ({"privilege": "root"}, {"description": 5}, {"unknown": 1}):
        assert client.patch(f"{BASE}/ci-bot", headers=H, json=body).status_code == 400
    assert client.get(f"{BASE}/ci-bot", headers=H).get_json()["privilege"] == "member"


def test_a_key_is_shown_once_works_at_once_and_is_stored_as_a_hash(client, engine, database_url):
    create_account(client)
    minted = mint(client)
    assert set(minted) >= {"id", "key", "description", "created_at", "expires_at"}
    assert minted["expires_at"] == 0 and minted["id"] not in minted["key"]
    assert flows_with(client, minted["key"]) == 200

    listed = client.get(f"{BASE}/ci-bot/api-keys", headers=H).get_json()
    assert [k["id"] for k in listed] == [minted["id"]]
    one = client.get(f"{BASE}/ci-bot/api-keys/{minted['id']}", headers=H).get_json()
    assert "key" not in one and "key" not in listed[0]
    assert one["last_used_at"] >= minted["created_at"]
    database.obj.close() if engine == "sqlite" else None
    if engine == "sqlite":
        raw = pathlib.Path(database_url.removeprefix("sqlite:///")).read_bytes()
        assert minted["key"].encode() not in raw
    else:
        dump = "".join(str(row) for row in ServiceAccountKey.select().tuples())
        dump += "".join(str(row) for row in MembershipAuditEvent.select().tuples())
        assert minted["key"] not in dump
    assert ServiceAccountKey.get().key_hash == callers.hash_key(minted["key"])


def test_a_revoked_key_stops_at_once_and_revoking_again_is_not_found(client):
    create_account(client)
    minted = mint(client)
    revoked = client.delete(f"{BASE}/ci-bot/api-keys/{minted['id']}", headers=H)
    assert (revoked.status_code, revoked.get_json()) == (200, "revoked")
    assert flows_with(client, minted["key"]) == 401
    again = client.delete(f"{BASE}/ci-bot/api-keys/{minted['id']}", headers=H)
    assert (again.status_code, again.get_json()["message"]) == (404, "API key not found")
    assert client.get(f"{BASE}/ci-bot/api-keys", headers=H).get_json() == []


def test_rotation_keeps_the_old_key_for_the_grace_period_only(client):
    create_account(client)
    old = mint(client)
    rotated = client.post(f"{BASE}/ci-bot/api-keys/{old['id']}/rotate", headers=H,
                          json={"grace_period_hours": 2})
    assert rotated.status_code == 200, rotated.get_json()
    new = rotated.get_json()
    assert new["key"] != old["key"] and new["id"] != old["id"]
    assert new["grace_period_expires_at"] == pytest.approx(old["created_at"] + 7200, abs=60)
    assert flows_with(client, new["key"]) == 200
    assert flows_with(client, old["key"]) == 200  # within the grace period
    expire(old["id"], new["grace_period_expires_at"] - 3 * 3600)  # the grace period is over
    assert flows_with(client, old["key"]) == 401
    assert flows_with(client, new["key"]) == 200
    assert [k["id"] for k in client.get(f"{BASE}/ci-bot/api-keys", headers=H).get_json()] == [
        new["id"]]


def test_rotation_defaults_to_a_day_and_checks_its_arguments(client):
    create_account(client)
    old = mint(client)
    for body in ({"grace_period_hours": 0}, {"grace_period_hours": 721},
                 {"expires_at": 1}, {"expires_at": 4102444801}, {"grace_period_hours": "x"}):
        assert client.post(f"{BASE}/ci-bot/api-keys/{old['id']}/rotate", headers=H,
                           json=body).status_code == 400, body
    new = client.post(f"{BASE}/ci-bot/api-keys/{old['id']}/rotate", headers=H, data="{}",
                      content_type="application/json").get_json()
    assert new["grace_period_expires_at"] == pytest.approx(old["created_at"] + 86400, abs=60)


def test_expiry_never_past_or_beyond_2100_and_an_expired_key_is_refused(client):
    create_account(client)
    for expires_at in (1, 1_000_000_000, 4102444801, 10**30):
        answer = client.post(f"{BASE}/ci-bot/api-keys", headers=H,
                             json={"description": "k", "expires_at": expires_at})
        assert answer.status_code == 400, expires_at
    assert mint(client, expires_at=0)["expires_at"] == 0
    dated = mint(client, expires_at=4102444800)
    assert dated["expires_at"] == 4102444800 and flows_with(client, dated["key"]) == 200
    expire(dated["id"], 1000)
    assert flows_with(client, dated["key"]) == 401
    assert client.get(f"{BASE}/ci-bot/api-keys/{dated['id']}", headers=H).status_code == 404
    assert client.post(f"{BASE}/ci-bot/api-keys", headers=H, json={"description": ""}
                       ).status_code == 400


def test_deleting_an_account_stops_its_keys(client):
    create_account(client)
    minted = mint(client)
    client.delete(f"{BASE}/ci-bot", headers=H)
    assert flows_with(client, minted["key"]) == 401


def test_a_service_account_key_acts_only_in_its_organization(client):
    create_account(client, privilege="admin")
    key = mint(client)["key"]
    assert flows_with(client, key) == 200
    assert flows_with(client, key, org="other") == 403
    assert flows_with(client, key, org="acme-shared") == 403
    # another organization's admin sees none of acme's accounts or keys
    assert client.get(BASE, headers=bearer(BOB_KEY)).status_code == 403
    assert client.post(f"{BASE}/ci-bot/api-keys", headers=bearer(BOB_KEY),
                       json={"description": "x"}).status_code == 403
    assert client.get("/api/v2/service-accounts/other", headers=bearer(key)).status_code == 403
    assert client.get("/api/v2/service-accounts/other/ci-bot", headers=H).status_code == 403


def test_last_used_is_kept_to_the_minute_without_a_write_per_request(client, monkeypatch):
    create_account(client)
    minted = mint(client)
    clock = [2_000_000_000.0]
    monkeypatch.setattr(organizations, "now", lambda: clock[0])
    monkeypatch.setattr("evidence_grpc.domain.identity.service_accounts.now", lambda: clock[0])
    writes: list[int] = []
    real_note = organizations.ServiceAccountKey.update

    def counting_update(*args: Any, **kwargs: Any) -> Any:
        writes.append(1)
        return real_note(*args, **kwargs)

    monkeypatch.setattr(organizations.ServiceAccountKey, "update", counting_update)
    for _ in range(20):
        assert flows_with(client, minted["key"]) == 200
    assert len(writes) == 1
    clock[0] += 61
    assert flows_with(client, minted["key"]) == 200
    assert len(writes) == 2
    shown = client.get(f"{BASE}/ci-bot/api-keys/{minted['id']}", headers=H).get_json()
    assert shown["last_used_at"] == clock[0]


# ---- privileges -------------------------------------------------------------------------------

def _report(client, key: str):
    return client.put("/api/v2/environments/acme/prod/report/server", headers=bearer(key),
                      json={"artifacts": [{"digests": {"app": "a" * 64}, "creationTimestamp": 5}]})


def _flow(client, key: str):
    return client.put("/api/v2/flows/acme", headers=bearer(key),
                      json={"name": "f1", "description": "", "visibility": "private",
                            "template": ["artifact"]})


def _account(client, key: str):
    return client.post(BASE, headers=bearer(key), json={"name": "made-by", "privilege": "reader"})


# (what, the least privilege that may do it)
def _create_env(client, key: str):
    return client.put("/api/v2/environments/acme", headers=bearer(key),
                      json={"name": "made-by", "type": "server", "description": ""})


def _archive_env(client, key: str):
    return client.put("/api/v2/environments/acme/prod/archive", headers=bearer(key), data="null",
                      content_type="application/json")


ACTIONS = [(_report, "snapshotter"), (_create_env, "snapshotter"), (_flow, "member"),
           (put_policy_as, "admin"), (_account, "admin"), (_archive_env, "member")]
ORDER = ["reader", "snapshotter", "member", "admin"]


@pytest.mark.parametrize("source", ["membership", "service-account"])
@pytest.mark.parametrize("role", ORDER)
def test_each_privilege_against_reads_and_writes(client, role, source):
    assert client.put("/api/v2/environments/acme", headers=H,
                      json={"name": "prod", "type": "server", "description": ""}
                      ).status_code in (200, 201)
    key = ROLE_KEYS[role]
    if source == "service-account":
        create_account(client, f"sa-{role}", privilege=role)
        key = mint(client, f"sa-{role}")["key"]
    assert flows_with(client, key) == 200
    assert client.get("/api/v2/environments/acme/prod", headers=bearer(key)).status_code == 200
    for action, least in ACTIONS:
        answer = action(client, key)
        if ORDER.index(role) >= ORDER.index(least):
            assert answer.status_code in (200, 201), (action.__name__, answer.get_json())
        else:
            assert answer.status_code == 403, (action.__name__, answer.get_json())
            body = answer.get_json()
            assert body["message"] == "You don't have permission to access this resource"
            assert f"needs {least} privilege" in body["errors"]["privilege"]
    # refused writes changed nothing
    flows = client.get("/api/v2/flows/acme", headers=H).get_json()
    assert bool(flows) == (ORDER.index(role) >= ORDER.index("member"))


def test_bootstrap_roles_are_validated_and_brought_up_to_date(db):
    spec = {"organizations": [{"name": "acme"}],
            "users": [{"name": "rita", "organizations": [{"name": "acme", "role": "owner"}]}]}
    with pytest.raises(organizations.InvalidArgument):
        organizations.bootstrap(spec)
    spec["users"][0]["organizations"][0]["role"] = "admin"
    organizations.bootstrap(spec)
    caller = organizations.authenticate(f"Bearer {ROLE_KEYS['reader']}", "acme")
    assert caller.privilege == options_pb2.PRIVILEGE_ADMIN


def test_every_rpc_declares_a_privilege_or_is_anonymous():
    undeclared = []
    for service in service_descriptors():
        for method in service.methods:
            options = method.GetOptions()
            if options.Extensions[options_pb2.http_options].anonymous:
                continue
            if not options.Extensions[options_pb2.privilege]:
                undeclared.append(method.full_name)
    assert undeclared == []


# ---- membership audit log ---------------------------------------------------------------------

def test_the_audit_log_records_who_changed_which_identity(client):
    create_account(client)
    key = mint(client)
    client.post(f"{BASE}/ci-bot/api-keys/{key['id']}/rotate", headers=H, json={})
    client.patch(f"{BASE}/ci-bot", headers=H, json={"privilege": "reader"})
    assert client.post(f"{BASE}/nobody/api-keys", headers=H, json={"description": "x"}
                       ).status_code == 404  # a failed request records nothing
    client.delete(f"{BASE}/ci-bot", headers=H)
    log = client.get("/api/v2/membership-audit-log/acme", headers=H).get_json()
    assert [e["event_type"] for e in log["events"]] == [
        "service_account_deleted", "service_account_updated", "api_key_rotated",
        "api_key_created", "service_account_created"]
    assert {e["actor"] for e in log["events"]} == {"alice"}
    assert log["total_count"] == 5
    assert key["key"] not in str(log)
    asc = client.get("/api/v2/membership-audit-log/acme?sort_dir=asc&per_page=2&page=2",
                     headers=H).get_json()
    assert [e["event_type"] for e in asc["events"]] == ["api_key_rotated",
                                                        "service_account_updated"]
    only = client.get("/api/v2/membership-audit-log/acme?event_type=api_key_created",
                      headers=H).get_json()
    assert [e["event_type"] for e in only["events"]] == ["api_key_created"]
    assert client.get("/api/v2/membership-audit-log/acme?search=CI-BOT", headers=H
                      ).get_json()["total_count"] == 5
    assert client.get("/api/v2/membership-audit-log/acme?search=%25", headers=H
                      ).get_json()["total_count"] == 0
    for query in ("event_type=nope", "sort_dir=up", "per_page=0", "page=0"):
        assert client.get(f"/api/v2/membership-audit-log/acme?{query}", headers=H
                          ).status_code == 400, query
    assert client.get("/api/v2/membership-audit-log/acme",
                      headers=bearer(ROLE_KEYS["member"])).status_code == 403
    assert client.get("/api/v2/membership-audit-log/other", headers=H).status_code == 403


def test_thousands_of_keys_list_and_authenticate(client):
    create_account(client)
    keys = [mint(client, description=f"k{i}") for i in range(300)]
    assert len(client.get(f"{BASE}/ci-bot/api-keys", headers=H).get_json()) == 300
    assert all(flows_with(client, k["key"]) == 200 for k in keys[::50])


def test_no_secret_reaches_the_logs(client, caplog):
    caplog.set_level(logging.DEBUG)
    create_account(client)
    minted = mint(client)
    flows_with(client, minted["key"])
    rotated = client.post(f"{BASE}/ci-bot/api-keys/{minted['id']}/rotate", headers=H,
                          json={}).get_json()
    flows_with(client, "evk_not-a-real-key-but-logged-maybe")
    assert minted["key"] not in caplog.text and rotated["key"] not in caplog.text
    assert "evk_not-a-real-key" not in caplog.text


# ---- names as people read them (issue 47, item 3) ------------------------------------------------

def test_names_differing_only_in_case_or_unicode_form_are_refused_both_ways(client, db):
    """An account may not be named `ALICE` or `Alice` beside member alice, nor `CI-Bot` beside
    account ci-bot (REST and gRPC); a new user may not read as an existing user, nor join an
    organization with an account that reads as its name (bootstrap). Names already stored that
    clash are kept, and bootstrap runs again over them."""
    import grpc

    from evidence_grpc.api.v2 import service_account_service_pb2 as sa_pb
    from evidence_grpc.api.v2 import service_account_service_pb2_grpc as sa_grpc
    from evidence_grpc.domain.kernel.errors import AlreadyExists
    from evidence_grpc.storage.models import ServiceAccount, User
    from tests.conftest import grpc_channel
    from tests.helpers import details_of

    assert create_account(client).status_code == 201
    for name, reason in (("ALICE", "member"), ("Alice", "member"), ("CI-Bot", "service account"),
                         ("ci-BOT", "service account")):
        refused = create_account(client, name)
        assert refused.status_code == 409, (name, refused.get_json())
        assert reason in refused.get_json()["errors"]["name"], refused.get_json()
    with grpc_channel(db) as channel:
        stub = sa_grpc.ServiceAccountServiceStub(channel)
        for name in ("RITA", "Ci-Bot"):
            with pytest.raises(grpc.RpcError) as refused:
                stub.CreateServiceAccount(sa_pb.CreateServiceAccountRequest(
                    org="acme", name=name, privilege="reader"), metadata=(
                    ("authorization", f"Bearer {ROLE_KEYS['admin']}"),), timeout=10)
            assert refused.value.code() is grpc.StatusCode.ALREADY_EXISTS
            assert "name" in details_of(refused.value)[1]
    assert sorted(ServiceAccount.select(ServiceAccount.name).scalars()) == ["ci-bot"]
    for user in ({"name": "ALICE"}, {"name": "Bob"},
                 {"name": "ci-BOT", "organizations": ["acme"]}):
        with pytest.raises(AlreadyExists):
            organizations.bootstrap({"users": [user]})
    # clashes stored before this release stay as they are, and bootstrap runs over them
    User.create(name="Alice", created_at=0)
    organizations.bootstrap({"users": [{"name": "Alice", "organizations": ["acme"]},
                                       {"name": "alice", "organizations": ["acme"]}]})
    assert sorted(User.select(User.name).where(User.name ** "alice").scalars()) == ["Alice",
                                                                                      "alice"]
