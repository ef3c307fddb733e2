"""Actions and environment notifications through the REST shim (both engines): the rules,
their triggers writing to the outbox in the transaction of the change, delivery to a real
receiver on 127.0.0.1 (loopback allowed explicitly), retries, leases that outlive a dead
worker, and the SSRF refusals of every address class, at save time and right before a POST."""

from __future__ import annotations

import email
import email.policy
import json
import threading
import time
from typing import Any

import pytest

from evidence_grpc import delivery
from evidence_grpc.domain.outbound import actions
from evidence_grpc.domain.outbound import targets as outbound
from evidence_grpc.storage.db import now
from evidence_grpc.storage.models import Action, OutboxMessage
from tests.conftest import BOB_KEY, ROLE_KEYS, bearer, govern
from tests.helpers import PUBLIC_HOOK, H, create_env, deliver_all, env_action, report_artifact
from tests.helpers import report_fingerprints as report

# ---- the rules -------------------------------------------------------------------------------

def test_create_update_list_get_and_delete_actions(client):
    create_env(client)
    created = env_action(client)
    assert created.status_code == 201
    body = created.get_json()
    assert {k: body[k] for k in ("name", "type", "number", "triggers", "environments",
                                 "created_by", "is_created_from_slack_app")} == {
        "name": "prod-watch", "type": "env", "number": 1, "triggers": ["ON_STARTED_ARTIFACT"],
        "environments": ["prod"], "created_by": "alice", "is_created_from_slack_app": False}
    assert body["targets"] == [{"type": "WEBHOOK", "webhook": PUBLIC_HOOK,
                                "payload_version": "1.0"}]
    updated = env_action(client, triggers=["ON_EXITED_ARTIFACT", "ON_COMPLIANT_ENV"])
    assert updated.status_code == 200 and updated.get_json()["number"] == 1
    client.put("/api/v2/flows/acme", headers=H, json={"name": "f1", "description": "",
                                                      "template": ["artifact"]})
    flow = client.put("/api/v2/actions/acme/flows", headers=H, json={
        "name": "releases", "flows": ["f1"], "triggers": ["ON_RELEASE", "ON_ATTESTATION"],
        "targets": [{"type": "SLACK", "webhook": "https://93.184.216.34/services/T/B/X"}]})
    assert flow.status_code == 201 and flow.get_json()["flows"] == ["f1"]
    listed = client.get("/api/v2/actions/acme", headers=H).get_json()
    assert [(a["number"], a["type"]) for a in listed] == [(1, "env"), (2, "flow")]
    assert client.get("/api/v2/actions/acme/2", headers=H).get_json()["name"] == "releases"
    deleted = client.delete("/api/v2/actions/acme/2", headers=H)
    assert deleted.status_code == 200 and isinstance(deleted.get_json(), str)
    assert client.get("/api/v2/actions/acme/2", headers=H).status_code == 404
    assert client.delete("/api/v2/actions/acme/2", headers=H).status_code == 404


def test_environment_notifications_are_the_environment_actions(client):
    create_env(client)
    path = "/api/v2/organizations/acme/environments_notifications"
    assert env_action(client, "n1", path=path).status_code == 201
    client.put("/api/v2/flows/acme", headers=H, json={"name": "f1", "description": "",
                                                      "template": ["artifact"]})
    client.put("/api/v2/actions/acme/flows", headers=H, json={
        "name": "flowish", "flows": ["f1"], "triggers": ["ON_STARTED_TRAIL"],
        "targets": [{"type": "WEBHOOK", "webhook": PUBLIC_HOOK}]})
    assert [n["name"] for n in client.get(path, headers=H).get_json()] == ["n1"]
    assert client.get(f"{path}/1", headers=H).get_json()["name"] == "n1"
    assert client.get(f"{path}/2", headers=H).status_code == 404  # a flow action
    replaced = client.put(f"{path}/1", headers=H, json={
        "name": "n1-renamed", "environments": ["prod"], "triggers": ["ON_SCALED_ARTIFACT"],
        "targets": [{"type": "WEBHOOK", "webhook": PUBLIC_HOOK}]})
    assert replaced.status_code == 200 and isinstance(replaced.get_json(), str)
    assert client.get(f"{path}/1", headers=H).get_json()["triggers"] == ["ON_SCALED_ARTIFACT"]
    assert client.delete(f"{path}/1", headers=H).status_code == 200
    assert client.get(path, headers=H).get_json() == []


@pytest.mark.parametrize("change, field", [
    ({"name": "bad name"}, "name"), ({"name": ""}, "name"),
    ({"triggers": ["ON_RELEASE"]}, "triggers"), ({"triggers": []}, "triggers"),
    ({"targets": []}, "targets"), ({"targets": [{"type": "PIGEON", "webhook": PUBLIC_HOOK}]},
                                   "targets[0].type"),
    ({"targets": [{"type": "WEBHOOK"}]}, "targets[0].webhook"),
    ({"targets": [{"type": "WEBHOOK", "webhook": PUBLIC_HOOK, "payload_version": "2.0"}]},
     "targets[0].payload_version"),
    ({"targets": [{"type": "EMAIL", "emails": ["ops@example.com"]}]}, "targets[0].type"),
    ({"targets": [{"type": "EMAIL", "emails": ["not-an-address"]}]}, "targets[0].emails"),
    ({"environments": ["nowhere"]}, "environments"),
    ({"type": "flow"}, "type"),
])
def test_bad_actions_are_refused_and_change_nothing(client, change, field):
    create_env(client)
    body = {"name": "a1", "environments": ["prod"], "triggers": ["ON_STARTED_ARTIFACT"],
            "targets": [{"type": "WEBHOOK", "webhook": PUBLIC_HOOK}], **change}
    answer = client.put("/api/v2/actions/acme/environments", headers=H, json=body)
    assert answer.status_code in (400, 404), answer.get_json()
    assert field in (answer.get_json().get("errors") or {}), answer.get_json()
    assert client.get("/api/v2/actions/acme", headers=H).get_json() == []


def test_unknown_fields_and_wrong_types_are_refused(client):
    create_env(client)
    for body in ({"name": "a", "environments": ["prod"], "triggers": ["ON_STARTED_ARTIFACT"],
                  "targets": [{"type": "WEBHOOK", "webhook": PUBLIC_HOOK}], "extra": 1},
                 {"name": 5, "environments": "prod", "triggers": [], "targets": {}}):
        assert client.put("/api/v2/actions/acme/environments", headers=H,
                          json=body).status_code == 400


def test_email_targets_need_an_smtp_server(client):
    create_env(client)
    target = [{"type": "EMAIL", "emails": ["ops@example.com"]}]
    refused = env_action(client, targets=target)
    assert refused.status_code == 400 and "SMTP" in refused.get_json()["message"]
    actions.configure_smtp("smtp://127.0.0.1:2525")
    try:
        assert env_action(client, targets=target).status_code == 201
    finally:
        actions.configure_smtp("")


def test_only_admins_manage_actions_and_other_organizations_see_none(client):
    create_env(client)
    assert env_action(client, key=ROLE_KEYS["member"]).status_code == 403
    assert env_action(client).status_code == 201
    assert client.get("/api/v2/actions/acme", headers=bearer(ROLE_KEYS["reader"])
                      ).status_code == 200
    assert client.delete("/api/v2/actions/acme/1", headers=bearer(ROLE_KEYS["member"])
                         ).status_code == 403
    for method, path in (("GET", "/api/v2/actions/acme"), ("GET", "/api/v2/actions/acme/1"),
                         ("DELETE", "/api/v2/actions/acme/1"),
                         ("GET", "/api/v2/organizations/acme/environments_notifications/1")):
        assert client.open(path, method=method, headers=bearer(BOB_KEY)).status_code == 403
    assert len(client.get("/api/v2/actions/acme", headers=H).get_json()) == 1


# ---- SSRF ------------------------------------------------------------------------------------

REFUSED_HOOKS = [
    "http://127.0.0.1/x", "http://localhost/x", "http://2130706433/x", "http://0177.0.0.1/x",
    "http://0x7f000001/x", "http://127.1/x", "http://[::1]/x", "http://[::ffff:127.0.0.1]/x",
    "http://[::ffff:7f00:1]/x", "http://[64:ff9b::7f00:1]/x", "http://[2002:7f00:1::]/x",
    "http://169.254.169.254/latest/meta-data", "http://[fd00:ec2::254]/x",
    "http://100.100.100.200/x", "http://10.0.0.1/x", "http://172.16.5.4/x",
    "http://192.168.1.1/x", "http://100.64.0.1/x", "http://224.0.0.1/x", "http://0.0.0.0/x",
    "http://[::]/x", "http://[fe80::1]/x", "http://[fc00::1]/x", "http://240.0.0.1/x",
    "http://[ff02::1]/x", "ftp://93.184.216.34/x", "http://user:pw@93.184.216.34/x",
    "http://93.184.216.34:99999/x", "http://93.184.216.34/a b", "javascript:alert(1)",
]


@pytest.mark.parametrize("hook", REFUSED_HOOKS)
def test_targets_on_internal_addresses_are_refused_when_saved(client, hook):
    create_env(client)
    answer = env_action(client, targets=[{"type": "WEBHOOK", "webhook": hook}])
    assert answer.status_code == 400, (hook, answer.get_json())
    assert "targets[0].webhook" in answer.get_json()["errors"]


def test_an_operators_ranges_are_refused_too():
    policy = outbound.Policy(deny=outbound.parse_cidrs("93.184.216.0/24, 2001:db8::/32"))
    with pytest.raises(outbound.OutboundRefused, match="operator"):
        outbound.vet(PUBLIC_HOOK, policy)
    assert outbound.vet("http://8.8.8.8/x", policy)[1] == "8.8.8.8"


def test_loopback_opt_in_allows_loopback_and_nothing_else():
    policy = outbound.Policy(allow_loopback=True)
    assert outbound.vet("http://127.0.0.1:9/x", policy)[1] == "127.0.0.1"
    for hook in ("http://10.0.0.1/x", "http://169.254.169.254/", "http://[fd00:ec2::254]/"):
        with pytest.raises(outbound.OutboundRefused):
            outbound.vet(hook, policy)


def test_a_name_is_resolved_again_before_each_post(client, receiver):
    """DNS rebinding: public when saved, loopback when delivered -> refused, nothing sent."""
    answers = {"saved": ["93.184.216.34"], "delivered": ["93.184.216.34", "127.0.0.1"]}
    phase = ["saved"]
    outbound.configure(outbound.Policy(resolver=lambda host, port: answers[phase[0]]))
    create_env(client)
    assert env_action(client, targets=[{"type": "WEBHOOK",
                                        "webhook": "http://hooks.example.com/x"}]
                      ).status_code == 201
    report(client, "prod", "a" * 64)
    phase[0] = "delivered"
    assert deliver_all() == 1
    message = OutboxMessage.get()
    assert message.delivered_at is None and "127.0.0.1" in message.last_error
    assert message.attempts == 1 and message.next_attempt_at > now()
    assert Action.get().last_failure_at is not None and Action.get().last_success_at is None
    assert receiver.received == []
    shown = client.get("/api/v2/actions/acme/1", headers=H).get_json()
    assert shown["is_failing"] is True and "last_failure_timestamp" in shown


def test_a_name_that_resolves_to_an_internal_address_when_saved_is_refused(client):
    outbound.configure(outbound.Policy(resolver=lambda host, port: ["10.1.2.3"]))
    try:
        create_env(client)
        answer = env_action(client, targets=[{"type": "WEBHOOK",
                                              "webhook": "http://intranet.example.com/"}])
        assert answer.status_code == 400 and "10.1.2.3" in str(answer.get_json())
    finally:
        outbound.configure(outbound.Policy())


# ---- triggers and delivery -----------------------------------------------------------------

def test_started_exited_and_scaled_artifacts_reach_a_webhook_and_slack(client, receiver):
    create_env(client, "prod", env_type="K8S")
    triggers = ["ON_STARTED_ARTIFACT", "ON_EXITED_ARTIFACT", "ON_SCALED_ARTIFACT"]
    assert env_action(client, targets=[{"type": "WEBHOOK", "webhook": f"{receiver.url}/hook"},
                                       {"type": "SLACK", "webhook": f"{receiver.url}/slack"}],
                      triggers=triggers).status_code == 201

    def pods(*counts: tuple[str, int]) -> dict[str, Any]:
        return {"artifacts": [{"podName": f"{fp[0]}{n}", "namespace": "default",
                               "digests": {f"img-{fp[0]}": fp}, "creationTimestamp": 5}
                              for fp, count in counts for n in range(count)]}

    a, b = "a" * 64, "b" * 64
    # a starts; a scales to two instances as b starts; both exit
    for report_body in (pods((a, 1)), pods((a, 2), (b, 1)), pods()):
        assert client.put("/api/v2/environments/acme/prod/report/K8S", headers=H,
                          json=report_body).status_code in (200, 201)
    assert deliver_all() == 10
    hooks = [body for path, body in receiver.received if path == "/hook"]
    assert sorted((h["event_type"], h["artifact"]["fingerprint"]) for h in hooks) == [
        ("ARTIFACT_EXITED", a), ("ARTIFACT_EXITED", b), ("ARTIFACT_SCALED", a),
        ("ARTIFACT_STARTED", a), ("ARTIFACT_STARTED", b)]
    scaled = next(h for h in hooks if h["event_type"] == "ARTIFACT_SCALED")
    assert scaled["description"] == "1 instance started running (from 1 to 2)"
    assert all(h["version"] == "1.0" and h["environment"] == "prod" for h in hooks)
    slack = [body for path, body in receiver.received if path == "/slack"]
    assert len(slack) == 5 and all(set(s) == {"text"} and "prod" in s["text"] for s in slack)
    assert OutboxMessage.select().where(OutboxMessage.delivered_at.is_null()).count() == 0
    assert Action.get().last_success_at is not None
    assert deliver_all() == 0


def test_compliance_notifications_fire_between_compliant_and_non_compliant_only(client,
                                                                                 receiver):
    """The hosted docs list two changes: compliant to non-compliant and back. From Unknown (a
    first snapshot, an environment without policies) to either fires nothing."""
    create_env(client)
    create_env(client, "staging")
    govern(client, "prod")
    env_action(client, targets=[{"type": "WEBHOOK", "webhook": receiver.url}],
               triggers=["ON_NON_COMPLIANT_ENV", "ON_COMPLIANT_ENV"],
               environments=["prod", "staging"])
    report(client, "prod", "b" * 64)  # a first snapshot, non-compliant (no provenance)
    report(client, "prod", "b" * 64, "c" * 64)  # still non-compliant
    report(client, "staging", "b" * 64)  # no policies: Unknown
    govern(client, "staging")  # judged again with a policy: Unknown to non-compliant
    assert OutboxMessage.select().count() == 0
    report(client, "prod")  # nothing running: compliant
    report(client, "prod", "b" * 64)  # non-compliant again
    assert [m.trigger for m in OutboxMessage.select().order_by(OutboxMessage.id)] == [
        "ON_COMPLIANT_ENV", "ON_NON_COMPLIANT_ENV"]
    assert deliver_all() == 2
    assert sorted(b["event_type"] for _, b in receiver.received) == [
        "ENVIRONMENT_COMPLIANT", "ENVIRONMENT_NON_COMPLIANT"]


def test_a_failed_report_enqueues_nothing(client):
    create_env(client)
    env_action(client)
    answer = client.put("/api/v2/environments/acme/prod/report/server", headers=H,
                        json={"artifacts": [{"digests": {"x": "not-a-digest"}}]})
    assert answer.status_code == 400
    assert OutboxMessage.select().count() == 0


def test_allowlist_and_flow_triggers_enqueue(client):
    create_env(client)
    client.put("/api/v2/flows/acme", headers=H, json={"name": "f1", "description": "",
                                                      "template": ["artifact"]})
    env_action(client, triggers=["ON_ALLOWED_ARTIFACT"])
    client.put("/api/v2/actions/acme/flows", headers=H, json={
        "name": "flow-watch", "flows": ["f1"],
        "triggers": ["ON_STARTED_TRAIL", "ON_ATTESTED_PROVENANCE", "ON_RELEASE"],
        "targets": [{"type": "WEBHOOK", "webhook": PUBLIC_HOOK}]})
    client.put("/api/v2/allowlists/acme/prod", headers=H, json={
        "artifact_fingerprint": "d" * 64, "artifact_name": "tool", "description": "ok"})
    client.put("/api/v2/trails/acme/f1", headers=H, content_type="multipart/form-data",
               data={"data_json": json.dumps({"name": "t1"})})
    assert report_artifact(client, "e" * 64, "app", flow="f1", trail="t1",
                           template_name=None).status_code == 201
    report(client, "prod", "e" * 64)
    assert sorted(m.trigger for m in OutboxMessage.select()) == [
        "ON_ALLOWED_ARTIFACT", "ON_ATTESTED_PROVENANCE", "ON_RELEASE", "ON_STARTED_TRAIL"]


def test_failures_retry_with_backoff_and_are_abandoned_after_the_last_attempt(client,
                                                                                receiver):
    receiver.status = 500
    create_env(client)
    env_action(client, targets=[{"type": "WEBHOOK", "webhook": receiver.url}])
    report(client, "prod", "a" * 64)
    for attempt in range(1, actions.MAX_ATTEMPTS + 1):
        OutboxMessage.update(next_attempt_at=0).execute()
        assert deliver_all() == 1
        message = OutboxMessage.get()
        assert message.attempts == attempt and "500" in message.last_error
    assert message.abandoned_at is not None
    OutboxMessage.update(next_attempt_at=0).execute()
    assert deliver_all() == 0
    assert len(receiver.received) == actions.MAX_ATTEMPTS


def test_a_claim_outlives_a_dead_worker_only_for_its_lease(client, receiver):
    create_env(client)
    env_action(client, targets=[{"type": "WEBHOOK", "webhook": receiver.url}])
    report(client, "prod", "a" * 64)
    assert len(actions.claim()) == 1  # this worker dies before sending
    assert actions.claim() == []  # the lease holds
    OutboxMessage.update(claimed_until=now() - 1).execute()  # the lease ran out
    assert deliver_all() == 1
    assert len(receiver.received) == 1


def test_the_outbox_survives_a_restart_and_a_new_worker_delivers(client, receiver):
    create_env(client)
    env_action(client, targets=[{"type": "WEBHOOK", "webhook": receiver.url}])
    for n in range(30):
        report(client, "prod", f"{n:064x}")  # no worker yet: all wait in the outbox
    assert OutboxMessage.select().count() == 30
    stop = threading.Event()
    worker = threading.Thread(target=delivery.run, args=(stop,), kwargs={"idle_seconds": 0.05})
    worker.start()
    deadline = time.monotonic() + 20
    while len(receiver.received) < 30 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    worker.join(10)
    assert len(receiver.received) == 30
    assert OutboxMessage.select().where(OutboxMessage.delivered_at.is_null()).count() == 0


def test_deleting_an_action_drops_its_pending_notifications(client):
    create_env(client)
    env_action(client)
    report(client, "prod", "a" * 64)
    assert OutboxMessage.select().count() == 1
    client.delete("/api/v2/actions/acme/1", headers=H)
    assert OutboxMessage.select().count() == 0


class _SmtpSink:
    """A minimal SMTP server on 127.0.0.1 keeping each message's recipients and body."""

    def __init__(self) -> None:
        import socketserver

        messages: list[tuple[list[str], str]] = []
        self.messages = messages

        class Session(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                self.wfile.write(b"220 sink ready\r\n")
                recipients: list[str] = []
                while line := self.rfile.readline().decode():
                    verb = line[:4].upper()
                    if verb in ("HELO", "EHLO"):
                        self.wfile.write(b"250 sink\r\n")
                    elif verb == "RCPT":
                        recipients.append(line.split(":", 1)[1].strip(" <>\r\n"))
                        self.wfile.write(b"250 ok\r\n")
                    elif verb == "DATA":
                        self.wfile.write(b"354 go on\r\n")
                        body = []
                        while (part := self.rfile.readline().decode()) not in (".\r\n", ""):
                            body.append(part)
                        messages.append((recipients, "".join(body)))
                        self.wfile.write(b"250 kept\r\n")
                    elif verb == "QUIT":
                        self.wfile.write(b"221 bye\r\n")
                        return
                    else:
                        self.wfile.write(b"250 ok\r\n")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Session)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_email_targets_are_sent_through_the_configured_smtp_server(client):
    sink = _SmtpSink()
    actions.configure_smtp(f"smtp://127.0.0.1:{sink.server.server_address[1]}")
    try:
        create_env(client)
        assert env_action(client, targets=[{"type": "EMAIL", "emails": ["ops@example.com",
                                                                        "sre@example.com"]}]
                          ).status_code == 201
        report(client, "prod", "a" * 64)
        assert deliver_all() == 1
    finally:
        actions.configure_smtp("")
        sink.close()
    [(recipients, body)] = sink.messages
    assert recipients == ["ops@example.com", "sre@example.com"]
    message = email.message_from_string(body, policy=email.policy.default)
    assert message["Subject"].strip() == ("[acme] ARTIFACT_STARTED in prod: 1 instance started running "
                                  "(from 0 to 1)")
    document = json.loads(message.get_content())
    assert (document["event_type"], document["artifact"]["fingerprint"]) == (
        "ARTIFACT_STARTED", "a" * 64)
    assert OutboxMessage.get().delivered_at is not None
