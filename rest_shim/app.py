"""The Flask application: one generic view per google.api.http route."""

from __future__ import annotations

import logging
import tempfile
from typing import IO, Any

import grpc
from flask import Flask, Request, Response, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from evidence_grpc.config import Settings
from evidence_grpc.services import service_descriptors

from .backend import Backend, backend_for
from .codec import BodyError
from .errors import error_response, rpc_error_response
from .transcoder import Route, TooLarge, build_request, render, routes_of

log = logging.getLogger(__name__)
FORWARDED_HEADERS = ("authorization", "x-request-id")


class _LimitedFile:
    """A spooled upload that refuses to grow past a limit while it is being read."""

    def __init__(self, limit: int) -> None:
        self._file = tempfile.SpooledTemporaryFile(max_size=512 * 1024)
        self._limit = limit
        self._size = 0

    def write(self, data: bytes) -> int:
        self._size += len(data)
        if self._size > self._limit:
            raise RequestEntityTooLarge(f"A file part is larger than {self._limit} bytes")
        return self._file.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


class EvidenceRequest(Request):
    max_file_bytes = 10 * 1024 * 1024

    def _get_file_stream(self, total_content_length: int | None, content_type: str | None,
                         filename: str | None = None, content_length: int | None = None
                         ) -> IO[bytes]:
        return _LimitedFile(self.max_file_bytes)  # type: ignore[return-value]


def create_app(settings: Settings, backend: Backend | None = None) -> Flask:
    app = Flask("evidence_rest_shim", static_folder=None)
    # Paths match exactly: no rule ends in '/', so strict slashes answer 404 to a trailing
    # slash (never a redirect, never the resource under a second name), as they do to '//'.
    app.url_map.strict_slashes = True
    app.url_map.merge_slashes = False
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    app.config["MAX_FORM_MEMORY_SIZE"] = settings.max_form_field_bytes
    EvidenceRequest.max_file_bytes = settings.max_file_bytes
    app.request_class = EvidenceRequest
    the_backend = backend or backend_for(settings)

    for route in routes_of(service_descriptors()):
        app.add_url_rule(route.rule, endpoint=route.method.full_name,
                         view_func=_view(route, the_backend), methods=[route.http_method])

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        messages = {404: "Not found", 405: "Method not allowed",
                    413: "Request body too large"}
        message = messages.get(error.code or 500, error.name)
        if error.code == 413 and error.description and "larger than" in error.description:
            message = error.description
        return error_response(error.code or 500, message)

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        log.exception("unexpected failure handling %s %s", request.method, request.path)
        return error_response(500, "Internal server error")

    return app


def _view(route: Route, backend: Backend) -> Any:
    def view(**path_values: str) -> Response:
        try:
            message = build_request(route, request, path_values)
        except BodyError as exc:
            return error_response(400, "Input payload validation failed",
                                  {exc.field or "body": str(exc)})
        except TooLarge as exc:
            return error_response(413, str(exc))
        metadata = [(h, request.headers[h]) for h in FORWARDED_HEADERS if h in request.headers]
        try:
            response = backend.call(route.method, message, metadata)
        except grpc.RpcError as error:
            return rpc_error_response(error)
        return render(route, response)

    view.__name__ = route.method.name
    return view
