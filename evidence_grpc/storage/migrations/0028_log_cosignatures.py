"""Witnesses' cosignatures of the transparency log's checkpoints (issue 46): the checkpoints a
witness cosigned, the cosignatures, and per organization and witness what the witness last
cosigned and how submitting to it went. Empty here: filled as witnesses cosign. Frozen copy of
the models."""

import peewee


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-in for the table of 0001, only referenced here.
    class Organization(Base):
        pass

    class LogCheckpoint(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE", index=False)
        size = peewee.BigIntegerField()
        root = peewee.CharField()
        note = peewee.TextField()
        created_at = peewee.DoubleField()

        class Meta:
            indexes = ((("organization", "size", "root"), True),)

    class LogCosignature(Base):
        checkpoint = peewee.ForeignKeyField(LogCheckpoint, on_delete="CASCADE", index=False)
        witness = peewee.CharField()
        line = peewee.TextField()
        cosigned_at = peewee.BigIntegerField()

        class Meta:
            indexes = ((("checkpoint", "witness"), True),)

    class LogWitness(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE", index=False)
        witness = peewee.CharField()
        size = peewee.BigIntegerField(default=0)
        cosigned_at = peewee.BigIntegerField(null=True)
        attempted_at = peewee.DoubleField(null=True)
        failures = peewee.IntegerField(default=0)
        refusals = peewee.IntegerField(default=0)
        problem = peewee.TextField(default="")

        class Meta:
            indexes = ((("organization", "witness"), True),)

    db.create_tables([LogCheckpoint, LogCosignature, LogWitness])
