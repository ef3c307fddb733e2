"""The database connection of a call (peewee connections are per thread; handler threads of
the gRPC pool and HTTP workers outlive calls): see storage.db.call_scope."""

from __future__ import annotations

from typing import Any

import grpc

from ..storage.db import call_scope
from .base import Behavior, UnaryInterceptor


class DatabaseInterceptor(UnaryInterceptor):
    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        with call_scope():
            return behavior(request, context)
