"""Paged lists at 1x and 100x the data: page 1 and a deep page of every list, in process.

Run by hand (not a test):

    python bench/bench_pages.py                      # SQLite, 1,000 vs 100,000 trails
    python bench/bench_pages.py --database-url postgresql://postgres@127.0.0.1:55432/postgres
    python bench/bench_pages.py --small 100 --big 10000 --rounds 3

Two databases are built once and kept (SQLite files under /tmp/bench_pages/, PostgreSQL
databases `bench_pages_<n>` on the server of --database-url; `--name` names others, for two
sittings side by side; --rebuild makes them again): in
organization acme, flow `big` with N trails, each with an artifact and three attestations, and
flow `deep` with one trail holding N * 3 / 10 attestations (300 vs 30,000); environment `prod`
with N snapshots and N events, N approvals in flow `big`, N audit events; control `ctl-0` with
N decisions and controls `ctl-1`..`ctl-9` with N more between them (in flow `big`'s trails). The
rows are written by bulk inserts through the models (the columns lists read), the kept list
sizes counted after.

Each list is then called through the domain, as its servicer calls it, at page 1 and at a deep
page (90 % of the way through the list), small and big databases alternately, `--calls` times
per round and `--rounds` rounds. A row of the table gives the range over the rounds of the
median time of each size, the ratio big / small (the issue's target: at most 2 at 100x the
data) and the SQL statements one call runs, small/big. SQLite is timed by this process's CPU
time (the database works in it; what other processes take from the machine is not counted),
PostgreSQL by the wall clock (its work is in its server).
"""

from __future__ import annotations

import argparse
import contextlib
import pathlib
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import _common as common

ORG = "acme"
PER_PAGE = 100
NAME = "bench_pages"  # of the kept databases: /tmp/<name>/, PostgreSQL databases <name>_<n>
BATCH = 2000


def build(n: int) -> None:
    """The data of a database of size n, in the database the models point at (migrated)."""
    from evidence_grpc.domain.identity.organizations import bootstrap
    from evidence_grpc.domain.kernel import list_sizes
    from evidence_grpc.domain.kernel.ids import hosted_id
    from evidence_grpc.storage.db import database
    from evidence_grpc.storage.models import (
        Approval,
        Artifact,
        Attestation,
        Control,
        Environment,
        EnvironmentEvent,
        Flow,
        FlowTemplate,
        MembershipAuditEvent,
        Snapshot,
        Trail,
    )

    bootstrap({"organizations": [{"name": ORG, "features": ["controls"]}],
               "users": [{"name": "alice", "organizations": [ORG],
                          "api_keys": [{"key": "bench-pages-secret-key-0123456789"}]}]})
    org = Organization_id(ORG)
    stamp = time.time() - 10 * 86400

    def insert(model: Any, rows: Iterator[dict[str, Any]]) -> None:
        batch: list[dict[str, Any]] = []
        for row in rows:
            batch.append(row)
            if len(batch) == BATCH:
                model.insert_many(batch).execute()
                batch = []
        if batch:
            model.insert_many(batch).execute()

    with database.atomic():
        for name in ("big", "deep"):
            Flow.insert(organization=org, name=name, created_at=stamp,
                        last_modified_at=stamp, tags={}).execute()
        flows = {f.name: f.id for f in Flow.select().where(Flow.organization == org)}
        templates = {}
        for name, flow in flows.items():
            templates[name] = hosted_id()
            FlowTemplate.insert(id=templates[name], flow=flow, created_at=stamp).execute()
            Flow.update(template=templates[name]).where(Flow.id == flow).execute()
        insert(Trail, ({"flow": flows["big"], "name": f"trail-{i:06d}", "created_at": stamp + i,
                        "last_modified_at": stamp + i, "flow_template": templates["big"]}
                       for i in range(n)))
        Trail.insert(flow=flows["deep"], name="only", created_at=stamp, last_modified_at=stamp,
                     flow_template=templates["deep"]).execute()
        trails = dict(Trail.select(Trail.name, Trail.id).where(Trail.flow == flows["big"]).tuples())
        insert(Artifact, ({"uid": hosted_id(), "organization": org, "flow": flows["big"],
                           "trail": trails[f"trail-{i:06d}"], "fingerprint": _fingerprint(i),
                           "name": f"app-{i}", "git_commit": _commit(i),
                           "git_commit_info": {"sha1": _commit(i), "branch": "main"},
                           "created_at": stamp + i, "last_modified_at": stamp + i}
                          for i in range(n)))
        artifacts = dict(Artifact.select(Artifact.trail, Artifact.id)
                         .where(Artifact.flow == flows["big"]).tuples())

        def attestation(flow: str, trail: int, i: int, name: str, artifact: int | None
                        ) -> dict[str, Any]:
            return {"uid": str(uuid.uuid4()), "organization": org, "flow": flows[flow],
                    "trail": trail, "artifact": artifact, "name": name, "type": "generic",
                    "is_compliant": True, "created_at": stamp + i,
                    "artifact_fingerprint": _fingerprint(i) if artifact else None,
                    "target_artifact": "app" if artifact else None,
                    "data": {"git_commit_info": {"sha1": _commit(i)}, "user_data": {"i": i}},
                    "git_commit": _commit(i)}

        insert(Attestation, (attestation("big", trails[f"trail-{i:06d}"], i, name,
                                         artifacts[trails[f"trail-{i:06d}"]] if k == 0 else None)
                             for i in range(n)
                             for k, name in enumerate(("unit-tests", "scan", "review"))))
        only = Trail.get(Trail.flow == flows["deep"]).id
        insert(Attestation, (attestation("deep", only, i, f"check-{i % 7}", None)
                             for i in range(n * 3 // 10)))
        Environment.insert(organization=org, name="prod", type="server", created_at=stamp,
                           last_modified_at=stamp, latest_index=n).execute()
        env = Environment.get(Environment.name == "prod").id
        running = [{"name": "app-0", "fingerprint": _fingerprint(0), "instance_count": 1,
                    "creationTimestamp": [int(stamp)], "pods": None, "context": []}]
        insert(Snapshot, ({"environment": env, "index": i + 1, "type": "server",
                           "artifacts": running, "created_at": stamp + i, "compliant": True}
                          for i in range(n)))
        insert(EnvironmentEvent, ({"environment": env, "snapshot_index": i + 1,
                                   "type": "started", "artifact_name": f"app-{i}",
                                   "fingerprint": _fingerprint(i), "was": 0, "now": 1,
                                   "reported_at": stamp + i} for i in range(n)))
        insert(Approval, ({"organization": org, "flow": flows["big"], "number": i + 1,
                           "fingerprint": _fingerprint(i), "artifact_name": f"app-{i}",
                           "environment": "prod", "environment_ref": env, "state": "APPROVED",
                           "created_at": stamp + i, "last_modified_at": stamp + i}
                          for i in range(n)))
        insert(MembershipAuditEvent, ({"organization": org, "event_type": "role_changed",
                                       "timestamp": stamp + i, "actor": "alice",
                                       "subject": f"user-{i}", "role": "member"}
                                      for i in range(n)))
        for c in range(10):
            Control.insert(organization=org, identifier=f"ctl-{c}", name=f"Control {c}",
                           created_by="alice", created_at=stamp, last_modified_at=stamp,
                           version=1).execute()
        # ctl-0 every other decision, the other controls the rest between them; the column of
        # the decision's control where the schema has one (an earlier release's found them in
        # their summaries)
        named = "control" in Attestation._meta.fields
        insert(Attestation, ({
            "uid": str(uuid.uuid4()), "organization": org, "flow": flows["big"],
            "trail": trails[f"trail-{i % n:06d}"], "name": "approval", "type": "decision",
            "is_compliant": i % 3 != 0, "created_at": stamp + i / 2, "data": {},
            "summary": {"control": control}, **({"control": control} if named else {})}
            for i in range(2 * n) for control in [f"ctl-{0 if i % 2 == 0 else 1 + i // 2 % 9}"]))
        list_sizes.recount()  # as the domain keeps them


def Organization_id(name: str) -> int:  # noqa: N802 - reads as the column it is
    from evidence_grpc.storage.models import Organization
    return Organization.get(Organization.name == name).id


def _fingerprint(i: int) -> str:
    return f"{i:064x}"


def _commit(i: int) -> str:
    return f"{i * 7919:040x}"


# ---- databases -----------------------------------------------------------------------------

def sqlite_url(n: int) -> str:
    return f"sqlite:///{pathlib.Path('/tmp') / NAME / f'pages-{n}.sqlite'}"


def postgres_url(admin_url: str, n: int) -> str:
    from urllib.parse import urlsplit, urlunsplit
    return urlunsplit(urlsplit(admin_url)._replace(path=f"/{NAME}_{n}"))


def prepared(admin_url: str | None, n: int, rebuild: bool) -> str:
    """The URL of the database of size n, built first if it is not there (or --rebuild)."""
    import psycopg2  # only when PostgreSQL is asked for

    from evidence_grpc.storage import db as storage

    if admin_url:
        url = postgres_url(admin_url, n)
        conn = psycopg2.connect(admin_url)
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", (f"{NAME}_{n}",))
            there = cursor.fetchone() is not None
            if there and rebuild:
                cursor.execute(f'DROP DATABASE "{NAME}_{n}" WITH (FORCE)')
            if rebuild or not there:
                cursor.execute(f'CREATE DATABASE "{NAME}_{n}"')
                there = False
        conn.close()
    else:
        url = sqlite_url(n)
        path = pathlib.Path(url[len("sqlite:///"):])
        path.parent.mkdir(parents=True, exist_ok=True)
        there = path.exists() and not rebuild
        if not there:
            for stale in path.parent.glob(path.name + "*"):
                stale.unlink()
    storage.init_database(url)
    storage.migrate()  # a database built by an earlier release is brought to this one's schema
    if not there:
        started = time.monotonic()
        build(n)
        if admin_url:  # as autovacuum leaves a table: statistics, and index-only scans
            storage.database.close()
            storage.release_connections()
            conn = psycopg2.connect(url)
            conn.autocommit = True
            with conn.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
            conn.close()
        print(f"  built n={n} in {time.monotonic() - started:.1f} s", flush=True)
    storage.database.close()
    return url


@contextlib.contextmanager
def pointed_at(url: str) -> Iterator[None]:
    from evidence_grpc.storage import db as storage
    storage.init_database(url)
    try:
        with storage.database.connection_context():
            yield
    finally:
        storage.release_connections()


# ---- the lists -----------------------------------------------------------------------------

Call = Callable[[int], Any]  # page number -> the page


def lists(n: int) -> list[tuple[str, int, Call]]:
    """(label, the deep page's number, the call) of each list, for the database of size n."""
    from evidence_grpc.domain.evidence import artifacts, attestations, trails
    from evidence_grpc.domain.governance import approvals, controls
    from evidence_grpc.domain.identity import service_accounts
    from evidence_grpc.domain.kernel.pages import page_of
    from evidence_grpc.domain.runtime import snapshots
    from evidence_grpc.storage.models import Organization

    org = Organization.get(Organization.name == ORG)

    def deep(total: int) -> int:
        return max(1, (total // PER_PAGE) * 9 // 10)

    return [
        ("trails of a flow", deep(n), lambda p: trails.list_flow_trails(
            org, "big", page_of(p, PER_PAGE))),
        ("attestations of a flow", deep(3 * n), lambda p: attestations.list_flow_attestations(
            org, "big", page_of(p, PER_PAGE), {})),
        ("attestations of a trail", deep(n * 3 // 10),
         lambda p: attestations.list_flow_attestations(
             org, "deep", page_of(p, PER_PAGE), {"trail_name": "only"})),
        ("artifacts of a flow", deep(n), lambda p: artifacts.list_artifacts(
            org, page_of(p, PER_PAGE), flow_name="big")),
        ("artifacts of the organization", deep(n), lambda p: artifacts.list_artifacts(
            org, page_of(p, PER_PAGE))),
        ("trails of the organization", deep(n + 1), lambda p: trails.list_trails(
            org, page_of(p, PER_PAGE))),
        ("snapshots of an environment", deep(n), lambda p: snapshots.list_snapshots(
            org, "prod", p, PER_PAGE)),
        ("events of an environment", deep(n), lambda p: snapshots.list_events(
            org, "prod", page=p, per_page=PER_PAGE)),
        ("approvals of a flow", deep(n), lambda p: approvals.list_approvals(
            org, "big", p, PER_PAGE)),
        ("audit log", deep(n), lambda p: service_accounts.audit_log(org, p, PER_PAGE)),
        ("decisions of a control", deep(n), lambda p: controls.list_decisions(
            org, "ctl-0", p, PER_PAGE)),
    ]


def statements_of(call: Call, page: int) -> list[str]:
    from evidence_grpc.storage.db import database
    seen: list[str] = []
    hooks = database.obj.query_hooks
    database.obj.query_hooks = [*hooks, lambda event: seen.append(event.sql)]
    try:
        call(page)
    finally:
        database.obj.query_hooks = hooks
    return seen


def timed(call: Call, page: int, calls: int, clock: Callable[[], float]) -> float:
    """Median seconds of `calls` calls of the page (one untimed first) by `clock`."""
    call(page)
    times = []
    for _ in range(calls):
        started = clock()
        call(page)
        times.append(clock() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    global NAME
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", type=int, default=1000, help="trails of the small database")
    p.add_argument("--big", type=int, default=100_000, help="trails of the big database")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--calls", type=int, default=7, help="timed calls per round and size")
    p.add_argument("--database-url", default=None, help="postgresql://... (default: SQLite)")
    p.add_argument("--rebuild", action="store_true", help="build the databases again")
    p.add_argument("--name", default=NAME,
                   help="the kept databases' name: /tmp/NAME/ or PostgreSQL's NAME_<n> (two "
                        "sittings of different code side by side keep theirs apart)")
    p.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                   help="SQLite's timing: this process's CPU time (default) or the wall clock")
    p.add_argument("--only", default="", help="lists whose label contains this")
    p.add_argument("--source", type=pathlib.Path, default=common.ROOT,
                   help="run another checkout's code")
    args = p.parse_args(argv)
    NAME = args.name
    common.use_source(args.source.resolve())
    engine = "PostgreSQL" if args.database_url else "SQLite"
    # SQLite answers in this process: its CPU time is the work, whatever else the machine runs;
    # PostgreSQL's work is in its server, so the wall clock
    clock = time.perf_counter if args.database_url or args.clock == "wall" else time.process_time
    common.describe_machine("bench_pages", f"code from {args.source}, {engine}, "
                                           f"{args.small} vs {args.big} trails")
    urls = {n: prepared(args.database_url, n, args.rebuild) for n in (args.small, args.big)}
    times: dict[tuple[str, str, int], list[float]] = {}
    counts: dict[tuple[str, str, int], int] = {}
    labels: list[str] = []
    for round_number in range(args.rounds):
        for n in (args.small, args.big) if round_number % 2 == 0 else (args.big, args.small):
            with pointed_at(urls[n]):
                for label, deep_page, call in lists(n):
                    if args.only not in label:
                        continue
                    if label not in labels:
                        labels.append(label)
                    for which, page in (("page 1", 1), ("deep", deep_page)):
                        key = (label, which, n)
                        times.setdefault(key, []).append(timed(call, page, args.calls, clock))
                        counts[key] = len(statements_of(call, page))
    print(f"\n{engine}, {'CPU' if clock is time.process_time else 'wall'} ms, "
          f"per_page={PER_PAGE}, medians of {args.calls} calls, "
          f"{args.rounds} rounds (range over rounds)")
    print(f"  {'list':<30} {'page':<6} {'n=' + str(args.small):>16} "
          f"{'n=' + str(args.big):>18} {'ratio':>12} {'statements':>11}")
    for label in labels:
        for which in ("page 1", "deep"):
            small = times[(label, which, args.small)]
            big = times[(label, which, args.big)]
            ratios = sorted(b / s for s, b in zip(small, big, strict=True))
            print(f"  {label:<30} {which:<6} {_range(small):>16} {_range(big):>18} "
                  f"{ratios[0]:>5.2f}–{ratios[-1]:<5.2f} "
                  f"{counts[(label, which, args.small)]:>5}/{counts[(label, which, args.big)]:<5}")
    return 0


def _range(values: list[float]) -> str:
    ordered = sorted(v * 1000 for v in values)
    return f"{ordered[0]:.2f}–{ordered[-1]:.2f}"


if __name__ == "__main__":
    sys.exit(main())
