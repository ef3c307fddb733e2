"""The real kosli CLI's `list` commands (and `log environment`) against a server holding 1,000
flows, trails, artifacts, environments with snapshots, snapshots and events of one environment
and repos (tests/service/test_sizes.py inserts them in bulk before the server starts)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import grpc
import pytest
import requests

from evidence_grpc.api.v2 import trail_service_pb2 as trail_pb
from evidence_grpc.api.v2 import trail_service_pb2_grpc as trail_grpc
from evidence_grpc.domain.kernel.ids import hosted_id
from evidence_grpc.servicers import trails as trail_servicer
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Flow, FlowTemplate, Trail, TrailEvent
from rest_shim import transcoder
from tests.conftest import (
    ALICE_KEY,
    ENGINES,
    RunningServer,
    _close_shared_database,
    bearer,
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
    # searched (the server streams the list, filtered: one chunk of 100 exactly)
    found = big.kosli_json("list", "flows", "--name", "FLOW-09", "--ignore-case")
    assert [f["name"] for f in found] == [f"flow-{i:04d}" for i in range(900, N)]


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
    # filtered and sorted (every environment changed at once: ties by name, reversed)
    backwards = big.kosli_json("list", "environments", "--type", "server", "--sort",
                               "last_changed_at", "--sort-direction", "desc")
    assert [e["name"] for e in backwards] == [f"env-{i:04d}" for i in reversed(range(N))]
    assert big.kosli_json("list", "environments", "--tag", "team") == []
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


# ---- memory: the largest answers leave every process within its budget ---------------------

STREAMED_FLOW, STREAMED_TRAILS = "streamed", 20_000
MIB = 1024 * 1024
# What reading an unpaged list may add to a process (docs/operator.md, "Memory"): the caches it
# fills, each to its bound at most (an HTTP worker of `serve` runs the servicers in process:
# the items' JSON, the trails' answers and their events), a chunk of 100 trails in flight and
# the allocator's slack. Whole, the 20,000 trails' answer is 16 MB of JSON, which one worker
# held several times over (its messages, their JSON, the joined body): 100 MB and more.
LIST_READ_GROWTH = (transcoder._KEPT_JSON_BYTES + trail_servicer.TRAIL_BYTES
                    + trail_servicer.EVENT_BYTES + 12 * MIB)


def _seed_streamed_flow(url: str) -> None:
    """STREAMED_TRAILS trails, each with the event beginning it, in a flow of their own."""
    storage.init_database(url)
    with storage.database.connection_context(), storage.database.atomic():
        model = Flow.select().where(Flow.name == FLOW).dicts().get()
        flow = Flow.insert({**{k: v for k, v in model.items() if k != "id"},
                            "name": STREAMED_FLOW, "template": None}).execute()
        template = hosted_id()
        FlowTemplate.insert(id=template, flow=flow, created_at=model["created_at"]).execute()
        Flow.update(template=template).where(Flow.id == flow).execute()
        stamp = model["created_at"]
        for start in range(0, STREAMED_TRAILS, 1000):
            Trail.insert_many([{"flow": flow, "name": f"t-{i:05d}", "description": "a release",
                                "git_commit_info": {"sha1": "a" * 40, "message": f"change {i}"},
                                "created_at": stamp + i, "last_modified_at": stamp + i,
                                "flow_template": template}
                               for i in range(start, start + 1000)]).execute()
        ids = [i for (i,) in Trail.select(Trail.id).where(Trail.flow == flow).tuples()]
        for start in range(0, len(ids), 1000):
            TrailEvent.insert_many([{"trail": i, "timestamp": stamp, "type": "trail_reported",
                                     "payload": {"user": "alice"}}
                                    for i in ids[start:start + 1000]]).execute()
    _close_shared_database()


def _processes(root: int) -> list[int]:
    """The server's process and every process below it."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
    found = {root}
    while more := {pid for pid, parent in parents.items() if parent in found} - found:
        found |= more
    return sorted(found)


def _memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (the peak since it was last reset) of a process, in bytes."""
    with open(f"/proc/{pid}/status") as status:
        return {line.split(":")[0]: int(line.split()[1]) * 1024 for line in status
                if line.startswith(("VmRSS:", "VmHWM:"))}


def test_the_largest_list_leaves_every_process_within_its_budget(big: RunningServer) -> None:
    """The unpaged list of 20,000 trails, read through REST (written while it is read) and
    through gRPC's StreamFlowTrails: no process of the server (HTTP workers, gRPC
    processes, the rest) peaks more than LIST_READ_GROWTH above what it held before. On
    SQLite only: what a process holds does not depend on the engine, and seeding PostgreSQL
    costs the suite seconds more (bench/bench_memory.py measures both)."""
    if not big.database_url.startswith("sqlite"):
        pytest.skip("memory is measured on SQLite (bench_memory.py: both engines)")
    _seed_streamed_flow(big.database_url)
    processes = _processes(big.process.pid)
    before = {pid: _memory(pid)["VmRSS"] for pid in processes}
    for pid in processes:  # the peak (VmHWM) starts again from the RSS of now
        with open(f"/proc/{pid}/clear_refs", "w") as clear:
            clear.write("5")
    listed = requests.get(f"{big.http_url}/api/v2/trails/acme/{STREAMED_FLOW}",
                          headers=bearer(), timeout=120)
    assert listed.status_code == 200 and "Content-Length" not in listed.headers
    names = [t["name"] for t in listed.json()]
    assert names == [f"t-{i:05d}" for i in reversed(range(STREAMED_TRAILS))]
    with grpc.insecure_channel(big.grpc_target) as channel:
        streamed = trail_grpc.TrailServiceStub(channel).StreamFlowTrails(
            trail_pb.StreamFlowTrailsRequest(org="acme", flow_name=STREAMED_FLOW),
            metadata=(("authorization", f"Bearer {ALICE_KEY}"),), timeout=120)
        assert sum(len(chunk.data) for chunk in streamed) == STREAMED_TRAILS
    grown = {pid: _memory(pid)["VmHWM"] - before[pid] for pid in processes}
    assert max(grown.values()) <= LIST_READ_GROWTH, {
        pid: f"{growth / MIB:.1f} MiB" for pid, growth in grown.items()}
