"""The environment audit log through the REST shim (both engines): who changed what, recorded
when it happened, as CSV with its filters; hostile values stay text; thousands of events."""

from __future__ import annotations

import csv
import io
import time

import pytest

from evidence_grpc.storage.models import EnvironmentAuditEvent
from tests.conftest import BOB_KEY, ROLE_KEYS, bearer, govern
from tests.helpers import BACKEND_FP, begin_trail, create_flow, report_artifact

H = bearer()
LOG = "/api/v2/environments/acme/prod/auditlog"


def rows(client, query: str = "", key: str | None = None) -> list[dict[str, str]]:
    answer = client.get(f"{LOG}{query}", headers=bearer(key) if key else H)
    assert answer.status_code == 200, answer.get_json()
    assert answer.content_type == "text/csv; charset=utf-8"
    return list(csv.DictReader(io.StringIO(answer.get_data(as_text=True))))


def report(client, *fingerprints: str, key: str | None = None) -> None:
    answer = client.put("/api/v2/environments/acme/prod/report/server",
                        headers=bearer(key) if key else H,
                        json={"artifacts": [{"digests": {f"app-{fp[:6]}": fp},
                                             "creationTimestamp": 1} for fp in fingerprints]})
    assert answer.status_code in (200, 201), answer.get_json()


@pytest.fixture
def env(client):
    assert client.put("/api/v2/environments/acme", headers=H, json={
        "name": "prod", "type": "server", "description": "first"}).status_code == 201
    return client


def test_changes_are_recorded_with_who_made_them(env):
    env.patch("/api/v2/environments/acme/prod", headers=H, json={"description": "second"})
    govern(env, "prod")
    env.put("/api/v2/allowlists/acme/prod", headers=H, json={
        "artifact_fingerprint": "d" * 64, "artifact_name": "tool", "description": "vetted"})
    report(env, "a" * 64, key=ROLE_KEYS["snapshotter"])
    report(env, key=ROLE_KEYS["snapshotter"])
    log = rows(env)
    assert [r["event_type"] for r in log] == [
        "environment_created", "environment_updated", "policies_changed", "artifact_allowed",
        "artifact_started", "artifact_exited"]
    assert [r["actor"] for r in log] == ["alice"] * 4 + ["sam"] * 2
    assert log[4]["fingerprint"] == "a" * 64 and log[4]["snapshot_index"] == "1"
    assert '"after": ["house-rules"]' in log[2]["details"]
    assert set(log[0]) == {"timestamp", "time", "event_type", "actor", "artifact_name",
                           "fingerprint", "snapshot_index", "flow_names", "repo_names",
                           "details", "actor_type"}
    assert {r["actor_type"] for r in log} == {"user"}


def test_filters_by_time_type_flow_and_repo(env):
    create_flow(env)
    begin_trail(env)
    assert report_artifact(env).status_code == 201
    report(env, BACKEND_FP, "e" * 64)
    assert [r["fingerprint"] for r in rows(env, "?event_types=artifact_started")] == sorted(
        [BACKEND_FP, "e" * 64])
    assert [r["fingerprint"] for r in rows(env, "?flow_names=payments")] == [BACKEND_FP]
    assert rows(env, "?flow_names=payments")[0]["flow_names"] == "payments"
    assert [r["fingerprint"] for r in rows(env, "?repo_names=acme/payments")] in ([BACKEND_FP], [])
    assert rows(env, "?flow_names=nope") == []
    both = rows(env, "?event_types=environment_created,artifact_started")
    assert len(both) == 3
    assert rows(env, f"?from_timestamp={time.time() + 60}") == []
    assert len(rows(env, f"?to_timestamp={time.time() + 60}&from_timestamp=0")) == 3


@pytest.mark.parametrize("query", ["?event_types=nope", "?from_timestamp=NaN",
                                   "?to_timestamp=-5", "?from_timestamp=1e300",
                                   "?from_timestamp=abc"])
def test_bad_filters_are_refused(env, query):
    answer = env.get(f"{LOG}{query}", headers=H)
    assert answer.status_code == 400 and answer.get_json()["message"]


def test_unknown_environments_and_other_organizations(env):
    assert env.get("/api/v2/environments/acme/nope/auditlog", headers=H).status_code == 404
    assert env.get(LOG, headers=bearer(BOB_KEY)).status_code == 403
    assert rows(env, key=ROLE_KEYS["reader"])


def test_hostile_values_stay_text(env):
    env.put("/api/v2/allowlists/acme/prod", headers=H, json={
        "artifact_fingerprint": "d" * 64, "artifact_name": '=HYPERLINK("http://x","a,b")',
        "description": 'line1\nline2, "quoted" @SUM(A1)'})
    allowed = [r for r in rows(env) if r["event_type"] == "artifact_allowed"][0]
    assert allowed["artifact_name"] == "'=HYPERLINK(\"http://x\",\"a,b\")"
    assert "line1\\nline2" in allowed["details"]


def test_thousands_of_events(env):
    for n in range(60):
        report(env, *(f"{n * 50 + i:064x}" for i in range(50)))
    log = rows(env, "?event_types=artifact_started,artifact_exited")
    assert len(log) == 50 + 59 * 100
    assert EnvironmentAuditEvent.select().count() == len(log) + 1
