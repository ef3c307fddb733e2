"""The delivery worker: takes due notifications from the outbox and sends them, several at
a time, until stopped. Any number of workers may run against one database (claims never
overlap); `evidence-server serve` starts one, `evidence-server deliver` runs one alone."""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from . import observability
from .domain import actions
from .storage.db import call_scope, database
from .storage.models import Action, OutboxMessage

log = logging.getLogger(__name__)


def deliver_due(pool: ThreadPoolExecutor, batch: int = 64) -> int:
    """Claim one batch of due notifications, send them concurrently (no database connection
    held while waiting on the network) and record the outcomes; how many were claimed."""
    claimed = actions.claim(batch)
    if claimed:
        owners = actions.actions_of(claimed)
        errors = list(pool.map(lambda m: _attempt(m, owners.get(m.action_id)), claimed))
        actions.record_outcomes(list(zip(claimed, errors, strict=True)))
        for error in errors:
            observability.observe_delivery(error is None)
    return len(claimed)


def _attempt(message: OutboxMessage, action: Action | None) -> str | None:
    try:
        return actions.attempt(message, action)
    except Exception as exc:  # a worker must outlive any one notification
        log.exception("delivering notification %s failed", message.id)
        return f"internal error: {type(exc).__name__}"


def run(stop: threading.Event, *, concurrency: int = 16, idle_seconds: float = 0.5,
        count_seconds: float = 5.0) -> None:
    """Deliver until `stop` is set: straight on while there is work, else poll; the outbox's
    pending and abandoned notifications are counted for /metrics every `count_seconds`.
    Each poll is a call_scope: on SQLite the loop's connection stays open between polls (an
    idle server's polls cost a query each, not a connection each), and is closed after a
    failed poll and at the end."""
    counted = -count_seconds
    with ThreadPoolExecutor(concurrency, thread_name_prefix="deliver") as pool:
        try:
            while not stop.is_set():
                try:
                    with call_scope():
                        busy = deliver_due(pool, batch=concurrency * 4)
                        if time.monotonic() - counted >= count_seconds:
                            counted = time.monotonic()
                            observability.observe_outbox(actions.outbox_counts())
                except Exception:
                    log.exception("claiming notifications failed; trying again")
                    database.close()
                    busy = 0
                if not busy:
                    stop.wait(idle_seconds)
        finally:
            database.close()
