"""A server interceptor that wraps the unary and server-streaming behaviour of evidence.v2
methods."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
from google.protobuf import descriptor, descriptor_pool

PACKAGE_PREFIX = "/evidence.v2."
Behavior = Callable[[Any, grpc.ServicerContext], Any]


def method_descriptor(method: str) -> descriptor.MethodDescriptor:
    """The descriptor of `/package.Service/Method`, whose options declare what it is."""
    return descriptor_pool.Default().FindMethodByName(method.lstrip("/").replace("/", "."))


class UnaryInterceptor(grpc.ServerInterceptor):
    """Subclasses implement `around` (a unary call) and `around_stream` (a server-streaming
    one: a generator that yields the behaviour's answers, so that what it sets up holds until
    the last of them is sent); health and reflection pass through untouched."""

    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        raise NotImplementedError

    def around_stream(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
                      method: str) -> Iterator[Any]:
        raise NotImplementedError

    def intercept_service(self, continuation: Callable, handler_call_details: Any) -> Any:
        handler = continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or not method.startswith(PACKAGE_PREFIX):
            return handler
        if handler.unary_stream is not None:
            streamed = handler.unary_stream

            def wrapped_stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                return self.around_stream(streamed, request, context, method)

            return handler._replace(unary_stream=wrapped_stream)
        if handler.unary_unary is None:
            return handler
        behavior = handler.unary_unary

        def wrapped(request: Any, context: grpc.ServicerContext) -> Any:
            return self.around(behavior, request, context, method)

        return handler._replace(unary_unary=wrapped)
