"""How the shim reaches the servicers: over a gRPC channel, or in the same process.

Both run the very same interceptors (errors, database, auth) and raise the same kind of
`grpc.RpcError` on failure, so the shim has one path for auth and errors either way. The
in-process backend skips the loopback hop and protobuf (de)serialisation, which costs about
two thirds of the shim's CPU (see bench/ and the PERF notes)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import grpc
from google.protobuf import descriptor, message_factory
from google.protobuf.message import Message

from evidence_grpc.config import Settings
from evidence_grpc.convert import ANSWER_KEY, Answer, Deferred, Encoded
from evidence_grpc.server import grpc_options
from evidence_grpc.services import intercepted_handlers, method_path

Metadata = Sequence[tuple[str, str]]


# Callers authenticated in one HTTP request, by (authorization header, organization): calls a
# page makes in-process with one key share one authentication (see AuthInterceptor).
Authenticated = dict[tuple[str | None, str | None], Any]


class Backend(Protocol):
    def call(self, method: descriptor.MethodDescriptor, request: Message,
             metadata: Metadata, authenticated: Authenticated | None = None) -> Message: ...

    def call_keyed(self, method: descriptor.MethodDescriptor, request: Message,
                   metadata: Metadata, trailer: str = ANSWER_KEY) -> tuple[Answer, str | None]:
        """The answer (in process, as the servicer gave it: maybe `Encoded` or `Deferred`), and
        the value of the trailing metadata `trailer`, if the server sent it: by default the key
        the server declared the answer a pure function of (see
        `evidence_grpc.convert.keyed_answer`)."""
        ...

    def stream(self, method: descriptor.MethodDescriptor, request: Message,
               metadata: Metadata) -> Iterator[Answer]:
        """The answers of a server-streaming method, each read when the one before it is used
        (in process, as the servicer gave it: maybe `Encoded`); a failure is raised by the
        `next` that meets it."""
        ...


def _trailer(trailing: Metadata | None, name: str) -> str | None:
    return next((value for key, value in trailing or () if key == name), None)


class ChannelBackend:
    """Calls a gRPC server at `target` over one channel reused for the process's lifetime
    (create it after fork: one per gunicorn worker)."""

    def __init__(self, target: str, settings: Settings) -> None:
        self.channel = grpc.insecure_channel(target, options=grpc_options(settings, client=True))
        self._callables: dict[str, grpc.UnaryUnaryMultiCallable] = {}
        self._streams: dict[str, grpc.UnaryStreamMultiCallable] = {}

    def call(self, method: descriptor.MethodDescriptor, request: Message,
             metadata: Metadata, authenticated: Authenticated | None = None) -> Message:
        """(The server authenticates every call it receives: `authenticated` is not used.)"""
        return self._stub(method)(request, metadata=tuple(metadata), timeout=60)

    def call_keyed(self, method: descriptor.MethodDescriptor, request: Message,
                   metadata: Metadata, trailer: str = ANSWER_KEY) -> tuple[Message, str | None]:
        response, call = self._stub(method).with_call(request, metadata=tuple(metadata),
                                                      timeout=60)
        return response, _trailer(call.trailing_metadata(), trailer)

    def stream(self, method: descriptor.MethodDescriptor, request: Message,
               metadata: Metadata) -> Iterator[Message]:
        """(No deadline: a long list streams for as long as it takes; a stalled server is
        the channel's keepalive's to find.)"""
        path = method_path(method)
        stub = self._streams.get(path)
        if stub is None:
            stub = self.channel.unary_stream(
                path, request_serializer=_message_class(method.input_type).SerializeToString,
                response_deserializer=_message_class(method.output_type).FromString)
            self._streams[path] = stub
        return stub(request, metadata=tuple(metadata))

    def _stub(self, method: descriptor.MethodDescriptor) -> grpc.UnaryUnaryMultiCallable:
        path = method_path(method)
        stub = self._callables.get(path)
        if stub is None:
            stub = self.channel.unary_unary(
                path, request_serializer=_message_class(method.input_type).SerializeToString,
                response_deserializer=_message_class(method.output_type).FromString)
            self._callables[path] = stub
        return stub


def _message_class(described: descriptor.Descriptor) -> type[Message]:
    return message_factory.GetMessageClass(described)


class LocalRpcError(grpc.RpcError, grpc.Call):
    """The failure of an in-process call, shaped like a failed channel call."""

    def __init__(self, code: grpc.StatusCode, details: str, trailing: Metadata) -> None:
        super().__init__(details)
        self._code, self._details, self._trailing = code, details, tuple(trailing)

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> Metadata:
        return self._trailing

    def initial_metadata(self) -> Metadata:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> float | None:
        return None

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Any) -> bool:
        return False


class LocalContext(grpc.ServicerContext):
    """The servicer context of an in-process call; `authenticated`, when given, is where the
    calls of one HTTP request keep the callers they authenticated."""

    def __init__(self, metadata: Metadata, authenticated: Authenticated | None = None) -> None:
        self.authenticated = authenticated
        self._metadata = tuple(metadata)
        self._code = grpc.StatusCode.OK
        self._details = ""
        self._trailing: Metadata = ()

    def invocation_metadata(self) -> Metadata:
        return self._metadata

    # An aborted call keeps its code, as grpc's own context does: the interceptors around the
    # servicer (ObservingInterceptor's metrics and line) read it while the error passes them.
    def abort(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details
        raise LocalRpcError(code, details, self._trailing)

    def abort_with_status(self, status: Any) -> None:
        self._code, self._details = status.code, status.details
        raise LocalRpcError(status.code, status.details, status.trailing_metadata)

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    def set_trailing_metadata(self, trailing_metadata: Metadata) -> None:
        self._trailing = tuple(trailing_metadata)

    def trailing_metadata(self) -> Metadata:
        return self._trailing

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def send_initial_metadata(self, initial_metadata: Metadata) -> None:
        return None

    def peer(self) -> str:
        return "local"

    def peer_identities(self) -> None:
        return None

    def peer_identity_key(self) -> None:
        return None

    def auth_context(self) -> dict:
        return {}

    def set_compression(self, compression: Any) -> None:
        return None

    def disable_next_message_compression(self) -> None:
        return None

    def is_active(self) -> bool:
        return True

    def time_remaining(self) -> float | None:
        return None

    def cancel(self) -> None:
        return None

    def add_callback(self, callback: Any) -> bool:
        return False


class InProcessBackend:
    """Calls the servicers in this process through the server's own interceptor chain."""

    def __init__(self, settings: Settings) -> None:
        self._handlers = intercepted_handlers(settings, "in-process")

    def call(self, method: descriptor.MethodDescriptor, request: Message,
             metadata: Metadata, authenticated: Authenticated | None = None) -> Message:
        response = self._call(method, request, LocalContext(metadata, authenticated))
        return response.message() if isinstance(response, (Encoded, Deferred)) else response

    def call_keyed(self, method: descriptor.MethodDescriptor, request: Message,
                   metadata: Metadata, trailer: str = ANSWER_KEY) -> tuple[Answer, str | None]:
        context = LocalContext(metadata)
        response = self._call(method, request, context)
        return response, _trailer(context.trailing_metadata(), trailer)

    def stream(self, method: descriptor.MethodDescriptor, request: Message,
               metadata: Metadata) -> Iterator[Answer]:
        handler = self._handler(method)
        context = LocalContext(metadata)
        yield from handler.unary_stream(request, context)
        if context.code() != grpc.StatusCode.OK:
            raise LocalRpcError(context.code(), context.details(), context.trailing_metadata())

    def _handler(self, method: descriptor.MethodDescriptor) -> grpc.RpcMethodHandler:
        handler = self._handlers.get(method_path(method))
        if handler is None:
            raise LocalRpcError(grpc.StatusCode.UNIMPLEMENTED, "Method not found", ())
        return handler

    def _call(self, method: descriptor.MethodDescriptor, request: Message,
              context: LocalContext) -> Answer:
        response = self._handler(method).unary_unary(request, context)
        if context.code() != grpc.StatusCode.OK:
            raise LocalRpcError(context.code(), context.details(), context.trailing_metadata())
        return response


def backend_for(settings: Settings) -> Backend:
    if settings.grpc_target:
        return ChannelBackend(settings.grpc_target, settings)
    return InProcessBackend(settings)
