"""What the largest answers cost each server process in memory: an unpaged list (a flow's
trails, or the organization's environments), read whole through REST and through gRPC.

Run by hand (not a test):

    python bench/bench_memory.py                       # 100,000 trails, SQLite
    python bench/bench_memory.py --database-url postgresql://postgres@127.0.0.1:55432/postgres
    python bench/bench_memory.py --list environments   # 100,000 environments instead
    python bench/bench_memory.py --grpc unary          # gRPC's unary list instead of its stream
    python bench/bench_memory.py --source /path/to/older/checkout --grpc unary   # before

It starts its own `evidence-server serve` (default process counts) on a new SQLite database
(or a new database on the PostgreSQL server of --database-url, dropped after the run) and
seeds --items items of the list in bulk (peewee insert_many from this process), copying one
made through REST: for trails, one trail begun (a description, a commit, one event) in flow
`bench`; for environments, one server environment reported once (one artifact), copied with
its snapshot, so that each has a state. Then it reads the list's REST route unpaged --reads
times (counting the bytes as they come, never holding the answer) and its gRPC stream
(`StreamFlowTrails`, `StreamEnvironments`; or, with `--grpc unary`, the unary list unpaged)
--reads times. Before each kind of read, every server process's peak RSS is reset
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
from dataclasses import dataclass
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
            reads: int, most_mib: float, items_named: str) -> bool:
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
    print(f"\n{label}: {items} {items_named}, {size / MIB:.1f} MiB, "
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


def read_rest(server: common.Server, listed: Listed) -> tuple[int, int]:
    """(bytes, items) of the unpaged list, read in 1 MiB pieces and never held whole."""
    host, port = server.rest.rsplit(":", 1)
    import http.client

    conn = http.client.HTTPConnection(host, int(port), timeout=600)
    try:
        conn.request("GET", listed.path, headers=AUTH)
        response = conn.getresponse()
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status} {response.read()[:300]!r}")
        size, items, first, last, tail = 0, 0, b"", b"", b""
        while piece := response.read(MIB):
            first = first or piece[:1]
            last = piece[-1:]
            size += len(piece)
            # a marker may straddle two pieces: the end of the one before, too short to hold
            # one, is counted with this one
            items += (tail + piece).count(listed.marker)
            tail = piece[-(len(listed.marker) - 1):]
        if (first, last) != (b"[", b"]"):
            raise RuntimeError("the answer is not one JSON array")
        return size, items
    finally:
        conn.close()


def read_grpc(server: common.Server, listed: Listed, unary: bool) -> tuple[int, int]:
    import importlib

    import grpc

    pb = importlib.import_module(f"evidence_grpc.api.v2.{listed.service}_pb2")
    pb_grpc = importlib.import_module(f"evidence_grpc.api.v2.{listed.service}_pb2_grpc")
    metadata = (("authorization", AUTH["Authorization"]),)
    options = [("grpc.max_receive_message_length", 1024 * MIB)]
    with grpc.insecure_channel(server.grpc, options=options) as channel:
        stub = getattr(pb_grpc, listed.stub)(channel)
        if unary:
            whole = getattr(stub, listed.unary)(getattr(pb, f"{listed.unary}Request")(
                org=ORG, **listed.fields), metadata=metadata, timeout=600)
            return whole.ByteSize(), len(getattr(whole, listed.items))
        size = items = 0
        for chunk in getattr(stub, listed.stream)(getattr(pb, f"{listed.stream}Request")(
                org=ORG, **listed.fields), metadata=metadata, timeout=600):
            size += chunk.ByteSize()
            items += len(getattr(chunk, listed.items))
        return size, items


def copy_rows(model: Any, template: dict[str, Any], changes: Callable[[int], dict[str, Any]],
              indices: range) -> None:
    """A copy of the row `template` (a dict of `model`'s columns, its id aside) for each i of
    `indices`, changed by `changes(i)`, inserted 1,000 at a time."""
    fields = [f for f in model._meta.sorted_fields if f.name != "id"]
    for start in range(0, len(indices), 1000):
        model.insert_many([tuple({**template, **changes(i)}[f.name] for f in fields)
                           for i in indices[start:start + 1000]], fields=fields).execute()


def seed_trails(server: common.Server, trails: int) -> None:
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

    from evidence_grpc.storage.models import Trail, TrailEvent

    template = Trail.select().where(Trail.name == data["name"]).dicts().get()
    event = TrailEvent.select().where(TrailEvent.trail == template["id"]).dicts().get()
    copy_rows(Trail, template, lambda i: {"name": f"trail-{i:07d}",
                                          "created_at": template["created_at"] + i},
              range(1, trails))
    ids = [i for (i,) in Trail.select(Trail.id).where(
        (Trail.flow == template["flow"]) & (Trail.id != template["id"])).tuples()]
    copy_rows(TrailEvent, event, lambda i: {"trail": ids[i]}, range(len(ids)))


def seed_environments(server: common.Server, environments: int) -> None:
    """One server environment reported once (one artifact) through REST, copied (row and
    snapshot) to `environments` environments in bulk."""
    name = "env-0000000"
    status, body = common.http_call(server.rest, "PUT", f"/api/v2/environments/{ORG}",
                                    json.dumps({"name": name, "type": "server",
                                                "description": "a production host"}).encode(),
                                    {**AUTH, "Content-Type": "application/json"})
    common.expect(status, body, (200, 201), "creating the environment")
    report = {"artifacts": [{"digests": {"app.tgz": "c" * 64},
                             "creationTimestamp": 1_700_000_000}]}
    status, body = common.http_call(server.rest, "PUT",
                                    f"/api/v2/environments/{ORG}/{name}/report/server",
                                    json.dumps(report).encode(),
                                    {**AUTH, "Content-Type": "application/json"})
    common.expect(status, body, (200, 201), "reporting the environment")

    from evidence_grpc.storage.models import Environment, Snapshot

    template = Environment.select().where(Environment.name == name).dicts().get()
    snapshot = Snapshot.select().where(Snapshot.environment == template["id"]).dicts().get()
    copy_rows(Environment, template, lambda i: {"name": f"env-{i:07d}"}, range(1, environments))
    ids = [i for (i,) in Environment.select(Environment.id).where(
        Environment.id != template["id"]).tuples()]
    copy_rows(Snapshot, snapshot, lambda i: {"environment": ids[i]}, range(len(ids)))


@dataclass(frozen=True)
class Listed:
    """An unpaged list: its REST route, a key each item's JSON holds once, its service's
    module and stub, its unary and streaming methods (their requests given `fields`), the
    repeated field of their answers and how it is seeded."""
    path: str
    marker: bytes
    service: str
    stub: str
    unary: str
    stream: str
    fields: dict[str, str]
    items: str
    seed: Callable[[common.Server, int], None]


LISTS = {
    "trails": Listed(f"/api/v2/trails/{ORG}/{FLOW}", b'"compliance_status"', "trail_service",
                     "TrailServiceStub", "ListFlowTrails", "StreamFlowTrails",
                     {"flow_name": FLOW}, "data", seed_trails),
    "environments": Listed(f"/api/v2/environments/{ORG}", b'"include_scaling"',
                           "environment_service", "EnvironmentServiceStub", "ListEnvironments",
                           "StreamEnvironments", {}, "environments", seed_environments),
}


def seed(server: common.Server, listed: Listed, items: int, items_named: str) -> None:
    from evidence_grpc.storage.db import database, init_database

    init_database(server.database_url)
    started = time.monotonic()
    with database.connection_context(), database.atomic():
        listed.seed(server, items)
    print(f"  seeded {items} {items_named} in {time.monotonic() - started:.1f} s", flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--list", choices=sorted(LISTS), default="trails",
                   help="the unpaged list read: a flow's trails (default) or the environments")
    p.add_argument("--items", "--trails", type=int, default=100_000,
                   help="items of the list (100,000)")
    p.add_argument("--reads", type=int, default=2, help="reads of each kind (2)")
    p.add_argument("--grpc", choices=("stream", "unary"), default="stream",
                   help="gRPC's stream (default) or the unary list")
    p.add_argument("--most-mib", type=float, default=100.0,
                   help="the growth no process may pass (100 MiB)")
    common.add_run_options(p, "(not used)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    listed = LISTS[args.list]
    started = time.monotonic()
    results: list[Any] = []
    with common.bench_server("bench_memory", args, f"{args.items} {args.list}", ORG, KEY) as (
            server, _):
        seed(server, listed, args.items, args.list)
        results.append(measure(server, f"REST GET {listed.path} (unpaged)",
                               lambda: read_rest(server, listed), args.reads, args.most_mib,
                               args.list))
        method = f"{listed.unary} (unpaged)" if args.grpc == "unary" else listed.stream
        results.append(measure(server, f"gRPC {method}",
                               lambda: read_grpc(server, listed, args.grpc == "unary"),
                               args.reads, args.most_mib, args.list))
    print(f"\nfinished in {time.monotonic() - started:.0f} s")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
