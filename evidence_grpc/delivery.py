"""The delivery worker: takes due notifications from the outbox and sends them, several at
a time, until stopped. Any number of workers may run against one database (claims never
overlap); `evidence-server serve` starts one, `evidence-server deliver` runs one alone."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

from .domain import actions
from .storage.db import database
from .storage.models import OutboxMessage

log = logging.getLogger(__name__)


def deliver_due(pool: ThreadPoolExecutor, batch: int = 64) -> int:
    """Claim and send one batch of due notifications; how many were claimed."""
    claimed = actions.claim(batch)
    if claimed:
        list(pool.map(_deliver_one, claimed))
    return len(claimed)


def _deliver_one(message: OutboxMessage) -> bool:
    try:
        with database.connection_context():
            return actions.deliver(message)
    except Exception:  # a worker must outlive any one notification
        log.exception("delivering notification %s failed", message.id)
        return False


def run(stop: threading.Event, *, concurrency: int = 16, idle_seconds: float = 0.5) -> None:
    """Deliver until `stop` is set: straight on while there is work, else poll."""
    with ThreadPoolExecutor(concurrency, thread_name_prefix="deliver") as pool:
        while not stop.is_set():
            try:
                with database.connection_context():
                    busy = deliver_due(pool, batch=concurrency * 4)
            except Exception:
                log.exception("claiming notifications failed; trying again")
                busy = 0
            if not busy:
                stop.wait(idle_seconds)
