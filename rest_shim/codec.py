"""The contract's JSON: the only place JSON-shape rules live.

Output rules: proto (snake_case) field names; every field present; unset `optional` scalars and
unset messages are `null`; free-form Struct/Value data keeps integral numbers integral; int64 are
JSON numbers, never strings. Input goes through protobuf's JSON parser."""

from __future__ import annotations

import base64
import functools
import json
import keyword
import math
import re
import sys
from collections.abc import Callable
from typing import Any

import orjson
from google.protobuf import descriptor, json_format, message_factory
from google.protobuf.message import Message

from evidence_grpc.api.v2 import options_pb2
from evidence_grpc.convert import plain_data
from evidence_grpc.domain.kernel import limits
from evidence_grpc.memo import small_lru

FD = descriptor.FieldDescriptor
_STRUCT_TYPES = {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}
_WRAPPER_TYPES = {f"google.protobuf.{n}Value" for n in
                  ("String", "Bool", "Int32", "Int64", "UInt32", "UInt64", "Double", "Float")}


class BodyError(ValueError):
    """A request body that does not fit the request message; `field` names the culprit."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


Convert = Callable[[Any], Any]
_OMIT = object()  # a step's answer for "leave the key out"


def _enum_name(enum: descriptor.EnumDescriptor) -> Convert:
    names = {number: value.name for number, value in enum.values_by_number.items()}
    return lambda value: names.get(value, value)


def _base64(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


def _converter(field: descriptor.FieldDescriptor) -> Convert | None:
    """How one value of the field becomes JSON; None when it is already its JSON form."""
    if field.type == FD.TYPE_MESSAGE:
        return message_to_json
    if field.type == FD.TYPE_ENUM:
        return _enum_name(field.enum_type)
    if field.type == FD.TYPE_BYTES:
        return _base64
    return None


def _as_sent(message: Message) -> dict[str, Any]:
    """A message with only the fields it holds (what protobuf's JSON mapping would keep), and
    so the messages within it; integral numbers as integers, as a client's JSON has them."""
    return {field.GetOptions().Extensions[options_pb2.json_key] or field.name:
            _sent_step(field)(message) for field, _ in message.ListFields()}


def _integral(value: float) -> float | int:
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _sent_converter(field: descriptor.FieldDescriptor) -> Convert | None:
    if field.message_type is not None and field.message_type.full_name not in _STRUCT_TYPES:
        return _as_sent
    if field.cpp_type in (FD.CPPTYPE_DOUBLE, FD.CPPTYPE_FLOAT):
        return _integral
    return _converter(field)


@functools.cache
def _sent_step(field: descriptor.FieldDescriptor) -> Callable[[Message], Any]:
    return _step(field, omit_unset=True, sent=True)


def _step(field: descriptor.FieldDescriptor, omit_unset: bool, sent: bool = False
          ) -> Callable[[Message], Any]:
    """Reads the field of a message as JSON (or _OMIT); `sent`: within an as_sent message."""
    name = field.name
    options = field.GetOptions()
    sent = sent or options.Extensions[options_pb2.as_sent]
    converter = _sent_converter if sent else _converter
    omitted = options.Extensions[options_pb2.omit_when_unset]
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        entry = converter(field.message_type.fields_by_name["value"])
        if entry is None:
            return lambda message: dict(getattr(message, name))
        return lambda message: {k: entry(v) for k, v in getattr(message, name).items()}
    object_key = options.Extensions[options_pb2.json_object_key]
    if object_key:  # a packed series answered as one-key objects
        return _object_series(name, object_key)
    convert = converter(field)
    if field.is_repeated:
        whole = (lambda message: list(getattr(message, name))) if convert is None else \
            (lambda message: [convert(v) for v in getattr(message, name)])
        if omitted:
            return lambda message: whole(message) if len(getattr(message, name)) else _OMIT
        return whole
    plain = (lambda message: getattr(message, name)) if convert is None else \
        (lambda message: convert(getattr(message, name)))
    if not field.has_presence:
        return plain
    unset = _OMIT if omitted or (omit_unset and field.message_type is None) else None
    return lambda message: plain(message) if message.HasField(name) else unset


def _object_series(name: str, object_key: str) -> Callable[[Message], Any]:
    """A packed series of numbers as `[{"<key>": n}, ...]`, written as JSON at once: the
    numbers' JSON (which holds no comma of its own) with each comma widened to a new object.
    A series of 100,000 made as objects cost more than the rest of its answer."""
    opening = b'{' + orjson.dumps(object_key) + b':'

    def series(message: Message) -> Any:
        values = getattr(message, name)
        if not values:
            return []
        numbers = orjson.dumps(list(values))[1:-1]
        return orjson.Fragment(b"[" + opening + numbers.replace(b",", b"}," + opening) + b"}]")

    return series


@functools.cache
def _renderer(message_descriptor: descriptor.Descriptor) -> Convert:
    """The JSON renderer of a message type, built once (`_compiled`); a `render_once` type's
    renders each of its values once."""
    full_name = message_descriptor.full_name
    if full_name in _STRUCT_TYPES:
        return lambda message: plain_data(message, full_name)
    if full_name in _WRAPPER_TYPES:
        return lambda message: message.value
    message_options = message_descriptor.GetOptions()
    if message_options.Extensions[options_pb2.json_array]:
        (listed,) = message_descriptor.fields
        return _step(listed, omit_unset=False)
    render = _compiled(message_descriptor, message_options.Extensions[options_pb2.omit_unset])
    if message_options.Extensions[options_pb2.render_once]:
        return _rendered_once(message_factory.GetMessageClass(message_descriptor), render)
    return render


def _compiled(message_descriptor: descriptor.Descriptor, omit_unset: bool) -> Convert:
    """The renderer of a message type as one Python function, written from its fields: a
    message of a few hundred fields renders without a call per field (a trail's JSON took
    ~60 µs walked field by field, step closure by step closure). Each field reads as `_step`
    reads it; what `_step` alone knows (maps, series, as_sent documents, lists left out when
    empty) calls its step."""
    bound: dict[str, Any] = {"_OMIT": _OMIT}
    lines = ["def render(m):", "    out = {}"]
    for number, field in enumerate(message_descriptor.fields):
        options = field.GetOptions()
        read = f"m.{field.name}" if not keyword.iskeyword(field.name) else \
            f"getattr(m, {field.name!r})"
        present = f"m.HasField({field.name!r})"
        if field.message_type is not None:  # its renderer, found when first called
            bound[f"c{number}"] = _found_later(bound, f"c{number}", field.message_type)
        if options.Extensions[options_pb2.json_inline]:
            lines.append(f"    if {present}: out.update(c{number}({read}))")
            continue
        key = repr(options.Extensions[options_pb2.json_key] or field.name)
        omitted = options.Extensions[options_pb2.omit_when_unset]
        simple = not (options.Extensions[options_pb2.as_sent]
                      or options.Extensions[options_pb2.json_object_key]
                      or (field.is_repeated and omitted)
                      or (field.message_type is not None
                          and field.message_type.GetOptions().map_entry))
        if not simple:  # its step, which may leave the key out
            bound[f"s{number}"] = _step(field, omit_unset)
            lines.append(f"    v = s{number}(m)")
            lines.append(f"    if v is not _OMIT: out[{key}] = v")
            continue
        convert = _converter(field)
        if convert is not None and field.message_type is None:
            bound[f"c{number}"] = convert
        if field.is_repeated:
            value = f"list({read})" if convert is None else \
                f"[c{number}(v) for v in {read}]"
            lines.append(f"    out[{key}] = {value}")
            continue
        value = read if convert is None else f"c{number}({read})"
        if not field.has_presence:
            lines.append(f"    out[{key}] = {value}")
        elif omitted or (omit_unset and field.message_type is None):
            lines.append(f"    if {present}: out[{key}] = {value}")
        else:
            lines.append(f"    out[{key}] = {value} if {present} else None")
    lines.append("    return out")
    exec("\n".join(lines), bound)  # noqa: S102 - the source is written above, from descriptors
    return bound["render"]


def _found_later(bound: dict[str, Any], name: str, message_type: descriptor.Descriptor
                 ) -> Convert:
    """Renders with the renderer of `message_type`, which it first finds and binds to `name`
    in `bound`, a compiled renderer's globals: types may hold themselves, so a renderer cannot
    be built with those of its fields."""
    def first(message: Message) -> Any:
        render = bound[name] = _renderer(message_type)
        return render(message)
    return first


# What a `render_once` message type keeps: its last RENDERED_ONCE_ITEMS values of at most
# RENDERED_ONCE_BYTES encoded (a few MB at most), shared by the answers that hold them (JSON
# values are only written out, never changed).
RENDERED_ONCE_ITEMS = 4096
RENDERED_ONCE_BYTES = 512


def _rendered_once(message_class: type[Message], render: Convert) -> Convert:
    """`render`, once per distinct value of the message (told apart by its encoding)."""
    rendered = small_lru(items=RENDERED_ONCE_ITEMS, most_bytes=RENDERED_ONCE_BYTES,
                         size=len)(lambda encoded: render(message_class.FromString(encoded)))
    return lambda message: rendered(message.SerializeToString(deterministic=True))


def message_to_json(message: Message) -> Any:
    """A message as the contract's JSON value (dict, or the plain value of a well-known type)."""
    return _renderer(message.DESCRIPTOR)(message)


def field_to_json(message: Message, name: str) -> Any:
    """One field of a message as JSON (google.api.http response_body)."""
    value = _step(message.DESCRIPTOR.fields_by_name[name], omit_unset=False)(message)
    return None if value is _OMIT else value


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON. orjson writes what the json module writes (but for exponents of
    small numbers: 1e-7, not 1e-07), ten times faster on answers of 100,000 items; anything it
    refuses (integers beyond 64 bits, keys that are not text) takes the json module's way.
    Series written ahead (`_object_series`, orjson fragments) are numbers and text only, in
    answers orjson always writes."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


_FIELD_IN_ERROR = re.compile(r"Failed to parse (\w+) field")
_OUT_OF_RANGE = re.compile(r"Value out of range: (-?\d+)")
_UNKNOWN_FIELD = re.compile(r'no field named "([^"]+)"')


# JSON levels a free-form (Struct) value may nest (limits.DEPTH, which says why), measured here
# while decoding: deeper documents could not cross the shim -> gRPC hop (and Python's recursion
# would give out on the way).
MAX_DOCUMENT_DEPTH = limits.DEPTH.most


# Struct stores every number as a double, which holds integers exactly up to 2^53: a larger
# integer in free-form data would come back changed, so it is refused instead.
MAX_FREE_FORM_INTEGER = 2**53


def _check_free_form(value: Any, field: str) -> None:
    """Free-form (Struct) data: at most MAX_DOCUMENT_DEPTH levels, integers a double holds."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item
        if depth > MAX_DOCUMENT_DEPTH:
            raise BodyError(f"Nested deeper than {MAX_DOCUMENT_DEPTH} levels", field)
        for child in children:
            if isinstance(child, (dict, list)):
                pending.append((child, depth + 1))
            elif isinstance(child, int) and abs(child) > MAX_FREE_FORM_INTEGER:
                raise BodyError(f"Integer {child} is beyond ±2^53: free-form data stores "
                                "numbers as doubles and would change it", field)


# Numbers written as text: path and query values, and JSON strings in numeric fields (proto3
# JSON allows "123"). ASCII only: int() and float() also take other scripts' digits ('١٢'),
# '_' separators, 'nan' and 'infinity'.
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_FLOATING = (FD.CPPTYPE_DOUBLE, FD.CPPTYPE_FLOAT)
NUMERIC = (*_FLOATING, FD.CPPTYPE_INT32, FD.CPPTYPE_INT64, FD.CPPTYPE_UINT32, FD.CPPTYPE_UINT64)


def check_number_text(field: descriptor.FieldDescriptor, text: str) -> None:
    """Refuse text that is not an ASCII number of the field's kind (BodyError naming it)."""
    floating = field.cpp_type in _FLOATING
    if not (_DECIMAL_TEXT if floating else _INTEGER_TEXT).fullmatch(text):
        raise BodyError(f"'{text}' is not a valid {'number' if floating else 'integer'}",
                        field.name)


def _check_objects(data: dict[str, Any], message_type: descriptor.Descriptor) -> None:
    """Refuse anything but a JSON object where a message goes: protobuf's parser, told to ignore
    unknown fields, reads a string there as an empty message (its characters as unknown keys);
    and numbers written as strings that are not ASCII numbers."""
    for key, value in data.items():
        field = message_type.fields_by_name.get(key) or message_type.fields_by_camelcase_name.get(key)
        if field is not None:
            _check_shape(field, value)
        if field is not None and field.cpp_type in NUMERIC:
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    check_number_text(field, item)
        if field is None or value is None or field.message_type is None:
            continue
        target = field.message_type
        items = [value]
        if target.GetOptions().map_entry:
            target = target.fields_by_name["value"].message_type
            items = list(value.values()) if isinstance(value, dict) else []
        elif field.is_repeated:
            items = value if isinstance(value, list) else []
        if target is not None and target.full_name in _STRUCT_TYPES:
            if isinstance(value, (dict, list)):
                _check_free_form(value, field.name)
            continue
        if target is None or target.full_name.startswith("google.protobuf."):
            continue  # scalars, and well-known types with JSON forms of their own
        for item in items:
            if not isinstance(item, dict):
                raise BodyError("Must be a JSON object", field.name)
            _check_objects(item, target)


def _check_shape(field: descriptor.FieldDescriptor, value: Any) -> None:
    """A map is a JSON object, a repeated field an array, and a string (or a map's string value,
    a repeated string's item) a JSON string: refused in the API's words (the hosted service's,
    pydantic's), naming the field, key or index, before protobuf's parser says it in Python's
    ("expected string or bytes-like object")."""
    if value is None:
        return
    entry = field.message_type if field.message_type is not None and \
        field.message_type.GetOptions().map_entry else None
    if entry is not None:
        if not isinstance(value, dict):
            raise BodyError("Input should be a valid dictionary", field.name)
        if entry.fields_by_name["value"].type == FD.TYPE_STRING:
            for key, item in value.items():
                if not isinstance(item, str):
                    raise BodyError("Input should be a valid string", f"{field.name}.{key}")
        return
    if field.is_repeated:
        if not isinstance(value, list):
            raise BodyError("Input should be a valid list", field.name)
        if field.type == FD.TYPE_STRING:
            for index, item in enumerate(value):
                if not isinstance(item, str):
                    raise BodyError("Input should be a valid string", f"{field.name}.{index}")
    elif field.type == FD.TYPE_STRING and not isinstance(value, str):
        raise BodyError("Input should be a valid string", field.name)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"number {text} is out of range")
    return number


def _double_sized_int(text: str) -> int:
    number = int(text)
    if abs(number) > sys.float_info.max:  # Struct would store it as a double
        raise ValueError(f"number {text[:20]}... is out of range")
    return number


def loads(text: str | bytes) -> Any:
    """Parse a JSON body. Python's parser also takes NaN, Infinity and numbers beyond a double
    (1e999 becomes inf), which protobuf cannot hold or render: they raise ValueError here."""
    return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float,
                      parse_int=_double_sized_int)


_INTEGER_RANGES = {
    descriptor.FieldDescriptor.CPPTYPE_INT32: (-2**31, 2**31 - 1),
    descriptor.FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
    descriptor.FieldDescriptor.CPPTYPE_INT64: (-2**63, 2**63 - 1),
    descriptor.FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
}


def _out_of_range(message: descriptor.Descriptor, name: str | None, value: str) -> str:
    """What an integer too large (or small) for its field is told, with the field's range when
    the field named is found in the message (or the messages it holds)."""
    seen, pending = set(), [message]
    while pending:
        current = pending.pop()
        if current.full_name in seen:
            continue
        seen.add(current.full_name)
        field = current.fields_by_name.get(name or "")
        if field is not None and field.cpp_type in _INTEGER_RANGES:
            low, high = _INTEGER_RANGES[field.cpp_type]
            return f"{value} is out of range: must be between {low} and {high}"
        pending.extend(f.message_type for f in current.fields if f.message_type is not None)
    return f"{value} is out of range for this integer field"


def merge_json(data: dict[str, Any], message: Message, strict: bool) -> None:
    """Merge a parsed JSON object into `message`; type mismatches raise BodyError."""
    if message.DESCRIPTOR.full_name == "google.protobuf.Struct":
        _check_free_form(data, "body")
        message.update(data)  # a whole free-form body (a report): ~5x faster than ParseDict
        return
    _check_objects(data, message.DESCRIPTOR)
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=not strict)
    except json_format.ParseError as exc:
        text = str(exc)
        names = _FIELD_IN_ERROR.findall(text)
        unknown = _UNKNOWN_FIELD.search(text)
        field = names[-1] if names else (unknown.group(1) if unknown else None)
        reason = "Unknown field" if unknown and not names else text.rsplit(": ", 1)[-1]
        out_of_range = _OUT_OF_RANGE.search(text)
        if out_of_range:  # protobuf says only "Value out of range: N."
            reason = _out_of_range(message.DESCRIPTOR, field, out_of_range.group(1))
        raise BodyError(reason, field) from None
