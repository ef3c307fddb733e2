"""The real kosli CLI's `list` commands (and `log environment`) against a server holding 1,000
flows, trails, artifacts, environments with snapshots, snapshots and events of one environment
and repos (tests/service/test_sizes.py inserts them in bulk before the server starts)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evidence_grpc.storage import db as storage
from tests.conftest import (
    ENGINES,
    RunningServer,
    _close_shared_database,
    fresh_database,
    start_server,
    stop_server,
)
from tests.helpers import BUSY_ENV, FLOW, N, fingerprint, populate


@pytest.fixture(scope="module", params=ENGINES)
def big(request: pytest.FixtureRequest,
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A real server on each engine over a database holding N of every listed thing."""
    tmp = tmp_path_factory.mktemp(f"sizes-cli-{request.param}")
    with fresh_database(request.param, tmp, request) as url:
        storage.init_database(url)
        with storage.database.connection_context():
            populate()
        _close_shared_database()
        running = start_server(url, tmp, bootstrap_with=None)
        try:
            yield running
        finally:
            stop_server(running)


def test_list_flows_shows_every_flow(big: RunningServer) -> None:
    flows = big.kosli_json("list", "flows")
    assert [f["name"] for f in flows] == [f"flow-{i:04d}" for i in range(N)]
    table = big.kosli("list", "flows").stdout.splitlines()
    assert len(table) == N + 1  # a header and a line per flow
    assert table[-1].split()[0] == f"flow-{N - 1:04d}"


def test_list_flows_pages(big: RunningServer) -> None:
    page = big.kosli_json("list", "flows", "--page", "34", "--page-limit", "30")
    assert [f["name"] for f in page["data"]] == [f"flow-{i:04d}" for i in range(990, N)]
    assert page["pagination"]["total"] == N and page["pagination"]["page_count"] == 34


def test_list_trails_pages(big: RunningServer) -> None:
    first = big.kosli_json("list", "trails", "--flow", FLOW)
    assert [t["name"] for t in first["data"]] == [f"trail-{i:04d}" for i in range(N - 1, N - 21, -1)]
    assert (first["pagination"]["total"], first["pagination"]["page_count"]) == (N, 50)
    last = big.kosli_json("list", "trails", "--flow", FLOW, "--page", "10", "--page-limit", "100")
    assert [t["name"] for t in last["data"]] == [f"trail-{i:04d}" for i in range(99, -1, -1)]


def test_list_environments_shows_every_environment(big: RunningServer) -> None:
    envs = big.kosli_json("list", "environments")
    assert [e["name"] for e in envs] == [f"env-{i:04d}" for i in range(N)]
    table = big.kosli("list", "environments").stdout.splitlines()
    assert len(table) == N + 1
    page = big.kosli_json("list", "environments", "--page", "20", "--page-limit", "50")
    assert [e["name"] for e in page["environments"]] == [f"env-{i:04d}" for i in range(950, N)]
    assert (page["total_count"], page["total_pages"]) == (N, 20)


def test_list_artifacts_pages(big: RunningServer) -> None:
    last = big.kosli_json("list", "artifacts", "--flow", FLOW, "--page", "67",
                          "--page-limit", "15")
    assert [a["fingerprint"] for a in last] == [fingerprint(i) for i in range(9, -1, -1)]


def test_list_snapshots_pages(big: RunningServer) -> None:
    newest = big.kosli_json("list", "snapshots", BUSY_ENV)
    assert [s["index"] for s in newest] == list(range(N, N - 15, -1))
    oldest = big.kosli_json("list", "snapshots", BUSY_ENV, "--page", "10", "--page-limit", "100",
                            "--reverse")
    assert [s["index"] for s in oldest] == list(range(901, N + 1))


def test_list_repos_pages(big: RunningServer) -> None:
    page = big.kosli_json("list", "repos", "--page", "20", "--page-limit", "50")
    assert len(page["repos"]) == 50
    assert (page["total_count"], page["total_pages"]) == (N, 20)


def test_log_environment_pages(big: RunningServer) -> None:
    oldest = big.kosli_json("log", "environment", BUSY_ENV, "--page", "10", "--page-limit", "100")
    assert [e["snapshot_index"] for e in oldest] == list(range(100, 0, -1))
