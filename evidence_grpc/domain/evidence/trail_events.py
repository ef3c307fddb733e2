"""Events that happen to an artifact after it was reported, added to every trail it was
reported to: it started or stopped running in an environment (`artifact_started_running`,
`artifact_stopped_running`), or it was approved (`artifact_approval_reported`). Written in
bulk: a snapshot of hundreds of artifacts costs one read per 4096 fingerprints and one insert
per EVENT_ROWS events."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import peewee

from ...storage.db import in_chunks
from ...storage.models import Artifact, Environment, Organization, TrailEvent

EVENT_ROWS = 500  # rows per INSERT: well inside SQLite's bound-parameter limit
_MOVES = {"started": "artifact_started_running", "exited": "artifact_stopped_running"}


def reports_of(scope: peewee.Expression, fingerprints: Iterable[str]
               ) -> list[tuple[int, str, str | None]]:
    """(trail id, fingerprint, template reference name) of each artifact within `scope` that
    has one of `fingerprints`."""
    wanted = sorted(set(fingerprints))
    return [row for chunk in in_chunks(wanted)
            for row in Artifact.select(Artifact.trail, Artifact.fingerprint,
                                       Artifact.template_reference_name)
            .where(scope & Artifact.fingerprint.in_(chunk)).tuples()]


def add_events(events: list[dict[str, Any]]) -> None:
    """Insert trail events {trail, timestamp, type, payload}."""
    for start in range(0, len(events), EVENT_ROWS):
        TrailEvent.insert_many(events[start:start + EVENT_ROWS]).execute()


def record_running(org: Organization, env: Environment, index: int,
                   changes: list[dict[str, Any]], stamp: float) -> None:
    """Tell the trails of the artifacts that started or exited in snapshot `index` (changes as
    the environment's events record them: type, fingerprint, now)."""
    moved: dict[tuple[str, str], int] = defaultdict(int)  # (fingerprint, type) -> instances now
    for change in changes:
        if change["type"] in _MOVES:
            moved[(change["fingerprint"], change["type"])] += change["now"]
    if not moved:
        return
    kinds: dict[str, list[str]] = defaultdict(list)
    for fingerprint, kind in sorted(moved):
        kinds[fingerprint].append(kind)
    events = []
    for trail_id, fingerprint, template_name in reports_of(Artifact.organization == org, kinds):
        for kind in kinds[fingerprint]:
            payload = {"git_commit_info": None, "repo_info": None,
                       "artifact_fingerprint": fingerprint, "environment_id": str(env.id),
                       "environment_name": env.name, "snapshot_index": index,
                       "template_reference_name": template_name}
            if kind == "started":
                payload["replica_number"] = moved[(fingerprint, kind)]
            events.append({"trail": trail_id, "timestamp": stamp, "type": _MOVES[kind],
                           "payload": payload})
    add_events(events)
