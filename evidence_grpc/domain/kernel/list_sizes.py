"""The paged lists' sizes and their items' positions, kept as each item is added: how many a
list holds (`ListSize`), so that a page tells its total from one row, and where each item is in
it (`ListEntry`: 1 for the first added), so that a page is a range of positions, read on the
index at the same cost however deep in the list (issue 48). The lists: a flow's trails, a flow's
and a trail's attestations, an organization's audit events, a control's decisions, an
environment's events, an organization's trails, a flow's and an organization's artifacts.

A list's order is the order its items were added (on SQLite the order of their ids; on
PostgreSQL, of the commits of the transactions that added them, which lock the list's size row
in turn). Lists read through `page_of_list` only when the page is neither filtered nor in
another order."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import peewee

from ...storage.db import Prepared, at_transaction_end, in_chunks
from ...storage.models import (
    Artifact,
    Attestation,
    Control,
    EnvironmentEvent,
    Flow,
    ListEntry,
    ListSize,
    MembershipAuditEvent,
    Trail,
)
from .pages import Page

TRAILS_OF_FLOW = "trails of flow"
ATTESTATIONS_OF_FLOW = "attestations of flow"
ATTESTATIONS_OF_TRAIL = "attestations of trail"
AUDIT_EVENTS_OF_ORGANIZATION = "audit events of organization"
DECISIONS_OF_CONTROL = "decisions of control"
EVENTS_OF_ENVIRONMENT = "events of environment"
TRAILS_OF_ORGANIZATION = "trails of organization"
ARTIFACTS_OF_FLOW = "artifacts of flow"
ARTIFACTS_OF_ORGANIZATION = "artifacts of organization"


@dataclasses.dataclass(frozen=True)
class Kind:
    code: int  # ListEntry.list_kind: never reused, frozen in the migration that numbers it
    # the column naming the list's owner: the items' own, or (`joined`) its owner's row's id
    owner: peewee.Field
    # the order the rows made before positions are numbered in, ending with the items' id
    order: tuple[peewee.Field, ...]
    # how an item meets its owner's row, for items with no column of their owner's id
    joined: peewee.Expression | None = None

    @property
    def item(self) -> peewee.Field:
        """The items' id (the last of the order: ties are broken by it)."""
        return self.order[-1]

    def rows(self, *columns: Any, owner: int | None = None) -> peewee.ModelSelect:
        """`columns` of the items of the kind's lists (of `owner`'s alone, given one)."""
        query = self.item.model.select(*columns)
        if self.joined is not None:
            query = query.join(self.owner.model, on=self.joined)
        return query.where(self.owner.is_null(False) if owner is None else self.owner == owner)


KINDS = {TRAILS_OF_FLOW: Kind(1, Trail.flow, (Trail.id,)),
         ATTESTATIONS_OF_FLOW: Kind(2, Attestation.flow, (Attestation.id,)),
         ATTESTATIONS_OF_TRAIL: Kind(3, Attestation.trail, (Attestation.id,)),
         AUDIT_EVENTS_OF_ORGANIZATION: Kind(4, MembershipAuditEvent.organization,
                                            (MembershipAuditEvent.timestamp,
                                             MembershipAuditEvent.id)),
         # a decision names its control by identifier (it may be made before the control is:
         # governance.controls numbers those when the control is created)
         DECISIONS_OF_CONTROL: Kind(5, Control.id, (Attestation.created_at, Attestation.id),
                                    (Control.organization == Attestation.organization)
                                    & (Control.identifier == Attestation.control)
                                    & (Attestation.type == "decision")),
         EVENTS_OF_ENVIRONMENT: Kind(6, EnvironmentEvent.environment,
                                     (EnvironmentEvent.snapshot_index, EnvironmentEvent.id)),
         # the organization's trails meet it through their flow
         TRAILS_OF_ORGANIZATION: Kind(7, Flow.organization, (Trail.id,), Trail.flow == Flow.id),
         ARTIFACTS_OF_FLOW: Kind(8, Artifact.flow, (Artifact.id,)),
         ARTIFACTS_OF_ORGANIZATION: Kind(9, Artifact.organization, (Artifact.id,))}

_GROWN = Prepared(lambda kind, owner, by: ListSize.insert(kind=kind, owner=owner, size=by)
                  .on_conflict(conflict_target=[ListSize.kind, ListSize.owner],
                               update={ListSize.size: ListSize.size + by}),
                  kind=str, owner=int, by=int)
# The item `back` places before the list's last, at the position the size it has grown to gives
# (read in the statement: no round trip between the two)
_PLACED = Prepared(lambda kind, code, owner, back, item: ListEntry.insert_from(
    ListSize.select(peewee.Value(code), ListSize.owner, ListSize.size - back, peewee.Value(item))
    .where((ListSize.kind == kind) & (ListSize.owner == owner)),
    [ListEntry.list_kind, ListEntry.owner, ListEntry.position, ListEntry.item]),
    kind=str, code=int, owner=int, back=int, item=int)
_SIZE = Prepared(lambda kind, owner: ListSize.select(ListSize.size).where(
    (ListSize.kind == kind) & (ListSize.owner == owner)), kind=str, owner=int)


def added(item: int, *lists: tuple[str, int]) -> None:
    """Item `item` (its id) joins these lists ((kind, owner) each): counted and placed as the
    write transaction's last writes, in one order (the counters are rows every writer of the
    list locks), the items one transaction adds to a list in the order of their ids."""
    at_transaction_end("list sizes", _grow, [(kind, owner, item) for kind, owner in lists])


def _grow(items: set[Any]) -> None:
    of_list: defaultdict[tuple[str, int], list[int]] = defaultdict(list)
    for kind, owner, item in items:
        of_list[kind, owner].append(item)
    for (kind, owner), added_items in sorted(of_list.items()):
        _GROWN.execute(kind=kind, owner=owner, by=len(added_items))
        code, ordered = KINDS[kind].code, sorted(added_items)
        if len(ordered) == 1:
            _PLACED.execute(kind=kind, code=code, owner=owner, back=0, item=ordered[0])
            continue
        # many (a snapshot's events): their positions from the size, in a few statements
        first = size(kind, owner) - len(ordered) + 1
        for chunk in in_chunks([(code, owner, first + i, item) for i, item in enumerate(ordered)]):
            ListEntry.insert_many(chunk, fields=[ListEntry.list_kind, ListEntry.owner,
                                                 ListEntry.position, ListEntry.item]).execute()


def size(kind: str, owner: int) -> int:
    rows = _SIZE.rows(kind=kind, owner=owner)
    return rows[0][0] if rows else 0


def size_of_lists(kind: str, owners: Any) -> int:
    """The sizes of the lists of these owners (ids, or a query of them), added up."""
    return int(ListSize.select(peewee.fn.COALESCE(peewee.fn.SUM(ListSize.size), 0)).where(
        (ListSize.kind == kind) & ListSize.owner.in_(owners)).scalar())


def size_column(kind: str, owner: Any) -> peewee.Function:
    """The list's size as a scalar subquery (0 when it has none), to end a page's rows with:
    run once by the statement around it, and a bound its index range can use."""
    sized = ListSize.alias()
    return peewee.fn.COALESCE(sized.select(sized.size).where(
        (sized.kind == kind) & (sized.owner == owner)), 0)


def _page(kind: str, owner: Any, skip: Any, take: Any, ascending: bool) -> peewee.ModelSelect:
    """(item, the list's size) of each item of a page, in the list's order (`ascending`) or
    newest first: `take` items after the first `skip`, a range of positions read on the
    entries' key. No row when the page is past the end."""
    if ascending:
        low, high = peewee.Value(skip) + 1, peewee.Value(skip) + take
    else:
        high = size_column(kind, owner) - skip
        low = size_column(kind, owner) - skip - take + 1
    return (ListEntry.select(ListEntry.item, size_column(kind, owner))
            .where((ListEntry.list_kind == KINDS[kind].code) & (ListEntry.owner == owner)
                   & (ListEntry.position >= low) & (ListEntry.position <= high))
            .order_by(ListEntry.position.asc() if ascending else ListEntry.position.desc()))


def ids_at(kind: str, owner: Any, skip: Any, take: Any) -> peewee.ModelSelect:
    """The ids of `take` items of the list after its newest `skip`, as a subquery (to pick a
    page's rows with in the statement that reads them)."""
    return _page(kind, owner, skip, take, False).select(ListEntry.item).order_by()


# A page of each list, prepared (newest first, and in the order added)
_PAGES = {(kind, ascending): Prepared(
    lambda owner, skip, take, kind=kind, ascending=ascending: _page(
        kind, owner, skip, take, ascending), owner=int, skip=int, take=int)
    for kind in KINDS for ascending in (False, True)}


def items_of_page(kind: str, owner: int, page: Page, ascending: bool = False
                  ) -> tuple[list[int], int]:
    """The ids of the items of a page of the list (newest first, or in the order they were
    added) and how many the list holds, read in one statement whatever the page's depth (a
    second for the size when the page is past the end)."""
    assert page.size is not None, "a page of a list, not the whole list"
    rows = _PAGES[kind, ascending].rows(owner=owner, skip=page.offset, take=page.size)
    return [item for item, _ in rows], (rows[0][1] if rows else size(kind, owner))


def in_page_order(ids: list[int], read: Callable[[list[int]], Iterable[Any]]) -> list[Any]:
    """The rows of a page's ids (models, by their `id`), read by `read(ids)` (not called for
    an empty page), in the order of the ids."""
    if not ids:
        return []
    found = {row.id: row for row in read(ids)}
    return [found[i] for i in ids if i in found]


def problems() -> Iterator[str]:
    """What differs between the paged lists and their rows, a line each: a list whose rows,
    positions (distinct items, highest) and kept size are not the same number, and a position
    naming an item that is not a row of its owner. Each kind's lists are read in one grouped
    read of the rows and one of the entries (memory: a number per owner)."""
    count = peewee.fn.COUNT(peewee.SQL("*"))
    for name, kind in KINDS.items():
        rows = dict(kind.rows(kind.owner, count).group_by(kind.owner).tuples())
        placed = {owner: (at, distinct, highest) for owner, at, distinct, highest in ListEntry.select(
            ListEntry.owner, count, peewee.fn.COUNT(ListEntry.item.distinct()),
            peewee.fn.MAX(ListEntry.position)).where(ListEntry.list_kind == kind.code)
            .group_by(ListEntry.owner).tuples()}
        sizes = dict(ListSize.select(ListSize.owner, ListSize.size).where(ListSize.kind == name)
                     .tuples())
        for owner in sorted(set(rows) | set(placed) | set(sizes)):
            at, distinct, highest = placed.get(owner, (0, 0, 0))
            if not rows.get(owner, 0) == at == distinct == highest == sizes.get(owner, 0):
                yield (f"{name} {owner}: {rows.get(owner, 0)} rows, {at} positions of "
                       f"{distinct} items up to {highest}, kept size {sizes.get(owner, 0)}")
        its_row = kind.rows(kind.item).where((kind.item == ListEntry.item)
                                             & (kind.owner == ListEntry.owner))
        stray = (ListEntry.select(ListEntry.owner, ListEntry.position, ListEntry.item)
                 .where((ListEntry.list_kind == kind.code) & ~peewee.fn.EXISTS(its_row))
                 .order_by(ListEntry.owner, ListEntry.position))
        for owner, position, item in stray.tuples():
            yield f"{name} {owner}: position {position} names {item}, not a row of it"


def recount() -> None:
    """Every size counted and every position numbered again from the rows, in each list's
    order: for rows written in bulk around the domain (tests' and benchmarks' fixtures; an
    operator's `check-lists --repair`), as migrations 0031, 0033, 0034 and 0035 counted and numbered
    those made before them."""
    ListSize.delete().execute()
    ListEntry.delete().execute()
    for name in KINDS:
        number(name)


def number(name: str, owner: int | None = None) -> None:
    """The kind's lists numbered 1.. in its order and counted, from the rows, with none of their
    items numbered yet; `owner`'s alone, given one: in the transaction that makes an owner whose
    list has items before it exists (the decisions naming a control before it was created),
    before any item is added to the list."""
    kind = KINDS[name]
    ListSize.insert_from(kind.rows(peewee.Value(name), kind.owner, peewee.fn.COUNT(
        peewee.SQL("*")), owner=owner).group_by(kind.owner),
        [ListSize.kind, ListSize.owner, ListSize.size]).execute()
    ListEntry.insert_from(kind.rows(
        peewee.Value(kind.code), kind.owner,
        peewee.fn.ROW_NUMBER().over(partition_by=[kind.owner], order_by=list(kind.order)),
        kind.item, owner=owner),
        [ListEntry.list_kind, ListEntry.owner, ListEntry.position, ListEntry.item]).execute()
