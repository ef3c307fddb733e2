"""One mapping from gRPC status to HTTP status and the contract's error body
`{"message": str, "errors": {field: description} | null}`."""

from __future__ import annotations

import grpc
from flask import Response
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from .codec import dumps

# grpc-gateway's table, the de facto standard.
HTTP_STATUS = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}


def error_response(status: int, message: str, errors: dict[str, str] | None = None) -> Response:
    # `errors` is left out when there are none: the kosli CLI prints "<message>: <nil>" for null.
    body: dict[str, object] = {"message": message}
    if errors:
        body["errors"] = errors
    response = Response(dumps(body), status=status, mimetype="application/json")
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="evidence"'
    return response


def rpc_error_response(error: grpc.RpcError, path: str) -> Response:
    """The HTTP answer for a failed call to `path`: its status, message and field violations.
    A caller refused the organization it names (unknown, or not its own) is told as the hosted
    service tells it over HTTP: "Access denied to <path>"."""
    code = error.code() if isinstance(error, grpc.Call) else grpc.StatusCode.UNKNOWN
    message = error.details() if isinstance(error, grpc.Call) else str(error)
    errors: dict[str, str] = {}
    http_status = HTTP_STATUS.get(code, 500)
    status = rpc_status.from_call(error) if isinstance(error, grpc.Call) else None
    if status is not None:
        message = status.message
        for detail in status.details:
            if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad_request = error_details_pb2.BadRequest()
                detail.Unpack(bad_request)
                errors.update({v.field: v.description for v in bad_request.field_violations})
            elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                if info.reason == "PRIVILEGE_REQUIRED":  # which privilege, which fields
                    errors.update(info.metadata)
                elif info.reason == "ORGANIZATION_ACCESS_DENIED":
                    message = f"Access denied to {path}"
                elif info.reason == "LOG_FORKED":  # the server's state, not the request's
                    http_status = 503
    if code == grpc.StatusCode.UNAVAILABLE:
        message = "The evidence service is unavailable"
    return error_response(http_status, message or code.name, errors)
