"""References by id (DESIGN.md decision 12), both engines, through REST and gRPC: actions,
approvals, policy attachments and a logical environment's members follow an environment or flow
through its renames, answered by its current name, and a new environment or flow given the old
name inherits none of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from evidence_grpc.api.v2 import action_service_pb2 as action_pb
from evidence_grpc.api.v2 import action_service_pb2_grpc as action_grpc
from evidence_grpc.api.v2 import environment_service_pb2 as env_pb
from evidence_grpc.api.v2 import environment_service_pb2_grpc as env_grpc
from evidence_grpc.api.v2 import flow_service_pb2 as flow_pb
from evidence_grpc.api.v2 import flow_service_pb2_grpc as flow_grpc
from evidence_grpc.api.v2 import trail_service_pb2 as trail_pb
from evidence_grpc.api.v2 import trail_service_pb2_grpc as trail_grpc
from evidence_grpc.storage.models import OutboxMessage
from tests.conftest import ALICE_KEY, bearer, govern, grpc_channel
from tests.helpers import BACKEND_FP, PUBLIC_HOOK, create_env, create_flow, env_action, report_artifact
from tests.helpers import report_fingerprints as report

H = bearer()
AUTH = (("authorization", f"Bearer {ALICE_KEY}"),)
HOOK = {"type": "WEBHOOK", "webhook": PUBLIC_HOOK}


def queued() -> list[tuple[str, str | None, str | None]]:
    """(trigger, environment, flow) of each notification in the outbox, oldest first."""
    return [(m.trigger, m.payload.get("environment"), m.payload.get("flow"))
            for m in OutboxMessage.select().order_by(OutboxMessage.id)]


def rename_env(client, name: str, new_name: str) -> None:
    answer = client.put(f"/api/v2/environments/acme/{name}/rename", headers=H,
                        json={"new_name": new_name})
    assert answer.status_code == 200, answer.get_json()


def environment(client, name: str) -> dict[str, Any]:
    answer = client.get(f"/api/v2/environments/acme/{name}", headers=H)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


# ---- REST ------------------------------------------------------------------------------------

def test_an_environment_action_follows_its_environment_through_a_rename(client):
    create_env(client, "prod")
    assert env_action(client, environments=["prod"]).status_code == 201

    rename_env(client, "prod", "live")
    report(client, "live", "a" * 64)
    assert queued() == [("ON_STARTED_ARTIFACT", "live", None)]
    [action] = client.get("/api/v2/actions/acme", headers=H).get_json()
    assert action["environments"] == ["live"]

    create_env(client, "prod")  # the old name, a new environment: it inherits nothing
    report(client, "prod", "b" * 64)
    assert queued() == [("ON_STARTED_ARTIFACT", "live", None)]
    assert client.get("/api/v2/actions/acme/1", headers=H).get_json()["environments"] == ["live"]


def test_an_approval_follows_its_environment_through_a_rename(client):
    create_flow(client)
    assert report_artifact(client).status_code == 201
    create_env(client, "prod")
    for environment_name, status in (("prod", 201), ("nowhere", 404)):  # no such environment
        made = client.post("/api/v2/approvals/acme/payments", headers=H, json={
            "artifact_fingerprint": BACKEND_FP, "description": "ok",
            "environment": environment_name, "approvals": []})
        assert made.status_code == status, made.get_json()

    rename_env(client, "prod", "live")
    create_env(client, "prod")

    listed = client.get("/api/v2/approvals/acme/payments", headers=H).get_json()
    assert [(a["release_number"], a["environment"]) for a in listed] == [(1, "live")]
    assert client.get("/api/v2/approvals/acme/payments/1", headers=H).get_json()[
        "environment"] == "live"


def test_policy_attachments_stay_with_the_renamed_environment(client):
    create_env(client, "prod")
    govern(client, "prod")

    rename_env(client, "prod", "live")
    create_env(client, "prod")

    assert environment(client, "live")["policies"] == ["house-rules"]
    assert environment(client, "prod")["policies"] == []
    [policy] = client.get("/api/v2/policies/acme", headers=H).get_json()
    assert policy["consuming_envs"] == ["live"]


# ---- gRPC ------------------------------------------------------------------------------------

@pytest.fixture
def channel(db: str) -> Iterator[grpc.Channel]:
    with grpc_channel(db) as running:
        yield running


def test_a_flow_action_follows_its_flow_through_a_rename(channel: grpc.Channel):
    flows = flow_grpc.FlowServiceStub(channel)
    trails = trail_grpc.TrailServiceStub(channel)
    actions = action_grpc.ActionServiceStub(channel)

    def begin(flow_name: str, trail_name: str) -> None:
        trails.BeginTrail(trail_pb.BeginTrailRequest(
            org="acme", flow_name=flow_name, data_json=trail_pb.TrailData(name=trail_name)),
            metadata=AUTH, timeout=10)

    flows.UpsertFlow(flow_pb.UpsertFlowRequest(org="acme", name="ci"), metadata=AUTH, timeout=10)
    action = action_pb.ActionInput(name="trails", flows=["ci"], triggers=["ON_STARTED_TRAIL"])
    json_format.ParseDict(HOOK, action.targets.add())
    actions.PutFlowAction(action_pb.PutFlowActionRequest(org="acme", action=action),
                          metadata=AUTH, timeout=10)

    flows.RenameFlow(flow_pb.RenameFlowRequest(org="acme", flow_name="ci", new_name="build"),
                     metadata=AUTH, timeout=10)
    begin("build", "t1")
    assert queued() == [("ON_STARTED_TRAIL", None, "build")]

    flows.UpsertFlow(flow_pb.UpsertFlowRequest(org="acme", name="ci"), metadata=AUTH, timeout=10)
    begin("ci", "t2")  # the new flow of the old name: its action is not this one
    assert queued() == [("ON_STARTED_TRAIL", None, "build")]
    [listed] = actions.ListActions(action_pb.ListActionsRequest(org="acme"), metadata=AUTH,
                                   timeout=10).actions
    assert list(listed.flows) == ["build"]


def test_a_logical_environments_members_follow_their_renames(channel: grpc.Channel):
    envs = env_grpc.EnvironmentServiceStub(channel)

    def upsert(name: str, env_type: str, members: tuple[str, ...] = ()) -> None:
        envs.UpsertEnvironment(env_pb.UpsertEnvironmentRequest(
            org="acme", name=name, type=env_type, included_environments=members),
            metadata=AUTH, timeout=10)

    def rename(name: str, new_name: str) -> None:
        envs.RenameEnvironment(env_pb.RenameEnvironmentRequest(
            org="acme", env_name=name, new_name=new_name), metadata=AUTH, timeout=10)

    def members(name: str) -> list[str]:
        return list(envs.GetEnvironment(env_pb.GetEnvironmentRequest(org="acme", env_name=name),
                                        metadata=AUTH, timeout=10).included_environments)

    upsert("prod", "K8S")
    upsert("stage", "K8S")
    upsert("everything", "logical", ("prod", "stage"))

    rename("prod", "zeta")  # renamed members are answered by name, in name order
    rename("everything", "all")
    upsert("prod", "K8S")
    envs.JoinEnvironment(env_pb.JoinEnvironmentRequest(
        org="acme", env_name="all", physical_env_name="stage"), metadata=AUTH, timeout=10)

    assert members("all") == ["stage", "zeta"]
    listed = envs.ListEnvironments(env_pb.ListEnvironmentsRequest(org="acme"), metadata=AUTH,
                                   timeout=10).environments
    assert {e.name: list(e.included_environments) for e in listed} == {
        "all": ["stage", "zeta"], "prod": [], "stage": [], "zeta": []}
