"""The database connection of a call (peewee connections are per thread; handler threads of
the gRPC pool and HTTP workers outlive calls): see storage.db.call_scope.

A write method (any whose google.api.http rule is not a GET) runs as one transaction: a request
that fails changes nothing, and what it wrote becomes visible to others all at once. The
transaction wraps the servicer alone: authentication and the checks of the request's values
read, and run before it, so that on SQLite they do not hold the one writer's lock."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from ..storage.db import call_scope, read_snapshot, retry_on_conflict, write_transaction
from .base import Behavior, UnaryInterceptor, method_descriptor


@functools.cache
def is_write(method: str) -> bool:
    """Whether the method `/package.Service/Method` changes data, as its `(transaction)` option
    declares (an RPC outside evidence.v2 declares nothing and writes)."""
    from ..api.v2 import options_pb2

    declared = method_descriptor(method).GetOptions().Extensions[options_pb2.transaction]
    return declared != options_pb2.TRANSACTION_READ


class ConnectionInterceptor(UnaryInterceptor):
    """The call's database connection, for every interceptor within and the servicer."""

    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        with call_scope():
            return behavior(request, context)

    def around_stream(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
                      method: str) -> Iterator[Any]:
        with call_scope():
            yield from behavior(request, context)


class TransactionInterceptor(UnaryInterceptor):
    """A write method's servicer in one write transaction, run again on a unique-key race or
    when PostgreSQL rolled it back for a concurrent one; a read method's in one read snapshot
    (storage.db.read_snapshot). Servicers that own their transaction
    (storage.db.owns_transaction) are not wrapped; this interceptor is the innermost, so the
    handler it wraps is the servicer's method itself."""

    def intercept_service(self, continuation: Callable, handler_call_details: Any) -> Any:
        handler = continuation(handler_call_details)
        if handler is not None and getattr(handler.unary_unary, "owns_transaction", False):
            return handler
        return super().intercept_service(lambda _: handler, handler_call_details)

    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        if not is_write(method):
            with read_snapshot():
                return behavior(request, context)

        def transaction() -> Any:
            with write_transaction():
                return behavior(request, context)

        return retry_on_conflict(transaction)

    def around_stream(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
                      method: str) -> Iterator[Any]:
        """A stream reads (a write is one transaction, answered once): every chunk from one
        snapshot, so the chunks together are what one read of the whole would answer."""
        if is_write(method):
            raise TypeError(f"{method} streams its answer: it must be declared a read")
        with read_snapshot():
            yield from behavior(request, context)
