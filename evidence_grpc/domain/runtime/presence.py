"""Where artifacts run: the environments an artifact is running in or has exited from.

Read from the start/exit events that snapshots record: an artifact runs in an environment when
its last event there is a start (or scaling), and has exited when it is an exit. Archived
environments are left out. Until an artifact has been seen in a snapshot it runs nowhere."""

from __future__ import annotations

from typing import Any

from ...storage.db import Prepared, in_chunks
from ...storage.models import Environment, EnvironmentEvent, Organization

# Run for every artifact answered (get, list, search): compiled once (storage.db.Prepared).
_EVENTS_OF = Prepared(lambda org, fingerprints: (
    EnvironmentEvent.select(EnvironmentEvent, Environment).join(Environment)
    .where((Environment.organization == org)
           & (Environment.archived == False)  # noqa: E712
           & (EnvironmentEvent.fingerprint.in_(fingerprints)))
    .order_by(EnvironmentEvent.snapshot_index, EnvironmentEvent.id)),
    org=int, fingerprints=list[str])


def presence(org: Organization, fingerprints: list[str]) -> dict[str, dict[str, list[Any]]]:
    """{fingerprint: {"running": [{environment_name, snapshot_index}], "exited": [...],
    "events": [{type: started|exited|scaled, environment_name, snapshot_index, timestamp, was,
    now}]}}. A running entry names the environment's latest snapshot, an exited one the snapshot
    in which the artifact stopped running; `events` are every start, exit and change of its
    instances (from `was` to `now`), in report order."""
    out: dict[str, dict[str, list[Any]]] = {
        fp: {"running": [], "exited": [], "events": []} for fp in fingerprints}
    if not fingerprints:
        return out
    # Each fingerprint is in one chunk, so its events keep their order.
    rows = [event for chunk in in_chunks(sorted(set(fingerprints)))
            for event in _EVENTS_OF.models(EnvironmentEvent, org=org.id, fingerprints=chunk)]
    # The last event of each (fingerprint, environment, artifact name): one fingerprint may run
    # under several names, and runs while any of them does.
    last: dict[tuple[str, int, str], EnvironmentEvent] = {}
    for event in rows:
        last[(event.fingerprint, event.environment_id, event.artifact_name)] = event
        out[event.fingerprint]["events"].append({
            "type": event.type, "environment_name": event.environment.name,
            "snapshot_index": event.snapshot_index, "timestamp": event.reported_at,
            "was": event.was, "now": event.now})
    by_env: dict[tuple[str, int], list[EnvironmentEvent]] = {}
    for (fingerprint, env_id, _), event in last.items():
        by_env.setdefault((fingerprint, env_id), []).append(event)
    for (fingerprint, _), events in sorted(by_env.items(),
                                           key=lambda kv: kv[1][0].environment.name):
        env = events[0].environment
        if all(e.type == "exited" for e in events):
            out[fingerprint]["exited"].append({"environment_name": env.name, "snapshot_index":
                                               max(e.snapshot_index for e in events)})
        else:
            out[fingerprint]["running"].append(
                {"environment_name": env.name, "snapshot_index": env.latest_index})
    return out
