"""gunicorn's threaded worker, keeping a busy kept-alive connection on its thread.

gunicorn's `gthread` worker hands every request of a kept-alive connection through its main
thread: the finished connection goes back to the poller, the poller wakes when the next
request comes, and the connection is queued to the thread pool again. That is three thread
hand-offs per request, each waiting for the process's GIL: under load, a quarter of the
worker's Python time went to them (2026-11-26, in `git log -p bench/README.md`).

Here a thread that finished a request on a kept-alive connection serves the connection's next
request itself when it arrives within `LINGER` seconds, and no other connection is waiting
for a thread. Otherwise the connection goes back to the poller as before, so a connection
never keeps a thread from a waiting one for longer than `LINGER`, and slow or idle clients
hold no thread at all.

On SIGTERM the worker drains (gunicorn's `gthread` does most of it: it stops accepting, answers
what it is serving and what comes on a kept-alive connection within a short linger, for at most
`graceful_timeout`). Two gaps are closed here. A request that came before the signal and is
answered after it is answered with "Connection: close", so its client sends nothing more on a
connection about to close. And the worker takes the connections the kernel already queued on
its listening socket, then closes it: a client of a queued connection may have sent its request
already, and once the arbiter and every worker closed the socket the kernel refuses new
connections rather than queue ones that nobody accepts and that end in a reset."""

from __future__ import annotations

import select
import threading
from typing import Any

from gunicorn.workers import gthread

# How long a thread waits for the next request of the connection it just served. Clients that
# send requests back to back (CI pipelines, services) send the next one well within this; 0.5,
# 2 and 10 ms gave the same ingest rates.
LINGER = 0.002


class ThreadWorker(gthread.ThreadWorker):
    """`gthread` with connection affinity (see the module's text)."""

    wsgi: Any  # the application, set by gunicorn's load_wsgi

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._waiting = 0  # connections queued for a thread, not yet taken by one
        self._count = threading.Lock()

    def enqueue_req(self, conn: gthread.TConn) -> None:
        with self._count:
            self._waiting += 1
        super().enqueue_req(conn)

    def handle(self, conn: gthread.TConn) -> Any:
        with self._count:
            self._waiting -= 1
        keep = super().handle(conn)
        while keep is True and self._next_request_here(conn):
            keep = super().handle(conn)
        return keep

    def load_wsgi(self) -> None:
        super().load_wsgi()
        app = self.wsgi

        def closing_once_stopped(environ: dict[str, Any], start_response: Any) -> Any:
            """The app, whose answer says "Connection: close" when the worker has stopped by
            the time the answer starts. gthread decides it when a request starts, too early
            for one that began before the signal. Deciding later than the headers would close
            connections their answers had said were kept alive."""
            def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
                if not self.alive:
                    start_response.__self__.force_close()  # gunicorn's Response
                return start_response(status, headers, exc_info)

            return app(environ, start)

        self.wsgi = closing_once_stopped

    def set_accept_enabled(self, enabled: bool) -> None:
        super().set_accept_enabled(enabled)
        if not enabled and not self.alive:  # stopping, never to accept again
            for listener in self.sockets:
                self._take_queued(listener)
                listener.close()

    def _take_queued(self, listener: Any) -> None:
        """Accept the connections waiting on `listener` (non-blocking since the worker started
        accepting) until none is left: gthread's accept takes one, or none when none waits."""
        while True:
            before = self.nr_conns
            self.accept(listener)
            if self.nr_conns == before:
                return

    def _next_request_here(self, conn: gthread.TConn) -> bool:
        """Whether this thread serves the connection's next request itself: it has come, or
        comes within LINGER, while the worker runs and no other connection waits."""
        if not self.alive or self._waiting > 0:
            return False
        if conn.parser.unreader.buf.getvalue():  # read ahead with the last request's body
            return True
        poller = select.poll()  # not select(): descriptors past 1023 are fine
        poller.register(conn.sock, select.POLLIN)
        return bool(poller.poll(LINGER * 1000)) and self._waiting == 0
