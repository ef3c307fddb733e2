"""Every write request held to the table of size limits (domain.kernel.limits) before its
servicer runs: each string, list, map and free-form document, at any depth, refused with a
validation error naming the first field beyond its limit."""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor, struct_pb2
from google.protobuf.message import Message

from ..domain.kernel import limits
from ..domain.kernel.errors import validation_error

FD = descriptor.FieldDescriptor
STRUCT, VALUE = "google.protobuf.Struct", "google.protobuf.Value"
_DOCUMENTS = {STRUCT, VALUE, "google.protobuf.ListValue"}


def too_long(limit: limits.Limit) -> str:
    return f"String should have at most {limit.most} characters"


def too_many(limit: limits.Limit) -> str:
    return f"Should have at most {limit.most} items"


def check_limits(request: Message) -> None:
    """Raise a validation error naming the first field of `request` beyond its limit."""
    _check_message(request, request.DESCRIPTOR.name, "", "")


def _check_message(message: Message, root: str, path: str, shown: str) -> None:
    """`path` is the field path in the table's terms, `shown` the one errors name (with the
    index of a list item and the key of a map entry)."""
    for field, value in message.ListFields():
        where, named = path + field.name, shown + field.name
        entry = field.message_type is not None and field.message_type.GetOptions().map_entry
        if field.is_repeated:
            limit = limits.items_limit(root, where)
            if len(value) > limit.most:
                raise validation_error(named, too_many(limit))
        if entry:
            key_limit = limits.string_limit(root, where + ".key")
            value_field = field.message_type.fields_by_name["value"]
            for key, item in value.items():
                if len(key) > key_limit.most:
                    raise validation_error(named, f"Key {key[:40]!r}...: {too_long(key_limit)}")
                _check_value(value_field, item, root, where + ".value", f"{named}.{key}")
        elif field.is_repeated:
            for index, item in enumerate(value):
                _check_value(field, item, root, where, f"{named}[{index}]")
        else:
            _check_value(field, value, root, where, named)


def _check_value(field: descriptor.FieldDescriptor, value: Any, root: str, path: str,
                 shown: str) -> None:
    if field.type == FD.TYPE_STRING:
        limit = limits.string_limit(root, path)
        if len(value) > limit.most:
            raise validation_error(shown, too_long(limit))
    elif field.message_type is not None and field.message_type.full_name in _DOCUMENTS:
        _check_document(value, root, path, shown)
    elif field.message_type is not None:
        _check_message(value, root, path + ".", shown + ".")


def _check_document(document: Message, root: str, path: str, shown: str) -> None:
    """A free-form document: its depth and the characters of its keys and strings, and in a
    document whose keys the contract defines, those keys (limits.key_limit)."""
    size_limit, depth_limit = limits.document_limit(root, path).most, limits.DEPTH.most
    size, deepest = _measure(document)
    if deepest > depth_limit:
        raise validation_error(shown, f"Nested deeper than {depth_limit} levels")
    if size > size_limit:
        raise validation_error(shown, f"Document should have at most {size_limit} characters "
                               "of keys and strings")
    if document.DESCRIPTOR.full_name == STRUCT and limits.has_defined_keys(root, path):
        _check_defined_keys(document, root, path, (), shown)


def _measure(document: Message) -> tuple[int, int]:
    """The characters of the keys and strings of a document, and its depth (a Struct or
    ListValue is a level; a Value is the level of what it holds). One walk, kept lean: an
    environment report has hundreds of thousands of values."""
    size = deepest = 0
    pending: list[tuple[Any, int]] = []
    kind = document.WhichOneof("kind") if document.DESCRIPTOR.full_name == VALUE else None
    if kind == "string_value":
        size = len(document.string_value)
    elif kind in ("struct_value", "list_value"):
        pending.append((getattr(document, kind), 1))
    elif document.DESCRIPTOR.full_name != VALUE:
        pending.append((document, 1))
    while pending:
        item, depth = pending.pop()
        if depth > deepest:
            deepest = depth
        if isinstance(item, struct_pb2.Struct):
            fields = item.fields
            size += sum(map(len, fields))
            values: Any = fields.values()
        else:
            values = item.values
        for value in values:
            kind = value.WhichOneof("kind")
            if kind == "string_value":
                size += len(value.string_value)
            elif kind == "struct_value":
                pending.append((value.struct_value, depth + 1))
            elif kind == "list_value":
                pending.append((value.list_value, depth + 1))
    return size, deepest


def _check_defined_keys(struct: struct_pb2.Struct, root: str, path: str,
                        keys: tuple[str, ...], shown: str) -> None:
    """The keys the contract defines at the top of a document and in its objects such as
    git_commit_info (limits.DOCUMENT_OBJECTS), each string (or list of strings) within its
    limit."""
    for key, value in struct.fields.items():
        where, named = (*keys, key), f"{shown}.{key}"
        kind = value.WhichOneof("kind")
        if kind == "struct_value" and not keys and key in limits.DOCUMENT_OBJECTS:
            _check_defined_keys(value.struct_value, root, path, where, named)
            continue
        limit = limits.key_limit(root, path, where)
        if limit is None:
            continue
        if kind == "string_value" and len(value.string_value) > limit.most:
            raise validation_error(named, too_long(limit))
        if kind == "list_value":
            for index, item in enumerate(value.list_value.values):
                if item.WhichOneof("kind") == "string_value" and \
                        len(item.string_value) > limit.most:
                    raise validation_error(f"{named}[{index}]", too_long(limit))
