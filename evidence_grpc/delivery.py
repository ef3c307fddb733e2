"""The delivery worker: takes due notifications from the outbox and sends them, several at
a time, until stopped. Any number of workers may run against one database (claims never
overlap); `evidence-server serve` starts one, `evidence-server deliver` runs one alone.

Each notification is sent on its own, within the delivery deadline, and its outcome recorded
as soon as it is known; a sender that finishes takes new work at once. So a slow receiver holds
one sender for at most the deadline, never the recording of other notifications or the next
claim, and organizations take turns in the claims (actions.claim)."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from . import observability
from .domain.outbound import actions
from .storage.db import call_scope, database
from .storage.models import Action, OutboxMessage

log = logging.getLogger(__name__)


def deliver_due(pool: ThreadPoolExecutor, batch: int = 64) -> int:
    """Claim up to `batch` due notifications, send them on `pool` and wait until each one's
    outcome is recorded; how many were claimed. One round of `run`, for tests and tools."""
    sending = _start(pool, batch, Counter())
    wait(sending)
    return len(sending)


def _start(pool: ThreadPoolExecutor, limit: int, busy: Counter[int]) -> dict[Future[None], int]:
    """Claim up to `limit` due notifications and start sending each on `pool`: the futures,
    each with its organization's id. `busy` counts this worker's notifications in flight by
    organization, which wait their turn behind the others'."""
    claimed = actions.claim(limit, busy)
    if not claimed:  # an idle poll costs its one query
        return {}
    owners = actions.actions_of(claimed)
    sending: dict[Future[None], int] = {}
    for message in claimed:
        action = owners.get(message.action_id)
        sending[pool.submit(_deliver, message, action)] = action.organization_id if action else 0
    return sending


def _deliver(message: OutboxMessage, action: Action | None) -> None:
    """Send one claimed notification if its lease still allows, and record the outcome. Each
    database step has a connection of its own: none is held while waiting on the network."""
    try:
        with database.connection_context():
            if not actions.still_held(message):
                log.warning("notification %s is no longer this worker's (its lease ran out, "
                            "or it was deleted): not sent", message.id)
                return
        error = _attempt(message, action)
        observability.observe_delivery(error is None)
        with database.connection_context():
            actions.record_outcome(message, error)
    except Exception:  # a worker must outlive any one notification; its lease will end
        log.exception("notification %s: the outbox could not be read or written", message.id)


def _attempt(message: OutboxMessage, action: Action | None) -> str | None:
    try:
        return actions.attempt(message, action)
    except Exception as exc:  # a worker must outlive any one notification
        log.exception("delivering notification %s failed", message.id)
        return f"internal error: {type(exc).__name__}"


def run(stop: threading.Event, *, concurrency: int = 16, idle_seconds: float = 0.5,
        count_seconds: float = 5.0) -> None:
    """Deliver until `stop` is set, up to `concurrency` notifications in flight: a sender that
    finishes is given new work at once, else the outbox is polled every `idle_seconds`; its
    pending and abandoned notifications are counted for /metrics every `count_seconds`.
    Each claim is a call_scope: on SQLite the loop's connection stays open between polls (an
    idle server's polls cost a query each, not a connection each), and is closed after a
    failed poll and at the end. Stopping waits for the notifications in flight (each bounded
    by the delivery deadline)."""
    counted = -count_seconds
    sending: dict[Future[None], int] = {}  # in flight, each with its organization's id
    with ThreadPoolExecutor(concurrency, thread_name_prefix="deliver") as pool:
        try:
            while not stop.is_set():
                try:
                    with call_scope():
                        if len(sending) < concurrency:
                            sending.update(_start(pool, concurrency - len(sending),
                                                  Counter(sending.values())))
                        if time.monotonic() - counted >= count_seconds:
                            counted = time.monotonic()
                            observability.observe_outbox(actions.outbox_counts())
                except Exception:
                    log.exception("claiming notifications failed; trying again")
                    database.close()
                if sending:  # until a sender is free, or the next poll
                    done, _ = wait(sending, idle_seconds, FIRST_COMPLETED)
                    for finished in done:
                        del sending[finished]
                else:
                    stop.wait(idle_seconds)
        finally:
            database.close()
