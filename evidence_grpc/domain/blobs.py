"""Attachment storage, content-addressed: identical files are stored once."""

from __future__ import annotations

import hashlib

import peewee

from ..storage.db import database, now
from ..storage.models import Blob

CHUNK = 256 * 1024


def digest(content: bytes) -> str:
    """The address of some content (hash it before taking the write lock)."""
    return hashlib.sha256(content).hexdigest()


def store(content: bytes, sha256: str) -> Blob:
    """The blob of this content, written if new. Call inside the caller's write transaction.
    On SQLite the content is written into a preallocated blob in chunks, so the driver does
    not make copies of a file of megabytes."""
    blob = Blob.get_or_none(Blob.sha256 == sha256)
    if blob is not None:
        return blob
    if not isinstance(database.obj, peewee.SqliteDatabase):
        return Blob.create(sha256=sha256, size=len(content), content=content, created_at=now())
    Blob.insert(sha256=sha256, size=len(content), content=peewee.fn.zeroblob(len(content)),
                created_at=now()).execute()
    rowid = database.execute_sql("SELECT rowid FROM blob WHERE sha256 = ?", (sha256,)).fetchone()[0]
    view = memoryview(content)
    with database.connection().blobopen("blob", "content", rowid) as target:
        for start in range(0, len(content), CHUNK):
            target.write(view[start:start + CHUNK])
    return Blob.get_by_id(sha256)


def content_of(sha256: str) -> bytes:
    row = Blob.select(Blob.content).where(Blob.sha256 == sha256).tuples().first()
    return bytes(row[0]) if row else b""
