"""Authentication cost per request with few and with many API keys in the database.

Times `organizations.authenticate` (what the auth interceptor runs on every call) in process,
for a personal key, a service-account key and (for the cost of a miss) an unknown key, with
the database holding `--small` and then `--large` service-account keys. The target of issue
10: the cost with 10,000 keys is unchanged from the cost with 10.

    python bench/bench_auth.py [--small 10] [--large 10000] [--requests 3000] [--database-url URL]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

from _common import ROOT, use_source

use_source(ROOT)

from evidence_grpc.domain.identity import callers, organizations, service_accounts  # noqa: E402
from evidence_grpc.domain.kernel.errors import Unauthenticated  # noqa: E402
from evidence_grpc.storage import db as storage  # noqa: E402
from evidence_grpc.storage.models import ServiceAccountKey  # noqa: E402

PERSONAL = "bench-personal-key-0123456789"


def timed(call: Callable[[], object], requests: int) -> tuple[float, float]:
    """p50 and p99 in microseconds."""
    samples = []
    for _ in range(requests):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1e6)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99) - 1]


def fill(org: organizations.Organization, account: str, keys: int) -> str:
    """`keys` keys of a new account (bulk rows, hashes of random secrets); returns one secret."""
    with storage.write_transaction():
        service_accounts.create_account(org, "bench", account, None, "member")
        secret = service_accounts.create_key(org, "bench", account, "probe", None)["key"]
        found = service_accounts.find_account(org, account)
        stamp = time.time()
        rows = [{"service_account": found.id, "key_id": f"{account}-{i}",
                 "key_hash": callers.hash_key(f"{account}-secret-{i}"),
                 "description": "filler", "created_at": stamp} for i in range(keys - 1)]
        for start in range(0, len(rows), 500):
            ServiceAccountKey.insert_many(rows[start:start + 500]).execute()
    return secret


def row(label: str, keys: int, numbers: tuple[float, float]) -> None:
    print(f"{label:<28} {keys:>7} keys   p50 {numbers[0]:8.1f} µs   p99 {numbers[1]:8.1f} µs")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--small", type=int, default=10)
    p.add_argument("--large", type=int, default=10_000)
    p.add_argument("--requests", type=int, default=3000)
    p.add_argument("--database-url", default=None, help="postgresql://... (default: SQLite)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        storage.init_database(args.database_url or f"sqlite:///{tmp}/bench.db")
        storage.migrate()
        organizations.bootstrap({"organizations": [{"name": "acme"}], "users": [
            {"name": "alice", "organizations": ["acme"], "api_keys": [{"key": PERSONAL}]}]})
        org = organizations.Organization.get(name="acme")
        total = 0
        for keys in (args.small, args.large):
            secret = fill(org, f"sa-{keys}", keys - total if keys > total else 1)
            total = max(total, keys)

            def unknown() -> None:
                try:
                    organizations.authenticate("Bearer not-a-key-at-all-0123456789", "acme")
                except Unauthenticated:
                    pass

            row("personal key", total, timed(
                lambda: organizations.authenticate(f"Bearer {PERSONAL}", "acme"), args.requests))
            row("service-account key", total, timed(
                lambda s=secret: organizations.authenticate(f"Bearer {s}", "acme"),
                args.requests))
            row("unknown key (refused)", total, timed(unknown, args.requests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
