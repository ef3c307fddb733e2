"""Snapshots made before verdicts were kept get back the verdicts their releases showed. Until
2026-11-28, 0011 judged them by the rules of the day it shipped with, under which an environment
without policies is of Unknown compliance: every such snapshot, its artifacts and their events
turned Unknown on upgrade (`kosli assert snapshot` failing where it had passed). The verdicts
0011 kept still hold each artifact's reports with their trail compliance, so the old verdict is
derived from them and from the environment's allowlist as it was then (`legacy_verdicts`).

Only snapshots made before 0011 ran (its history row's time) with the Unknown verdict and no
policies applied are restored; the snapshots judged Unknown since keep what their users were
shown. Where 0011 ran as it is now, nothing is Unknown from before it and this changes nothing.

That time is read as UTC, whatever this process's zone: the migration runner of this release
records UTC (storage.db.MigrationRunner), so 0011 and 0018 run in one upgrade agree in any
pair of zones. Until 2026-12-02 it was read in this process's local zone, and the runner wrote
the migrating process's local time: an install whose 0011 ran in a zone other than UTC, under a
release before this one, has a cut-off off by that zone's offset (docs/operator.md)."""

import datetime
import json

from evidence_grpc.storage.migrations.legacy_verdicts import (
    allowlisted,
    rows_of,
    snapshot_fields,
    store,
    verdict,
)


def up(migrator, db):
    applied = rows_of(db, "SELECT applied FROM schema_migration WHERE name = %s",
                      ["0011_snapshot_verdicts"])
    if not applied:
        return
    when = applied[0][0]
    if isinstance(when, str):  # SQLite keeps peewee's DateTimeField as text
        when = datetime.datetime.fromisoformat(when)
    until = when.replace(tzinfo=datetime.UTC).timestamp()
    rows = rows_of(db, "SELECT id, environment_id, verdicts, applied_policies FROM snapshot "
                       "WHERE compliant IS NULL AND created_at < %s ORDER BY id", [until])
    pending = [(sid, env_id, json.loads(verdicts or "[]")) for sid, env_id, verdicts, applied
               in rows if not json.loads(applied or "[]")]
    allowed = allowlisted(db, sorted({env_id for _, env_id, _ in pending}), until)
    for sid, env_id, kept in pending:
        if any(v["compliant"] is not None for v in kept):
            continue  # not a verdict of Unknown: judged by something else, left as it is
        store(db, sid, snapshot_fields([
            verdict(v["name"], v["fingerprint"], v["flows"], v["fingerprint"] in allowed[env_id])
            for v in kept]))
