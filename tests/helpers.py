"""Helpers the tests share: requests shaped as the kosli CLI sends them, servicers run as a caller,
error details, fixtures and data that modules in several folders use. Import them from here,
never from another test module."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import re
import tarfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from google.protobuf import descriptor
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from evidence_grpc import delivery
from evidence_grpc.domain.evidence import artifacts
from evidence_grpc.domain.identity.callers import reset_current_caller, set_current_caller
from evidence_grpc.domain.kernel import list_sizes
from evidence_grpc.domain.kernel.ids import hosted_id
from evidence_grpc.domain.runtime import deployments, snapshots
from evidence_grpc.services import service_descriptors
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.migrations.legacy_verdicts import judge_all
from evidence_grpc.storage.models import (
    AllowlistEntry,
    Approval,
    Artifact,
    Attestation,
    Deployment,
    Environment,
    EnvironmentEvent,
    Flow,
    FlowTemplate,
    Organization,
    Repo,
    Snapshot,
    Trail,
)
from rest_shim.transcoder import Route, routes_of
from tests.conftest import ALICE_KEY, bearer

# ---- evidence over REST, shaped as the kosli CLI sends it ----------------------------------------

H = bearer()
TEMPLATE = """\
version: 1
trail:
  attestations:
    - name: unit-tests
      type: junit
  artifacts:
    - name: backend
      attestations:
        - name: scan
          type: snyk
"""
COMMIT = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
OTHER_COMMIT = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"
BACKEND_FP = hashlib.sha256(b"backend build 1").hexdigest()
FRONTEND_FP = hashlib.sha256(b"frontend build 1").hexdigest()


def create_flow(client, name: str = "payments", template: str = TEMPLATE) -> None:
    answer = client.put("/api/v2/flows/acme/template_file", headers=H,
                        content_type="multipart/form-data",
                        data={"data_json": json.dumps({"name": name, "description": ""}),
                              "template_file": (io.BytesIO(template.encode()), "template.yml")})
    assert answer.status_code == 201, answer.json


def begin_trail(client, flow: str = "payments", trail: str = "release-1",
                **fields: Any) -> None:
    answer = client.put(f"/api/v2/trails/acme/{flow}", headers=H,
                        content_type="multipart/form-data",
                        data={"data_json": json.dumps({"name": trail, **fields})})
    assert answer.status_code == 201, answer.json


def attest(client, kind: str, data: dict[str, Any], flow: str = "payments",
           trail: str = "release-1", attachment: tuple[str, bytes] | None = None):
    """POST an attestation as the CLI does: multipart data_json (+ attachment_file)."""
    form: dict[str, Any] = {"data_json": json.dumps(data)}
    if attachment is not None:
        form["attachment_file"] = (io.BytesIO(attachment[1]), attachment[0])
    return client.post(f"/api/v2/attestations/acme/{flow}/trail/{trail}/{kind}", headers=H,
                       content_type="multipart/form-data", data=form)


def trail_attestations(client, name: str, flow: str = "payments",
                       trail: str = "release-1") -> list[dict[str, Any]]:
    got = client.get(f"/api/v2/attestations/acme/{flow}/trail/{trail}/{name}", headers=H)
    assert got.status_code == 200, got.json
    assert isinstance(got.json, list)
    return got.json


def report_artifact(client, fingerprint: str = BACKEND_FP, filename: str = "backend.tgz",
                    flow: str = "payments", trail: str = "release-1",
                    template_name: str | None = "backend", commit: str | None = COMMIT,
                    branch: str = "main"):
    body: dict[str, Any] = {
        "fingerprint": fingerprint, "filename": filename, "git_commit": commit,
        "build_url": "https://ci.example/build/1",
        "commit_url": f"https://github.com/acme/payments/commit/{commit}",
        "repo_url": "https://github.com/acme/payments", "trail_name": trail,
        "template_reference_name": template_name}
    if commit:
        body["git_commit_info"] = {"sha1": commit, "message": "Build", "author": "Alice <a@x>",
                                   "branch": branch, "timestamp": 1700000000}
    return client.post(f"/api/v2/artifacts/acme/{flow}", headers=H, json=body)


def get_trail(client, flow: str = "payments", trail: str = "release-1") -> dict[str, Any]:
    got = client.get(f"/api/v2/trails/acme/{flow}/{trail}", headers=H)
    assert got.status_code == 200, got.json
    return got.json


@pytest.fixture
def trail(client):
    """Flow `payments` (TEMPLATE) with trail `release-1`."""
    create_flow(client)
    begin_trail(client)
    return client


COVERAGE_SCHEMA = {"type": "object", "required": ["line_coverage"],
                   "properties": {"line_coverage": {"type": "number"},
                                  "tool": {"type": "string"}}}


def create_type(client, name: str = "coverage", rules: list[str] | None = None,
                schema: dict[str, Any] | None = COVERAGE_SCHEMA, **extra: Any):
    data: dict[str, Any] = {"name": name, "description": "Line coverage", **extra}
    if rules is not None:
        data["evaluator"] = {"content_type": "jq", "rules": rules}
    form: dict[str, Any] = {"data_json": json.dumps(data)}
    if schema is not None:
        form["type_schema"] = (io.BytesIO(json.dumps(schema).encode()), "schema.json")
    return client.post("/api/v2/custom-attestation-types/acme", headers=H,
                       content_type="multipart/form-data", data=form)


def custom(data: Any, type_name: str = "coverage", name: str = "coverage") -> dict[str, Any]:
    return {"attestation_name": name, "type_name": type_name, "attestation_data": data,
            "user_data": {}}


def override(client, name: str, original_type: str, compliant: bool, reason: str = "accepted",
             **extra: Any):
    return client.post("/api/v2/attestations/acme/payments/trail/release-1/override", headers=H,
                       json={"attestation_name": name, "original_attestation_type": original_type,
                             "new_compliance_status": compliant, "reason": reason,
                             "user_data": {}, **extra})


# ---- servicers called as a caller; the rich status of a failed gRPC call -------------------------

class AsCaller:
    """A servicer whose methods run as `caller` inside a database connection, which is what
    the auth and database interceptors provide on a real server."""

    def __init__(self, servicer, caller):
        self._servicer, self._caller = servicer, caller

    def __getattr__(self, name):
        method = getattr(self._servicer, name)

        def call(request, context):
            with storage.database.connection_context():
                token = set_current_caller(self._caller)
                try:
                    return method(request, context)
                finally:
                    reset_current_caller(token)

        return call


def details_of(error):
    """(ErrorInfo, {field: description}) from the rich status of a failed call."""
    status = rpc_status.from_call(error)
    assert status is not None, "no rich status in the trailing metadata"
    assert status.code == error.code().value[0]
    assert status.message == error.details()
    info, violations = None, {}
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad_request = error_details_pb2.BadRequest()
            detail.Unpack(bad_request)
            violations = {v.field: v.description for v in bad_request.field_violations}
    return info, violations


# ---- the contract's error body -------------------------------------------------------------------

def assert_error(response, status, field=None, message=None):
    """A JSON error body of the contract; returns it."""
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    assert response.mimetype == "application/json"
    body = json.loads(response.get_data(as_text=True))
    assert isinstance(body, dict)
    assert set(body) <= {"message", "errors"}
    assert isinstance(body["message"], str) and body["message"]
    if "errors" in body:
        assert isinstance(body["errors"], dict) and body["errors"]
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in body["errors"].items())
    if field is not None:
        assert field in body.get("errors", {}), body
    if message is not None:
        assert body["message"] == message
    return body


# ---- environment policies ------------------------------------------------------------------------

def put_policy(client, yaml_text: bytes, name: str = "prod-policy", key: str | None = None, **payload):
    body = {"name": name, "description": "d", "type": "env", "comment": "c", **payload}
    return client.put("/api/v2/policies/acme", headers=bearer(key) if key else bearer(),
                      data={"payload": json.dumps(body),
                            "policy_file": (io.BytesIO(yaml_text), "p.yml")},
                      content_type="multipart/form-data")


# ---- policies that judge snapshots; what runs in an environment ----------------------------------

SCHEMA = "_schema: https://docs.kosli.com/schemas/policy/v1\n"
NEEDS_SIGNED = SCHEMA + """artifacts:
  provenance:
    required: true
  trail-compliance:
    required: true
  attestations:
    - name: signed
      type: generic
"""
RISKY_ONLY = SCHEMA + """artifacts:
  provenance:
    required: true
    exceptions:
      - if: ${{ matches(artifact.name, "^datadog:") }}
  attestations:
    - if: ${{ flow.tags.risk == "high" }}
      name: pen-test
      type: "*"
"""


def report_running(client, env: str, *artifacts: tuple[str, str]) -> None:
    answer = client.put(f"/api/v2/environments/acme/{env}/report/server", headers=H,
                        json={"artifacts": [{"digests": {name: fp}, "creationTimestamp": 5}
                                            for name, fp in artifacts]})
    assert answer.status_code in (200, 201), answer.get_json()


# ---- actions, their receivers and deliveries -----------------------------------------------------

PUBLIC_HOOK = "http://93.184.216.34/hooks/evidence"


class Receiver:
    """An HTTP server on 127.0.0.1 that keeps what is POSTed to it."""

    def __init__(self, status: int = 200) -> None:
        received: list[tuple[str, dict[str, Any]]] = []
        self.received = received
        self.status = status
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((self.path, json.loads(body)))
                self.send_response(outer.status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler,
                                                      bind_and_activate=False)
        self.server.request_queue_size = 128  # the default 5 resets a worker's bursts
        self.server.server_bind()
        self.server.server_activate()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def create_env(client, name: str = "prod", env_type: str = "server") -> None:
    assert client.put("/api/v2/environments/acme", headers=H,
                      json={"name": name, "type": env_type, "description": ""}
                      ).status_code in (200, 201)


def env_action(client, name: str = "prod-watch", targets: list[dict] | None = None,
               triggers: list[str] | None = None, environments: list[str] | None = None,
               key: str | None = None, path: str = "/api/v2/actions/acme/environments"):
    return client.put(path, headers=bearer(key) if key else H, json={
        "name": name, "targets": targets or [{"type": "WEBHOOK", "webhook": PUBLIC_HOOK}],
        "environments": ["prod"] if environments is None else environments,
        "triggers": triggers or ["ON_STARTED_ARTIFACT"]})


def report_fingerprints(client, env: str = "prod", *fingerprints: str):
    answer = client.put(f"/api/v2/environments/acme/{env}/report/server", headers=H,
                        json={"artifacts": [{"digests": {f"app-{fp[:4]}": fp},
                                             "creationTimestamp": 5} for fp in fingerprints]})
    assert answer.status_code in (200, 201), answer.get_json()


def deliver_all() -> int:
    with ThreadPoolExecutor(4) as pool:
        return delivery.deliver_due(pool)


# ---- service accounts and their keys -------------------------------------------------------------

BASE = "/api/v2/service-accounts/acme"


def create_account(client, name: str = "ci-bot", privilege: str | None = "member",
                   **extra: Any):
    body = {"name": name, **extra}
    if privilege is not None:
        body["privilege"] = privilege
    return client.post(BASE, headers=H, json=body)


def mint(client, account: str = "ci-bot", **body: Any) -> dict[str, Any]:
    answer = client.post(f"{BASE}/{account}/api-keys", headers=H,
                         json={"description": "ci key", **body})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def put_policy_as(client, key: str):
    return client.put("/api/v2/policies/acme", headers=bearer(key),
                      content_type="multipart/form-data",
                      data={"payload": '{"name": "p", "description": "", "type": "env"}',
                            "policy_file": (__import__("io").BytesIO(
                                b"_schema: https://kosli.com/schemas/policy/environment/v1\n"),
                                "p.yml")})


# ---- the web pages: sign-in, and a world with hostile text to browse -----------------------------

NASTY = "<script>alert('x')</script>"
FP = hashlib.sha256(b"web backend").hexdigest()
WEB_TEMPLATE = ("version: 1\ntrail:\n  attestations:\n    - name: ticket\n      type: generic\n"
            "  artifacts:\n    - name: backend\n      attestations:\n"
            "        - name: unit-tests\n          type: junit\n")


def csrf_of(page) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page.get_data(as_text=True)).group(1)


def sign_in(client, key: str = ALICE_KEY, org: str = "acme", next_path: str | None = None):
    form = client.get("/sign-in")
    data = {"csrf": csrf_of(form), "org": org, "key": key}
    if next_path:
        data["next"] = next_path
    return client.post("/sign-in", data=data)


@pytest.fixture
def world(client):
    create_flow(client, "payments", WEB_TEMPLATE)
    client.put("/api/v2/flows/acme", headers=H, json={
        "name": "payments", "description": NASTY, "visibility": "private"})
    begin_trail(client, "payments", "release-1", description=NASTY,
                origin_url="javascript:alert(1)",
                repo_info={"id": "42", "name": "acme/payments", "url": "https://github.com/acme/payments",
                           "provider": "github"})
    assert report_artifact(client, FP, "backend.tgz", template_name="backend").status_code == 201
    assert attest(client, "junit", {
        "attestation_name": "unit-tests", "target_artifacts": ["backend"],
        "user_data": {"note": "<img src=x onerror=alert(1)>"},
        "junit_results": [{"name": "api", "failures": 0, "errors": 0, "skipped": 0, "total": 3,
                           "duration": 1.5}]},
        attachment=("report.xml", b"<testsuite/>")).status_code == 201
    assert attest(client, "generic", {"attestation_name": "ticket", "is_compliant": True}
                  ).status_code == 201
    return client


# ---- deployments: builds, environments and a clock -----------------------------------------------

DAY = 86400.0
T0 = 1_700_000_000.0  # commit time of build A
T1, T2, T3 = T0 + 3600, T0 + 2 * DAY, T0 + 3 * DAY  # report times
DEMO_REPO = {"id": "r-42", "name": "acme/demo", "url": "https://github.com/acme/demo",
        "provider": "github"}
FP_A, FP_B, FP_C, FP_X = (hashlib.sha256(n.encode()).hexdigest() for n in "ABCX")
REVIEWED = "version: 1\ntrail:\n  attestations:\n    - name: review\n      type: generic\n"


class Clock:
    """`now()` of the domain modules that stamp reports, artifacts and windows."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.time = T0
        for module in (snapshots, deployments, artifacts):
            monkeypatch.setattr(module, "now", lambda: self.time)

    def at(self, moment: float) -> Clock:
        self.time = moment
        return self


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(monkeypatch)


def open_trail(client, flow: str, name: str, **fields: Any) -> None:
    answer = client.put(f"/api/v2/trails/acme/{flow}", headers=H, content_type="multipart/form-data",
                        data={"data_json": json.dumps({"name": name, **fields})})
    assert answer.status_code in (200, 201), answer.json


def build(client, trail: str, fingerprint: str, commit_ts: float, repo: dict | None,
          flow: str = "ci") -> None:
    open_trail(client, flow, trail, **({"repo_info": repo} if repo else {}))
    answer = client.post(f"/api/v2/artifacts/acme/{flow}", headers=H, json={
        "fingerprint": fingerprint, "filename": f"app-{trail}", "trail_name": trail,
        "git_commit": "c" * 40, "build_url": "https://ci.example/1",
        "commit_url": "https://github.com/acme/demo/commit/" + "c" * 40,
        "git_commit_info": {"sha1": "c" * 40, "author": "A <a@x>", "message": "m",
                            "branch": "main", "timestamp": commit_ts}})
    assert answer.status_code == 201, answer.json


def environment(client, name: str, env_type: str = "server") -> None:
    answer = client.put("/api/v2/environments/acme", headers=H,
                        json={"name": name, "type": env_type, "description": ""})
    assert answer.status_code == 201, answer.json


def get(client, path: str, status: int = 200) -> Any:
    answer = client.get(f"/api/v2/{path}", headers=H)
    assert answer.status_code == status, answer.json
    return answer.json


# ---- lists at real sizes: N of everything, inserted in bulk --------------------------------------

N = 1000


# Attestations of a second flow, more than the 10,000 newest rows a commit search used to scan.
OLD_ATTESTATIONS = 10_050
FLOW = "flow-0000"
OTHER_FLOW = "flow-0001"  # has N approvals (of no artifact of its own)
BUSY_ENV = "env-0000"  # has N snapshots and N deployments
SIZES_REPO = "acme/app"
SHARED_COMMIT = "c" * 40
SHARING = 150  # artifacts built from SHARED_COMMIT, more than search used to answer


def fingerprint(i: int) -> str:
    return hashlib.sha256(f"artifact {i}".encode()).hexdigest()


def commit(i: int) -> str:
    return hashlib.sha1(f"commit {i}".encode()).hexdigest()  # noqa: S324 - a git commit id


def _insert(model: type, rows: list[dict]) -> None:
    for start in range(0, len(rows), 500):
        model.insert_many(rows[start:start + 500]).execute()


def populate() -> None:
    """N of everything in the organization acme, in one transaction."""
    stamp = time.time() - 3600
    org = Organization.get(Organization.name == "acme")
    with storage.database.atomic():
        _insert(Flow, [{"organization": org.id, "name": f"flow-{i:04d}", "created_at": stamp + i,
                        "last_modified_at": stamp + i, "tags": {}} for i in range(N)])
        flow = Flow.get(Flow.name == FLOW)
        other = Flow.get(Flow.name == OTHER_FLOW)
        repo = Repo.create(organization=org, repo_id="42", name=SIZES_REPO, url="https://git.test/app",
                           provider="github", created_at=stamp, last_seen_at=stamp)
        # the empty template of each flow with trails, which judges its trails
        versions = {f.id: hosted_id() for f in (flow, other)}
        _insert(FlowTemplate, [{"id": uid, "flow": flow_id, "created_at": stamp}
                               for flow_id, uid in versions.items()])
        for flow_id, uid in versions.items():
            Flow.update(template=uid).where(Flow.id == flow_id).execute()
        _insert(Trail, [{"flow": flow.id, "name": f"trail-{i:04d}", "created_at": stamp + i,
                         "last_modified_at": stamp + i, "flow_template": versions[flow.id]}
                        for i in range(N)])
        _insert(Trail, [{"flow": other.id, "name": "old", "created_at": stamp,
                         "last_modified_at": stamp, "flow_template": versions[other.id]}])
        trails = {t.name: t.id for t in Trail.select().where(Trail.flow == flow)}
        old_trail = Trail.get(Trail.flow == other).id
        _insert(Artifact, [{"uid": hosted_id(), "organization": org.id, "flow": flow.id,
                            "trail": trails[f"trail-{i:04d}"], "fingerprint": fingerprint(i),
                            "name": f"app-{i}", "git_commit": commit(i), "repo": repo.id,
                            "git_commit_info": {"sha1": commit(i),
                                                "branch": "release" if i == 0 else "main"},
                            "created_at": stamp + i, "last_modified_at": stamp + i}
                           for i in range(N)])
        _insert(Artifact, [{"uid": hosted_id(), "organization": org.id, "flow": other.id,
                            "trail": old_trail,
                            "fingerprint": fingerprint(N + i), "name": f"lib-{i}",
                            "git_commit": SHARED_COMMIT, "created_at": stamp,
                            "last_modified_at": stamp} for i in range(SHARING)])
        _insert(Attestation, [{"uid": str(uuid.uuid4()), "organization": org.id, "flow": other.id,
                               "trail": old_trail, "name": "old", "type": "generic",
                               "is_compliant": True, "created_at": stamp,
                               "data": {"git_commit_info": {"sha1": commit(i)}},
                               "git_commit": commit(i)}
                              for i in range(OLD_ATTESTATIONS)])
        _insert(Attestation, [{"uid": str(uuid.uuid4()), "organization": org.id, "flow": flow.id,
                               "trail": trails[f"trail-{i:04d}"], "name": "tests",
                               "type": "generic", "is_compliant": True, "created_at": stamp + i,
                               "data": {"git_commit_info": {"sha1": f"{i:040x}"}},
                               "git_commit": f"{i:040x}"}
                              for i in range(N)])
        _insert(Approval, [{"organization": org.id, "flow": other.id, "number": i + 1,
                            "fingerprint": fingerprint(i), "artifact_name": f"app-{i}",
                            "state": "APPROVED", "created_at": stamp + i,
                            "last_modified_at": stamp + i} for i in range(N)])
        _insert(Environment, [{"organization": org.id, "name": f"env-{i:04d}", "type": "server",
                               "policies": ["house-rules"],
                               "latest_index": N if i == 0 else 1, "created_at": stamp,
                               "last_modified_at": stamp, "last_reported_at": stamp,
                               "last_changed_at": stamp} for i in range(N)])
        envs = {e.name: e.id for e in Environment.select()}
        def running(i: int) -> list[dict]:  # app-i as a server snapshot holds it
            return [{"name": f"app-{i}", "fingerprint": fingerprint(i), "instance_count": 1,
                     "creationTimestamp": [int(stamp)], "pods": None, "context": []}]

        _insert(Snapshot, [{"environment": envs[f"env-{i:04d}"], "index": 1, "type": "server",
                            "artifacts": running(i), "created_at": stamp} for i in range(N)])
        _insert(Snapshot, [{"environment": envs[BUSY_ENV], "index": index, "type": "server",
                            "artifacts": running(0), "created_at": stamp + index}
                           for index in range(2, N + 1)])
        _insert(Deployment, [{"organization": org.id, "environment": envs[BUSY_ENV],
                              "snapshot_index": i + 1, "artifact_name": f"app-{i}",
                              "fingerprint": fingerprint(i), "deployed_at": stamp + i,
                              "repo": repo.id} for i in range(N)])
        _insert(EnvironmentEvent, [{"environment": envs[BUSY_ENV], "snapshot_index": i + 1,
                                    "type": "started", "artifact_name": f"app-{i}",
                                    "fingerprint": fingerprint(i), "was": 0, "now": 1,
                                    "reported_at": stamp + i} for i in range(N)])
        _insert(Repo, [{"organization": org.id, "repo_id": f"r{i}", "name": f"acme/repo-{i:04d}",
                        "created_at": stamp, "last_seen_at": stamp} for i in range(1, N)])
        _insert(AllowlistEntry, [{"environment": envs[f"env-{i:04d}"],
                                  "fingerprint": fingerprint(i), "artifact_name": f"app-{i}",
                                  "created_at": stamp}
                                 for i in range(N)])
        judge_all(storage.database.obj)  # as 0011 judges the snapshots made before verdicts
        list_sizes.recount()  # as the domain keeps them


# ---- hostile values sent to every route of the transcoder ----------------------------------------

FD = descriptor.FieldDescriptor
JSON = "application/json; charset=utf-8"


# Reads first, renames and archives last: a write may rename or archive the seeded things,
# and the reads should meet them as seeded.
ROUTES = sorted(routes_of(service_descriptors()), key=lambda route: (
    route.http_method != "GET", route.rule.endswith(("/rename", "/archive"))))
FINGERPRINT = "a" * 64


# Path values naming things the fixture creates (a 404 is as good an answer as any, but
# existing things let the values reach the domain code that parses them).
PLAUSIBLE = {"org": "acme", "flow_name": "f1", "trail_name": "t1", "env_name": "e1",
             "snapshot_expression": "1", "type": "server", "kind": "generic",
             "resource_type": "flow", "resource_id": "f1", "fingerprint": FINGERPRINT,
             "search_value": FINGERPRINT, "commit_sha": "b" * 40, "approval_number": "1",
             "identifier": "c1", "version_number": "1", "action_number": "1",
             "notification_number": "1", "key_id": "k1", "name": "sa1", "index": "0"}


def _fail_constant(name: str) -> Any:
    raise ValueError(f"{name} in a response body")


def check_answer(response: Any, label: str, *, refused: bool, failures: list[str]) -> None:
    """Record what is wrong with an answer: a 5xx, a body that is not strict JSON, an error
    without its message, or a success where the value had to be refused."""
    text = response.get_data(as_text=True)
    problem = None
    if response.status_code >= 500:
        problem = "server error"
    elif refused and response.status_code < 400:
        problem = "accepted"
    elif response.mimetype == "application/json":
        try:
            body = json.loads(text, parse_constant=_fail_constant)
        except ValueError as exc:
            problem = f"not strict JSON ({exc})"
        else:
            if response.status_code >= 400 and not (
                    isinstance(body, dict) and isinstance(body.get("message"), str)):
                problem = "error without message"
    elif response.status_code >= 400:
        problem = "error not JSON"
    if problem:
        failures.append(f"{label} -> {response.status_code} {problem}: {text[:200]!r}")


def _path(route: Route, values: dict[str, str]) -> str:
    path = route.rule
    for name in route.path_fields:
        value = quote(values.get(name, PLAUSIBLE.get(name, "x")), safe="")
        path = path.replace(f"<path:{name}>", value).replace(f"<{name}>", value)
    return path


def send_to_route(client: Any, route: Route, path_values: dict[str, str] | None = None,
          query: dict[str, str] | None = None, body: dict[str, Any] | None = None,
          headers: dict[str, str] | None = None) -> tuple[Any, str]:
    url = _path(route, path_values or {})
    if query:
        url += "?" + urlencode(query)
    data = json.dumps(body) if body is not None else ("null" if route.body else None)
    response = client.open(url, method=route.http_method, data=data, content_type=JSON,
                           headers=bearer() if headers is None else headers)
    return response, f"{route.http_method} {url} {data or ''}"


Placement = Callable[[Any], dict[str, Any]]  # a value -> the send_to_route arguments that carry it
_NOT_SCALAR_BODY = {"google.protobuf.Struct", "google.protobuf.Value", "evidence.v2.UploadedFile"}


def _scalars(message: descriptor.Descriptor) -> list[descriptor.FieldDescriptor]:
    return [f for f in message.fields if f.type not in (FD.TYPE_MESSAGE, FD.TYPE_BYTES)]


def placements_of(route: Route) -> Iterator[tuple[descriptor.FieldDescriptor, Placement]]:
    """Each scalar field a request can set, and where it goes: the path, the query string, the
    JSON body, or a message one level down in the body (data_json and the like)."""
    def at(kind: str, *names: str) -> Placement:
        def place(value: Any) -> dict[str, Any]:
            for name in reversed(names):
                value = {name: value}
            return {kind: value}
        return place

    request = route.request_class.DESCRIPTOR
    if route.body and route.body != "*":  # the JSON body is that field's message
        body_type = request.fields_by_name[route.body].message_type
        if body_type.full_name not in _NOT_SCALAR_BODY:
            yield from ((f, at("body", f.name)) for f in _scalars(body_type))
    for field in request.fields:
        if field.name in route.path_fields:
            yield field, at("path_values", field.name)
        elif field.type not in (FD.TYPE_MESSAGE, FD.TYPE_BYTES):
            if not route.body:
                yield field, at("query", field.name)
            elif route.body == "*":
                yield field, at("body", field.name)
        elif route.body == "*" and field.message_type.full_name not in _NOT_SCALAR_BODY and \
                not field.message_type.GetOptions().map_entry:
            yield from ((f, at("body", field.name, f.name)) for f in _scalars(field.message_type))


@pytest.fixture
def seeded(client: Any) -> Any:
    """Flow f1 with trail t1, server environment e1 with one snapshot, and control c1."""
    def put(path: str, body: dict[str, Any]) -> None:
        response = client.put(path, data=json.dumps(body), content_type=JSON, headers=bearer())
        assert response.status_code < 300, response.get_data(as_text=True)

    put("/api/v2/flows/acme", {"name": "f1", "description": ""})
    assert client.put("/api/v2/trails/acme/f1", data={"data_json": json.dumps({"name": "t1"})},
                      content_type="multipart/form-data", headers=bearer()).status_code == 201
    put("/api/v2/environments/acme", {"name": "e1", "type": "server", "description": ""})
    put("/api/v2/environments/acme/e1/report/server", {"artifacts": [
        {"digests": {"app": FINGERPRINT}, "creationTimestamp": 1700000000}]})
    assert client.post("/api/v2/controls/acme", data=json.dumps({"identifier": "c1", "name": "C"}),
                       content_type=JSON, headers=bearer()).status_code == 201
    return client



def unpacked(package: bytes) -> dict[str, bytes]:
    """An audit package's files (a gzipped tar) by path."""
    with tarfile.open(fileobj=io.BytesIO(package), mode="r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}  # type: ignore[union-attr]


def packed(files: dict[str, bytes]) -> bytes:
    """Files by path as a gzipped tar, in the order given: an audit package made again."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()
