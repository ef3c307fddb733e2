"""The codec's renderers are compiled from each message type's fields (`codec._compiled`): every
message type of the API renders as the walk of its fields' steps (`codec._step`), the reading
the compiled source is written from, on values filled at random, set and unset."""

from __future__ import annotations

import importlib
import pkgutil
import random
from typing import Any

import pytest
from google.protobuf import descriptor
from google.protobuf.message import Message

import evidence_grpc.api.v2 as api
from evidence_grpc.api.v2 import options_pb2
from evidence_grpc.api.v2 import snapshot_service_pb2 as snapshot_pb
from rest_shim import codec

FD = descriptor.FieldDescriptor
_WELL_KNOWN = ("google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue")


def _message_classes() -> list[type[Message]]:
    found = []
    for module in pkgutil.iter_modules(api.__path__):
        if module.name.endswith("_pb2") and module.name != "options_pb2":
            loaded = importlib.import_module(f"{api.__name__}.{module.name}")
            found += [getattr(loaded, name) for name in loaded.DESCRIPTOR.message_types_by_name]
    return found


def _walked(message: Message) -> Any:
    """The JSON of a message read field by field with each field's step."""
    described = message.DESCRIPTOR
    options = described.GetOptions()
    if described.full_name in codec._STRUCT_TYPES | codec._WRAPPER_TYPES \
            or options.Extensions[options_pb2.json_array]:
        return codec.message_to_json(message)  # not compiled: rendered as they were
    out: dict[str, Any] = {}
    for field in described.fields:
        field_options = field.GetOptions()
        if field_options.Extensions[options_pb2.json_inline]:
            if message.HasField(field.name):
                out.update(_walked(getattr(message, field.name)))
            continue
        value = codec._step(field, options.Extensions[options_pb2.omit_unset])(message)
        if value is not codec._OMIT:
            out[field_options.Extensions[options_pb2.json_key] or field.name] = value
    return out


def _scalar(field: descriptor.FieldDescriptor, rng: random.Random) -> Any:
    if field.type == FD.TYPE_STRING:
        return rng.choice(["", "a", "é\u0001\"{"])
    if field.type == FD.TYPE_BYTES:
        return b"\x00\xff"
    if field.type == FD.TYPE_BOOL:
        return rng.random() < 0.5
    if field.type == FD.TYPE_ENUM:
        return rng.choice(field.enum_type.values).number
    if field.cpp_type in (FD.CPPTYPE_DOUBLE, FD.CPPTYPE_FLOAT):
        return rng.choice([0.0, 1.5, 3.0])
    return rng.randint(0, 5)


def _fill(message: Message, rng: random.Random, depth: int = 0) -> None:
    """Sets about two fields in three, messages within it to a few levels."""
    for field in message.DESCRIPTOR.fields:
        if rng.random() < 0.35:
            continue
        held = getattr(message, field.name)
        kind = field.message_type
        if kind is None:
            if field.is_repeated:
                held.extend(_scalar(field, rng) for _ in range(rng.randint(0, 2)))
            else:
                setattr(message, field.name, _scalar(field, rng))
        elif kind.full_name in _WELL_KNOWN:
            if kind.full_name == "google.protobuf.Struct":
                (held.add() if field.is_repeated else held).update({"n": 1, "s": "x"})
        elif kind.GetOptions().map_entry:
            key_field, value_field = kind.fields_by_name["key"], kind.fields_by_name["value"]
            key = "k" if key_field.type == FD.TYPE_STRING else 1
            if value_field.message_type is None:
                held[key] = _scalar(value_field, rng)
            elif depth < 3 and value_field.message_type.full_name not in _WELL_KNOWN:
                _fill(held[key], rng, depth + 1)
        elif depth < 3:
            for item in [held.add() for _ in range(rng.randint(0, 2))] if field.is_repeated \
                    else [held]:
                _fill(item, rng, depth + 1)
                item.SetInParent()


@pytest.mark.parametrize("message_class", _message_classes(), ids=lambda c: c.DESCRIPTOR.name)
def test_a_compiled_renderer_reads_as_the_steps_of_its_fields(message_class):
    rng = random.Random(message_class.DESCRIPTOR.full_name)
    for _ in range(6):
        message = message_class()
        _fill(message, rng)
        assert codec.dumps(codec.message_to_json(message)) == codec.dumps(_walked(message))


def test_a_field_named_by_a_python_keyword_renders():
    item = snapshot_pb.SnapshotListItem(index=3)
    setattr(item, "from", 12.5)
    assert codec.message_to_json(item)["from"] == 12.5
