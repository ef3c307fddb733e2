"""Routes from google.api.http rules, and HTTP request <-> gRPC message transcoding.

Nothing here knows a particular endpoint: paths, bodies, status codes and list shapes come
from the method options declared in protos/."""

from __future__ import annotations

import dataclasses
import gzip
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import quote

from flask import Response
from google.api import annotations_pb2, http_pb2, httpbody_pb2
from google.protobuf import descriptor, message_factory
from google.protobuf.message import Message
from werkzeug.wrappers import Request

from evidence_grpc.api.v2 import options_pb2
from evidence_grpc.convert import Answer, Deferred, Encoded
from evidence_grpc.domain.kernel.names import CONTROL_CHARACTERS
from evidence_grpc.memo import BytesLru, Share
from evidence_grpc.uploads import too_large, upload_limit

from .codec import (
    NUMERIC,
    BodyError,
    check_number_text,
    dumps,
    field_to_json,
    loads,
    merge_json,
    message_to_json,
)
from .multipart import form_of

FD = descriptor.FieldDescriptor
UPLOADED_FILE = "evidence.v2.UploadedFile"
PATH_VARIABLE = re.compile(r"\{(\w+)(?:=([^}]*))?\}")


@dataclasses.dataclass(frozen=True)
class Route:
    method: descriptor.MethodDescriptor
    http_method: str
    rule: str  # werkzeug rule
    body: str
    response_body: str
    options: options_pb2.HttpOptions
    request_class: type[Message]
    path_fields: frozenset[str]
    # The server-streaming method that answers the route's list when no page is asked for
    # (`(http_options).stream_unpaged`), if any.
    stream: descriptor.MethodDescriptor | None = None


def _werkzeug_rule(template: str) -> tuple[str, frozenset[str]]:
    names = []

    def variable(match: re.Match) -> str:
        names.append(match.group(1))
        pattern = match.group(2) or "*"
        converter = "path:" if "**" in pattern else ""
        return f"<{converter}{match.group(1)}>"

    return PATH_VARIABLE.sub(variable, template), frozenset(names)


def routes_of(services: list[descriptor.ServiceDescriptor]) -> list[Route]:
    routes = []
    for service in services:
        for method in service.methods:
            options = method.GetOptions()
            rule: http_pb2.HttpRule = options.Extensions[annotations_pb2.http]
            kind = rule.WhichOneof("pattern")
            if kind is None or kind == "custom":
                continue
            werkzeug_rule, path_fields = _werkzeug_rule(getattr(rule, kind))
            http_options = options.Extensions[options_pb2.http_options]
            routes.append(Route(
                method=method, http_method=kind.upper(), rule=werkzeug_rule, body=rule.body,
                response_body=rule.response_body,
                options=http_options,
                request_class=message_factory.GetMessageClass(method.input_type),
                path_fields=path_fields,
                stream=service.methods_by_name[http_options.stream_unpaged]
                if http_options.stream_unpaged else None))
    return routes


# ---- request -------------------------------------------------------------------------------

# Integers from path and query text stay within their field's own range.
_INTEGER_RANGES = {
    FD.CPPTYPE_INT32: ("int32", -2**31, 2**31 - 1),
    FD.CPPTYPE_INT64: ("int64", -2**63, 2**63 - 1),
    FD.CPPTYPE_UINT32: ("uint32", 0, 2**32 - 1),
    FD.CPPTYPE_UINT64: ("uint64", 0, 2**64 - 1),
}


def _from_text(field: descriptor.FieldDescriptor, text: str) -> Any:
    """The value of a path or query text for a scalar field; BodyError names the field."""
    if field.type == FD.TYPE_BOOL:
        lowered = text.lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
        raise BodyError(f"'{text}' is not a valid boolean", field.name)
    if field.cpp_type in NUMERIC:
        check_number_text(field, text)
    if field.cpp_type in (FD.CPPTYPE_DOUBLE, FD.CPPTYPE_FLOAT):
        return float(text)  # its range (1e999 is inf) is checked for every caller at the door
    if field.cpp_type in _INTEGER_RANGES:
        kind, low, high = _INTEGER_RANGES[field.cpp_type]
        number = int(text)
        if not low <= number <= high:
            raise BodyError(f"'{text}' is out of range ({kind})", field.name)
        return number
    return text


def _set_text(message: Message, field: descriptor.FieldDescriptor, values: list[str]) -> None:
    if field.type == FD.TYPE_MESSAGE:
        return  # only scalars come from paths and query strings
    if field.is_repeated:
        getattr(message, field.name).extend([_from_text(field, v) for v in values])
    else:
        setattr(message, field.name, _from_text(field, values[-1]))


def _json_body(request: Request) -> Any:
    raw = request.get_data(cache=False)
    if not raw.strip():
        return None
    try:
        return loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise BodyError(f"Malformed JSON: {exc}", "body") from None


def _bind_multipart(route: Route, request: Request, message: Message) -> None:
    fields = message.DESCRIPTOR.fields_by_name
    form = form_of(request)
    for name, text in form.fields.items():
        field = fields.get(name)
        if field is None or name in route.path_fields:
            continue
        if field.type == FD.TYPE_MESSAGE and field.message_type.full_name != UPLOADED_FILE:
            try:
                data = loads(text) if text.strip() else None
            except (ValueError, RecursionError) as exc:
                raise BodyError(f"Malformed JSON: {exc}", name) from None
            if data is not None:
                if not isinstance(data, dict):
                    raise BodyError("Must be a JSON object", name)
                merge_json(data, getattr(message, name), route.options.strict_body)
        else:
            _set_text(message, field, [text])
    for name, upload in form.files.items():
        field = fields.get(name)
        if field is None or field.type != FD.TYPE_MESSAGE or \
                field.message_type.full_name != UPLOADED_FILE:
            continue
        limit = upload_limit(field)
        if limit and upload.size > limit:
            raise TooLarge(too_large(name, limit))
        target = getattr(message, name)
        target.content = upload.read()  # straight into the message: no second copy held
        target.filename = upload.filename  # the domain keeps only its base name
        target.content_type = upload.mimetype or "application/octet-stream"


class TooLarge(Exception):
    """A part beyond its field's size limit (answered 413)."""


def build_request(route: Route, request: Request, path_values: dict[str, str]) -> Message:
    """The request message for an HTTP request: path variables, then body or query string."""
    message = route.request_class()
    fields = message.DESCRIPTOR.fields_by_name
    if route.body:
        if request.mimetype == "multipart/form-data":
            _bind_multipart(route, request, message)
        else:
            data = _json_body(request)
            if data is not None:
                if not isinstance(data, dict):
                    raise BodyError("Request body must be a JSON object", "body")
                target = message if route.body == "*" else getattr(message, route.body)
                merge_json(data, target, route.options.strict_body)
    else:
        for key in request.args:
            field = fields.get(key)
            if field is not None and key not in route.path_fields:
                _set_text(message, field, request.args.getlist(key))
    for name, value in path_values.items():
        _set_path_value(message, name, value)
    return message


def _set_path_value(message: Message, name: str, value: str) -> None:
    if CONTROL_CHARACTERS.search(value):  # a path segment names something: never these
        raise BodyError("Must not contain control characters", name)
    _set_text(message, message.DESCRIPTOR.fields_by_name[name], [value])


def path_request(route: Route, path_values: dict[str, str]) -> Message:
    """The request message with the path variables alone, those that are valid: what the
    caller's authentication and privilege are checked on when the rest is refused."""
    message = route.request_class()
    for name, value in path_values.items():
        try:
            _set_path_value(message, name, value)
        except BodyError:
            continue
    return message


def stream_request(route: Route, message: Message) -> Message | None:
    """The request of the route's streaming method (`Route.stream`), made of the list
    request's fields of the same names, when the list request names no page; else None."""
    if route.stream is None or any(message.HasField(name) for name in ("page", "per_page")):
        return None
    streamed = message_factory.GetMessageClass(route.stream.input_type)()
    for field, value in message.ListFields():
        if field.name not in streamed.DESCRIPTOR.fields_by_name:
            continue
        if field.is_repeated:
            getattr(streamed, field.name).extend(value)
        else:
            setattr(streamed, field.name, value)
    return streamed


# ---- response ------------------------------------------------------------------------------

def file_response(upload: Message) -> Response:
    """An UploadedFile as a download: its content type, and its name in Content-Disposition."""
    download = Response(upload.content, status=200,
                        content_type=upload.content_type or "application/octet-stream")
    # No control character may reach a header (names stored before they were refused).
    filename = CONTROL_CHARACTERS.sub("_", upload.filename)
    if filename.isascii():
        download.headers.set("Content-Disposition", "attachment", filename=filename)
    else:  # RFC 6266: an ASCII fallback plus the UTF-8 name
        fallback = filename.encode("ascii", "replace").decode().replace('"', "")
        download.headers["Content-Disposition"] = (
            f'attachment; filename="{fallback}"; '
            f"filename*=UTF-8''{quote(filename)}")
    return download


def render(route: Route, response: Answer, answer_key: str | None = None,
           gzip_accepted: bool = False) -> Response:
    """The HTTP answer of a call; `answer_key`: the key the server declared the answer a pure
    function of, under which its JSON is kept (`_KEYED_ANSWERS`), gzipped too for a client
    that accepts it (`gzip_accepted`) when it is large. An answer not made yet (`Encoded`,
    `Deferred`) is made only when its JSON cannot be had without it."""
    status = route.options.success_code or 200
    plain = not (route.options.created_field or route.options.envelope_field)
    if isinstance(response, Deferred) and answer_key is not None and plain:
        return _keyed_response(response.message_class, route.response_body, answer_key,
                               gzip_accepted, response.message, status)
    if isinstance(response, Encoded) and answer_key is None and not route.options.created_field:
        encoded_body = _encoded_json(route, response)
        if encoded_body is not None:
            return Response(encoded_body, status=status, content_type="application/json")
    if isinstance(response, (Encoded, Deferred)):
        response = response.message()
    if isinstance(response, httpbody_pb2.HttpBody):
        return Response(response.data, status=200, content_type=response.content_type)
    if response.DESCRIPTOR.full_name == UPLOADED_FILE:
        return file_response(response)
    if route.options.created_field:
        status = 201 if getattr(response, route.options.created_field) else 200
    envelope = route.options.envelope_field
    field = route.response_body if not (envelope and response.HasField(envelope)) else ""
    if answer_key is not None:
        made = response
        return _keyed_response(type(made), field, answer_key, gzip_accepted, lambda: made, status)
    if _is_list(response.DESCRIPTOR, field):  # each item's JSON kept as a single read's would be
        body = _listed_json(_item_class(response.DESCRIPTOR, field), (
            (item.SerializeToString(deterministic=True), item) for item in getattr(response, field)))
    else:
        body = _item_json(response, field)
    return Response(body, status=status, content_type="application/json")


def streamed_response(route: Route, chunks: Iterator[Answer]) -> Response:
    """The list of a streaming method's answers (`route.stream`, each a chunk of the items of
    its field `route.response_body`) as one JSON array written while they arrive, chunk by
    chunk: the bytes `render` makes of the whole list (each item's JSON kept by its encoding,
    within one share for the whole list), without ever holding it. A failure after the first
    bytes were sent can no longer change the status: the connection is closed before the
    array is, and the client sees an answer cut short."""
    assert route.stream is not None
    field = route.response_body
    item_class = _item_class(route.stream.output_type, field)

    def items_of(chunk: Answer) -> Iterable[tuple[bytes, Message | None]]:
        if isinstance(chunk, Encoded):
            return ((item, None) for item in chunk.items)
        if isinstance(chunk, Deferred):
            chunk = chunk.message()
        return ((item.SerializeToString(deterministic=True), item)
                for item in getattr(chunk, field))

    def body() -> Iterator[bytes]:
        share = Share(_KEPT_JSON)
        opening = b"["
        for chunk in chunks:
            jsons = [_encoded_item_json(item_class, encoded, message=message, share=share)
                     for encoded, message in items_of(chunk)]
            if jsons:
                yield opening + b",".join(jsons)
                opening = b","
        yield b"]" if opening == b"," else b"[]"

    return Response(body(), status=route.options.success_code or 200,
                    content_type="application/json")


def _encoded_json(route: Route, answer: Encoded) -> bytes | None:
    """The JSON of an answer still in wire form, made of its encodings (each one's JSON kept
    by it), when it renders as a whole message or as the list of its items; else None."""
    envelope = route.options.envelope_field
    if envelope and answer.head_message().HasField(envelope):
        return None  # rendered whole, the list inside its envelope
    field = route.response_body
    if not field and not answer.items:
        return _encoded_item_json(answer.message_class, answer.head)
    described = answer.message_class.DESCRIPTOR
    if not field or field != answer.field or not _is_list(described, field):
        return None
    return _listed_json(_item_class(described, field), ((item, None) for item in answer.items))


def _is_list(message_type: descriptor.Descriptor, field: str) -> bool:
    """Whether the answer renders as the list of the messages of its field `field` as they are
    (a repeated message field with no JSON rule of its own)."""
    if not field:
        return False
    listed = message_type.fields_by_name[field]
    options = listed.GetOptions()
    return (listed.is_repeated and listed.message_type is not None
            and not listed.message_type.GetOptions().map_entry
            and not options.Extensions[options_pb2.as_sent]
            and not options.Extensions[options_pb2.json_object_key]
            and not options.Extensions[options_pb2.omit_when_unset])


def _item_class(message_type: descriptor.Descriptor, field: str) -> type[Message]:
    return message_factory.GetMessageClass(message_type.fields_by_name[field].message_type)


def _item_json(message: Message, field: str = "") -> bytes:
    """The JSON of a message (or its field `field`), kept by its encoding when not too big."""
    return _encoded_item_json(type(message), message.SerializeToString(deterministic=True),
                              field, message)


def _encoded_item_json(message_class: type[Message], encoded: bytes, field: str = "",
                       message: Message | None = None, share: Share | None = None) -> bytes:
    """The JSON of the message `encoded` (or of its field `field`), kept by that encoding when
    not too big, within `share` for an item of a list; `message`, when given, is it already
    parsed (else it is parsed only when its JSON is not kept)."""
    if len(encoded) > _KEPT_ANSWER_BYTES:
        return _json(message or message_class.FromString(encoded), field)
    key = (message_class.DESCRIPTOR.full_name, field, encoded)
    body: bytes | None = _KEPT_JSON.get(key)
    if body is None:
        body = _exact(_json(message or message_class.FromString(encoded), field))
        (share or _KEPT_JSON).put(key, body, len(encoded) + len(body) + _ENTRY_BYTES)
    return body


def _exact(made: bytes) -> bytes:
    """A copy of JSON to keep that holds no more memory than its length: orjson's bytes keep
    the buffer it wrote them in (8 KiB for an item of 1 KiB), and a cache counting their length
    held eight times its bound."""
    return memoryview(made).tobytes()


def _listed_json(item_class: type[Message],
                 items: Iterable[tuple[bytes, Message | None]]) -> bytes:
    """A list answer's JSON: its items' (each an encoding, and the message when already parsed)
    joined, each kept by its encoding within the list's share."""
    share = Share(_KEPT_JSON)
    return b"[" + b",".join(_encoded_item_json(item_class, encoded, message=message, share=share)
                            for encoded, message in items) + b"]"


def _json(message: Message, field: str) -> bytes:
    """The answer's JSON: the field `field` of the message, or the whole message."""
    return dumps(field_to_json(message, field) if field else message_to_json(message))


# Answers read again and again (a trail polled by a pipeline, an artifact looked up, the items
# of a list) cost their encoding and a lookup instead of a walk over their fields: each HTTP
# worker keeps the JSON of answers of at most 16 KiB encoded, the last read first out, within
# _KEPT_JSON_BYTES, each counted as its encoding (the key), its JSON and _ENTRY_BYTES of Python
# objects around them. A list keeps its items' JSON within its share (`memo.Share`).
_KEPT_ANSWER_BYTES = 16384
_KEPT_JSON_BYTES = 24 * 1024 * 1024
_ENTRY_BYTES = 300
_KEPT_JSON = BytesLru(_KEPT_JSON_BYTES)


# The JSON of answers the server keyed (`evidence_grpc.convert.keyed_answer`), by their type, the
# field answered and the key, and its gzip, bounded by their bytes: those answers can be large (a
# governed snapshot's is ~19 MB of JSON, 0.8 MB gzipped: every artifact repeats the rules it was
# judged by, as the contract shapes it) and need no encoding to be recognised.
KEYED_ANSWER_BYTES = 48 * 1024 * 1024
_KEYED_ANSWERS = BytesLru(KEYED_ANSWER_BYTES)
# Keyed answers from this size on are sent gzipped to a client that accepts it (the kosli CLI's
# Go client asks for gzip by itself), compressed once (level 1: ~80 ms for 19 MB) and kept.
GZIP_FROM_BYTES = 64 * 1024


def _keyed_response(message_class: type[Message], field: str, answer_key: str,
                    gzip_accepted: bool, make: Callable[[], Message], status: int) -> Response:
    """The answer of a key, its JSON kept by it (`make` makes the answer, when its JSON is not
    kept), gzipped when accepted and worth it."""
    body, gzipped = _keyed_json(message_class, field, answer_key, gzip_accepted, make)
    keyed = Response(body, status=status, content_type="application/json")
    keyed.vary.add("Accept-Encoding")
    if gzipped:
        keyed.content_encoding = "gzip"
    return keyed


def _keyed_json(message_class: type[Message], field: str, answer_key: str, gzip_accepted: bool,
                make: Callable[[], Message]) -> tuple[bytes, bool]:
    """The answer's JSON, or its gzip (True) when accepted and worth it."""
    key = (message_class.DESCRIPTOR.full_name, field, answer_key)
    if gzip_accepted:
        gzipped = _KEYED_ANSWERS.get((*key, "gzip"))
        if gzipped is not None:
            return gzipped, True
    body = _KEYED_ANSWERS.get(key)
    if body is None:
        body = _exact(_json(make(), field))
        _KEYED_ANSWERS.put(key, body, len(body))
    if not gzip_accepted or len(body) < GZIP_FROM_BYTES:
        return body, False
    gzipped = gzip.compress(body, compresslevel=1, mtime=0)
    _KEYED_ANSWERS.put((*key, "gzip"), gzipped, len(gzipped))
    return gzipped, True
