"""How many items a paged list holds, kept as each item is added (`ListSize`), so that a page
tells its total from one row, whatever the list's length: a flow's trails, a flow's and a
trail's attestations, an organization's audit events."""

from __future__ import annotations

from collections import Counter
from typing import Any

import peewee

from ...storage.db import Prepared, at_transaction_end
from ...storage.models import Attestation, ListSize, MembershipAuditEvent, Trail

TRAILS_OF_FLOW = "trails of flow"
ATTESTATIONS_OF_FLOW = "attestations of flow"
ATTESTATIONS_OF_TRAIL = "attestations of trail"
AUDIT_EVENTS_OF_ORGANIZATION = "audit events of organization"

_GROWN = Prepared(lambda kind, owner, by: ListSize.insert(kind=kind, owner=owner, size=by)
                  .on_conflict(conflict_target=[ListSize.kind, ListSize.owner],
                               update={ListSize.size: ListSize.size + by}),
                  kind=str, owner=int, by=int)
_SIZE = Prepared(lambda kind, owner: ListSize.select(ListSize.size).where(
    (ListSize.kind == kind) & (ListSize.owner == owner)), kind=str, owner=int)


def added(item: int, *lists: tuple[str, int]) -> None:
    """Item `item` (its id) joins these lists ((kind, owner) each): counted as the write
    transaction's last writes, in one order (the counters are rows every writer of the list
    locks)."""
    at_transaction_end("list sizes", _grow, [(kind, owner, item) for kind, owner in lists])


def _grow(items: set[Any]) -> None:
    for (kind, owner), by in sorted(Counter((kind, owner) for kind, owner, _ in items).items()):
        _GROWN.execute(kind=kind, owner=owner, by=by)


def size(kind: str, owner: int) -> int:
    rows = _SIZE.rows(kind=kind, owner=owner)
    return rows[0][0] if rows else 0


def size_of_lists(kind: str, owners: Any) -> int:
    """The sizes of the lists of these owners (ids, or a query of them), added up."""
    return int(ListSize.select(peewee.fn.COALESCE(peewee.fn.SUM(ListSize.size), 0)).where(
        (ListSize.kind == kind) & ListSize.owner.in_(owners)).scalar())


def size_column(kind: str, owner: Any) -> peewee.ModelSelect:
    """The size as a subquery, to end a page's rows with."""
    sized = ListSize.alias()
    return sized.select(peewee.fn.COALESCE(peewee.fn.MAX(sized.size), 0)).where(
        (sized.kind == kind) & (sized.owner == owner))


def recount() -> None:
    """Every size counted again from the rows: for rows written in bulk around the domain
    (tests' and benchmarks' fixtures), as migration 0031 counted those made before it."""
    counted = ((TRAILS_OF_FLOW, Trail.flow), (ATTESTATIONS_OF_FLOW, Attestation.flow),
               (ATTESTATIONS_OF_TRAIL, Attestation.trail),
               (AUDIT_EVENTS_OF_ORGANIZATION, MembershipAuditEvent.organization))
    ListSize.delete().execute()
    for kind, owner in counted:
        ListSize.insert_from(owner.model.select(peewee.Value(kind), owner, peewee.fn.COUNT(
            peewee.SQL("*"))).group_by(owner), [ListSize.kind, ListSize.owner, ListSize.size]
        ).execute()
