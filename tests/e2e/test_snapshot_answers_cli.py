"""A large snapshot answer goes gzipped to a client that asks for it (issue 35), and the real
kosli CLI, whose Go client asks by itself, reads it as before, on every engine."""

from __future__ import annotations

import gzip
import json
import urllib.request

import pytest

from tests.conftest import ALICE_KEY, RunningServer
from tests.e2e.cli import unique

pytestmark = pytest.mark.e2e


def _request(live: RunningServer, method: str, path: str, body: object = None,
             headers: dict[str, str] | None = None) -> tuple[dict[str, str], bytes]:
    request = urllib.request.Request(
        f"{live.http_url}{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {ALICE_KEY}", "Content-Type": "application/json",
                 **(headers or {})})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return dict(answer.headers), answer.read()


def test_the_cli_reads_a_gzipped_snapshot(live: RunningServer) -> None:
    env = unique("big")
    live.kosli("create", "environment", env, "--type", "server")
    _request(live, "PUT", f"/api/v2/environments/acme/{env}/report/server", {"artifacts": [
        {"digests": {f"service-{n:03d}": f"{n:064x}"}, "creationTimestamp": 1_700_000_000 + n}
        for n in range(300)]})

    headers, plain = _request(live, "GET", f"/api/v2/snapshots/acme/{env}/-1")
    assert "Content-Encoding" not in headers and len(plain) > 64 * 1024
    headers, zipped = _request(live, "GET", f"/api/v2/snapshots/acme/{env}/-1",
                               headers={"Accept-Encoding": "gzip"})
    assert headers["Content-Encoding"] == "gzip" and len(zipped) < len(plain) / 5
    assert gzip.decompress(zipped) == plain

    shown = live.kosli_json("get", "snapshot", env)
    assert shown == json.loads(plain)
    assert len(shown["artifacts"]) == 300
    assert "service-299" in live.kosli("get", "snapshot", env).stdout
