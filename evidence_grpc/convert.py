"""Proto <-> domain values. Domain views are contract-shaped dicts, so messages go through
protobuf's JSON mapping with the proto (snake_case) field names; free-form Struct data is read
by one walk of its own (`plain_data`), and hot responses may be built field by field."""

from __future__ import annotations

import math
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message

from .domain.errors import validation_error
from .domain.names import safe_filename
from .domain.pages import Page, page_of

M = TypeVar("M", bound=Message)


def to_message(data: dict[str, Any], message_class: type[M]) -> M:
    """A response message from a domain view; keys the message does not know are dropped."""
    return json_format.ParseDict(data, message_class(), ignore_unknown_fields=True)


def with_struct_lists(data: dict[str, Any], message_class: type[M], *fields: str) -> M:
    """`to_message` for a view with large lists of free-form objects (repeated Struct
    `fields`): those are filled with Struct.update, a third of the JSON mapping's cost."""
    rest = {k: v for k, v in data.items() if k not in fields}
    message = to_message(rest, message_class)
    for field in fields:
        target = getattr(message, field)
        for item in data.get(field) or ():
            target.add().update(item)
    return message


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
