"""Service accounts and API keys driven by the real kosli CLI against a real server, and the
same rules for gRPC callers: privileges are the auth interceptor's, so they hold for both."""

from __future__ import annotations

import json
import pathlib

import grpc
import pytest

from evidence_grpc.api.v2 import flow_service_pb2, flow_service_pb2_grpc
from evidence_grpc.api.v2 import service_account_service_pb2 as pb
from evidence_grpc.api.v2 import service_account_service_pb2_grpc as pb_grpc
from tests.conftest import ALICE_KEY, ROLE_KEYS, RunningServer

pytestmark = pytest.mark.e2e


def test_the_cli_manages_service_accounts_and_their_keys(server: RunningServer,
                                                         tmp_path: pathlib.Path):
    created = server.kosli("create", "service-account", "ci-bot", "--privilege", "reader",
                           "--description", "CI bot")
    assert "service account ci-bot was created" in created.stdout
    listed = server.kosli("list", "service-accounts").stdout
    assert "ci-bot" in listed and "reader" in listed
    assert server.kosli_json("get", "service-account", "ci-bot")["privilege"] == "reader"
    server.kosli("update", "service-account", "ci-bot", "--privilege", "member")
    assert server.kosli_json("get", "service-account", "ci-bot")["privilege"] == "member"

    key = server.kosli_json("create", "api-key", "-s", "ci-bot", "--description", "ci key",
                            "--expires-at", "2099-12-31")
    assert key["key"] and key["expires_at"] == 4102358400
    assert "No flows were found" in server.kosli("list", "flows", key=key["key"]).stdout
    server.kosli("create", "flow", "made-by-bot", "--use-empty-template", key=key["key"])
    assert [k["id"] for k in server.kosli_json("list", "api-keys", "-s", "ci-bot")] == [key["id"]]
    shown = server.kosli("get", "api-key", key["id"], "-s", "ci-bot").stdout
    assert "ci key" in shown and key["key"] not in shown

    rotated = server.kosli("rotate", "api-key", key["id"], "-s", "ci-bot", "-g", "1").stdout
    assert "Old Key Valid Until" in rotated
    new_key = next(line.split()[-1] for line in rotated.splitlines() if line.startswith("Key:"))
    server.kosli("list", "flows", key=new_key)
    server.kosli("list", "flows", key=key["key"])  # within its grace period
    # -o json: a list of the rotate answers, so the tutorial's `jq -r '.[0].key'` finds the key
    other = server.kosli_json("create", "api-key", "-s", "ci-bot", "--description", "other")
    [again] = server.kosli_json("rotate", "api-key", other["id"], "-s", "ci-bot", "-g", "1")
    assert again["key"] and again["key"] != other["key"] and again["grace_period_expires_at"]
    server.kosli("list", "flows", key=again["key"])

    new_id = next(k["id"] for k in server.kosli_json("list", "api-keys", "-s", "ci-bot")
                  if k["id"] not in (key["id"], other["id"], again["id"]))
    server.kosli("delete", "api-key", new_id, "-s", "ci-bot", "--assume-yes")
    refused = server.kosli("list", "flows", key=new_key, check=False)
    assert refused.returncode != 0
    server.kosli("delete", "service-account", "ci-bot", "--assume-yes")
    assert server.kosli("get", "service-account", "ci-bot", check=False).returncode != 0
    assert server.kosli("list", "flows", key=key["key"], check=False).returncode != 0
    logged = (tmp_path / "server.log").read_text()
    assert key["key"] not in logged and new_key not in logged


def test_a_reader_is_refused_writes_by_the_cli(server: RunningServer):
    refused = server.kosli("create", "flow", "nope", "--use-empty-template",
                           key=ROLE_KEYS["reader"], check=False)
    assert refused.returncode != 0
    assert "You don't have permission to access this resource" in refused.stderr
    assert "needs member privilege" in refused.stderr
    assert "No flows were found" in server.kosli("list", "flows", key=ROLE_KEYS["reader"]).stdout


def _metadata(key: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {key}"),)


def test_grpc_callers_get_the_same_accounts_keys_and_privileges(server: RunningServer):
    with grpc.insecure_channel(server.grpc_target) as channel:
        accounts = pb_grpc.ServiceAccountServiceStub(channel)
        flows = flow_service_pb2_grpc.FlowServiceStub(channel)
        admin = _metadata(ALICE_KEY)
        account = accounts.CreateServiceAccount(
            pb.CreateServiceAccountRequest(org="acme", name="grpc-bot", privilege="snapshotter"),
            metadata=admin)
        assert (account.name, account.privilege) == ("grpc-bot", "snapshotter")
        assert (account.display_name, account.creating_user_id, account.for_webhook) == (
            "grpc-bot", "alice", False)
        minted = accounts.CreateApiKey(pb.CreateApiKeyRequest(org="acme", name="grpc-bot",
                                                              description="k"), metadata=admin)
        bot = _metadata(minted.key)
        flows.ListFlows(flow_service_pb2.ListFlowsRequest(org="acme"), metadata=bot)
        with pytest.raises(grpc.RpcError) as denied:
            flows.UpsertFlow(flow_service_pb2.UpsertFlowRequest(org="acme", name="f"),
                             metadata=bot)
        assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.RpcError) as foreign:
            flows.ListFlows(flow_service_pb2.ListFlowsRequest(org="other"), metadata=bot)
        assert foreign.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.RpcError) as invalid:
            accounts.CreateApiKey(pb.CreateApiKeyRequest(org="acme", name="grpc-bot",
                                                         description="k", expires_at=5),
                                  metadata=admin)
        assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        accounts.RevokeApiKey(pb.RevokeApiKeyRequest(org="acme", name="grpc-bot",
                                                     key_id=minted.id), metadata=admin)
        with pytest.raises(grpc.RpcError) as revoked:
            flows.ListFlows(flow_service_pb2.ListFlowsRequest(org="acme"), metadata=bot)
        assert revoked.value.code() == grpc.StatusCode.UNAUTHENTICATED
        log = accounts.ListMembershipAuditLog(pb.ListMembershipAuditLogRequest(org="acme"),
                                              metadata=admin)
        assert [e.event_type for e in log.events] == [
            "api_key_revoked", "api_key_created", "service_account_created"]
        assert json.dumps([e.subject for e in log.events]) == '["grpc-bot", "grpc-bot", "grpc-bot"]'


def test_a_snapshotter_creates_environments_but_cannot_change_them_by_the_cli(
        server: RunningServer):
    sam = ROLE_KEYS["snapshotter"]
    for _ in range(2):  # a pipeline re-sends what created it
        made = server.kosli("create", "environment", "prod", "--type", "server",
                            "--description", "runs prod", key=sam)
        assert "environment prod was created" in made.stdout
    refused = server.kosli("create", "environment", "prod", "--type", "server", key=sam,
                           check=False)  # the CLI always sends a description: "" here
    assert refused.returncode != 0
    assert "You don't have permission to access this resource" in refused.stderr
    assert "needs member privilege to change description" in refused.stderr
    server.kosli("archive", "environment", "prod", key=ROLE_KEYS["member"])
    refused = server.kosli("create", "environment", "prod", "--type", "server",
                           "--description", "runs prod", key=sam, check=False)
    assert "needs member privilege to change archived" in refused.stderr
    shown = server.kosli_json("get", "environment", "prod")
    assert shown["description"] == "runs prod"
    server.kosli("create", "environment", "prod", "--type", "server", key=ROLE_KEYS["member"])
    assert server.kosli_json("get", "environment", "prod")["description"] == ""
