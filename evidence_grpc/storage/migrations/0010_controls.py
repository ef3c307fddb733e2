"""Controls (beta) and their lifecycle versions. Frozen copies of the models, independent of
`models.py`. On PostgreSQL the identifier and name, which lists sort and page by, are COLLATE
"C" as in 0008, so both engines agree on the order and on where a page ends."""

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    collate = '"C"' if isinstance(db, peewee.PostgresqlDatabase) else None

    # Stand-in for a table of 0001, only referenced here.
    class Organization(Base):
        pass

    class Control(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        identifier = peewee.CharField(max_length=256, collation=collate)
        name = peewee.TextField(collation=collate)
        description = peewee.TextField(default="")
        links = JSONField(default=dict)
        tags = JSONField(default=dict)
        version = peewee.IntegerField()
        archived = peewee.BooleanField(default=False)
        created_by = peewee.CharField()
        created_at = peewee.DoubleField()
        last_modified_at = peewee.DoubleField()

        class Meta:
            indexes = ((("organization", "identifier"), True),
                       (("organization", "archived", "name"), False))

    class ControlVersion(Base):
        control = peewee.ForeignKeyField(Control, on_delete="CASCADE")
        version = peewee.IntegerField()
        event = peewee.CharField()
        name = peewee.TextField()
        description = peewee.TextField(default="")
        links = JSONField(default=dict)
        archived = peewee.BooleanField()
        created_by = peewee.CharField()
        created_at = peewee.DoubleField()

        class Meta:
            indexes = ((("control", "version"), True),)

    db.create_tables([Control, ControlVersion])
