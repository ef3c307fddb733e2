"""Lists at real sizes, on both engines: 1,000 flows, trails, artifacts, attestations,
environments with snapshots, snapshots of one environment and deployments, read unpaged and
paged through REST and gRPC.

The data is inserted in bulk inside one transaction (`sized_database`); only the reads go
through the transports. An unpaged list answers every item; a paged one follows the contract
(page boundaries, the last page, total counts)."""

from __future__ import annotations

import contextlib
import json
import math
import pathlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import peewee
import pytest
from playhouse.migrations import Runner

from evidence_grpc.api.v2 import artifact_service_pb2 as artifact_pb
from evidence_grpc.api.v2 import artifact_service_pb2_grpc as artifact_grpc
from evidence_grpc.api.v2 import attestation_service_pb2 as attestation_pb
from evidence_grpc.api.v2 import attestation_service_pb2_grpc as attestation_grpc
from evidence_grpc.api.v2 import deployment_service_pb2 as deployment_pb
from evidence_grpc.api.v2 import deployment_service_pb2_grpc as deployment_grpc
from evidence_grpc.api.v2 import environment_service_pb2 as environment_pb
from evidence_grpc.api.v2 import environment_service_pb2_grpc as environment_grpc
from evidence_grpc.api.v2 import flow_service_pb2 as flow_pb
from evidence_grpc.api.v2 import flow_service_pb2_grpc as flow_grpc
from evidence_grpc.api.v2 import repo_service_pb2 as repo_pb
from evidence_grpc.api.v2 import repo_service_pb2_grpc as repo_grpc
from evidence_grpc.api.v2 import snapshot_service_pb2 as snapshot_pb
from evidence_grpc.api.v2 import snapshot_service_pb2_grpc as snapshot_grpc
from evidence_grpc.api.v2 import trail_service_pb2 as trail_pb
from evidence_grpc.api.v2 import trail_service_pb2_grpc as trail_grpc
from evidence_grpc.config import Settings
from evidence_grpc.domain.evidence import artifacts, attestations, trails
from evidence_grpc.domain.governance import approvals
from evidence_grpc.domain.identity import service_accounts
from evidence_grpc.domain.kernel.pages import page_of
from evidence_grpc.domain.runtime import snapshots
from evidence_grpc.server import build_server
from evidence_grpc.servicers.lists import STREAM_CHUNK
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Attestation, Flow, Organization, Trail
from tests.conftest import (
    ALICE_KEY,
    ENGINES,
    LOG_KEY_FILE,
    _close_shared_database,
    bearer,
    fresh_database,
    grpc_channel,
    postgres_database,
)
from tests.helpers import (
    BUSY_ENV,
    FLOW,
    OLD_ATTESTATIONS,
    OTHER_FLOW,
    SHARED_COMMIT,
    SHARING,
    N,
    commit,
    details_of,
    fingerprint,
    populate,
)
from tests.helpers import SIZES_REPO as REPO


@dataclass
class Sized:
    url: str
    client: object  # the Flask test client


@pytest.fixture(scope="module", params=ENGINES)
def sized(request: pytest.FixtureRequest,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sized]:
    """A database on each engine holding N of every listed thing; built once per module."""
    from rest_shim.app import create_app

    tmp: pathlib.Path = tmp_path_factory.mktemp(f"sizes-{request.param}")
    with fresh_database(request.param, tmp, request) as url:
        storage.init_database(url)
        with storage.database.connection_context():
            populate()
        yield Sized(url, create_app(Settings(database_url=url)).test_client())
        _close_shared_database()


def get(sized: Sized, path: str) -> object:
    response = sized.client.get(f"/api/v2{path}", headers=bearer())
    assert response.status_code == 200, response.get_json()
    return response.get_json()


# ---- REST: unpaged lists answer every item --------------------------------------------------

def test_unpaged_flows_are_all_flows(sized: Sized) -> None:
    names = [f["name"] for f in get(sized, "/flows/acme")]
    assert names == [f"flow-{i:04d}" for i in range(N)]


def test_unpaged_trails_of_a_flow_are_all_its_trails(sized: Sized) -> None:
    names = [t["name"] for t in get(sized, f"/trails/acme/{FLOW}")]
    assert names == [f"trail-{i:04d}" for i in reversed(range(N))]


def _unpaged_answer(client: object, path: str, monkeypatch: pytest.MonkeyPatch,
                    streamed: bool) -> bytes:
    """The bytes of an unpaged list, streamed or (as before streams) made whole by its unary
    list."""
    from rest_shim import app

    with monkeypatch.context() as patched:
        if not streamed:
            patched.setattr(app, "stream_request", lambda route, message: None)
        response = client.get(f"/api/v2{path}", headers=bearer())  # type: ignore[attr-defined]
    assert response.status_code == 200, response.get_json()
    assert ("Content-Length" in response.headers) is not streamed
    return response.get_data()


# The unpaged lists that stream (`stream_unpaged`), with the number of items each answers:
# a flow's trails, the flows (all; one chunk exactly, searched), the environments (all, sorted
# by a time they share with ties by name, descending; none with a tag no environment has).
STREAMED = [(f"/trails/acme/{FLOW}", N), ("/flows/acme", N),
            ("/flows/acme?search_by_name=FLOW-00&case_sensitive=false", 100),
            ("/environments/acme", N),
            ("/environments/acme?sort=last_changed_at&sort_direction=desc&type=server", N),
            ("/environments/acme?tag=nobody", 0)]


def test_unpaged_lists_stream_the_bytes_of_the_whole_list(
        sized: Sized, monkeypatch: pytest.MonkeyPatch) -> None:
    """Written while read from its stream (chunks of 100), each list is the very bytes its
    unary list's whole answer renders to, cold (nothing kept) and warm, in process and
    through a gRPC channel (the shim run apart from the gRPC server)."""
    from evidence_grpc.servicers import trails as servicer
    from rest_shim import transcoder
    from rest_shim.app import create_app
    from rest_shim.backend import ChannelBackend

    wholes = [_unpaged_answer(sized.client, path, monkeypatch, streamed=False)
              for path, _ in STREAMED]
    assert [len(json.loads(whole)) for whole in wholes] == [n for _, n in STREAMED]
    for kept in (servicer._KEPT_TRAILS, transcoder._KEPT_JSON):
        kept.clear()
    for (path, _), whole in zip(STREAMED, wholes, strict=True):
        assert _unpaged_answer(sized.client, path, monkeypatch, streamed=True) == whole  # cold
        assert _unpaged_answer(sized.client, path, monkeypatch, streamed=True) == whole  # warm
    settings = Settings(database_url=sized.url, grpc_addr="127.0.0.1:0", log_key_file=LOG_KEY_FILE)
    server, port = build_server(settings)
    server.start()
    try:
        apart = create_app(settings, ChannelBackend(f"127.0.0.1:{port}", settings)).test_client()
        for (path, _), whole in zip(STREAMED, wholes, strict=True):
            assert _unpaged_answer(apart, path, monkeypatch, streamed=True) == whole
    finally:
        server.stop(None)


def test_unpaged_environments_with_snapshots_are_all_environments(sized: Sized) -> None:
    envs = get(sized, "/environments/acme")
    assert [e["name"] for e in envs] == [f"env-{i:04d}" for i in range(N)]
    assert {e["state"] for e in envs} == {True}  # each runs an artifact allowlisted there


def test_allowlist_is_every_entry(sized: Sized) -> None:
    assert len(get(sized, "/allowlists/acme")) == N


def test_live_artifacts_of_a_repo_running_in_every_environment(sized: Sized) -> None:
    live = get(sized, f"/repos/acme/live-artifacts/{REPO}")
    assert len(live["_embedded"]["environments"]) == N
    assert {(a["environment_id"], a["artifact_name"]) for a in live["live_artifacts"]} \
        >= {(e["id"], "app-0") for e in live["_embedded"]["environments"]
            if e["name"] == BUSY_ENV}


def test_lists_read_in_chunks_answer_the_same(sized: Sized, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    """Every IN list read in chunks (storage.db.in_chunks) answers what one IN list does."""
    paths = [f"/trails/acme/{FLOW}", "/environments/acme", f"/repos/acme/live-artifacts/{REPO}",
             "/trails/acme?page=2&per_page=100", f"/artifacts/acme?flow_name={FLOW}&per_page=100",
             "/attestations/acme/list_attestations_for_criteria?"
             + "&".join(f"commit_list={commit(i)}" for i in range(0, OLD_ATTESTATIONS, 7))]
    whole = [get(sized, path) for path in paths]
    monkeypatch.setattr(storage, "IN_CHUNK", 64)
    assert [get(sized, path) for path in paths] == whole


# ---- REST: paged lists follow the contract --------------------------------------------------

@pytest.mark.parametrize("page, per_page", [(1, 20), (17, 60), (10, 100)])
def test_flow_pages(sized: Sized, page: int, per_page: int) -> None:
    body = get(sized, f"/flows/acme?page={page}&per_page={per_page}")
    first = (page - 1) * per_page
    assert [f["name"] for f in body["data"]] == \
        [f"flow-{i:04d}" for i in range(first, min(first + per_page, N))]
    assert body["pagination"] == {"total": N, "page": page, "per_page": per_page,
                                  "page_count": math.ceil(N / per_page)}


def test_trail_pages_of_the_organization_default_to_twenty(sized: Sized) -> None:
    body = get(sized, f"/trails/acme?flow={FLOW}")
    assert len(body["data"]) == 20
    assert body["pagination"]["total"] == N and body["pagination"]["page_count"] == 50
    last = get(sized, f"/trails/acme?flow={FLOW}&page=34&per_page=30")
    assert [t["name"] for t in last["data"]] == [f"trail-{i:04d}" for i in reversed(range(10))]


def test_trail_pages_of_a_flow(sized: Sized) -> None:
    body = get(sized, f"/trails/acme/{FLOW}?page=2&per_page=100")
    assert [t["name"] for t in body["data"]] == \
        [f"trail-{i:04d}" for i in reversed(range(N - 200, N - 100))]
    assert body["pagination"]["total"] == N


def test_artifact_pages(sized: Sized) -> None:
    assert len(get(sized, f"/artifacts/acme?flow_name={FLOW}")) == 15
    seen = []
    for page in range(1, math.ceil(N / 100) + 1):
        seen += [a["fingerprint"] for a in
                 get(sized, f"/artifacts/acme?flow_name={FLOW}&page={page}&per_page=100")]
    assert seen == [fingerprint(i) for i in reversed(range(N))]
    assert get(sized, f"/artifacts/acme?repo_name={REPO}&page=67&per_page=15") == \
        get(sized, f"/artifacts/acme?flow_name={FLOW}&page=67&per_page=15")
    assert len(get(sized, f"/artifacts/acme?flow_name={FLOW}&page=67&per_page=15")) == 10


def test_latest_commit_of_a_branch_behind_many_others(sized: Sized) -> None:
    path = f"/artifacts/acme/{FLOW}/{fingerprint(0)}/latest_commit"
    assert get(sized, f"{path}?branch=release") == {"latest_commit": commit(0)}
    assert get(sized, f"{path}?branch=main") == {"latest_commit": commit(N - 1)}
    assert get(sized, f"{path}?branch=none") == {"latest_commit": None}


def test_search_answers_every_artifact_of_a_commit(sized: Sized) -> None:
    found = get(sized, f"/search/acme/sha/{SHARED_COMMIT}")
    assert found["resolved_to"]["full_match"] == SHARED_COMMIT
    assert len(found["artifacts"]) == SHARING


def test_attestation_pages_of_a_flow(sized: Sized) -> None:
    body = get(sized, f"/attestations/acme/{FLOW}?page=10&per_page=100")
    assert len(body["data"]) == 100
    assert body["pagination"]["total"] == N and body["pagination"]["page_count"] == 10


# What a page of each list runs: the same statements on its first and its last page, each
# one picking rows by an index, none scanning or sorting a whole table (issue 48: a page cost
# what the whole list did). (list, its call given a Page, statements a page runs). Only the
# outer query of a page picked by `id IN (SELECT ... LIMIT ...)` may sort: a page's rows at
# most. An OFFSET walks the listed table alone.
PAGED = [("trails of a flow", lambda org, page: trails.list_flow_trails(org, FLOW, page), 3),
         ("attestations of a flow",
          lambda org, page: attestations.list_flow_attestations(org, FLOW, page, {}), 2),
         ("attestations of a trail", lambda org, page: attestations.list_flow_attestations(
             org, OTHER_FLOW, page, {"trail_name": "old"}), 2),  # OLD_ATTESTATIONS of them
         ("artifacts of a flow", lambda org, page: artifacts.list_artifacts(
             org, page, flow_name=FLOW), 3),
         ("artifacts of the organization", lambda org, page: artifacts.list_artifacts(
             org, page), 2),
         ("trails of the organization", lambda org, page: trails.list_trails(org, page), 3),
         ("snapshots of an environment", lambda org, page: snapshots.list_snapshots(
             org, BUSY_ENV, page.number, page.size), 2),
         ("events of an environment", lambda org, page: snapshots.list_events(
             org, BUSY_ENV, page=page.number, per_page=page.size), 5),
         ("approvals of a flow", lambda org, page: approvals.list_approvals(
             org, OTHER_FLOW, page.number, page.size), 3),
         # (none made here: what their pages run, all the same)
         ("audit log", lambda org, page: service_accounts.audit_log(
             org, page.number, page.size), 2)]


@pytest.mark.parametrize(("label", "call", "statements"), PAGED, ids=[p[0] for p in PAGED])
def test_a_page_runs_the_same_indexed_statements_wherever_it_is(
        sized: Sized, monkeypatch: pytest.MonkeyPatch, label: str, call: Any, statements: int
        ) -> None:
    storage.init_database(sized.url)
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        ran: list[tuple[str, tuple[Any, ...]]] = []
        monkeypatch.setattr(storage.database.obj, "query_hooks", [
            lambda event: ran.append((event.sql, tuple(event.params or ())))])
        for page in (1, math.ceil(N / 100)):
            first = len(ran)
            call(org, page_of(page, 100))
            assert len(ran) - first == statements, ran[first:]
        monkeypatch.setattr(storage.database.obj, "query_hooks", [])
        for sql, params in ran:
            if "OFFSET" in sql:  # walked on the listed table alone, never on joined rows
                walked = sql[sql.rfind("SELECT", 0, sql.index("OFFSET")):sql.index("OFFSET")]
                assert "JOIN" not in walked, f"{label}: {sql}"
            plan = _plan(sql, params)
            refused = [r"in: .*TEMP B-TREE", r"Seq Scan", r"->\s+Sort", r"\bSCAN \w+\b(?! USING)"]
            if not re.search(r"IN \(SELECT .* LIMIT", sql):  # else it sorts a page's rows at most
                refused += [r"top: .*TEMP B-TREE", r"^Sort\b"]
            assert not re.search("|".join(refused), plan, re.M), f"{label}: {sql}\n{plan}"


def _plan(sql: str, params: tuple[Any, ...]) -> str:
    """The query's plan as text; on PostgreSQL with full scans and sorts priced out, so that
    one shows only where no index can serve (a table of 1,000 rows is scanned when cheaper).
    SQLite's steps say whether they are the outer query's (`top:`) or a subquery's (`in:`)."""
    db = storage.database.obj
    if isinstance(db, peewee.SqliteDatabase):
        return "\n".join(f"{'top' if parent == 0 else 'in'}: {detail}" for _, parent, _, detail
                         in db.execute_sql(f"EXPLAIN QUERY PLAN {sql}", params))
    with db.atomic():
        db.execute_sql("SET LOCAL enable_seqscan = off")
        db.execute_sql("SET LOCAL enable_sort = off")
        return "\n".join(row[0] for row in db.execute_sql(f"EXPLAIN {sql}", params))


def test_attestations_by_cursor_reach_the_oldest(sized: Sized) -> None:
    seen, path = 0, f"/attestations/acme?flow={FLOW}&per_page=100"
    while True:
        body = get(sized, path)
        seen += len(body["data"])
        after = body["_links"]["next"] if body["_links"].get("next") else None
        if after is None:
            break
        path = after.split("/api/v2", 1)[1]
    assert seen == N


def test_attestations_for_criteria_have_no_cap(sized: Sized) -> None:
    every = get(sized, "/attestations/acme/list_attestations_for_criteria?" + "&".join(
        f"commit_list={commit(i)}" for i in range(OLD_ATTESTATIONS)))
    assert len(every) == OLD_ATTESTATIONS
    assert all(len(found) == 1 and found[0]["git_commit_info"]["sha1"] == sha
               for sha, found in every.items())
    oldest = get(sized, "/attestations/acme/list_attestations_for_criteria"
                        f"?commit_list={commit(0)}&commit_list={commit(1)}")
    assert sorted(oldest) == sorted([commit(0), commit(1)])


def test_snapshot_pages(sized: Sized) -> None:
    assert [s["index"] for s in get(sized, f"/snapshots/acme/{BUSY_ENV}")] == \
        list(range(N, N - 15, -1))
    last = get(sized, f"/snapshots/acme/{BUSY_ENV}?page=67&per_page=15")
    assert [s["index"] for s in last] == list(range(10, 0, -1))
    reverse = get(sized, f"/snapshots/acme/{BUSY_ENV}?page=10&per_page=100&reverse=true")
    assert [s["index"] for s in reverse] == list(range(901, N + 1))


def test_environment_pages(sized: Sized) -> None:
    body = get(sized, "/environments/acme?page=20&per_page=50")
    assert [e["name"] for e in counted_page(body, "environments", 20, 50)] == \
        [f"env-{i:04d}" for i in range(950, N)]


def counted_page(body: dict, items: str, page: int, per_page: int) -> list:
    """The items of a runtime list's page, after checking its counted pagination."""
    assert {k: v for k, v in body.items() if k != items} == {
        "page": page, "per_page": per_page, "total_count": N,
        "total_pages": math.ceil(N / per_page)}
    return body[items]


@pytest.mark.parametrize("path", ["/deployments/acme", f"/repos/acme/{REPO}/deployments"])
def test_deployment_pages(sized: Sized, path: str) -> None:
    newest = counted_page(get(sized, f"{path}?page=1&per_page=50"), "deployments", 1, 50)
    last = counted_page(get(sized, f"{path}?page=20&per_page=50"), "deployments", 20, 50)
    assert len(newest) == len(last) == 50
    assert newest[0]["fingerprint"] == fingerprint(N - 1)
    assert last[-1]["fingerprint"] == fingerprint(0)


def test_environment_deployment_pages(sized: Sized) -> None:
    body = get(sized, f"/environments/acme/{BUSY_ENV}/deployments?page=10&page_size=100")
    assert len(counted_page(body, "deployments", 10, 100)) == 100


def test_build_pages(sized: Sized) -> None:
    body = get(sized, f"/builds/acme?repo_name={REPO}&page=20&per_page=50")
    assert len(counted_page(body, "builds", 20, 50)) == 50


def test_environment_event_pages(sized: Sized) -> None:
    events = get(sized, f"/environments/acme/{BUSY_ENV}/events?page=10&per_page=100")
    assert [e["snapshot_index"] for e in events] == list(range(100, 0, -1))
    last = get(sized, f"/environments/acme/{BUSY_ENV}/events?page=67&per_page=15")
    assert [e["snapshot_index"] for e in last] == list(range(10, 0, -1))


def test_repo_pages(sized: Sized) -> None:
    assert len(counted_page(get(sized, "/repos/acme?page=20&per_page=50"), "repos", 20, 50)) == 50


# ---- gRPC -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def channel(sized: Sized) -> Iterator[grpc.Channel]:
    # The message limits the REST shim's channel has too: a whole list can pass 4 MiB.
    with grpc_channel(sized.url) as opened:
        yield opened


AUTH = (("authorization", f"Bearer {ALICE_KEY}"),)


def test_grpc_unpaged_lists_are_whole(channel: grpc.Channel) -> None:
    flows = flow_grpc.FlowServiceStub(channel).ListFlows(flow_pb.ListFlowsRequest(org="acme"),
                                                         metadata=AUTH)
    assert len(flows.data) == N and not flows.HasField("pagination")
    trails = trail_grpc.TrailServiceStub(channel).ListFlowTrails(
        trail_pb.ListFlowTrailsRequest(org="acme", flow_name=FLOW), metadata=AUTH)
    assert len(trails.data) == N
    envs = environment_grpc.EnvironmentServiceStub(channel).ListEnvironments(
        environment_pb.ListEnvironmentsRequest(org="acme"), metadata=AUTH)
    assert len(envs.environments) == N
    found = attestation_grpc.AttestationServiceStub(channel).ListAttestationsForCriteria(
        attestation_pb.ListAttestationsForCriteriaRequest(
            org="acme", commit_list=[commit(i) for i in range(N)]), metadata=AUTH)
    assert len(found.by_commit) == N and all(len(v.data) == 1 for v in found.by_commit.values())


@dataclass
class Streamed:
    """A list that streams over gRPC: its service's stub, its unary and streaming methods,
    their requests (of `fields`), the repeated field of their answers and what the refusal
    past the cap says before the ways to read the list."""
    stub: Any
    listed: str
    streamed: str
    requests: tuple[Any, Any]
    fields: dict[str, Any]
    items: str
    too_long: str


STREAMS = [
    Streamed(trail_grpc.TrailServiceStub, "ListFlowTrails", "StreamFlowTrails",
             (trail_pb.ListFlowTrailsRequest, trail_pb.StreamFlowTrailsRequest),
             {"flow_name": FLOW}, "data", f"Flow '{FLOW}' has more than {N - 1} trails"),
    Streamed(flow_grpc.FlowServiceStub, "ListFlows", "StreamFlows",
             (flow_pb.ListFlowsRequest, flow_pb.StreamFlowsRequest), {}, "data",
             f"Organization 'acme' has more than {N - 1} flows"),
    Streamed(environment_grpc.EnvironmentServiceStub, "ListEnvironments", "StreamEnvironments",
             (environment_pb.ListEnvironmentsRequest, environment_pb.StreamEnvironmentsRequest),
             {"sort": "last_modified_at", "sort_direction": "desc"}, "environments",
             f"Organization 'acme' has more than {N - 1} environments"),
]


@pytest.mark.parametrize("streams", STREAMS, ids=lambda s: s.streamed)
def test_grpc_streams_in_chunks_of_what_the_whole_list_is(
        channel: grpc.Channel, streams: Streamed) -> None:
    stub = streams.stub(channel)
    listed, streamed = streams.requests
    whole = getattr(stub, streams.listed)(listed(org="acme", **streams.fields), metadata=AUTH)
    chunks = list(getattr(stub, streams.streamed)(streamed(org="acme", **streams.fields),
                                                  metadata=AUTH))
    assert {type(chunk).__name__ for chunk in chunks} == {f"{streams.streamed}Response"}
    assert [len(getattr(chunk, streams.items)) for chunk in chunks] == \
        [STREAM_CHUNK] * (N // STREAM_CHUNK)
    assert [item for chunk in chunks for item in getattr(chunk, streams.items)] == \
        list(getattr(whole, streams.items))


@pytest.mark.parametrize("refused_request", [
    (trail_grpc.TrailServiceStub, "StreamFlowTrails",
     trail_pb.StreamFlowTrailsRequest(org="acme", flow_name="nope"), grpc.StatusCode.NOT_FOUND,
     "FLOW_NOT_FOUND", ""),
    (environment_grpc.EnvironmentServiceStub, "StreamEnvironments",
     environment_pb.StreamEnvironmentsRequest(org="acme", sort="colour"),
     grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD", "sort"),
    (flow_grpc.FlowServiceStub, "StreamFlows", flow_pb.StreamFlowsRequest(org="other"),
     grpc.StatusCode.PERMISSION_DENIED, None, "")], ids=["not-found", "invalid", "denied"])
def test_grpc_streams_refuse_with_the_unary_lists_errors(
        channel: grpc.Channel, refused_request: tuple) -> None:
    """A stream refused answers no chunk: its status and google.rpc details are those of a
    unary call."""
    stub, method, request, code, reason, field = refused_request
    with pytest.raises(grpc.RpcError) as refused:
        list(getattr(stub(channel), method)(request, metadata=AUTH))
    assert refused.value.code() == code
    info, violations = details_of(refused.value)
    if reason is not None:
        assert info is not None and info.reason == reason
    if field:
        assert field in violations


@pytest.mark.parametrize("streams", STREAMS, ids=lambda s: s.listed)
def test_grpc_unpaged_lists_are_refused_past_their_cap(
        channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch, streams: Streamed) -> None:
    """Past UNARY_LIST_MOST items a unary list is refused, naming the two ways to read it."""
    from evidence_grpc.servicers import lists

    stub = streams.stub(channel)
    listed, _ = streams.requests
    call = getattr(stub, streams.listed)
    monkeypatch.setattr(lists, "UNARY_LIST_MOST", N - 1)
    with pytest.raises(grpc.RpcError) as refused:
        call(listed(org="acme", **streams.fields), metadata=AUTH)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refused.value.details() == (
        f"{streams.too_long}: ask for them a page at a time (page, per_page) or stream them "
        f"({streams.streamed})")
    assert details_of(refused.value)[0].reason == "LIST_TOO_LONG"
    paged = call(listed(org="acme", page=20, per_page=50, **streams.fields), metadata=AUTH)
    assert len(getattr(paged, streams.items)) == 50
    monkeypatch.setattr(lists, "UNARY_LIST_MOST", N)
    assert len(getattr(call(listed(org="acme", **streams.fields), metadata=AUTH),
                       streams.items)) == N


def test_grpc_commit_search_longer_than_one_in_list(channel: grpc.Channel) -> None:
    commits = [commit(i) for i in range(OLD_ATTESTATIONS)]
    assert len(commits) > 2 * storage.IN_CHUNK
    found = attestation_grpc.AttestationServiceStub(channel).ListAttestationsForCriteria(
        attestation_pb.ListAttestationsForCriteriaRequest(org="acme", commit_list=commits),
        metadata=AUTH)
    assert {sha: [a.git_commit_info.sha1 for a in attested.data]
            for sha, attested in found.by_commit.items()} == {sha: [sha] for sha in commits}


def test_grpc_pages(channel: grpc.Channel) -> None:
    flows = flow_grpc.FlowServiceStub(channel).ListFlows(
        flow_pb.ListFlowsRequest(org="acme", page=34, per_page=30), metadata=AUTH)
    assert [f.name for f in flows.data] == [f"flow-{i:04d}" for i in range(990, N)]
    assert (flows.pagination.total, flows.pagination.page_count) == (N, 34)
    trails = trail_grpc.TrailServiceStub(channel).ListTrails(
        trail_pb.ListTrailsRequest(org="acme", flow=FLOW, page=5, per_page=100), metadata=AUTH)
    assert len(trails.data) == 100 and trails.pagination.total == N


def test_grpc_runtime_pages(channel: grpc.Channel) -> None:
    artifacts = artifact_grpc.ArtifactServiceStub(channel).ListArtifacts(
        artifact_pb.ListArtifactsRequest(org="acme", flow_name=FLOW, page=67, per_page=15),
        metadata=AUTH)
    assert [a.fingerprint for a in artifacts.data] == [fingerprint(i) for i in range(9, -1, -1)]
    snapshots = snapshot_grpc.SnapshotServiceStub(channel).ListSnapshots(
        snapshot_pb.ListSnapshotsRequest(org="acme", env_name=BUSY_ENV, page=10, per_page=100),
        metadata=AUTH)
    assert [s.index for s in snapshots.snapshots] == list(range(100, 0, -1))
    deployments = deployment_grpc.DeploymentServiceStub(channel).ListDeployments(
        deployment_pb.ListDeploymentsRequest(org="acme", page=20, per_page=50), metadata=AUTH)
    assert len(deployments.deployments) == 50
    assert (deployments.total_count, deployments.total_pages) == (N, 20)
    repos = repo_grpc.RepoServiceStub(channel).ListRepos(
        repo_pb.ListReposRequest(org="acme", page=20, per_page=50), metadata=AUTH)
    assert (len(repos.repos), repos.total_count, repos.total_pages) == (50, N, 20)


# ---- the commit column of existing attestations ---------------------------------------------

def test_0007_fills_the_commit_of_existing_attestations(engine: str,
                                                         tmp_path: pathlib.Path) -> None:
    with contextlib.ExitStack() as stack:
        if engine == "sqlite":
            url = f"sqlite:///{tmp_path / 'old.db'}"
        else:
            url = stack.enter_context(postgres_database(None))
        db = storage.init_database(url)
        with storage.database.connection_context():
            Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0006_repo_links")
            times = {"created_at": 1_700_000_000.0, "last_modified_at": 1_700_000_000.0}
            org = Organization.insert(name="acme", **times).execute()
            flow = Flow.insert(organization=org, name="ci", **times).execute()
            trail = Trail.insert(flow=flow, name="t", **times).execute()
            for name, data in (("named", {"git_commit_info": {"sha1": commit(7)}}),
                               ("odd", {"git_commit_info": {"sha1": 7}}),
                               ("flat", {"git_commit_info": "abc"}), ("none", {})):
                Attestation.insert(uid=name, organization=org, flow=flow, trail=trail, name=name,
                                   type="generic", is_compliant=True, data=data,
                                   created_at=times["created_at"]).execute()

            assert storage.migrate()[0] == "0007_attestation_commits"

            assert {a.uid: a.git_commit for a in Attestation.select()} == \
                {"named": commit(7), "odd": None, "flat": None, "none": None}
        storage.database.close()

