"""What the largest answers cost each server process in memory: the unpaged list of a flow's
trails, read whole through REST and through gRPC.

Run by hand (not a test):

    python bench/bench_memory.py                       # 100,000 trails, SQLite
    python bench/bench_memory.py --database-url postgresql://postgres@127.0.0.1:55432/postgres
    python bench/bench_memory.py --grpc unary          # gRPC's unary ListFlowTrails instead
    python bench/bench_memory.py --source /path/to/older/checkout --grpc unary   # before

It starts its own `evidence-server serve` (default process counts) on a new SQLite database
(or a new database on the PostgreSQL server of --database-url, dropped after the run), begins
one trail through REST (a description, a commit, one event), then copies its row and its event
in bulk (peewee insert_many from this process) to --trails trails of flow `bench`. Then it
reads `GET /api/v2/trails/acme/bench` --reads times (counting the bytes as they come, never
holding the answer) and gRPC `StreamFlowTrails` (or, with `--grpc unary`, `ListFlowTrails`
unpaged) --reads times. Before each kind of read, every server process's peak RSS is reset
(`/proc/PID/clear_refs`, 5); after it, each process's peak (VmHWM) is read: the growth is
peak minus the RSS it had before. The done-when is no process growing by more than
--most-mib (100).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import _common as common

ORG = "acme"
KEY = "bench-memory-secret-key-0123456789"
AUTH = {"Authorization": f"Bearer {KEY}"}
FLOW = "bench"
MIB = 1024 * 1024


def status_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in KiB (empty when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            return {line.split(":")[0]: int(line.split()[1]) for line in handle
                    if line.startswith(("VmRSS:", "VmHWM:"))}
    except OSError:
        return {}


def reset_peak(pid: int) -> None:
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def role(pid: int, server: common.Server) -> str:
    """What the process is: the command `evidence_grpc.cli` was run with, or an HTTP worker."""
    words = common.cmdline(pid)
    if pid in server.shim_workers():
        return "HTTP worker"
    command = words[words.index("evidence_grpc.cli") + 1] if "evidence_grpc.cli" in words[:-1] \
        else ""
    if command == "grpc" and pid not in common.children(server.process.pid):
        return "gRPC worker"  # forked by the `grpc` command
    return command or " ".join(words)[-30:] or "?"


def measure(server: common.Server, label: str, read: Callable[[], tuple[int, int]],
            reads: int, most_mib: float) -> bool:
    """Reset every server process's peak, run `read` `reads` times, print time, size and each
    process's growth; whether none grew by more than `most_mib`."""
    pids = common.descendants([server.process.pid])
    before = {pid: status_kib(pid).get("VmRSS", 0) for pid in pids}
    for pid in pids:
        reset_peak(pid)
    timings, size, items = [], 0, 0
    for _ in range(reads):
        started = time.monotonic()
        size, items = read()
        timings.append(time.monotonic() - started)
    print(f"\n{label}: {items} trails, {size / MIB:.1f} MiB, "
          f"{' / '.join(f'{t:.1f}' for t in timings)} s")
    print(f"  {'pid':>7} {'process':<16} {'RSS before':>11} {'peak':>9} {'growth':>9}")
    worst = 0.0
    for pid in pids:
        after = status_kib(pid)
        if not after:
            continue
        growth = (after["VmHWM"] - before[pid]) / 1024
        worst = max(worst, growth)
        print(f"  {pid:>7} {role(pid, server):<16} {before[pid] / 1024:>9.1f} M "
              f"{after['VmHWM'] / 1024:>7.1f} M {growth:>7.1f} M", flush=True)
    ok = worst <= most_mib
    print(f"  largest growth {worst:.1f} MiB: {'within' if ok else 'OVER'} {most_mib:.0f} MiB")
    return ok


def read_rest(server: common.Server) -> tuple[int, int]:
    """(bytes, trails) of the unpaged list, read in 1 MiB pieces and never held whole."""
    host, port = server.rest.rsplit(":", 1)
    import http.client

    conn = http.client.HTTPConnection(host, int(port), timeout=600)
    try:
        conn.request("GET", f"/api/v2/trails/{ORG}/{FLOW}", headers=AUTH)
        response = conn.getresponse()
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status} {response.read()[:300]!r}")
        size, items, first, last = 0, 0, b"", b""
        while piece := response.read(MIB):
            first = first or piece[:1]
            last = piece[-1:]
            size += len(piece)
            items += piece.count(b'"compliance_status"')
        if (first, last) != (b"[", b"]"):
            raise RuntimeError("the answer is not one JSON array")
        return size, items
    finally:
        conn.close()


def read_grpc(server: common.Server, unary: bool) -> tuple[int, int]:
    import grpc

    from evidence_grpc.api.v2 import trail_service_pb2 as pb
    from evidence_grpc.api.v2 import trail_service_pb2_grpc as pb_grpc

    metadata = (("authorization", AUTH["Authorization"]),)
    options = [("grpc.max_receive_message_length", 1024 * MIB)]
    with grpc.insecure_channel(server.grpc, options=options) as channel:
        stub = pb_grpc.TrailServiceStub(channel)
        if unary:
            whole = stub.ListFlowTrails(pb.ListFlowTrailsRequest(org=ORG, flow_name=FLOW),
                                        metadata=metadata, timeout=600)
            return whole.ByteSize(), len(whole.data)
        size = items = 0
        for chunk in stub.StreamFlowTrails(pb.StreamFlowTrailsRequest(org=ORG, flow_name=FLOW),
                                           metadata=metadata, timeout=600):
            size += chunk.ByteSize()
            items += len(chunk.data)
        return size, items


def seed(server: common.Server, trails: int) -> None:
    """One trail begun through REST, copied (row and event) to `trails` trails in bulk."""
    data = {"name": "trail-0000000", "description": "a release of the payments service",
            "git_commit_info": {"sha1": "a" * 40, "message": "change", "author": "Bench <b@x>",
                                "branch": "main", "timestamp": 1_700_000_000}}
    status, body = common.http_call(server.rest, "PUT", f"/api/v2/flows/{ORG}", json.dumps(
        {"name": FLOW, "description": "bench", "template": []}).encode(),
        {**AUTH, "Content-Type": "application/json"})
    common.expect(status, body, (200, 201), "creating the flow")
    form, content_type = common.multipart({"data_json": json.dumps(data)})
    status, body = common.http_call(server.rest, "PUT", f"/api/v2/trails/{ORG}/{FLOW}", form,
                                    {**AUTH, "Content-Type": content_type})
    common.expect(status, body, (200, 201), "beginning the trail")

    from evidence_grpc.storage.db import database, init_database
    from evidence_grpc.storage.models import Trail, TrailEvent

    init_database(server.database_url)
    started = time.monotonic()
    with database.connection_context(), database.atomic():
        template = Trail.select().where(Trail.name == data["name"]).dicts().get()
        event = TrailEvent.select().where(TrailEvent.trail == template["id"]).dicts().get()
        trail_fields = [f for f in Trail._meta.sorted_fields if f.name != "id"]
        event_fields = [f for f in TrailEvent._meta.sorted_fields if f.name != "id"]
        rows = [tuple({**template, "name": f"trail-{i:07d}", "created_at": template["created_at"]
                       + i}[f.name] for f in trail_fields) for i in range(1, trails)]
        for start in range(0, len(rows), 1000):
            Trail.insert_many(rows[start:start + 1000], fields=trail_fields).execute()
        ids = [i for (i,) in Trail.select(Trail.id).where(
            (Trail.flow == template["flow"]) & (Trail.id != template["id"])).tuples()]
        events = [tuple({**event, "trail": i}[f.name] for f in event_fields) for i in ids]
        for start in range(0, len(events), 1000):
            TrailEvent.insert_many(events[start:start + 1000], fields=event_fields).execute()
    print(f"  seeded {trails} trails with an event each in {time.monotonic() - started:.1f} s",
          flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trails", type=int, default=100_000, help="trails of the flow (100,000)")
    p.add_argument("--reads", type=int, default=2, help="reads of each kind (2)")
    p.add_argument("--grpc", choices=("stream", "unary"), default="stream",
                   help="gRPC's StreamFlowTrails (default) or the unary ListFlowTrails")
    p.add_argument("--most-mib", type=float, default=100.0,
                   help="the growth no process may pass (100 MiB)")
    common.add_run_options(p, "(not used)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    results: list[Any] = []
    with common.bench_server("bench_memory", args, f"{args.trails} trails", ORG, KEY) as (
            server, _):
        seed(server, args.trails)
        results.append(measure(server, "REST GET /api/v2/trails/acme/bench (unpaged)",
                               lambda: read_rest(server), args.reads, args.most_mib))
        method = "ListFlowTrails (unpaged)" if args.grpc == "unary" else "StreamFlowTrails"
        results.append(measure(server, f"gRPC {method}",
                               lambda: read_grpc(server, args.grpc == "unary"), args.reads,
                               args.most_mib))
    print(f"\nfinished in {time.monotonic() - started:.0f} s")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
