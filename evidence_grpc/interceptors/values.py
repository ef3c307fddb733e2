"""Checks on the values of every request message before its servicer runs, so gRPC and REST
callers meet the same rules in one place: each double (at any depth) is finite and within
±2^63 (domain.numbers.check_double), one that is a time (`timestamp`, `*_timestamp`, `*_ts`,
`from`, `to`) within the years 1970 to 9999 (check_timestamp), and no string holds NUL
(PostgreSQL text cannot).
Free-form Struct data is left to convert.plain_data. Uploaded files are held to their fields'
declared size limits (evidence_grpc.uploads), the numbers the REST shim applies while reading;
a write's strings, lists and documents to the table of limits (limits.check_limits)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
from google.protobuf import descriptor
from google.protobuf.message import Message

from ..domain.kernel.errors import validation_error
from ..domain.kernel.numbers import check_double, check_timestamp, is_timestamp_name
from ..uploads import check_uploads
from .base import Behavior, UnaryInterceptor
from .database import is_write
from .limits import check_limits

FD = descriptor.FieldDescriptor
_FREE_FORM = {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}


def check_values(message: Message, prefix: str = "") -> None:
    """Raise a validation error naming the first double out of range or string with NUL."""
    for field, value in message.ListFields():
        name = prefix + field.name
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            field, items = field.message_type.fields_by_name["value"], list(value.values())
        else:
            items = list(value) if field.is_repeated else [value]
        if field.cpp_type in (FD.CPPTYPE_DOUBLE, FD.CPPTYPE_FLOAT):
            check = check_timestamp if is_timestamp_name(field.name) or field.name in (
                "from", "to") else check_double
            for number in items:
                check(name, number)
        elif field.type == FD.TYPE_STRING:
            if any("\x00" in text for text in items):
                raise validation_error(name, "Must not contain the NUL character")
        elif field.message_type is not None and field.message_type.full_name not in _FREE_FORM:
            for item in items:
                check_values(item, name + ".")


class ValuesInterceptor(UnaryInterceptor):
    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        _check(request, method)
        return behavior(request, context)

    def around_stream(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
                      method: str) -> Iterator[Any]:
        _check(request, method)
        yield from behavior(request, context)


def _check(request: Any, method: str) -> None:
    check_values(request)
    check_uploads(request)
    if is_write(method):
        check_limits(request)
