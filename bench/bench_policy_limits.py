"""What a large policy costs an environment: attaching it, a judged report, reading the snapshot
back, and how long an unrelated write waits meanwhile (issue 30, item 6).

Run by hand (not a test):

    python bench/bench_policy_limits.py                        # 100 rules x 230 (+10) artifacts
    python bench/bench_policy_limits.py --rules 4000 --artifacts 200
    python bench/bench_policy_limits.py --source /tmp/head     # the same against another checkout
    python bench/bench_policy_limits.py --database-url postgresql://postgres@127.0.0.1:55432/postgres

It starts its own `evidence-server serve` on free 127.0.0.1 ports with a temporary SQLite
database (or a new PostgreSQL database made for the run and dropped after it), bootstraps org
`acme` and, through the public REST API:

- reports --artifacts artifacts without provenance to environment `prod` (no policy yet: no
  judging), so that every rule fails for every artifact: the largest verdicts and answer;
- uploads a policy of --rules attestation rules (every other one under an `if` reading
  artifact.name, so that artifacts are judged one by one) with --exceptions exceptions on its
  provenance and trail-compliance rules;
- attaches it (the latest snapshot is judged again), reports ten artifacts more (a judged
  report), and reads the latest snapshot back.

Meanwhile a thread upserts flow `unrelated` in a loop on its own connection: the longest of
those writes during a judged call is how long judging held the writer's lock (on SQLite every
organization's) plus the write's own time, shown beside the same write's time when nothing
else runs. Peak RSS is the largest VmHWM of the server's processes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import pathlib
import threading
import time
from collections.abc import Iterator

import _common as common

ORG, KEY = "acme", "bench-policy-limits-key-0123456789"
AUTH = {"Authorization": f"Bearer {KEY}"}


def policy_yaml(rules: int, exceptions: int) -> str:
    lines = ["_schema: https://kosli.com/schemas/policy/environment/v1", "artifacts:"]
    for rule in ("provenance", "trail-compliance"):
        lines += [f"  {rule}:", "    required: true"]
        if exceptions:
            lines.append("    exceptions:")
            lines += [f"      - if: ${{{{ artifact.name == \"vendor-{i}\" }}}}"
                      for i in range(exceptions)]
    if rules:
        lines.append("  attestations:")
    for i in range(rules):
        lines.append(f"    - name: check-{i}\n      type: generic")
        if i % 2:
            lines.append(f"      if: ${{{{ not matches(artifact.name, \"^skip-{i}-\") }}}}")
    return "\n".join(lines) + "\n"


def call(address: str, method: str, path: str, payload: object = None,
         body: bytes | None = None, content_type: str = "application/json"
         ) -> tuple[int, bytes, float]:
    """(status, body, seconds) of one request."""
    if payload is not None:
        body = json.dumps(payload).encode()
    started = time.perf_counter()
    status, answer = common.http_call(address, method, path, body,
                                      {**AUTH, "Content-Type": content_type}, timeout=600)
    return status, answer, time.perf_counter() - started


def report(address: str, count: int) -> tuple[int, bytes, float]:
    artifacts = [{"digests": {f"app-{n}": f"{n:064x}"}, "creationTimestamp": 1_700_000_000}
                 for n in range(count)]
    return call(address, "PUT", f"/api/v2/environments/{ORG}/prod/report/server",
                {"artifacts": artifacts})


def upsert_flow(address: str, n: int) -> float:
    status, body, seconds = call(address, "PUT", f"/api/v2/flows/{ORG}", {
        "name": "unrelated", "description": f"write {n}", "visibility": "private",
        "template": []})
    common.expect(status, body, (200, 201), "flow upsert")
    return seconds


@contextlib.contextmanager
def unrelated_writes(address: str) -> Iterator[list[float]]:
    """Flow upserts in a loop while the block runs; their durations."""
    durations: list[float] = []
    done = threading.Event()

    def loop() -> None:
        while not done.is_set():
            durations.append(upsert_flow(address, len(durations)))

    writer = threading.Thread(target=loop)
    writer.start()
    try:
        yield durations
    finally:
        done.set()
        writer.join()


def peak_rss_mb(root: int) -> float:
    peak = 0
    for pid in [root, *common.descendants([root])]:
        with contextlib.suppress(OSError):
            for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
    return peak / 1024


def row(label: str, status: int, seconds: float, writes: list[float] | None = None,
        note: str = "") -> None:
    waits = f"{max(writes) * 1000:9.0f} ({len(writes)})" if writes else f"{'-':>15}"
    print(f"{label:<34}{status:>7}{seconds:>10.2f}  {waits}  {note}")


def run(args: argparse.Namespace, address: str, server: common.Server) -> None:
    text = policy_yaml(args.rules, args.exceptions)
    for n in range(5):  # the write's own time, nothing else running (and a warm flow row)
        upsert_flow(address, n)
    alone = min(upsert_flow(address, n) for n in range(20))
    status, body, _ = call(address, "PUT", f"/api/v2/environments/{ORG}",
                           {"name": "prod", "type": "server", "description": ""})
    common.expect(status, body, (200, 201), "create environment")
    status, body, _ = report(address, args.artifacts)
    common.expect(status, body, (200, 201), "first report")
    print(f"policy of {args.rules} attestation rules ({len(text.encode()):,} bytes), "
          f"{args.artifacts} artifacts; an unrelated write alone: {alone * 1000:.1f} ms")
    print(f"{'step':<34}{'HTTP':>7}{'seconds':>10}  {'write ms (n)':>15}  note")
    form, kind = common.multipart({"payload": json.dumps(
        {"name": "big", "description": "", "type": "env"})}, {"policy_file": ("p.yml", text.encode())})
    status, body, seconds = call(address, "PUT", f"/api/v2/policies/{ORG}", body=form,
                                 content_type=kind)
    row("upload policy", status, seconds, note="" if status < 300 else body[:160].decode())
    if status >= 300:
        return
    with unrelated_writes(address) as writes:
        status, body, seconds = call(address, "POST", f"/api/v2/environments/{ORG}/prod/policies",
                                     {"policy_names": ["big"]})
    row("attach (judges the latest snapshot)", status, seconds, writes,
        "" if status < 300 else body[:160].decode())
    if status >= 300:
        return
    with unrelated_writes(address) as writes:
        status, body, seconds = report(address, args.artifacts + 10)
    row(f"report {args.artifacts + 10} artifacts (judged)", status, seconds, writes,
        "" if status < 300 else body[:160].decode())
    status, body, seconds = call(address, "GET", f"/api/v2/snapshots/{ORG}/prod/-1")
    row("get snapshot -1", status, seconds, note=f"{len(body) / 1e6:.1f} MB answer")
    print(f"peak RSS of the server's processes: {peak_rss_mb(server.process.pid):.0f} MB")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", type=int, default=100, help="attestation rules of the policy")
    p.add_argument("--exceptions", type=int, default=20,
                   help="exceptions of its provenance and trail-compliance rules")
    p.add_argument("--artifacts", type=int, default=230)
    common.add_run_options(p, "unused")
    args = p.parse_args()
    common.use_source(args.source)
    with common.bench_server("bench_policy_limits", args,
                             f"{args.rules} rules x {args.artifacts} artifacts", ORG,
                             KEY) as (server, _):
        run(args, server.rest, server)


if __name__ == "__main__":
    main()
