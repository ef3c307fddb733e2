"""Domain errors become gRPC statuses with ErrorInfo and field violations; anything else
becomes INTERNAL with a generic message and a logged stack trace."""

from __future__ import annotations

import logging
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from ..domain.errors import DomainError
from ..observability import REQUEST_ID_HEADER, request_id
from .base import Behavior, UnaryInterceptor

log = logging.getLogger(__name__)
DOMAIN = "evidence.v2"


def status_of(error: DomainError) -> status_pb2.Status:
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN))
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
        try:
            return behavior(request, context)
        except DomainError as error:
            _refuse(context, status_of(error))
        except Exception:
            log.exception("unexpected failure in %s", method)
            _refuse(context, status_pb2.Status(code=code_pb2.INTERNAL,
                                               message="Internal server error"))
