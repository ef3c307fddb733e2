"""Proto <-> domain values. Domain views are contract-shaped dicts, so messages go through
protobuf's JSON mapping with the proto (snake_case) field names; free-form Struct data is read
by one walk of its own (`plain_data`), and hot responses may be built field by field."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, TypeVar

from google.protobuf import descriptor, json_format, struct_pb2
from google.protobuf.message import Message

from .api.v2 import options_pb2
from .domain.errors import validation_error
from .domain.names import safe_filename
from .domain.pages import Page, page_of

M = TypeVar("M", bound=Message)


def to_message(data: dict[str, Any], message_class: type[M]) -> M:
    """A response message from a domain view; keys the message does not know are dropped.

    Views are filled in by a plan made once per message type (`_filler`), several times faster
    than protobuf's JSON mapping; a view whose values do not fit their fields as they are
    (text in a number field, say) goes through the JSON mapping, which converts them."""
    message = message_class()
    try:
        _filler(message.DESCRIPTOR)(message, data)
    except (TypeError, ValueError, AttributeError):
        message = json_format.ParseDict(data, message_class(), ignore_unknown_fields=True)
    return message


Fill = Callable[[Message, Any], None]


def _set_value(target: Message, value: Any) -> None:
    """A google.protobuf.Value from plain JSON data."""
    if value is None:
        target.null_value = struct_pb2.NULL_VALUE
    elif isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, (int, float)):
        target.number_value = value
    elif isinstance(value, str):
        target.string_value = value
    elif isinstance(value, dict):
        target.struct_value.SetInParent()  # an empty object is still an object
        target.struct_value.update(value)
    elif isinstance(value, list):
        target.list_value.SetInParent()
        target.list_value.extend(value)
    else:
        raise TypeError(f"{type(value).__name__} is not JSON data")


def _well_known(name: str) -> Fill | None:
    if name == "google.protobuf.Struct":
        return lambda target, value: target.update(value)
    if name == "google.protobuf.ListValue":
        return lambda target, value: target.extend(value)
    if name == "google.protobuf.Value":
        return _set_value
    return None


def _value_setter(field: descriptor.FieldDescriptor) -> Callable[[Any], Any]:
    """How a view's value becomes the field's value (enum names become numbers)."""
    if field.enum_type is not None:
        numbers = {name: value.number for name, value in field.enum_type.values_by_name.items()}
        return lambda value: numbers[value] if isinstance(value, str) else value
    return lambda value: value


def _field_filler(field: descriptor.FieldDescriptor) -> Fill:
    name = field.name
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value_field = field.message_type.fields_by_name["value"]
        if value_field.message_type is None:
            convert = _value_setter(value_field)
            return lambda message, value: getattr(message, name).update(
                {k: convert(v) for k, v in value.items()})

        def fill_map(message: Message, value: dict[str, Any]) -> None:
            target = getattr(message, name)
            fill_item = _filler(value_field.message_type)
            for key, item in value.items():
                fill_item(target[key], item)

        return fill_map
    if field.message_type is not None:
        if field.is_repeated:
            def fill_items(message: Message, value: list[Any]) -> None:
                target = getattr(message, name)
                fill_item = _filler(field.message_type)
                for item in value:
                    fill_item(target.add(), item)

            return fill_items

        def fill_one(message: Message, value: Any) -> None:
            target = getattr(message, name)
            target.SetInParent()
            _filler(field.message_type)(target, value)

        return fill_one
    convert = _value_setter(field)
    if field.is_repeated:
        return lambda message, value: getattr(message, name).extend(
            [convert(v) for v in value])
    return lambda message, value: setattr(message, name, convert(value))


@functools.cache
def _filler(message_descriptor: descriptor.Descriptor) -> Fill:
    """Fills a message of this type from a view: each key the type knows, None left unset."""
    special = _well_known(message_descriptor.full_name)
    if special is not None:
        return special
    fields = {field.name: _field_filler(field) for field in message_descriptor.fields}
    # A view may use a field's contract key where it is not a proto name (`creationTimestamp`).
    fields.update({key: fields[field.name] for field in message_descriptor.fields
                   if (key := field.GetOptions().Extensions[options_pb2.json_key])})
    # As in the JSON mapping, None leaves a field unset, but makes a Value field a JSON null.
    nullable = {field.name for field in message_descriptor.fields if not field.is_repeated
                and field.message_type is not None
                and field.message_type.full_name == "google.protobuf.Value"}

    def fill(message: Message, data: dict[str, Any]) -> None:
        for key, value in data.items():
            fill_field = fields.get(key)
            if fill_field is None:
                continue
            if value is not None:
                fill_field(message, value)
            elif key in nullable:
                getattr(message, key).null_value = struct_pb2.NULL_VALUE

    return fill


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
