"""Issue 35: reading a governed 500-artifact snapshot (5 policies x 20 rules), and a control
write in a new process after a large policy exists; this tree beside another checkout in one
run.

Run by hand (not a test):

    git worktree add /tmp/before 5069115                      # the code before issue 35
    python bench/bench_snapshot_reads.py --before /tmp/before
    python bench/bench_snapshot_reads.py                      # this tree alone
    git worktree remove /tmp/before

It starts `evidence-server serve` of this tree on a temporary SQLite database (org `acme`, one
key) and seeds through the public REST API what `bench_asserts.py` seeds (5 policies of 20
rules, flow `svc` with 500 trails of one artifact each, the 18 attestations, environments
`prod`, `plain` and `judged`). Two snapshots of all 500 artifacts are reported to `plain` over
REST. Those of `judged` are made in this process by `snapshots.report_environment` with
MAX_JUDGED_RESOLUTIONS lifted, as a release before the limits (issue 30) made them: 500
artifacts x 100 rules is 50,000 rule resolutions, twice the limit, so REST refuses such a report
now, but such snapshots exist and are read. Then the `controls` feature (bootstrap), controls
`ctl-1` and `ctl-2`, and a policy `large` of ~1 MiB (100 rules, one a decision for ctl-1, the rest
of the text comments).

With `--before DIR` a second server of that checkout serves the same database file. Then, at
c=1 on one keep-alive connection per server, the servers taking turns read by read (within
--budget seconds a row and server):

  GET /api/v2/snapshots/acme/judged/-1    the latest governed snapshot
  GET /api/v2/snapshots/acme/judged/~1    the one before it (closed)
  GET /api/v2/snapshots/acme/judged/-1    the same with Accept-Encoding: gzip
  GET /api/v2/snapshots/acme/plain/-1     500 artifacts without policies

Each row prints the first read (the server's cold one), p50 / p99 of the reads after
--warmup, the answer's bytes as sent, and whether both servers' answers are the same JSON.

Control writes: --processes new processes per checkout, taking turns, each running that
checkout's REST stack in process (Flask's test client, the servicers in process) on the same
database: one unrelated read first (imports and connections), then timed `PUT
/api/v2/controls/acme/ctl-1` (named by the large policy), the same again, and `PUT
.../ctl-2` (named by none).
"""

from __future__ import annotations

import argparse
import gzip
import json
import pathlib
import statistics
import subprocess
import sys
import time
from typing import Any

import _common as common
import bench_asserts
from bench_lists import AUTH, KEY, ORG, send_json

# (environment, expression, Accept-Encoding: gzip as the kosli CLI's Go client sends it)
READS = (("judged", "-1", False), ("judged", "~1", False), ("judged", "-1", True),
         ("plain", "-1", False))
LABEL_WIDTH = 44

# Control writes timed in a new process: argv[1] the database URL, argv[2] the key; prints JSON.
_CONTROL_WRITES = """
import json, sys, time
from evidence_grpc.config import Settings
from evidence_grpc.storage.db import init_database
from rest_shim.app import create_app
init_database(sys.argv[1])
client = create_app(Settings(database_url=sys.argv[1])).test_client()
auth = {"Authorization": "Bearer " + sys.argv[2]}
assert client.get("/api/v2/environments/acme", headers=auth).status_code == 200
times = {}
for label, identifier in (("first", "ctl-1"), ("again", "ctl-1"), ("unnamed", "ctl-2")):
    started = time.perf_counter()
    answer = client.put("/api/v2/controls/acme/" + identifier, headers=auth,
                        json={"description": label + " " + str(time.time())})
    times[label] = time.perf_counter() - started
    assert answer.status_code == 200, answer.get_data()
    times[label + " referencing"] = answer.get_json()["policies_referencing"]
print(json.dumps(times))
"""


def large_policy() -> str:
    """100 rules (one a decision for ctl-1) and comments: ~1 MiB, the largest storable."""
    rules = "".join(f"    - name: check-{i:02d}\n      type: generic\n" for i in range(99))
    text = ("_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n"
            "  attestations:\n" + rules + "    - name: decision\n      type: decision\n"
            "      for_control: ctl-1\n")
    line = "# " + "x" * 1022 + "\n"
    return text + line * ((1024 * 1024 - len(text)) // len(line) - 1)


def seed(server: common.Server, conn: common.KeepAlive, workdir: pathlib.Path) -> None:
    bench_asserts.seed(conn, 0)
    started = time.monotonic()
    for round_ in range(2):
        send_json(conn, "PUT", f"/api/v2/environments/{ORG}/plain/report/server",
                  bench_asserts.big_report(round_))
    from evidence_grpc.domain.runtime import snapshots
    from evidence_grpc.storage import db as storage
    from evidence_grpc.storage.models import Organization

    storage.init_database(server.database_url)
    snapshots.MAX_JUDGED_RESOLUTIONS = 10**9  # as a release before the limits judged
    with storage.database.connection_context():
        org = Organization.get(Organization.name == ORG)
        for round_ in range(2):
            snapshots.report_environment(org, "judged", "server", bench_asserts.big_report(round_))
    storage.database.close()
    print(f"  two 500-artifact snapshots each of plain (REST) and judged (in process, 50,000 "
          f"rule resolutions) in {time.monotonic() - started:.1f} s", flush=True)

    boot = workdir / "features.json"
    boot.write_text(json.dumps({"organizations": [{"name": ORG, "features": ["controls"]}]}))
    subprocess.run(common.cli("bootstrap", str(boot), "--database-url", server.database_url),
                   check=True, capture_output=True, timeout=120, cwd=common.ROOT,
                   env=common.server_env())
    for identifier in ("ctl-1", "ctl-2"):
        send_json(conn, "POST", f"/api/v2/controls/{ORG}", {"identifier": identifier,
                                                             "name": identifier})
    text = large_policy()
    body, content_type = common.multipart(
        {"payload": json.dumps({"name": "large", "description": "", "type": "env"})},
        {"policy_file": ("large.yml", text.encode())})
    status, answer = conn.request("PUT", f"/api/v2/policies/{ORG}", body,
                                  {**AUTH, "Content-Type": content_type})
    common.expect(status, answer, (201,), "upload the large policy")
    print(f"  controls ctl-1, ctl-2 and policy `large` ({len(text.encode()):,} bytes, "
          "naming ctl-1)", flush=True)


def measure_reads(servers: dict[str, common.Server], args: argparse.Namespace) -> None:
    conns = {name: common.KeepAlive(server.rest) for name, server in servers.items()}
    print(f"\nGET snapshot, c=1, servers in turn (warm-up {args.warmup}, then up to "
          f"{args.requests} reads or {args.budget:.0f} s a server)")
    print(f"  {'read':<{LABEL_WIDTH}} {'server':<7} {'first ms':>9} {'n':>4} {'p50 ms':>8} "
          f"{'p99 ms':>8} {'bytes':>11}  same JSON")
    try:
        for env, expression, gzipped in READS:
            path = f"/api/v2/snapshots/{ORG}/{env}/{expression}"
            headers = {**AUTH, "Accept-Encoding": "gzip"} if gzipped else AUTH
            times: dict[str, list[float]] = {name: [] for name in servers}
            first: dict[str, float] = {}
            answers: dict[str, bytes] = {}
            spent = dict.fromkeys(servers, 0.0)
            for i in range(args.warmup + args.requests):
                for name, conn in conns.items():
                    if spent[name] > args.budget:
                        continue
                    started = time.perf_counter()
                    status, body = conn.request("GET", path, None, headers)
                    seconds = time.perf_counter() - started
                    common.expect(status, body, (200,), f"{name} {path}")
                    spent[name] += seconds
                    if i == 0:
                        first[name], answers[name] = seconds, body
                    elif i >= args.warmup:
                        times[name].append(seconds)
            # Alike but for the html base (each server's own address).
            alike = {name: json.loads(_decoded(body).replace(
                f"http://{servers[name].rest}".encode(), b"")) for name, body in answers.items()}
            same = alike["before"] == alike["after"] if "before" in alike else None
            for name in servers:
                ordered = sorted(times[name])
                label = env + "/" + expression + (" (gzip accepted)" if gzipped else "")
                print(f"  {label:<{LABEL_WIDTH}} {name:<7} "
                      f"{first[name] * 1000:>9.0f} {len(ordered):>4} "
                      f"{common.percentile(ordered, 0.5) * 1000:>8.1f} "
                      f"{common.percentile(ordered, 0.99) * 1000:>8.1f} "
                      f"{len(answers[name]):>11,}  {'' if same is None else same}", flush=True)
    finally:
        for conn in conns.values():
            conn.close()


def _decoded(body: bytes) -> bytes:
    return gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body


def measure_control_writes(database_url: str, sources: dict[str, pathlib.Path],
                           args: argparse.Namespace) -> None:
    print(f"\ncontrol writes in a new process ({args.processes} processes a checkout, in turn)")
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in sources}
    for _ in range(args.processes):
        for name, source in sources.items():
            done = subprocess.run([sys.executable, "-c", _CONTROL_WRITES, database_url, KEY],
                                  capture_output=True, timeout=600, cwd=source,
                                  env=common.server_env(source), text=True)
            if done.returncode:
                raise RuntimeError(f"control writes of {name} failed:\n{done.stderr[-3000:]}")
            found[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    for label in ("first", "again", "unnamed"):
        for name, runs in found.items():
            seconds = [run[label] * 1000 for run in runs]
            print(f"  PUT control ({label:<7}) {name:<7} median {statistics.median(seconds):9.1f} ms"
                  f"  runs {', '.join(f'{s:.1f}' for s in seconds)}"
                  f"  policies_referencing {runs[0][label + ' referencing']}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", type=pathlib.Path, default=None,
                   help="another checkout to serve the same database beside this tree")
    p.add_argument("--requests", type=int, default=100, help="timed reads a row and server")
    p.add_argument("--processes", type=int, default=3, help="new processes a checkout")
    common.add_run_options(p, "seconds of reads a row and server at most (30)")
    args = p.parse_args(argv)
    args.budget = args.budget or 30.0
    args.warmup = min(args.warmup, 3)
    if args.database_url:
        p.error("SQLite only: both servers serve one database file")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    with common.bench_server("bench_snapshot_reads", args, "500 artifacts x 5 policies x 20 "
                             "rules", ORG, KEY) as (server, conn):
        workdir = server.log_path.parent
        seed(server, conn, workdir)
        if args.before is None:
            measure_reads({"after": server}, args)
            measure_control_writes(server.database_url, {"after": common.ROOT}, args)
        else:
            before = args.before.resolve()
            before_dir = workdir / "before"
            before_dir.mkdir()
            with common.serving(before_dir, server.database_path, args.workers,
                                before) as old:
                print(f"before: {old.describe()} (code from {before})", flush=True)
                measure_reads({"before": old, "after": server}, args)
            measure_control_writes(server.database_url,
                                   {"before": before, "after": common.ROOT}, args)
    print(f"\nload average {common.load_average()} at the end; finished in "
          f"{time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
