"""One database connection per call: peewee connections are per thread, and handler threads
(gRPC pool, HTTP workers) outlive calls."""

from __future__ import annotations

from typing import Any

import grpc

from ..storage.db import database
from .base import Behavior, UnaryInterceptor


class DatabaseInterceptor(UnaryInterceptor):
    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        with database.connection_context():
            return behavior(request, context)
