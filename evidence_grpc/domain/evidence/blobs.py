"""Attachment storage, content-addressed: identical files are stored once, in chunks."""

from __future__ import annotations

import hashlib

from ...storage.db import now
from ...storage.models import Blob, BlobChunk

CHUNK = 256 * 1024


def digest(content: bytes) -> str:
    """The address of some content (hash it before taking the write lock)."""
    return hashlib.sha256(content).hexdigest()


def store(content: bytes, sha256: str) -> Blob:
    """The blob of this content, written if new. Call inside the caller's write transaction."""
    blob = Blob.get_or_none(Blob.sha256 == sha256)
    if blob is not None:
        return blob
    blob = Blob.create(sha256=sha256, size=len(content), created_at=now())
    view = memoryview(content)
    for seq, start in enumerate(range(0, len(content), CHUNK)):
        # One row at a time: the driver copies only this chunk.
        BlobChunk.insert(blob=sha256, seq=seq, data=bytes(view[start:start + CHUNK])).execute()
    return blob


def content_of(sha256: str) -> bytes:
    rows = (BlobChunk.select(BlobChunk.data).where(BlobChunk.blob == sha256)
            .order_by(BlobChunk.seq).tuples())
    return b"".join(bytes(data) for (data,) in rows)
