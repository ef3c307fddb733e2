"""Server interceptors: every evidence.v2 call passes errors -> database connection -> auth
-> values (numbers, NUL, upload sizes, the size limits of writes) -> the write transaction of
a write method -> servicer.

The same interceptor objects wrap the handlers of the network server and of the REST shim's
in-process calls, so auth and error mapping have exactly one implementation."""

from __future__ import annotations

import grpc

from .auth import AuthInterceptor
from .database import ConnectionInterceptor, TransactionInterceptor
from .errors import ErrorInterceptor
from .values import ValuesInterceptor


def interceptors() -> list[grpc.ServerInterceptor]:
    """Outermost first, as grpc.server applies them."""
    return [ErrorInterceptor(), ConnectionInterceptor(), AuthInterceptor(), ValuesInterceptor(),
            TransactionInterceptor()]
