"""References by id (DESIGN.md decision 12). What points at a flow or environment stores its
id and is answered with the name it has when read: a rename changes the label only, and a new
flow or environment given an old name inherits nothing.

A stored list of references holds ids and, as strings, the names that named nothing when
migration 0019 turned names into ids: labels shown as they are, never matched.

A flow is also found by a former name (FlowAlias: a rename left it) until a flow takes that
name, unless it is archived (an archived flow answers only to the name archiving gave it):
`ids_by_name` is the one lookup of flows by name, which `evidence.flows.find_flow` and every
filter, scope and query parameter naming flows go through."""

from __future__ import annotations

from collections.abc import Iterable

from ...storage.db import in_chunks
from ...storage.models import Environment, Flow, FlowAlias, Organization

Reference = int | str
Named = type[Environment] | type[Flow]


def ids_by_name(model: Named, org: Organization, names: Iterable[str]) -> dict[str, int]:
    """{name: id} of the organization's flows or environments of these names, a flow also by a
    former name (the unknown left out): a query per IN_CHUNK names, and one more for the former
    names of flows among those no flow has now."""
    wanted = list(dict.fromkeys(names))
    found = {name: row_id for chunk in in_chunks(wanted)
             for row_id, name in model.select(model.id, model.name).where(
                 (model.organization == org) & model.name.in_(chunk)).tuples()}
    rest = [name for name in wanted if name not in found]
    if model is Flow and rest:
        found.update(former_flow_names(org, rest))
    return found


def former_flow_names(org: Organization, names: list[str]) -> dict[str, int]:
    """{former name: id} of the organization's flows renamed from these names and not archived
    since (an archived flow answers only to the name archiving gave it)."""
    return {name: flow_id for chunk in in_chunks(names)
            for name, flow_id in FlowAlias.select(FlowAlias.name, FlowAlias.flow).join(Flow).where(
                (FlowAlias.organization == org) & FlowAlias.name.in_(chunk)
                & (Flow.archived == False)).tuples()}  # noqa: E712


def ids_of(references: Iterable[Reference]) -> list[int]:
    """The ids among `references` (labels left out)."""
    return [r for r in references if isinstance(r, int)]


def names_by_id(model: Named, references: Iterable[Reference]) -> dict[int, str]:
    """{id: current name} of the ids among `references`: one query per IN_CHUNK ids, however
    many items the references come from."""
    return {row_id: name for chunk in in_chunks(sorted(set(ids_of(references))))
            for row_id, name in model.select(model.id, model.name).where(
                model.id.in_(chunk)).tuples()}


def labels(references: Iterable[Reference], names: dict[int, str]) -> list[str]:
    """What to show for `references`: each id by its current name (from `names_by_id`), each
    label as it is."""
    return [names[r] if isinstance(r, int) else r for r in references]
