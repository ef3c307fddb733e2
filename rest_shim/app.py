"""The Flask application: one generic view per google.api.http route."""

from __future__ import annotations

import functools
import itertools
import logging
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import IO, Any

import grpc
from flask import Flask, Response, request
from google.protobuf.message import Message
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge
from werkzeug.wrappers import Request

from evidence_grpc import observability
from evidence_grpc.config import Settings
from evidence_grpc.interceptors import auth
from evidence_grpc.services import service_descriptors

from . import web
from .api_reference import render_reference
from .backend import Backend, backend_for
from .codec import BodyError
from .errors import error_response, rpc_error_response
from .multipart import StrictFormParser
from .openapi import DOCUMENT_PATH
from .transcoder import (
    Route,
    TooLarge,
    build_request,
    path_request,
    render,
    routes_of,
    stream_request,
    streamed_response,
)

log = logging.getLogger(__name__)
REQUEST_ID_KEY = "evidence.request_id"  # the WSGI environ key of the request's id
ROUTE_KEY = "evidence.route"  # ... and of the rule it was routed by
STREAMED_KEY = "evidence.streamed"  # ... and whether its answer is written while it is read


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


class ApiRequest(Request):
    """The request of an API route: werkzeug's own, read without Flask's request context, held
    to the app's limits (the whole body, a form field, a file part)."""

    form_data_parser_class = StrictFormParser

    def __init__(self, environ: dict[str, Any], settings: Settings) -> None:
        super().__init__(environ)
        self.max_content_length = settings.max_request_bytes
        self.max_form_memory_size = settings.max_form_field_bytes
        self.max_file_bytes = settings.max_file_bytes

    def _get_file_stream(self, total_content_length: int | None, content_type: str | None,
                         filename: str | None = None, content_length: int | None = None
                         ) -> IO[bytes]:
        return _LimitedFile(self.max_file_bytes)  # type: ignore[return-value]


View = Callable[[ApiRequest, dict[str, str]], Response]


def create_app(settings: Settings, backend: Backend | None = None) -> Flask:
    app = Flask("evidence_rest_shim", static_folder=None)
    # Paths match exactly: no rule ends in '/', so strict slashes answer 404 to a trailing
    # slash (never a redirect, never the resource under a second name), as they do to '//'.
    app.url_map.strict_slashes = True
    app.url_map.merge_slashes = False
    app.config["MAX_CONTENT_LENGTH"] = settings.max_request_bytes
    app.config["MAX_FORM_MEMORY_SIZE"] = settings.max_form_field_bytes
    the_backend = backend or backend_for(settings)

    # The API's rules are in Flask's one routing table, without a view: _ApiDispatch serves them.
    views: dict[str, View] = {}
    for route in routes_of(service_descriptors()):
        app.add_url_rule(route.rule, endpoint=route.method.full_name, methods=[route.http_method])
        views[route.method.full_name] = _view(route, the_backend)
    _operations(app)
    web.register(app, the_backend, settings)

    app.register_error_handler(HTTPException, http_error_response)

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        return unexpected_response(request.method, request.path)

    app.wsgi_app = _Observed(_ApiDispatch(app, views, settings))  # type: ignore[method-assign]
    return app


def http_error_response(error: HTTPException) -> Response:
    """The contract's error body for a refusal werkzeug raised (routing, body limits)."""
    messages = {404: "Not found", 405: "Method not allowed", 413: "Request body too large"}
    message = messages.get(error.code or 500, error.name)
    if error.code == 413 and error.description and "larger than" in error.description:
        message = error.description
    return error_response(error.code or 500, message)


def unexpected_response(method: str, path: str) -> Response:
    """A 500 for a failure nothing expected; the traceback goes to the log, never the caller."""
    log.exception("unexpected failure handling %s %s", method, path)
    return error_response(500, "Internal server error")


def _view(route: Route, backend: Backend) -> View:
    def view(request: ApiRequest, path_values: dict[str, str]) -> Response:
        metadata = [("x-request-id", request.environ.get(REQUEST_ID_KEY, ""))]
        if "authorization" in request.headers:
            metadata.append(("authorization", request.headers["authorization"]))
        try:
            message = build_request(route, request, path_values)
        except BodyError as exc:
            refused = _refused_caller(route, backend, request.path, path_values, metadata)
            return refused or error_response(400, "Input payload validation failed",
                                             {exc.field or "body": str(exc)})
        except TooLarge as exc:
            return error_response(413, str(exc))
        streamed = stream_request(route, message)
        if streamed is not None:
            return _streamed(route, backend, streamed, metadata, request)
        try:
            response, answer_key = backend.call_keyed(route.method, message, metadata)
        except grpc.RpcError as error:
            return rpc_error_response(error, request.path)
        return render(route, response, answer_key, request.accept_encodings["gzip"] > 0)

    return view


def _streamed(route: Route, backend: Backend, message: Message, metadata: list[tuple[str, str]],
              request: ApiRequest) -> Response:
    """The unpaged list from the route's streaming method: its first chunk is read before the
    answer starts, so a refusal (401, 403, 404) is answered with its status; the rest is
    written while it is read (the request's line is logged when the last is written)."""
    assert route.stream is not None
    try:
        chunks = backend.stream(route.stream, message, metadata)
        first = next(chunks, None)
    except grpc.RpcError as error:
        return rpc_error_response(error, request.path)
    request.environ[STREAMED_KEY] = True
    return streamed_response(route, itertools.chain(() if first is None else (first,), chunks))


def _refused_caller(route: Route, backend: Backend, path: str, path_values: dict[str, str],
                    metadata: list[tuple[str, str]]) -> Response | None:
    """The refusal (401, 403) a caller gets before anything is said of its request's content,
    checked on the path's values alone (see AuthInterceptor's CHECK_METADATA); None when the
    caller may make the call."""
    try:
        backend.call(route.method, path_request(route, path_values),
                     [*metadata, (auth.CHECK_METADATA, "1")])
    except grpc.RpcError as error:
        if error.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
            return rpc_error_response(error, path)
    return None


class _ApiDispatch:
    """WSGI app serving the API's routes straight from werkzeug: Flask's request context (app
    context, session, hooks) cost more per request than the routing and the view's own work.
    Flask's url_map stays the one routing table. What is not an API route, or not routed
    (404, 405, OPTIONS, a redirect), goes to Flask, which answers as it always did; the route
    of every matched request is kept in the environ for the metrics and the access log."""

    def __init__(self, app: Flask, views: dict[str, View], settings: Settings) -> None:
        self.flask_app = app.wsgi_app
        self.url_map = app.url_map
        self.server_name = app.config["SERVER_NAME"]
        self.views = views
        self.settings = settings

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        adapter = self.url_map.bind_to_environ(
            environ, server_name=self.server_name, subdomain=self.url_map.default_subdomain or "")
        try:
            rule, matched = adapter.match(return_rule=True)
            path_values = {name: str(value) for name, value in matched.items()}
        except HTTPException:
            return self.flask_app(environ, start_response)
        environ[ROUTE_KEY] = rule.rule
        view = self.views.get(rule.endpoint)
        if view is None or environ.get("REQUEST_METHOD") == "OPTIONS":
            return self.flask_app(environ, start_response)
        api_request = ApiRequest(environ, self.settings)
        try:
            try:
                response = view(api_request, path_values)
            except HTTPException as error:
                response = http_error_response(error)
            except Exception:
                response = unexpected_response(api_request.method, api_request.path)
            return response(environ, start_response)
        finally:
            api_request.close()


class _Observed:
    """WSGI middleware around the Flask app: the request id (the caller's `x-request-id` or a
    new one, answered back), the access log line and the metrics of every request. Cheaper
    than Flask's request hooks, which cost more than the whole of a `/ready`."""

    def __init__(self, wsgi_app: Any) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        started = time.perf_counter()
        request_id = observability.request_id_of(environ.get("HTTP_X_REQUEST_ID"))
        environ[REQUEST_ID_KEY] = request_id
        token = observability.request_id.set(request_id)
        answer: list[Any] = [500, None]

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers.append(("x-request-id", request_id))
            answer[:] = [int(status[:3]), next((v for k, v in headers if k == "Content-Length"), None)]
            return start_response(status, headers, exc_info)

        def finish() -> None:
            seconds = time.perf_counter() - started
            route = environ.get(ROUTE_KEY, "unmatched")
            method = environ.get("REQUEST_METHOD", "")
            observability.observe_http(method, route, answer[0], seconds)
            observability.access_log.info("request", extra={"fields": {
                "request_id": request_id, "method": method, "path": environ.get("PATH_INFO", ""),
                "route": route, "status": answer[0], "duration_ms": round(seconds * 1000, 3),
                "bytes": int(answer[1]) if answer[1] else None,
                "remote": environ.get("REMOTE_ADDR")}})
            observability.request_id.reset(token)

        try:
            body = self.wsgi_app(environ, start)
        except BaseException:
            finish()
            raise
        if environ.get(STREAMED_KEY):  # still being written: the request ends with it
            return _ending(body, answer, finish)
        finish()
        return body


def _ending(body: Any, answer: list[Any], finish: Callable[[], None]) -> Iterator[bytes]:
    """The body of a streamed answer, which calls `finish` once it is written whole or closed
    (a client gone), after closing the answer (whose close ends the call it streams), with the
    bytes written as the answer's length (`answer[1]`)."""
    written = 0
    try:
        for chunk in body:
            written += len(chunk)
            yield chunk
    finally:
        close = getattr(body, "close", None)
        if close is not None:
            close()
        answer[1] = answer[1] or written
        finish()


def _operations(app: Flask) -> None:
    """/metrics, the OpenAPI document and its reference page (all three without credentials,
    like /ready)."""
    @app.get("/metrics")
    def metrics() -> Response:
        body, content_type = observability.exposition()
        return Response(body, content_type=content_type)

    @app.get("/api/v2/openapi.json")
    def openapi() -> Response:
        return Response(_document_text(), mimetype="application/json")

    @app.get("/api/v2/docs")
    def reference() -> Response:
        return Response(render_reference(_document_text()), mimetype="text/html")


@functools.cache
def _document_text() -> str:
    return DOCUMENT_PATH.read_text()
