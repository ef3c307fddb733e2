"""Domain errors become gRPC statuses with ErrorInfo and field violations; anything else
becomes INTERNAL with a generic message and a logged stack trace."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from types import TracebackType
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from ..domain.kernel.errors import DomainError, InvalidArgument
from ..observability import REQUEST_ID_HEADER, request_id
from .base import Behavior, UnaryInterceptor

log = logging.getLogger(__name__)
DOMAIN = "evidence.v2"


class Undecodable:
    """What a request whose bytes are not its message decodes to: grpc deserializes before any
    interceptor runs and answers INTERNAL when the deserializer raises, so the deserializer
    returns this instead and this interceptor answers it INVALID_ARGUMENT."""

    def __init__(self, type_name: str, problem: str) -> None:
        self.type_name = type_name
        self.problem = problem

    @property
    def message(self) -> str:
        why = self.problem.rpartition("': ")[2] or self.problem  # upb names the type again
        return (f"The request is not a valid {self.type_name} protobuf message"
                + (f": {why[:1].lower()}{why[1:]}" if why else ""))


def status_of(error: DomainError) -> status_pb2.Status:
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN,
                                          metadata=error.metadata))
    details = [info]
    if error.errors:
        violations = any_pb2.Any()
        violations.Pack(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=k, description=v)
            for k, v in error.errors.items()]))
        details.append(violations)
    return status_pb2.Status(code=error.code.value[0], message=error.message, details=details)


def _refuse(context: grpc.ServicerContext, status: status_pb2.Status) -> None:
    """End the call with this rich status, and the call's request id beside its details."""
    answer = rpc_status.to_status(status)
    context.abort_with_status(answer._replace(trailing_metadata=(
        *answer.trailing_metadata, (REQUEST_ID_HEADER, request_id.get() or ""))))


class ErrorInterceptor(UnaryInterceptor):
    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        with _Refusing(request, context, method):
            return behavior(request, context)

    def around_stream(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
                      method: str) -> Iterator[Any]:
        with _Refusing(request, context, method):
            yield from behavior(request, context)


class _Refusing:
    """A domain error raised within becomes the call's rich status; anything else INTERNAL.
    A class, not a generator's context manager, which every call would pay several times
    over."""

    __slots__ = ("context", "method")

    def __init__(self, request: Any, context: grpc.ServicerContext, method: str) -> None:
        if isinstance(request, Undecodable):
            _refuse(context, status_of(InvalidArgument(request.message,
                                                       reason="REQUEST_UNDECODABLE")))
        self.context, self.method = context, method

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if isinstance(error, DomainError):
            _refuse(self.context, status_of(error))
        elif isinstance(error, Exception):
            log.error("unexpected failure in %s", self.method, exc_info=error)
            _refuse(self.context, status_pb2.Status(code=code_pb2.INTERNAL,
                                                    message="Internal server error"))
