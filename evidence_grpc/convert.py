"""Proto <-> domain values. Domain views are contract-shaped dicts, so messages go through
protobuf's JSON mapping with the proto (snake_case) field names; free-form Struct data is read
by one walk of its own (`plain_data`), and hot responses may be built field by field."""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias, TypeVar

import grpc
from google.protobuf import descriptor, json_format, struct_pb2
from google.protobuf.message import Message

from .api.v2 import options_pb2
from .domain.kernel.errors import validation_error
from .domain.kernel.names import safe_filename
from .domain.kernel.pages import Page, page_of

M = TypeVar("M", bound=Message)


def to_message(data: Mapping[str, Any], message_class: type[M]) -> M:
    """A response message from a domain view; keys the message does not know are dropped (a view
    typed by `api.v2.views` has none: mypy checks it).

    A view becomes the message's constructor arguments by a plan made once per message type
    (`_arguments`), so protobuf builds it in one call, several times faster than its JSON
    mapping; a view whose values do not fit their fields as they are (text in a number field,
    say) goes through the JSON mapping, which converts them."""
    try:
        return message_class(**_arguments(message_class.DESCRIPTOR)(data))
    except (TypeError, ValueError, AttributeError):
        return json_format.ParseDict(dict(data), message_class(), ignore_unknown_fields=True)


# Trailing metadata of an answer that is a pure function of what `keyed_answer` was given: a
# caller that keeps what it made of one answer (the shim its JSON) may reuse it for the same key.
ANSWER_KEY = "evidence-answer-key"


def keyed_answer(context: grpc.ServicerContext, *parts: Any) -> None:
    """Declare the call's answer a pure function of `parts` (JSON data, the answer's type
    among them): its key is their digest."""
    digest = hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).hexdigest()
    context.set_trailing_metadata((*(context.trailing_metadata() or ()), (ANSWER_KEY, digest)))


def with_items(message: M, field: str, encoded: Iterable[bytes]) -> M:
    """The message with already encoded messages appended to its repeated message `field`: their
    wire form is joined and parsed in one call, instead of each message being copied in."""
    message.MergeFromString(items_wire(message.DESCRIPTOR, field, encoded))
    return message


def items_wire(message_type: descriptor.Descriptor, field: str, encoded: Iterable[bytes]) -> bytes:
    """Already encoded messages as the wire form of the repeated message `field` of a message
    of `message_type`: appended to a message's own, they are its items, in this order."""
    tag = _varint(message_type.fields_by_name[field].number << 3 | 2)  # length-delimited
    return b"".join(tag + _varint(len(item)) + item for item in encoded)


class Encoded:
    """An answer handed over in wire form, made of kept encodings: `head`, the encoding of a
    `message_class` message with what is not kept (a list's pagination, or the whole answer),
    and `items`, kept encodings of messages of its repeated field `field`. gRPC sends it as it
    is (`SerializeToString`, the method handlers' response serializer); the REST shim renders the
    items' JSON kept by their encodings; only a caller that reads its fields parses it
    (`message`)."""

    __slots__ = ("message_class", "head", "field", "items")

    def __init__(self, message_class: type[Message], head: bytes, field: str = "",
                 items: list[bytes] | None = None) -> None:
        self.message_class, self.head, self.field = message_class, head, field
        self.items = items or []

    def SerializeToString(self, deterministic: bool = False) -> bytes:  # noqa: N802 (Message's)
        if not self.items:
            return self.head
        return self.head + items_wire(self.message_class.DESCRIPTOR, self.field, self.items)

    def message(self) -> Message:
        return self.message_class.FromString(self.SerializeToString())

    def head_message(self) -> Message:
        """The answer without its items."""
        return self.message_class.FromString(self.head)


class Deferred:
    """An answer made only when it is read: gRPC encodes it (`SerializeToString`, the method
    handlers' response serializer), a caller that reads its fields makes it (`message`), and
    the REST shim, when it keeps the JSON of the key the answer was declared a function of
    (`keyed_answer`), does not make it at all. `make` must not read the database: it runs
    after the call's transaction has ended."""

    __slots__ = ("message_class", "_make", "_made")

    def __init__(self, message_class: type[Message], make: Callable[[], Message]) -> None:
        self.message_class, self._make = message_class, make
        self._made: Message | None = None

    def message(self) -> Message:
        if self._made is None:
            self._made = self._make()
        return self._made

    def SerializeToString(self, deterministic: bool = False) -> bytes:  # noqa: N802 (Message's)
        return self.message().SerializeToString(deterministic=deterministic)


# What a servicer may answer.
Answer: TypeAlias = Message | Encoded | Deferred


def serialize(response: Answer) -> bytes:
    """The response serializer of every method: a message's encoding, an Encoded's or a
    Deferred's."""
    return response.SerializeToString()


def _varint(number: int) -> bytes:
    out = bytearray()
    while number > 0x7F:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


Convert = Callable[[Any], Any]


def _value(value: Any) -> struct_pb2.Value:
    """A google.protobuf.Value from plain JSON data."""
    if value is None:
        return struct_pb2.Value(null_value=struct_pb2.NULL_VALUE)
    if isinstance(value, bool):
        return struct_pb2.Value(bool_value=value)
    if isinstance(value, (int, float)):
        return struct_pb2.Value(number_value=value)
    if isinstance(value, str):
        return struct_pb2.Value(string_value=value)
    if isinstance(value, (dict, list)):  # Struct and ListValue take plain data as they are
        return struct_pb2.Value(**{"struct_value" if isinstance(value, dict) else "list_value": value})
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _converter(field: descriptor.FieldDescriptor) -> Convert | None:
    """How a view's value becomes the constructor's argument for one field (None: as it is)."""
    message_type = field.message_type
    if message_type is not None and message_type.GetOptions().map_entry:
        entry = _converter(message_type.fields_by_name["value"])
        return None if entry is None else lambda value: {k: entry(v) for k, v in value.items()}
    item: Convert
    if message_type is not None and message_type.full_name == "google.protobuf.Value":
        item = _value
    elif message_type is not None and not message_type.full_name.startswith("google.protobuf."):
        item = _arguments(message_type)
    elif field.enum_type is not None:
        numbers = {name: value.number for name, value in field.enum_type.values_by_name.items()}
        item = lambda value: numbers[value] if isinstance(value, str) else value  # noqa: E731
    else:
        return None  # scalars, Struct and ListValue: protobuf takes plain data
    return (lambda value: [item(v) for v in value]) if field.is_repeated else item


@functools.cache
def _arguments(message_descriptor: descriptor.Descriptor) -> Convert:
    """Turns a view into constructor arguments of this type: each key the type knows (by proto
    name, or by the contract key of `json_key`, such as `creationTimestamp`), converted; None
    leaves a field unset, as in the JSON mapping, but makes a Value field a JSON null."""
    plain: dict[str, str] = {}  # key -> field name, for values that go as they are
    converted: dict[str, tuple[str, Convert]] = {}  # key -> (field name, conversion)
    for field in message_descriptor.fields:
        convert = _converter(field)
        for key in filter(None, (field.name, field.GetOptions().Extensions[options_pb2.json_key])):
            if convert is None:
                plain[key] = field.name
            else:
                converted[key] = (field.name, convert)
    nullable = {field.name for field in message_descriptor.fields if not field.is_repeated
                and field.message_type is not None
                and field.message_type.full_name == "google.protobuf.Value"}

    def arguments(data: Mapping[str, Any]) -> dict[str, Any]:
        found = {plain[k]: v for k, v in data.items() if v is not None and k in plain}
        for key, (name, convert) in converted.items():
            if key in data:
                value = data[key]
                if value is not None:
                    found[name] = convert(value)
                elif name in nullable:
                    found[name] = _value(None)
        return found

    return arguments


def _text(text: str, field: str) -> str:
    if "\x00" in text:  # PostgreSQL can store it neither in text nor in jsonb
        raise validation_error(field, "Text must not contain the NUL character (\\u0000)")
    return text


def _plain(value: Message, field: str) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return {_text(k, field): _plain(v, field) for k, v in value.struct_value.fields.items()}
    if kind == "list_value":
        return [_plain(v, field) for v in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        if not math.isfinite(number):
            raise validation_error(field, "Numbers must be finite (JSON has no NaN or Infinity)")
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    if kind == "string_value":
        return _text(value.string_value, field)
    if kind == "bool_value":
        return value.bool_value
    return None  # null_value, or a Value with nothing set


def plain_data(message: Message, field: str) -> Any:
    """A Struct, ListValue or Value as plain JSON data. Struct stores every number as a double:
    integral ones come back as ints; NaN and infinities, which JSON cannot carry, are refused
    (`field` names the culprit). Several times faster than json_format on large documents."""
    name = message.DESCRIPTOR.full_name
    if name == "google.protobuf.Struct":
        return {_text(k, field): _plain(v, field) for k, v in message.fields.items()}
    if name == "google.protobuf.ListValue":
        return [_plain(v, field) for v in message.values]
    return _plain(message, field)


def upload_of(upload: Any, field: str) -> tuple[str, bytes] | None:
    """(base file name, content) of an uploaded file, or None when no file was sent."""
    if not upload.content and not upload.filename:
        return None
    content = upload.content
    upload.ClearField("content")  # the request need not hold a second copy of a large file
    return safe_filename(field, upload.filename or field), content


def optional(message: Message, name: str) -> Any:
    """The value of an `optional` field, or None when the caller did not send it."""
    return getattr(message, name) if message.HasField(name) else None


def page_of_request(message: Message, default_size: int = 20, *,
                    whole_when_unpaged: bool = False) -> Page:
    """The page a list request asks for (its optional `page` and `per_page`)."""
    return page_of(optional(message, "page"), optional(message, "per_page"), default_size,
                   whole_when_unpaged=whole_when_unpaged)


def present_fields(message: Message) -> dict[str, Any]:
    """The fields a request actually carried (unset optional fields are absent)."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def text_of(upload: Any, field: str) -> str | None:
    """The UTF-8 text of an uploaded file, or None when no file was sent."""
    if not upload.content and not upload.filename:
        return None
    try:
        return upload.content.decode("utf-8")
    except UnicodeDecodeError:
        raise validation_error(field, "File must be UTF-8 text") from None
