"""Size limits of uploaded files, declared once on each `UploadedFile` field of a request
(`max_upload_bytes` in protos/evidence/v2/options.proto) and held for every caller: the REST
shim measures a file part before reading it (413), the values interceptor holds gRPC callers
to the same numbers (INVALID_ARGUMENT)."""

from __future__ import annotations

import functools

from google.protobuf import descriptor
from google.protobuf.message import Message

from .api.v2 import options_pb2
from .domain.kernel.errors import InvalidArgument


def upload_limit(field: descriptor.FieldDescriptor) -> int:
    """The largest accepted size in bytes of the file in `field` (0: no limit of its own)."""
    return field.GetOptions().Extensions[options_pb2.max_upload_bytes]


@functools.cache
def _limits(message_type: descriptor.Descriptor) -> tuple[tuple[str, int], ...]:
    return tuple((f.name, upload_limit(f)) for f in message_type.fields if upload_limit(f))


def too_large(name: str, limit: int) -> str:
    return f"File '{name}' is larger than {limit} bytes"


def check_uploads(request: Message) -> None:
    """Refuse a request whose files are larger than their fields allow."""
    for name, limit in _limits(request.DESCRIPTOR):
        if request.HasField(name) and len(getattr(request, name).content) > limit:
            raise InvalidArgument(too_large(name, limit), {name: f"larger than {limit} bytes"},
                                  reason="UPLOAD_TOO_LARGE")
