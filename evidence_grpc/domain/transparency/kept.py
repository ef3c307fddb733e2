"""The largest checkpoint this server ever signed of each log, kept outside the database, beside
the log's key (`<key file>.checkpoints`, JSON), so that a database restored from a backup, or
rewritten, is never signed as the log: a log whose tree is not consistent with its kept
checkpoint (smaller, the same size with another root, or larger but no extension of it) is
refused (`Forked`), at start and before any checkpoint is signed.

A log is named by its origin and the leaf hash of its first entry (its genesis, which holds
the time the log began): a database restored from a backup has the same genesis, a log begun
again from nothing under the same origin another one (which the witnesses that cosign the
origin's checkpoints refuse: docs/auditing.md).

Several processes sign at once: the state file is read, checked and replaced (a whole new file
renamed into place) under an flock of `<state file>.lock`, and only when a checkpoint larger
than the kept one is signed. What a process verified and kept is remembered in memory, so
signing the same tree again reads no file."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from ..kernel.errors import FailedPrecondition
from . import merkle

SUFFIX = ".checkpoints"


class Forked(FailedPrecondition):
    """The log is not an extension of the largest checkpoint signed of it."""

    reason = "LOG_FORKED"


@dataclass(frozen=True)
class Kept:
    size: int
    root: bytes
    checkpoint: str  # the signed note


class Tree(Protocol):
    """The log as the caller reads it: its name (origin and genesis), size and root."""

    name: str
    org: str
    size: int
    root: bytes

    def proof(self, first: int) -> list[bytes]:
        """The consistency proof from the tree of `first` entries to this one."""

    def extended_to(self, size: int) -> bytes | None:
        """The root of the first `size` entries (more than this tree's) as committed now,
        outside the caller's read, when that tree extends this one; None when it does not."""


def state_file(key_file: str) -> str:
    """Where the checkpoints signed with the key in `key_file` are kept."""
    return key_file + SUFFIX


# (state file, log name) -> (size, root) this process checked against, or wrote to, that file
_verified: dict[tuple[str, str], tuple[int, bytes]] = {}


def read(path: str) -> dict[str, Kept]:
    """The checkpoints kept in `path`, by log name ({} when there is no file yet)."""
    try:
        with open(path, encoding="utf-8") as kept:
            logs = json.load(kept)["logs"]
    except FileNotFoundError:
        return {}
    return {name: Kept(each["size"], bytes.fromhex(each["root"]), each["checkpoint"])
            for name, each in logs.items()}


def _write(path: str, logs: dict[str, Kept]) -> None:
    made = f"{path}.{os.getpid()}.new"
    descriptor = os.open(made, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as kept:
        json.dump({"logs": {name: {"size": each.size, "root": each.root.hex(),
                                   "checkpoint": each.checkpoint}
                            for name, each in sorted(logs.items())}}, kept, indent=1)
        kept.flush()
        os.fsync(kept.fileno())
    os.replace(made, path)


@contextlib.contextmanager
def _locked(path: str) -> Iterator[None]:
    descriptor = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock


def recovery(path: str, org: str, kept: Kept) -> str:
    """How an operator recovers from a refused log (docs/operator.md#restoring-a-backup)."""
    return (f"Restore a database backup holding at least those {kept.size} entries of "
            f"'{org}' (the entries after the backup were lost), or, with none, begin its log "
            f"again under a new origin, the server stopped: evidence-server begin-new-log --org "
            f"{org} --origin-suffix -2 (docs/operator.md); never delete or edit {path}")


def check(path: str, tree: Tree, kept: Kept | None) -> None:
    """Refuse (`Forked`) a tree that is not consistent with the checkpoint `kept` of it."""
    if kept is None:
        return
    said = (f"The transparency log of '{tree.org}' holds {tree.size} entries (root "
            f"{tree.root.hex()}), and this server already signed a checkpoint of {kept.size} "
            f"entries (root {kept.root.hex()}, kept in {path})")
    details = {"org": tree.org, "size": str(tree.size), "kept_size": str(kept.size),
               "kept_root": kept.root.hex(), "state_file": path}

    def forked(why: str) -> Forked:
        return Forked(f"{said}: {why}; no checkpoint is signed. {recovery(path, tree.org, kept)}",
                      metadata=details)

    if kept.size > tree.size:
        if tree.extended_to(kept.size) != kept.root:
            raise forked("the log is smaller than what was signed (a restored backup?)")
    elif kept.size == tree.size:
        if kept.root != tree.root:
            raise forked("the same size with another root")
    elif kept.size > 0:
        try:
            merkle.verify_consistency(kept.size, tree.size, kept.root, tree.root,
                                      tree.proof(kept.size))
        except merkle.ProofError:
            raise forked("the log is not an extension of it") from None


def signed(path: str, tree: Tree, sign: Callable[[], str]) -> str:
    """The checkpoint `sign` makes of `tree`, once the tree is found consistent with the one
    kept of it; kept in its place when it is larger."""
    if _verified.get((path, tree.name)) == (tree.size, tree.root):
        return sign()
    with _locked(path):
        logs = read(path)
        kept = logs.get(tree.name)
        check(path, tree, kept)
        note = sign()
        if kept is None or tree.size > kept.size:
            logs[tree.name] = Kept(tree.size, tree.root, note)
            _write(path, logs)
    _verified[(path, tree.name)] = (tree.size, tree.root)
    return note


def verify(path: str, tree: Tree) -> None:
    """Refuse (`Forked`) a tree not consistent with the checkpoint kept of it (at start)."""
    check(path, tree, read(path).get(tree.name))

