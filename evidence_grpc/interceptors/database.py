"""The database connection of a call (peewee connections are per thread; handler threads of
the gRPC pool and HTTP workers outlive calls): see storage.db.call_scope.

A write method (any whose google.api.http rule is not a GET) runs as one transaction: a request
that fails changes nothing, and what it wrote becomes visible to others all at once."""

from __future__ import annotations

import functools
from typing import Any

import grpc
from google.api import annotations_pb2

from ..storage.db import call_scope, retry_on_conflict, write_transaction
from .base import Behavior, UnaryInterceptor, method_descriptor


@functools.cache
def is_write(method: str) -> bool:
    """Whether the method `/package.Service/Method` changes data, read from its http rule."""
    options = method_descriptor(method).GetOptions()
    return options.Extensions[annotations_pb2.http].WhichOneof("pattern") != "get"


class DatabaseInterceptor(UnaryInterceptor):
    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        with call_scope():
            if not is_write(method):
                return behavior(request, context)

            def transaction() -> Any:
                with write_transaction():
                    return behavior(request, context)

            return retry_on_conflict(transaction)
