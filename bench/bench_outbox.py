"""Outbox throughput: notifications delivered per second to a receiver on 127.0.0.1.

Fills the outbox of a fresh database with `--count` notifications of one WEBHOOK action (as
environment reports would), then runs the delivery worker (in process, with loopback allowed
explicitly) until every one is delivered, and prints deliveries per second. Target of issue
10: at least 200 per second.

    python bench/bench_outbox.py [--count 2000] [--concurrency 16] [--database-url URL]
"""

from __future__ import annotations

import argparse
import http.server
import sys
import tempfile
import threading
import time

from _common import ROOT, use_source

use_source(ROOT)

from evidence_grpc import delivery  # noqa: E402
from evidence_grpc.domain.identity import organizations  # noqa: E402
from evidence_grpc.domain.outbound import actions  # noqa: E402
from evidence_grpc.domain.outbound import targets as outbound  # noqa: E402
from evidence_grpc.storage import db as storage  # noqa: E402
from evidence_grpc.storage.models import Environment, OutboxMessage  # noqa: E402


class Counter(http.server.BaseHTTPRequestHandler):
    count = 0
    lock = threading.Lock()

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers["Content-Length"]))
        with Counter.lock:
            Counter.count += 1
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--database-url", default=None, help="postgresql://... (default: SQLite)")
    args = p.parse_args()
    http.server.ThreadingHTTPServer.request_queue_size = 256  # the default 5 resets bursts
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counter)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    outbound.configure(outbound.Policy(allow_loopback=True))
    with tempfile.TemporaryDirectory() as tmp:
        storage.init_database(args.database_url or f"sqlite:///{tmp}/bench.db")
        storage.migrate()
        with storage.database.connection_context():
            organizations.bootstrap({"organizations": [{"name": "acme"}]})
            org = organizations.Organization.get(name="acme")
            stamp = time.time()
            with storage.write_transaction():
                Environment.create(organization=org, name="prod", type="server",
                                   created_at=stamp, last_modified_at=stamp)
                action, _ = actions.put_action(org, "bench", "env", {
                    "name": "bench", "environments": ["prod"], "triggers": ["ON_STARTED_ARTIFACT"],
                    "targets": [{"type": "WEBHOOK",
                                 "webhook": f"http://127.0.0.1:{receiver.server_port}/hook"}]})
                rows = [{"action": action.id, "target_index": 0, "trigger": "ON_STARTED_ARTIFACT",
                         "payload": {"n": n}, "created_at": stamp, "next_attempt_at": stamp}
                        for n in range(args.count)]
                for start in range(0, len(rows), 500):
                    OutboxMessage.insert_many(rows[start:start + 500]).execute()
        stop = threading.Event()
        worker = threading.Thread(target=delivery.run, args=(stop,),
                                  kwargs={"concurrency": args.concurrency, "idle_seconds": 0.01})
        started = time.perf_counter()
        worker.start()
        while Counter.count < args.count and time.perf_counter() - started < 300:
            time.sleep(0.01)
        elapsed = time.perf_counter() - started
        stop.set()
        worker.join(30)
        with storage.database.connection_context():
            pending = OutboxMessage.select().where(OutboxMessage.delivered_at.is_null()).count()
    receiver.shutdown()
    print(f"delivered {Counter.count} of {args.count} in {elapsed:.2f} s: "
          f"{Counter.count / elapsed:.0f} deliveries/s (concurrency {args.concurrency}; "
          f"{pending} left undelivered in the outbox)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
