"""What one kept read costs, counted rather than timed: the statements the driver sends (each a
round trip on PostgreSQL, BEGIN, COMMIT and the pool's checks too), the CPU of this process and
of the PostgreSQL backend that answered, per call, in process (no HTTP or gRPC server, no
clients: steady on a shared machine).

    python bench/bench_round_trips.py [--calls 2000] [--database-url postgresql://...]
                                      [--source OTHER_CHECKOUT]

It makes one realistic trail (an artifact and six generic attestations, as `bench_trails.py
--evidence`), reads it once so that its answer is kept, then times four calls: REST `GET` of
the trail and `/ready` through the Flask app (the shim over the in-process servicers), and
`GetTrail` and `GetReadiness` through the interceptor chain the gRPC server runs. The backend's
CPU is read from /proc (PostgreSQL on this host); `--source` measures another checkout's code.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import pathlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

from _common import ROOT, scratch_postgres, use_source

KEY = "bench-round-trips-key-0123456789"
AUTH = {"Authorization": f"Bearer {KEY}"}


def seed(client: Any) -> None:
    """Flow `bench`, trail `t1` with an artifact and six attestations (1 KB attachment each)."""
    def ok(response: Any) -> None:
        assert response.status_code in (200, 201), response.data

    ok(client.put("/api/v2/flows/acme", headers=AUTH,
                  json={"name": "bench", "description": "d", "template": []}))
    ok(client.put("/api/v2/trails/acme/bench", headers=AUTH, content_type="multipart/form-data",
                  data={"data_json": json.dumps({"name": "t1", "description": "trail t1"})}))
    fingerprint = f"{1:064x}"
    ok(client.post("/api/v2/artifacts/acme/bench", headers=AUTH, json={
        "fingerprint": fingerprint, "filename": "app-1.tar", "git_commit": f"{1:040x}",
        "build_url": "https://ci.example/builds/1", "trail_name": "t1",
        "commit_url": f"https://git.example/acme/app/commit/{1:040x}"}))
    for a in range(6):
        ok(client.post("/api/v2/attestations/acme/bench/trail/t1/generic", headers=AUTH, data={
            "data_json": json.dumps({
                "attestation_name": f"check-{a}", "is_compliant": a != 5,
                "artifact_fingerprint": fingerprint if a % 2 else None,
                "annotations": {"report_url": f"https://reports.example/1/{a}", "run": str(a)},
                "user_data": {"tool": "scanner", "findings": a,
                              "rules": [f"rule-{r}" for r in range(8)],
                              "summary": f"check {a}: " + "x" * 120}}),
            "attachment_file": (io.BytesIO(bytes(range(256)) * 4), f"report-{a}.txt")}))


def recording(database: Any, sent: list[str]) -> None:
    """Every statement the driver sends on connections opened from now on goes to `sent`."""
    import peewee
    import psycopg2.extensions

    if isinstance(database, peewee.PostgresqlDatabase):
        class Recording(psycopg2.extensions.cursor):
            def execute(self, sql: Any, params: Any = None) -> Any:
                sent.append(sql)
                return super().execute(sql, params)

        database.connect_params["cursor_factory"] = Recording
        return
    opened = database._connect

    def connect() -> Any:
        conn = opened()
        conn.set_trace_callback(sent.append)
        return conn

    database._connect = connect


def backend_cpu(pid: int | None) -> float:
    """CPU seconds of a local PostgreSQL backend so far (0 when there is none)."""
    if pid is None:
        return 0.0
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def database_url(admin_url: str | None, directory: str) -> Iterator[str]:
    if admin_url:
        with scratch_postgres(admin_url, "bench_round_trips") as url:
            yield url
    else:
        yield f"sqlite:///{directory}/bench.db"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000, help="calls timed of each kind (2000)")
    p.add_argument("--database-url", default=None,
                   help="postgresql://... of an existing database: a new database is made on "
                        "that server for the run and dropped after it (default: SQLite)")
    p.add_argument("--source", type=pathlib.Path, default=ROOT,
                   help="measure another checkout's code")
    args = p.parse_args()
    use_source(args.source.resolve())
    from evidence_grpc.api.v2 import readiness_service_pb2 as ready_pb
    from evidence_grpc.api.v2 import trail_service_pb2 as pb
    from evidence_grpc.config import Settings
    from evidence_grpc.domain.identity import organizations
    from evidence_grpc.services import intercepted_handlers
    from evidence_grpc.storage import db as storage
    from rest_shim.app import create_app
    from rest_shim.backend import LocalContext

    with tempfile.TemporaryDirectory() as tmp, database_url(args.database_url, tmp) as url:
        database = storage.init_database(url)
        storage.migrate()
        organizations.bootstrap({"organizations": [{"name": "acme"}], "users": [
            {"name": "alice", "organizations": ["acme"], "api_keys": [{"key": KEY}]}]})
        storage.release_connections()
        sent: list[str] = []
        recording(database, sent)
        settings = Settings(database_url=url, public_url="http://evidence.test",
                            log_key_file=f"{tmp}/log.key")
        client = create_app(settings).test_client()
        seed(client)
        handlers = intercepted_handlers(settings, "in-process")
        get_trail = handlers["/evidence.v2.TrailService/GetTrail"].unary_unary
        readiness = handlers["/evidence.v2.ReadinessService/GetReadiness"].unary_unary
        trail = pb.GetTrailRequest(org="acme", flow_name="bench", trail_name="t1")
        metadata = (("authorization", AUTH["Authorization"]),)
        calls: dict[str, Callable[[], Any]] = {
            "REST GET trail": lambda: client.get("/api/v2/trails/acme/bench/t1", headers=AUTH),
            "REST /ready": lambda: client.get("/ready"),
            "GetTrail (chain)": lambda: get_trail(trail, LocalContext(metadata)),
            "GetReadiness (chain)": lambda: readiness(ready_pb.GetReadinessRequest(),
                                                      LocalContext(())),
        }
        backend = None
        if url.startswith("postgresql"):
            with storage.database.connection_context():
                backend = storage.database.execute_sql("SELECT pg_backend_pid()").fetchone()[0]
        print(f"{'call':<22} {'statements':>10} {'cpu ms':>8} {'backend ms':>10}  sent")
        for name, call in calls.items():
            for _ in range(20):  # kept, and the connection has what it prepares
                call()
            sent.clear()
            call()
            one = list(sent)
            cpu, server = time.process_time(), backend_cpu(backend)
            for _ in range(args.calls):
                call()
            cpu, server = time.process_time() - cpu, backend_cpu(backend) - server
            shown = [sql.split("(")[0][:40] if isinstance(sql, str) else sql for sql in one]
            print(f"{name:<22} {len(one):>10} {1e3 * cpu / args.calls:>8.3f} "
                  f"{1e3 * server / args.calls:>10.3f}  {shown}", flush=True)
        storage.release_connections()
    return 0


if __name__ == "__main__":
    sys.exit(main())
