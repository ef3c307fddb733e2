"""Deployments, deployment statistics, builds and what runs, on a controlled clock: the
numbers below are computed by hand from the report and commit times. Evidence is arranged
through the REST shim; the statistics are read over REST and over gRPC (a real in-process
server with the interceptor chain)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from evidence_grpc.api.v2 import repo_service_pb2 as repo_pb
from evidence_grpc.api.v2 import repo_service_pb2_grpc as repo_grpc
from evidence_grpc.domain.runtime import deployments
from tests.conftest import ALICE_KEY, BOB_KEY, bearer, govern, grpc_channel
from tests.helpers import (
    DAY,
    FP_A,
    FP_B,
    FP_C,
    FP_X,
    REVIEWED,
    T0,
    T1,
    T2,
    T3,
    Clock,
    H,
    attest,
    build,
    create_flow,
    environment,
    get,
)
from tests.helpers import DEMO_REPO as REPO
from tests.helpers import clock as clock  # noqa: F401 - fixture
from tests.helpers import open_trail as begin_trail

OTHER_REPO = {"id": "r-7", "name": "platform/backend/api", "url": "https://gitlab.example/x",
              "provider": "gitlab"}


def running(client, env: str, *fingerprints: str) -> None:
    body = {"artifacts": [{"digests": {f"app-{fp[:4]}": fp}, "creationTimestamp": 1}
                          for fp in fingerprints]}
    answer = client.put(f"/api/v2/environments/acme/{env}/report/server", headers=H, json=body)
    assert answer.status_code == 200, answer.json


@pytest.fixture
def deployed(client, clock: Clock):
    """A and B built from acme/demo (A on its trail's repo_info, B on a trail that learns its
    repo only after B was deployed), C from another repo, X never reported.
      T1: prod runs A         -> deployment of A to prod, lead T1 - T0
      T2: prod runs A, B, C   -> B (lead T2 - (T0 + 100)) and C to prod
      T3: staging runs B, X   -> B to staging (lead T3 - (T0 + 100)); X has no provenance
    `all` is a logical environment holding prod: it never counts as deployed to. prod and
    staging are governed by HOUSE_RULES."""
    create_flow(client, "ci", REVIEWED)
    build(client, "a", FP_A, T0, REPO)
    build(client, "b", FP_B, T0 + 100, None)
    build(client, "c", FP_C, T0, OTHER_REPO)
    for name in ("prod", "staging"):
        environment(client, name)
    govern(client, "prod", "staging")
    environment(client, "all", "logical")
    assert client.put("/api/v2/environments/acme/all/join", headers=H,
                      json={"physical_env_name": "prod"}).status_code == 200
    clock.at(T1)
    running(client, "prod", FP_A)
    clock.at(T2)
    running(client, "prod", FP_A, FP_B, FP_C)
    begin_trail(client, "ci", "b", repo_info=REPO)  # B's repo becomes known after it deployed
    clock.at(T3)
    running(client, "staging", FP_B, FP_X)
    return clock


def series(stats: dict) -> dict[str, tuple[list[float], list[float]]]:
    return {e["env_name"]: ([d["deployed_at"] for d in e["deployment_frequency"]],
                            [t["lead_time_seconds"] for t in e["lead_times"]])
            for e in stats["environments"]}


def test_statistics_windows_filters_and_edges(client, deployed: Clock):
    path = "repos/acme/r-42/deployment-statistics"
    both = get(client, f"{path}?start_ts={T1}&end_ts={T3}")
    assert (both["start_ts"], both["end_ts"]) == (T1, T3)
    assert both["_links"] is None
    assert series(both) == {"prod": ([T1, T2], [T1 - T0, T2 - T0 - 100]),
                            "staging": ([T3], [T3 - T0 - 100])}
    # Edges are inclusive; an environment deployed to outside the window is still listed.
    assert series(get(client, f"{path}?start_ts={T2}&end_ts={T2}")) == {
        "prod": ([T2], [T2 - T0 - 100]), "staging": ([], [])}
    assert series(get(client, f"{path}?start_ts={T1 + 1}&end_ts={T2 - 1}")) == {
        "prod": ([], []), "staging": ([], [])}
    assert series(get(client, f"{path}?env=staging&start_ts=0&end_ts={T3}")) == {
        "staging": ([T3], [T3 - T0 - 100])}
    assert series(get(client, f"{path}?env=staging&env=prod&env=all&start_ts=0")) == series(both)
    # Default window: end = now, start = 28 days before.
    deployed.at(T1 + 28 * DAY)
    default = get(client, path)
    assert (default["start_ts"], default["end_ts"]) == (T1, T1 + 28 * DAY)
    assert series(default) == series(both)
    # By name too; the other repo only has C.
    assert series(get(client, "repos/acme/acme/demo/deployment-statistics")) == series(both)
    assert series(get(client, "repos/acme/r-7/deployment-statistics?start_ts=0")) == {
        "prod": ([T2], [T2 - T0])}


def test_statistics_bad_input(client, deployed: Clock):
    path = "repos/acme/r-42/deployment-statistics"
    missing = get(client, "repos/acme/nope/deployment-statistics", 404)
    assert "not found" in missing["message"]
    assert "start_ts" in get(client, f"{path}?start_ts={T3}&end_ts={T1}", 400)["errors"]
    assert "start_ts" in get(client, f"{path}?start_ts=yesterday", 400)["errors"]
    assert "end_ts" in get(client, f"{path}?end_ts=1e", 400)["errors"]
    foreign = client.get(f"/api/v2/{path}", headers=bearer(BOB_KEY))
    assert foreign.status_code == 403


@pytest.fixture
def stub(db: str) -> Iterator[repo_grpc.RepoServiceStub]:
    with grpc_channel(db) as channel:
        yield repo_grpc.RepoServiceStub(channel)


def test_statistics_over_grpc(client, deployed: Clock, stub: repo_grpc.RepoServiceStub):
    auth = (("authorization", f"Bearer {ALICE_KEY}"),)
    stats = stub.GetDeploymentStatistics(repo_pb.GetDeploymentStatisticsRequest(
        org="acme", repo="r-42", env=["prod"], start_ts=T1, end_ts=T2), metadata=auth, timeout=10)
    assert (stats.start_ts, stats.end_ts) == (T1, T2)
    [prod] = stats.environments
    assert prod.env_name == "prod"
    assert list(prod.deployment_frequency) == [T1, T2]  # packed series over gRPC
    assert list(prod.lead_times) == [T1 - T0, T2 - T0 - 100]
    with pytest.raises(grpc.RpcError) as bad:
        stub.GetDeploymentStatistics(repo_pb.GetDeploymentStatisticsRequest(
            org="acme", repo="r-42", start_ts=T2, end_ts=T1), metadata=auth, timeout=10)
    assert bad.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as unknown:
        stub.GetDeploymentStatistics(repo_pb.GetDeploymentStatisticsRequest(
            org="acme", repo="nope"), metadata=auth, timeout=10)
    assert unknown.value.code() is grpc.StatusCode.NOT_FOUND


def test_deployment_lists(client, deployed: Clock):
    org_wide = get(client, "deployments/acme?start_ts=0")
    rows = org_wide["deployments"]
    assert [(d["deployed_at"], d["environment_name"]) for d in rows] == [
        (T3, "staging"), (T3, "staging"), (T2, "prod"), (T2, "prod"), (T1, "prod")]
    assert org_wide["total_count"] == 5
    staged = {d["fingerprint"]: d for d in rows if d["environment_name"] == "staging"}
    assert staged[FP_B] == {
        "id": staged[FP_B]["id"], "environment_name": "staging", "snapshot_index": 1,
        "artifact_name": f"app-{FP_B[:4]}", "fingerprint": FP_B, "flow_name": "ci",
        "trail_name": "b", "git_commit": "c" * 40, "repo_name": "acme/demo", "repo_id": "r-42",
        "deployed_at": T3, "lead_time_seconds": T3 - T0 - 100}
    unknown = staged[FP_X]
    assert (unknown["flow_name"], unknown["repo_name"], unknown["lead_time_seconds"]) == \
        (None, None, None)
    # The default window is the last 28 days before end_ts.
    deployed.at(T3 + 28 * DAY - 1)
    assert get(client, "deployments/acme")["total_count"] == 2
    assert [d["deployed_at"] for d in get(
        client, f"deployments/acme?repo_name=acme/demo&env_name=prod&start_ts=0&end_ts={T3}"
    )["deployments"]] == [T2, T1]
    paged = get(client, "deployments/acme?start_ts=0&per_page=2&page=3")
    assert (len(paged["deployments"]), paged["total_pages"], paged["page"]) == (1, 3, 3)

    by_repo = get(client, f"repos/acme/r-42/deployments?start_ts=0&env=prod&end_ts={T3}")
    assert [d["fingerprint"] for d in by_repo["deployments"]] == [FP_B, FP_A]
    assert get(client, "repos/acme/acme/demo/deployments?start_ts=0")["total_count"] == 3
    get(client, "repos/acme/nope/deployments", 404)

    env = get(client, "environments/acme/prod/deployments?from=2023-11-01T00:00:00Z"
                      "&to=2023-11-30T00:00:00Z")
    assert [d["deployed_at"] for d in env["deployments"]] == [T2, T2, T1]
    assert get(client, "environments/acme/prod/deployments?from=2023-11-16T00:00:00&page_size=1"
               )["total_pages"] == 2
    assert "from" in get(client, "environments/acme/prod/deployments?from=soon", 400)["errors"]
    assert "page_size" in get(client, "environments/acme/prod/deployments?page_size=101",
                              400)["errors"]
    get(client, "environments/acme/nope/deployments", 404)

    one = get(client, f"deployments/acme/prod/{FP_A}")
    assert (one["deployed_at"], one["lead_time_seconds"], one["snapshot_index"]) == (T1, T1 - T0, 1)
    assert "No deployment" in get(client, f"deployments/acme/staging/{FP_A}", 404)["message"]


def test_deployment_frequency(client, deployed: Clock):
    all_flows = get(client, "environments/acme/prod/deployment_frequency")
    assert [d["deployed_at"] for d in all_flows["deployment_frequency"]] == [T1, T2, T2]
    assert (all_flows["env_name"], all_flows["flow_name"], all_flows["count"]) == ("prod", None, 3)
    create_flow(client, "other", REVIEWED)
    build(client, "z", FP_C, T0, None, flow="other")
    of_flow = get(client, "environments/acme/prod/deployment_frequency?flow_id=other")
    assert ([d["deployed_at"] for d in of_flow["deployment_frequency"]], of_flow["flow_name"]) \
        == ([T2], "other")
    get(client, "environments/acme/prod/deployment_frequency?flow_id=nope", 404)


def test_flow_remembers_its_last_deployment(client, deployed: Clock):
    assert get(client, "flows/acme/ci")["last_deployment_at"] == T3


def test_builds(client, deployed: Clock):
    deployed.at(T0 + 10 * DAY)
    build(client, "a-again", FP_A, T0, REPO)  # the same build reported again
    build(client, "d", FP_X, T0, REPO)
    stats = get(client, f"builds/acme/statistics?repo_name=acme/demo&end_ts={T0 + 10 * DAY}")
    # A and B were first reported at T0 (the clock's start), X at T0 + 10 days.
    assert stats == {"start_ts": T0 - 18 * DAY, "end_ts": T0 + 10 * DAY, "count": 3,
                     "builds": [{"created_at": T0}, {"created_at": T0},
                                {"created_at": T0 + 10 * DAY}]}
    assert get(client, f"builds/acme/statistics?repo_id=r-7&start_ts={T0}&end_ts={T0}"
               )["count"] == 1
    assert get(client, f"builds/acme/statistics?start_ts={T0 + 1}")["count"] == 1
    listed = get(client, "builds/acme?repo_inner_id=r-42&per_page=2")
    assert (listed["total_count"], listed["total_pages"]) == (3, 2)
    assert listed["builds"][0] == {
        "created_at": T0 + 10 * DAY, "fingerprint": FP_X, "flow_name": "ci", "trail_name": "d",
        "repo_info": {"name": "acme/demo", "repo_id": "r-42"},
        "_links": {"artifact": f"http://evidence.test/api/v2/artifacts/acme/ci/fingerprint/{FP_X}"}}
    get(client, "builds/acme/statistics?repo_name=nope", 404)
    assert "start_ts" in get(client, f"builds/acme?start_ts={T3}&end_ts={T1}", 400)["errors"]


def test_live_artifacts_and_their_compliance(client, deployed: Clock):
    live = get(client, "repos/acme/live-artifacts/acme/demo")
    entries = {(e["environment_id"], e["artifact_name"]): e for e in live["live_artifacts"]}
    envs = {e["name"]: e for e in live["_embedded"]["environments"]}
    assert sorted(envs) == ["prod", "staging"]
    prod_a = entries[(envs["prod"]["id"], f"app-{FP_A[:4]}")]
    assert (prod_a["snapshot_index"], prod_a["started_at"], prod_a["compliance"]) == \
        (2, T1, "NON-COMPLIANT")  # the flow's template wants a review
    assert len(entries) == 3  # A and B in prod, B in staging; C and X are not from this repo
    assert {a["fingerprint"] for a in live["_embedded"]["artifacts"]} == {FP_A, FP_B}
    assert attest(client, "generic", {"attestation_name": "review", "is_compliant": True},
                  flow="ci", trail="a").status_code == 201

    def compliance_of_a() -> set[str]:
        live = get(client, "repos/acme/live-artifacts/acme/demo")["live_artifacts"]
        return {e["compliance"] for e in live if e["artifact_name"] == f"app-{FP_A[:4]}"}

    assert compliance_of_a() == {"NON-COMPLIANT"}  # as judged when its snapshot was made
    running(client, "prod", FP_A, FP_B)  # C exits: a new snapshot, judged now
    assert compliance_of_a() == {"COMPLIANT"}
    get(client, "repos/acme/live-artifacts/nope", 404)


def test_a_snapshot_keeps_its_verdict_and_the_next_one_sees_new_evidence(client,
                                                                          deployed: Clock):
    snapshot = get(client, "snapshots/acme/prod/-1")
    assert snapshot["compliant"] is False
    a = next(x for x in snapshot["artifacts"] if x["fingerprint"] == FP_A)
    assert a["compliant"] is False
    assert a["reasons_for_incompliance"] == [
        {"type": "non_compliant_in_trail",
         "message": "Policy 'house-rules': artifact is not compliant in trail 'a' of flow 'ci'"}]
    for trail in ("a", "b", "c"):
        attest(client, "generic", {"attestation_name": "review", "is_compliant": True},
               flow="ci", trail=trail)
    assert get(client, "snapshots/acme/prod/-1") == snapshot  # recorded, not re-judged
    assert get(client, "environments/acme/prod")["state"] is False
    running(client, "prod", FP_A, FP_B)  # C exits: snapshot #3, judged with the reviews
    assert get(client, "snapshots/acme/prod/-1")["compliant"] is True
    assert get(client, "environments/acme/prod")["state"] is True
    staging = get(client, "snapshots/acme/staging/-1")
    x = next(x for x in staging["artifacts"] if x["fingerprint"] == FP_X)
    assert (staging["compliant"], x["reasons_for_incompliance"][0]["type"]) == \
        (False, "no_provenance")
    attest(client, "generic", {"attestation_name": "review", "is_compliant": False},
           flow="ci", trail="a")
    assert [(s["index"], s["compliant"]) for s in get(client, "snapshots/acme/prod")] == [
        (3, True), (2, False), (1, False)]
    events = get(client, "environments/acme/prod/events")
    assert [(e["snapshot_index"], e["type"], e["artifact_compliance"], e["snapshot_compliance"])
            for e in events] == [(3, "exited", False, True), (2, "started", False, False),
                                 (2, "started", False, False), (1, "started", False, False)]


def test_an_environment_without_policies_is_of_unknown_compliance(client, deployed: Clock):
    """Unknown is the environment's and its snapshots' (no requirements); each artifact keeps
    its own compliance, as GET artifact answers it."""
    attest(client, "generic", {"attestation_name": "review", "is_compliant": True},
           flow="ci", trail="a")
    assert get(client, f"artifacts/acme/ci/fingerprint/{FP_A}")["state"] == "COMPLIANT"
    environment(client, "dev")
    running(client, "dev", FP_A, FP_X)
    snapshot = get(client, "snapshots/acme/dev/-1")
    assert snapshot["compliant"] is False  # a bool for `kosli assert snapshot`: not COMPLIANT
    assert snapshot["compliance_state"] == "UNKNOWN"
    assert snapshot["artifact_compliance_count"] == {"true": 1, "false": 1, "null": 0}
    assert {a["fingerprint"]: (a["compliant"], [r["type"] for r in a["reasons_for_incompliance"]],
                               a["annotation"]["type"]) for a in snapshot["artifacts"]} == {
        FP_A: (True, [], "started-compliant"),
        FP_X: (False, ["no_provenance"], "started-non-compliant")}
    assert sorted(a["flow_name"] for a in snapshot["artifacts"]) == ["", "ci"]  # provenance kept
    assert get(client, "environments/acme/dev")["state"] is None  # Unknown: N/A in the CLI
    assert {e["name"]: e["state"] for e in get(client, "environments/acme")} == {
        "all": None, "dev": None, "prod": False, "staging": False}
    assert [(s["compliant"], s["compliance_state"]) for s in get(client, "snapshots/acme/dev")
            ] == [(False, "UNKNOWN")]
    assert {(e["sha256"], e["artifact_compliance"], e["snapshot_compliance"])
            for e in get(client, "environments/acme/dev/events")} == {
        (FP_A, True, None), (FP_X, False, None)}


def test_allowlist_listing(client, deployed: Clock):
    assert get(client, "allowlists/acme") == []
    for env in ("staging", "prod"):
        assert client.put(f"/api/v2/allowlists/acme/{env}", headers=H, json={
            "artifact_name": "x", "artifact_fingerprint": FP_X,
            "description": f"vendor image in {env}"}).status_code == 201
    listed = get(client, "allowlists/acme")
    assert [(e["environment_name"], e["description"], e["fingerprint"], e["user_name"])
            for e in listed] == [("prod", "vendor image in prod", FP_X, "alice"),
                                 ("staging", "vendor image in staging", FP_X, "alice")]
    assert set(listed[0]) == {"artifact_name", "fingerprint", "environment_name", "timestamp",
                              "user_name", "description"}
    assert client.get("/api/v2/allowlists/acme", headers=bearer(BOB_KEY)).status_code == 403


def test_repo_tags_and_filter_options(client, deployed: Clock):
    for repo, tags in (("r-42", {"team": "pay", "tier": "1"}), ("r-7", {"team": "core"})):
        assert client.patch(f"/api/v2/tags/acme/repo/{repo}", headers=H, json={
            "set_tags": tags, "remove_tags": []}).status_code == 200
    assert get(client, "repos/acme/tags") == {"tags": [
        {"key": "team", "values": ["core", "pay"]}, {"key": "tier", "values": ["1"]}]}
    assert get(client, "repos/acme/filter-options") == {
        "providers": ["github", "gitlab"], "vcs_instances": ["github.com", "gitlab.example"],
        "namespace_values": ["acme", "platform"]}
    # Each facet ignores its own filter; namespaces drill one level down.
    assert get(client, "repos/acme/filter-options?provider=gitlab") == {
        "providers": ["github", "gitlab"], "vcs_instances": ["gitlab.example"],
        "namespace_values": ["platform"]}
    assert get(client, "repos/acme/filter-options?namespace=platform")["namespace_values"] == \
        ["backend"]
    assert get(client, "repos/acme/filter-options?tag=team:pay")["providers"] == ["github"]
    listed = get(client, "repos/acme?namespace=platform/backend")
    assert [r["name"] for r in listed["repos"]] == ["platform/backend/api"]
    assert [r["name"] for r in get(client, "repos/acme?vcs_instance=github.com")["repos"]] == \
        ["acme/demo"]
    repo = get(client, "repos/acme/platform/backend/api")
    assert (repo["id"], repo["repo_id"], repo["namespace_path"], repo["vcs_instance"]) == \
        ("r-7", "r-7", ["platform", "backend"], "gitlab.example")


def test_attaching_or_detaching_policies_judges_what_runs_in_a_new_snapshot(client,
                                                                           deployed: Clock):
    assert get(client, "snapshots/acme/prod/-1")["index"] == 2
    for trail in ("a", "b", "c"):
        attest(client, "generic", {"attestation_name": "review", "is_compliant": True},
               flow="ci", trail=trail)
    detached = client.delete("/api/v2/environments/acme/prod/policies", headers=H,
                             json={"policy_names": ["house-rules"]})
    assert detached.status_code == 200
    three = get(client, "snapshots/acme/prod/-1")
    # Unknown: nothing is required; each artifact as its reviewed trail makes it
    assert (three["index"], three["compliant"], three["compliance_state"],
            three["artifact_compliance_count"]) == (
        3, False, "UNKNOWN", {"true": 3, "false": 0, "null": 0})
    assert {a["annotation"]["type"] for a in three["artifacts"]} == {"unchanged"}
    assert get(client, "environments/acme/prod")["state"] is None
    assert client.post("/api/v2/environments/acme/prod/policies", headers=H,
                       json={"policy_names": ["house-rules"]}).status_code == 200
    four = get(client, "snapshots/acme/prod/-1")
    assert (four["index"], four["compliant"]) == (4, True)  # judged with the reviews
    assert get(client, "snapshots/acme/prod/2")["compliant"] is False  # as it was judged
    assert [e["snapshot_index"] for e in get(client, "environments/acme/prod/events")] == [
        2, 2, 1]  # nothing started or exited since
    # Attaching what is attached changes nothing, and makes no snapshot.
    assert client.post("/api/v2/environments/acme/prod/policies", headers=H,
                       json={"policy_names": ["house-rules"]}).status_code == 200
    assert get(client, "snapshots/acme/prod/-1")["index"] == 4


def test_lead_times_are_never_negative_and_agree(client, clock: Clock):
    """A build of a commit of T0 whose instances are stamped 22 s before it, running in
    staging from T0 + 20 (before it was reported, at T0 + 50) and in prod from T1: every lead
    time answered counts from the same commit, and none is negative (`lead_time`)."""
    create_flow(client, "ci", REVIEWED)
    stamped = {"artifacts": [{"digests": {"app": FP_A}, "creationTimestamp": int(T0) - 22}]}
    for moment, env in ((T0 + 20, "staging"), (T0 + 50, None), (T1, "prod")):
        clock.at(moment)
        if env is None:
            build(client, "a", FP_A, T0, REPO)
            continue
        environment(client, env)
        answer = client.put(f"/api/v2/environments/acme/{env}/report/server", headers=H,
                            json=stamped)
        assert answer.status_code == 200, answer.json

    shown = get(client, "snapshots/acme/prod/1")["artifacts"][0]
    assert shown["commit_lead_time"] == 0.0  # not -22.0
    assert [f["commit_lead_time"] for f in shown["flows"]] == [0.0]
    artifact = get(client, f"artifacts/acme/ci/fingerprint/{FP_A}")
    deployed = {d["environment_name"]: d["lead_time_seconds"] for d in get(
        client, "deployments/acme?start_ts=0")["deployments"]}
    # From the commit to the snapshot that saw it start: one figure in both answers.
    assert artifact["commit_lead_times"] == deployed == {"staging": 20.0, "prod": T1 - T0}
    # Running in staging before it was reported: at once, not -30.
    assert artifact["build_lead_times"] == {"staging": 0.0, "prod": T1 - T0 - 50}
    for moment, committed, lead in ((T0 + 10, T0, 10.0), (T0 - 10, T0, 0.0), (None, T0, None),
                                    (T1, None, None), (T1, T0, T1 - T0)):
        assert deployments.lead_time(moment, committed) == lead
