"""Rotations of the transparency logs' key (issue 46): one row per organization and rotation,
the record of its log's `key_rotated` entry (domain.transparency.keys), empty here: no key was
rotated by a command before. And the origin of a log begun again (`begin-new-log`), null for
every log here (a nullable column added in place: log_head has no rows depending on it).
Frozen copy of the model."""

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
    db.execute_sql("ALTER TABLE log_head ADD COLUMN origin VARCHAR(255)")
