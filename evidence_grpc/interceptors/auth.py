"""Authentication and organization access for every evidence.v2 call.

The key comes from `authorization` metadata (Bearer or Basic); a request message with an `org`
field is refused unless the key's user belongs to that organization. Methods marked
`(http_options).anonymous` skip this."""

from __future__ import annotations

import functools
from typing import Any

import grpc

from ..domain import organizations
from .base import Behavior, UnaryInterceptor, method_descriptor


@functools.cache
def _is_anonymous(method: str) -> bool:
    from .._pb.evidence.v2 import options_pb2

    return method_descriptor(method).GetOptions().Extensions[options_pb2.http_options].anonymous


def _authorization(context: grpc.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == "authorization":
            return value
    return None


class AuthInterceptor(UnaryInterceptor):
    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        if _is_anonymous(method):
            return behavior(request, context)
        org = getattr(request, "org", None) if "org" in request.DESCRIPTOR.fields_by_name else None
        caller = organizations.authenticate(_authorization(context), org)
        token = organizations.set_current_caller(caller)
        try:
            return behavior(request, context)
        finally:
            organizations.reset_current_caller(token)
