"""Many requests at once against a real server, on every engine: `begin trail` create-or-update
must stay one trail with one history, environment reports one snapshot per change, and no
request may surface a server error. The tests share a server per engine (`live`): each writes
flows and environments of its own."""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.conftest import RunningServer, bearer

pytestmark = pytest.mark.e2e

CLIENTS = 24


def begin_trail(server: RunningServer, flow: str, trail: str, description: str) -> requests.Response:
    """`kosli begin trail` as the CLI sends it: a multipart PUT with a `data_json` part."""
    with requests.Session() as session:
        return session.put(
            f"{server.http_url}/api/v2/trails/acme/{flow}", headers=bearer(),
            files={"data_json": (None, json.dumps({"name": trail, "description": description}))},
            timeout=60)


def all_at_once(calls: list) -> list[requests.Response]:
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def test_concurrent_begin_of_the_same_trail(live: RunningServer):
    live.kosli("create", "flow", "busy", "--use-empty-template")
    answers = all_at_once([
        lambda n=n: begin_trail(live, "busy", "shared", f"attempt {n}") for n in range(CLIENTS)])

    statuses = Counter(a.status_code for a in answers)
    assert set(statuses) <= {200, 201}, [(a.status_code, a.text) for a in answers]
    assert statuses[201] == 1, statuses
    assert statuses[200] == CLIENTS - 1, statuses

    listed = live.kosli_json("list", "trails", "--flow", "busy")
    assert [t["name"] for t in listed["data"]] == ["shared"]
    assert listed["pagination"]["total"] == 1
    trail = live.kosli_json("get", "trail", "shared", "--flow", "busy")
    kinds = Counter(e["type"] for e in trail["events"])
    assert kinds == {"trail_reported": 1, "trail_updated": CLIENTS - 1}
    assert trail["events"][0]["type"] == "trail_reported"
    assert trail["description"] in {f"attempt {n}" for n in range(CLIENTS)}
    # The CLI still renders the busy history.
    assert live.kosli("get", "trail", "shared", "--flow", "busy").stdout.count("trail updated") \
        == CLIENTS - 1


def test_concurrent_begin_of_different_trails(live: RunningServer):
    live.kosli("create", "flow", "wide", "--use-empty-template")
    names = [f"trail-{n:02d}" for n in range(CLIENTS)]
    answers = all_at_once([lambda name=name: begin_trail(live, "wide", name, name) for name in names])

    assert [a.status_code for a in answers] == [201] * CLIENTS, \
        [(a.status_code, a.text) for a in answers if a.status_code != 201]
    listed = live.kosli_json("list", "trails", "--flow", "wide", "--page-limit", "100")
    assert sorted(t["name"] for t in listed["data"]) == names
    assert listed["pagination"]["total"] == CLIENTS
    for name in (names[0], names[-1]):
        trail = live.kosli_json("get", "trail", name, "--flow", "wide")
        assert [e["type"] for e in trail["events"]] == ["trail_reported"]


def report(server: RunningServer, env: str, fingerprint: str) -> requests.Response:
    """A `kosli snapshot server` report of one artifact."""
    body = {"artifacts": [{"digests": {"app": fingerprint}, "creationTimestamp": 1_700_000_000}]}
    with requests.Session() as session:
        return session.put(f"{server.http_url}/api/v2/environments/acme/{env}/report/server",
                           headers=bearer(), json=body, timeout=60)


def test_concurrent_reports_of_one_environment(live: RunningServer):
    """Reports are serialized per environment across the server's worker processes: each
    change is one snapshot with its own index, and a repeated state makes none."""
    for env in ("changing", "steady"):
        live.kosli("create", "environment", env, "--type", "server")
    fingerprints = [f"{n:064x}" for n in range(1, CLIENTS + 1)]
    answers = all_at_once(
        [lambda fp=fp: report(live, "changing", fp) for fp in fingerprints]
        + [lambda: report(live, "steady", "f" * 64) for _ in range(CLIENTS)])
    assert [a.status_code for a in answers] == [200] * (2 * CLIENTS), \
        [(a.status_code, a.text) for a in answers if a.status_code != 200]

    changing = live.kosli_json("list", "snapshots", "changing", "--page-limit", "100")
    assert sorted(s["index"] for s in changing) == list(range(1, CLIENTS + 1))
    # Every snapshot runs exactly one of the reported fingerprints, each once.
    seen = [live.kosli_json("get", "snapshot", f"changing#{n}")["artifacts"]
            for n in range(1, CLIENTS + 1)]
    running_now = [[a["fingerprint"] for a in artifacts if a["annotation"]["now"]]
                   for artifacts in seen]
    assert sorted(fp for [fp] in running_now) == fingerprints
    assert [s["index"] for s in live.kosli_json("list", "snapshots", "steady")] == [1]
    created = [a.text for a in answers[CLIENTS:] if "Snapshot #" in a.text]
    assert len(created) == 1, created
