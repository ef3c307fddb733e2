"""Delivery you can bound (both engines, real sockets on 127.0.0.1, loopback allowed
explicitly): a receiver trickling its answer a byte at a time is cut off at the delivery
deadline, over HTTP, TLS and SMTP alike, and counts as a failed attempt retried later; it never
delays another organization's notification; organizations take turns in claims; and leases are
fenced: a worker whose lease ran out neither sends nor records, so two workers never deliver one
notification twice."""

from __future__ import annotations

import collections
import http.server
import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from evidence_grpc import delivery
from evidence_grpc.domain.outbound import actions
from evidence_grpc.domain.outbound import targets as outbound
from evidence_grpc.storage.db import now
from evidence_grpc.storage.models import OutboxMessage
from tests.conftest import ALICE_KEY, BOB_KEY, bearer

DEADLINE = 1.0  # the outbound timeout of these tests (5 s by default)
DRIP = 0.5  # seconds between two bytes of a trickling receiver: each read gets one in time


class Trickler:
    """A receiver on 127.0.0.1 that answers every connection with `answer`, one byte every
    DRIP seconds, and keeps each connection's (opened, closed, bytes sent), by the wall clock
    the service records with: a sender that is cut off closes before the whole answer was sent."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.held: list[tuple[float, float, int]] = []
        self.dripping: list[threading.Thread] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed
                return
            dripping = threading.Thread(target=self._drip, args=(connection,), daemon=True)
            self.dripping.append(dripping)
            dripping.start()

    def _drip(self, connection: socket.socket) -> None:
        opened, sent = time.time(), 0
        with connection:
            try:
                for byte in self.answer:
                    connection.sendall(bytes([byte]))
                    sent += 1
                    readable, _, _ = select.select([connection], [], [], DRIP)
                    if readable and not connection.recv(65536):  # the request, or its end
                        break
            except OSError:  # reset by the sender
                pass
        self.held.append((opened, time.time(), sent))

    def cut_off(self) -> bool:
        """Whether every sender gave up before the whole answer was sent (which takes
        len(answer) * DRIP seconds, far beyond the deadline)."""
        return all(sent < len(self.answer) for _, _, sent in self.held)

    def close(self) -> None:
        """Stop accepting, and wait for each connection's record (its sender is done: a busy
        machine may not have run the thread that keeps it yet)."""
        self.listener.close()
        for dripping in self.dripping:
            dripping.join(10)


class Receiver:
    """An HTTP server on 127.0.0.1 answering each POST 200 after `delay` seconds, and keeping
    the fingerprint of each notification with the (wall clock) time it arrived."""

    def __init__(self, delay: float = 0.0) -> None:
        arrived: list[tuple[str, float]] = []
        self.arrived = arrived

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                arrived.append((body["artifact"]["fingerprint"], time.time()))
                time.sleep(delay)
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def loopback() -> Iterator[None]:
    outbound.configure(outbound.Policy(allow_loopback=True, timeout_seconds=DEADLINE))
    yield
    outbound.configure(outbound.Policy())


def watch(client, org: str, key: str, targets: list[dict[str, Any]]) -> None:
    """Environment `prod` of `org` and an action sending its started artifacts to `targets`."""
    assert client.put(f"/api/v2/environments/{org}", headers=bearer(key), json={
        "name": "prod", "type": "server", "description": ""}).status_code in (200, 201)
    answer = client.put(f"/api/v2/actions/{org}/environments", headers=bearer(key), json={
        "name": "watch", "targets": targets, "environments": ["prod"],
        "triggers": ["ON_STARTED_ARTIFACT"]})
    assert answer.status_code == 201, answer.get_json()


def report(client, org: str, key: str, fingerprints: list[str]) -> None:
    """A snapshot of `prod` starting one artifact per fingerprint: a notification each."""
    answer = client.put(f"/api/v2/environments/{org}/prod/report/server", headers=bearer(key),
                        json={"artifacts": [{"digests": {f"app-{fp[:6]}": fp},
                                             "creationTimestamp": 5} for fp in fingerprints]})
    assert answer.status_code in (200, 201), answer.get_json()


def fingerprints(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{n:02d}".ljust(64, "0") for n in range(count)]


def action_of(client, org: str, key: str) -> dict[str, Any]:
    return client.get(f"/api/v2/actions/{org}/1", headers=bearer(key)).get_json()


def wait_until(done: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.02)


# ---- the deadline of one delivery ------------------------------------------------------------

def test_a_trickling_receiver_is_cut_off_and_never_delays_another_organization(client,
                                                                               loopback):
    """The tester's case: one byte every 0.5 s with a 1 s timeout held a delivery for as long
    as the receiver liked, and another organization's notification waited behind it."""
    trickler = Trickler(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    fast = Receiver()
    watch(client, "acme", ALICE_KEY, [{"type": "WEBHOOK",
                                       "webhook": f"http://127.0.0.1:{trickler.port}/hook"}])
    watch(client, "other", BOB_KEY, [{"type": "WEBHOOK", "webhook": fast.url}])
    report(client, "acme", ALICE_KEY, fingerprints("a", 4))  # a backlog, the oldest first
    report(client, "other", BOB_KEY, fingerprints("b", 1))
    stop = threading.Event()
    worker = threading.Thread(target=delivery.run, args=(stop,),
                              kwargs={"concurrency": 2, "idle_seconds": 0.05})
    worker.start()
    tried = OutboxMessage.select().where(OutboxMessage.attempts > 0)
    try:
        wait_until(lambda: tried.count() == 5 and len(trickler.held) == 4, 8 * DEADLINE + 5)
    finally:
        stop.set()
        worker.join(DEADLINE + 5)
        trickler.close()
        fast.close()

    # Told by the order of events, not by the clock (a busy machine stretches every step):
    # the other organization's notification arrived while the first trickled delivery was
    # still held, and was recorded as delivered before it gave up ...
    [(_, arrived)] = fast.arrived
    first_cut = min(closed for _, closed, _ in trickler.held)
    assert arrived < first_cut
    [delivered] = OutboxMessage.select().where(OutboxMessage.delivered_at.is_null(False))
    assert delivered.delivered_at < first_cut
    # ... and the sender it freed took the next trickled one at once: two trickled deliveries
    # were held at the same time, and each one was cut off, never waited out.
    spans = sorted((opened, closed) for opened, closed, _ in trickler.held)
    assert spans[1][0] < spans[0][1]
    assert trickler.cut_off()
    waiting = OutboxMessage.select().where(OutboxMessage.delivered_at.is_null())
    assert len(waiting) == 4
    for message in waiting:  # failed attempts, retried after the usual backoff
        assert message.attempts == 1 and "timed out" in message.last_error
        assert message.next_attempt_at > now() and message.abandoned_at is None
    assert action_of(client, "acme", ALICE_KEY)["is_failing"] is True
    assert action_of(client, "other", BOB_KEY)["is_failing"] is False


def test_tls_handshakes_and_smtp_servers_are_cut_off_at_the_deadline_too(client, loopback):
    # A TLS record header promising 16 KiB, then its bytes one at a time; an SMTP greeting too.
    tls = Trickler(b"\x16\x03\x03\x40\x00" + bytes(60))
    smtp = Trickler(b"220 slow.example ESMTP at a byte a time\r\n")
    actions.configure_smtp(f"smtp://127.0.0.1:{smtp.port}")
    try:
        watch(client, "acme", ALICE_KEY, [
            {"type": "WEBHOOK", "webhook": f"https://127.0.0.1:{tls.port}/hook"},
            {"type": "EMAIL", "emails": ["ops@example.com"]}])
        report(client, "acme", ALICE_KEY, fingerprints("c", 1))
        with ThreadPoolExecutor(2) as pool:
            assert delivery.deliver_due(pool) == 2
    finally:
        actions.configure_smtp("")
        tls.close()
        smtp.close()
    assert len(tls.held) == 1 and len(smtp.held) == 1
    assert tls.cut_off() and smtp.cut_off()
    errors = sorted(m.last_error for m in OutboxMessage.select())
    assert errors[0].startswith("POST to 127.0.0.1 failed") and "timed out" in errors[0]
    assert errors[1].startswith("SMTP delivery failed") and "timed out" in errors[1]


# ---- turns between organizations --------------------------------------------------------------

def test_organizations_take_turns_in_claims(client, loopback):
    """One organization's backlog, older than another's notification, does not fill a claim;
    and an organization with notifications in flight waits behind the others."""
    receiver = Receiver()
    try:
        watch(client, "acme", ALICE_KEY, [{"type": "WEBHOOK", "webhook": receiver.url}])
        watch(client, "other", BOB_KEY, [{"type": "WEBHOOK", "webhook": receiver.url}])
    finally:
        receiver.close()
    report(client, "acme", ALICE_KEY, fingerprints("a", 3))
    report(client, "other", BOB_KEY, fingerprints("b", 1))
    org_of = {m.id: m.action.organization.name for m in OutboxMessage.select()}

    assert sorted(org_of[m.id] for m in actions.claim(2)) == ["acme", "other"]
    OutboxMessage.update(claimed_until=0).execute()  # the leases ended
    acme = next(m for m in OutboxMessage.select() if org_of[m.id] == "acme").action.organization_id
    assert [org_of[m.id] for m in actions.claim(1, busy={acme: 1})] == ["other"]
    assert [org_of[m.id] for m in actions.claim(1)] == ["acme"]


# ---- fenced leases ---------------------------------------------------------------------------

def test_two_workers_never_deliver_one_notification_twice(client, loopback, monkeypatch):
    """Worker A claims ten notifications under one lease and sends them one after another, more
    slowly than its lease lasts (as a batch behind slow receivers did); worker B takes what A's
    lease no longer covers when it ends. A sends only what its lease still covers for a whole
    delivery, so each notification arrives once."""
    monkeypatch.setattr(actions, "LEASE_SECONDS", 2.0)
    monkeypatch.setattr(actions, "LEASE_MARGIN_SECONDS", 0.5)
    # a timeout well above the receiver's delay, however busy the machine: no retry
    outbound.configure(outbound.Policy(allow_loopback=True, timeout_seconds=1.0))
    receiver = Receiver(delay=0.25)
    watch(client, "acme", ALICE_KEY, [{"type": "WEBHOOK", "webhook": receiver.url}])
    sent = fingerprints("d", 10)
    report(client, "acme", ALICE_KEY, sent)

    stop = threading.Event()
    worker_b = threading.Thread(target=delivery.run, args=(stop,),
                                kwargs={"concurrency": 4, "idle_seconds": 0.05})
    undelivered = OutboxMessage.select().where(OutboxMessage.delivered_at.is_null())
    try:
        with ThreadPoolExecutor(1) as one_sender:
            worker_a = one_sender.submit(delivery.deliver_due, ThreadPoolExecutor(1), 10)
            wait_until(lambda: OutboxMessage.select().where(
                OutboxMessage.lease_token.is_null()).count() == 0, 5)
            worker_b.start()  # after A's claim: B gets what A's lease no longer covers
            assert worker_a.result(10) == 10
        wait_until(lambda: undelivered.count() == 0, 10)
    finally:
        stop.set()
        if worker_b.is_alive():
            worker_b.join(5)
        receiver.close()

    arrivals = collections.Counter(fingerprint for fingerprint, _ in receiver.arrived)
    assert arrivals == {fingerprint: 1 for fingerprint in sent}
    assert undelivered.count() == 0
    assert all(m.attempts == 1 for m in OutboxMessage.select())


def test_a_worker_whose_lease_was_taken_over_neither_sends_nor_records(client, loopback):
    """A's lease ends while its POST is on its way (a paused process, a clock gone wrong); B
    takes the notification over and delivers it. A's answer (here a failure) changes nothing:
    the notification stays delivered by B, once attempted, and its action is not failing."""
    receiver = Receiver()
    try:
        watch(client, "acme", ALICE_KEY, [{"type": "WEBHOOK", "webhook": receiver.url}])
        report(client, "acme", ALICE_KEY, fingerprints("e", 1))
        [held_by_a] = actions.claim()
        assert actions.still_held(held_by_a)
        OutboxMessage.update(claimed_until=now() - 1).execute()  # what the end of a lease does
        with ThreadPoolExecutor(1) as pool:
            assert delivery.deliver_due(pool) == 1  # worker B
    finally:
        receiver.close()

    assert not actions.still_held(held_by_a)  # A would not send it now
    assert actions.record_outcome(held_by_a, "POST to 127.0.0.1 answered 500") is False
    message = OutboxMessage.get()
    assert message.delivered_at is not None and message.attempts == 1
    assert message.last_error is None
    view = action_of(client, "acme", ALICE_KEY)
    assert view["is_failing"] is False and view.get("last_failure_timestamp") is None
    assert len(receiver.arrived) == 1
