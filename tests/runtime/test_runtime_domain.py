"""Runtime domain rules without gRPC: environments, snapshot making, snapshot expressions,
presence, deployments and deployment statistics (on every engine under test)."""

from __future__ import annotations

import itertools
import math
import threading
import time

import fastjsonschema
import pytest

from evidence_grpc.domain.evidence import artifacts, flows, repos, trails
from evidence_grpc.domain.governance import policies
from evidence_grpc.domain.kernel.errors import FailedPrecondition, InvalidArgument, NotFound
from evidence_grpc.domain.runtime import deployments, environment_changes, environments, snapshots
from evidence_grpc.domain.runtime.presence import presence
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import (
    Artifact,
    Deployment,
    DeploymentSeries,
    Environment,
    EnvironmentEvent,
    Organization,
    Repo,
    Snapshot,
    User,
)
from tests.conftest import HOUSE_RULES, recorded_statements

FP1, FP2, FP3 = "1" * 64, "2" * 64, "3" * 64
REPO = {"id": "r-42", "name": "acme/demo", "url": "https://github.com/acme/demo",
        "provider": "github"}


@pytest.fixture
def org(db: str):
    with storage.database.connection_context():
        yield Organization.get(Organization.name == "acme")


def server_report(*pairs: tuple[str, str]) -> dict:
    return {"artifacts": [{"digests": {name: fp}, "creationTimestamp": 1700000000}
                          for name, fp in pairs]}


def make_env(org: Organization, name: str = "prod", env_type: str = "server"):
    env, _ = environment_changes.upsert_environment(org, {"name": name, "type": env_type,
                                                   "description": ""})
    return env


def alice() -> User:
    return User.get(User.name == "alice")


def built_artifact(org: Organization, fingerprint: str, commit_ts: float,
                   repo_info: dict | None = None, *, on_trail: bool = True) -> Artifact:
    """An artifact with provenance, reported through the domain: repo_info on its trail
    (`on_trail`) or on the artifact itself."""
    flows.upsert_flow(org, "backend-ci", "")
    trail_name = f"t-{fingerprint[:6]}"
    trail_data: dict = {"name": trail_name}
    data: dict = {"fingerprint": fingerprint, "filename": "backend", "trail_name": trail_name,
                  "git_commit": "c" * 40, "build_url": "https://ci.example/1",
                  "commit_url": "https://github.com/acme/demo/commit/" + "c" * 40,
                  "git_commit_info": {"sha1": "c" * 40, "author": "A <a@x>", "message": "m",
                                      "branch": "main", "timestamp": commit_ts}}
    if repo_info is not None:
        (trail_data if on_trail else data)["repo_info"] = repo_info
    trails.begin_trail(org, "backend-ci", trail_data, alice())
    return artifacts.report_artifact(org, alice(), "backend-ci", data)


def test_create_validates_name_and_type(org):
    with pytest.raises(InvalidArgument) as bad_type:
        environment_changes.upsert_environment(org, {"name": "prod", "type": "bogus", "description": ""})
    assert "type" in bad_type.value.errors
    with pytest.raises(InvalidArgument) as bad_name:
        environment_changes.upsert_environment(org, {"name": "-prod", "type": "K8S", "description": ""})
    assert "name" in bad_name.value.errors
    env, created = environment_changes.upsert_environment(
        org, {"name": "cs", "type": "container_service", "description": "x"})
    assert created and env.type == "container_service"
    _, created_again = environment_changes.upsert_environment(
        org, {"name": "cs", "type": "container_service", "description": "y"})
    assert created_again is False


def test_environments_listed_and_read_in_batches_in_one_order(org, monkeypatch):
    """Sorted by name, or by a time with those that have none last and ties by name (desc
    reverses it all); filtered by name, type and tags. Read in batches by keyset, the list is
    the same, whatever the batch size; so are its pages (with tags, walked in batches of 3)."""
    monkeypatch.setattr(environments, "TAGS_MATCHED_IN_BATCHES_OF", 3)
    monkeypatch.setattr(environments, "UNINDEXED_ORDER_READ", 0)  # read as many as asked
    changed = {"b": 30.0, "a": None, "d": 10.0, "c": 30.0, "e": None, "f": 0.0}
    for name, at in changed.items():
        make_env(org, name, "K8S" if name in "ab" else "server")
        Environment.update(last_changed_at=at, tags={"team": "x"} if name in "ace" else {}
                           ).where(Environment.name == name).execute()
    # the order as ever: by name, then a stable sort by (has no time, time), reversed if desc
    by_time = sorted(sorted(changed), key=lambda n: (changed[n] is None, changed[n] or 0))
    for sort, wanted in ((None, sorted(changed)), ("name", sorted(changed)),
                         ("last_changed_at", by_time)):
        for direction in (None, "asc", "desc"):
            expected = wanted[::-1] if direction == "desc" else wanted
            listed = environments.list_environments(org, 1, 50, sort=sort,
                                                    sort_direction=direction)[0]
            assert [e.name for e in listed] == expected, (sort, direction)
            for size in (1, 2, 7):
                assert [e.name for batch in environments.environments_in_batches(
                    org, size, sort=sort, sort_direction=direction) for e in batch] == expected
            for tags, kept in ((None, expected), (["team:x"], [n for n in expected if n in "ace"])):
                pages = [environments.list_environments(org, number, 2, tags=tags, sort=sort,
                                                        sort_direction=direction)
                         for number in (1, 2, 3, 4)]
                assert [[e.name for e in rows] for rows, _ in pages] == [
                    kept[start:start + 2] for start in (0, 2, 4, 6)]
                assert {(p["total_count"], p["total_pages"]) for _, p in pages} == {
                    (len(kept), -(-len(kept) // 2))}
    assert [[e.name for e in batch] for batch in environments.environments_in_batches(
        org, 2, tags=["team:x"], sort="last_changed_at")] == [["c"], ["a", "e"]]
    assert [[e.name for e in batch] for batch in environments.environments_in_batches(
        org, 3, name="a", types=["K8S"])] == [["a"]]
    # in a time's order, read more at a time than a batch holds
    monkeypatch.setattr(environments, "UNINDEXED_ORDER_READ", 4)
    assert [[e.name for e in batch] for batch in environments.environments_in_batches(
        org, 3, sort="last_changed_at")] == [by_time[:3], by_time[3:4], by_time[4:]]
    with pytest.raises(InvalidArgument):
        next(environments.environments_in_batches(org, 2, sort="colour"))


def test_a_report_makes_a_snapshot_only_when_what_runs_changes(org):
    make_env(org)
    first = snapshots.report_environment(org, "prod", "server", server_report(("app", FP1)))
    assert first.index == 1
    assert snapshots.report_environment(org, "prod", "server", server_report(("app", FP1))) is None
    second = snapshots.report_environment(org, "prod", "server",
                                          server_report(("app", FP1), ("web", FP2)))
    assert second.index == 2
    third = snapshots.report_environment(org, "prod", "server", server_report(("web", FP2)))
    assert third.index == 3
    events = snapshots.list_events(org, "prod", reverse=True)
    assert [(e["type"], e["snapshot_index"], e["artifact_name"]) for e in events] == [
        ("started", 1, "app"), ("started", 2, "web"), ("exited", 3, "app")]


def test_report_checks_the_environment(org):
    make_env(org)
    with pytest.raises(FailedPrecondition):
        snapshots.report_environment(org, "prod", "K8S", {"artifacts": []})
    with pytest.raises(InvalidArgument):
        snapshots.report_environment(org, "prod", "nonsense", {"artifacts": []})
    with pytest.raises(InvalidArgument) as bad_digest:
        snapshots.report_environment(org, "prod", "server",
                                     {"artifacts": [{"digests": {"a": "xyz"},
                                                     "creationTimestamp": 1}]})
    assert "artifacts.0.digests.a" in bad_digest.value.errors
    with pytest.raises(NotFound):
        snapshots.report_environment(org, "nowhere", "server", {"artifacts": []})
    environment_changes.archive_environment(org, "prod")
    with pytest.raises(FailedPrecondition, match="archived"):
        snapshots.report_environment(org, "prod", "server", {"artifacts": []})


def test_snapshot_expressions(org):
    env = make_env(org)
    for fp in (FP1, FP2, FP3):
        snapshots.report_environment(org, "prod", "server", server_report(("app", fp)))
    env = environments.find_environment(org, "prod")
    assert [snapshots.resolve_index(env, e) for e in ("2", "#2", "-1", "-3", "~1", "~0",
                                                      "@{now}", "NOW")] == [2, 2, 3, 1, 2, 3, 3, 3]
    assert snapshots.resolve_index(env, "@{2000-01-01T00:00:00}") == 0
    assert snapshots.resolve_index(env, "@{1.hours.ago}") == 0
    assert snapshots.resolve_index(env, "@{2099-01-01T00:00:00}") == 3
    for bogus in ("x", "#", "~", "@{yesterday}", "1.5", "@{3.fortnights.ago}"):
        with pytest.raises(InvalidArgument):
            snapshots.resolve_index(env, bogus)
    with pytest.raises(NotFound):
        snapshots.find_snapshot(env, "#9")


def test_concurrent_reports_never_lose_or_repeat_an_index(org):
    make_env(org)
    errors: list[BaseException] = []

    def report(i: int) -> None:
        try:
            with storage.database.connection_context():
                snapshots.report_environment(org, "prod", "server",
                                             server_report(("app", f"{i:064x}")))
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=report, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    indexes = [s["index"] for s in snapshots.list_snapshots(org, "prod", None, None,
                                                            reverse=True)]
    assert indexes == list(range(1, 9))


def _started(index: int) -> float:
    return 1_700_000_000 + 60 * index


def _offset_snapshots(env: Environment, interval: str | None, page: int, per_page: int,
                      reverse: bool) -> list[tuple]:
    """A page of snapshots as the OFFSET query answered it: (index, from, to, compliance)."""
    low, high = snapshots._interval(env, interval)
    rows = (Snapshot.select().where((Snapshot.environment == env) & (Snapshot.index >= low)
                                    & (Snapshot.index <= high))
            .order_by(Snapshot.index.asc() if reverse else Snapshot.index.desc())
            .paginate(page, per_page))
    return [(s.index, s.created_at, _started(s.index + 1) if s.index < env.latest_index else 0,
             snapshots.compliance_state(s.compliant)) for s in rows]


def _listed_snapshots(org: Organization, interval: str | None, page: int, per_page: int,
                      reverse: bool) -> list[tuple]:
    return [(s["index"], s["from"], s["to"], s["compliance_state"]) for s in
            snapshots.list_snapshots(org, "prod", page, per_page, interval, reverse)]


def test_snapshot_pages_by_index_range_are_the_offset_pages(org):
    env = make_env(org)
    Snapshot.insert_many([{"environment": env, "index": i, "type": "server", "artifacts": [],
                           "created_at": _started(i),
                           "compliant": (True, False, None)[i % 3]} for i in range(1, 24)]
                         ).execute()
    Environment.update(latest_index=23).where(Environment.id == env.id).execute()
    env = environments.find_environment(org, "prod")
    for interval in (None, "3..17", "~20..-2", "-40..NOW", "9..4", "7", "#30"):
        for reverse, per_page in itertools.product((False, True), (2, 5, 100)):
            for page in range(1, 23 // per_page + 3):  # and a page past the end
                assert _listed_snapshots(org, interval, page, per_page, reverse) == \
                    _offset_snapshots(env, interval, page, per_page, reverse), \
                    (interval, reverse, per_page, page)
    # a snapshot deleted around the domain (verify-log names it) leaves its page one short
    Snapshot.delete().where((Snapshot.environment == env) & (Snapshot.index == 12)).execute()
    pages = [[s[0] for s in _listed_snapshots(org, None, page, 5, False)] for page in range(1, 6)]
    assert pages == [[23, 22, 21, 20, 19], [18, 17, 16, 15, 14], [13, 11, 10, 9],
                     [8, 7, 6, 5, 4], [3, 2, 1]]


def test_event_pages_by_position_are_the_offset_pages(org):
    make_env(org)
    running = ("a", "abc", "b", "bcde", "", "a", "ae")  # each report's artifacts, by name
    for names in running:
        snapshots.report_environment(org, "prod", "server", server_report(
            *[(name, f"{ord(name):064x}") for name in names]))
    env = environments.find_environment(org, "prod")

    def offset_page(page: int, per_page: int, reverse: bool) -> list[tuple]:
        order = (EnvironmentEvent.snapshot_index, EnvironmentEvent.id)
        return [(e.snapshot_index, e.fingerprint, e.type) for e in EnvironmentEvent.select()
                .where(EnvironmentEvent.environment == env)
                .order_by(*(o.asc() if reverse else o.desc() for o in order))
                .paginate(page, per_page)]

    assert len(offset_page(1, 100, False)) == 14
    for reverse, per_page in itertools.product((False, True), (1, 3, 5, 100)):
        for page in range(1, 14 // per_page + 3):  # and a page past the end
            assert [(e["snapshot_index"], e["sha256"], e["type"]) for e in snapshots.list_events(
                org, "prod", page=page, per_page=per_page, reverse=reverse)] == \
                offset_page(page, per_page, reverse), (reverse, per_page, page)


def test_presence_follows_snapshots(org):
    make_env(org, "prod")
    make_env(org, "staging")
    snapshots.report_environment(org, "prod", "server", server_report(("app", FP1)))
    snapshots.report_environment(org, "staging", "server", server_report(("app", FP1)))
    snapshots.report_environment(org, "staging", "server", server_report(("app", FP2)))
    where = presence(org, [FP1, FP2, FP3])
    assert {k: where[FP1][k] for k in ("running", "exited")} == {
        "running": [{"environment_name": "prod", "snapshot_index": 1}],
        "exited": [{"environment_name": "staging", "snapshot_index": 2}]}
    assert [(e["type"], e["environment_name"], e["snapshot_index"])
            for e in where[FP1]["events"]] == [
        ("started", "prod", 1), ("started", "staging", 1), ("exited", "staging", 2)]
    assert all(isinstance(e["timestamp"], float) for e in where[FP1]["events"])
    assert where[FP2]["running"] == [{"environment_name": "staging", "snapshot_index": 2}]
    assert where[FP3] == {"running": [], "exited": [], "events": []}


def test_compliance_is_provenance_or_allowlist(org):
    make_env(org)
    policies.upsert_policy(org, "alice", "rules", description="", comment="", policy_type="env",
                           policy_yaml=HOUSE_RULES.decode())
    policies.attach_policies(org, "prod", ["rules"])
    built_artifact(org, FP1, commit_ts=time.time() - 100)
    snapshots.report_environment(org, "prod", "server", server_report(("app", FP1), ("x", FP2)))
    assert snapshots.get_snapshot(org, "prod", "-1", "")["compliant"] is False
    environments.allow_artifact(org, "prod", {"artifact_name": "x", "artifact_fingerprint": FP2,
                                              "description": "ok"}, alice())
    # Judged when made: #1 keeps its verdict, the next snapshot sees the allowlisting.
    assert snapshots.get_snapshot(org, "prod", "-1", "")["compliant"] is False
    snapshots.report_environment(org, "prod", "server", server_report(("app", FP1), ("y", FP2)))
    view = snapshots.get_snapshot(org, "prod", "-1", "")
    assert view["compliant"] is True
    assert {a["name"]: a["flow_name"] for a in view["artifacts"]} == {
        "app": "backend-ci", "x": "", "y": ""}  # x exited
    assert snapshots.get_snapshot(org, "prod", "1", "")["compliant"] is False


def test_deployment_statistics(org):
    make_env(org, "prod")
    make_env(org, "lab")
    make_env(org, "all", "logical")
    environment_changes.join_environment(org, "all", "prod")
    commit_ts = time.time() - 3600
    built_artifact(org, FP1, commit_ts, REPO)
    built_artifact(org, FP3, commit_ts, {**REPO, "id": "other", "name": "acme/other"})
    snapshots.report_environment(org, "prod", "server", server_report(("app", FP1)))
    snapshots.report_environment(org, "lab", "server", server_report(("app", FP2)))

    stats = deployments.deployment_statistics(org, "r-42")
    assert [e.env_name for e in stats.environments] == ["prod"]
    prod = stats.environments[0]
    assert len(prod.deployed_at) == 1
    assert 3590 < prod.lead_times[0] < 3700
    assert stats.end_ts - stats.start_ts == 28 * 86400
    by_name = deployments.deployment_statistics(org, "acme/demo", envs=["lab"])
    assert by_name.environments == []
    # An environment the repo was deployed to stays listed when nothing falls in the window.
    past = deployments.deployment_statistics(org, "r-42", start_ts=0, end_ts=1000)
    assert past.environments == [deployments.EnvironmentSeries("prod", [], [])]
    with pytest.raises(InvalidArgument):
        deployments.deployment_statistics(org, "r-42", start_ts=10, end_ts=5)
    with pytest.raises(NotFound, match="not found"):
        deployments.deployment_statistics(org, "nope")


def test_deployment_series_are_oldest_first_whatever_the_report_order(
        org, monkeypatch: pytest.MonkeyPatch):
    """A clock stepped back between two reports: the later report's deployment is the older,
    and the series answer it first, its lead time with it."""
    make_env(org, "prod")
    built_artifact(org, FP1, 1_000_000.0, REPO)
    built_artifact(org, FP2, 999_000.0, REPO)
    clock = iter([1_000_500.0, 1_000_100.0])
    monkeypatch.setattr(snapshots, "now", lambda: next(clock))
    snapshots.report_environment(org, "prod", "server", server_report(("app", FP1)))
    snapshots.report_environment(org, "prod", "server", server_report(("app", FP1),
                                                                        ("web", FP2)))
    [prod] = deployments.deployment_statistics(org, "r-42", start_ts=0).environments
    assert prod.deployed_at == [1_000_100.0, 1_000_500.0]
    assert prod.lead_times == [1_100.0, 500.0]


def test_deployment_statistics_of_many_environments_read_them_together(
        org, monkeypatch: pytest.MonkeyPatch):
    """The series of 300 environments come from one query per IN_CHUNK of them, not one each,
    and chunks answer what one list does."""
    built_artifact(org, FP1, 1_000_000.0, REPO)
    repo = Repo.get(Repo.repo_id == "r-42")
    envs = [make_env(org, f"env-{i:03d}") for i in range(300)]
    Deployment.insert_many([
        {"organization": org.id, "environment": env.id, "snapshot_index": 1, "artifact_name": "a",
         "fingerprint": FP1, "deployed_at": 1_000_000.0 + i + n, "repo": repo.id,
         "lead_time_seconds": None if n else float(i)}
        for i, env in enumerate(envs) for n in range(2)]).execute()
    deployments.repack((repo.id, env.id, deployments.day_of(1_000_000.0)) for env in envs)
    whole = deployments.deployment_statistics(org, "r-42", start_ts=0)
    assert [e.env_name for e in whole.environments] == [env.name for env in envs]
    assert whole.environments[7] == deployments.EnvironmentSeries(
        "env-007", [1_000_007.0, 1_000_008.0], [7.0])

    monkeypatch.setattr(storage, "IN_CHUNK", 64)
    statements = recorded_statements(monkeypatch)
    chunked = deployments.deployment_statistics(org, "r-42", start_ts=0)
    assert chunked.environments == whole.environments
    assert sum('"deployment_series"' in sql for sql in statements) == 5  # 300 / 64, rounded up


def test_day_of_puts_every_moment_in_the_day_that_holds_it():
    midnight = 20_000 * deployments.DAY_SECONDS
    for moment in (midnight, math.nextafter(midnight, 0), math.nextafter(midnight, math.inf),
                   -0.5, 0.0, -86400.0, math.nextafter(-86400.0, 0), 1e15 + 0.5):
        day = deployments.day_of(moment)
        assert day * deployments.DAY_SECONDS <= moment < (day + 1) * deployments.DAY_SECONDS


def _series_from_rows(repo: Repo, start: float, end: float) -> list[deployments.EnvironmentSeries]:
    """What the statistics answered when they read the rows themselves."""
    out = []
    for env in Environment.select().where(Environment.type != "logical").order_by(Environment.name):
        rows = list(Deployment.select(Deployment.deployed_at, Deployment.lead_time_seconds).where(
            (Deployment.repo == repo) & (Deployment.environment == env)
            & Deployment.deployed_at.between(start, end))
            .order_by(Deployment.deployed_at, Deployment.id).tuples())
        if Deployment.select().where((Deployment.repo == repo)
                                     & (Deployment.environment == env)).exists():
            out.append(deployments.EnvironmentSeries(
                env.name, [at for at, _ in rows], [lead for _, lead in rows if lead is not None]))
    return out


def test_packed_series_agree_with_the_rows_across_days_late_links_and_racing_writers(
        org, monkeypatch: pytest.MonkeyPatch):
    """Three environments reported to by threads of their own while another reports the
    artifacts (most after they started running, so their deployments are linked later), around
    a UTC midnight (one deployment a hair before it): the statistics read from the packed
    series equal the rows, for all time and for windows whose edges fall inside days."""
    midnight = 20_000 * deployments.DAY_SECONDS
    moments = sorted([midnight - 40 + i * 1.7 for i in range(45)]
                     + [math.nextafter(midnight, 0), midnight])
    # A report PostgreSQL rolls back for a concurrent one runs again and takes a moment more.
    clock, guard = itertools.chain(moments, itertools.count(midnight + 1)), threading.Lock()

    def tick() -> float:
        with guard:
            return next(clock)

    monkeypatch.setattr(snapshots, "now", tick)
    names = ["blue", "green", "red"]
    for name in names:
        make_env(org, name)
    fingerprints = [f"{i:064x}" for i in range(1, 20)]
    built_artifact(org, fingerprints[0], midnight - 500, REPO)  # known before it runs
    errors: list[BaseException] = []

    def guarded(work) -> None:
        try:
            with storage.database.connection_context():
                work()
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    def reports(env_index: int) -> None:
        for k in range(15):
            running = fingerprints[(k + env_index) % 19], fingerprints[(k + 2 * env_index) % 19]
            snapshots.report_environment(org, names[env_index], "server", server_report(
                *((f"app-{n}", fp) for n, fp in enumerate(running))))

    def artifacts_later() -> None:
        for fp in fingerprints[1:]:
            built_artifact(org, fp, midnight - 100, REPO)

    threads = [threading.Thread(target=guarded, args=(lambda i=i: reports(i),)) for i in range(3)]
    threads.append(threading.Thread(target=guarded, args=(artifacts_later,)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    repo = Repo.get(Repo.repo_id == "r-42")
    packed = set(DeploymentSeries.select(DeploymentSeries.environment, DeploymentSeries.day)
                 .where(DeploymentSeries.repo == repo).tuples())
    assert packed == {(env_id, deployments.day_of(at)) for env_id, at in Deployment.select(
        Deployment.environment, Deployment.deployed_at).where(Deployment.repo == repo).tuples()}
    assert {day for _, day in packed} == {20_000 - 1, 20_000}
    for start, end in ((0.0, 1e12), (midnight - 20.5, midnight + 10.25),
                       (math.nextafter(midnight, 0), midnight), (midnight, midnight + 1e6)):
        answered = deployments.deployment_statistics(org, "r-42", start_ts=start, end_ts=end)
        assert answered.environments == _series_from_rows(repo, start, end)
    assert sum(len(e.deployed_at) for e in answered.environments) > 0


def test_repos_are_learned_from_repo_info(org):
    built_artifact(org, FP1, 0, REPO)
    rows, pagination = repos.list_repos(org, None, None)
    assert [repos.repo_view(r)["name"] for r in rows] == ["acme/demo"]
    assert pagination["total_count"] == 1
    assert repos.find_repo(org, name="acme/demo").repo_id == "r-42"
    assert repos.find_repo(org, repo_id="r-42").name == "acme/demo"
    with pytest.raises(NotFound):
        repos.find_repo(org, name="acme/demo", provider="gitlab")


def test_repos_are_learned_when_evidence_is_written(org):
    from evidence_grpc.domain.evidence import attestations

    flows.upsert_flow(org, "ci", "")
    trails.begin_trail(org, "ci", {"name": "t", "repo_info": REPO}, alice())
    assert [r.name for r in repos.list_repos(org, None, None)[0]] == ["acme/demo"]
    # Renamed on the provider's side: the same id, a new name.
    trails.begin_trail(org, "ci", {"name": "t2", "repo_info": {**REPO, "name": "acme/renamed"}},
                       alice())
    attestations.create_attestation(
        org, alice(), "ci", "t", "generic",
        {"attestation_name": "check", "is_compliant": True,
         "repo_info": {"name": "acme/no-id", "url": "https://github.com/acme/no-id"}}, None)
    learned = {r.repo_id: r.name for r in repos.list_repos(org, None, None)[0]}
    assert learned == {"r-42": "acme/renamed", "acme/no-id": "acme/no-id"}
    assert repos.find_repo(org, name="acme/no-id").url == "https://github.com/acme/no-id"


def test_an_artifact_reported_after_it_deployed_fills_in_its_deployments(org):
    make_env(org)
    snapshots.report_environment(org, "prod", "server", server_report(("app", FP1)))
    [early] = deployments.list_deployments(org, None, None)[0]
    assert (early["repo_name"], early["lead_time_seconds"], early["flow_name"]) == (None, None, None)
    built_artifact(org, FP1, commit_ts=early["deployed_at"] - 30, repo_info=REPO, on_trail=False)
    [late] = deployments.list_deployments(org, None, None)[0]
    assert (late["repo_name"], late["lead_time_seconds"], late["flow_name"]) == \
        ("acme/demo", 30.0, "backend-ci")
    stats = deployments.deployment_statistics(org, "r-42")
    assert stats.environments[0].lead_times == [30.0]


FP = "a" * 64
TRICKY_REPORTS = [
    {"artifacts": [{"digests": {"app": FP}, "creationTimestamp": 1700000000}]},
    {"artifacts": [{"digests": {"app": FP}, "creationTimestamp": 1.0}]},
    {"artifacts": [{"digests": {"app": FP}, "creationTimestamp": 1.5}]},
    {"artifacts": [{"digests": {"app": FP}, "creationTimestamp": True}]},
    {"artifacts": [{"digests": {"app": FP.upper()}, "creationTimestamp": 1}]},
    {"artifacts": [{"digests": {"app": FP + "\n"}, "creationTimestamp": 1}]},
    {"artifacts": [{"digests": {"app": FP}, "creationTimestamp": 1, "extra": 1}]},
    {"artifacts": [{"digests": {"app": FP}}]},
    {"artifacts": [{"digests": [FP], "creationTimestamp": 1}]},
    {"artifacts": [{"digests": {"app": FP}, "creationTimestamp": 1, "owners": None}]},
    {"artifacts": [{"digests": {"app": FP}, "creationTimestamp": 1, "podName": "p",
                    "namespace": "n", "owners": [{"apiVersion": "v1", "kind": "K", "name": "x",
                                                   "uid": "u", "controller": None}]}]},
    {"artifacts": [{"digests": {"app": FP}, "creationTimestamp": 1, "podName": "p",
                    "namespace": "n", "owners": [{"kind": "K"}]}]},
    {"artifacts": [{"digests": {"app": FP}, "creationTimestamp": 1, "taskArn": "arn",
                    "cluster_name": "c", "service_name": "s"}]},
    {"artifacts": "nope"}, {"artifacts": []}, {}, {"type": "server", "artifacts": []},
    {"type": "K8S", "artifacts": []}, {"artifacts": [], "extra": True}, [], None, "text",
]


@pytest.mark.parametrize("key", [k for k in environments.CHECKS.keys() if k.startswith("report:")]
                         + ["create_env", "update_env", "allow_artifact_for_env"])
def test_compiled_schema_check_never_passes_what_jsonschema_refuses(key):
    """The fast path may only accept what the authoritative validator accepts (what it refuses
    falls through to jsonschema, which decides); nor may it fill in defaults."""
    for payload in TRICKY_REPORTS:
        refused = list(environments.CHECKS.full(key).iter_errors(payload))
        before = repr(payload)
        try:
            environments.CHECKS.fast(key)(payload)
            assert not refused, (payload, [e.message for e in refused])
        except fastjsonschema.JsonSchemaException:
            pass
        assert repr(payload) == before
