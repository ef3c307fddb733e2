"""storage.db.SqliteWriterLock: one writer at a time across processes, re-entered by its holder,
and each process with a descriptor of its own (an flock through a descriptor inherited over a
fork would not keep parent and child apart)."""

from __future__ import annotations

import fcntl
import os
import pathlib

from evidence_grpc.storage.db import SqliteWriterLock


def _other_process_can_lock(path: str) -> bool:
    """Whether a fresh process could take the writer lock of `path` right now."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        descriptor = os.open(f"{path}-writer.lock", os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.write(write, b"1")
        except BlockingIOError:
            os.write(write, b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    answer = os.read(read, 1)
    os.close(read)
    os.close(write)
    return answer == b"1"


def test_held_across_processes_and_released_by_the_outermost(tmp_path: pathlib.Path):
    path = str(tmp_path / "evidence.db")
    lock = SqliteWriterLock()
    with lock.held(path):
        assert not _other_process_can_lock(path)
        with lock.held(path):  # a nested transaction of the same thread
            pass
        assert not _other_process_can_lock(path)  # the inner exit did not release it
    assert _other_process_can_lock(path)


def test_a_forked_child_takes_the_lock_with_its_own_descriptor(tmp_path: pathlib.Path):
    path = str(tmp_path / "evidence.db")
    lock = SqliteWriterLock()
    with lock.held(path):  # the parent opens its descriptor
        pass
    held_read, held_write = os.pipe()  # child -> parent: "I hold it"
    done_read, done_write = os.pipe()  # parent -> child: "checked, let go"
    pid = os.fork()
    if pid == 0:
        with lock.held(path):  # must open a new descriptor, or the parent's flock would pass
            os.write(held_write, b"1")
            os.read(done_read, 1)
        os._exit(0)
    try:
        assert os.read(held_read, 1) == b"1"
        # The parent's own descriptor: had the child locked through this same one, the
        # parent's flock would pass as if nobody held the lock.
        parents = lock._file[2]
        try:
            fcntl.flock(parents, fcntl.LOCK_EX | fcntl.LOCK_NB)
            locked_out = False
        except BlockingIOError:
            locked_out = True
    finally:
        os.write(done_write, b"x")
        os.waitpid(pid, 0)
        for end in (held_read, held_write, done_read, done_write):
            os.close(end)
    assert locked_out


def test_memory_databases_need_no_lock_file(tmp_path: pathlib.Path):
    lock = SqliteWriterLock()
    with lock.held(":memory:"):
        pass
    assert not list(tmp_path.iterdir())
