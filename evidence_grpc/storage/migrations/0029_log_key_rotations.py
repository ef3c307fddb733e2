"""Rotations of the transparency logs' key (issue 46): one row per organization and rotation,
the record of its log's `key_rotated` entry (domain.transparency.keys). Empty here: no key was
rotated by a command before. Frozen copy of the model."""

import peewee


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-in for the table of 0001, only referenced here.
    class Organization(Base):
        pass

    class LogKeyRotation(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        old_key = peewee.CharField()
        new_key = peewee.CharField()
        size = peewee.BigIntegerField(null=True)
        checkpoint = peewee.TextField(null=True)
        created_at = peewee.DoubleField()

    db.create_tables([LogKeyRotation])
