"""Size limits of uploaded files for every call (see evidence_grpc.uploads): gRPC callers are
held to the limits the REST shim applies while reading a multipart request."""

from __future__ import annotations

from typing import Any

import grpc

from ..uploads import check_uploads
from .base import Behavior, UnaryInterceptor


class LimitsInterceptor(UnaryInterceptor):
    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        check_uploads(request)
        return behavior(request, context)
