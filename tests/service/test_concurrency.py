"""Writes are atomic and serialized: one transaction per write RPC (a failed request changes
nothing), row locks wherever a stored value is read then written (concurrent tags, joins,
updates and renames lose nothing), and "newest" decided by one sequence, not the clock."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from google.api import annotations_pb2

from evidence_grpc.api.v2 import options_pb2
from evidence_grpc.domain.evidence import artifacts as artifact_domain
from evidence_grpc.domain.evidence import attestations as attestation_domain
from evidence_grpc.domain.evidence import flows as flow_domain
from evidence_grpc.domain.kernel.errors import InvalidArgument
from evidence_grpc.interceptors.database import is_write
from evidence_grpc.services import service_descriptors
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Organization, Trail, User
from tests.conftest import RunningServer, bearer, recorded_statements
from tests.helpers import (
    attest,
    begin_trail,
    create_flow,
    get_trail,
    override,
    report_artifact,
    trail_attestations,
)

H = bearer()
COMMIT = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
FINGERPRINT = hashlib.sha256(b"build 1").hexdigest()


# ---- one transaction per write RPC ---------------------------------------------------------

def test_write_methods_are_declared_not_inferred():
    assert is_write("/evidence.v2.ArtifactService/ReportArtifact")
    assert is_write("/evidence.v2.TrailService/BeginTrail")
    assert not is_write("/evidence.v2.TrailService/GetTrail")
    assert not is_write("/evidence.v2.FlowService/ListFlows")


def test_every_rpc_declares_read_or_write_and_no_get_writes():
    """`(transaction)` on every RPC: none is left to a default. A GET never writes (a cached
    or prefetched GET must change nothing); a POST may read."""
    undeclared, writing_gets = [], []
    for service in service_descriptors():
        for method in service.methods:
            options = method.GetOptions()
            declared = options.Extensions[options_pb2.transaction]
            if declared == options_pb2.TRANSACTION_UNSPECIFIED:
                undeclared.append(method.full_name)
            rule = options.Extensions[annotations_pb2.http]
            if rule.WhichOneof("pattern") == "get" and declared == options_pb2.TRANSACTION_WRITE:
                writing_gets.append(method.full_name)
    assert (undeclared, writing_gets) == ([], [])


def test_a_failed_artifact_report_leaves_no_trail(client, monkeypatch: pytest.MonkeyPatch):
    """The legacy report (no trail name) begins a trail named after the commit; when the
    report then fails, the trail is gone with it."""
    create_flow(client)

    def fail(*_: Any) -> None:
        raise InvalidArgument("refused after the trail was begun")

    monkeypatch.setattr(artifact_domain.events, "publish", fail)  # the first write after the trail
    answer = client.post("/api/v2/artifacts/acme/payments", headers=H, json={
        "fingerprint": FINGERPRINT, "filename": "app.tgz", "git_commit": COMMIT,
        "build_url": "https://ci.example/1", "commit_url": "https://git.example/c",
        "repo_url": "https://git.example"})
    assert answer.status_code == 400, answer.json
    assert answer.json["message"] == "refused after the trail was begun"
    assert client.get("/api/v2/trails/acme/payments", headers=H).json == []
    assert client.get("/api/v2/artifacts/acme?flow_name=payments", headers=H).json == []


def test_the_domain_report_alone_leaves_no_trail(db, monkeypatch: pytest.MonkeyPatch):
    """Called without the interceptor's transaction (e.g. from a script), the report is still
    one unit: the trail it begins goes with it."""
    def fail(*_: Any) -> None:
        raise InvalidArgument("refused after the trail was begun")

    monkeypatch.setattr(artifact_domain.events, "publish", fail)  # the first write after the trail
    with storage.database.connection_context():
        acme = Organization.get(Organization.name == "acme")
        alice = User.get(User.name == "alice")
        flow_domain.upsert_flow(acme, "payments", "")
        with pytest.raises(InvalidArgument):
            artifact_domain.report_artifact(acme, alice, "payments", {
                "fingerprint": FINGERPRINT, "filename": "app.tgz", "git_commit": COMMIT,
                "build_url": "b", "commit_url": "c"})
        assert Trail.select().count() == 0


def test_evidence_is_checked_before_its_transaction_and_kept_in_one(
        client, monkeypatch: pytest.MonkeyPatch):
    """Attestations, artifact reports and trails begun own their transaction: their schema
    checks run before it (on SQLite outside the one writer's lock), their writes in one
    transaction, not a savepoint within an outer one. Other writes stay wholly inside the
    transaction interceptor's."""
    from evidence_grpc.domain.kernel import contract

    inside: list[tuple[str, bool]] = []
    check = contract.validate

    def spy(operation: str, data: Any) -> None:
        inside.append((operation, storage.database.in_transaction()))
        check(operation, data)

    monkeypatch.setattr(contract, "validate", spy)
    create_flow(client)
    begin_trail(client)
    report_artifact(client)
    statements = recorded_statements(monkeypatch)
    assert attest(client, "generic", {"attestation_name": "a", "is_compliant": True}
                  ).status_code == 201
    assert attest(client, "generic", {"attestation_name": "b"}).status_code == 400
    assert not any("SAVEPOINT" in sql.upper() for sql in statements)
    # the attestation, its trail event, its transparency log entry (which holds the log's new
    # hashes), its trail's manifest entry, the sizes of its flow's and its trail's lists and
    # its positions in them
    assert sum(sql.startswith("INSERT") for sql in statements) == 8
    assert override(client, "a", "generic", False).status_code == 201
    assert inside == [("create_artifact", False), ("post_generic_attestation", False),
                      ("post_generic_attestation", False), ("post_override_attestation", True)]
    assert [a["is_compliant"] for a in trail_attestations(client, "a")] == [False, True]


# ---- "newest" is report order, whatever the clocks say ---------------------------------------

def clock_running_backwards(monkeypatch: pytest.MonkeyPatch, module: Any) -> None:
    """Each write of `module` stamped earlier than the one before (clocks of two server
    processes disagree)."""
    times = iter(range(2_000_000_000, 0, -1000))
    monkeypatch.setattr(module, "now", lambda: float(next(times)))


def test_compliance_and_reads_agree_on_the_newest_attestation(client,
                                                              monkeypatch: pytest.MonkeyPatch):
    create_flow(client)
    begin_trail(client)
    clock_running_backwards(monkeypatch, attestation_domain)
    for compliant in (True, False):
        answer = attest(client, "generic", {"attestation_name": "manual-check",
                                            "is_compliant": compliant})
        assert answer.status_code == 201, answer.json

    newest = trail_attestations(client, "manual-check")[0]
    assert newest["is_compliant"] is False
    [entry] = [e for e in get_trail(client)["compliance_status"]["attestations_statuses"]
               if e["attestation_name"] == "manual-check"]
    assert entry["attestation_id"] == newest["attestation_id"]
    assert entry["is_compliant"] is False


def test_the_latest_commit_is_the_last_reported(client, monkeypatch: pytest.MonkeyPatch):
    create_flow(client)
    begin_trail(client)
    clock_running_backwards(monkeypatch, artifact_domain)
    first, last = "1" * 40, "2" * 40
    for n, commit in enumerate((first, last)):
        answer = report_artifact(client, fingerprint=hashlib.sha256(bytes([n])).hexdigest(),
                                 commit=commit)
        assert answer.status_code == 201, answer.json

    got = client.get(f"/api/v2/artifacts/acme/payments/{FINGERPRINT}/latest_commit", headers=H)
    assert got.status_code == 200, got.json
    assert got.json == {"latest_commit": last}


def test_the_newest_artifact_of_a_fingerprint_is_the_last_reported(
        client, monkeypatch: pytest.MonkeyPatch):
    create_flow(client)
    begin_trail(client, trail="release-1")
    begin_trail(client, trail="release-2")
    clock_running_backwards(monkeypatch, artifact_domain)
    for trail in ("release-1", "release-2"):
        answer = report_artifact(client, fingerprint=FINGERPRINT, trail=trail)
        assert answer.status_code == 201, answer.json

    got = client.get(f"/api/v2/artifacts/acme/payments/fingerprint/{FINGERPRINT}", headers=H)
    assert got.status_code == 200, got.json
    assert got.json["trail_name"] == "release-2"


# ---- concurrent read-modify-write against a real server (several HTTP workers) -----------------
# One server per engine for these tests (`live`): each writes names no other one does.

CLIENTS = 24


def call(server: RunningServer, method: str, path: str, body: dict[str, Any]
         ) -> Callable[[], requests.Response]:
    return lambda: requests.request(method, f"{server.http_url}/api/v2{path}", headers=H,
                                    json=body, timeout=120)


def all_at_once(calls: list[Callable[[], requests.Response]]) -> None:
    """Run the calls together; every one must succeed."""
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        answers = list(pool.map(lambda c: c(), calls))
    failed = [(a.status_code, a.text) for a in answers if not a.ok]
    assert not failed, failed


def environment(server: RunningServer, name: str) -> dict[str, Any]:
    answer = requests.get(f"{server.http_url}/api/v2/environments/acme/{name}", headers=H,
                          timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def create_environments(server: RunningServer, *bodies: dict[str, Any]) -> None:
    for body in bodies:
        answer = call(server, "PUT", "/environments/acme", {"description": "", **body})()
        assert answer.status_code == 201, answer.text


def tag(server: RunningServer, env: str, key: str) -> Callable[[], requests.Response]:
    return call(server, "PATCH", f"/tags/acme/env/{env}",
                {"set_tags": {key: "v"}, "remove_tags": []})


def test_concurrent_tags_and_updates_lose_nothing(live: RunningServer):
    create_environments(live, {"name": "web", "type": "K8S"})
    all_at_once([tag(live, "web", f"key-{n}") for n in range(CLIENTS)]
                + [call(live, "PATCH", "/environments/acme/web", {"description": f"d{n}"})
                   for n in range(CLIENTS // 2)])

    web = environment(live, "web")
    assert sorted(web["tags"]) == sorted(f"key-{n}" for n in range(CLIENTS))
    assert web["description"] in {f"d{n}" for n in range(CLIENTS // 2)}


def test_concurrent_flow_upserts_and_tags_lose_nothing(live: RunningServer):
    flow = {"name": "busy", "description": "", "visibility": "private", "template": []}
    assert call(live, "PUT", "/flows/acme", flow)().status_code == 201
    all_at_once([call(live, "PATCH", "/tags/acme/flow/busy",
                      {"set_tags": {f"key-{n}": "v"}, "remove_tags": []}) for n in range(CLIENTS)]
                + [call(live, "PUT", "/flows/acme", {**flow, "description": f"d{n}"})
                   for n in range(CLIENTS // 2)])

    got = requests.get(f"{live.http_url}/api/v2/flows/acme/busy", headers=H, timeout=30).json()
    assert sorted(got["tags"]) == sorted(f"key-{n}" for n in range(CLIENTS))
    assert got["description"] in {f"d{n}" for n in range(CLIENTS // 2)}


def test_concurrent_joins_lose_nothing(live: RunningServer):
    members = [f"member-{n:02d}" for n in range(CLIENTS)]
    create_environments(live, {"name": "all", "type": "logical"},
                        *({"name": name, "type": "server"} for name in members))
    all_at_once([call(live, "PUT", "/environments/acme/all/join", {"physical_env_name": name})
                 for name in members]
                + [tag(live, "all", f"key-{n}") for n in range(CLIENTS // 2)])

    logical = environment(live, "all")
    assert logical["included_environments"] == members
    assert sorted(logical["tags"]) == sorted(f"key-{n}" for n in range(CLIENTS // 2))


def test_concurrent_renames_keep_every_member(live: RunningServer):
    """Members renamed, logical environments renamed, and members joining, all at once."""
    members = [f"old-{n:02d}" for n in range(CLIENTS // 2)]
    joiners = [f"joiner-{n:02d}" for n in range(CLIENTS // 2)]
    create_environments(live, *({"name": name, "type": "server"} for name in members + joiners))
    renamed, joined = ["group-a", "group-b"], "group-c"
    create_environments(live, *({"name": name, "type": "logical",
                                   "included_environments": members}
                                  for name in [*renamed, joined]))
    all_at_once([call(live, "PUT", f"/environments/acme/{name}/rename",
                      {"new_name": name.replace("old", "new")}) for name in members]
                + [call(live, "PUT", f"/environments/acme/{name}/rename",
                        {"new_name": f"{name}-renamed"}) for name in renamed]
                + [call(live, "PUT", f"/environments/acme/{joined}/join",
                        {"physical_env_name": name}) for name in joiners])

    new_names = [name.replace("old", "new") for name in members]
    for name in renamed:
        assert environment(live, f"{name}-renamed")["included_environments"] == new_names
    assert environment(live, joined)["included_environments"] == sorted(joiners + new_names)


def test_concurrent_artifact_reports_and_attestations_on_one_trail(live: RunningServer):
    """Both write the trail and its repo (a new description each time): one locking order,
    so no request dies in a deadlock, and every report is kept."""
    flow = {"name": "ci", "description": "", "visibility": "private", "template": []}
    assert call(live, "PUT", "/flows/acme", flow)().status_code == 201
    repo = {"id": "r-42", "name": "acme/demo", "url": "https://git.example/acme/demo",
            "provider": "github"}
    begun = requests.put(f"{live.http_url}/api/v2/trails/acme/ci", headers=H, timeout=30,
                         files={"data_json": (None, json.dumps({"name": "t", "repo_info": repo}))})
    assert begun.status_code == 201, begun.text

    def attestation(n: int) -> Callable[[], requests.Response]:
        data = {"attestation_name": f"check-{n}", "is_compliant": True,
                "repo_info": {**repo, "description": f"a{n}"}}
        return lambda: requests.post(
            f"{live.http_url}/api/v2/attestations/acme/ci/trail/t/generic", headers=H,
            files={"data_json": (None, json.dumps(data))}, timeout=120)

    half = CLIENTS // 2
    all_at_once([call(live, "POST", "/artifacts/acme/ci", {
        "fingerprint": hashlib.sha256(bytes([n])).hexdigest(), "filename": f"app-{n}",
        "build_url": "b", "commit_url": "c", "trail_name": "t",
        "repo_info": {**repo, "description": f"r{n}"}}) for n in range(half)]
                + [attestation(n) for n in range(half)])

    listed = requests.get(f"{live.http_url}/api/v2/artifacts/acme?flow_name=ci", headers=H,
                          timeout=30).json()
    assert len(listed) == half
    trail = requests.get(f"{live.http_url}/api/v2/trails/acme/ci/t", headers=H, timeout=30)
    names = {e["attestation_name"] for e in trail.json()["compliance_status"]
             ["attestations_statuses"]}
    assert names == {f"check-{n}" for n in range(half)}
