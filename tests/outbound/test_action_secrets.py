"""Issue 31: webhook and Slack URLs are secrets (answered in full only to callers who may manage
actions, through REST and gRPC, both engines), and outbound targets that are not globally
reachable are refused when saved and right before a POST."""

from __future__ import annotations

import ipaddress

import grpc
import pytest

from evidence_grpc.api.v2 import action_service_pb2 as pb
from evidence_grpc.api.v2 import action_service_pb2_grpc as pb_grpc
from evidence_grpc.domain.outbound import actions
from evidence_grpc.domain.outbound import targets as outbound
from evidence_grpc.servicers.actions import MANAGE_PRIVILEGE
from evidence_grpc.storage.models import Action, OutboxMessage
from tests.conftest import ROLE_KEYS, bearer, grpc_channel
from tests.helpers import create_env, deliver_all
from tests.helpers import report_fingerprints as report

H = bearer()
SLACK = "https://93.184.216.34/services/T0SECRET/B0SECRET/xoxSECRETTOKEN"
HOOK = "http://93.184.216.34:8443/hooks/SECRETPATH?token=SECRETQUERY#SECRETFRAGMENT"
SECRETS = ("SECRET", "services", "hooks", "token", "8443")
NOTIFICATIONS = "/api/v2/organizations/acme/environments_notifications"
MAY_MANAGE = {"reader": False, "snapshotter": False, "member": False, "admin": True}


def _targets() -> list[dict]:
    return [{"type": "SLACK", "webhook": SLACK},
            {"type": "WEBHOOK", "webhook": HOOK},
            {"type": "EMAIL", "emails": ["ops@example.com"]}]


@pytest.fixture
def with_actions(client):
    actions.configure_smtp("smtp://127.0.0.1:2525")
    try:
        create_env(client)
        client.put("/api/v2/flows/acme", headers=H, json={"name": "f1", "description": "",
                                                          "template": ["artifact"]})
        assert client.put("/api/v2/actions/acme/environments", headers=H, json={
            "name": "env-watch", "environments": ["prod"], "triggers": ["ON_STARTED_ARTIFACT"],
            "targets": _targets()}).status_code == 201
        assert client.put("/api/v2/actions/acme/flows", headers=H, json={
            "name": "flow-watch", "flows": ["f1"], "triggers": ["ON_RELEASE"],
            "targets": _targets()}).status_code == 201
        yield client
    finally:
        actions.configure_smtp("")


def _check_targets(targets: list[dict], full: bool) -> None:
    slack, hook, email = targets
    assert email == {"type": "EMAIL", "emails": ["ops@example.com"]}
    assert slack["type"] == "SLACK" and hook["type"] == "WEBHOOK"
    assert hook["payload_version"] == "1.0"
    if full:
        assert (slack["webhook"], hook["webhook"]) == (SLACK, HOOK)
        return
    assert slack["webhook"] == "https://93.184.216.34/***"
    assert hook["webhook"] == "http://93.184.216.34/***"
    for text in (slack["webhook"], hook["webhook"]):
        assert not any(secret in text for secret in SECRETS), text


def test_the_write_rpcs_declare_admin():
    assert MANAGE_PRIVILEGE == 4


@pytest.mark.parametrize("role", list(ROLE_KEYS))
def test_only_callers_who_may_manage_actions_see_webhook_urls_over_rest(with_actions, role):
    client, key = with_actions, bearer(ROLE_KEYS[role])
    full = MAY_MANAGE[role]
    listed = client.get("/api/v2/actions/acme", headers=key)
    assert listed.status_code == 200
    assert [a["name"] for a in listed.get_json()] == ["env-watch", "flow-watch"]
    for action in listed.get_json():
        _check_targets(action["targets"], full)
    for path in ("/api/v2/actions/acme/1", "/api/v2/actions/acme/2", NOTIFICATIONS + "/1"):
        one = client.get(path, headers=key)
        assert one.status_code == 200, path
        _check_targets(one.get_json()["targets"], full)
    notifications = client.get(NOTIFICATIONS, headers=key).get_json()
    assert [n["name"] for n in notifications] == ["env-watch"]
    _check_targets(notifications[0]["targets"], full)
    if not full:
        assert SLACK.split("/")[-1] not in str(listed.get_data(as_text=True))


@pytest.mark.parametrize("role", list(ROLE_KEYS))
def test_only_callers_who_may_manage_actions_see_webhook_urls_over_grpc(with_actions, db, role):
    from google.protobuf import json_format

    auth = (("authorization", f"Bearer {ROLE_KEYS[role]}"),)
    full = MAY_MANAGE[role]
    with grpc_channel(db) as channel:
        stub = pb_grpc.ActionServiceStub(channel)
        answers = [*stub.ListActions(pb.ListActionsRequest(org="acme"), metadata=auth,
                                     timeout=10).actions,
                   stub.GetAction(pb.GetActionRequest(org="acme", action_number=2),
                                  metadata=auth, timeout=10),
                   *stub.ListEnvironmentNotifications(
                       pb.ListEnvironmentNotificationsRequest(org="acme"), metadata=auth,
                       timeout=10).actions,
                   stub.GetEnvironmentNotification(pb.GetEnvironmentNotificationRequest(
                       org="acme", notification_number=1), metadata=auth, timeout=10)]
        assert [a.name for a in answers] == ["env-watch", "flow-watch", "flow-watch",
                                             "env-watch", "env-watch"]
        for action in answers:
            _check_targets([json_format.MessageToDict(t) for t in action.targets], full)
            if not full:
                assert "SECRET" not in str(action)


def test_an_admin_round_trip_keeps_the_targets_and_a_redacted_url_is_refused(with_actions):
    client = with_actions
    for path, put in (("/api/v2/actions/acme/1", "/api/v2/actions/acme/environments"),
                      ("/api/v2/actions/acme/2", "/api/v2/actions/acme/flows")):
        shown = client.get(path, headers=H).get_json()
        body = {k: shown[k] for k in ("name", "targets", "triggers")}
        body["environments" if "environments" in shown else "flows"] = (
            shown.get("environments") or shown["flows"])
        again = client.put(put, headers=H, json=body)
        assert again.status_code == 200, again.get_json()
        _check_targets(again.get_json()["targets"], full=True)
        _check_targets(client.get(path, headers=H).get_json()["targets"], full=True)
    shown = client.get(NOTIFICATIONS + "/1", headers=H).get_json()
    body = {k: shown[k] for k in ("name", "targets", "triggers", "environments")}
    assert client.put(NOTIFICATIONS + "/1", headers=H, json=body).status_code == 200
    _check_targets(client.get(NOTIFICATIONS + "/1", headers=H).get_json()["targets"], True)
    assert [t.get("webhook") for t in Action.get(Action.name == "env-watch").targets] == [
        SLACK, HOOK, None]
    # What a reader sees, sent back by an admin: refused, nothing changed.
    redacted = client.get("/api/v2/actions/acme/1",
                          headers=bearer(ROLE_KEYS["reader"])).get_json()
    body = {k: redacted[k] for k in ("name", "targets", "triggers", "environments")}
    refused = client.put("/api/v2/actions/acme/environments", headers=H, json=body)
    assert refused.status_code == 400
    assert "targets[0].webhook" in refused.get_json()["errors"]
    assert [t.get("webhook") for t in Action.get(Action.name == "env-watch").targets] == [
        SLACK, HOOK, None]


@pytest.mark.parametrize("url, shown", [
    ("https://hooks.slack.com/services/T0/B0/XXXX", "https://hooks.slack.com/***"),
    ("http://user:pw@hooks.example.com:8080/a/b?c=d#e", "http://hooks.example.com/***"),
    ("https://[2001:db8::1]:8443/x?y", "https://[2001:db8::1]/***"),
    ("http://93.184.216.34", "http://93.184.216.34/***"),
    ("not a url", "***"), ("http://[::1", "***"), ("", "***"),
])
def test_the_redacted_form_keeps_scheme_and_host_only(url, shown):
    assert actions.redacted_url(url) == shown


# ---- SSRF: not globally reachable ------------------------------------------------------------

# Numeric hosts refused when saved; every one is the address `vet` would connect to.
NOT_GLOBAL = [
    "fec0::1",               # IPv6 site-local (deprecated, routable; `is_global` says True)
    "fedc::1",               # the end of fec0::/10
    "192.88.99.1",           # 6to4 relay anycast (`is_global` says True on 3.11)
    "2002:c058:6301::1",     # 6to4 of 192.88.99.1
    "2002:a00:1::1",         # 6to4 of 10.0.0.1
    "64:ff9b::a00:1",        # NAT64 of 10.0.0.1
    "64:ff9b::c058:6301",    # NAT64 of 192.88.99.1
    "64:ff9b:1::808:808",    # local-use NAT64 (RFC 8215)
    "::ffff:192.88.99.1",    # IPv4-mapped
    "::ffff:10.0.0.1",
    "::a00:1",               # IPv4-compatible (deprecated)
    "100.64.0.1", "100.127.255.254",  # shared (CGN)
    "198.18.0.1", "198.19.255.1",     # benchmarking
    "192.0.0.9", "192.0.2.1", "198.51.100.7", "203.0.113.9",
    "224.0.0.1", "239.255.255.250", "ff02::1", "ff0e::1",
    "0.0.0.0", "0.1.2.3", "::", "240.0.0.1", "255.255.255.255",
    "2001::1",               # Teredo
    "2001:db8::1", "3fff::1", "5f00::1", "100::1", "fc00::1", "fe80::1",
]


def _url(address: str) -> str:
    return f"http://[{address}]/x" if ":" in address else f"http://{address}/x"


@pytest.mark.parametrize("address", NOT_GLOBAL)
def test_addresses_that_are_not_globally_reachable_are_refused(address):
    assert outbound.refusal(ipaddress.ip_address(address), outbound.Policy()) is not None
    assert outbound.refusal(ipaddress.ip_address(address),
                            outbound.Policy(allow_loopback=True)) is not None
    with pytest.raises(outbound.OutboundRefused, match="resolves to"):
        outbound.vet(_url(address))
    named = outbound.Policy(resolver=lambda host, port: ["93.184.216.34", address])
    with pytest.raises(outbound.OutboundRefused, match="resolves to"):
        outbound.vet("http://hooks.example.com/x", named)


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700::1111",
                                     "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"])
def test_public_addresses_are_still_allowed(address):
    assert outbound.refusal(ipaddress.ip_address(address), outbound.Policy()) is None


@pytest.mark.parametrize("address", ["fec0::1", "192.88.99.1", "2002:a00:1::1",
                                     "64:ff9b::a00:1", "198.18.0.1", "::ffff:100.64.0.1",
                                     "192.0.0.9"])
def test_numeric_hosts_that_are_not_globally_reachable_are_refused_when_saved(client, address):
    create_env(client)
    for kind in ("WEBHOOK", "SLACK"):
        answer = client.put("/api/v2/actions/acme/environments", headers=H, json={
            "name": "a1", "environments": ["prod"], "triggers": ["ON_STARTED_ARTIFACT"],
            "targets": [{"type": "WEBHOOK", "webhook": "http://93.184.216.34/ok"},
                        {"type": kind, "webhook": _url(address)}]})
        assert answer.status_code == 400, answer.get_json()
        assert "targets[1].webhook" in answer.get_json()["errors"], answer.get_json()
    assert client.get("/api/v2/actions/acme", headers=H).get_json() == []


@pytest.mark.parametrize("address", ["fec0::1", "192.88.99.1", "2002:c058:6301::1",
                                     "64:ff9b::a00:1", "::ffff:10.0.0.1", "198.18.0.1"])
def test_a_name_resolving_to_them_is_refused_when_saved_and_before_the_post(client, address):
    answers = {"now": [address]}
    outbound.configure(outbound.Policy(resolver=lambda host, port: answers["now"]))
    try:
        create_env(client)
        hook = {"type": "WEBHOOK", "webhook": "http://hooks.example.com/x"}
        refused = client.put("/api/v2/actions/acme/environments", headers=H, json={
            "name": "a1", "environments": ["prod"], "triggers": ["ON_STARTED_ARTIFACT"],
            "targets": [hook]})
        assert refused.status_code == 400 and "targets[0].webhook" in refused.get_json()["errors"]
        assert address in str(refused.get_json())
        answers["now"] = ["93.184.216.34"]  # public when saved ...
        assert client.put("/api/v2/actions/acme/environments", headers=H, json={
            "name": "a1", "environments": ["prod"], "triggers": ["ON_STARTED_ARTIFACT"],
            "targets": [hook]}).status_code == 201
        report(client, "prod", "a" * 64)
        answers["now"] = [address]  # ... not when delivered: no connection is made
        assert deliver_all() == 1
        message = OutboxMessage.get()
        assert message.delivered_at is None and message.attempts == 1
        assert address in message.last_error and "resolves to" in message.last_error
        assert Action.get().last_failure_at is not None and Action.get().last_success_at is None
    finally:
        outbound.configure(outbound.Policy())


def test_grpc_refuses_them_when_saved_naming_the_field(db):
    from google.protobuf import struct_pb2

    from tests.helpers import details_of

    with grpc_channel(db) as channel:
        from evidence_grpc.api.v2 import environment_service_pb2 as env_pb
        from evidence_grpc.api.v2 import environment_service_pb2_grpc as env_grpc

        auth = (("authorization", f"Bearer {ROLE_KEYS['admin']}"),)
        env_grpc.EnvironmentServiceStub(channel).UpsertEnvironment(
            env_pb.UpsertEnvironmentRequest(org="acme", name="prod", type="server"),
            metadata=auth, timeout=10)
        target = struct_pb2.Struct()
        target.update({"type": "SLACK", "webhook": "http://[fec0::1]/x"})
        with pytest.raises(grpc.RpcError) as refused:
            pb_grpc.ActionServiceStub(channel).PutEnvironmentAction(
                pb.PutEnvironmentActionRequest(org="acme", action=pb.ActionInput(
                    name="a1", targets=[target], environments=["prod"],
                    triggers=["ON_STARTED_ARTIFACT"])), metadata=auth, timeout=10)
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "targets[0].webhook" in details_of(refused.value)[1]
