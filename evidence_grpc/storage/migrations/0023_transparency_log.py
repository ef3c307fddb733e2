"""The transparency log (issue 33): per organization, its head (size and right-edge hashes),
its entries (one leaf per evidence record written from this release on) and the hashes of its
complete subtrees. Records written before it are not in the log. Frozen copy of the models."""

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-in for the table of 0001, only referenced here.
    class Organization(Base):
        pass

    class LogHead(Base):
        organization = peewee.ForeignKeyField(Organization, unique=True, on_delete="CASCADE")
        size = peewee.BigIntegerField(default=0)
        frontier = JSONField(default=list)

    class LogEntry(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        number = peewee.BigIntegerField()
        kind = peewee.CharField()
        record_id = peewee.BigIntegerField()
        leaf = peewee.TextField()

        class Meta:
            indexes = ((("organization", "number"), True), (("kind", "record_id"), False))

    class LogHash(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        node = peewee.BigIntegerField()  # level << 56 | index
        hash = peewee.BlobField()

        class Meta:
            indexes = ((("organization", "node"), True),)

    db.create_tables([LogHead, LogEntry, LogHash])
