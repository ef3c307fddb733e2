"""`kosli assert artifact` against an environment's policies, and what judging by policies costs
a snapshot.

Run by hand (not a test):

    python bench/bench_asserts.py --quick   # 1,000 snapshots, 100 requests per measurement
    python bench/bench_asserts.py           # 10,000 snapshots, 300 requests per measurement
    python bench/bench_asserts.py --database-url postgresql://postgres@127.0.0.1:55432/postgres

It starts its own `evidence-server serve` on free 127.0.0.1 ports with a temporary SQLite
database (or a new PostgreSQL database made for the run and dropped after it), bootstraps org
`acme` and seeds through the public REST API only:

- 5 policies of 20 rules each (provenance and trail-compliance with an exception, and 18
  required attestations, half of them under an `if` over flow tags and names);
- flow `svc` (tagged tier=gold) with 500 trails, one artifact each; the first trail carries
  the 18 attestations the policies ask for;
- environment `prod` with the 5 policies attached and --snapshots snapshots (each a one-artifact
  report, alternating two artifacts), and environments `plain` (no policies) and `judged` (the
  5 policies) for the 500-artifact report.

Then, at c=1 on one keep-alive connection, within --budget seconds each:

  GET /api/v2/asserts/acme/fingerprint/{fp}?environment_name=prod     5 policies x 20 rules
  GET /api/v2/asserts/acme/fingerprint/{fp}?policy_name=... (5)        the same, named
  GET /api/v2/asserts/acme/fingerprint/{fp}                            flow scope, no policies
  PUT .../environments/acme/{plain|judged}/report/server  (500 artifacts, a new snapshot each)
  GET /api/v2/snapshots/acme/{plain|judged}/-1            (renders its kept verdicts)

A snapshot is judged when a report makes it and keeps its verdict (the policy decisions of
every artifact), so the report PUT pays for judging and storing, and the snapshot GET for
rendering what was kept. Judging alone is also timed in this process through the domain layer
on the server's database: `snapshots.judge` of the 500 fingerprints for `plain` and `judged`.

Targets: assert p99 < 20 ms; judging by the policies adds < 30 %.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import _common as common
from bench_lists import AUTH, KEY, ORG, fingerprint, measure, send_form, send_json

FLOW = "svc"
TRAILS = 500
POLICIES = 5
ATTESTATION_RULES = 18
LABEL_WIDTH = 60


def policy_yaml(p: int) -> str:
    lines = ["_schema: https://docs.kosli.com/schemas/policy/v1", "artifacts:"]
    for rule in ("provenance", "trail-compliance"):
        lines += [f"  {rule}:", "    required: true", "    exceptions:",
                  f"      - if: ${{{{ matches(artifact.name, \"^vendor-{p}:.*\") }}}}"]
    lines.append("  attestations:")
    for j in range(ATTESTATION_RULES):
        lines += [f"    - name: check-{j:02d}", "      type: generic"]
        if j % 2:
            lines.append(f"      if: ${{{{ flow.tags.tier == \"gold\" and flow.name in "
                         f"[\"{FLOW}\", \"other-{p}\"] }}}}")
    return "\n".join(lines) + "\n"


def policy_names() -> list[str]:
    return [f"policy-{p}" for p in range(POLICIES)]


def report(i: int) -> dict[str, Any]:
    return {"artifacts": [{"digests": {f"app-{i % 2}": fingerprint("artifact", i % 2)},
                           "creationTimestamp": 1_700_000_000 + i}]}


def big_report(round_: int) -> dict[str, Any]:
    """All 500 artifacts; every other round names one differently, so each makes a snapshot."""
    return {"artifacts": [{"digests": {f"svc-{i:03d}" + ("-b" if round_ % 2 and i == 0 else ""):
                                       fingerprint("artifact", i)},
                           "creationTimestamp": 1_700_000_000 + i} for i in range(TRAILS)]}


def seed(conn: common.KeepAlive, snapshots: int) -> None:
    started = time.monotonic()
    for name in policy_names():
        body, content_type = common.multipart(
            {"payload": json.dumps({"name": name, "description": "bench", "type": "env",
                                    "comment": ""})},
            {"policy_file": ("policy.yml", policy_yaml(int(name[-1])).encode())})
        status, answer = conn.request("PUT", f"/api/v2/policies/{ORG}", body,
                                      {**AUTH, "Content-Type": content_type})
        common.expect(status, answer, (201,), f"create {name}")
    send_json(conn, "PUT", f"/api/v2/flows/{ORG}", {"name": FLOW, "description": "bench",
                                                    "template": []})
    send_json(conn, "PATCH", f"/api/v2/tags/{ORG}/flow/{FLOW}",
              {"set_tags": {"tier": "gold"}, "remove_tags": []})
    for i in range(TRAILS):
        send_form(conn, "PUT", f"/api/v2/trails/{ORG}/{FLOW}", {"name": f"t-{i:03d}"})
        send_json(conn, "POST", f"/api/v2/artifacts/{ORG}/{FLOW}", {
            "fingerprint": fingerprint("artifact", i), "filename": f"svc-{i:03d}",
            "trail_name": f"t-{i:03d}", "build_url": "https://ci.example/b",
            "commit_url": "https://git.example/c"})
    for j in range(ATTESTATION_RULES):
        send_form(conn, "POST", f"/api/v2/attestations/{ORG}/{FLOW}/trail/t-000/generic",
                  {"attestation_name": f"check-{j:02d}", "is_compliant": True})
    print(f"  seeded 5 policies, {TRAILS} trails and artifacts, {ATTESTATION_RULES} "
          f"attestations in {time.monotonic() - started:.1f} s", flush=True)

    for env, names in (("prod", policy_names()), ("plain", []), ("judged", policy_names())):
        send_json(conn, "PUT", f"/api/v2/environments/{ORG}",
                  {"name": env, "type": "server", "description": "bench"})
        if names:
            send_json(conn, "POST", f"/api/v2/environments/{ORG}/{env}/policies",
                      {"policy_names": names})
    started = time.monotonic()
    for i in range(snapshots):
        send_json(conn, "PUT", f"/api/v2/environments/{ORG}/prod/report/server", report(i))
    seconds = time.monotonic() - started
    print(f"  seeded {snapshots} snapshots of prod over REST in {seconds:.1f} s "
          f"({snapshots / seconds:.0f}/s)", flush=True)


def compliant_is(expected: bool) -> Any:
    return lambda body: json.loads(body).get("compliant") is expected


def measure_asserts(conn: common.KeepAlive, args: argparse.Namespace) -> list[common.LatencyRow]:
    base = f"/api/v2/asserts/{ORG}/fingerprint/{fingerprint('artifact', 0)}"
    named = "&".join(f"policy_name={n}" for n in policy_names())
    cases = [
        ("assert artifact, environment (5 policies x 20 rules)",
         f"{base}?environment_name=prod", compliant_is(True)),
        ("assert artifact, 5 named policies", f"{base}?{named}", compliant_is(True)),
        ("assert artifact, flow scope (no policies)", base, compliant_is(True)),
        ("assert artifact missing 18 attestations, environment",
         f"/api/v2/asserts/{ORG}/fingerprint/{fingerprint('artifact', 1)}?environment_name=prod",
         compliant_is(False)),
    ]
    print("\nassert artifact, c=1, one keep-alive connection")
    common.print_latency_header("request", LABEL_WIDTH)
    return [measure(conn, label, "GET", path, None, AUTH, 200, check, args)
            for label, path, check in cases]


def measure_judging(conn: common.KeepAlive, args: argparse.Namespace
                    ) -> dict[str, common.LatencyRow]:
    print(f"\na snapshot of {TRAILS} artifacts, c=1, one keep-alive connection")
    common.print_latency_header("request", LABEL_WIDTH)
    rows = {}
    bodies = [json.dumps(big_report(r)).encode() for r in range(2)]
    for env in ("plain", "judged"):
        rows[f"report {env}"] = measure_reports(conn, env, bodies, args)
        rows[f"read {env}"] = measure(
            conn, f"GET snapshot of {TRAILS} artifacts, {env}", "GET",
            f"/api/v2/snapshots/{ORG}/{env}/-1", None, AUTH, 200,
            lambda body: len(json.loads(body)["artifacts"]) >= TRAILS, args)
    return rows


def measure_judge(database_url: str, args: argparse.Namespace) -> dict[str, common.LatencyRow]:
    """`snapshots.judge` of the 500 reported fingerprints, without and with the policies."""
    from evidence_grpc.domain.runtime import snapshots
    from evidence_grpc.storage import db as storage
    from evidence_grpc.storage.models import Environment, Organization

    storage.init_database(database_url)
    fingerprints = {fingerprint("artifact", i) for i in range(TRAILS)}
    print(f"\njudging {TRAILS} artifacts in process (domain layer, the server's database)")
    common.print_latency_header("call", LABEL_WIDTH)
    rows = {}
    with storage.database.connection_context():
        org = Organization.get(Organization.name == ORG)
        for env_name in ("plain", "judged"):
            env = Environment.get((Environment.organization == org)
                                  & (Environment.name == env_name))
            latencies, failures, stopped = common.budgeted(
                lambda _, env=env: snapshots.judge(org, env, fingerprints) is not None,
                args.warmup, args.requests, args.budget)
            rows[env_name] = common.latency_row(
                f"judge({env_name}, {TRAILS} fingerprints)", latencies, failures,
                common.budget_note(stopped, args.budget, []))
            common.print_latency(rows[env_name], LABEL_WIDTH)
    return rows


def measure_reports(conn: common.KeepAlive, env: str, bodies: list[bytes],
                    args: argparse.Namespace) -> common.LatencyRow:
    """Reports alternating between two bodies, so that each makes a new snapshot."""
    headers = {**AUTH, "Content-Type": "application/json"}
    first_error: list[str] = []

    def call(i: int) -> bool:
        answered, status, payload, error = conn.checked(
            "PUT", f"/api/v2/environments/{ORG}/{env}/report/server", bodies[i % 2], headers)
        if answered and status in (200, 201):
            return True
        first_error.append(error or f"HTTP {status} {payload[:200]!r}")
        return False

    latencies, failures, stopped = common.budgeted(call, args.warmup, args.requests, args.budget)
    row = common.latency_row(f"PUT report of {TRAILS} artifacts into {env}", latencies,
                             failures, common.budget_note(stopped, args.budget, first_error))
    common.print_latency(row, LABEL_WIDTH)
    return row


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--snapshots", type=int, default=None,
                   help="snapshots of the asserted environment (10,000; --quick 1,000)")
    p.add_argument("--requests", type=int, default=None,
                   help="timed requests per measurement (300; --quick 100)")
    common.add_run_options(p, "seconds per measurement at most (30; --quick 10)")
    args = p.parse_args(argv)
    args.snapshots = args.snapshots if args.snapshots is not None else (
        1000 if args.quick else 10_000)
    args.requests = args.requests or (100 if args.quick else 300)
    args.budget = args.budget or (10.0 if args.quick else 30.0)
    if args.database_url and not args.database_url.startswith("postgresql://"):
        p.error("--database-url must be postgresql://...")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    with common.bench_server("bench_asserts", args, f"{args.snapshots} snapshots", ORG,
                             KEY) as (server, conn):
        try:
            seed(conn, args.snapshots)
            asserts = measure_asserts(conn, args)
            judging = measure_judging(conn, args)
            judged = measure_judge(server.database_url, args)
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)
            return 130
    worst = max(r.p99_ms for r in asserts)
    print(f"\nassert p99 {worst:.2f} ms (target < 20 ms): {'met' if worst < 20 else 'MISSED'}")
    for what, plain, with_policies, target in (
            (f"a report of {TRAILS} artifacts", judging["report plain"].p50_ms,
             judging["report judged"].p50_ms, 30),
            ("judge() in process", judged["plain"].p50_ms, judged["judged"].p50_ms, None),
            (f"reading a {TRAILS}-artifact snapshot", judging["read plain"].p50_ms,
             judging["read judged"].p50_ms, None)):
        added = (with_policies - plain) / plain * 100 if plain else float("nan")
        verdict = (f"target < {target} %: {'met' if added < target else 'MISSED'}"
                   if target else "no target")
        print(f"5 policies x 20 rules add {added:.0f} % to {what} (p50 {plain:.1f} -> "
              f"{with_policies:.1f} ms; {verdict})")
    print(f"finished in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
