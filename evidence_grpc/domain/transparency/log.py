"""An organization's transparency log: every evidence record written gets an entry, appended in
the transaction that keeps the record, numbered from 0 without gaps in commit order (each
append locks the organization's LogHead, as the transaction's last lock).

A leaf is the record's canonical JSON (RFC 8785): its kind, organization, ids, verdict, time,
actor, and SHA-256 digests of its bulky parts, built by the context that owns the record (a
*leaf builder*). The same builders re-derive leaves from the stored rows (`verify_log`), so a
record changed or removed behind the service's back is named. Leaf hash, interior hashes, roots
and proofs are RFC 9162's (`merkle`); checkpoints are C2SP signed notes (`notes`)."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import rfc8785

from ...storage.db import Prepared, as_given, at_transaction_end, for_update, in_chunks
from ...storage.models import LogEntry, LogHash, LogHead, Organization
from ..kernel.errors import InvalidArgument, NotFound, validation_error
from . import merkle, notes

# Leaf builders by kind: record ids -> {record id: leaf object}, for the rows that still exist.
Rebuild = Callable[[list[int]], dict[int, dict[str, Any]]]
_REBUILDERS: dict[str, Rebuild] = {}
_sequence = itertools.count()


def register(kind: str, rebuild: Rebuild) -> None:
    """How `verify_log` re-derives the leaves of `kind` from their rows (domain/__init__.py)."""
    _REBUILDERS[kind] = rebuild


def digest(value: Any) -> str:
    """SHA-256 (hex) of JSON data: keys sorted, compact separators, non-ASCII as \\u escapes
    (Python's json.dumps(value, sort_keys=True, separators=(",", ":"))). Any value accepted has
    one (integers past 2**53 included, which RFC 8785 refuses), and the same data read back from
    the database or from an audit package's JSON has the same."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


_SAFE_INTEGER = 2**53 - 1


def _plain(value: Any) -> bool:
    """Whether Python's JSON writes the value as RFC 8785 does: text, booleans, null, integers
    within ±(2**53 - 1), and numbers whose shortest repr both print without an exponent."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return -_SAFE_INTEGER <= value <= _SAFE_INTEGER
    return kind is float and not value.is_integer() and 1e-4 <= abs(value) < 1e16


def canonical(leaf: dict[str, Any]) -> bytes:
    """The leaf's bytes: RFC 8785 canonical JSON. A flat leaf of plain values with ASCII keys
    (every leaf the domain builds, but for an integral time) is written by Python's JSON, five
    times faster and the same bytes (tests/transparency/test_log.py compares them); anything
    else by the rfc8785 package."""
    if all(key.isascii() and _plain(value) for key, value in leaf.items()):
        try:
            return json.dumps(leaf, sort_keys=True, separators=(",", ":"), ensure_ascii=False
                              ).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: rfc8785 says what becomes of it
            pass
    return rfc8785.dumps(leaf)


def append(org_id: int, kind: str, record_id: int, leaf: dict[str, Any]) -> None:
    """Log `leaf` (of the record `kind` `record_id`) when the current write transaction
    commits: after its other writes, in the order appended."""
    item = (next(_sequence), org_id, kind, record_id, canonical(leaf))
    at_transaction_end("transparency-log", _append_all, [item], last=True)


def _append_all(items: set[tuple[int, int, str, int, bytes]]) -> None:
    by_org: dict[int, list[tuple[int, int, str, int, bytes]]] = {}
    for item in sorted(items):
        by_org.setdefault(item[1], []).append(item)
    for org_id in sorted(by_org):  # one locking order for every writer
        _append_to(org_id, [(kind, record_id, leaf) for _, _, kind, record_id, leaf in by_org[org_id]])


def _frontier_keys(size: int) -> list[tuple[int, int]]:
    """(level, index) of the complete subtrees along the right edge of a tree of `size` leaves,
    largest first: what LogHead.frontier keeps the hashes of."""
    keys = []
    start = 0
    for level in range(size.bit_length() - 1, -1, -1):
        if size >> level & 1:
            keys.append((level, start >> level))
            start += 1 << level
    return keys


def _frontier_hashes(size: int, frontier: list[str]) -> dict[tuple[int, int], bytes]:
    return {key: bytes.fromhex(value) for key, value in zip(_frontier_keys(size), frontier, strict=True)}


def _frontier_of(size: int, known: dict[tuple[int, int], bytes]) -> list[str]:
    return [known[key].hex() for key in _frontier_keys(size)]


# The append's statements, compiled once (see storage.db.Prepared): building them took most of
# an append, inside SQLite's one writer lock.
_HEAD = Prepared(lambda org: for_update(LogHead.select(LogHead.id, LogHead.size, LogHead.frontier)
                                        .where(LogHead.organization == org)), org=int)
_SET_HEAD = Prepared(lambda head, size, frontier: LogHead.update(
    {LogHead.size: as_given(size), LogHead.frontier: as_given(frontier)}).where(LogHead.id == head),
    head=int, size=int, frontier=str)
_ENTRY = Prepared(lambda org, number, kind, record, leaf: LogEntry.insert({
    LogEntry.organization: as_given(org), LogEntry.number: as_given(number),
    LogEntry.kind: as_given(kind), LogEntry.record_id: as_given(record),
    LogEntry.leaf: as_given(leaf)}), org=int, number=int, kind=str, record=int, leaf=str)
_HASH = Prepared(lambda org, node, value: LogHash.insert({
    LogHash.organization: as_given(org), LogHash.node: as_given(node),
    LogHash.hash: as_given(value)}), org=int, node=int, value=str)
LEVEL_SHIFT = 56  # LogHash.node = level << LEVEL_SHIFT | index


def node(level: int, index: int) -> int:
    return level << LEVEL_SHIFT | index


def _append_to(org_id: int, leaves: list[tuple[str, int, bytes]]) -> None:
    found = _HEAD.rows(org=org_id)
    if not found:  # the organization's first entry (two first writers: one inserts)
        LogHead.insert(organization=org_id, size=0, frontier=[]).on_conflict_ignore().execute()
        found = _HEAD.rows(org=org_id)
    head_id, size, frontier = found[0]
    known = _frontier_hashes(size, json.loads(frontier))
    made = merkle.new_hashes(size, [merkle.leaf_hash(leaf) for _, _, leaf in leaves],
                             lambda level, index: known[(level, index)])
    for n, (kind, record_id, leaf) in enumerate(leaves):
        _ENTRY.execute(org=org_id, number=size + n, kind=kind, record=record_id, leaf=leaf.decode())
    for h in made:
        _HASH.execute(org=org_id, node=node(h.level, h.index), value=h.hash)
    known.update({(h.level, h.index): h.hash for h in made})
    new_size = size + len(leaves)
    _SET_HEAD.execute(head=head_id, size=new_size,
                      frontier=json.dumps(_frontier_of(new_size, known), separators=(",", ":")))


# ---- reads ------------------------------------------------------------------------------------

_HASHES = Prepared(lambda org, nodes: LogHash.select(LogHash.node, LogHash.hash).where(
    (LogHash.organization == org) & LogHash.node.in_(nodes)), org=int, nodes=list[int])


def _read_all(org_id: int, make: Callable[[merkle.HashAt], list[bytes]]) -> list[bytes]:
    """What `make` answers with the log's stored hashes, read in one statement: a first run
    with stand-ins says which hashes it reads (which ones depends only on the sizes)."""
    wanted: list[int] = []

    def standin(level: int, index: int) -> bytes:
        wanted.append(node(level, index))
        return bytes(merkle.HASH_SIZE)

    make(standin)
    stored = {key: bytes(value) for key, value in _HASHES.rows(org=org_id, nodes=wanted)} \
        if wanted else {}

    def hash_at(level: int, index: int) -> bytes:
        found = stored.get(node(level, index))
        if found is None:
            raise AssertionError(f"the log of organization {org_id} lacks hash ({level}, {index})")
        return found
    return make(hash_at)


def size_and_root(org: Organization) -> tuple[int, bytes]:
    """The log's size and root now (0 and the empty tree's root before its first entry)."""
    head = LogHead.get_or_none(LogHead.organization == org)
    if head is None or head.size == 0:
        return 0, merkle.EMPTY_ROOT
    known = _frontier_hashes(head.size, head.frontier)
    return head.size, merkle.tree_root(head.size, lambda level, index: known[(level, index)])


def size_of(org: Organization) -> int:
    """The log's size now."""
    return LogHead.select(LogHead.size).where(LogHead.organization == org).scalar() or 0


def origin(public_host: str, org: Organization) -> str:
    """The checkpoint's origin line: `<host of the public URL>/<organization>`, stable."""
    return f"{public_host}/{org.name}"


def checkpoint(org: Organization, signer: notes.Signer, public_host: str) -> str:
    """The log's current checkpoint, a C2SP signed note."""
    size, root = size_and_root(org)
    return notes.sign_note(notes.checkpoint_body(origin(public_host, org), size, root), signer)


@dataclass(frozen=True)
class Entry:
    number: int
    kind: str
    record_id: int
    leaf: bytes

    @property
    def leaf_hash(self) -> bytes:
        return merkle.leaf_hash(self.leaf)


_ENTRY_AT = Prepared(lambda org, number: LogEntry.select(
    LogEntry.number, LogEntry.kind, LogEntry.record_id, LogEntry.leaf).where(
    (LogEntry.organization == org) & (LogEntry.number == number)), org=int, number=int)


def entry(org: Organization, number: int) -> Entry:
    found = _ENTRY_AT.rows(org=org.id, number=number)
    if not found:
        raise NotFound(f"Log entry {number} of organization '{org.name}' does not exist")
    number, kind, record_id, leaf = found[0]
    return Entry(number, kind, record_id, leaf.encode())


def _checked_size(org: Organization, field: str, tree_size: int) -> int:
    size = size_of(org)
    if not 0 < tree_size <= size:
        raise validation_error(field, f"Must be between 1 and the log's size ({size})")
    return tree_size


def inclusion_proof(org: Organization, index: int, tree_size: int) -> list[bytes]:
    """The RFC 9162 inclusion proof of entry `index` in the tree of the first `tree_size`."""
    _checked_size(org, "tree_size", tree_size)
    if not 0 <= index < tree_size:
        raise validation_error("index", f"Must be between 0 and tree_size - 1 ({tree_size - 1})")
    return _read_all(org.id, lambda hash_at: merkle.inclusion_proof(index, tree_size, hash_at))


def consistency_proof(org: Organization, first: int, second: int) -> list[bytes]:
    """The RFC 9162 consistency proof from the tree of `first` entries to that of `second`."""
    _checked_size(org, "second", second)
    if not 0 < first <= second:
        raise validation_error("first", f"Must be between 1 and second ({second})")
    return _read_all(org.id, lambda hash_at: merkle.consistency_proof(first, second, hash_at))


def tile(org: Organization, path: str) -> bytes:
    """The C2SP tlog-tiles tile `tile/<path>` of the log now: 404 unless the tree holds every
    hash of it (a full tile once 256 are complete, a partial one of at most what there is)."""
    try:
        found = merkle.parse_tile_path(f"tile/{path}")
    except ValueError as error:
        raise validation_error("tile", str(error)) from None
    size = size_of(org)
    leaves_per_hash = 1 << (merkle.TILE_HEIGHT * found.level)
    if (found.index * merkle.TILE_WIDTH + found.width) * leaves_per_hash > size:
        raise NotFound(f"The log of '{org.name}' ({size} entries) holds no tile {path}")
    return _read_all(org.id, lambda hash_at: [merkle.tile_hashes(found, hash_at)])[0]


def log_indexes(kind: str, record_ids: Iterable[int]) -> dict[int, int]:
    """record id -> its entry's number, for the records of `kind` that are in a log."""
    found: dict[int, int] = {}
    for chunk in in_chunks(sorted(set(record_ids))):
        found.update(LogEntry.select(LogEntry.record_id, LogEntry.number).where(
            (LogEntry.kind == kind) & LogEntry.record_id.in_(chunk)).tuples())
    return found


# ---- verification -----------------------------------------------------------------------------

def _entries(org_id: int) -> Iterator[LogEntry]:
    """The organization's entries in order, read in pages (a log may hold millions)."""
    after = -1
    while True:
        page = list(LogEntry.select().where((LogEntry.organization == org_id)
                                            & (LogEntry.number > after))
                    .order_by(LogEntry.number).limit(10_000))
        if not page:
            return
        yield from page
        after = page[-1].number


def verify_log(org: Organization) -> list[str]:
    """What differs in the organization's log: each entry whose number, leaf hash or record
    does not match (the record re-derived from its row by the builder of its kind), each
    stored subtree hash the leaves do not make, and a head that disagrees; [] when it holds."""
    problems: list[str] = []
    head = LogHead.get_or_none(LogHead.organization == org)
    store = merkle.MemoryHashStore()
    pending: dict[str, dict[int, tuple[int, bytes]]] = {}
    for row in _entries(org.id):
        if row.number != store.size:
            problems.append(f"entry {store.size} is missing (the next entry is {row.number})")
            break
        leaf = row.leaf.encode()
        store.append([merkle.leaf_hash(leaf)])
        pending.setdefault(row.kind, {})[row.record_id] = (row.number, leaf)
    for kind, records in pending.items():
        problems += _check_records(kind, records)
    stored = {(key >> LEVEL_SHIFT, key & (1 << LEVEL_SHIFT) - 1): bytes(value) for key, value in
              LogHash.select(LogHash.node, LogHash.hash).where(LogHash.organization == org).tuples()}
    for key in sorted(set(stored) | set(store.hashes)):
        made, kept = store.hashes.get(key), stored.get(key)
        if made == kept:
            continue
        if kept is None:
            problems.append(f"stored hash (level {key[0]}, index {key[1]}) is missing")
        elif made is not None and key[0] == 0:
            problems.append(f"entry {key[1]}: its leaf does not hash to its stored leaf hash")
        else:
            problems.append(f"stored hash (level {key[0]}, index {key[1]}) is not the one the "
                            "leaves make")
    size = head.size if head is not None else 0
    if size != store.size:
        problems.append(f"the log's head says {size} entries, {store.size} are stored in order")
    elif head is not None and head.frontier != _frontier_of(size, store.hashes):
        problems.append("the log's head holds hashes the leaves do not make")
    return sorted(problems, key=_entry_order)


def verify_growth(org: Organization, saved: str, verifier: notes.Verifier) -> list[str]:
    """Whether the log only grew since the checkpoint `saved` (a signed note kept earlier):
    its signature, then a consistency proof from its tree to the current one, checked against
    both roots. [] when it holds, else what failed."""
    try:
        kept = notes.open_checkpoint(saved, verifier)
    except notes.NoteError as error:
        return [f"the saved checkpoint does not verify with the log's key: {error}"]
    size, root = size_and_root(org)
    if kept.size > size:
        return [f"the saved checkpoint has {kept.size} entries, the log now {size}: it shrank"]
    if kept.size == 0:
        return []
    try:
        proof = _read_all(org.id, lambda hash_at: merkle.consistency_proof(kept.size, size, hash_at))
        merkle.verify_consistency(kept.size, size, kept.root, root, proof)
    except (merkle.ProofError, AssertionError) as error:
        return [f"the log is not an extension of the saved checkpoint ({kept.size} entries): {error}"]
    return []


def _entry_order(problem: str) -> tuple[int, str]:
    words = problem.split()
    number = words[1].rstrip(":") if words[0] == "entry" else ""
    return (int(number) if number.isdigit() else -1, problem)


def _check_records(kind: str, records: dict[int, tuple[int, bytes]]) -> list[str]:
    rebuild = _REBUILDERS.get(kind)
    if rebuild is None:
        return [f"entry {number}: no record kind '{kind}' is known" for number, _ in records.values()]
    problems = []
    for chunk in in_chunks(sorted(records)):
        now = rebuild(chunk)
        for record_id in chunk:
            number, leaf = records[record_id]
            if record_id not in now:
                problems.append(f"entry {number}: {kind} {record_id} no longer exists")
            elif canonical(now[record_id]) != leaf:
                recorded = json.loads(leaf)
                changed = sorted(k for k in recorded.keys() | now[record_id].keys()
                                 if recorded.get(k) != now[record_id].get(k))
                problems.append(f"entry {number}: {kind} {record_id} differs from its leaf "
                                f"({', '.join(changed)})")
    return problems


# ---- the log key ------------------------------------------------------------------------------

def load_or_create_signer(path: str, name: str) -> notes.Signer:
    """The log's signing key, kept in the file `path` (a C2SP signer key string; created with
    mode 0600 on first use, under the key name `name`). Several processes starting at once
    create it once: a whole new key file is linked into place, and a process that finds one
    there reads it instead."""
    if not os.path.exists(path):
        signer = notes.generate_signer(name)
        made = f"{path}.{os.getpid()}.new"
        descriptor = os.open(made, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as kept:
            kept.write(signer.skey + "\n")
        try:
            os.link(made, path)  # fails if another process linked its key first
        except FileExistsError:
            pass
        finally:
            os.unlink(made)
    return read_signer(path)


def read_signer(path: str) -> notes.Signer:
    """The log's signing key kept in the file `path`."""
    with open(path) as kept:
        text = kept.read().strip()
    try:
        return notes.parse_signer_key(text)
    except notes.NoteError as error:
        raise InvalidArgument(f"The transparency log key in {path} is not a signer key: {error}") from None

