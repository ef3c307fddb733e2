"""Lists that grow with the data, answered unpaged: streamed in chunks by a server-streaming
twin (`(http_options).stream_unpaged`, which the REST shim writes as one JSON array while it
reads), or answered whole by the unary list up to a cap."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from ..domain.kernel.errors import FailedPrecondition

T = TypeVar("T")

# Items in each answer of a stream: what one chunk holds is bounded by this many items'
# answers, whatever the list's length.
STREAM_CHUNK = 100
# The most items a unary list answers unpaged (gRPC callers; the REST shim streams).
UNARY_LIST_MOST = 10_000


def whole(chunks: Iterable[list[T]], owner: str, items_named: str, stream: str) -> list[T]:
    """The items of `chunks` (answers made a batch at a time) as one list, for a unary answer:
    refused past UNARY_LIST_MOST items (a process would hold them all, twice), naming the list
    ("Flow 'f'", "trails") and the two ways to read it: pages, or the stream `stream`."""
    items: list[T] = []
    for chunk in chunks:
        if len(items) + len(chunk) > UNARY_LIST_MOST:
            raise FailedPrecondition(
                f"{owner} has more than {UNARY_LIST_MOST} {items_named}: ask for them a page at a time "
                f"(page, per_page) or stream them ({stream})", reason="LIST_TOO_LONG")
        items += chunk
    return items
