"""An organization's transparency log: every evidence record written gets an entry, appended in
the transaction that keeps the record, numbered from 0 without gaps in commit order (each
append locks the organization's LogHead, as the transaction's last lock).

A leaf is the record's canonical JSON (RFC 8785): its kind, organization, ids, verdict, time,
actor, and SHA-256 digests of its bulky parts, built by the context that owns the record (a
*leaf builder*) from a declared `Shape`: each column of the record's table bound (its value,
free text past TEXT_LIMIT characters as its digest, so a leaf's size is bounded whatever the
input) or digested, or declared derived with the reason. A record changed in place gets an
entry per change; the same builders re-derive the latest entry of each record from the stored
rows (`verify_log`), so a record changed or removed behind the service's back is named. Leaf
hash, interior hashes, roots and proofs are RFC 9162's (`merkle`); checkpoints are C2SP signed
notes (`notes`).

A log begins with a `log_begun` entry (its *genesis*), which commits, for each kind whose rows
must all have an entry (registered with `rows`), to the rows of that kind the log does not hold:
none for an organization whose log began with its first record; for a database upgraded from a
release whose log began later (migration 0026), or that logged a kind from a later release on
(0030: a later genesis, of those kinds), their count, highest id and a digest of their stored
columns (for a kind whose rows change in place, of all its rows up to that id, logged or not,
and their columns that never change). `check_log` then names every such row with no entry, and
a genesis whose rows no longer are what it committed to. Each write of a trail ends with the trail's manifest
(`Subject`): the count and digest of its entries, and its verdict."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import peewee
import rfc8785

from ...storage.db import (
    Prepared,
    as_given,
    at_transaction_end,
    database,
    for_update,
    in_chunks,
    now,
    write_transaction,
)
from ...storage.models import LogEntry, LogHead, Organization
from ..kernel.errors import (
    FailedPrecondition,
    InvalidArgument,
    not_found,
    validation_error,
)
from . import kept, merkle, notes

# Leaf builders by kind: {record id: version of its latest leaf} -> {record id: leaf object},
# for the rows that still exist (a leaf without "v" is version 1).
Rebuild = Callable[[dict[int, int]], dict[int, dict[str, Any]]]
# The rows of a kind that must each have an entry: (organization id, after) -> the ids of the
# next PAGE of them after id `after`, ascending (`ids_after` makes one from a query).
Rows = Callable[[int, int], list[int]]
# Where rows are, to name them (row ids -> a few words each: "unit-tests in trail main").
Label = Callable[[list[int]], dict[int, str]]
_REBUILDERS: dict[str, Rebuild] = {}
_COVERED: dict[str, tuple[Rows, Label | None]] = {}
# The table and the columns of a covered kind's rows that never change once written, as a
# genesis digests them (migration 0026's, and `begin_again`'s).
Frozen = tuple[str, list[str]]
_FROZEN: dict[str, Frozen] = {}
_sequence = itertools.count()

BEGUN = "log_begun"  # the kind of a log's genesis entry


def register(kind: str, rebuild: Rebuild, rows: Rows | None = None,
             label: Label | None = None, frozen: Frozen | None = None) -> None:
    """How `verify_log` re-derives the leaves of `kind` from their rows (domain/__init__.py).
    With `rows`, each of those rows must have an entry: one with none is named (with `label`'s
    words), unless the log's genesis counted it among the rows from before the log. A genesis
    covers the kinds registered with `rows` when it was made: a kind covered from a later
    release on needs a migration appending a `log_begun` entry for its rows from before (see
    migrations/0026, 0030), and its `rows` must never come to include rows a genesis did not
    see. `frozen`: the table and the columns of its rows that never change once written, which
    the genesis of a log begun again (`begin_again`) digests (without, it counts them only)."""
    _REBUILDERS[kind] = rebuild
    if rows is not None:
        _COVERED[kind] = (rows, label)
    if frozen is not None:
        _FROZEN[kind] = frozen


# What a subject's manifest is: its leaf (None: nothing of it changed, no manifest), and the
# subjects (kind, id) whose verdicts it found changed, whose manifests follow in the append.
Made = tuple[dict[str, Any] | None, list[tuple[str, int]]]


@dataclass(frozen=True)
class Subject:
    """Something whose entries a *manifest* lists (a trail, an artifact). Each append that
    logs entries of a subject ends with one manifest entry of it (kind `kind`, record id the
    subject's id), whose leaf `manifest` makes: told the subject's id, the number the manifest
    gets, and the numbers and records (kind, record id) of the subject's entries the append
    logs (none when another subject's manifest named it: its verdict may have changed; then it
    may make none). A manifest holds the count of the subject's entries and `entries_digest`
    of their numbers, never the list itself, so that it fits an entry bundle whatever the
    subject's size. The subjects of an append are made kind by kind, in the order their kinds
    were registered: a manifest names only subjects of kinds registered after its own."""
    kind: str
    manifest: Callable[[int, int, list[int], list[tuple[str, int]]], Made]


_SUBJECTS: dict[str, Subject] = {}


def register_subject(subject: Subject) -> None:
    """Log a manifest of kind `subject.kind` (domain/__init__.py; see Subject for the order)."""
    _SUBJECTS[subject.kind] = subject


def entries_digest(numbers: Iterable[int], after: str | None = None) -> str:
    """The digest of an ordered list of entry numbers: h = 32 zero bytes, then for each number
    h = SHA-256(h || the number as 8 bytes, big-endian); hex. `after`: the digest of the list
    these numbers continue (a manifest extends its previous one's)."""
    made = bytes.fromhex(after) if after is not None else bytes(32)
    for number in numbers:
        made = hashlib.sha256(made + number.to_bytes(8, "big")).digest()
    return made.hex()


# ---- what a leaf binds ------------------------------------------------------------------------

# Free text longer than this (in characters) is held as "sha256:<hex of its UTF-8>": a leaf's
# size is bounded by its shape, whatever the names and texts given (an entry bundle carries a
# leaf of at most 0xFFFF bytes; a character is at most 6 bytes of JSON).
TEXT_LIMIT = 128
MAX_LEAF_BYTES = 0xFFFF


def text(value: Any) -> Any:
    """A value as a leaf holds it: text past TEXT_LIMIT characters as its digest."""
    if type(value) is str and len(value) > TEXT_LIMIT:
        return "sha256:" + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
    return value


@dataclass(frozen=True)
class Bound:
    """A column a leaf holds under `key`: its value (text as `text` holds it), or with
    `digested` the `digest` of it (JSON data, bulky text)."""
    key: str
    digested: bool = False


@dataclass(frozen=True)
class Derived:
    """A column a leaf does not hold, and why no answer or verdict it makes can change
    unseen (it follows from what is bound, or is not evidence)."""
    reason: str


@dataclass(frozen=True)
class Shape:
    """What the leaf of a kind binds of its record's row: every column of `model`, declared
    (tests/transparency/test_leaves.py enumerates them, so a new column has to be decided).
    `extra`: the keys the builder adds, not columns of the row (names of rows it points at,
    digests of related rows), with what they are. `version`: written as "v" when not 1.
    `whole_text`: a version-1 shape, written before TEXT_LIMIT, holds its texts whole (each
    bounded at the door). `others`: why the columns not named are left to another kind's leaf
    (a binding of a record whose own leaf binds the rest). `changes`: its rows change in place,
    an entry at each change, so verify-log finds which entry of a record is its latest (the
    entries of another kind, one a record, are each their record's latest)."""
    kind: str
    model: type[peewee.Model]
    columns: dict[str, Bound | Derived]
    extra: dict[str, str] = field(default_factory=dict)
    version: int = 1
    whole_text: bool = False
    others: Derived | None = None
    changes: bool = False
    # (column, key, digested) of the bound columns: what a leaf is made of, in a loop
    _bound: tuple[tuple[str, str, bool], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_bound", tuple(
            (column, how.key, how.digested) for column, how in self.columns.items()
            if isinstance(how, Bound)))

    def leaf(self, row: peewee.Model, **given: Any) -> dict[str, Any]:
        """The leaf of `row`: its bound columns, then `given` (the extra keys, and any bound
        key whose value the builder has already, e.g. a digest made before the write lock)."""
        values = row.__data__
        held = whole if self.whole_text else text
        leaf: dict[str, Any] = {"kind": self.kind}
        if self.version != 1:
            leaf["v"] = self.version
        for column, key, digested in self._bound:
            if key not in given:
                value = values.get(column)
                leaf[key] = digest(value) if digested else held(value)
        for key, value in given.items():
            leaf[key] = held(value)
        return leaf


def whole(value: Any) -> Any:
    """A value as a version-1 leaf holds it: as it is."""
    return value


SHAPES: dict[str, Shape] = {}


def shape(kind: str, model: type[peewee.Model], columns: dict[str, Bound | Derived], *,
          extra: dict[str, str] | None = None, version: int = 1, whole_text: bool = False,
          others: Derived | None = None, changes: bool = False) -> Shape:
    """Declare (once) what the leaf of `kind` binds of `model`'s rows: see Shape. Parts of a
    leaf (a row whose digest another kind's leaf holds) are declared as kinds too."""
    made = Shape(kind, model, columns, extra or {}, version, whole_text, others, changes)
    SHAPES[kind] = made
    return made


def version_of(leaf: bytes) -> int:
    """The version of a leaf's shape: its "v", 1 without one."""
    if b'"v":' not in leaf:  # no key "v" (a quote in a text is escaped): not parsed
        return 1
    found = json.loads(leaf).get("v", 1)
    return found if type(found) is int else 1


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


# What an append logs: (kind, record id, leaf, the subjects it is an entry of: (their
# manifest's kind, their id)).
Item = tuple[str, int, bytes, tuple[tuple[str, int], ...]]


def append(org_id: int, kind: str, record_id: int, leaf: dict[str, Any],
           *subjects: tuple[str, int]) -> None:
    """Log `leaf` (of the record `kind` `record_id`) when the current write transaction
    commits: after its other writes, in the order appended. `subjects`: (manifest kind, id) of
    each registered Subject it is an entry of, whose manifests the append then ends with."""
    item = (next(_sequence), org_id, (kind, record_id, canonical(leaf), subjects))
    at_transaction_end("transparency-log", _append_all, [item], last=True)


def _append_all(items: set[tuple[int, int, Item]]) -> None:
    by_org: dict[int, list[Item]] = {}
    for _, org_id, item in sorted(items, key=lambda each: each[0]):
        by_org.setdefault(org_id, []).append(item)
    for org_id in sorted(by_org):  # one locking order for every writer
        _append_to(org_id, by_org[org_id])


def _frontier(text: str | list[str]) -> list[bytes]:
    """LogHead.frontier as hashes (JSON text as read by a compiled statement, else a list)."""
    return [bytes.fromhex(value) for value in (json.loads(text) if isinstance(text, str) else text)]


def _frontier_text(frontier: list[bytes]) -> str:
    return json.dumps([value.hex() for value in frontier], separators=(",", ":"))


# The append's statements, compiled once (see storage.db.Prepared): building them took most of
# an append, inside SQLite's one writer lock.
_HEAD = Prepared(lambda org: for_update(LogHead.select(LogHead.id, LogHead.size, LogHead.frontier)
                                        .where(LogHead.organization == org)), org=int)
_SET_HEAD = Prepared(lambda head, size, frontier: LogHead.update(
    {LogHead.size: as_given(size), LogHead.frontier: as_given(frontier)}).where(LogHead.id == head),
    head=int, size=int, frontier=str)
_ENTRY = Prepared(lambda org, number, kind, record, leaf, hashes: LogEntry.insert({
    LogEntry.organization: as_given(org), LogEntry.number: as_given(number),
    LogEntry.kind: as_given(kind), LogEntry.record_id: as_given(record),
    LogEntry.leaf: as_given(leaf), LogEntry.hashes: as_given(hashes)}),
    org=int, number=int, kind=str, record=int, leaf=str, hashes=bytes)


def _append_to(org_id: int, leaves: list[Item]) -> None:
    """Three statements whatever the log's size: the head read (and locked), one row per
    entry holding its hashes, the head written; then a manifest per subject of its entries
    (made from the numbers they were given: Subject)."""
    found = _HEAD.rows(org=org_id)
    if not found:  # the organization's first entry (two first writers: one inserts)
        LogHead.insert(organization=org_id, size=0, frontier=[]).on_conflict_ignore().execute()
        found = _HEAD.rows(org=org_id)
    head_id, size, text = found[0]
    frontier = _frontier(text)
    if size == 0 and leaves[0][0] != BEGUN:  # the head is locked: the one writer that finds
        # the log empty begins it (unless a log begun again brings its own genesis)
        leaves = [(BEGUN, 0, canonical(genesis_leaf(org_id)), ()), *leaves]
    # the numbers and records of each subject's entries, in the order first logged
    subjects: dict[tuple[str, int], tuple[list[int], list[tuple[str, int]]]] = {}

    def add(kind: str, record_id: int, leaf: bytes) -> int:
        nonlocal size
        made = merkle.append_leaf(frontier, size, merkle.leaf_hash(leaf))
        _ENTRY.execute(org=org_id, number=size, kind=kind, record=record_id,
                       leaf=leaf.decode(), hashes=b"".join(made))
        size += 1
        return size - 1

    for kind, record_id, leaf, of in leaves:
        number = add(kind, record_id, leaf)
        for subject in of:
            numbers, records = subjects.setdefault(subject, ([], []))
            numbers.append(number)
            records.append((kind, record_id))
    for manifest_kind in list(_SUBJECTS):  # kind by kind, in registration order
        for (kind, subject_id), (numbers, records) in list(subjects.items()):
            if kind != manifest_kind:
                continue
            made, named = _SUBJECTS[kind].manifest(subject_id, size, numbers, records)
            if made is not None:
                add(kind, subject_id, canonical(made))
            for other in named:
                subjects.setdefault(other, ([], []))
    _SET_HEAD.execute(head=head_id, size=size, frontier=_frontier_text(frontier))


def genesis_leaf(org_id: int) -> dict[str, Any]:
    """The first entry of a log begun with its organization's first record: it holds every row
    of the kinds it names (none predates it)."""
    name = Organization.select(Organization.name).where(Organization.id == org_id).scalar()
    return {"kind": BEGUN, "org": name, "created_at": now(),
            "records": {kind: {"count": 0, "last_id": 0} for kind in sorted(_COVERED)}}


# ---- reads ------------------------------------------------------------------------------------

_HASHES = Prepared(lambda org, numbers: LogEntry.select(LogEntry.number, LogEntry.hashes).where(
    (LogEntry.organization == org) & LogEntry.number.in_(numbers)), org=int, numbers=list[int])


def _read_all(org_id: int, make: Callable[[merkle.HashAt], list[bytes]]) -> list[bytes]:
    """What `make` answers with the log's stored hashes, read in one statement: a first run
    with stand-ins says which hashes it reads (which ones depends only on the sizes), each
    kept by the entry that made it (merkle.maker_of)."""
    wanted: list[int] = []

    def standin(level: int, index: int) -> bytes:
        wanted.append(merkle.maker_of(level, index))
        return bytes(merkle.HASH_SIZE)

    make(standin)
    stored = {number: bytes(value) for number, value in _HASHES.rows(org=org_id, numbers=wanted)} \
        if wanted else {}

    def hash_at(level: int, index: int) -> bytes:
        found = stored.get(merkle.maker_of(level, index), b"")[level * merkle.HASH_SIZE:
                                                               (level + 1) * merkle.HASH_SIZE]
        if len(found) != merkle.HASH_SIZE:
            raise AssertionError(f"the log of organization {org_id} lacks hash ({level}, {index})")
        return found
    return make(hash_at)


def _head(org: Organization) -> LogHead | None:
    """The log's size and frontier (the columns every release's log head has)."""
    return LogHead.select(LogHead.size, LogHead.frontier).where(
        LogHead.organization == org).first()


def size_and_root(org: Organization) -> tuple[int, bytes]:
    """The log's size and root now (0 and the empty tree's root before its first entry)."""
    head = _head(org)
    if head is None or head.size == 0:
        return 0, merkle.EMPTY_ROOT
    return head.size, merkle.frontier_root(_frontier(head.frontier))


def size_of(org: Organization) -> int:
    """The log's size now."""
    return LogHead.select(LogHead.size).where(LogHead.organization == org).scalar() or 0


def origin(public_host: str, org: Organization) -> str:
    """The checkpoint's origin line: `<host of the public URL>/<organization>`, stable; a
    log begun again (`begin_again`) has the origin it was begun under."""
    kept_origin = LogHead.select(LogHead.origin).where(LogHead.organization == org).scalar()
    return kept_origin or f"{public_host}/{org.name}"


def begin_again(org: Organization, signer: LogSigner, public_host: str, suffix: str) -> str:
    """Begin `org`'s log again under the origin `<host>/<organization><suffix>`, when it
    cannot go on (its database restored from a backup older than a checkpoint signed of it,
    then written on): its entries are removed, and the new log's genesis commits to the old
    log's largest checkpoint signed (`previous`: its origin and the signed note, null when
    none was) and, for each kind whose rows must have an entry, to all its rows, which are now
    from before the log (their count, highest id and digest, as `check_coverage` checks them).
    Run with the server stopped. Answers the new origin."""
    old = _Tree(org, public_host)
    if old.size == 0:
        raise InvalidArgument(f"'{org.name}' has no log to begin again")
    previous = kept.read(signer.checkpoints).get(old.name)
    new_origin = f"{public_host}/{org.name}{suffix}"
    notes.checkpoint_body(new_origin, 0, merkle.EMPTY_ROOT)  # a valid origin line
    if new_origin == old.origin:
        raise InvalidArgument(f"The log of '{org.name}' has the origin {new_origin} already")
    records: dict[str, Any] = {}
    for kind, (rows, _) in sorted(_COVERED.items()):
        table, columns = _FROZEN.get(kind, ("", []))
        claim: dict[str, Any] = {"table": table, "columns": columns} if table else {}
        before = _Before(0, claim)
        for row_id in _row_ids(org.id, rows):
            before.add(row_id)
            before.last_id = row_id
        before._digest()  # the rows still waiting
        records[kind] = {"count": before.count, "last_id": before.last_id, **claim,
                         **({"sha256": before.sha256.hexdigest()} if table else {})}
    genesis = {"kind": BEGUN, "org": org.name, "created_at": now(), "records": records,
               "previous": None if previous is None else {
                   "origin": old.origin, "size": previous.size,
                   "checkpoint": previous.checkpoint}}
    with write_transaction():
        LogEntry.delete().where(LogEntry.organization == org).execute()
        LogHead.update(size=0, frontier=[], origin=new_origin).where(
            LogHead.organization == org).execute()
        append(org.id, BEGUN, 0, genesis)
    return new_origin


def checkpoint(org: Organization, signer: LogSigner, public_host: str, *also: notes.Signer
               ) -> str:
    """The log's current checkpoint, a C2SP signed note (by `signer`, then each of `also`),
    once the log is found consistent with the largest checkpoint `signer` signed of it before
    (`kept.Forked` if not)."""
    tree = _Tree(org, public_host)
    body = notes.checkpoint_body(tree.origin, tree.size, tree.root)
    if tree.size == 0:  # nothing to fork
        return notes.sign_note(body, signer, *also)
    return kept.signed(signer.checkpoints, tree, lambda: notes.sign_note(body, signer, *also))


def check_kept(org: Organization, signer: LogSigner, public_host: str) -> None:
    """Refuse (`kept.Forked`) a log not consistent with the largest checkpoint signed of it."""
    tree = _Tree(org, public_host)
    if tree.size:
        kept.verify(signer.checkpoints, tree)


_FIRST_HASHES = Prepared(lambda org: LogEntry.select(LogEntry.hashes).where(
    (LogEntry.organization == org) & (LogEntry.number == 0)), org=int)
_SIZE = Prepared(lambda org: LogHead.select(LogHead.size).where(LogHead.organization == org),
                 org=int)


class _Tree:
    """An organization's log as this read sees it, for `kept`: named by its origin and the
    leaf hash of its genesis."""

    def __init__(self, org: Organization, public_host: str) -> None:
        self.org_id, self.org = org.id, org.name
        self.size, self.root = size_and_root(org)
        first = _FIRST_HASHES.rows(org=org.id) if self.size else []
        genesis = bytes(first[0][0])[:merkle.HASH_SIZE].hex() if first else "none"
        self.origin = origin(public_host, org)
        self.name = f"{self.origin} {genesis}"

    def proof(self, first: int) -> list[bytes]:
        return _read_all(self.org_id, lambda hash_at: merkle.consistency_proof(
            first, self.size, hash_at))

    def extended_to(self, size: int) -> bytes | None:
        def committed() -> bytes | None:
            with database.connection_context():
                found = _SIZE.rows(org=self.org_id)
                if not found or found[0][0] < size:
                    return None
                mine, theirs = _read_all(self.org_id, lambda hash_at: [
                    merkle.tree_root(self.size, hash_at), merkle.tree_root(size, hash_at)])
                return theirs if mine == self.root else None

        # another thread has its own connection: it reads what is committed now, not the
        # snapshot of the caller's read (a process that signed a larger tree committed it first)
        with ThreadPoolExecutor(1) as outside:
            return outside.submit(committed).result()


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
        raise not_found("log_entry", f"Log entry {number} of organization '{org.name}' does not "
                        "exist", index=number)
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
    hash of it (a full tile once 256 are complete, a partial one of at most what there is).
    `entries/<N>[.p/<W>]` is the entry bundle of level-0 tile N: its leaves, each after its
    length as a big-endian 16-bit number."""
    bundle = path.startswith("entries/")
    try:  # an entry bundle's path is a level-0 tile's, with `entries` for the level
        found = merkle.parse_tile_path(f"tile/{'0/' + path.removeprefix('entries/') if bundle else path}")
    except ValueError as error:
        raise validation_error("tile", str(error)) from None
    size = size_of(org)
    leaves_per_hash = 1 << (merkle.TILE_HEIGHT * found.level)
    if (found.index * merkle.TILE_WIDTH + found.width) * leaves_per_hash > size:
        raise not_found("log_tile", f"The log of '{org.name}' ({size} entries) holds no tile "
                        f"{path}", tile=path, size=size)
    if bundle:
        return _entry_bundle(org.id, found.index * merkle.TILE_WIDTH, found.width)
    return _read_all(org.id, lambda hash_at: [merkle.tile_hashes(found, hash_at)])[0]


_LEAVES = Prepared(lambda org, first, end: LogEntry.select(LogEntry.leaf).where(
    (LogEntry.organization == org) & (LogEntry.number >= first) & (LogEntry.number < end))
    .order_by(LogEntry.number), org=int, first=int, end=int)


def _entry_bundle(org_id: int, first: int, count: int) -> bytes:
    leaves = [leaf.encode() for (leaf,) in _LEAVES.rows(org=org_id, first=first, end=first + count)]
    if len(leaves) != count:
        raise AssertionError(f"the log of organization {org_id} lacks entries {first}..{first + count - 1}")
    # Leaves hold their records' bulky parts as digests: far shorter than the 64 KiB a bundle
    # can carry, but a record of very long names would not fit.
    for n, leaf in enumerate(leaves):
        if len(leaf) > 0xFFFF:
            raise FailedPrecondition(f"Entry {first + n} ({len(leaf)} bytes) is longer than an "
                                     "entry bundle can carry: read it by GET entries/{index}",
                                     reason="LEAF_TOO_LONG", metadata={"index": str(first + n)})
    return b"".join(len(leaf).to_bytes(2, "big") + leaf for leaf in leaves)


def latest_indexes(kind: str, record_ids: Iterable[int]) -> dict[int, int]:
    """record id -> the number of its latest entry, for the records of `kind` (one that changes
    in place) that are in a log."""
    found: dict[int, int] = {}
    for chunk in in_chunks(sorted(set(record_ids))):
        found.update(LogEntry.select(LogEntry.record_id, peewee.fn.MAX(LogEntry.number)).where(
            (LogEntry.kind == kind) & LogEntry.record_id.in_(chunk))
            .group_by(LogEntry.record_id).tuples())
    return found


_GENESES = Prepared(lambda org: LogEntry.select(LogEntry.number, LogEntry.leaf).where(
    (LogEntry.organization == org) & (LogEntry.kind == BEGUN) & (LogEntry.record_id == 0))
    .order_by(LogEntry.number), org=int)


def covered_from(org_id: int, kind: str) -> int | None:
    """The number of the genesis from which the organization's log covers `kind` (the first
    `log_begun` entry naming it), None when none does."""
    for number, leaf in _GENESES.rows(org=org_id):
        records = json.loads(leaf).get("records")
        if isinstance(records, dict) and kind in records:
            return int(number)
    return None


def log_indexes(kind: str, record_ids: Iterable[int]) -> dict[int, int]:
    """record id -> its entry's number, for the records of `kind` that are in a log."""
    found: dict[int, int] = {}
    for chunk in in_chunks(sorted(set(record_ids))):
        found.update(LogEntry.select(LogEntry.record_id, LogEntry.number).where(
            (LogEntry.kind == kind) & LogEntry.record_id.in_(chunk)).tuples())
    return found


# ---- verification -----------------------------------------------------------------------------

# Entries read a statement (keyset pages by number), records re-derived a round: what a check
# holds at once, whatever the log's size.
PAGE = 5_000
_CHECKED_AT_ONCE = 2_000

_PAGE = Prepared(lambda org, after: LogEntry.select(
    LogEntry.number, LogEntry.kind, LogEntry.record_id, LogEntry.leaf, LogEntry.hashes).where(
    (LogEntry.organization == org) & (LogEntry.number > after)).order_by(LogEntry.number)
    .limit(PAGE), org=int, after=int)


def _entries(org_id: int) -> Iterator[tuple[int, str, int, str, bytes]]:
    """The organization's entries in order, (number, kind, record id, leaf, hashes), read in
    keyset pages of PAGE (a log may hold millions)."""
    after = -1
    while True:
        page = _PAGE.rows(org=org_id, after=after)
        yield from page
        if len(page) < PAGE:
            return
        after = page[-1][0]
        del page  # one page held at a time, not this one while the next is read


@dataclass
class LogCheck:
    """What `check_log` checked of an organization's log, and what differs."""
    size: int  # entries the log's head counts
    entries: int = 0  # entries read in order, each hashed again
    hashes: int = 0  # stored hashes compared with those the leaves make
    rederived: dict[str, int] = field(default_factory=dict)  # records re-derived, by kind
    covered: dict[str, int] = field(default_factory=dict)  # rows that must have an entry, by kind
    problems: list[str] = field(default_factory=list)


def verify_log(org: Organization) -> list[str]:
    """What differs in the organization's log (`check_log`); [] when it holds."""
    return check_log(org).problems


def check_log(org: Organization, progress: Callable[[int], None] | None = None) -> LogCheck:
    """Check the organization's log: each entry whose number, leaf hash, subtree hashes or
    record does not match (the record re-derived from its row by the builder of its kind, for
    the latest entry of each record: earlier ones are its history; the hashes made again from
    the leaves) and a head that disagrees are named in `problems`, in entry order. Reads the
    entries in order, in pages, holding the tree's frontier and a round of records: memory
    does not grow with the log. `progress` is told the entries checked so
    far after each page."""
    head = _head(org)
    check = LogCheck(size=head.size if head is not None else 0)
    problems = check.problems
    frontier: list[bytes] = []
    size = 0
    pending: dict[str, dict[int, tuple[int, bytes]]] = {}
    begun: list[tuple[int, bytes]] = []
    waiting = 0
    for number, kind, record_id, text, hashes in _entries(org.id):
        if number != size:
            problems.append(f"entry {size} is missing (the next entry is {number})")
            break
        leaf = text.encode()
        made = merkle.append_leaf(frontier, size, merkle.leaf_hash(leaf))
        problems += _check_hashes(size, made, bytes(hashes))
        check.hashes += len(made)
        size += 1
        if kind == BEGUN:  # checked against the rows it commits to, below
            begun.append((number, leaf))
            continue
        pending.setdefault(kind, {})[record_id] = (number, leaf)
        waiting += 1
        if waiting >= _CHECKED_AT_ONCE:
            problems += _check_all(org.id, pending, check.rederived)
            waiting = 0
        if progress is not None and size % PAGE == 0:
            progress(size)
    problems += _check_all(org.id, pending, check.rederived)
    check.entries = size
    if check.size != size:
        problems.append(f"the log's head says {check.size} entries, {size} are stored in order")
    elif head is not None and _frontier(head.frontier) != frontier:
        problems.append("the log's head holds hashes the leaves do not make")
    problems.sort(key=_entry_order)
    problems += check_coverage(org.id, begun, check.covered)
    return check


def _check_hashes(number: int, made: list[bytes], kept: bytes) -> list[str]:
    """What differs between the hashes entry `number` keeps and those its leaf makes."""
    problems = []
    for (level, index), value in zip(merkle.closed_by(number), made, strict=True):
        stored = kept[level * merkle.HASH_SIZE:(level + 1) * merkle.HASH_SIZE]
        if stored == value:
            continue
        if not stored:
            problems.append(f"entry {number}: stored hash (level {level}, index {index}) is missing")
        elif level == 0:
            problems.append(f"entry {number}: its leaf does not hash to its stored leaf hash")
        else:
            problems.append(f"entry {number}: stored hash (level {level}, index {index}) is not "
                            "the one the leaves make")
    if len(kept) > len(made) * merkle.HASH_SIZE:
        problems.append(f"entry {number}: keeps more hashes than its append makes")
    return problems


def _check_all(org_id: int, pending: dict[str, dict[int, tuple[int, bytes]]],
               rederived: dict[str, int]) -> list[str]:
    """Re-derive the records waiting (emptied) whose entry is their latest, counted by kind
    in `rederived`."""
    problems = []
    for kind, records in pending.items():
        shape = SHAPES.get(kind)
        changes = kind in _SUBJECTS or (shape is not None and shape.changes)  # manifests too
        latest = _latest(org_id, kind, records) if changes else records
        rederived[kind] = rederived.get(kind, 0) + len(latest)
        problems += _check_records(kind, latest)
    pending.clear()
    return problems


def _latest(org_id: int, kind: str, records: dict[int, tuple[int, bytes]]
            ) -> dict[int, tuple[int, bytes]]:
    """The records (of a kind that changes in place) whose entry waiting is their latest (one
    indexed read a chunk)."""
    found: dict[int, tuple[int, bytes]] = {}
    for chunk in in_chunks(sorted(records)):
        for record_id, number in LogEntry.select(
                LogEntry.record_id, peewee.fn.MAX(LogEntry.number)).where(
                (LogEntry.kind == kind) & LogEntry.record_id.in_(chunk)
                & (LogEntry.organization == org_id)).group_by(LogEntry.record_id).tuples():
            if records[record_id][0] == number:
                found[record_id] = records[record_id]
    return found


def verify_growth(org: Organization, saved: str, verifier: notes.Verifier) -> list[str]:
    """Whether the log only grew since the checkpoint `saved` (a signed note kept earlier):
    its signature, then a consistency proof from its tree to the current one, checked against
    both roots. [] when it holds, else what failed."""
    try:
        before = notes.open_checkpoint(saved, verifier)
    except notes.NoteError as error:
        return [f"the saved checkpoint does not verify with the log's key: {error}"]
    unlike = not_extending(org, before.size, before.root, "the saved checkpoint")
    return [unlike] if unlike else []


def not_extending(org: Organization, size_then: int, root_then: bytes, what: str) -> str:
    """"" when the log now extends `what`, a tree of `size_then` entries and root `root_then` (a
    consistency proof from it to the current tree, checked against both roots); else how not."""
    size, root = size_and_root(org)
    if size_then > size:
        return f"{what} has {size_then} entries, the log now {size}: it shrank"
    if size_then == 0:
        return ""
    try:
        proof = _read_all(org.id, lambda hash_at: merkle.consistency_proof(size_then, size, hash_at))
        merkle.verify_consistency(size_then, size, root_then, root, proof)
    except (merkle.ProofError, AssertionError) as error:
        return f"the log is not an extension of {what} ({size_then} entries): {error}"
    return ""


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
        versions = {record_id: version_of(records[record_id][1]) for record_id in chunk}
        now, unreadable = _rebuilt(rebuild, versions)
        for record_id in chunk:
            number, leaf = records[record_id]
            if record_id in unreadable:
                problems.append(f"entry {number}: {kind} {record_id} cannot be derived again from "
                                f"its rows ({unreadable[record_id]})")
            elif record_id not in now:
                problems.append(f"entry {number}: {kind} {record_id} no longer exists")
            elif canonical(now[record_id]) != leaf:
                recorded = json.loads(leaf)
                changed = sorted(k for k in recorded.keys() | now[record_id].keys()
                                 if recorded.get(k) != now[record_id].get(k))
                problems.append(f"entry {number}: {kind} {record_id} differs from its leaf "
                                f"({', '.join(changed)})")
    return problems


def _rebuilt(rebuild: Rebuild, versions: dict[int, int]
             ) -> tuple[dict[int, dict[str, Any]], dict[int, str]]:
    """The leaves `rebuild` makes of the records, and why it could make none of some: rows
    edited behind the service's back can break what a builder relies on (a template a trail
    points at gone), and a check names such a record instead of stopping. One record at a time
    only when the whole round could not be made."""
    try:
        return rebuild(versions), {}
    except Exception:  # noqa: BLE001 - whatever the rows were made into: found per record below
        pass
    made: dict[int, dict[str, Any]] = {}
    unreadable: dict[int, str] = {}
    for record_id, version in versions.items():
        try:
            made.update(rebuild({record_id: version}))
        except Exception as error:  # noqa: BLE001 - named as the record's finding
            unreadable[record_id] = f"{type(error).__name__}: {error}"
    return made, unreadable


# ---- coverage: no record without its entry ------------------------------------------------------

def _pages(page: Callable[[int], list[int]]) -> Iterator[int]:
    """The ids `page(after)` answers, page after page (ascending, PAGE at most each)."""
    after = -1  # below every id (0 included: a genesis' record); within an int4 column's
    # range, as a PostgreSQL prepared statement types the bound
    while True:
        ids = page(after)
        yield from ids
        if len(ids) < PAGE:
            return
        after = ids[-1]


def ids_after(build: Callable[[Any, Any], peewee.Query]) -> Rows:
    """`Rows` from `build(org, after)`: a query selecting the ids of an organization's rows
    after `after`, ordered by id (compiled once; its rows read as they come)."""
    prepared = Prepared(lambda org, after: build(org, after).limit(PAGE), org=int, after=int)
    return lambda org_id, after: [row_id for (row_id,) in prepared.rows(org=org_id, after=after)]


_LOGGED = Prepared(lambda org, kind, after: LogEntry.select(LogEntry.record_id).distinct().where(
    (LogEntry.organization == org) & (LogEntry.kind == kind) & (LogEntry.record_id > after))
    .order_by(LogEntry.record_id).limit(PAGE), org=int, kind=str, after=int)


def _row_ids(org_id: int, rows: Rows) -> Iterator[int]:
    return _pages(lambda after: rows(org_id, after))


def _rows_logged(org_id: int, kind: str, rows: Rows, counted: dict[str, int]
                 ) -> Iterator[tuple[int, bool]]:
    """The ids of `kind`'s rows that must have an entry, ascending, each with whether it has
    one: its rows and the record ids of its entries, both read in id order in keyset pages,
    merged. The rows are counted in `counted[kind]`."""
    logged = _pages(lambda after: [record_id for (record_id,) in
                                   _LOGGED.rows(org=org_id, kind=kind, after=after)])
    next_logged = next(logged, None)
    counted.setdefault(kind, 0)
    for row_id in _row_ids(org_id, rows):
        counted[kind] += 1
        while next_logged is not None and next_logged < row_id:
            next_logged = next(logged, None)
        yield row_id, next_logged == row_id


_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")


def row_line(values: Iterable[Any]) -> bytes:
    """A row's stored values as a genesis digests them: a JSON array (compact, ASCII) and a
    newline, booleans as 0 and 1 and bytes as hex (as either engine reads them back)."""
    plain = [int(v) if isinstance(v, bool) else bytes(v).hex() if isinstance(v, bytes | memoryview)
             else v for v in values]
    return json.dumps(plain, separators=(",", ":")).encode() + b"\n"


class _Before:
    """What a genesis says of a kind's rows from before the log (its claim: their count, highest
    id and, when it names the table and columns it digested, the SHA-256 of their rows'
    `row_line`s in id order, id first), and the same made again from the rows found now. The
    rows it speaks of are those up to its highest id that have no entry; with `"rows": "all"`
    (a kind whose rows change in place, an entry at each change: a row from before may have
    one since) every row up to it, logged or not, its columns those that never change."""

    def __init__(self, number: int, claim: dict[str, Any]) -> None:
        self.number, self.claim = number, claim
        last_id = claim.get("last_id")
        self.last_id: int = last_id if isinstance(last_id, int) else 0
        self.all = claim.get("rows") == "all"
        table, columns = claim.get("table"), claim.get("columns")
        self.table: peewee.Table | None = None
        if isinstance(table, str) and isinstance(columns, list) and all(
                isinstance(c, str) and _IDENTIFIER.fullmatch(c) for c in [table, *columns]):
            self.table, self.columns = peewee.Table(table), ["id", *columns]
        self.count, self.sha256 = 0, hashlib.sha256()
        self.waiting: list[int] = []

    def add(self, row_id: int) -> None:
        self.count += 1
        self.waiting.append(row_id)
        if len(self.waiting) >= _CHECKED_AT_ONCE:
            self._digest()

    def _digest(self) -> None:
        table = self.table
        if table is not None:
            for chunk in in_chunks(self.waiting):
                row_id = peewee.Column(table, "id")
                rows = table.select(*(peewee.Column(table, c) for c in self.columns)).where(
                    row_id.in_(chunk)).order_by(row_id).tuples()
                for row in rows.execute(database):
                    self.sha256.update(row_line(row))
        self.waiting.clear()

    def problem(self, kind: str) -> str | None:
        self._digest()
        claim = self.claim
        if self.count == claim.get("count") and (
                self.table is None or self.sha256.hexdigest() == claim.get("sha256")):
            return None
        which = f"up to id {self.last_id}"
        said = f"{claim.get('count')} {kind} rows {which if self.all else f'before the log ({which})'}"
        if self.count != claim.get("count"):
            return f"entry {self.number}: the log's genesis counts {said}; {self.count} are there now"
        return (f"entry {self.number}: the log's genesis commits to {said}; they have been "
                "changed, replaced or added to")


def check_coverage(org_id: int, begun: list[tuple[int, bytes]], counted: dict[str, int]
                   ) -> list[str]:
    """Each row of a covered kind (registered with `rows`) that has no entry and is not one
    the genesis counted from before the log, and each genesis whose rows from before are not
    what it committed to. `begun`: the organization's `log_begun` entries (number, leaf); a kind
    is covered by the first that names it. No genesis beside rows of covered kinds: one line.
    The rows of each kind are counted in `counted`."""
    problems = []
    covered: dict[str, _Before] = {}
    for number, leaf in begun:
        records = json.loads(leaf).get("records")
        for kind, claim in (records.items() if isinstance(records, dict) else ()):
            if kind in covered:
                problems.append(f"entry {number}: a genesis of {kind} rows after entry "
                                f"{covered[kind].number}'s")
            elif isinstance(claim, dict):
                covered[kind] = _Before(number, claim)
    if not begun:
        counted.update((kind, sum(1 for _ in _row_ids(org_id, rows)))
                       for kind, (rows, _) in sorted(_COVERED.items()))
        if any(counted.values()):
            found = ", ".join(f"{kind} {count:,}" for kind, count in counted.items() if count)
            return [f"records but no log: {found} rows, and no log_begun entry (the log is "
                    "empty, deleted or never began)"]
        return []
    for kind, (rows, label) in sorted(_COVERED.items()):
        before = covered.get(kind)
        missing: list[int] = []
        for row_id, logged in _rows_logged(org_id, kind, rows, counted):
            if before is not None and row_id <= before.last_id:
                if before.all or not logged:
                    before.add(row_id)
            elif not logged:
                missing.append(row_id)
        if before is not None and (problem := before.problem(kind)):
            problems.append(problem)
        for chunk in in_chunks(missing):
            where = label(chunk) if label else {}
            problems += [f"{kind} {row_id}{f' ({where[row_id]})' if row_id in where else ''} has "
                         "no log entry" for row_id in chunk]
    return problems


# ---- the log key ------------------------------------------------------------------------------

@dataclass(frozen=True)
class LogSigner(notes.Signer):
    """The log's signing key, and the file the largest checkpoint signed of each log is kept
    in (`kept`), beside the key's."""
    checkpoints: str = ""


class MissingKey(Exception):
    """The log's key is not where it was looked for, and a new one must not be made."""


# Where earlier releases kept the key by default: relative to the working directory.
LEGACY_KEY_FILE = "evidence-log.key"


def prepare_signer(path: str, name: str, *, has_log: bool, default: bool) -> LogSigner:
    """The log's signing key, kept in the file `path` (a C2SP signer key string). Made (mode
    0600, under the key name `name`) only when it is missing and no log was signed yet: a
    server whose database holds a log never makes a key of its own accord (`MissingKey`, which
    names ./evidence-log.key, the former default, when the key's `default` place is empty and a
    key is there). Several processes starting at once make it once: a whole new key file is
    linked into place, and a process that finds one there reads it."""
    if not os.path.exists(path):
        if has_log:
            legacy = os.path.abspath(LEGACY_KEY_FILE)
            hint = (f"a key is at {legacy}, where earlier releases kept it by default: move it "
                    f"to {path}, or pass --log-key-file {legacy} (env EVIDENCE_LOG_KEY_FILE)"
                    if default and os.path.exists(legacy) else
                    "restore the key file from your backup, or pass --log-key-file (env "
                    "EVIDENCE_LOG_KEY_FILE) naming where it is")
            raise MissingKey(f"no transparency log key at {path}: the database already holds a "
                             "transparency log, and a new key would sign another history under "
                             f"its name; {hint}")
        os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700, exist_ok=True)
        signer = notes.generate_signer(name)
        made = f"{path}.{os.getpid()}.new"
        descriptor = os.open(made, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as written:
            written.write(signer.skey + "\n")
        try:
            os.link(made, path)  # fails if another process linked its key first
        except FileExistsError:
            pass
        finally:
            os.unlink(made)
    return read_signer(path)


def read_signer(path: str) -> LogSigner:
    """The log's signing key kept in the file `path`."""
    with open(path) as written:
        text = written.read().strip()
    try:
        found = notes.parse_signer_key(text)
    except notes.NoteError as error:
        raise InvalidArgument(f"The transparency log key in {path} is not a signer key: {error}") from None
    return LogSigner(found.name, found.key_id, found.private_key, kept.state_file(path))
