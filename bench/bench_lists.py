"""Unpaged and paged lists at N items, and what a custom type's jq rule costs an attestation.

Run by hand (not a test):

    python bench/bench_lists.py --quick     # N = 300, 100 requests per list (~1 min)
    python bench/bench_lists.py             # N = 1,000, 300 requests per list
    python bench/bench_lists.py --database-url postgresql://postgres@127.0.0.1:55433/postgres

It starts its own `evidence-server serve` on free 127.0.0.1 ports with a temporary SQLite database
(or, with --database-url postgresql://..., a new database made on that server for the run and
dropped after it), bootstraps org `acme` with one key and seeds through the public REST API only:
N flows, N trails in flow `bench`, N environments (K8S) with one snapshot each (a one-pod report),
and N artifacts in flow `arts` (each in its own trail). Then, at c=1 on one keep-alive connection,
each for at most --budget seconds:

  GET /api/v2/flows/acme                               every flow (unpaged)
  GET /api/v2/trails/acme/bench                        every trail of one flow (unpaged)
  GET /api/v2/environments/acme                        every environment (unpaged)
  GET /api/v2/artifacts/acme?flow_name=arts&per_page=100&page=L   the last page of artifacts
  GET /api/v2/snapshots/acme/{env}?page=1&per_page=15  one environment's snapshot list

and then attestations on one trail: a generic one, and a custom one of a type with a jq rule (the
rule runs in the sandbox process), so the difference is the sandbox's cost over REST.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import _common as common

ORG = "acme"
KEY = "bench-lists-secret-key-0123456789"  # bootstrap refuses keys shorter than 20 characters
AUTH = {"Authorization": f"Bearer {KEY}"}
JSON = {**AUTH, "Content-Type": "application/json"}
TRAIL_FLOW = "bench"
ARTIFACT_FLOW = "arts"
CUSTOM_TYPE = "coverage"
JQ_RULE = ".line_coverage >= 80"  # over the attestation_data
LABEL_WIDTH = 56


def fingerprint(*parts: object) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()


def send_json(conn: common.KeepAlive, method: str, path: str, payload: Any,
              wanted: tuple[int, ...] = (200, 201)) -> None:
    status, body = conn.request(method, path, json.dumps(payload).encode(), JSON)
    common.expect(status, body, wanted, f"{method} {path}")


def send_form(conn: common.KeepAlive, method: str, path: str, payload: Any,
              wanted: tuple[int, ...] = (200, 201)) -> None:
    """The shape the CLI sends: a multipart `data_json` field."""
    body, content_type = common.multipart({"data_json": json.dumps(payload)})
    status, answer = conn.request(method, path, body, {**AUTH, "Content-Type": content_type})
    common.expect(status, answer, wanted, f"{method} {path}")


def env_name(i: int) -> str:
    return f"env-{i:05d}"


def pod_report(i: int) -> dict[str, Any]:
    return {"artifacts": [{"podName": f"app-{i:05d}-5d8f7c9b6", "namespace": "bench",
                           "digests": {f"registry.example/bench/app-{i:05d}": fingerprint("env", i)},
                           "creationTimestamp": 1_700_000_000 + i}]}


def artifact(i: int) -> dict[str, Any]:
    sha = fingerprint("commit", i)[:40]
    return {"fingerprint": fingerprint("artifact", i),
            "filename": f"registry.example/acme/app:{i}", "git_commit": sha,
            "git_commit_info": {"sha1": sha, "timestamp": 1_700_000_000 + i,
                                "message": f"change {i}", "author": "Bench <bench@example.com>",
                                "branch": "main", "url": f"https://git.example/acme/app/{sha}"},
            "build_url": f"https://ci.example/builds/{i}",
            "commit_url": f"https://git.example/acme/app/{sha}"}


def timed_seed(what: str, count: int, call: Callable[[int], None]) -> None:
    started = time.monotonic()
    for i in range(count):
        call(i)
    seconds = time.monotonic() - started
    print(f"  seeded {count} {what} in {seconds:.1f} s ({count / seconds:.0f}/s)", flush=True)


def seed(conn: common.KeepAlive, n: int) -> None:
    """N flows, N trails in one flow, N environments with a snapshot each, N artifacts."""
    flows = f"/api/v2/flows/{ORG}"
    for flow in (TRAIL_FLOW, ARTIFACT_FLOW):
        send_json(conn, "PUT", flows, {"name": flow, "description": "bench", "template": []})
    timed_seed("flows", n, lambda i: send_json(
        conn, "PUT", flows, {"name": f"flow-{i:05d}", "description": "bench", "template": []}))
    timed_seed("trails", n, lambda i: send_form(
        conn, "PUT", f"/api/v2/trails/{ORG}/{TRAIL_FLOW}", {"name": f"trail-{i:05d}"}))

    def environment(i: int) -> None:
        send_json(conn, "PUT", f"/api/v2/environments/{ORG}",
                  {"name": env_name(i), "type": "K8S", "description": "bench"})
        send_json(conn, "PUT", f"/api/v2/environments/{ORG}/{env_name(i)}/report/K8S",
                  pod_report(i))

    timed_seed("environments with a snapshot", n, environment)
    timed_seed("artifacts", n, lambda i: send_json(
        conn, "POST", f"/api/v2/artifacts/{ORG}/{ARTIFACT_FLOW}", artifact(i)))


def counted(key: str | None, expected: int) -> Callable[[bytes], bool]:
    """A check that the answer holds `expected` items (the answer itself, or its `key`)."""
    def check(body: bytes) -> bool:
        data = json.loads(body)
        items = data if key is None else data.get(key, [])
        return isinstance(items, list) and len(items) == expected
    return check


def measure(conn: common.KeepAlive, label: str, method: str, path: str, body: bytes | None,
            headers: dict[str, str], wanted: int, check: Callable[[bytes], bool] | None,
            args: argparse.Namespace) -> common.LatencyRow:
    """`requests` calls (after a warm-up) at c=1 within the budget; the first answer must pass
    `check` (then only the status is checked, so the check does not count as latency)."""
    first_error: list[str] = []
    checked = check is None

    def call(_: int) -> bool:
        nonlocal checked
        answered, status, payload, error = conn.checked(method, path, body, headers)
        if not answered or status != wanted:
            first_error.append(error or f"HTTP {status} {payload[:200]!r}")
            return False
        if not checked:
            checked = True
            if check is not None and not check(payload):
                first_error.append(f"unexpected answer {payload[:200]!r}")
                return False
        return True

    latencies, failures, stopped = common.budgeted(call, args.warmup, args.requests, args.budget)
    row = common.latency_row(label, latencies, failures,
                             common.budget_note(stopped, args.budget, first_error))
    common.print_latency(row, LABEL_WIDTH)
    return row


def measure_lists(conn: common.KeepAlive, args: argparse.Namespace) -> list[common.LatencyRow]:
    n = args.n
    last_page = (n + 99) // 100
    on_last_page = n - (last_page - 1) * 100
    lists: list[tuple[str, str, Callable[[bytes], bool]]] = [
        (f"GET flows (unpaged, {n + 2})", f"/api/v2/flows/{ORG}", counted(None, n + 2)),
        (f"GET trails of one flow (unpaged, {n})", f"/api/v2/trails/{ORG}/{TRAIL_FLOW}",
         counted(None, n)),
        (f"GET environments (unpaged, {n})", f"/api/v2/environments/{ORG}", counted(None, n)),
        (f"GET artifacts per_page=100, last page ({last_page})",
         f"/api/v2/artifacts/{ORG}?flow_name={ARTIFACT_FLOW}&per_page=100&page={last_page}",
         lambda body: on_last_page == len(_items(json.loads(body)))),
        ("GET snapshots of one env, page 1 of 15",
         f"/api/v2/snapshots/{ORG}/{env_name(n // 2)}?page=1&per_page=15", counted(None, 1)),
    ]
    print("\nlists, c=1, one keep-alive connection")
    common.print_latency_header("request", LABEL_WIDTH)
    return [measure(conn, label, "GET", path, None, AUTH, 200, check, args)
            for label, path, check in lists]


def _items(data: Any) -> list[Any]:
    """The items of a list answer, bare or wrapped ({"data": [...]}, {"artifacts": [...]})."""
    if isinstance(data, list):
        return data
    for value in data.values():
        if isinstance(value, list):
            return value
    return []


def measure_attestations(conn: common.KeepAlive, args: argparse.Namespace
                         ) -> list[common.LatencyRow]:
    send_form(conn, "POST", f"/api/v2/custom-attestation-types/{ORG}", {
        "name": CUSTOM_TYPE, "description": "line coverage of at least 80 %",
        "evaluator": {"content_type": "jq", "rules": [JQ_RULE]}})
    base = f"/api/v2/attestations/{ORG}/{TRAIL_FLOW}/trail/trail-00000"
    kinds = [
        ("POST generic attestation", "generic",
         {"attestation_name": "plain", "is_compliant": True, "user_data": {}}),
        (f"POST custom attestation (jq rule `{JQ_RULE}`)", "custom",
         {"attestation_name": "cov", "type_name": CUSTOM_TYPE,
          "attestation_data": {"line_coverage": 91}, "user_data": {}}),
    ]
    print("\nattestations on one trail, c=1, one keep-alive connection")
    common.print_latency_header("request", LABEL_WIDTH)
    rows = []
    for label, kind, payload in kinds:
        body, content_type = common.multipart({"data_json": json.dumps(payload)})
        rows.append(measure(conn, label, "POST", f"{base}/{kind}", body,
                            {**AUTH, "Content-Type": content_type}, 201, None, args))
    return rows


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=None,
                   help="flows, trails, environments and artifacts each (1,000; --quick 300)")
    p.add_argument("--requests", type=int, default=None,
                   help="timed requests per measurement (300; --quick 100)")
    common.add_run_options(p, "seconds per measurement at most (20; --quick 8)")
    args = p.parse_args(argv)
    args.n = args.n or (300 if args.quick else 1000)
    args.requests = args.requests or (100 if args.quick else 300)
    args.budget = args.budget or (8.0 if args.quick else 20.0)
    if args.database_url and not args.database_url.startswith("postgresql://"):
        p.error("--database-url must be postgresql://...")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    with common.bench_server("bench_lists", args, f"N={args.n}", ORG, KEY) as (_, conn):
        try:
            seed(conn, args.n)
            measure_lists(conn, args)
            measure_attestations(conn, args)
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)
            return 130
    print(f"\nfinished in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
