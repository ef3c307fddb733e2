"""The environment audit log: who changed what in an environment, recorded in the transaction
of the change, and answered as CSV (`GET /environments/{org}/{env}/auditlog`)."""

from __future__ import annotations

import csv
import datetime
import io
import json
import math
from collections import defaultdict
from typing import Any

import peewee

from ...storage.db import in_chunks, now
from ...storage.models import Artifact, Environment, EnvironmentAuditEvent, Flow, Organization, Repo
from ..identity.callers import current_actor_type, current_caller
from ..kernel.errors import Unauthenticated, validation_error
from ..kernel.pages import in_time_range
from ..kernel.references import ids_by_name, names_by_id

EVENT_TYPES = ("environment_created", "environment_updated", "environment_archived",
               "environment_renamed", "environment_joined", "policies_changed",
               "artifact_allowed", "artifact_started", "artifact_exited", "artifact_scaled")
COLUMNS = ("timestamp", "time", "event_type", "actor", "artifact_name", "fingerprint",
           "snapshot_index", "flow_names", "repo_names", "details", "actor_type")
MAX_ROWS = 100_000
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _actor() -> str:
    try:
        return current_caller().user.name
    except Unauthenticated:  # no caller: a migration, bootstrap or a test acting directly
        return ""


def _actor_type(actor: str) -> str:
    return current_actor_type() if actor else ""


def record(env: Environment, event_type: str, *, artifact_name: str | None = None,
           fingerprint: str | None = None, snapshot_index: int | None = None,
           **details: Any) -> None:
    actor = _actor()
    EnvironmentAuditEvent.create(environment=env, timestamp=now(), event_type=event_type,
                                 actor=actor, actor_type=_actor_type(actor),
                                 artifact_name=artifact_name,
                                 fingerprint=fingerprint, snapshot_index=snapshot_index,
                                 details=details)


def record_changes(env: Environment, snapshot_index: int, changes: list[dict[str, Any]]) -> None:
    """A snapshot's started / exited / scaled artifacts (`snapshots._record_changes` rows)."""
    if not changes:
        return
    actor, stamp = _actor(), now()
    actor_type = _actor_type(actor)
    EnvironmentAuditEvent.insert_many([
        {"environment": env.id, "timestamp": stamp, "event_type": f"artifact_{c['type']}",
         "actor": actor, "actor_type": actor_type, "artifact_name": c["artifact_name"],
         "fingerprint": c["fingerprint"],
         "snapshot_index": snapshot_index, "details": {"was": c["was"], "now": c["now"]}}
        for c in changes]).execute()


def _names(text_values: list[str], field: str) -> list[str]:
    """Repeated and comma-separated query values alike."""
    names = [part.strip() for value in text_values for part in value.split(",") if part.strip()]
    if len(names) > 1000:
        raise validation_error(field, "At most 1000 values")
    return names


def _time(value: float | None, field: str) -> float | None:
    if value is not None and (not math.isfinite(value) or not 0 <= value < 1e11):
        raise validation_error(field, "Must be a UNIX timestamp")
    return value


def _provenance(org: Organization, fingerprints: set[str]
                ) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """fingerprint -> names of the flows and of the repos of its artifacts."""
    flows: dict[str, set[str]] = defaultdict(set)
    repos: dict[str, set[str]] = defaultdict(set)
    for chunk in in_chunks(sorted(fingerprints)):
        rows = (Artifact.select(Artifact.fingerprint, Flow.name, Repo.name.alias("repo"))
                .join(Flow).switch(Artifact).join(Repo, peewee.JOIN.LEFT_OUTER,
                                                  on=(Artifact.repo == Repo.id))
                .where((Artifact.organization == org) & Artifact.fingerprint.in_(chunk))
                .tuples())
        for fingerprint, flow_name, repo_name in rows:
            flows[fingerprint].add(flow_name)
            if repo_name:
                repos[fingerprint].add(repo_name)
    return flows, repos


def _current_names(org: Organization, names: list[str]) -> set[str] | None:
    """The current names of the flows named (by a current or a former name); None when none
    is named (no filter)."""
    if not names:
        return None
    return set(names_by_id(Flow, ids_by_name(Flow, org, names).values()).values())


def _cell(value: Any) -> str:
    """A CSV cell a spreadsheet shows as text, never runs as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def audit_log_csv(org: Organization, env: Environment, *, from_timestamp: float | None = None,
                  to_timestamp: float | None = None, event_types: list[str] | None = None,
                  flow_names: list[str] | None = None, repo_names: list[str] | None = None
                  ) -> str:
    """The environment's audit log, oldest first. `flow_names` / `repo_names` keep the artifact
    events of artifacts built in those flows (named by a current or former name) / repos."""
    start, end = _time(from_timestamp, "from_timestamp"), _time(to_timestamp, "to_timestamp")
    kinds = _names(event_types or [], "event_types")
    unknown = [k for k in kinds if k not in EVENT_TYPES]
    if unknown:
        raise validation_error("event_types", f"Unknown event type '{unknown[0]}': use "
                                              f"{', '.join(EVENT_TYPES)}")
    wanted_flows = _current_names(org, _names(flow_names or [], "flow_names"))
    wanted_repos = set(_names(repo_names or [], "repo_names"))
    query = EnvironmentAuditEvent.select().where(EnvironmentAuditEvent.environment == env)
    query = in_time_range(query, EnvironmentAuditEvent.timestamp, start, end)
    if kinds:
        query = query.where(EnvironmentAuditEvent.event_type.in_(kinds))
    rows = list(query.order_by(EnvironmentAuditEvent.timestamp, EnvironmentAuditEvent.id)
                .limit(MAX_ROWS))
    flows, repos = _provenance(org, {r.fingerprint for r in rows if r.fingerprint})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        row_flows = sorted(flows.get(row.fingerprint or "", ()))
        row_repos = sorted(repos.get(row.fingerprint or "", ()))
        if wanted_flows is not None and wanted_flows.isdisjoint(row_flows):
            continue
        if wanted_repos and not wanted_repos.intersection(row_repos):
            continue
        when = datetime.datetime.fromtimestamp(row.timestamp, datetime.UTC)
        writer.writerow([_cell(v) for v in (
            f"{row.timestamp:.3f}", when.isoformat(timespec="seconds"), row.event_type,
            row.actor, row.artifact_name, row.fingerprint, row.snapshot_index,
            ";".join(row_flows), ";".join(row_repos),
            json.dumps(row.details, sort_keys=True) if row.details else "", row.actor_type)])
    return out.getvalue()
