"""The contract's JSON: the only place JSON-shape rules live.

Output rules: proto (snake_case) field names; every field present; unset `optional` scalars and
unset messages are `null`; free-form Struct/Value data keeps integral numbers integral; int64 are
JSON numbers, never strings. Input goes through protobuf's JSON parser."""

from __future__ import annotations

import base64
import functools
import json
import re
from typing import Any

from google.protobuf import descriptor, json_format
from google.protobuf.message import Message

from evidence_grpc._pb.evidence.v2 import options_pb2
from evidence_grpc.convert import integral_numbers

FD = descriptor.FieldDescriptor
_STRUCT_TYPES = {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}
_WRAPPER_TYPES = {f"google.protobuf.{n}Value" for n in
                  ("String", "Bool", "Int32", "Int64", "UInt32", "UInt64", "Double", "Float")}


class BodyError(ValueError):
    """A request body that does not fit the request message; `field` names the culprit."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def _scalar(field: descriptor.FieldDescriptor, value: Any) -> Any:
    if field.type == FD.TYPE_ENUM:
        return field.enum_type.values_by_number[value].name if value in \
            field.enum_type.values_by_number else value
    if field.type == FD.TYPE_BYTES:
        return base64.b64encode(value).decode("ascii")
    return value


def _value(field: descriptor.FieldDescriptor, value: Any) -> Any:
    if field.type == FD.TYPE_MESSAGE:
        return message_to_json(value)
    return _scalar(field, value)


@functools.cache
def _plan(message_descriptor: descriptor.Descriptor) -> list[tuple[descriptor.FieldDescriptor, str, str]]:
    """(field, JSON key, how to render) for each field of a message type, computed once."""
    plan = []
    omit_unset = message_descriptor.GetOptions().Extensions[options_pb2.omit_unset]
    for field in message_descriptor.fields:
        key = field.GetOptions().Extensions[options_pb2.json_key] or field.name
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            how = "map"
        elif field.is_repeated:
            how = "list"
        elif field.has_presence:
            how = "omit" if omit_unset and field.message_type is None else "optional"
        else:
            how = "plain"
        plan.append((field, key, how))
    return plan


def message_to_json(message: Message) -> Any:
    """A message as the contract's JSON value (dict, or the plain value of a well-known type)."""
    full_name = message.DESCRIPTOR.full_name
    if full_name in _STRUCT_TYPES:
        return integral_numbers(json_format.MessageToDict(message))
    if full_name in _WRAPPER_TYPES:
        return message.value
    out: dict[str, Any] = {}
    for field, key, how in _plan(message.DESCRIPTOR):
        value = getattr(message, field.name)
        if how == "map":
            value_field = field.message_type.fields_by_name["value"]
            out[key] = {k: _value(value_field, v) for k, v in value.items()}
        elif how == "list":
            out[key] = [_value(field, v) for v in value]
        elif how in ("optional", "omit") and not message.HasField(field.name):
            if how == "optional":
                out[key] = None
        else:
            out[key] = _value(field, value)
    return out


def field_to_json(message: Message, name: str) -> Any:
    """One field of a message as JSON (google.api.http response_body)."""
    field = message.DESCRIPTOR.fields_by_name[name]
    value = getattr(message, name)
    if field.is_repeated:
        return [_value(field, v) for v in value]
    if field.has_presence and not message.HasField(name):
        return None
    return _value(field, value)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_FIELD_IN_ERROR = re.compile(r"Failed to parse (\w+) field")
_UNKNOWN_FIELD = re.compile(r'no field named "([^"]+)"')


def _check_objects(data: dict[str, Any], message_type: descriptor.Descriptor) -> None:
    """Refuse anything but a JSON object where a message goes: protobuf's parser, told to ignore
    unknown fields, reads a string there as an empty message (its characters as unknown keys)."""
    for key, value in data.items():
        field = message_type.fields_by_name.get(key) or message_type.fields_by_camelcase_name.get(key)
        if field is None or value is None or field.message_type is None:
            continue
        target = field.message_type
        items = [value]
        if target.GetOptions().map_entry:
            target = target.fields_by_name["value"].message_type
            items = list(value.values()) if isinstance(value, dict) else []
        elif field.is_repeated:
            items = value if isinstance(value, list) else []
        if target is None or target.full_name.startswith("google.protobuf."):
            continue  # scalars, and well-known types with JSON forms of their own
        for item in items:
            if not isinstance(item, dict):
                raise BodyError("Must be a JSON object", field.name)
            _check_objects(item, target)


def merge_json(data: dict[str, Any], message: Message, strict: bool) -> None:
    """Merge a parsed JSON object into `message`; type mismatches raise BodyError."""
    _check_objects(data, message.DESCRIPTOR)
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=not strict)
    except json_format.ParseError as exc:
        text = str(exc)
        names = _FIELD_IN_ERROR.findall(text)
        unknown = _UNKNOWN_FIELD.search(text)
        field = names[-1] if names else (unknown.group(1) if unknown else None)
        reason = "Unknown field" if unknown and not names else text.rsplit(": ", 1)[-1]
        raise BodyError(reason, field) from None
