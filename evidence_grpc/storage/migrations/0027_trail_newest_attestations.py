"""What a trail's verdict is made from, kept as its attestations are made (issue 45): the newest
attestation of each name at each level of the trail (the trail itself, each artifact of its
template), so that the manifest ending each write of the trail (its verdict) is judged without
reading every attestation the trail has. Empty here: a trail's row is made from its
attestations by its first write after this migration. Frozen copy of the model."""

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

    class TrailNewest(Base):
        trail = peewee.ForeignKeyField(Trail, primary_key=True, on_delete="CASCADE")
        newest = JSONField()

    db.create_tables([TrailNewest])
