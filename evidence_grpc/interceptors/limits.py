"""Every write request held to the table of size limits (domain.kernel.limits) before its
servicer runs: each string, list, map and free-form document, at any depth, refused with a
validation error naming the first field beyond its limit."""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor
from google.protobuf.message import Message

from ..domain.kernel import limits
from ..domain.kernel.errors import validation_error

FD = descriptor.FieldDescriptor
_DOCUMENTS = {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}


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


def _check_value(field: FD, value: Any, root: str, path: str, shown: str) -> None:
    if field.type == FD.TYPE_STRING:
        limit = limits.string_limit(root, path)
        if len(value) > limit.most:
            raise validation_error(shown, too_long(limit))
    elif field.message_type is not None and field.message_type.full_name in _DOCUMENTS:
        _check_document(value, root, path, shown)
    elif field.message_type is not None:
        _check_message(value, root, path + ".", shown + ".")


def _check_document(document: Message, root: str, path: str, shown: str) -> None:
    """A free-form document: its depth, the characters of its keys and strings, and the keys
    the contract defines (limits.key_limit) held to their limits."""
    size_limit, depth_limit = limits.document_limit(root, path), limits.DEPTH
    size = 0
    # (a Struct, ListValue or Value; its depth; the keys leading to it; the path errors name)
    pending: list[tuple[Any, int, tuple[str, ...], str]] = [(document, 1, (), shown)]
    while pending:
        item, depth, keys, named = pending.pop()
        kind = item.DESCRIPTOR.full_name
        if kind == "google.protobuf.Value":
            which = item.WhichOneof("kind")
            if which == "string_value":
                size += len(item.string_value)
                limit = limits.key_limit(root, path, keys) if keys else None
                if limit is not None and len(item.string_value) > limit.most:
                    raise validation_error(named, too_long(limit))
            elif which in ("struct_value", "list_value"):
                pending.append((getattr(item, which), depth, keys, named))
            continue
        if depth > depth_limit.most:
            raise validation_error(shown, f"Nested deeper than {depth_limit.most} levels")
        if kind == "google.protobuf.Struct":
            for key, child in item.fields.items():
                size += len(key)
                pending.append((child, depth + 1, (*keys, key), f"{named}.{key}"))
        else:
            for index, child in enumerate(item.values):
                # a list's strings are held to the limit of the key the list is under
                pending.append((child, depth + 1, keys, f"{named}[{index}]"))
        if size > size_limit.most:
            break
    if size > size_limit.most:
        raise validation_error(shown, f"Document should have at most {size_limit.most} "
                               "characters of keys and strings")
