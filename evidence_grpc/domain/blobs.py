"""Attachment storage, content-addressed: identical files are stored once."""

from __future__ import annotations

import hashlib

from ..storage.db import now
from ..storage.models import Blob


def store(content: bytes) -> Blob:
    """The blob of this content, written if new. Call inside the caller's write transaction."""
    digest = hashlib.sha256(content).hexdigest()
    blob = Blob.get_or_none(Blob.sha256 == digest)
    if blob is None:
        blob = Blob.create(sha256=digest, size=len(content), content=content, created_at=now())
    return blob


def content_of(sha256: str) -> bytes:
    row = Blob.select(Blob.content).where(Blob.sha256 == sha256).tuples().first()
    return bytes(row[0]) if row else b""
