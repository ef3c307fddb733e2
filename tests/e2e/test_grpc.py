"""The gRPC face of a real server: reflection (as grpcurl uses it), health checking and
authentication; and the split deployment, a gRPC server and a REST shim as separate processes."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import grpc
import pytest
import requests
from google.api import annotations_pb2
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from tests.conftest import (
    ALICE_KEY,
    BOB_KEY,
    BOOTSTRAP,
    HOUSE_RULES,
    RunningServer,
    _grpc_ready,
    bearer,
    free_port,
    start_server,
    stop_server,
)

pytestmark = pytest.mark.e2e

EVIDENCE_SERVICES = {"evidence.v2.FlowService", "evidence.v2.TrailService",
                     "evidence.v2.OrganizationService", "evidence.v2.ReadinessService"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    tmp = tmp_path_factory.mktemp("grpc-server")
    running = start_server(f"sqlite:///{tmp / 'evidence.db'}", tmp)
    yield running
    stop_server(running)


@pytest.fixture
def channel(live: RunningServer) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(live.grpc_target) as ch:
        yield ch


class Reflected:
    """What grpcurl does: resolve a service through server reflection alone, then call its
    methods with JSON in and JSON out. Nothing here uses the project's generated modules: the
    descriptors live in a pool of their own, filled only from the server's answers."""

    def __init__(self, channel: grpc.Channel, service: str) -> None:
        self.database = ProtoReflectionDescriptorDatabase(channel)
        self.pool = descriptor_pool.DescriptorPool(self.database)
        self.service = self.pool.FindServiceByName(service)
        self.channel = channel

    def call(self, method_name: str, request: dict, key: str | None = ALICE_KEY) -> dict:
        method = self.service.methods_by_name[method_name]
        request_class = message_factory.GetMessageClass(method.input_type)
        response_class = message_factory.GetMessageClass(method.output_type)
        stub = self.channel.unary_unary(
            f"/{self.service.full_name}/{method.name}",
            request_serializer=request_class.SerializeToString,
            response_deserializer=response_class.FromString)
        metadata = [("authorization", f"Bearer {key}")] if key else []
        response = stub(json_format.ParseDict(request, request_class()), metadata=metadata,
                        timeout=10)
        return json_format.MessageToDict(response, preserving_proto_field_name=True)


# ---- reflection -------------------------------------------------------------------------------

def test_reflection_lists_the_evidence_services(channel: grpc.Channel):
    services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
    assert EVIDENCE_SERVICES <= services
    assert {"grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"} <= services


def test_reflection_describes_methods_with_their_http_rules(channel: grpc.Channel):
    trails = Reflected(channel, "evidence.v2.TrailService")
    assert trails.service.file.pool is trails.pool
    assert trails.service.file.pool is not descriptor_pool.Default()
    assert trails.service.file.name == "evidence/v2/trail_service.proto"
    assert {"BeginTrail", "GetTrail", "ListTrails"} <= set(trails.service.methods_by_name)
    get_trail = trails.service.methods_by_name["GetTrail"]
    assert get_trail.input_type.full_name == "evidence.v2.GetTrailRequest"
    assert get_trail.output_type.full_name == "evidence.v2.Trail"
    rule = get_trail.GetOptions().Extensions[annotations_pb2.http]
    assert rule.get == "/api/v2/trails/{org}/{flow_name}/{trail_name}"


def test_dynamic_calls_through_reflection(live: RunningServer, channel: grpc.Channel):
    flows = Reflected(channel, "evidence.v2.FlowService")
    trails = Reflected(channel, "evidence.v2.TrailService")
    created = flows.call("UpsertFlow", {"org": "acme", "name": "reflected",
                                        "description": "made over gRPC", "template": ["build"]})
    assert created["created"] is True
    assert created["flow"]["name"] == "reflected"

    begun = trails.call("BeginTrail", {"org": "acme", "flow_name": "reflected",
                                       "data_json": {"name": "t1", "description": "dynamic",
                                                     "user_data": {"n": 1}}})
    assert begun["created"] is True
    trail = trails.call("GetTrail", {"org": "acme", "flow_name": "reflected", "trail_name": "t1"})
    assert trail["name"] == "t1"
    assert trail["description"] == "dynamic"
    assert trail["user_data"] == {"n": 1.0}
    assert trail["flow"]["name"] == "reflected"
    listed = trails.call("ListTrails", {"org": "acme", "flow": "reflected"})
    assert [t["name"] for t in listed["data"]] == ["t1"]

    # The REST face sees what the gRPC face wrote.
    rest = requests.get(f"{live.http_url}/api/v2/trails/acme/reflected/t1", headers=bearer(),
                        timeout=10)
    assert rest.status_code == 200
    assert rest.json()["description"] == "dynamic"

    # Attesting to a flow and trail not set up creates them, over gRPC as over REST.
    attestations = Reflected(channel, "evidence.v2.AttestationService")
    attestations.call("CreateAttestation", {
        "org": "acme", "flow_name": "reflected-adhoc", "trail_name": "t9", "kind": "generic",
        "data_json": {"attestation_name": "smoke", "is_compliant": True, "user_data": {}}})
    made = trails.call("GetTrail", {"org": "acme", "flow_name": "reflected-adhoc",
                                    "trail_name": "t9"})
    assert made["compliance_state"] == "COMPLIANT"


def test_dynamic_call_errors_carry_status_codes(channel: grpc.Channel):
    flows = Reflected(channel, "evidence.v2.FlowService")
    with pytest.raises(grpc.RpcError) as missing:
        flows.call("GetFlow", {"org": "acme", "flow_name": "no-such-flow"})
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    assert missing.value.details() == "Flow named 'no-such-flow' does not exist for organization 'acme'"


def test_attaching_an_unknown_policy_is_not_found_and_attaches_nothing(channel: grpc.Channel):
    environments = Reflected(channel, "evidence.v2.EnvironmentService")
    environments.call("UpsertEnvironment", {"org": "acme", "name": "grpc-prod", "type": "server"})
    policies = Reflected(channel, "evidence.v2.PolicyService")
    with pytest.raises(grpc.RpcError) as missing:
        policies.call("AttachPolicies", {"org": "acme", "env_name": "grpc-prod",
                                         "policy_names": ["no-such-policy"]})
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    assert "no-such-policy" in missing.value.details()
    env = environments.call("GetEnvironment", {"org": "acme", "env_name": "grpc-prod"})
    assert env.get("policies", []) == []
    with pytest.raises(grpc.RpcError) as patched:
        environments.call("UpdateEnvironment", {"org": "acme", "env_name": "grpc-prod",
                                                "description": "new",
                                                "policies": ["no-such-policy"]})
    assert patched.value.code() == grpc.StatusCode.NOT_FOUND
    env = environments.call("GetEnvironment", {"org": "acme", "env_name": "grpc-prod"})
    assert (env.get("description", ""), env.get("policies", [])) == ("", [])


def test_a_snapshot_keeps_its_verdict_over_grpc(live: RunningServer, channel: grpc.Channel):
    """Policy from REST (a multipart upload), everything else over gRPC: snapshot #1 is judged
    when made; an allowlisting afterwards shows in #2 only."""
    created = requests.put(f"{live.http_url}/api/v2/policies/acme", headers=bearer(), timeout=10,
                           data={"payload": json.dumps({"name": "grpc-rules", "type": "env"})},
                           files={"policy_file": ("p.yml", HOUSE_RULES)})
    assert created.status_code == 201, created.text
    environments = Reflected(channel, "evidence.v2.EnvironmentService")
    snapshots = Reflected(channel, "evidence.v2.SnapshotService")
    environments.call("UpsertEnvironment", {"org": "acme", "name": "grpc-edge", "type": "server"})
    Reflected(channel, "evidence.v2.PolicyService").call(
        "AttachPolicies", {"org": "acme", "env_name": "grpc-edge", "policy_names": ["grpc-rules"]})

    def report(name: str) -> None:
        environments.call("ReportEnvironment", {
            "org": "acme", "env_name": "grpc-edge", "type": "server",
            "report": {"artifacts": [{"digests": {name: "f" * 64}, "creationTimestamp": 1}]}})

    def compliant(expression: str) -> bool:
        return snapshots.call("GetSnapshot", {"org": "acme", "env_name": "grpc-edge",
                                              "snapshot_expression": expression}
                              ).get("compliant", False)  # proto3: false is left out of JSON

    report("tool")
    assert compliant("-1") is False  # no provenance
    allowed = environments.call("AllowArtifact", {
        "org": "acme", "env_name": "grpc-edge", "artifact_name": "tool",
        "artifact_fingerprint": "f" * 64, "description": "vendor"})
    assert allowed["allowed"]["artifact_fingerprint"] == "f" * 64
    assert (allowed["entry"]["fingerprint"], allowed["entry"]["user_name"]) == ("f" * 64, "alice")
    assert compliant("-1") is False
    assert environments.call("GetEnvironment", {"org": "acme", "env_name": "grpc-edge"})[
        "state"] is False
    report("vendor-tool")
    assert (compliant("-1"), compliant("1")) == (True, False)
    listed = snapshots.call("ListSnapshots", {"org": "acme", "env_name": "grpc-edge"})
    assert [(s["index"], s.get("compliant", False)) for s in listed["snapshots"]] == [
        (2, True), (1, False)]
    assert environments.call("GetEnvironment", {"org": "acme", "env_name": "grpc-edge"})[
        "state"] is True


def test_controls_over_a_real_grpc_server(channel: grpc.Channel):
    from evidence_grpc.api.v2 import control_service_pb2 as control_pb
    from evidence_grpc.api.v2 import control_service_pb2_grpc as control_grpc

    controls = control_grpc.ControlServiceStub(channel)
    alice = (("authorization", f"Bearer {ALICE_KEY}"),)
    create = control_pb.CreateControlRequest(org="acme", identifier="grpc-ctl", name="Review")
    create.links.update({"runbook.v1": "https://wiki.example/r"})
    created = controls.CreateControl(create, metadata=alice, timeout=10)
    assert (created.identifier, created.version, dict(created.links)) == (
        "grpc-ctl", 1, {"runbook.v1": "https://wiki.example/r"})
    refusals = [
        (create, alice, grpc.StatusCode.ALREADY_EXISTS),
        (control_pb.CreateControlRequest(org="acme", identifier="bad id", name="x"), alice,
         grpc.StatusCode.INVALID_ARGUMENT),
        (control_pb.CreateControlRequest(org="acme-shared", identifier="c", name="x"), alice,
         grpc.StatusCode.PERMISSION_DENIED),
        (control_pb.CreateControlRequest(org="acme", identifier="c", name="x"),
         (("authorization", f"Bearer {BOB_KEY}"),), grpc.StatusCode.PERMISSION_DENIED),
    ]
    for request, metadata, code in refusals:
        with pytest.raises(grpc.RpcError) as refused:
            controls.CreateControl(request, metadata=metadata, timeout=10)
        assert refused.value.code() == code, refused.value.details()
    with pytest.raises(grpc.RpcError) as missing:
        controls.GetControl(control_pb.GetControlRequest(org="acme", identifier="nope"),
                            metadata=alice, timeout=10)
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    archived = controls.ArchiveControl(
        control_pb.ArchiveControlRequest(org="acme", identifier="grpc-ctl"), metadata=alice)
    assert (archived.archived, archived.version) == (True, 2)
    listed = controls.ListControls(control_pb.ListControlsRequest(org="acme", archived=True),
                                   metadata=alice)
    assert "grpc-ctl" in [c.identifier for c in listed.controls]
    versions = controls.ListControlVersions(
        control_pb.ListControlVersionsRequest(org="acme", identifier="grpc-ctl"), metadata=alice)
    assert [v.event for v in versions.versions] == ["Archived", "Created"]


# ---- health -----------------------------------------------------------------------------------

def test_health_check_is_serving(channel: grpc.Channel):
    health = health_pb2_grpc.HealthStub(channel)
    for service in ["", *sorted(EVIDENCE_SERVICES)]:
        answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING, service
    with pytest.raises(grpc.RpcError) as unknown:
        health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND


# ---- authentication ---------------------------------------------------------------------------

def test_calls_without_credentials_are_unauthenticated(channel: grpc.Channel):
    flows = Reflected(channel, "evidence.v2.FlowService")
    with pytest.raises(grpc.RpcError) as anonymous:
        flows.call("ListFlows", {"org": "acme"}, key=None)
    assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as unknown_key:
        flows.call("ListFlows", {"org": "acme"}, key="not-a-key")
    assert unknown_key.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as other_org:
        flows.call("ListFlows", {"org": "acme"}, key=BOB_KEY)
    assert other_org.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert flows.call("ListFlows", {"org": "other"}, key=BOB_KEY).get("data", []) == []


def test_readiness_needs_no_credentials(channel: grpc.Channel):
    readiness = Reflected(channel, "evidence.v2.ReadinessService")
    answer = readiness.call("GetReadiness", {}, key=None)
    assert base64.b64decode(answer["data"]) == b"OK"


# ---- split deployment -------------------------------------------------------------------------

def evidence_server() -> list[str]:
    """The installed console script, or the module when the package is not installed."""
    script = shutil.which("evidence-server", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "evidence_grpc.cli"]


def wait_until(ready: Callable[[], bool], processes: list[subprocess.Popen],
               logs: list[pathlib.Path]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in processes):
            break
        try:
            if ready():
                return
        except (requests.ConnectionError, requests.Timeout):  # still starting
            pass
        time.sleep(0.2)
    raise AssertionError("not ready:\n" + "\n".join(log.read_text() for log in logs))


def test_split_grpc_server_and_shim_on_one_database(database_url: str, tmp_path: pathlib.Path):
    boot = tmp_path / "bootstrap.json"
    boot.write_text(json.dumps(BOOTSTRAP))
    subprocess.run([*evidence_server(), "bootstrap", str(boot), "--database-url", database_url],
                   check=True, capture_output=True, timeout=60)
    grpc_target = f"127.0.0.1:{free_port()}"
    http_port = free_port()
    logs = [tmp_path / "grpc.log", tmp_path / "shim.log"]
    outputs = [log.open("wb") for log in logs]
    grpc_server = subprocess.Popen(
        [*evidence_server(), "grpc", "--grpc-addr", grpc_target, "--database-url", database_url],
        stdout=outputs[0], stderr=subprocess.STDOUT)
    # The shim gets a database it cannot open: everything it serves must come over gRPC.
    shim = subprocess.Popen(
        [*evidence_server(), "shim", "--http-addr", f"127.0.0.1:{http_port}", "--workers", "1",
         "--grpc-target", grpc_target, "--database-url", f"sqlite:///{tmp_path}/absent/x.db"],
        stdout=outputs[1], stderr=subprocess.STDOUT)
    server = RunningServer(f"http://127.0.0.1:{http_port}", grpc_target, database_url, shim)
    try:
        wait_until(lambda: _grpc_ready(grpc_target), [grpc_server, shim], logs)
        wait_until(lambda: requests.get(f"{server.http_url}/ready", timeout=1).status_code == 200,
                   [grpc_server, shim], logs)

        assert server.kosli("status").stdout.strip() == "OK"
        created = server.kosli("create", "flow", "split", "--use-empty-template")
        assert created.stdout.strip() == "flow 'split' was created"
        begun = server.kosli("begin", "trail", "t1", "--flow", "split", "--description", "via shim")
        assert begun.stdout.strip() == "trail 't1' was begun"
        again = server.kosli("begin", "trail", "t1", "--flow", "split")
        assert again.stdout.strip() == "trail 't1' was updated"
        trail = server.kosli_json("get", "trail", "t1", "--flow", "split")
        assert trail["name"] == "t1"
        assert [e["type"] for e in trail["events"]] == ["trail_reported", "trail_updated"]
        table = server.kosli("get", "trail", "t1", "--flow", "split").stdout
        assert "Name:              t1" in table and "trail started" in table
        refused = server.kosli("get", "flow", "split", key=BOB_KEY, check=False)
        assert refused.returncode == 1
        assert "] Access denied to /api/v2/flows/acme/split\n" in refused.stderr
        missing = server.kosli("get", "flow", "absent", check=False)
        assert missing.returncode == 1 and "Flow named 'absent' does not exist" in missing.stderr

        # One request id, from the shim's request into the gRPC server's call (JSON log lines).
        answered = requests.get(f"{server.http_url}/api/v2/flows/acme/split", headers={
            **bearer(), "x-request-id": "split-1"}, timeout=10)
        assert answered.headers["x-request-id"] == "split-1"
        time.sleep(0.3)  # the lines are written as the calls end
        seen = {log.name: [json.loads(line) for line in log.read_text().splitlines()
                           if line.startswith("{") and '"split-1"' in line] for log in logs}
        assert [(line["message"], line["route"]) for line in seen["shim.log"]] == \
            [("request", "/api/v2/flows/<org>/<flow_name>")]
        assert [(line["message"], line["rpc"], line["code"]) for line in seen["grpc.log"]] == \
            [("rpc", "/evidence.v2.FlowService/GetFlow", "OK")]

        # With the gRPC server gone the shim stays up and reports the service as down.
        grpc_server.terminate()
        grpc_server.wait(15)
        assert server.kosli("status").stdout.strip() == "Kosli is Down"
        assert requests.get(f"{server.http_url}/ready", timeout=10).status_code == 503
    finally:
        for process in (shim, grpc_server):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
        for output in outputs:
            output.close()


def test_reporting_an_artifact_over_grpc_begins_its_trail(channel: grpc.Channel):
    flows = Reflected(channel, "evidence.v2.FlowService")
    artifacts = Reflected(channel, "evidence.v2.ArtifactService")
    trails = Reflected(channel, "evidence.v2.TrailService")
    flows.call("UpsertFlow", {"org": "acme", "name": "implicit-trail", "description": ""})
    reported = artifacts.call("ReportArtifact", {
        "org": "acme", "flow_name": "implicit-trail",
        "artifact": {"fingerprint": "7" * 64, "filename": "app", "trail_name": "begun-by-artifact",
                     "build_url": "https://ci.example/1", "commit_url": "https://git.example/c"}})
    assert reported["fingerprint"] == "7" * 64
    trail = trails.call("GetTrail", {"org": "acme", "flow_name": "implicit-trail",
                                     "trail_name": "begun-by-artifact"})
    assert trail["name"] == "begun-by-artifact"
    with pytest.raises(grpc.RpcError) as missing:
        trails.call("GetTrail", {"org": "acme", "flow_name": "implicit-trail", "trail_name": "t9"})
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    assert missing.value.details() == ("Trail with name 't9' does not exist for Organization "
                                       "'acme' and Flow 'implicit-trail'")


# ---- asserts ------------------------------------------------------------------------------------

def test_assert_artifact_answers_typed_messages(live: RunningServer, channel: grpc.Channel):
    from evidence_grpc.api.v2 import assert_service_pb2, assert_service_pb2_grpc

    fingerprint = "c" * 64
    Reflected(channel, "evidence.v2.FlowService").call(
        "UpsertFlow", {"org": "acme", "name": "asserted", "description": ""})
    Reflected(channel, "evidence.v2.TrailService").call(
        "BeginTrail", {"org": "acme", "flow_name": "asserted", "data_json": {"name": "t1"}})
    reported = requests.post(f"{live.http_url}/api/v2/artifacts/acme/asserted", headers=bearer(),
                             json={"fingerprint": fingerprint, "filename": "app",
                                   "trail_name": "t1", "build_url": "https://ci.example/1",
                                   "commit_url": "https://git.example/c"}, timeout=10)
    assert reported.status_code == 201, reported.text
    policy = b"_schema: https://docs.kosli.com/schemas/policy/v1\nartifacts:\n" \
             b"  attestations:\n    - name: review\n      type: generic\n"
    Reflected(channel, "evidence.v2.PolicyService").call("UpsertPolicy", {
        "org": "acme", "payload": {"name": "reviewed", "description": "", "comment": ""},
        "policy_file": {"filename": "p.yml",
                        "content": base64.b64encode(policy).decode()}})

    stub = assert_service_pb2_grpc.AssertServiceStub(channel)
    metadata = [("authorization", f"Bearer {ALICE_KEY}")]
    answer = stub.AssertArtifact(assert_service_pb2.AssertArtifactRequest(
        org="acme", fingerprint=fingerprint, policy_name=["reviewed"]), metadata=metadata,
        timeout=10)
    assert isinstance(answer, assert_service_pb2.AssertArtifactResponse)
    assert (answer.compliant, answer.scope) == (False, "policy")
    evaluation = answer.policy_evaluations[0]
    assert (evaluation.policy_name, evaluation.status) == ("reviewed", "NON-COMPLIANT")
    failed = [r for r in evaluation.rule_evaluations if r.HasField("satisfied")]
    assert [(r.rule.type, r.resolutions[0].type, r.resolutions[0].context.trail_name)
            for r in failed] == [("attestation", "missing_attestation", "t1")]
    assert [(f.flow, f.trail, f.compliance_status.status) for f in answer.flows] == [
        ("asserted", "t1", "COMPLIANT")]

    with pytest.raises(grpc.RpcError) as missing:
        stub.AssertArtifact(assert_service_pb2.AssertArtifactRequest(
            org="acme", fingerprint="d" * 64, flow_name="asserted"), metadata=metadata,
            timeout=10)
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    assert missing.value.details() == (f"Artifact with fingerprint '{'d' * 64}' does not exist "
                                       "in flow 'asserted' belonging to organization 'acme'")


def test_both_doors_link_to_the_public_url_and_serve_keeps_every_process(
        tmp_path: pathlib.Path):
    """`serve --public-url` gives the gRPC process and the shim the same html base, and the
    delivery worker (which takes no such option) still starts with them."""
    from evidence_grpc.api.v2 import trail_service_pb2, trail_service_pb2_grpc

    running = start_server(f"sqlite:///{tmp_path / 'evidence.db'}", tmp_path,
                           "--public-url", "https://evidence.example")
    try:
        running.kosli("create", "flow", "f1", "--use-empty-template")
        running.kosli("begin", "trail", "t1", "--flow", "f1")
        rest = requests.get(f"{running.http_url}/api/v2/trails/acme/f1/t1", headers=bearer(),
                            timeout=10).json()
        with grpc.insecure_channel(running.grpc_target) as channel:
            answer = trail_service_pb2_grpc.TrailServiceStub(channel).GetTrail(
                trail_service_pb2.GetTrailRequest(org="acme", flow_name="f1", trail_name="t1"),
                metadata=(("authorization", f"Bearer {ALICE_KEY}"),))
        assert rest["html_url"] == answer.html_url
        assert answer.html_url.startswith("https://evidence.example/acme/flows/f1")
        time.sleep(1)
        assert running.process.poll() is None  # no child (the delivery worker) gave up
    finally:
        stop_server(running)
