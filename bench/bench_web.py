"""Rendering the web pages: a trail page with 200 attestations (issue 13: p99 < 50 ms).

Run by hand (not a test):

    python bench/bench_web.py --quick    # 100 requests per page
    python bench/bench_web.py            # 500 requests per page
    python bench/bench_web.py --database-url postgresql://postgres@127.0.0.1:55432/postgres

It starts its own `evidence-server serve` on free 127.0.0.1 ports with a temporary SQLite
database (or a new PostgreSQL database made for the run), seeds through the public REST API
flow `web` with trail `big` (an artifact, 200 attestations of four kinds, 20 with an
attachment) and environment `prod` running the artifact, then GETs each page at c=1 on one
keep-alive connection with the API key in `Authorization` (as a browser's session cookie
would carry it): the trail page, the flow, the artifact, the environment and the organization.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time

import _common as common

ORG, KEY = "acme", "bench-web-key-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {KEY}"}
ATTESTATIONS = 200
TARGET_MS = 50.0
FP = hashlib.sha256(b"bench web artifact").hexdigest()
TEMPLATE = ("version: 1\ntrail:\n  attestations:\n    - name: ticket\n      type: generic\n"
            "  artifacts:\n    - name: app\n      attestations:\n"
            "        - name: tests-0\n          type: junit\n")


def _ok(status: int, body: bytes, what: str) -> None:
    common.expect(status, body, (200, 201), what)


def seed(conn: common.KeepAlive) -> None:
    body, content_type = common.multipart({"data_json": json.dumps({"name": "web",
                                                                    "description": "bench"})},
                                          {"template_file": ("t.yml", TEMPLATE.encode())})
    _ok(*conn.request("PUT", f"/api/v2/flows/{ORG}/template_file", body,
                      {**AUTH, "Content-Type": content_type}), "flow")
    body, content_type = common.multipart({"data_json": json.dumps({"name": "big"})})
    _ok(*conn.request("PUT", f"/api/v2/trails/{ORG}/web", body,
                      {**AUTH, "Content-Type": content_type}), "trail")
    artifact = json.dumps({"fingerprint": FP, "filename": "app.tar", "trail_name": "big",
                           "template_reference_name": "app", "git_commit": "a" * 40,
                           "build_url": "https://ci.example/1", "commit_url": "https://git/c"})
    _ok(*conn.request("POST", f"/api/v2/artifacts/{ORG}/web", artifact.encode(),
                      {**AUTH, "Content-Type": "application/json"}), "artifact")
    for n in range(ATTESTATIONS):
        kind = ("generic", "junit", "jira", "generic")[n % 4]
        data: dict = {"attestation_name": f"{'ticket' if kind == 'generic' else 'tests'}-{n}",
                      "user_data": {"run": n, "note": "<b>bench</b>"}}
        if kind == "generic":
            data["is_compliant"] = n % 7 != 0
        elif kind == "junit":
            data["junit_results"] = [{"name": f"suite-{s}", "failures": 0, "errors": 0,
                                      "skipped": 1, "total": 40, "duration": 2.5}
                                     for s in range(5)]
            data["artifact_fingerprint"] = FP
        else:
            data["jira_results"] = [{"issue_id": f"WEB-{n}", "issue_exists": True,
                                     "issue_url": f"https://jira.example/browse/WEB-{n}"}]
        files = {"attachment_file": (f"evidence-{n}.txt", b"x" * 2048)} if n % 10 == 0 else None
        body, content_type = common.multipart({"data_json": json.dumps(data)}, files)
        _ok(*conn.request("POST", f"/api/v2/attestations/{ORG}/web/trail/big/{kind}", body,
                          {**AUTH, "Content-Type": content_type}), f"attestation {n}")
    _ok(*conn.request("PUT", f"/api/v2/environments/{ORG}", json.dumps(
        {"name": "prod", "type": "server", "description": ""}).encode(),
        {**AUTH, "Content-Type": "application/json"}), "environment")
    _ok(*conn.request("PUT", f"/api/v2/environments/{ORG}/prod/report/server", json.dumps(
        {"artifacts": [{"digests": {"app.tar": FP}, "creationTimestamp": 1}]}).encode(),
        {**AUTH, "Content-Type": "application/json"}), "report")


PAGES = {
    f"trail ({ATTESTATIONS} attestations)": f"/{ORG}/flows/web/trails/big",
    "flow": f"/{ORG}/flows/web",
    "artifact": f"/{ORG}/flows/web/artifacts/{FP}",
    "environment": f"/{ORG}/environments/prod",
    "organization": f"/{ORG}",
}


def measure(conn: common.KeepAlive, args: argparse.Namespace) -> list[common.LatencyRow]:
    rows = []
    for label, path in PAGES.items():
        errors: list[str] = []

        def call(_: int, path: str = path, errors: list[str] = errors) -> bool:
            answered, status, payload, problem = conn.checked("GET", path, None, AUTH)
            if not answered or status != 200:
                errors.append(problem or f"HTTP {status}: {payload[:120]!r}")
                return False
            return b"</html>" in payload

        latencies, failures, stopped = common.budgeted(call, args.warmup, args.requests,
                                                       args.budget)
        row = common.latency_row(label, latencies, failures,
                                 common.budget_note(stopped, args.budget, errors))
        common.print_latency(row, width=34)
        rows.append(row)
    return rows


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    common.add_run_options(p, "seconds per page (default 60)")
    p.add_argument("--requests", type=int, default=None, help="timed requests per page")
    args = p.parse_args(argv)
    args.requests = args.requests or (100 if args.quick else 500)
    args.budget = args.budget or 60.0
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    with common.bench_server("bench_web", args, "c=1", ORG, KEY) as (_, conn):
        try:
            seed(conn)
            common.print_latency_header("page", width=34)
            rows = measure(conn, args)
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)
            return 130
    trail = rows[0]
    print(f"\ntrail page p99 {trail.p99_ms:.1f} ms (target < {TARGET_MS:g} ms): "
          f"{'met' if trail.p99_ms < TARGET_MS and not trail.errors else 'MISSED'}")
    print(f"finished in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
