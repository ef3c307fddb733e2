"""Snapshots keep the verdict they were given when made (compliance of each running artifact
with its reasons and provenance, the policies applied, the snapshot's compliance), so later
evidence, template edits or policy changes show in the next snapshot and never flip an old
one. Existing snapshots are judged here, once, by the rules of this version (the domain's
own `judge_each`: one provenance read per organization, however many snapshots). That reads
the tables through today's models: should a later migration change a table the judge reads,
this fill must run on frozen copies instead."""

import peewee

from evidence_grpc.domain.snapshots import judge_recorded_snapshots
from evidence_grpc.storage.models import JSONField


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("snapshot", "verdicts", JSONField(default=list)),
        migrator.add_column("snapshot", "compliant", peewee.BooleanField(null=True)),
        migrator.add_column("snapshot", "applied_policies", JSONField(default=list)),
    )
    judge_recorded_snapshots()
