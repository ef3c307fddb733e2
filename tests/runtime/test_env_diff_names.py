"""Snapshots and their diffs are keyed by (name, fingerprint), never by fingerprint alone: one
build running under two names (a binary copied, an image tagged twice) is two artifacts in a
snapshot, in `GET /api/v2/env-diff/...` and in `kosli diff snapshots`."""

from __future__ import annotations

from typing import Any

import requests

from tests.conftest import RunningServer, bearer
from tests.helpers import DEMO_REPO as REPO
from tests.helpers import FP_A, REVIEWED, T0, T1, T2, build, create_flow, environment, get
from tests.helpers import clock as clock  # noqa: F401 - fixture

H = bearer()
FP, OTHER = "c" * 64, "d" * 64


def _server_report(*artifacts: tuple[str, str, int]) -> dict[str, Any]:
    return {"artifacts": [{"digests": {name: fp}, "creationTimestamp": stamp}
                          for name, fp, stamp in artifacts]}


def _arrange(put) -> None:
    """prod#1 runs `app` and `app-copy` (one fingerprint) and `web`; staging#1 runs `app`
    twice and `web`; `app-copy` runs only in prod."""
    for env in ("prod", "staging"):
        answer = put("/api/v2/environments/acme",
                     {"name": env, "type": "server", "description": ""})
        assert answer.status_code in (200, 201)
    put("/api/v2/environments/acme/prod/report/server",
        _server_report(("app", FP, 5), ("app-copy", FP, 5), ("web", OTHER, 6)))
    put("/api/v2/environments/acme/staging/report/server",
        _server_report(("app", FP, 5), ("app", FP, 7), ("web", OTHER, 6)))


def _names(side: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a["name"], a["fingerprint"]) for a in side["artifacts"]]


def test_env_diff_keeps_artifacts_that_share_a_fingerprint(client):
    _arrange(lambda path, body: client.put(path, headers=H, json=body))
    diff = client.get("/api/v2/env-diff/acme?snappish1=prod&snappish2=staging", headers=H)
    assert diff.status_code == 200, diff.json
    body = diff.json
    assert _names(body["snappish1"]) == [("app-copy", FP)]
    assert _names(body["snappish2"]) == []
    assert [(a["name"], a["s1_instance_count"], a["s2_instance_count"])
            for a in body["changed"]["artifacts"]] == [("app", 1, 2)]
    assert _names(body["not-changed"]) == [("web", OTHER)]


def test_env_diff_of_an_environment_without_snapshots_is_not_found(client):
    """Nothing to diff: the hosted service's words for a snapshot that is not there, naming
    the snappish as it was given (an environment's name alone means its latest)."""
    _arrange(lambda path, body: client.put(path, headers=H, json=body))
    client.put("/api/v2/environments/acme", headers=H,
               json={"name": "empty", "type": "server", "description": ""})
    said = ("Org: 'acme'. Snapshot 'empty' resolves to 'empty#0'. len(snapshots) == 0. "
            "Indexes are 1-based")
    for one, two in (("empty", "empty"), ("prod", "empty"), ("empty", "prod")):
        diff = client.get(f"/api/v2/env-diff/acme?snappish1={one}&snappish2={two}", headers=H)
        assert (diff.status_code, diff.json["message"]) == (404, said), (one, two)
    beyond = client.get("/api/v2/env-diff/acme?snappish1=prod%232&snappish2=prod", headers=H)
    assert (beyond.status_code, beyond.json["message"]) == (
        404, "Org: 'acme'. Snapshot 'prod#2' resolves to 'prod#2'. len(snapshots) == 1. "
             "Indexes are 1-based")


def test_a_snapshot_lists_both_names_of_one_fingerprint(client):
    _arrange(lambda path, body: client.put(path, headers=H, json=body))
    snapshot = client.get("/api/v2/snapshots/acme/prod/-1", headers=H).json
    assert sorted((a["name"], a["annotation"]["now"]) for a in snapshot["artifacts"]) == \
        [("app", 1), ("app-copy", 1), ("web", 1)]
    # One name leaving is a change even though its fingerprint still runs.
    client.put("/api/v2/environments/acme/prod/report/server", headers=H,
               json=_server_report(("app", FP, 5), ("web", OTHER, 6)))
    latest = client.get("/api/v2/snapshots/acme/prod/-1", headers=H).json
    assert latest["index"] == 2
    assert [(a["name"], a["annotation"]["type"]) for a in latest["artifacts"]
            if a["annotation"]["type"] != "unchanged"] == [("app-copy", "exited")]


def test_kosli_diff_snapshots_shows_both_names(server: RunningServer):
    _arrange(lambda path, body: requests.put(server.http_url + path, headers=H, json=body,
                                             timeout=10))
    diff = server.kosli_json("diff", "snapshots", "prod", "staging")
    assert [a["name"] for a in diff["snappish1"]["artifacts"]] == ["app-copy"]
    assert [a["name"] for a in diff["changed"]["artifacts"]] == ["app"]
    table = server.kosli("diff", "snapshots", "prod", "staging").stdout
    assert "app-copy" in table


def test_live_artifacts_start_per_name(client, clock):
    """Each name of a fingerprint started running when that name did."""
    create_flow(client, "ci", REVIEWED)
    build(client, "a", FP_A, T0, REPO)
    environment(client, "prod")
    for moment, names in ((T1, ["app"]), (T2, ["app", "app-copy"])):
        clock.at(moment)
        answer = client.put("/api/v2/environments/acme/prod/report/server", headers=H,
                            json=_server_report(*[(name, FP_A, 1) for name in names]))
        assert answer.status_code in (200, 201), answer.json
    live = get(client, "repos/acme/live-artifacts/acme/demo")
    assert sorted((e["artifact_name"], e["started_at"]) for e in live["live_artifacts"]) == \
        [("app", T1), ("app-copy", T2)]
