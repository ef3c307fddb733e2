"""Actors that cannot be confused (issue 31, item 5): a service account is never named like a
member of its organization (refused either way round), and the audit logs say which kind of
actor acted (`actor_type` / `user_type`: user | service_account), on both doors."""

from __future__ import annotations

import csv
import io

import grpc
import pytest

from evidence_grpc.api.v2 import common_pb2 as common_pb
from evidence_grpc.api.v2 import environment_service_pb2 as env_pb
from evidence_grpc.api.v2 import environment_service_pb2_grpc as env_grpc
from evidence_grpc.api.v2 import policy_service_pb2 as policy_pb
from evidence_grpc.api.v2 import policy_service_pb2_grpc as policy_grpc
from evidence_grpc.api.v2 import service_account_service_pb2 as sa_pb
from evidence_grpc.api.v2 import service_account_service_pb2_grpc as sa_grpc
from evidence_grpc.domain.identity import organizations
from evidence_grpc.domain.kernel.errors import AlreadyExists
from tests.conftest import ALICE_KEY, bearer, grpc_channel
from tests.helpers import BASE, H, create_account, details_of, mint, put_policy_as

AUTH = (("authorization", f"Bearer {ALICE_KEY}"),)


# ---- names ------------------------------------------------------------------------------------

@pytest.mark.parametrize("member", ["alice", "rita", "sam"])
def test_a_service_account_cannot_take_a_members_name(client, member):
    answer = create_account(client, member)
    assert answer.status_code == 409, answer.get_json()
    assert "name" in answer.get_json()["errors"]
    assert client.get(BASE, headers=H).get_json() == []


def test_a_name_of_a_user_of_another_organization_is_free(client):
    assert create_account(client, "bob").status_code == 201  # bob is a member of `other` only


def test_grpc_refuses_a_members_name_naming_the_field(db):
    with grpc_channel(db) as channel:
        stub = sa_grpc.ServiceAccountServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.CreateServiceAccount(sa_pb.CreateServiceAccountRequest(
                org="acme", name="alice", privilege="reader"), metadata=AUTH, timeout=10)
        assert refused.value.code() is grpc.StatusCode.ALREADY_EXISTS
        assert "name" in details_of(refused.value)[1]
        stub.CreateServiceAccount(sa_pb.CreateServiceAccountRequest(
            org="acme", name="ci-bot", privilege="reader"), metadata=AUTH, timeout=10)


def test_bootstrap_cannot_add_a_user_named_like_a_service_account(client):
    assert create_account(client, "ci-bot").status_code == 201
    spec = {"users": [{"name": "ci-bot", "organizations": ["acme"]}]}
    with pytest.raises(AlreadyExists) as refused:
        organizations.bootstrap(spec)
    assert refused.value.errors == {"users[0].name": refused.value.errors["users[0].name"]}
    assert organizations.User.get_or_none(organizations.User.name == "ci-bot") is None
    # elsewhere the name is free, and bootstrapping existing members again changes nothing
    organizations.bootstrap({"users": [{"name": "ci-bot", "organizations": ["other"]}]})
    organizations.bootstrap({"users": [{"name": "alice", "organizations": ["acme"]}]})


# ---- audit logs -------------------------------------------------------------------------------

def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_rest_audit_logs_say_which_kind_of_actor_acted(client):
    assert create_account(client, "ci-bot", "admin").status_code == 201
    robot = bearer(mint(client)["key"])
    assert client.post(BASE, headers=robot, json={"name": "made-by-bot"}).status_code == 201
    log = client.get("/api/v2/membership-audit-log/acme?sort_dir=asc", headers=H).get_json()
    assert [(e["actor"], e["actor_type"], e["event_type"]) for e in log["events"]] == [
        ("alice", "user", "service_account_created"), ("alice", "user", "api_key_created"),
        ("ci-bot", "service_account", "service_account_created")]

    assert client.put("/api/v2/environments/acme", headers=H, json={
        "name": "prod", "type": "server", "description": ""}).status_code == 201
    assert client.put("/api/v2/environments/acme/prod/report/server", headers=robot, json={
        "artifacts": [{"digests": {"app": "a" * 64}, "creationTimestamp": 5}]}
                      ).status_code in (200, 201)
    rows = _csv(client.get("/api/v2/environments/acme/prod/auditlog", headers=H)
                .get_data(as_text=True))
    assert [(r["actor"], r["actor_type"]) for r in rows] == [
        ("alice", "user"), ("ci-bot", "service_account")]

    assert put_policy_as(client, robot["Authorization"].split()[1]).status_code in (200, 201)
    events = client.get("/api/v2/policies/acme/p", headers=H).get_json()["events"]
    assert [(e["user"], e["user_type"]) for e in events] == [("ci-bot", "service_account")]


def test_grpc_audit_logs_say_which_kind_of_actor_acted(db):
    with grpc_channel(db) as channel:
        accounts = sa_grpc.ServiceAccountServiceStub(channel)
        accounts.CreateServiceAccount(sa_pb.CreateServiceAccountRequest(
            org="acme", name="ci-bot", privilege="admin"), metadata=AUTH, timeout=10)
        key = accounts.CreateApiKey(sa_pb.CreateApiKeyRequest(
            org="acme", name="ci-bot", description="ci"), metadata=AUTH, timeout=10).key
        robot = (("authorization", f"Bearer {key}"),)
        accounts.CreateServiceAccount(sa_pb.CreateServiceAccountRequest(
            org="acme", name="made-by-bot"), metadata=robot, timeout=10)
        log = accounts.ListMembershipAuditLog(sa_pb.ListMembershipAuditLogRequest(
            org="acme", sort_dir="asc"), metadata=AUTH, timeout=10)
        assert [(e.actor, e.actor_type) for e in log.events] == [
            ("alice", "user"), ("alice", "user"), ("ci-bot", "service_account")]

        envs = env_grpc.EnvironmentServiceStub(channel)
        envs.UpsertEnvironment(env_pb.UpsertEnvironmentRequest(
            org="acme", name="prod", type="server"), metadata=robot, timeout=10)
        audit = envs.GetEnvironmentAuditLog(env_pb.GetEnvironmentAuditLogRequest(
            org="acme", env_name="prod"), metadata=AUTH, timeout=10)
        [row] = _csv(audit.data.decode())
        assert (row["actor"], row["actor_type"]) == ("ci-bot", "service_account")

        policies = policy_grpc.PolicyServiceStub(channel)
        policies.UpsertPolicy(policy_pb.UpsertPolicyRequest(
            org="acme", payload=policy_pb.PolicyPayload(name="p", type="env"),
            policy_file=common_pb.UploadedFile(
                filename="p.yml",
                content=b"_schema: https://kosli.com/schemas/policy/environment/v1\n")),
            metadata=robot, timeout=10)
        found = policies.GetPolicy(policy_pb.GetPolicyRequest(org="acme", policy_name="p"),
                                   metadata=AUTH, timeout=10)
        assert [(e.user, e.user_type) for e in found.events] == [("ci-bot", "service_account")]


# ---- the migration ----------------------------------------------------------------------------

def test_0022_tells_service_accounts_apart_in_events_recorded_before_it(empty_database: str):
    """Events recorded before 0022 were by users, except those whose actor is the name of one of
    the organization's service accounts (now or deleted) that no member has."""
    from playhouse.migrations import Runner

    from evidence_grpc.storage import db as storage
    from evidence_grpc.storage.models import Environment, Membership, Organization, ServiceAccount, User
    from tests.conftest import _close_shared_database

    names = sorted(p.stem for p in storage.MIGRATIONS_DIR.glob("0*.py"))
    before = names[names.index("0022_actor_types") - 1]
    db = storage.init_database(empty_database)
    with storage.database.connection_context():
        Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target=before)
        stamp = storage.now()
        times = {"created_at": stamp, "last_modified_at": stamp}
        org = Organization.insert(name="acme", **times).execute()
        user = User.insert(name="alice", created_at=stamp).execute()
        Membership.insert(user=user, organization=org, role="admin").execute()
        ServiceAccount.insert(organization=org, name="ci-bot", privilege="admin",
                              created_by="alice", created_at=stamp).execute()
        for actor, subject, kind in (("alice", "ci-bot", "service_account_created"),
                                     ("alice", "gone", "service_account_created"),
                                     ("ci-bot", "x", "service_account_updated"),
                                     ("gone", "x", "service_account_updated")):
            db.execute_sql("INSERT INTO membership_audit_event (organization_id, event_type, "
                           "timestamp, actor, subject, role, source, details) VALUES "
                           f"({org}, '{kind}', {stamp}, '{actor}', '{subject}', 'admin', 'api', "
                           "'{}')")
        env = Environment.insert(organization=org, name="prod", type="server", **times).execute()
        for actor in ("alice", "ci-bot", ""):
            db.execute_sql("INSERT INTO environment_audit_event (environment_id, timestamp, "
                           f"event_type, actor, details) VALUES ({env}, {stamp}, "
                           f"'environment_updated', '{actor}', '{{}}')")

        assert "0022_actor_types" in storage.migrate()

        assert db.execute_sql("SELECT actor, actor_type FROM membership_audit_event "
                              "ORDER BY id").fetchall() == [
            ("alice", "user"), ("alice", "user"), ("ci-bot", "service_account"),
            ("gone", "service_account")]
        assert db.execute_sql("SELECT actor, actor_type FROM environment_audit_event "
                              "ORDER BY id").fetchall() == [
            ("alice", "user"), ("ci-bot", "service_account"), ("", "")]
    _close_shared_database()
