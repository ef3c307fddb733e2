"""A snapshot is keyed by (name, fingerprint): one build running under two names (a binary
copied, an image tagged twice) is two artifacts of the snapshot. A diff of snapshots tells
artifacts apart by fingerprint (docs/api.md, "Snapshot diffs"): a build that runs under another
name is not changed, and one running under several names is one artifact, its instances
counted together."""

from __future__ import annotations

from typing import Any

from tests.conftest import bearer
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


def _diff(client, one: str, two: str) -> dict[str, Any]:
    diff = client.get(f"/api/v2/env-diff/acme?snappish1={one}&snappish2={two}", headers=H)
    assert diff.status_code == 200, diff.json
    return diff.json


def test_env_diff_tells_artifacts_apart_by_fingerprint(client):
    _arrange(lambda path, body: client.put(path, headers=H, json=body))
    body = _diff(client, "prod", "staging")
    # FP runs twice on each side (as app and app-copy, as app twice): not changed, shown by
    # its last name in name order on the first side.
    assert _names(body["snappish1"]) == _names(body["snappish2"]) == []
    assert body["changed"]["artifacts"] == []
    assert [(a["name"], a["fingerprint"], a["instance_count"], a["s1_instance_count"],
             a["s2_instance_count"]) for a in body["not-changed"]["artifacts"]] == [
        ("app-copy", FP, 2, 2, 2), ("web", OTHER, 1, 1, 1)]
    assert _diff(client, "staging", "prod")["not-changed"]["artifacts"][0]["name"] == "app"


def test_an_artifact_that_runs_under_another_name_is_not_changed(client):
    """Snapshot #1 runs FP as `app`, #2 as `app1`: the build did not change (the release of
    2026-11-23 answered so; one of 2026-11-23's evening listed it as removed and added)."""
    client.put("/api/v2/environments/acme", headers=H,
               json={"name": "prod", "type": "server", "description": ""})
    for name in ("app", "app1"):
        answer = client.put("/api/v2/environments/acme/prod/report/server", headers=H,
                            json=_server_report((name, FP, 5), ("web", OTHER, 6)))
        assert answer.status_code in (200, 201), answer.json
    body = _diff(client, "prod%231", "prod%232")
    assert _names(body["snappish1"]) == _names(body["snappish2"]) == []
    assert body["changed"]["artifacts"] == []
    assert _names(body["not-changed"]) == [("app", FP), ("web", OTHER)]
    # Each side shows the name it ran under there.
    assert _names(_diff(client, "prod%232", "prod%231")["not-changed"]) == [("app1", FP), ("web", OTHER)]


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
