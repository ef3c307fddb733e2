"""Instructions per kept read, counted by valgrind: steady however busy the machine is, where
CPU times on a shared 2-core box move by 2x within minutes.

    python bench/bench_instructions.py [--source OTHER_CHECKOUT] [--calls 500]

For each kind of call it runs this script under `valgrind --tool=cachegrind` twice, making 100
and 100 + CALLS calls after the same set-up and warm-up, and prints the difference per call:
`grpc` is GetTrail through the interceptor chain the gRPC server runs (a kept trail, as
`bench_round_trips.py` makes it), `ready` GetReadiness through it, `rest` and `rest-ready` the
REST GET of the trail and `/ready` through the Flask app's test client (whose own work is in
both). The process logs as a server does (JSON lines, to a file) and keeps its metrics in
multiprocess files, so an access line and the metrics are counted too. The gRPC server's own
work around a call (threads, HTTP/2) is not: compare `bench_trails.py`'s "srv ms/req".
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from _common import ROOT, use_source

KINDS = ("grpc", "ready", "rest", "rest-ready")
BASE_CALLS = 100


def calls_of(kind: str, tmp: str) -> Callable[[], Any]:
    """Set up a database with one kept trail in `tmp`; the call of that kind."""
    from bench_round_trips import AUTH, KEY, seed

    from evidence_grpc import observability
    from evidence_grpc.api.v2 import readiness_service_pb2 as ready_pb
    from evidence_grpc.api.v2 import trail_service_pb2 as pb
    from evidence_grpc.config import Settings
    from evidence_grpc.domain.identity import organizations
    from evidence_grpc.services import intercepted_handlers
    from evidence_grpc.storage import db as storage
    from rest_shim.app import create_app
    from rest_shim.backend import LocalContext

    with open(f"{tmp}/server.log", "w") as log:
        os.dup2(log.fileno(), 2)
    observability.configure_logging("json")
    url = f"sqlite:///{tmp}/bench.db"
    storage.init_database(url)
    storage.migrate()
    organizations.bootstrap({"organizations": [{"name": "acme"}], "users": [
        {"name": "alice", "organizations": ["acme"], "api_keys": [{"key": KEY}]}]})
    settings = Settings(database_url=url, public_url="http://evidence.test",
                        log_key_file=f"{tmp}/log.key")
    client = create_app(settings).test_client()
    seed(client)
    handlers = intercepted_handlers(settings, "network")
    get_trail = handlers["/evidence.v2.TrailService/GetTrail"].unary_unary
    readiness = handlers["/evidence.v2.ReadinessService/GetReadiness"].unary_unary
    trail = pb.GetTrailRequest(org="acme", flow_name="bench", trail_name="t1")
    metadata = (("authorization", AUTH["Authorization"]),)
    return {
        "grpc": lambda: get_trail(trail, LocalContext(metadata)),
        "ready": lambda: readiness(ready_pb.GetReadinessRequest(), LocalContext(())),
        "rest": lambda: client.get("/api/v2/trails/acme/bench/t1", headers=AUTH),
        "rest-ready": lambda: client.get("/ready"),
    }[kind]


def run_calls(kind: str, calls: int) -> None:
    """The process valgrind counts: set up, warm up, then `calls` calls."""
    in_memory = "/dev/shm" if os.path.isdir("/dev/shm") else None  # as servers keep them
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory(dir=in_memory) as metrics:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics
        call = calls_of(kind, tmp)
        for _ in range(30):  # kept, and everything made once is made
            call()
        for _ in range(calls):
            call()


def instructions(source: pathlib.Path, kind: str, calls: int) -> int:
    """Instructions of a whole run of this script making `calls` calls."""
    ran = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, __file__, "--source", str(source), "--run", kind, str(calls)],
        capture_output=True, text=True, check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", ran.stderr)
    assert found, ran.stderr[-2000:]
    return int(found.group(1).replace(",", ""))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", type=pathlib.Path, default=ROOT,
                   help="measure another checkout's code")
    p.add_argument("--calls", type=int, default=500, help="calls counted of each kind (500)")
    p.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated of {','.join(KINDS)}")
    p.add_argument("--run", nargs=2, metavar=("KIND", "CALLS"), help=argparse.SUPPRESS)
    args = p.parse_args()
    source = args.source.resolve()
    use_source(source)
    if args.run:
        run_calls(args.run[0], int(args.run[1]))
        return 0
    print(f"instructions per call, {source}")
    for kind in args.kinds.split(","):
        base = instructions(source, kind, BASE_CALLS)
        more = instructions(source, kind, BASE_CALLS + args.calls)
        print(f"{kind:<12} {(more - base) // args.calls:>10,}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
