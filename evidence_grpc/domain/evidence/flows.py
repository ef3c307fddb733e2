"""Flows of an organization: create or update, find (also by a former name), list, archive,
rename.

Archiving a flow renames it `NAME-archived-at-<unix seconds>`, as the hosted service does: the
name is free for a new flow. A renamed flow answers to its former names (FlowAlias) until a flow
takes them, but an archived one only to the name archiving gave it: its former names are gone
with it (404), as a client managing flows by name (the Terraform provider) reads a flow archived
behind its back. Trails, artifacts and attestations hold the flow by id, so they move with it.
A flow archived before archiving renamed (it kept its name) keeps it until a flow is created
with that name: then it is renamed as if archived at its last change (the archiving)."""

from __future__ import annotations

from collections.abc import Iterator

import peewee

from ...api.v2 import views
from ...storage.db import (
    Prepared,
    contains,
    for_update,
    keyset_batches,
    locked,
    now,
    retry_on_conflict,
    write_transaction,
)
from ...storage.models import Flow, FlowAlias, Organization
from ..identity.callers import sees_flow
from ..kernel.errors import (
    NotFound,
    already_exists,
    authentication_required,
    missing,
    validation_error,
)
from ..kernel.ids import hosted_id
from ..kernel.names import check_name
from ..kernel.pages import Page
from ..kernel.references import former_flow_names
from ..kernel.urls import check_reported_urls
from . import leaves
from .templates import EMPTY_TEMPLATE_YAML, check_template, new_version, served_template

VISIBILITIES = ("private", "public")


def _check_visibility(visibility: str | None) -> str | None:
    if visibility is not None and visibility not in VISIBILITIES:
        raise validation_error("visibility", f"'{visibility}' is not one of {list(VISIBILITIES)}")
    return visibility


def upsert_flow(org: Organization, name: str, description: str, *, visibility: str | None = None,
                template_yaml: str | None = None, legacy_template: list[str] | None = None,
                repo_url: str | None = None) -> tuple[Flow, bool]:
    """Create the flow, or update it; an archived flow of that name is renamed out of the way
    and a new one created. Returns (flow, created)."""
    check_name("name", name)
    _check_visibility(visibility)
    check_reported_urls({"repo_url": repo_url})
    if template_yaml is not None:
        check_template(template_yaml, "flow")
    if legacy_template is not None:
        legacy_template = [n.strip() for n in legacy_template if n.strip()]
        if "artifact" not in legacy_template:
            legacy_template.append("artifact")

    def write() -> tuple[Flow, bool]:
        with write_transaction():
            stamp = now()
            flow = for_update(Flow.select().where((Flow.organization == org)
                                                  & (Flow.name == name))).first()
            if flow is not None and flow.archived:
                _rename(org, flow, _archived_name(org, name, flow.last_modified_at), stamp)
                flow = None
            created, changed = flow is None, False
            if created:
                # A flow taking a name ends that name's life as an alias of a renamed flow.
                FlowAlias.delete().where((FlowAlias.organization == org)
                                         & (FlowAlias.name == name)).execute()
                flow = Flow(organization=org, name=name, created_at=stamp, tags={})
            flow.description = description
            if visibility is not None or created:
                flow.visibility = visibility or "private"
            if template_yaml is not None or legacy_template is not None or created:
                kept = (flow.template_yaml, flow.legacy_template)
                flow.template_yaml = template_yaml if legacy_template is None else None
                flow.legacy_template = legacy_template
                if flow.template_yaml is None and legacy_template is None:
                    flow.template_yaml = EMPTY_TEMPLATE_YAML
                if created or (flow.template_yaml, flow.legacy_template) != kept:
                    flow.template = hosted_id()  # the new version, kept once the flow is
                    changed = True
            if repo_url is not None:
                flow.repo_url = repo_url
            flow.last_modified_at = stamp
            flow.save()
            if changed:  # trails begun from now on are judged by it
                new_version(flow, flow.template_yaml, flow.legacy_template, stamp, uid=flow.template)
            leaves.log_flow(org, flow)
            return flow, created

    return retry_on_conflict(write)


_FLOW_BY_NAME = Prepared(lambda org, name: Flow.select().where((Flow.organization == org)
                                                              & (Flow.name == name)),
                        org=int, name=str)


def find_flow(org: Organization, name: str) -> Flow:
    """The flow of that name, or the renamed flow that had it unless it is archived."""
    found = _FLOW_BY_NAME.models(Flow, org=org.id, name=name)
    flow = found[0] if found else None
    if flow is None:
        former = former_flow_names(org, [name])
        flow = Flow.get_or_none(Flow.id == former[name]) if former else None
    if flow is None or not sees_flow(flow.visibility):
        if not sees_flow(None):  # no credentials: private and unknown flows answer alike
            raise authentication_required()
        raise missing("flow", organization=org.name, flow=name)
    return flow


def flow_to_report_to(org: Organization, name: str) -> Flow:
    """The flow evidence is reported to; reporting to a flow that does not exist creates it
    without a template (the hosted docs, "Attesting without a template": compliance then
    depends only on the attestations made)."""
    try:
        return find_flow(org, name)
    except NotFound:
        return upsert_flow(org, name, "")[0]


def _active_flows(org: Organization, search: str | None, case_sensitive: bool
                  ) -> peewee.ModelSelect:
    query = Flow.select().where((Flow.organization == org) & (Flow.archived == False))  # noqa: E712
    if search:
        query = query.where(contains(Flow.name, search, case_sensitive))
    return query


def list_flows(org: Organization, page: Page, search: str | None = None,
               case_sensitive: bool = True) -> tuple[list[Flow], dict[str, int]]:
    """A page of the organization's flows by name (every flow: `flows_in_batches`)."""
    assert page.size is not None, "the whole list is read in batches"
    return page.apply(_active_flows(org, search, case_sensitive).order_by(Flow.name))


def flows_in_batches(org: Organization, size: int, search: str | None = None,
                     case_sensitive: bool = True) -> Iterator[list[Flow]]:
    """Every flow `list_flows` lists, in its order, `size` at a time (by name: a keyset)."""
    return keyset_batches(_active_flows(org, search, case_sensitive), [Flow.name], size)


def archive_flow(org: Organization, name: str) -> Flow:
    """Archive the flow, renaming it `NAME-archived-at-<unix seconds>`; an archived flow (found
    by that name, or one archived before archiving renamed) is left as it is."""
    def write() -> Flow:
        with write_transaction():
            flow = locked(find_flow(org, name))
            if not flow.archived:
                stamp = now()
                flow.archived = True
                _rename(org, flow, _archived_name(org, flow.name, stamp), stamp)
            return flow

    return retry_on_conflict(write)


def _archived_name(org: Organization, name: str, at: float) -> str:
    """`NAME-archived-at-<unix seconds>`, the first free one from `at` on (a flow archived in
    the same second took it), NAME cut short so that it fits the column."""
    seconds = int(at)
    while True:
        suffix = f"-archived-at-{seconds}"
        archived = name[:Flow.name.max_length - len(suffix)] + suffix
        if not Flow.select().where((Flow.organization == org) & (Flow.name == archived)).exists():
            return archived
        seconds += 1


def rename_flow(org: Organization, name: str, new_name: str) -> Flow:
    check_name("new_name", new_name)
    with write_transaction():
        flow = locked(find_flow(org, name))
        if Flow.select().where((Flow.organization == org) & (Flow.name == new_name)).exists():
            raise already_exists("flow", f"A flow named '{new_name}' already exists", flow=new_name)
        _rename(org, flow, new_name, now())
        return flow


def _rename(org: Organization, flow: Flow, new_name: str, stamp: float) -> None:
    """Give the flow a free name; its old one resolves to it (FlowAlias) until a flow takes it.
    (Archived, too, when `flow.archived` is set.)"""
    old_name = flow.name
    FlowAlias.delete().where((FlowAlias.organization == flow.organization_id)
                             & (FlowAlias.name == new_name)).execute()
    flow.name = new_name
    flow.last_modified_at = stamp
    flow.save()
    FlowAlias.create(organization=flow.organization_id, name=old_name, flow=flow)
    leaves.log_flow(org, flow)


def flow_view(flow: Flow, org_name: str) -> views.Flow:
    return {
        "name": flow.name,
        "description": flow.description,
        "visibility": flow.visibility,
        "org": org_name,
        "template": (flow.legacy_template if flow.legacy_template is not None
                     else None if flow.template_yaml is None else served_template(flow.template_yaml)),
        "repo_url": flow.repo_url,
        "tags": flow.tags or {},
        "last_deployment_at": flow.last_deployment_at,
        "archived": flow.archived,
        "created_at": flow.created_at,
        "last_modified_at": flow.last_modified_at,
    }
