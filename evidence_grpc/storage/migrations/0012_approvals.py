"""Approvals (deprecated): numbered per flow, about an artifact fingerprint. Frozen copy of
the model, independent of `models.py`."""

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-ins for tables of 0001, only referenced here.
    class Organization(Base):
        pass

    class Flow(Base):
        pass

    class Approval(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")
        number = peewee.IntegerField()
        fingerprint = peewee.CharField()
        artifact_name = peewee.TextField()
        environment = peewee.CharField(null=True)
        description = peewee.TextField(default="")
        commits = JSONField(default=list)
        oldest_commit = peewee.CharField(null=True)
        reviews = JSONField(default=list)
        state = peewee.CharField()
        user_data = JSONField(null=True)
        created_by = peewee.CharField(default="")
        created_at = peewee.DoubleField()
        last_modified_at = peewee.DoubleField()

        class Meta:
            indexes = (
                (("flow", "number"), True),
                (("flow", "fingerprint"), False),
            )

    db.create_tables([Approval])
