"""What a trail's latest manifest in the transparency log says, kept as the trail is written
(issue 45): the manifest's entry number, the count and digest of the trail's entries it lists,
and what the trail's verdict is made from (the newest attestation of each name at each level of
the trail), so that the manifest ending each write of the trail is made from one row, however
many entries and attestations the trail has. Empty here: a trail's row is made from its rows by
its first write after this migration. Frozen copy of the model."""

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-in for the table of 0001, only referenced here.
    class Trail(Base):
        pass

    class TrailManifest(Base):
        trail = peewee.ForeignKeyField(Trail, primary_key=True, on_delete="CASCADE")
        manifest = peewee.BigIntegerField()
        count = peewee.BigIntegerField()
        entries_sha256 = peewee.CharField()
        newest = JSONField()

    db.create_tables([TrailManifest])
