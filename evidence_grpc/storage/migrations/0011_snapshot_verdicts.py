"""Snapshots keep the verdict they were given when made (compliance of each running artifact
with its reasons and provenance, the policies applied, the snapshot's compliance), so later
evidence, template edits or policy changes show in the next snapshot and never flip an old
one. The snapshots made before are judged here, once, by the rules their releases judged them
with (`legacy_verdicts`, frozen): what their users were shown stays what it was.

Until 2026-11-28 this migration judged them by the domain's rules of the day instead, which
made every snapshot of an environment without policies Unknown; 0018 gives those installs the
old verdicts back."""

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField
from evidence_grpc.storage.migrations.legacy_verdicts import judge_all


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("snapshot", "verdicts", JSONField(default=list)),
        migrator.add_column("snapshot", "compliant", peewee.BooleanField(null=True)),
        migrator.add_column("snapshot", "applied_policies", JSONField(default=list)),
    )
    judge_all(db)
